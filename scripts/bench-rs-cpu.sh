#!/usr/bin/env bash
# A cluster region server's CPU per operation beside standalone's (issue 63's target: within
# 1.1x), same workloads, one after the other:
#   scripts/bench-rs-cpu.sh [rows-per-client] [rounds]
# `basalt pe` with 16 client threads, 100-byte values, on a table pre-split into 4 regions:
# randomWrite then randomRead against a one-region-server `basalt cluster start` (through
# ZooKeeper; the region server process's CPU is counted), then against `basalt standalone`
# (its whole process: master and region server in one). CPU from /proc/PID/stat (user +
# system) around each run; the medians over `rounds` rounds, each round a fresh cluster and a
# fresh standalone. Logs in target/bench-rs-cpu/.
set -euo pipefail
rows="${1:-20000}"
rounds="${2:-3}"
source "$(dirname "$0")/bench-common.sh"
logs="$root/target/bench-rs-cpu"
rm -rf "$logs" && mkdir -p "$logs"
cluster=""
trap '[ -n "$cluster" ] && kill -KILL -- -$cluster 2>/dev/null; kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
tck=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
median() { sort -n | awk '{v[NR]=$1} END{if (NR == 0) exit; print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
pe() { "$basalt" pe "$@" --value-size 100 --presplit 4 --table bench --rows "$rows" --threads 16; }

measure() { # measure <label> <pid> <pe target flags...>: a line per command into $work/cpu
    local label="$1" pid="$2"
    shift 2
    for command in randomWrite randomRead; do
        local before after out ops
        before=$(ticks "$pid")
        out=$(pe "$@" "$command")
        after=$(ticks "$pid")
        ops=$((rows * 16))
        local us
        us=$(awk "BEGIN{printf \"%.2f\", ($after - $before) * 1e6 / $tck / $ops}")
        echo "$label $command $us $(echo "$out" | grep -o "= [0-9]* ops/s" | awk '{print $2}')" \
            | tee -a "$work/cpu"
    done
}

for round in $(seq "$rounds"); do
    setsid "$basalt" cluster start --servers 1 --data "$work/cluster$round" \
        >"$logs/cluster$round.log" 2>&1 &
    cluster=$!
    for _ in $(seq 600); do grep -q "cluster ready" "$logs/cluster$round.log" && break; sleep 0.1; done
    quorum=$(sed -n 's/^zookeeper \([^ ]*\).*/\1/p' "$logs/cluster$round.log" | head -1)
    rs=$(sed -n 's/^rs1 pid \([0-9]*\).*/\1/p' "$logs/cluster$round.log" | head -1)
    measure cluster "$rs" --zookeeper "$quorum"
    kill -TERM "$cluster"
    wait "$cluster" || true
    cluster=""

    "$basalt" standalone --data "$work/standalone$round" --thrift-port 0 --rpc-port 0 \
        --info-port 0 >"$logs/standalone$round.log" 2>&1 &
    standalone=$!
    for _ in $(seq 100); do grep -q "MasterService) listening" "$logs/standalone$round.log" && break; sleep 0.1; done
    rpc=$(sed -n 's/^rpc (.*) listening on \(\S*\).*/\1/p' "$logs/standalone$round.log" | head -1)
    measure standalone "$standalone" --rpc "$rpc"
    kill "$standalone"
    wait "$standalone" 2>/dev/null || true
done

echo
printf "%-12s %14s %14s %6s %14s %14s\n" command "standalone us" "cluster us" ratio \
    "standalone/s" "cluster/s"
for command in randomWrite randomRead; do
    col() { awk -v l="$1" -v c="$command" -v f="$2" '$1==l && $2==c {print $f}' "$work/cpu" | median; }
    s=$(col standalone 3) c=$(col cluster 3)
    printf "%-12s %14s %14s %6s %14s %14s\n" "$command" "$s" "$c" \
        "$(awk "BEGIN{printf \"%.2f\", $c/$s}")" "$(col standalone 4)" "$(col cluster 4)"
done
