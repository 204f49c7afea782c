#!/usr/bin/env bash
# Issue 43: how Basalt and RocksDB scale with the data at a fixed memory limit. Runs
# bench-large.sh (YCSB load, A, B, C, E; each engine in its own process inside a memory
# cgroup) for each record count, and draws docs/bench/scaling.svg (throughput and p99 per
# workload and record count, both engines) with `basalt pe-plot`.
#   scripts/bench-scaling.sh [limit] [record counts...]
#   defaults: a 1 GiB limit; 250000 1000000 4000000 records (about 0.3, 1.2 and 4.8 GB of
#   store files per engine)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=${1:-$((1 << 30))}
shift || true
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(250000 1000000 4000000)
out=$(mktemp -d -p "${TMPDIR:-/tmp}" basalt-scaling.XXXXXX)
trap 'rm -rf "$out"' EXIT
all=$out/all.jsonl
: >"$all"
for n in "${counts[@]}"; do
  echo "== $n records"
  BENCH_RESULTS="$out/$n.jsonl" scripts/bench-large.sh "$n" 100000 "$limit" | tail -7
  # Short labels the plot groups by: `load 250k`, `A 250k`, ... (workload, record count).
  label=$(awk -v n="$n" 'BEGIN { if (n >= 1000000) printf "%gM", n / 1000000; else printf "%gk", n / 1000 }')
  sed -e "s/\"workload\":\"workload\(.\)\",\"phase\":\"run\"/\"workload\":\"\U\1\E\",\"phase\":\"$label\"/" \
    -e "s/\"workload\":\"workload.\",\"phase\":\"load\"/\"workload\":\"load\",\"phase\":\"$label\"/" \
    "$out/$n.jsonl" >>"$all"
done
target/release/basalt pe-plot "$all" docs/bench/scaling.svg
echo "wrote docs/bench/scaling.svg"
