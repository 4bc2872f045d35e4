#!/usr/bin/env bash
# Installs the Claude Code client the conformance suite is pinned to
# (tests/conformance/package-lock.json: @anthropic-ai/claude-code 2.1.330 and
# its native binary for this platform, integrity-checked by npm) into
# tests/conformance/node_modules, unless the locked version is already there.
# Needs node and npm (Node 20 is enough: the package declares >= 22 but its
# native binary does not use Node). Fails loudly: the suite never passes
# silently without the client. Prints the binary's path on success.
set -euo pipefail
cd "$(dirname "$0")/../tests/conformance"

for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: $tool is missing: install Node.js and npm to run the Claude Code conformance suite" >&2
    exit 2
  fi
done

bin=node_modules/@anthropic-ai/claude-code/bin/claude.exe
want=$(node -p "require('./package-lock.json').packages['node_modules/@anthropic-ai/claude-code'].version")
have=$("$bin" --version 2>/dev/null | cut -d' ' -f1 || true)
if [ "$want" != "$have" ]; then
  echo "installing Claude Code $want for the conformance suite (npm ci, ~380 MB)…" >&2
  # --engine-strict=false: 2.1.330 declares Node >= 22, its native binary runs anywhere.
  npm ci --no-audit --no-fund --engine-strict=false --loglevel=error >&2
  have=$("$bin" --version 2>/dev/null | cut -d' ' -f1 || true)
  if [ "$want" != "$have" ]; then
    echo "error: npm ci did not install a working Claude Code $want at tests/conformance/$bin (got '${have:-nothing}')" >&2
    exit 2
  fi
fi
echo "$PWD/$bin"
