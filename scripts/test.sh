#!/usr/bin/env bash
# The whole test suite, from a fresh machine (Debian 12 with a Rust toolchain,
# git, curl and a C compiler; see the README): installs what the browser tests
# need (Debian's chromium as root, the pinned Node and playwright-core from the
# npm registry, see scripts/browser-env.sh), then runs `cargo test`. The
# browser tests are required here: if they cannot run, the suite fails.
#
#   scripts/test.sh [cargo test arguments…]
set -euo pipefail
cd "$(dirname "$0")/.."

. scripts/browser-env.sh
export CCTREE_REQUIRE_BROWSER=1
echo "browser tests: chromium $CCTREE_CHROMIUM, node $CCTREE_NODE ($("$CCTREE_NODE" --version))" >&2
cargo test --locked "$@"
