#!/usr/bin/env bash
# Installs the OpenCode the conformance suite (tests/conformance/opencode) is
# pinned to: the native binary of opencode-ai 1.18.33 for this platform. The
# npm package opencode-ai is a stub whose postinstall copies the binary of
# one of its optional dependencies, opencode-<os>-<arch>[-baseline][-musl]
# (plain packages, not aliases), each holding bin/opencode: a Bun
# executable with the client's JavaScript inside. The registry this project
# reaches serves only the linux-x64 builds of 1.18.33 (opencode-linux-x64,
# for processors with AVX2, and opencode-linux-x64-baseline, without), so
# those two are what tests/conformance/opencode/package-lock.json pins. The
# one for this processor is fetched with its sha512 integrity checked
# (scripts/npm-fetch.sh: no node, no npm) into
# ${CARGO_TARGET_DIR:-target}/tools/opencode-<version>-<package suffix>.
# Nothing is fetched when that exact package is already there. Prints the
# binary's path; fails loudly (exit 2) with what to do.
#
#   CCTREE_OPENCODE="$(scripts/install-opencode.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/opencode/package-lock.json

[ "$(uname -s)" = Linux ] || die "the conformance suite runs OpenCode on Linux x86-64 only (its lock pins no build for $(uname -s))"
case "$(uname -m)" in
  x86_64 | amd64) ;;
  *) die "the conformance suite runs OpenCode on Linux x86-64 only (its lock pins no build for $(uname -m))" ;;
esac
# The client's own postinstall picks the baseline build without AVX2, and
# a musl build on musl systems (not pinned: the registry has none).
if [ -e /etc/alpine-release ] || { command -v ldd >/dev/null 2>&1 && ldd --version 2>&1 | grep -qi musl; }; then
  die "OpenCode's musl build (opencode-linux-x64-musl) is not pinned: run the conformance suite on a glibc system"
fi
suffix=linux-x64
grep -qw avx2 /proc/cpuinfo 2>/dev/null || suffix=linux-x64-baseline
key="node_modules/opencode-$suffix"

# The lock is pretty-printed JSON: version and integrity follow its key's line.
entry=$(grep -A3 "\"$key\": {" "$lock") || die "$lock pins no $key"
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no version or integrity for $key"

dest="${CARGO_TARGET_DIR:-target}/tools/opencode-$version-$suffix"
scripts/npm-fetch.sh "opencode-$suffix" "$version" "$integrity" "$dest" || die "could not fetch opencode-$suffix@$version (see above)"
bin="$dest/bin/opencode"
[ -f "$bin" ] || die "$dest holds no bin/opencode"
chmod +x "$bin" 2>/dev/null || true
# --version needs a writable HOME (the client makes its folders at start):
# give it a scratch one so nothing lands in the user's.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
have=$(env -i PATH=/usr/bin:/bin HOME="$scratch" "$bin" --version </dev/null 2>/dev/null || true)
[ "$have" = "$version" ] || die "$bin is not a working OpenCode $version (it says '${have:-nothing}')"
case "$bin" in /*) echo "$bin" ;; *) echo "$PWD/$bin" ;; esac
