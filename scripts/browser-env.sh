# Sourced by scripts/test.sh and scripts/screenshots.sh (bash, from the
# repository root): makes sure the browser tests can run, installing what is
# missing, and exports
#
#   CCTREE_CHROMIUM  Debian's chromium (installed with apt-get when run as root)
#   CCTREE_NODE      the pinned Node the driver runs on (scripts/node-env.sh:
#                    package node-linux-<arch> from the npm registry,
#                    integrity-checked, into target/tools); set CCTREE_NODE
#                    yourself to use another (>= 20)
#
# and unpacks the driver, playwright-core, and the accessibility checker,
# axe-core, as pinned in tests/browser/package-lock.json, into
# tests/browser/node_modules (no npm needed).
# Anything it cannot do is an error that says what to run instead.

# shellcheck source=scripts/node-env.sh
. scripts/node-env.sh

browser_env_die() { echo "error: $*" >&2; exit 2; }

# apt-get install, as root only.
browser_env_apt() {
  local what=$1
  shift
  if [ "$(id -u)" -ne 0 ]; then
    browser_env_die "$what is missing and installing it needs root; run: sudo apt-get install -y $*"
  fi
  echo "installing $* (Debian packages) for the browser tests…" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

browser_env_chromium() {
  if [ -z "${CCTREE_CHROMIUM:-}" ]; then
    command -v chromium >/dev/null 2>&1 || browser_env_apt chromium chromium
    CCTREE_CHROMIUM=$(command -v chromium)
  fi
  [ -x "$CCTREE_CHROMIUM" ] || browser_env_die "CCTREE_CHROMIUM=$CCTREE_CHROMIUM is not an executable"
  export CCTREE_CHROMIUM
}

# The pinned Node (scripts/node-env.sh), with curl installed first when we can.
browser_env_node() {
  if [ -z "${CCTREE_NODE:-}" ]; then
    command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || browser_env_apt curl curl ca-certificates
  fi
  node_env
}

# One package as pinned in tests/browser/package-lock.json.
browser_env_package() {
  local lock=tests/browser/package-lock.json
  local q="require('./$lock').packages['node_modules/$1']"
  local version integrity
  version=$("$CCTREE_NODE" -p "$q.version")
  integrity=$("$CCTREE_NODE" -p "$q.integrity")
  scripts/npm-fetch.sh "$1" "$version" "$integrity" "tests/browser/node_modules/$1"
}

browser_env_driver() {
  browser_env_package playwright-core
  browser_env_package axe-core
}

browser_env_chromium
browser_env_node
browser_env_driver
