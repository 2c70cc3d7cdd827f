#!/usr/bin/env bash
# Times whole one-shot agentlock processes against flock(1) on this machine,
# in one run, and prints the ratio. Usage: bench/run.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/agentlock" ./cmd/agentlock
go run ./bench/oneshot -agentlock "$out/agentlock" -n "${1:-300}"
