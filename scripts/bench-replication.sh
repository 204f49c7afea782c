#!/usr/bin/env bash
# Replication under a steady write load (issue 46's benchmark):
#   scripts/bench-replication.sh [rows per thread] [threads]
# Two `basalt standalone` servers on this machine, the second the first's replication peer
# (`hbase+rpc://`). `basalt pe` writes 100-byte rows to the source flat out over the native RPC
# (SYNC_WAL) while a sampler reads the source's /jmx every 100 ms. Printed:
#   - the source's write rate (pe's ops/s);
#   - the shipping rate: edits shipped to the peer per second, from the load's start until
#     every edit has shipped, and its ratio to the write rate (1.00: shipping keeps up);
#   - the age of the last shipped op (HBase's ageOfLastShippedOp: ms from an edit's write to
#     its shipping) while the load runs: p50, p99 and max of the samples;
#   - how long after the load ended the last edit shipped;
#   - beside it, the same load on a table of the same server that does not replicate (run
#     first), and the replicated load's rate against it: what replication costs the writers.
set -euo pipefail
rows="${1:-50000}"
threads="${2:-8}"
source "$(dirname "$0")/bench-common.sh"
port=$((20000 + RANDOM % 20000))
src_rpc=$((port + 1)); src_info=$((port + 2)); peer_rpc=$((port + 3)); peer_info=$((port + 4))
"$basalt" standalone --data "$work/source" --thrift-port 0 --rpc-port "$src_rpc" \
    --info-port "$src_info" >"$work/source.log" 2>&1 &
source_pid=$!
"$basalt" standalone --data "$work/peer" --thrift-port 0 --rpc-port "$peer_rpc" \
    --info-port "$peer_info" >"$work/peer.log" 2>&1 &
peer_pid=$!
sampler=""
trap 'kill $source_pid $peer_pid $sampler 2>/dev/null || true; rm -rf "$work"' EXIT
for log in source peer; do
    for _ in $(seq 100); do grep -q "MasterService) listening" "$work/$log.log" && break; sleep 0.1; done
done
create="create 'rep', {NAME => 'info', REPLICATION_SCOPE => 1}"
echo "$create" | "$basalt" shell --connect "127.0.0.1:$peer_rpc" -n >/dev/null
printf "%s\nadd_peer '1', CLUSTER_KEY => 'hbase+rpc://127.0.0.1:%s'\n" "$create" "$peer_rpc" |
    "$basalt" shell --connect "127.0.0.1:$src_rpc" -n >/dev/null
sleep 1

pe_rate() { # pe_rate <table>
    "$basalt" pe --rpc "127.0.0.1:$src_rpc" --table "$1" --value-size 100 --rows "$rows" \
        --threads "$threads" sequentialWrite | grep -o "= [0-9]* ops/s" | awk '{print $2}'
}
local_rate=$(pe_rate local)

jmx() { # jmx <figure>: the source's figure for peer 1
    curl -s "http://127.0.0.1:$src_info/jmx?qry=Hadoop:service=HBase,name=RegionServer,sub=Replication" |
        grep -o "\"source.1.$1\" *: *[0-9]*" | grep -o '[0-9]*$' || echo 0
}
( while true; do echo "$(date +%s%N) $(jmx ageOfLastShippedOp)"; sleep 0.1; done ) \
    >"$work/ages" 2>/dev/null &
sampler=$!
start=$(date +%s%N)
shipped_before=$(jmx shippedOps)
rate=$(pe_rate rep)
load_end=$(date +%s%N)
total=$((rows * threads))
for _ in $(seq 1200); do
    [ "$(( $(jmx shippedOps) - shipped_before ))" -ge "$total" ] && break
    sleep 0.05
done
shipped_end=$(date +%s%N)
kill $sampler 2>/dev/null || true
sampler=""
shipped=$(( $(jmx shippedOps) - shipped_before ))
[ "$shipped" -ge "$total" ] || { echo "only $shipped of $total edits shipped in 60 s" >&2; exit 1; }
awk -v s="$start" -v e="$load_end" '$1 >= s && $1 <= e {print $2}' "$work/ages" | sort -n >"$work/during"
n=$(wc -l <"$work/during")
pct() { sed -n "$(awk -v n="$n" -v p="$1" 'BEGIN{i=int(n*p+0.999); if(i<1)i=1; print i}')p" "$work/during"; }
ship_rate=$(awk -v t="$total" -v s="$start" -v e="$shipped_end" 'BEGIN{printf "%d", t/((e-s)/1e9)}')
printf "%-40s %s\n" "rows written" "$total ($threads threads, 100-byte values, SYNC_WAL)"
printf "%-40s %s ops/s\n" "source write rate (pe)" "$rate"
printf "%-40s %s ops/s (%.2f of the write rate)\n" "shipping rate, load start to all shipped" \
    "$ship_rate" "$(awk -v a="$ship_rate" -v b="$rate" 'BEGIN{print a/b}')"
printf "%-40s p50 %s ms, p99 %s ms, max %s ms (%s samples)\n" "ageOfLastShippedOp during the load" \
    "$(pct 0.5)" "$(pct 0.99)" "$(tail -1 "$work/during")" "$n"
printf "%-40s %.2f s\n" "last edit shipped after the load ended" \
    "$(awk -v a="$shipped_end" -v b="$load_end" 'BEGIN{print (a-b)/1e9}')"
printf "%-40s %s ops/s (replicated: %.2f of it)\n" "same load, a table that does not replicate" \
    "$local_rate" "$(awk -v a="$rate" -v b="$local_rate" 'BEGIN{print a/b}')"
