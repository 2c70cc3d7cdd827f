#!/usr/bin/env bash
# Times whole one-shot agentlock processes against flock(1) on this machine,
# in one run: every row of issue 13's table, median of interleaved pairs.
# Usage: bench/run.sh [rounds] (default 40)
#        bench/run.sh serve [seconds]: the CPU of an idle `agentlock serve`
#        with one page open while 200 sessions renew (issue 27: < 2% of a core).
#        bench/run.sh etcd [rounds]: only the etcd rows (issue 16): acquire and
#        release on a loopback etcd against flock(1) and the lock files, and
#        the start-up cost of the etcd build.
#        bench/run.sh stale [rounds]: only the read-version rows (issue 34): the
#        pre-edit hook with the stale-write check (its session read the file, of
#        1 MiB and of 4 KiB) against it with the check off, and the after-tool
#        hook of a Read against the renewal alone.
#        bench/run.sh mcp [rounds]: only the MCP rows (issue 28): agentlock mcp's
#        start and one tool call against the one-shot command.
#        bench/run.sh compare COMMIT[,COMMIT...] [rounds]: this tree and each
#        commit (built from a temporary git worktree of it, the same way)
#        side by side (issue 33): agentlock version, an acquire and a release
#        of one file, the pre-edit hook of init --agent claude, and the
#        after-tool hook of a session that read 1, 50 and 200 files, each run
#        paired with flock(1) (median and 90th percentile of the paired
#        ratios), and two floors (a Go hello-world, one linking cobra and
#        the YAML and TOML libraries); then each build's size and Go init
#        time (inittrace).
#
# The binary is built as it is installed: static (CGO_ENABLED=0), so that
# no process loads ld.so and libc before doing its work.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"; git worktree prune' EXIT
CGO_ENABLED=0 go build -trimpath -o "$out/agentlock" ./cmd/agentlock
go build -o "$out/oneshot" ./bench/oneshot
if [ "${1:-}" = compare ]; then
  [ -n "${2:-}" ] || { echo "usage: bench/run.sh compare COMMIT[,COMMIT...] [rounds]" >&2; exit 2; }
  tree="tree@$(git rev-parse --short HEAD)"
  [ -z "$(git status --porcelain --untracked-files=no)" ] || tree="$tree+"
  builds="$tree=$out/agentlock"
  for c in ${2//,/ }; do
    git worktree add --quiet --detach "$out/src-$c" "$c"
    (cd "$out/src-$c" && CGO_ENABLED=0 go build -trimpath -o "$out/agentlock-$c" ./cmd/agentlock)
    git worktree remove --force "$out/src-$c"
    builds="$builds,$c=$out/agentlock-$c"
  done
  CGO_ENABLED=0 go build -trimpath -o "$out/floor-hello" ./bench/floor/hello
  CGO_ENABLED=0 go build -trimpath -o "$out/floor-deps" ./bench/floor/deps
  echo "machine: $(uname -srm), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
  "$out/oneshot" -compare "$builds" -floors "$out/floor-hello,$out/floor-deps" -n "${3:-40}"
  exit 0
fi
if [ "${1:-}" = stale ]; then
  echo "machine: $(uname -srm), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
  "$out/oneshot" -only stale -agentlock "$out/agentlock" -n "${2:-40}"
  exit 0
fi
if [ "${1:-}" = mcp ]; then
  # agentlock mcp runs the agentlock-mcp beside it.
  CGO_ENABLED=0 go build -trimpath -o "$out/agentlock-mcp" ./cmd/agentlock-mcp
  go build -o "$out/mcpbench" ./bench/mcp
  echo "machine: $(uname -srm), $(nproc) cores, $(go version | cut -d' ' -f3)"
  "$out/mcpbench" -agentlock "$out/agentlock" -n "${2:-40}"
  exit 0
fi
if [ "${1:-}" = serve ]; then
  # agentlock serve runs the agentlock-mcp beside it.
  CGO_ENABLED=0 go build -trimpath -o "$out/agentlock-mcp" ./cmd/agentlock-mcp
  echo "machine: $(uname -srm), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version | cut -d' ' -f3)"
  go run ./bench/serveidle -agentlock "$out/agentlock" -for "${2:-60}s"
  exit 0
fi
if [ "${1:-}" = etcd ]; then
  CGO_ENABLED=0 go build -trimpath -tags etcd -o "$out/agentlock-etcd" ./cmd/agentlock
  go build -tags etcd -o "$out/etcdserver" ./bench/etcdserver
  coproc ETCD { exec "$out/etcdserver"; }
  read -r url <&"${ETCD[0]}"
  echo "machine: $(uname -srm), $(nproc) cores, $(go version | cut -d' ' -f3); etcd at $url"
  "$out/oneshot" -only etcd -agentlock "$out/agentlock" -etcd-agentlock "$out/agentlock-etcd" -etcd-url "$url" -n "${2:-40}"
  exec {ETCD[1]}>&-
  wait
  exit 0
fi
CGO_ENABLED=0 go build -trimpath -o "$out/floor-hello" ./bench/floor/hello
CGO_ENABLED=0 go build -trimpath -o "$out/floor-deps" ./bench/floor/deps
CGO_ENABLED=0 go build -trimpath -o "$out/floor-scan" ./bench/floor/scan
echo "machine: $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(go version | cut -d' ' -f3)"
"$out/oneshot" -agentlock "$out/agentlock" -floors "$out/floor-hello,$out/floor-deps" -scanfloor "$out/floor-scan" -n "${1:-40}"
