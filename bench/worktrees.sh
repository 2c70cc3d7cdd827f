#!/usr/bin/env bash
# Times the pre-edit hook as whole processes with and without linked git
# worktrees (issue 26's bound: within 2x), median of interleaved runs.
# Usage: bench/worktrees.sh [rounds] (default 40)
#        BASELINE=main bench/worktrees.sh: also times the hook of that git
#        revision's build in the lone checkout (the cost of the change there).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$out/agentlock" ./cmd/agentlock
go build -o "$out/worktrees" ./bench/worktrees
extra=()
if [ -n "${BASELINE:-}" ]; then
  mkdir "$out/baseline-src"
  git archive "$BASELINE" | tar -x -C "$out/baseline-src"
  (cd "$out/baseline-src" && CGO_ENABLED=0 go build -trimpath -o "$out/agentlock-baseline" ./cmd/agentlock)
  extra=(-baseline "$out/agentlock-baseline")
fi
echo "machine: $(uname -srm), $(nproc) cores, $(git --version)"
"$out/worktrees" -agentlock "$out/agentlock" -n "${1:-40}" "${extra[@]}"
