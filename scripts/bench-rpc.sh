#!/usr/bin/env bash
# The native RPC beside the Thrift gateway, same server, same workloads (issue 10's speed
# target: native RPC gets and puts at >= 1.2x Thrift's rate):
#   scripts/bench-rpc.sh [rows]
# One connection's SYNC_WAL puts and gets of a 100-byte row, then 16 connections' puts and
# gets, each over `basalt pe --rpc` and `basalt pe --thrift` against one `basalt standalone`;
# then the 16 threads' puts and gets over one shared RPC connection (`--one-con`), with one
# socket and with a pool of two (`--ipc-pool-size 2`, HBase's hbase.client.ipc.pool.size);
# then one thread's batched puts (batches of 100 against Thrift's, and a BufferedMutator);
# last, FSYNC_WAL puts over the native RPC alone (group commit through the server's handlers).
set -euo pipefail
rows="${1:-100000}"
source "$(dirname "$0")/bench-common.sh"
port=$((20000 + RANDOM % 20000))
"$basalt" standalone --data "$work/data" --thrift-port "$port" --rpc-port $((port + 1)) --info-port 0 \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q "MasterService) listening" "$work/server.log" && break; sleep 0.1; done

rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
run() { # run <gateway flag> <address> <table> <rows> <threads> <command>
    "$basalt" pe "$1" "$2" --value-size 100 --table "$3" --rows "$4" --threads "$5" "$6" | rate
}
per=$((rows / 5))
printf "%-28s %10s %10s %6s\n" workload rpc thrift ratio
for spec in "1 sequentialWrite $rows" "1 randomRead $rows" "16 sequentialWrite $per" "16 randomRead $per"; do
    set -- $spec
    r=$(run --rpc "127.0.0.1:$((port + 1))" "r$1" "$3" "$1" "$2")
    t=$(run --thrift "127.0.0.1:$port" "t$1" "$3" "$1" "$2")
    printf "%-28s %10s %10s %6s\n" "$2 x$1 conn" "$r" "$t" "$(awk "BEGIN{printf \"%.2f\", $r/$t}")"
    if [ "$1" = 16 ]; then
        for pool in 1 2; do
            o=$("$basalt" pe --rpc "127.0.0.1:$((port + 1))" --one-con --ipc-pool-size "$pool" \
                --value-size 100 --table "o$1p$pool" --rows "$3" --threads "$1" "$2" | rate)
            printf "%-28s %10s %10s %6s\n" "$2 x$1 threads, one conn/$pool" "$o" "$t" \
                "$(awk "BEGIN{printf \"%.2f\", $o/$t}")"
        done
    fi
done
# Batched puts from one thread: batches of 100 as one Multi (cells in a cell block) against
# Thrift's mutateRows, and the native client's BufferedMutator (`--auto-flush false`, HBase
# PE's default), which sends a 2 MiB buffer while the next fills.
# Two rounds, Thrift first in each, since the server slows as its tables grow.
printf "\n%-28s %10s %10s %6s\n" "batched puts, 1 thread" rpc thrift ratio
for round in 1 2; do
    t=$("$basalt" pe --thrift "127.0.0.1:$port" --batch 100 --value-size 100 --table "tb$round" \
        --rows "$rows" sequentialWrite | rate)
    for spec in "batches of 100:--batch 100" "buffered mutator:--auto-flush false"; do
        IFS=: read -r label flag <<<"$spec"
        r=$("$basalt" pe --rpc "127.0.0.1:$((port + 1))" $flag --value-size 100 \
            --table "rb$round${label%% *}" --rows "$rows" sequentialWrite | rate)
        printf "%-28s %10s %10s %6s\n" "$label" "$r" "$t" \
            "$(awk "BEGIN{printf \"%.2f\", $r/$t}")"
    done
done
# Group commit over the native RPC: FSYNC_WAL puts from one thread, from 16 threads sharing
# one connection (their puts run on the server's handler threads and share syncs) and from
# 16 connections. Thrift1 has no FSYNC_WAL, so there is no Thrift column.
fsync_rows=$((rows / 20))
printf "\n%-28s %10s\n" "FSYNC_WAL puts" rpc
for spec in "1 conn:1:" "16 threads, one conn:16:--one-con" "16 conns:16:"; do
    IFS=: read -r label threads flag <<<"$spec"
    f=$("$basalt" pe --rpc "127.0.0.1:$((port + 1))" $flag --durability FSYNC_WAL \
        --value-size 100 --table "f$threads${flag:+s}" --rows "$fsync_rows" --threads "$threads" \
        sequentialWrite | rate)
    printf "%-28s %10s\n" "$label" "$f"
done
