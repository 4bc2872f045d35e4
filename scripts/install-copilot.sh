#!/usr/bin/env bash
# Installs the GitHub Copilot CLI the conformance suite (tests/conformance/copilot)
# is pinned to: @github/copilot 1.0.102. The npm package is a loader
# (npm-loader.js) that runs the native binary of its platform package,
# @github/copilot-<os>[musl]-<arch>: a Node single-executable application whose
# blob holds the JavaScript package (copilot.tgz), unpacked on first run into
# $COPILOT_PKG_CACHE_HOME/pkg/<platform>/<version>/ (default ~/.copilot/pkg).
# The platform package is fetched from the npm registry with the sha512
# integrity locked in tests/conformance/copilot/package-lock.json checked
# (scripts/npm-fetch.sh: no node, no npm) into
# ${CARGO_TARGET_DIR:-target}/tools/copilot-<version>-<platform>, the bundled
# package is unpacked once beside it (pkg-cache/), and a launcher,
# <dest>/bin/copilot, runs the binary on that package with auto-update off
# (COPILOT_AUTO_UPDATE=false: else the client downloads and runs a newer
# version). Prints the launcher's path; fails loudly (exit 2) with what to do.
#
#   CCTREE_COPILOT="$(scripts/install-copilot.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/copilot/package-lock.json

case "$(uname -s)" in
  Linux)
    os=linux
    # The loader picks the musl build where the C library is not glibc.
    if ls /lib/ld-musl-* >/dev/null 2>&1 || (ldd --version 2>&1 | grep -qi musl); then
      os=linuxmusl
    fi
    ;;
  Darwin) os=darwin ;;
  *) die "the conformance suite runs GitHub Copilot CLI on Linux or macOS, not $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no GitHub Copilot CLI build for $(uname -m)" ;;
esac
platform="$os-$arch"
key="node_modules/@github/copilot-$platform"

# The lock is pretty-printed JSON: version and integrity follow the key's line.
entry=$(grep -A3 "\"$key\": {" "$lock") || die "$lock pins no $key"
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no version or integrity for $key"

dest="${CARGO_TARGET_DIR:-target}/tools/copilot-$version-$platform"
scripts/npm-fetch.sh "@github/copilot-$platform" "$version" "$integrity" "$dest" ||
  die "could not fetch @github/copilot-$platform@$version (see above)"
dest=$(cd "$dest" && pwd)
bin="$dest/copilot"
[ -f "$bin" ] || die "$dest holds no copilot binary"
chmod +x "$bin" 2>/dev/null || true

# Unpack the bundled package now (the binary's own extract-only mode), so no
# test pays for it and no test HOME receives a copy of it.
cache="$dest/pkg-cache"
pkg="$cache/pkg/$platform/$version"
if [ ! -f "$pkg/.extraction-complete" ] || [ ! -f "$pkg/index.js" ]; then
  COPILOT_SEA_EXTRACT_ONLY=1 COPILOT_PKG_CACHE_HOME="$cache" HOME="$dest/no-home" \
    "$bin" --binary-version </dev/null >/dev/null ||
    die "$bin could not unpack its bundled package into $cache (see above)"
  rm -rf "$dest/no-home"
fi
[ -f "$pkg/index.js" ] && [ -f "$pkg/.extraction-complete" ] ||
  die "$bin did not unpack its package into $pkg"

launcher="$dest/bin/copilot"
mkdir -p "$dest/bin"
printf '#!/bin/sh\n# Written by scripts/install-copilot.sh: GitHub Copilot CLI %s on its unpacked package, never updating itself.\nCOPILOT_PKG_CACHE_HOME="%s" COPILOT_AUTO_UPDATE=false exec "%s" "$@"\n' \
  "$version" "$cache" "$bin" >"$launcher"
chmod +x "$launcher"
have=$("$launcher" --version </dev/null 2>/dev/null | head -1 || true)
[ "$have" = "GitHub Copilot CLI $version." ] || die "$launcher is not a working GitHub Copilot CLI $version (it says '${have:-nothing}')"
# `--version` is answered by the loader alone; `help` runs the package.
"$launcher" help environment </dev/null 2>/dev/null | grep -q COPILOT_PROVIDER_BASE_URL ||
  die "$launcher does not run its package $pkg (copilot help environment failed)"
echo "$launcher"
