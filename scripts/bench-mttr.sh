#!/usr/bin/env bash
# Time to recover a killed region server (MTTR) on a local cluster, for BENCHMARKS.md:
# `basalt cluster start` (release build) with three region servers and SESSION_MS (default
# 6000, the default session timeout), a table of 12 regions spread over them, then ROUNDS
# (default 3) times: kill -9 of a region server holding regions and not meta, and the time
# until the cluster status shows every region on the survivors, polled every 100 ms through
# the shell. Each round adds a server back first. Results in target/bench-mttr/.
set -euo pipefail
cd "$(dirname "$0")/.."
session_ms=${SESSION_MS:-6000}
rounds=${ROUNDS:-3}
out=target/bench-mttr
rm -rf "$out" && mkdir -p "$out"
{ nproc; grep -m1 'model name' /proc/cpuinfo; free -h | sed -n 2p; rustc --version; } > "$out/machine.txt"
cargo build --release -q
bin=target/release/basalt
setsid "$bin" cluster start --servers 3 --data "$out/data" --session-timeout-ms "$session_ms" \
  > "$out/cluster.log" 2>&1 &
cluster=$!
trap 'kill -KILL -- -$cluster 2>/dev/null || true' EXIT
for _ in $(seq 600); do grep -q "cluster ready" "$out/cluster.log" && break; sleep 0.1; done
quorum=$(sed -n 's/^zookeeper \([^ ]*\).*/\1/p' "$out/cluster.log" | head -1)
shell() { printf '%s\n' "$@" | "$bin" shell --zookeeper "$quorum" 2>/dev/null; }
shell "create 'mttr', 'f', SPLITS => ['b','d','f','h','j','l','n','p','r','t','v']" > /dev/null
# `status 'detailed'` lines: "    host:port code" then the server's regions.
regions_on_live() { shell "status 'detailed'" | grep -c '"mttr,' || true; }
for round in $(seq 1 "$rounds"); do
  meta=$(shell "status 'detailed'" | grep -B2 '"hbase:meta' | sed -n 's/^    \([^ ]*\) .*/\1/p' | head -1)
  victim=$(shell "status 'detailed'" | awk '/^    [0-9]/{s=$1} /"mttr,/{print s}' | grep -v "^$meta$" | head -1)
  pid=$(grep "listening on $victim" "$out/cluster.log" | sed -n 's/^rs[0-9x]* pid \([0-9]*\).*/\1/p' | head -1)
  [ -n "$pid" ] || { echo "no region server to kill" >&2; exit 1; }
  start=$(date +%s.%N)
  kill -KILL "$pid"
  while true; do
    live=$(shell "status 'simple'" | sed -n 's/^\([0-9]*\) live servers/\1/p')
    [ "$live" = "2" ] && [ "$(regions_on_live)" = "12" ] && break
    sleep 0.1
  done
  end=$(date +%s.%N)
  echo "round $round: killed $victim, every region serving after $(echo "$end - $start" | bc) s" | tee -a "$out/result.txt"
  # Back to three servers for the next round (named in the log as the first ones are).
  setsid "$bin" regionserver --data "$out/data" --zookeeper "$quorum" --port 0 \
    --session-timeout-ms "$session_ms" > "$out/rs-extra-$round.log" 2>&1 &
  extra=$!
  for _ in $(seq 300); do grep -q "listening on" "$out/rs-extra-$round.log" && break; sleep 0.1; done
  addr=$(sed -n 's/.* listening on \([^;]*\);.*/\1/p' "$out/rs-extra-$round.log" | head -1)
  echo "rsx pid $extra listening on $addr" >> "$out/cluster.log"
  sleep 2
done
