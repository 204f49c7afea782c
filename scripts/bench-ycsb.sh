#!/usr/bin/env bash
# Regenerates the Basalt / RocksDB comparison of BENCHMARKS.md ("basalt pe and YCSB"):
# installs Debian's RocksDB (once), builds `basalt` with the `rocksdb` feature, runs the PE
# commands and YCSB workloads A-F on both engines in one run each, and writes
# bench-results/pe.jsonl, bench-results/ycsb.jsonl and the plots docs/bench/*.svg.
#
#   ./scripts/bench-ycsb.sh [RECORDS] [OPERATIONS] [THREADS]   (defaults 200000 200000 2)
set -euo pipefail
records=${1:-200000}
operations=${2:-200000}
threads=${3:-2}

source "$(dirname "$0")/bench-rocksdb-common.sh"

out=bench-results
data=$(mktemp -d -p "${TMPDIR:-/tmp}" basalt-bench.XXXXXX)
trap 'rm -rf "$data"' EXIT
mkdir -p "$out" docs/bench

rows=$((records / threads))
"$basalt" pe --dir "$data/pe" --compare-rocksdb --json --rows "$rows" --threads "$threads" \
  sequentialWrite randomRead scanRange100 randomWrite | tee "$out/pe.jsonl"

: > "$out/ycsb.jsonl"
"$basalt" pe ycsb --dir "$data/ycsb" --compare-rocksdb --json --workload a \
  --records "$records" --operations "$operations" --threads "$threads" | tee -a "$out/ycsb.jsonl"
for w in b c f d e; do
  "$basalt" pe ycsb --dir "$data/ycsb" --compare-rocksdb --json --workload "$w" --skip-load \
    --records "$records" --operations "$operations" --threads "$threads" | tee -a "$out/ycsb.jsonl"
done

"$basalt" pe-plot "$out/pe.jsonl" docs/bench/pe.svg
"$basalt" pe-plot "$out/ycsb.jsonl" docs/bench/ycsb.svg
echo "results in $out/, plots in docs/bench/"
