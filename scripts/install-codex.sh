#!/usr/bin/env bash
# Installs the Codex CLI the conformance suite (tests/conformance/codex) is
# pinned to: the native binary of @openai/codex 0.171.0 for this platform.
# The package ships it in an alias of itself, @openai/codex@<version>-<os>-<arch>
# (installed by npm as @openai/codex-<os>-<arch>), whose vendor/<triple>/
# holds bin/codex (a static musl build on Linux). It is fetched from the npm
# registry with the sha512 integrity locked in
# tests/conformance/codex/package-lock.json checked (scripts/npm-fetch.sh: no
# node, no npm), into ${CARGO_TARGET_DIR:-target}/tools/codex-<version>-<os>-<arch>.
# Nothing is fetched when that exact package is already there. Prints the
# binary's path; fails loudly (exit 2) with what to do.
#
#   CCTREE_CODEX="$(scripts/install-codex.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/codex/package-lock.json

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "the conformance suite runs Codex CLI on Linux or macOS, not $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no Codex CLI build for $(uname -m)" ;;
esac
key="node_modules/@openai/codex-$os-$arch"

# The lock is pretty-printed JSON: the alias's real name, version and
# integrity follow its key's line.
entry=$(grep -A4 "\"$key\": {" "$lock") || die "$lock pins no $key"
name=$(printf '%s\n' "$entry" | sed -n 's/.*"name": "\([^"]*\)".*/\1/p' | head -1)
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$name" ] && [ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no name, version or integrity for $key"
release=${version%%-*}

dest="${CARGO_TARGET_DIR:-target}/tools/codex-$release-$os-$arch"
scripts/npm-fetch.sh "$name" "$version" "$integrity" "$dest" || die "could not fetch $name@$version (see above)"
bin=$(find "$dest/vendor" -path '*/bin/codex' -type f 2>/dev/null | head -1)
[ -n "$bin" ] || die "$dest holds no vendor/<triple>/bin/codex"
chmod +x "$bin" 2>/dev/null || true
have=$("$bin" --version 2>/dev/null || true)
[ "$have" = "codex-cli $release" ] || die "$bin is not a working Codex CLI $release (it says '${have:-nothing}')"
case "$bin" in /*) echo "$bin" ;; *) echo "$PWD/$bin" ;; esac
