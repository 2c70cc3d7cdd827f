#!/usr/bin/env bash
# Runs the fleet simulator (issue 36) over the issue's configuration at 2 to
# 32 agents in every mode, then each CLI's payloads at 8 agents, and writes
# the table and the chart into docs/fleet.md and docs/fleet.png.
# Usage: bench/fleet.sh [more flags for bench/fleet, e.g. -think 1s]
#        FLEET_DOCS=0 bench/fleet.sh: print the table only, change no file.
#
# agentlock is built as it is installed: static (CGO_ENABLED=0). The run
# takes about ten minutes on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$out/agentlock" ./cmd/agentlock
go build -o "$out/fleet" ./bench/fleet
docs=(-docs docs/fleet.md -png docs/fleet.png)
if [ "${FLEET_DOCS:-1}" = 0 ]; then
  docs=()
fi
"$out/fleet" -agentlock "$out/agentlock" -revision "$(git describe --always --dirty)" \
  -modes none,agentlock,worktrees -sweep 2,4,8,16,32 -also '-clis gemini; -clis codex; -clis claude,gemini,codex; -subagents 3 -edits 1; -cli-guard' \
  "${docs[@]}" "$@"
