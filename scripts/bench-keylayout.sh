#!/usr/bin/env bash
# Issue 34's speed section, on a three-server local cluster: a sequential-key insert load
# (`basalt pe sequentialWrite --interleave`: 16 writers sharing one increasing key sequence,
# as writers stamping keys with the time do) into a plain table pre-split into 12 regions
# over twelve times the keys the load writes (as a table pre-split for a year takes this
# hour's time-stamped rows in one region),
# against the same load into a table with `SALT BUCKETS=12` (12 regions too), both through
# the key-layout client. While each load runs, `basalt hotspots --interval 3` shows where the
# writes go. Then the cost of a merged scan: `scanRange100` (100 rows from a random start) on
# each table, one scan on the plain table against 12 merged bucket scans on the salted one.
#   scripts/bench-keylayout.sh [rows per writer]
# Logs in target/bench-keylayout/.
set -euo pipefail
rows="${1:-20000}"
source "$(dirname "$0")/bench-common.sh"
logs="$root/target/bench-keylayout"
rm -rf "$logs" && mkdir -p "$logs"
rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }

setsid "$basalt" cluster start --servers 3 --data "$work/cluster" >"$logs/cluster.log" 2>&1 &
cluster=$!
trap 'kill -KILL -- -$cluster 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do grep -q "cluster ready" "$logs/cluster.log" && break; sleep 0.1; done
quorum=$(sed -n 's/^zookeeper \([^ ]*\).*/\1/p' "$logs/cluster.log" | head -1)
pe() { "$basalt" pe --zookeeper "$quorum" --value-size 100 --presplit 12 "$@"; }

load() { # load <table> <layout>: the write rate; the hot-spot report in $logs/<table>-hotspots.txt
    pe --table "$1" --key-layout "$2" --threads 16 --rows "$rows" --interleave \
        --key-space $((rows * 16 * 12)) sequentialWrite \
        >"$logs/$1-write.txt" &
    local writer=$!
    sleep 2
    "$basalt" hotspots --zookeeper "$quorum" --interval 3 "$1" >"$logs/$1-hotspots.txt" || true
    wait "$writer"
    rate <"$logs/$1-write.txt"
}
plain_w=$(load plain NONE)
salted_w=$(load salted "SALT BUCKETS=12")
scan() { pe --table "$1" --key-layout "$2" --threads 4 --rows 2000 scanRange100 | tee "$logs/$1-scan.txt" | rate; }
plain_s=$(scan plain NONE)
salted_s=$(scan salted "SALT BUCKETS=12")

echo "== where the writes went (3 s in the middle of each load)"
cat "$logs/plain-hotspots.txt" "$logs/salted-hotspots.txt"
echo
printf "%-34s %10s %10s %8s\n" workload plain salted salted/plain
printf "%-34s %10s %10s %8s\n" "sequentialWrite x16, interleaved" "$plain_w" "$salted_w" \
    "$(awk "BEGIN{printf \"%.2f\", $salted_w/$plain_w}")"
printf "%-34s %10s %10s %8s\n" "scanRange100 x4" "$plain_s" "$salted_s" \
    "$(awk "BEGIN{printf \"%.2f\", $salted_s/$plain_s}")"
