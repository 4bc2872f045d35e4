#!/usr/bin/env bash
# Installs the Claude Code client the conformance suite (tests/conformance) is
# pinned to: the native binary of @anthropic-ai/claude-code 2.1.332 for this
# platform, i.e. its package @anthropic-ai/claude-code-<os>-<arch>[-musl],
# fetched from the npm registry with the sha512 integrity locked in
# tests/conformance/package-lock.json checked (scripts/npm-fetch.sh: no node,
# no npm), into ${CARGO_TARGET_DIR:-target}/tools/claude-code-<version>-<platform>.
# Nothing is fetched when that exact package is already there. Prints the
# binary's path; fails loudly (exit 2) with what to do.
#
#   CCTREE_CLAUDE="$(scripts/install-claude.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/package-lock.json

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "the conformance suite runs Claude Code on Linux or macOS, not $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no Claude Code build for $(uname -m)" ;;
esac
libc=""
if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then libc=-musl; fi
pkg="@anthropic-ai/claude-code-$os-$arch$libc"

# The version and integrity the lock pins for that package (the lock is
# pretty-printed JSON: the two keys follow the package's own line).
entry=$(grep -A3 "\"node_modules/$pkg\": {" "$lock") || die "$lock pins no $pkg"
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no version or integrity for $pkg"

dest="${CARGO_TARGET_DIR:-target}/tools/claude-code-$version-$os-$arch$libc"
scripts/npm-fetch.sh "$pkg" "$version" "$integrity" "$dest" || die "could not fetch $pkg@$version (see above)"
bin="$dest/claude"
chmod +x "$bin" 2>/dev/null || true
have=$(DISABLE_AUTOUPDATER=1 "$bin" --version 2>/dev/null | cut -d' ' -f1 || true)
[ "$have" = "$version" ] || die "$bin is not a working Claude Code $version (it says '${have:-nothing}')"
case "$dest" in /*) echo "$bin" ;; *) echo "$PWD/$bin" ;; esac
