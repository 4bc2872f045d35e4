#!/usr/bin/env bash
# The whole test suite, from a fresh machine (Debian 12 with a Rust toolchain,
# git, curl and a C compiler; see tests/README.md): installs what the browser tests
# need (Debian's chromium as root, the pinned Node, playwright-core and axe-core from the
# npm registry, see scripts/browser-env.sh) and what the Claude Code
# conformance suite needs (tmux, the pinned client: scripts/install-claude.sh),
# then runs `cargo test`. The browser tests and the conformance suite are
# required here: if they cannot run, the suite fails.
#
#   scripts/test.sh [cargo test arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/browser-env.sh
export CCTREE_REQUIRE_BROWSER=1
echo "browser tests: chromium $CCTREE_CHROMIUM, node $CCTREE_NODE ($("$CCTREE_NODE" --version))" >&2
# The conformance suite (tests/conformance): tmux for the TUIs and every
# pinned client (scripts/install-<agent>.sh, one per agent). Locally,
# CCTREE_SKIP_CONFORMANCE=1 skips it with a notice; in CI it always runs.
case "${CI:-}" in "" | false | 0) in_ci=false ;; *) in_ci=true ;; esac
if [ "${CCTREE_SKIP_CONFORMANCE:-}" = 1 ] && [ "$in_ci" = false ]; then
  echo "NOTICE: CCTREE_SKIP_CONFORMANCE=1: the conformance suite (every pinned client) is skipped" >&2
else
  unset CCTREE_SKIP_CONFORMANCE
  export CCTREE_REQUIRE_CONFORMANCE=1
  if ! command -v tmux >/dev/null 2>&1; then
    [ "$(id -u)" -eq 0 ] || browser_env_die "tmux is missing and installing it needs root; run: sudo apt-get install -y tmux"
    echo "installing tmux (Debian package) for the conformance suite…" >&2
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tmux >/dev/null
  fi
  # Every pinned client: each scripts/install-<agent>.sh prints the path of
  # its binary, exported as CCTREE_<AGENT> for the suite (fails loudly).
  for script in scripts/install-*.sh; do
    agent=$(basename "$script" .sh); agent=${agent#install-}
    var="CCTREE_$(printf '%s' "$agent" | tr '[:lower:]-' '[:upper:]_')"
    path=$("$script") || { echo "error: $script failed (above): the conformance suite needs it" >&2; exit 2; }
    export "$var=$path"
    echo "conformance suite: $agent at $path" >&2
  done
fi

cargo test --locked "$@"
