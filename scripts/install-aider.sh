#!/usr/bin/env bash
# Installs the Aider the conformance suite (tests/conformance/aider) is pinned
# to: aider-chat 0.86.2 from PyPI, with every dependency pinned by version and
# sha256 in tests/conformance/aider/requirements.txt (pip-compile
# --generate-hashes of requirements.in), installed with
# `pip install --require-hashes --no-deps` into a virtual environment,
# ${CARGO_TARGET_DIR:-target}/tools/aider-<version>/venv. Aider 0.86.2 runs on
# Python 3.10 to 3.12: the interpreter is $CCTREE_PYTHON, else the first of
# python3.12, python3.11, python3.10, python3 that is one of those. Nothing is
# installed when the environment already holds exactly these requirements.
# Prints the path of the `aider` it installed; fails loudly (exit 2) with what
# to do.
#
#   CCTREE_AIDER="$(scripts/install-aider.sh)"
set -euo pipefail
cd "$(dirname "$0")/.."

die() { echo "error: $*" >&2; exit 2; }
reqs=tests/conformance/aider/requirements.txt
[ -f "$reqs" ] || die "$reqs is missing"
version=$(sed -n 's/^aider-chat==\([^ ]*\).*/\1/p' "$reqs" | head -1)
[ -n "$version" ] || die "$reqs pins no aider-chat"

fits() { "$1" -c 'import sys; sys.exit(0 if (3, 10) <= sys.version_info[:2] <= (3, 12) else 1)' 2>/dev/null; }
python=
for candidate in ${CCTREE_PYTHON:-} python3.12 python3.11 python3.10 python3; do
  if command -v "$candidate" >/dev/null 2>&1 && fits "$candidate"; then
    python=$(command -v "$candidate")
    break
  fi
done
[ -n "$python" ] || die "Aider $version needs Python 3.10 to 3.12 and none was found (set CCTREE_PYTHON, or apt-get install -y python3 python3-venv)"

dest="${CARGO_TARGET_DIR:-target}/tools/aider-$version"
venv="$dest/venv"
stamp="$dest/.requirements.sha256"
want=$( (sha256sum "$reqs"; "$python" --version 2>&1) | sha256sum | cut -d' ' -f1)
if [ ! -x "$venv/bin/aider" ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "install-aider: installing aider-chat $version into $venv (hash-checked, $("$python" --version 2>&1))" >&2
  rm -rf "$dest"
  mkdir -p "$dest"
  "$python" -m venv "$venv" ||
    die "could not create a virtual environment with $python (on Debian: apt-get install -y python3-venv)"
  # Only the locked files: no index lookups beyond them, no dependency
  # resolution, no cached wheel of another build, no local wheel folder.
  PIP_FIND_LINKS= PIP_NO_INDEX= "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-input --no-cache-dir --isolated --require-hashes --no-deps --only-binary=:all: -r "$reqs" ||
    die "pip could not install $reqs into $venv (see above)"
  printf '%s\n' "$want" >"$stamp"
fi
dest=$(cd "$dest" && pwd)
bin="$dest/venv/bin/aider"
[ -x "$bin" ] || die "$venv holds no bin/aider"
have=$("$bin" --version </dev/null 2>/dev/null | tail -1 || true)
[ "$have" = "aider $version" ] || die "$bin is not a working Aider $version (it says '${have:-nothing}')"
echo "$bin"
