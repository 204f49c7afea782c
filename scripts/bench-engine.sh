#!/usr/bin/env bash
# Runs the engine micro-benchmarks RUNS times (default 3) and keeps each run's output in
# target/bench-engine/, for BENCHMARKS.md (which reports the median of the runs' medians).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
out=target/bench-engine
mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; free -h | sed -n 2p; rustc --version; } > "$out/machine.txt"
for i in $(seq 1 "$runs"); do
  echo "== run $i of $runs"
  cargo bench -p basalt-region --bench region 2>/dev/null | tee "$out/run-$i.txt"
done
