#!/usr/bin/env bash
# Builds cctree's prebuilt packages, one binary per target, each put into:
#
#   OUT/cctree-<version>-<target>.tar.gz and .sha256   a release archive (what
#       `cargo binstall cctree` downloads: Cargo.toml's [package.metadata.binstall]);
#   OUT/pypi/cctree_cli-<version>-py3-none-manylinux2014_<arch>.manylinux_2_17_<arch>.whl
#       the PyPI wheel, built by maturin (bindings = "bin", packaging/pypi/);
#   OUT/npm/cctree-<version>-<os>-<arch>.tgz           the npm package holding
#       that platform's binary (published as version <version>-<os>-<arch> of
#       `cctree`, the way @openai/codex ships its own);
#   OUT/npm/cctree-<version>.tgz                       the npm package `cctree`:
#       the launcher, with one optional dependency per platform built here.
#
#   scripts/package.sh [--target TRIPLE]... [--profile PROFILE] [--out DIR]
#
# Targets: x86_64-unknown-linux-gnu and aarch64-unknown-linux-gnu (default:
# the machine's own). A release builds both in one run (the `cctree` npm
# package names the platforms of its run): docs/guide/release.md. PROFILE is
# a Cargo profile (default `release`, what is published; CI packages with
# `dist-ci`, the same code built faster: see Cargo.toml). OUT defaults to
# target/dist and is emptied first.
#
# The binaries are built once, by maturin with Zig as the C compiler and
# linker (both from PyPI, pinned with their hashes in
# packaging/pypi/requirements.txt, installed into target/tools): Zig
# cross-builds arm64 on x86-64 and links against glibc 2.17, so the binary
# runs on every glibc Linux since 2014. npm packs with the pinned npm on the
# pinned Node (scripts/node-env.sh). Needs python3 (with venv), the Rust
# target (added with rustup when missing), curl. Uploads nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() { echo "package: $*" >&2; exit 2; }

targets=()
profile=release
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --target) [ $# -ge 2 ] || die "--target needs a target triple"; targets+=("$2"); shift 2 ;;
    --target=*) targets+=("${1#--target=}"); shift ;;
    --profile) [ $# -ge 2 ] || die "--profile needs a Cargo profile"; profile=$2; shift 2 ;;
    --profile=*) profile=${1#--profile=}; shift ;;
    --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see scripts/package.sh --help)" ;;
  esac
done

target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir=$root/$target_dir ;; esac
out=${out:-$target_dir/dist}
case "$out" in /*) ;; *) out=$root/$out ;; esac
tools=${CCTREE_TOOLS:-$target_dir/tools}
case "$tools" in /*) ;; *) tools=$root/$tools ;; esac

host=$(rustc -vV | sed -n 's/^host: //p')
[ ${#targets[@]} -gt 0 ] || targets=("$host")
# Each target's npm platform: the Node `process.platform`-`process.arch` it runs on.
npm_platform() {
  case "$1" in
    x86_64-unknown-linux-gnu) echo linux-x64 ;;
    aarch64-unknown-linux-gnu) echo linux-arm64 ;;
    *) die "no package for target '$1': scripts/package.sh builds x86_64-unknown-linux-gnu and aarch64-unknown-linux-gnu" ;;
  esac
}
for t in "${targets[@]}"; do npm_platform "$t" >/dev/null; done

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
repo=$(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$version" ] && [ -n "$repo" ] || die "Cargo.toml names no version or repository"
# Archives carry the time of the last commit (the same bytes for the same
# sources). Not exported: build scripts that watch SOURCE_DATE_EPOCH (the C
# libraries' through `cc`) would rebuild at every commit.
epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}

# --- the tools ---------------------------------------------------------------
command -v python3 >/dev/null 2>&1 || die "python3 is missing: apt-get install -y python3 python3-venv"
req=packaging/pypi/requirements.txt
venv=$tools/maturin
if ! cmp -s "$req" "$venv/requirements.txt" 2>/dev/null || [ ! -x "$venv/bin/maturin" ]; then
  echo "package: installing maturin and Zig from PyPI ($req) into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" || die "python3 -m venv failed: apt-get install -y python3-venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$req" ||
    die "could not install maturin and Zig from PyPI (see above)"
  cp "$req" "$venv/requirements.txt"
fi
maturin=$venv/bin/maturin
# maturin --zig runs `python -m ziglang`: the venv's python.
export PATH="$venv/bin:$PATH"

if command -v rustup >/dev/null 2>&1; then
  installed=$(rustup target list --installed)
  for t in "${targets[@]}"; do
    grep -qx "$t" <<<"$installed" || rustup target add "$t" >&2 || die "rustup could not add the target $t"
  done
fi

. scripts/node-env.sh
node_env
npm_version=11.21.2
npm_dir=$tools/npm-$npm_version
scripts/npm-fetch.sh npm "$npm_version" \
  sha512-7HPApk+AflMUavSseL1Pm6CnYqMIHk53x+KmuhqmTDqPkjPMgxIpTPcTqsE91EKNw4gFBJV9fnXiSdGm1DXq9A== \
  "$npm_dir" || die "could not fetch npm $npm_version (see above)"
npm_pack() { # DIR: packs DIR into $out/npm
  (cd "$1" && npm_config_userconfig="$stage/npmrc" npm_config_update_notifier=false \
    "$CCTREE_NODE" "$npm_dir/bin/npm-cli.js" pack --quiet --pack-destination "$out/npm" >/dev/null) ||
    die "npm pack failed in $1"
}

# --- staging -----------------------------------------------------------------
rm -rf "$out"
mkdir -p "$out/pypi" "$out/npm"
stage=$(mktemp -d "$target_dir/.package.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# The README as registries show it: links and images into the repository made absolute.
readme=$stage/README.md
sed -e "s#](\(docs/[^)]*\.png\))#](${repo/github.com/raw.githubusercontent.com}/main/\1)#g" \
  -e "s#src=\"\(docs/[^\"]*\.png\)\"#src=\"${repo/github.com/raw.githubusercontent.com}/main/\1\"#g" \
  -e "s#](\([A-Za-z][^):\#]*\)\(\#[^)]*\)\{0,1\})#](${repo}/blob/main/\1\2)#g" \
  README.md >"$readme"

mkdir -p "$stage/pypi"
sed "s#^manifest-path = .*#manifest-path = \"$root/Cargo.toml\"#" packaging/pypi/pyproject.toml >"$stage/pypi/pyproject.toml"
cp "$readme" LICENSE "$stage/pypi/"

platforms_json="{"
optional_json="{"
sep=""
for t in "${targets[@]}"; do
  plat=$(npm_platform "$t")
  os=${plat%-*} cpu=${plat#*-}
  echo "== $t ($profile)" >&2
  (cd "$stage/pypi" && "$maturin" build --locked --zig --target "$t" --compatibility manylinux2014 \
    --profile "$profile" --out "$out/pypi") || die "maturin could not build $t (see above)"
  bin=$target_dir/$t/$profile/cctree
  [ -x "$bin" ] || die "maturin built no $bin"

  # The binary runs here: natively, or through qemu-user (Debian's qemu-user) for arm64.
  if [ "$t" = "$host" ]; then
    "$bin" --version >&2 || die "$bin does not run"
  elif [ "$t" = aarch64-unknown-linux-gnu ] && command -v qemu-aarch64 >/dev/null 2>&1 && [ -d /usr/aarch64-linux-gnu ]; then
    qemu-aarch64 -L /usr/aarch64-linux-gnu "$bin" --version >&2 || die "$bin does not run under qemu-aarch64"
  else
    echo "package: $t: not run here (no qemu-aarch64 with /usr/aarch64-linux-gnu: apt-get install qemu-user libc6-arm64-cross)" >&2
  fi

  # The release archive and its checksum.
  name=cctree-$version-$t
  mkdir -p "$stage/$name"
  cp "$bin" "$stage/$name/cctree"
  cp "$readme" LICENSE "$stage/$name/"
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -C "$stage" -cf - "$name" |
    gzip -9n >"$out/$name.tar.gz"
  (cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")

  # The npm package of this platform: version <version>-<os>-<arch> of `cctree`.
  p=$stage/npm/$plat
  mkdir -p "$p/bin"
  cp "$bin" "$p/bin/cctree"
  cp LICENSE "$p/"
  cat >"$p/package.json" <<EOF
{
  "name": "cctree",
  "version": "$version-$plat",
  "description": "The cctree binary for $os $cpu, installed by the npm package cctree",
  "license": "MIT",
  "repository": { "type": "git", "url": "git+$repo.git" },
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/cctree"],
  "preferUnplugged": true
}
EOF
  printf '# cctree for %s %s\n\nThe native binary of [cctree](%s), for %s %s: installed by `npm install cctree` as its optional dependency `cctree-%s`. Install `cctree` instead.\n' \
    "$os" "$cpu" "$repo" "$os" "$cpu" "$plat" >"$p/README.md"
  npm_pack "$p"
  platforms_json+="$sep\"$plat\": \"cctree-$plat\""
  optional_json+="$sep\"cctree-$plat\": \"npm:cctree@$version-$plat\""
  sep=", "
done
platforms_json+="}"
optional_json+="}"

# The npm package `cctree`: the launcher, and one optional dependency per platform.
p=$stage/npm/cctree
mkdir -p "$p/bin"
cp packaging/npm/cctree.js "$p/bin/cctree.js"
printf '%s\n' "$platforms_json" >"$p/bin/platforms.json"
cp "$readme" LICENSE "$p/"
cat >"$p/package.json" <<EOF
{
  "name": "cctree",
  "version": "$version",
  "description": "$(sed -n 's/^description = "\(.*\)"$/\1/p' Cargo.toml | head -n1)",
  "keywords": ["claude-code", "codex", "gemini-cli", "transcript", "static-site"],
  "license": "MIT",
  "homepage": "$repo",
  "repository": { "type": "git", "url": "git+$repo.git" },
  "bin": { "cctree": "bin/cctree.js" },
  "files": ["bin/cctree.js", "bin/platforms.json"],
  "engines": { "node": ">=16" },
  "optionalDependencies": $optional_json
}
EOF
npm_pack "$p"

echo "package: cctree $version ($profile) for ${targets[*]} in $out:" >&2
(cd "$out" && find . -type f | sort | sed 's#^\./#  #') >&2
