#!/usr/bin/env bash
# Installs the Gemini CLI the conformance suite (tests/conformance/gemini) is
# pinned to: @google/gemini-cli 0.61.0, a self-contained JavaScript bundle
# (bundle/gemini.js; its optional native add-ons, node-pty and keytar, are
# left out: the client then runs shell commands through child_process and
# keeps no keychain), fetched from the npm registry with the sha512 integrity
# locked in tests/conformance/gemini/package-lock.json checked
# (scripts/npm-fetch.sh), into ${CARGO_TARGET_DIR:-target}/tools/gemini-cli-<version>.
# It runs on the pinned Node of the browser tests (scripts/node-env.sh; or
# CCTREE_NODE, >= 20): the script writes a launcher beside the bundle,
# <dest>/gemini, that runs the bundle on that Node. Prints the launcher's
# path; fails loudly (exit 2) with what to do.
#
#   CCTREE_GEMINI="$(scripts/install-gemini.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/gemini/package-lock.json

# shellcheck source=scripts/node-env.sh
. scripts/node-env.sh
node_env

key="node_modules/@google/gemini-cli"
entry=$(grep -A3 "\"$key\": {" "$lock") || die "$lock pins no $key"
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no version or integrity for $key"

dest="${CARGO_TARGET_DIR:-target}/tools/gemini-cli-$version"
scripts/npm-fetch.sh @google/gemini-cli "$version" "$integrity" "$dest" || die "could not fetch @google/gemini-cli@$version (see above)"
dest=$(cd "$dest" && pwd)
[ -f "$dest/bundle/gemini.js" ] || die "$dest holds no bundle/gemini.js"
launcher="$dest/gemini"
printf '#!/bin/sh\n# Written by scripts/install-gemini.sh: Gemini CLI %s on the pinned Node.\nexec "%s" "%s/bundle/gemini.js" "$@"\n' \
  "$version" "$CCTREE_NODE" "$dest" >"$launcher"
chmod +x "$launcher"
have=$("$launcher" --version </dev/null 2>/dev/null || true)
[ "$have" = "$version" ] || die "$launcher is not a working Gemini CLI $version (it says '${have:-nothing}')"
echo "$launcher"
