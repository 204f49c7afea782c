#!/usr/bin/env bash
# The Thrift gateway's speed on this machine, beside the loopback round-trip limit and Redis:
#   scripts/bench-thrift.sh [rows]
# 1. the loopback round trip (one connection bouncing a small message: the most any
#    synchronous single-connection client can do), also measured just before and after each
#    single-connection workload, which is reported as a share of their mean;
# 2. `basalt pe` remote mode against `basalt standalone`: one connection's puts (SYNC_WAL and
#    SKIP_WAL) and gets of a 100-byte row, then 16 connections' puts and gets, with the
#    server's CPU use;
# 3. redis-benchmark (Debian's redis-server, loopback, no pipelining, 100-byte values) with 1
#    and 16 connections, in the same run.
# Installs redis-server and redis-tools with apt-get if they are missing.
set -euo pipefail
rows="${1:-100000}"
source "$(dirname "$0")/bench-common.sh"
cargo build --release -q -p basalt-thrift --example rtt
if ! command -v redis-benchmark >/dev/null || ! command -v redis-server >/dev/null; then
    apt-get update -qq && apt-get install -y -qq redis-server redis-tools >/dev/null
fi
port=$((20000 + RANDOM % 20000))
"$basalt" standalone --data "$work/data" --thrift-port "$port" --info-port 0 >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; redis-cli -p $((port + 1)) shutdown nosave >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q "thrift listening" "$work/server.log" && break; sleep 0.1; done

cpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
pe() { "$basalt" pe --thrift "127.0.0.1:$port" --value-size 100 "$@" | grep "ops/s"; }

# The loopback limit drifts on a shared VM: each single-connection workload is compared with
# round trips measured just before and just after it.
limit() { "$root/target/release/examples/rtt" 100000 | grep -oE '[0-9]+ round trips/s' | cut -d' ' -f1; }
one() {
    local first out last
    first=$(limit)
    out=$(pe "$@")
    last=$(limit)
    echo "$out"
    awk -v a="$first" -v b="$last" -v o="$(echo "$out" | grep -oE '[0-9]+ ops/s' | cut -d' ' -f1)" 'BEGIN {
        printf "  loopback limit %d then %d round trips/s: %.0f%% of their mean\n", a, b, 200 * o / (a + b) }'
}
echo "== loopback round trip"
"$root/target/release/examples/rtt" 200000
echo "== basalt over Thrift, one connection ($rows ops each)"
one --rows "$rows" --table one sequentialWrite
one --rows "$rows" --table one randomRead
one --rows "$rows" --table oneskip --durability SKIP_WAL sequentialWrite
echo "== basalt over Thrift, 16 connections"
per=$((rows / 5))
pe --rows "$per" --threads 16 --table many sequentialWrite
before=$(cpu); start=$(date +%s.%N)
pe --rows "$per" --threads 16 --table many randomRead
after=$(cpu); end=$(date +%s.%N)
awk -v c=$((after - before)) -v s="$start" -v e="$end" \
    'BEGIN { printf "server CPU during the 16-connection gets: %.2f cores\n", c / 100 / (e - s) }'
echo "== redis-benchmark (loopback, no pipelining, 100-byte values)"
redis-server --port $((port + 1)) --save '' --appendonly no --daemonize yes >/dev/null
sleep 0.5
for c in 1 16; do
    echo "-- $c connection(s)"
    redis-benchmark -p $((port + 1)) -t set,get -n $((rows * 2)) -c "$c" -d 100 -q 2>/dev/null |
        tr '\r' '\n' | grep "requests per second"
done
