#!/usr/bin/env bash
# Issue 33's speed checks, release build, embedded data directories:
#  1. Snapshot time against table size: `basalt pe sequentialWrite` fills a table of each size
#     (100-byte values), then `snapshot` runs in the shell (its "Took" time); the peer is
#     copying the table's files (`cp -r`), what a snapshot that copied would cost.
#  2. Bulk load against puts: the same TSV (rows x 10 columns) through `importtsv` as puts,
#     and through `importtsv -Dimporttsv.bulk.output` then `bulkload`, into equal tables.
#   scripts/bench-snapshot.sh [sizes] [tsv-rows]
set -euo pipefail
sizes="${1:-100000 400000 1600000}"
tsv_rows="${2:-200000}"
source "$(dirname "$0")/bench-common.sh"
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
secs() { awk "BEGIN{printf \"%.3f\", $2 - $1}"; }

echo "== snapshot time against table size"
printf "%-10s %10s %8s %12s %12s %10s\n" rows "table MB" files "snapshot s" "cp -r s" "snap/cp"
for n in $sizes; do
    dir="$work/snap$n"
    "$basalt" pe --dir "$dir" --rows "$n" --value-size 100 sequentialWrite >/dev/null
    table="$dir/data/default/TestTable"
    mb=$(du -sm "$table" | cut -f1)
    files=$(find "$table" -type f -not -name '.*' | wc -l)
    took=$(printf "snapshot 'TestTable', 's1'\n" | "$basalt" shell --data "$dir" -n \
        | sed -n 's/^Took \([0-9.]*\) seconds/\1/p' | head -1)
    start=$(now)
    cp -r "$table" "$work/copy$n"
    sync "$work/copy$n"
    copied=$(secs "$start" "$(now)")
    printf "%-10s %10s %8s %12s %12s %10s\n" "$n" "$mb" "$files" "$took" "$copied" \
        "$(awk "BEGIN{printf \"%.3f\", $took/$copied}")"
    rm -rf "$work/copy$n" "$dir"
done

echo "== bulk load against puts: $tsv_rows rows x 10 columns"
dir="$work/bulk"
tsv="$work/in.tsv"
awk -v n="$tsv_rows" 'BEGIN{srand(7); for (i = 0; i < n; i++) {
    printf "%08x", int(rand() * 4294967295); for (c = 0; c < 10; c++) printf ",value-%d-%d", i, c; print "" }}' >"$tsv"
printf "create 'puts', 'f', SPLITS => ['4', '8', 'c']\ncreate 'bulk', 'f', SPLITS => ['4', '8', 'c']\n" |
    "$basalt" shell --data "$dir" -n >/dev/null
cols="importtsv.columns=HBASE_ROW_KEY,$(seq -s, 0 9 | sed 's/\([0-9]\)/f:c\1/g')"
common=(--data "$dir" -D "$cols" -D importtsv.separator=, -D importtsv.timestamp=1000)
start=$(now)
"$basalt" importtsv "${common[@]}" puts "$tsv" >/dev/null
puts=$(secs "$start" "$(now)")
start=$(now)
"$basalt" importtsv "${common[@]}" -D "importtsv.bulk.output=$work/hfiles" bulk "$tsv" >/dev/null
prepared=$(secs "$start" "$(now)")
"$basalt" bulkload --data "$dir" "$work/hfiles" bulk >"$work/load.log"
bulk=$(secs "$start" "$(now)")
cells=$((tsv_rows * 10))
printf "%-28s %10s %14s\n" path seconds "cells/s"
printf "%-28s %10s %14.0f\n" "importtsv, puts" "$puts" "$(awk "BEGIN{print $cells/$puts}")"
printf "%-28s %10s %14.0f\n" "importtsv to files" "$prepared" "$(awk "BEGIN{print $cells/$prepared}")"
printf "%-28s %10s %14.0f\n" "  + bulkload (total)" "$bulk" "$(awk "BEGIN{print $cells/$bulk}")"
printf "bulk/puts throughput ratio: %.2f\n" "$(awk "BEGIN{print $puts/$bulk}")"
cat "$work/load.log"
