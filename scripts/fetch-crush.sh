#!/usr/bin/env bash
# Fetches the Crush a conformance run would drive (not part of the suite:
# scripts/test.sh runs every install-*.sh, and this one cannot work where only the registries are reachable): @charmland/crush
# 0.96.1. That npm package holds no binary: its postinstall downloads the
# GoReleaser archive for this platform from the project's release page and
# checks it against the sha256 its package.json pins ("archives"). This
# script does the same without node: it fetches the npm package with the
# sha512 integrity locked in tests/conformance/crush/package-lock.json
# (scripts/npm-fetch.sh), reads the archive's URL and sha256 for this
# platform from it, downloads the archive (or takes the file named by
# CCTREE_CRUSH_ARCHIVE, for a machine that cannot reach the release page),
# checks the sha256, and unpacks bin/crush into
# ${CARGO_TARGET_DIR:-target}/tools/crush-<version>-<os>-<arch>.
# Nothing is fetched when that binary is already there. Prints the
# binary's path; fails loudly (exit 2) with what to do.
#
# Where only the package registries are reachable (this project's
# machines and CI), the download fails: Crush is then covered by the
# hand-made fixture tests/fixtures/crush-0.96.1/ (written from its source),
# not by a conformance run; docs/transcript-format.md, appendix H.
#
#   CCTREE_CRUSH="$(scripts/fetch-crush.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/crush/package-lock.json

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) die "no Crush archive is pinned for $(uname -s)" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) die "no Crush archive is pinned for $(uname -m)" ;;
esac

key="node_modules/@charmland/crush"
entry=$(grep -A3 "\"$key\": {" "$lock") || die "$lock pins no $key"
version=$(printf '%s\n' "$entry" | sed -n 's/.*"version": "\([^"]*\)".*/\1/p' | head -1)
integrity=$(printf '%s\n' "$entry" | sed -n 's/.*"integrity": "\(sha512-[^"]*\)".*/\1/p' | head -1)
[ -n "$version" ] && [ -n "$integrity" ] || die "$lock has no version or integrity for $key"

tools="${CARGO_TARGET_DIR:-target}/tools"
dest="$tools/crush-$version-$os-$arch"
bin="$dest/bin/crush"
check() {
  local have
  have=$("$bin" --version </dev/null 2>/dev/null || true)
  case "$have" in *"$version"*) return 0 ;; *) return 1 ;; esac
}
if [ -x "$bin" ] && check; then
  case "$bin" in /*) echo "$bin" ;; *) echo "$PWD/$bin" ;; esac
  exit 0
fi

pkg="$tools/crush-npm-$version"
scripts/npm-fetch.sh @charmland/crush "$version" "$integrity" "$pkg" || die "could not fetch @charmland/crush@$version (see above)"

# The package.json is GoReleaser's, pretty-printed: each archive is a block
# under "archives" keyed "<os>-<arch>" with name, url, checksum.digest and
# wrappedIn on lines of their own.
block=$(sed -n "/\"$os-$arch\": {/,/^    }/p" "$pkg/package.json")
[ -n "$block" ] || die "$pkg/package.json names no archive for $os-$arch"
field() { printf '%s\n' "$block" | sed -n "s/.*\"$1\": \"\([^\"]*\)\".*/\1/p" | head -1; }
name=$(field name) url=$(field url) sha256=$(field digest) wrapped=$(field wrappedIn)
[ -n "$name" ] && [ -n "$url" ] && [ -n "$sha256" ] || die "$pkg/package.json has no name, url or sha256 for $os-$arch"

cache="$tools/npm-cache"
mkdir -p "$cache"
archive="$cache/$name"
if [ -n "${CCTREE_CRUSH_ARCHIVE:-}" ]; then
  cp "$CCTREE_CRUSH_ARCHIVE" "$archive.part.$$" || die "cannot read CCTREE_CRUSH_ARCHIVE=$CCTREE_CRUSH_ARCHIVE"
  mv "$archive.part.$$" "$archive"
fi
if [ ! -f "$archive" ] || [ "$(sha256sum "$archive" | cut -d' ' -f1)" != "$sha256" ]; then
  echo "fetch-crush: downloading $url" >&2
  part="$archive.part.$$"
  trap 'rm -f "$part"' EXIT
  command -v curl >/dev/null 2>&1 || die "curl is not installed: run apt-get install -y curl ca-certificates"
  curl -fsSL --retry 2 --connect-timeout 20 -o "$part" "$url" ||
    die "could not download $url: Crush's npm package ships no binary, only this release archive. Download it elsewhere and set CCTREE_CRUSH_ARCHIVE to the file (its sha256 must be $sha256)"
  mv "$part" "$archive"
  trap - EXIT
fi
got=$(sha256sum "$archive" | cut -d' ' -f1)
[ "$got" = "$sha256" ] || die "$archive does not match the sha256 @charmland/crush@$version pins (expected $sha256, got $got); not using it"

tmp=$(mktemp -d "$tools/.crush.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$archive" -C "$tmp" --no-same-owner || die "could not unpack $archive"
found="$tmp/${wrapped:+$wrapped/}crush"
[ -f "$found" ] || die "$archive holds no ${wrapped:+$wrapped/}crush"
rm -rf "$dest"
mkdir -p "$dest/bin"
mv "$found" "$bin"
chmod +x "$bin"
check || die "$bin is not a working Crush $version (it says '$("$bin" --version 2>&1 | head -1)')"
case "$bin" in /*) echo "$bin" ;; *) echo "$PWD/$bin" ;; esac
