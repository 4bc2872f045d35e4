#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what the browser tests
# need (Debian's chromium, the pinned Node driver), then runs `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."

need_root() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "error: $1 is missing and installing it needs root; run: sudo apt-get install -y $2" >&2
    exit 2
  fi
}

if ! command -v chromium >/dev/null 2>&1; then
  need_root chromium "chromium"
  echo "installing Debian's chromium for the browser tests…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if [ -f tests/browser/package.json ]; then
  if ! command -v node >/dev/null 2>&1; then
    need_root node "nodejs npm"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
  fi
  # `npm ci` (network, and it deletes node_modules first) only when the
  # installed driver is not the locked one.
  (
    cd tests/browser
    want=$(node -p "require('./package-lock.json').packages['node_modules/playwright-core'].version")
    have=$(node -p "require('./node_modules/playwright-core/package.json').version" 2>/dev/null || true)
    if [ "$want" != "$have" ]; then npm ci --no-audit --no-fund --silent; fi
  )
fi

export CCTREE_CHROMIUM="${CCTREE_CHROMIUM:-$(command -v chromium)}"
cargo test --locked "$@"
