#!/usr/bin/env bash
# A three-server local cluster beside one standalone server, same workloads, same run (issue
# 30's speed section): `basalt pe` puts and gets of 100-byte rows, 16 client threads, over the
# native RPC, on a table pre-split into 12 regions (spread over the cluster's servers):
#   scripts/bench-cluster.sh [rows per thread]
# The cluster is reached with `--zookeeper HOST:PORT` (each region's own server), standalone
# with `--rpc HOST:PORT`; one runs after the other (the cluster is stopped first), so neither
# takes CPU from the other. On this 2-core machine the three servers, ZooKeeper and the client
# share two cores: the figures show the cluster's overhead, not a scale-out. Logs in
# target/bench-cluster/.
set -euo pipefail
rows="${1:-50000}"
source "$(dirname "$0")/bench-common.sh"
logs="$root/target/bench-cluster"
rm -rf "$logs" && mkdir -p "$logs"
{ nproc; grep -m1 'model name' /proc/cpuinfo; } > "$logs/machine.txt"
rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
pe() { "$basalt" pe "$@" --value-size 100 --presplit 12 --table bench --rows "$rows" --threads 16; }

setsid "$basalt" cluster start --servers 3 --data "$work/cluster" >"$logs/cluster.log" 2>&1 &
cluster=$!
trap 'kill -KILL -- -$cluster 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do grep -q "cluster ready" "$logs/cluster.log" && break; sleep 0.1; done
quorum=$(sed -n 's/^zookeeper \([^ ]*\).*/\1/p' "$logs/cluster.log" | head -1)
cw=$(pe --zookeeper "$quorum" randomWrite | tee "$logs/cluster-write.txt" | rate)
cr=$(pe --zookeeper "$quorum" randomRead | tee "$logs/cluster-read.txt" | rate)
kill -TERM "$cluster"; wait "$cluster" || true

"$basalt" standalone --data "$work/standalone" --thrift-port 0 --rpc-port 0 --info-port 0 >"$logs/standalone.log" 2>&1 &
standalone=$!
trap 'kill $standalone 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "MasterService) listening" "$logs/standalone.log" && break; sleep 0.1; done
rpc=$(sed -n 's/^rpc (.*) listening on \(\S*\).*/\1/p' "$logs/standalone.log" | head -1)
sw=$(pe --rpc "$rpc" randomWrite | tee "$logs/standalone-write.txt" | rate)
sr=$(pe --rpc "$rpc" randomRead | tee "$logs/standalone-read.txt" | rate)

printf "%-22s %12s %12s %6s\n" workload standalone cluster ratio
printf "%-22s %12s %12s %6s\n" "randomWrite x16" "$sw" "$cw" "$(awk "BEGIN{printf \"%.2f\", $cw/$sw}")"
printf "%-22s %12s %12s %6s\n" "randomRead x16" "$sr" "$cr" "$(awk "BEGIN{printf \"%.2f\", $cr/$sr}")"
