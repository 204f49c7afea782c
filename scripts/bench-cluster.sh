#!/usr/bin/env bash
# A three-server local cluster beside one standalone server, same workloads, same run (issue
# 30's speed section): `basalt pe` puts and gets of 100-byte rows, 16 client threads, over the
# native RPC, on a table pre-split into 12 regions (spread over the cluster's servers):
#   scripts/bench-cluster.sh [rows]
# Standalone is reached with `--rpc HOST:PORT`, the cluster with `--zookeeper HOST:PORT` (each
# region's own server). On this 2-core machine the three servers, ZooKeeper and the client share
# two cores: the figures show the cluster's overhead, not a scale-out.
set -euo pipefail
rows="${1:-100000}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cargo build --release -q -p basalt-cli
basalt="$root/target/release/basalt"
work="$(mktemp -d)"
"$basalt" standalone --data "$work/standalone" --thrift-port 0 --rpc-port 0 >"$work/standalone.log" 2>&1 &
standalone=$!
setsid "$basalt" cluster start --servers 3 --data "$work/cluster" >"$work/cluster.log" 2>&1 &
cluster=$!
trap 'kill $standalone 2>/dev/null || true; kill -KILL -- -$cluster 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do grep -q "cluster ready" "$work/cluster.log" && break; sleep 0.1; done
for _ in $(seq 100); do grep -q "MasterService) listening" "$work/standalone.log" && break; sleep 0.1; done
rpc=$(sed -n 's/^rpc (.*) listening on \(\S*\).*/\1/p' "$work/standalone.log" | head -1)
quorum=$(sed -n 's/^zookeeper \([^ ]*\).*/\1/p' "$work/cluster.log" | head -1)
{ nproc; grep -m1 'model name' /proc/cpuinfo; } > /dev/stderr

rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
printf "%-22s %12s %12s %6s\n" workload standalone cluster ratio
for cmd in randomWrite randomRead; do
    s=$("$basalt" pe --rpc "$rpc" --value-size 100 --presplit 12 --table bench --rows "$rows" \
        --threads 16 "$cmd" | rate)
    c=$("$basalt" pe --zookeeper "$quorum" --value-size 100 --presplit 12 --table bench \
        --rows "$rows" --threads 16 "$cmd" | rate)
    printf "%-22s %12s %12s %6s\n" "$cmd x16" "$s" "$c" "$(awk "BEGIN{printf \"%.2f\", $c/$s}")"
done
