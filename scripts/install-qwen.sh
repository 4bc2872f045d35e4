#!/usr/bin/env bash
# Installs the Qwen Code the conformance suite (tests/conformance/qwen) is
# pinned to: @qwen-code/qwen-code 0.24.4, a JavaScript bundle (cli-entry.js,
# cli.js and chunks/; its optional native add-ons — node-pty, clipboard,
# sharp, audio capture — are left out: the client then runs shell commands
# through child_process), fetched from the npm registry with the sha512
# integrity locked in tests/conformance/qwen/package-lock.json checked
# (scripts/npm-fetch.sh), into ${CARGO_TARGET_DIR:-target}/tools/qwen-code-<version>.
# It runs on the pinned Node of scripts/node-env.sh (or CCTREE_NODE; the
# client needs Node >= 22): the script writes a launcher beside the bundle,
# <dest>/qwen, that runs cli-entry.js on that Node. Prints the launcher's
# path; fails loudly (exit 2) with what to do.
#
#   CCTREE_QWEN="$(scripts/install-qwen.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/qwen/package-lock.json

# shellcheck source=scripts/node-env.sh
. scripts/node-env.sh
node_env
node_major=$("$CCTREE_NODE" --version 2>/dev/null | sed 's/^v\([0-9]*\).*/\1/')
[ "${node_major:-0}" -ge 22 ] 2>/dev/null || die "Qwen Code needs Node >= 22; CCTREE_NODE=$CCTREE_NODE is $("$CCTREE_NODE" --version 2>/dev/null || echo 'not runnable') (unset CCTREE_NODE to use the pinned one)"

key="node_modules/@qwen-code/qwen-code"
entry=$(grep -A3 "\"$key\": {" "$lock") || die "$lock pins no $key"
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no version or integrity for $key"

dest="${CARGO_TARGET_DIR:-target}/tools/qwen-code-$version"
scripts/npm-fetch.sh @qwen-code/qwen-code "$version" "$integrity" "$dest" || die "could not fetch @qwen-code/qwen-code@$version (see above)"
dest=$(cd "$dest" && pwd)
[ -f "$dest/cli-entry.js" ] && [ -f "$dest/cli.js" ] || die "$dest holds no cli-entry.js and cli.js"
launcher="$dest/qwen"
printf '#!/bin/sh\n# Written by scripts/install-qwen.sh: Qwen Code %s on the pinned Node.\nexec "%s" "%s/cli-entry.js" "$@"\n' \
  "$version" "$CCTREE_NODE" "$dest" >"$launcher"
chmod +x "$launcher"
# --version in an empty HOME of its own (the client reads ~/.qwen/.env first).
probe=$(mktemp -d)
have=$(HOME="$probe" "$launcher" --version </dev/null 2>/dev/null || true)
rm -rf "$probe"
[ "$have" = "$version" ] || die "$launcher is not a working Qwen Code $version (it says '${have:-nothing}')"
echo "$launcher"
