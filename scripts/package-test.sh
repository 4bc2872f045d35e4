#!/usr/bin/env bash
# Tests the packages scripts/package.sh built as their users install them:
# each is installed from the built files into an empty prefix, then run with
# no Rust on PATH (only /usr/bin, /bin and the installer's own directory, in
# an environment of its own) to render examples/archive/projects, and each
# site must be byte for byte the one `cargo run -- render` writes:
#
#   - the release archive: its .sha256 checked, unpacked, its binary run; its
#     name and layout are those Cargo.toml's [package.metadata.binstall] names;
#   - npm: a registry on 127.0.0.1 (scripts/npm-registry.mjs) serves the
#     built tarballs, then `npx --yes cctree@<version> render …` from an empty
#     directory with an empty npm cache, and `npm install -g --prefix EMPTY
#     cctree`, which must install this platform's package and no other;
#   - PyPI: the wheel installed with pip into a fresh venv (what `pipx` and
#     `uvx` do), then its `cctree render …`.
#
# Only the machine's own platform is run (an arm64 archive is run through
# qemu-aarch64 when Debian's qemu-user and libc6-arm64-cross are there).
#
#   scripts/package-test.sh [DIST]      (default: target/dist)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "package-test: error: $*" >&2; exit 1; }
say() { echo "package-test: $*" >&2; }

target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir=$root/$target_dir ;; esac
dist=${1:-$target_dir/dist}
case "$dist" in /*) ;; *) dist=$root/$dist ;; esac
tools=${CCTREE_TOOLS:-$target_dir/tools}
case "$tools" in /*) ;; *) tools=$root/$tools ;; esac
[ -d "$dist/npm" ] && [ -d "$dist/pypi" ] || die "$dist holds no packages: run scripts/package.sh first"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
host=$(rustc -vV | sed -n 's/^host: //p')
case "$host" in
  x86_64-unknown-linux-gnu) plat=linux-x64 wheel_arch=x86_64 ;;
  aarch64-unknown-linux-gnu) plat=linux-arm64 wheel_arch=aarch64 ;;
  *) die "no package is built for this machine ($host)" ;;
esac
example=$root/examples/archive/projects

work=$(mktemp -d "${TMPDIR:-/tmp}/cctree-package-test.XXXXXX")
registry_pid=
cleanup() {
  [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# No Rust where the packages run: PATH is only these, and none holds cargo.
clean_path=/usr/bin:/bin
for t in cargo rustc rustup; do
  if PATH=$clean_path command -v "$t" >/dev/null 2>&1; then
    die "$(PATH=$clean_path command -v "$t") is on the PATH the packages are tested with: the test needs a machine whose Rust is not in /usr/bin or /bin"
  fi
done
# Runs a command in an environment of its own: HOME, PATH and nothing else.
run_clean() { # PATH_PREFIX COMMAND...
  local prefix=$1
  shift
  env -i HOME="$work/home" PATH="$prefix:$clean_path" LANG=C.UTF-8 "$@"
}
mkdir -p "$work/home" "$work/no-bin"

# The reference: the site `cargo run` writes.
cargo run --locked --quiet -- -q render "$example" -o "$work/cargo-site"
files=$(find "$work/cargo-site" -type f | wc -l)
same_site() { # WHAT SITE
  if ! diff -r "$work/cargo-site" "$2" >"$work/diff" 2>&1; then
    head -n 20 "$work/diff" >&2
    die "$1 wrote another site than cargo run (the differences above)"
  fi
  say "$1: the same site as cargo run, byte for byte ($files files)"
}

# --- the release archive and its binstall metadata ---------------------------
archive=cctree-$version-$host.tar.gz
[ -f "$dist/$archive" ] || die "no $archive in $dist"
(cd "$dist" && sha256sum --quiet -c "$archive.sha256") || die "$archive does not match $archive.sha256"
mkdir "$work/archive"
tar -xzf "$dist/$archive" -C "$work/archive"
# Cargo.toml's templates, filled in as cargo binstall fills them, name this archive and its binary.
meta() { sed -n "/^\[package.metadata.binstall\]/,/^\[/s/^$1 = \"\(.*\)\"$/\1/p" Cargo.toml; }
fill() {
  sed -e 's/{ *repo *}/REPO/g' -e 's/{ *name *}/cctree/g' -e "s/{ *version *}/$version/g" \
    -e "s/{ *target *}/$host/g" -e 's/{ *archive-suffix *}/.tar.gz/g' -e 's/{ *bin *}/cctree/g' -e 's/{ *binary-ext *}//g'
}
pkg_url=$(meta pkg-url | fill)
bin_dir=$(meta bin-dir | fill)
[ "$(meta pkg-fmt)" = tgz ] || die "Cargo.toml's binstall pkg-fmt is not tgz"
[ "${pkg_url##*/}" = "$archive" ] || die "cargo binstall would download ${pkg_url##*/}, scripts/package.sh writes $archive"
[ -x "$work/archive/$bin_dir" ] || die "cargo binstall would look for $bin_dir in $archive, which does not hold it"
run_clean "$work/no-bin" "$work/archive/$bin_dir" -q render "$example" -o "$work/archive-site"
same_site "the release archive ($archive)" "$work/archive-site"
for other in "$dist"/cctree-"$version"-*.tar.gz; do
  [ "$other" != "$dist/$archive" ] || continue
  t=${other##*/cctree-$version-}
  t=${t%.tar.gz}
  (cd "$dist" && sha256sum --quiet -c "${other##*/}.sha256") || die "${other##*/} does not match its .sha256"
  if [ "$t" = aarch64-unknown-linux-gnu ] && command -v qemu-aarch64 >/dev/null 2>&1 && [ -d /usr/aarch64-linux-gnu ]; then
    mkdir "$work/$t"
    tar -xzf "$other" -C "$work/$t"
    run_clean "$work/no-bin" qemu-aarch64 -L /usr/aarch64-linux-gnu "$work/$t/cctree-$version-$t/cctree" -q render "$example" -o "$work/$t-site"
    same_site "the release archive for $t (under qemu-aarch64)" "$work/$t-site"
  else
    say "the release archive for $t: checksum checked, not run here"
  fi
done

# --- npm -----------------------------------------------------------------------
. scripts/node-env.sh
node_env
npm_dir=$(find "$tools" -maxdepth 1 -type d -name 'npm-[0-9]*' | sort -V | tail -n1)
[ -n "$npm_dir" ] && [ -f "$npm_dir/bin/npm-cli.js" ] || die "no npm in $tools: scripts/package.sh fetches it"
mkdir -p "$work/node-bin"
ln -s "$CCTREE_NODE" "$work/node-bin/node"
for cmd in npm npx; do
  printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$CCTREE_NODE" "$npm_dir/bin/$cmd-cli.js" >"$work/node-bin/$cmd"
  chmod +x "$work/node-bin/$cmd"
done
: >"$work/port"
mkfifo "$work/registry-stdin"
"$CCTREE_NODE" scripts/npm-registry.mjs "$dist/npm" "$work/port" <"$work/registry-stdin" &
registry_pid=$!
exec 7>"$work/registry-stdin" # held open: the registry stops when the script ends
for _ in $(seq 600); do [ -s "$work/port" ] && break; sleep 0.1; done # a minute, on a loaded machine
[ -s "$work/port" ] || die "the registry on 127.0.0.1 did not start"
registry=http://127.0.0.1:$(cat "$work/port")/
npm_env=(npm_config_registry="$registry" npm_config_cache="$work/npm-cache" npm_config_userconfig="$work/npmrc"
  npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false npm_config_loglevel=error)

mkdir "$work/npx"
(cd "$work/npx" && run_clean "$work/node-bin" "${npm_env[@]}" npx --yes "cctree@$version" -q render "$example" -o "$work/npx-site")
same_site "npx cctree@$version (from the registry on 127.0.0.1)" "$work/npx-site"

run_clean "$work/node-bin" "${npm_env[@]}" npm install --global --prefix "$work/npm-prefix" "cctree@$version" >/dev/null
installed=$(cd "$work/npm-prefix/lib/node_modules/cctree/node_modules" && ls)
[ "$installed" = "cctree-$plat" ] || die "npm installed the platform packages '$installed', not cctree-$plat alone"
run_clean "$work/npm-prefix/bin:$work/node-bin" cctree -q render "$example" -o "$work/npm-site"
same_site "npm install -g --prefix EMPTY cctree@$version (cctree-$plat)" "$work/npm-site"
exec 7>&-

# --- PyPI ----------------------------------------------------------------------
wheel=$(find "$dist/pypi" -name "cctree_cli-$version-*_$wheel_arch.whl" | head -n1)
[ -n "$wheel" ] || die "no wheel for $wheel_arch in $dist/pypi"
python3 -m venv "$work/venv" || die "python3 -m venv failed: apt-get install -y python3-venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
run_clean "$work/venv/bin" cctree -q render "$example" -o "$work/wheel-site"
same_site "the wheel ${wheel##*/} in a fresh venv" "$work/wheel-site"

say "every package of cctree $version for $host installs and renders the example as cargo run does"
