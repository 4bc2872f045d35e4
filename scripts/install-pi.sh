#!/usr/bin/env bash
# Installs the Pi coding agent the conformance suite (tests/conformance/pi) is
# pinned to: @earendil-works/pi-coding-agent 1.6.0 (the package was
# @mariozechner/pi-coding-agent up to 0.73.1) and its dependencies, every
# package at the exact version and sha512 integrity that
# tests/conformance/pi/package-lock.json locks, each fetched from the npm
# registry and checked by scripts/npm-fetch.sh (no npm), unpacked at its place
# in the lock's node_modules tree under
# ${CARGO_TARGET_DIR:-target}/tools/pi-coding-agent-<version>/. Like
# `npm ci --omit=optional --ignore-scripts`: packages marked optional are left
# out (1.6.0's lock has none) and no install script runs (only
# @google/genai's no-op preinstall and protobufjs's version notice). It runs
# dist/bundle/cli.js on the pinned Node of scripts/node-env.sh (or
# CCTREE_NODE; the package wants >= 22.19): the script writes a launcher,
# <dest>/pi. Nothing is fetched when that exact tree is already there. Prints
# the launcher's path; fails loudly (exit 2) with what to do.
#
#   CCTREE_PI="$(scripts/install-pi.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
lock=tests/conformance/pi/package-lock.json
[ -f "$lock" ] || die "$lock is missing"

# shellcheck source=scripts/node-env.sh
. scripts/node-env.sh
node_env
nv=$("$CCTREE_NODE" -p 'process.versions.node') || die "CCTREE_NODE=$CCTREE_NODE does not run"
major=${nv%%.*} minor=${nv#*.} minor=${minor%%.*}
[ "$major" -gt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 19 ]; } ||
  die "Pi needs Node >= 22.19; CCTREE_NODE=$CCTREE_NODE is Node $nv (unset it to use the pinned one)"

# One line per package to install, parents before their nested packages:
# <place in the tree> <name> <version> <integrity>.
list=$("$CCTREE_NODE" -e '
  const lock = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const rows = [];
  for (const [place, p] of Object.entries(lock.packages || {})) {
    if (place === "" || p.optional || p.link) continue;
    const name = p.name || place.slice(place.lastIndexOf("node_modules/") + "node_modules/".length);
    if (!p.version || !p.integrity) { console.error(place + " has no version or integrity"); process.exit(1); }
    rows.push([place, name, p.version, p.integrity]);
  }
  rows.sort((a, b) => a[0].split("/node_modules/").length - b[0].split("/node_modules/").length || (a[0] < b[0] ? -1 : 1));
  for (const r of rows) console.log(r.join(" "));
' "$lock") || die "could not read $lock"
entry=$(printf '%s\n' "$list" | grep '^node_modules/@earendil-works/pi-coding-agent ') || die "$lock pins no @earendil-works/pi-coding-agent"
version=$(printf '%s\n' "$entry" | cut -d' ' -f3)

dest="${CARGO_TARGET_DIR:-target}/tools/pi-coding-agent-$version"
stamp=$(printf '%s\n' "$list" | sha256sum | cut -d' ' -f1)
if [ ! -f "$dest/.install-pi" ] || [ "$(cat "$dest/.install-pi")" != "$stamp" ]; then
  echo "install-pi: installing @earendil-works/pi-coding-agent@$version ($(printf '%s\n' "$list" | wc -l) packages) into $dest" >&2
  mkdir -p "$(dirname "$dest")"
  tmp=$(mktemp -d "$(dirname "$dest")/.install-pi.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  while read -r place name ver integrity; do
    scripts/npm-fetch.sh "$name" "$ver" "$integrity" "$tmp/$place" 2>/dev/null ||
      scripts/npm-fetch.sh "$name" "$ver" "$integrity" "$tmp/$place" ||
      die "could not fetch $name@$ver (see above)"
  done <<<"$list"
  printf '%s\n' "$stamp" >"$tmp/.install-pi"
  rm -rf "$dest"
  mv "$tmp" "$dest"
  trap - EXIT
fi
dest=$(cd "$dest" && pwd)
cli="$dest/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"
[ -f "$cli" ] || die "$dest holds no node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"
launcher="$dest/pi"
printf '#!/bin/sh\n# Written by scripts/install-pi.sh: Pi %s on the pinned Node.\nexec "%s" "%s" "$@"\n' \
  "$version" "$CCTREE_NODE" "$cli" >"$launcher"
chmod +x "$launcher"
# --version (printed on stderr) must not reach the network nor write into ~/.pi.
probe=$(mktemp -d)
have=$(HOME="$probe" PI_OFFLINE=1 PI_SKIP_VERSION_CHECK=1 PI_TELEMETRY=0 "$launcher" --version </dev/null 2>&1 || true)
rm -rf "$probe"
[ "$have" = "$version" ] || die "$launcher is not a working Pi $version (it says '${have:-nothing}')"
echo "$launcher"
