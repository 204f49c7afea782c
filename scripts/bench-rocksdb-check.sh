#!/usr/bin/env bash
# Issue 35, first part: is `basalt pe`'s RocksDB comparator a fair RocksDB? Its point reads
# against RocksDB's own `db_bench readrandom` (Debian's rocksdb-tools) on the same data size:
# the same number of keys, 100-byte values, 26-byte keys (PE's row keys), no compression,
# 10-bit blooms, one reader, the same cache; then the comparator's two layouts (`cells`,
# `rows`) against Basalt, PE randomRead and YCSB C, so Basalt is reported against the better
# layout.
# Both engines use the same data block size (HBase's BLOCKSIZE, RocksDB's block_size).
#   scripts/bench-rocksdb-check.sh [rows] [block size]    (defaults 200000 and 65536)
set -euo pipefail
rows=${1:-200000}
block=${2:-65536}
source "$(dirname "$0")/bench-rocksdb-common.sh"
data=$(mktemp -d -p "${TMPDIR:-/tmp}" basalt-rocks.XXXXXX)
trap 'rm -rf "$data"' EXIT
cache=$((256 << 20))

echo "== db_bench: fillseq then readrandom (every key found), $rows keys, $block-byte blocks"
db_bench --db="$data/dbbench" --benchmarks=fillseq,readrandom --num="$rows" --block_size="$block" \
  --reads="$rows" --key_size=26 --value_size=100 --compression_type=none --bloom_bits=10 \
  --cache_size="$cache" --cache_index_and_filter_blocks=true --threads=1 \
  --write_buffer_size=$((128 << 20)) --max_background_jobs=2 2>/dev/null |
  grep -E "^(fillseq|readrandom)" | tee "$data/dbbench.txt"
dbbench=$(awk '/^readrandom/ {print $5}' "$data/dbbench.txt")

# The comparator's randomRead and YCSB C, each layout; Basalt's from the same runs.
declare -A read ycsb
for layout in cells rows; do
  read[$layout]=$("$basalt" pe --dir "$data/pe-$layout" --compare-rocksdb --rocksdb-layout "$layout" \
    --json --block-cache "$cache" --block-size "$block" --rows "$rows" --value-size 100 sequentialWrite randomRead |
    python3 scripts/pe-compare.py randomRead)
  ycsb[$layout]=$("$basalt" pe ycsb --dir "$data/ycsb-$layout" --compare-rocksdb \
    --rocksdb-layout "$layout" --json --block-cache "$cache" --block-size "$block" --workload c --records "$rows" \
    --operations "$rows" --threads 1 | python3 scripts/pe-compare.py "workloadc run")
  rm -rf "$data/pe-$layout" "$data/pe-$layout-rocksdb" "$data/ycsb-$layout" "$data/ycsb-$layout-rocksdb"
done

echo
echo "== point reads: the comparator against db_bench readrandom ($dbbench ops/s)"
for layout in cells rows; do
  set -- ${read[$layout]}
  printf "%-6s comparator randomRead %8s ops/s = %.2f of db_bench; Basalt %8s ops/s\n" \
    "$layout" "$2" "$(awk "BEGIN{print $2/$dbbench}")" "$1"
done
echo
echo "== Basalt against each layout, and against the better"
printf "%-22s %10s %10s %10s %8s\n" workload basalt cells rows basalt/better
for w in randomRead ycsbC; do
  if [ "$w" = randomRead ]; then c=(${read[cells]}); r=(${read[rows]}); else c=(${ycsb[cells]}); r=(${ycsb[rows]}); fi
  better=$(( c[1] > r[1] ? c[1] : r[1] ))
  printf "%-22s %10s %10s %10s %8.2f\n" "$w" "${c[0]}" "${c[1]}" "${r[1]}" "$(awk "BEGIN{print ${c[0]}/$better}")"
done
