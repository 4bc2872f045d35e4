#!/usr/bin/env bash
# Builds the user guide (docs/: an mdBook, docs/book.toml and docs/SUMMARY.md)
# into target/guide/ with the pinned mdbook, then checks every link and image
# of it, offline (scripts/guide-links.py). Fails on a broken link.
#
#   scripts/guide.sh
#
# mdbook is built from crates.io (`cargo install --locked`, without its
# `serve` and `watch` features) into a cache kept between clones,
# $CCTREE_TOOLS_CACHE (default ~/.cache/cctree/tools): no Debian package of
# it exists for Debian 12, and crates.io is the registry its authors
# publish to. Needs cargo, a C compiler and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.5.4
cache=${CCTREE_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cctree/tools}
root=$cache/mdbook-$version
mdbook=$root/bin/mdbook
if [ ! -x "$mdbook" ] || [ "$("$mdbook" --version 2>/dev/null)" != "mdbook v$version" ]; then
  echo "guide: building mdbook $version from crates.io into $root (once per machine)…" >&2
  cargo install --locked --quiet "mdbook@$version" --no-default-features --features search --root "$root" ||
    { echo "error: could not build mdbook $version (see above)" >&2; exit 1; }
fi
"$mdbook" build docs
python3 scripts/guide-links.py target/guide
