#!/usr/bin/env bash
# The README's and the guide's screenshots: renders examples/archive/projects and photographs
# (in Debian's chromium, through tests/browser/run.mjs) the conversation page
# with its map and the fork-point index (light), one of its branch pages (dark)
# and a search with its results (light), into
# docs/screenshots/. Installs what it needs like scripts/test.sh (chromium,
# the pinned Node, the driver: scripts/browser-env.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/browser-env.sh

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# CCTREE_BIN: an already built cctree (default: build and run the release one).
if [ -n "${CCTREE_BIN:-}" ]; then
  "$CCTREE_BIN" -q render examples/archive/projects -o "$tmp/site"
else
  cargo run --quiet --release -- -q render examples/archive/projects -o "$tmp/site"
fi

# The conversation with the most branch pages, and the first of them.
conv=""
best=-1
for d in "$tmp"/site/*/c/*/; do
  n=$(find "$d" -path '*/b/*/index.html' | wc -l)
  if [ "$n" -gt "$best" ]; then best=$n; conv=$d; fi
done
[ "$best" -gt 0 ] || { echo "error: no conversation with forks in the example" >&2; exit 1; }
# A branch that starts at a fork (not the main branch's page, b/<root-uuid>/).
root="$(basename "$conv")"
branch="$(find "$conv" -path '*/b/*/index.html' ! -path "*/b/$root/*" | sort | head -n 1)"
conv="${conv#"$tmp/site/"}index.html"
branch="${branch#"$tmp/site/"}"

# The search: a word of the conversation's later prompts, with its results
# (grouped by conversation, the word marked in each excerpt) over the archive index.
"$CCTREE_NODE" tests/browser/run.mjs --site "$tmp/site" --viewport 1100x1200 \
  --pages "conversation=$conv,branch=$branch" --search retry --expect "$conv" \
  --shots "$tmp/shots" >"$tmp/report.json" ||
  { cat "$tmp/report.json" >&2; exit 1; }

mkdir -p docs/screenshots
cp "$tmp/shots/conversation-light.png" docs/screenshots/conversation-light.png
cp "$tmp/shots/branch-dark.png" docs/screenshots/branch-dark.png
cp "$tmp/shots/search.png" docs/screenshots/search-light.png
ls -l docs/screenshots/
