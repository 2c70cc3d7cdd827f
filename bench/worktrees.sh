#!/usr/bin/env bash
# Times the pre-edit hook as whole processes with and without linked git
# worktrees (issue 26's bound: within 2x), median of interleaved runs.
# Usage: bench/worktrees.sh [rounds] (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$out/agentlock" ./cmd/agentlock
go build -o "$out/worktrees" ./bench/worktrees
echo "machine: $(uname -srm), $(nproc) cores, $(git --version)"
"$out/worktrees" -agentlock "$out/agentlock" -n "${1:-40}"
