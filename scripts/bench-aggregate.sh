#!/usr/bin/env bash
# Issue 50's aggregation benchmark: HBase's aggregation endpoint against the client reading
# the rows itself, over the native RPC.
#   scripts/bench-aggregate.sh [rows] [rounds]
# One `basalt standalone` with a table of `rows` rows (default 1,000,000) of one 8-byte value
# each (`basalt pe --value-size 8`, pre-split into 8 regions), flushed. Each round times, in
# the shell (its "Took" line), `aggregate 't', 'info:0', 'SUM'` (each region sums its own
# rows; only the 8 sums travel) and a `count` whose filter passes every cell, so every row's
# value comes back to the client (the client-side scan's cost: counting instead of summing
# costs nothing more). The ratio is scan time / aggregate time.
set -euo pipefail
rows="${1:-1000000}"
rounds="${2:-3}"
source "$(dirname "$0")/bench-common.sh"
port=$((20000 + RANDOM % 20000))
"$basalt" standalone --data "$work/data" --rpc-port "$port" --info-port 0 \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "MasterService) listening" "$work/server.log" && break; sleep 0.1; done

shell() { "$basalt" shell --connect "127.0.0.1:$port" -n <<<"$1"; }
took() { grep -o "Took [0-9.]* seconds" | tail -1 | awk '{print $2}'; }

threads=4
"$basalt" pe --rpc "127.0.0.1:$port" --value-size 8 --table t --presplit 8 \
    --rows $((rows / threads)) --threads "$threads" --auto-flush false sequentialWrite \
    >"$work/load.log"
shell "flush 't'" >/dev/null
echo "table t: $rows rows of one 8-byte value, 8 regions, flushed"
for round in $(seq "$rounds"); do
    agg=$(shell "aggregate 't', 'info:0', 'SUM'" | took)
    scan=$(shell "count 't', {FILTER => \"ValueFilter(!=, 'binary:')\", INTERVAL => 100000000, CACHE => 10000}" | took)
    ratio=$(awk -v a="$agg" -v s="$scan" 'BEGIN { printf "%.1f", (a > 0 ? s / a : 0) }')
    echo "round $round: aggregate SUM ${agg}s, client scan ${scan}s, scan/aggregate ${ratio}x"
done
