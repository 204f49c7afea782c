#!/usr/bin/env bash
# The async client against the blocking one (issue 44's target: no slower at 1 request in
# flight, faster at 256), same server, same run:
#   scripts/bench-async.sh [ops] [workers]
# One `basalt standalone`; a table of 100-byte rows loaded once; then randomRead and
# randomWrite with 1, 16 and 256 requests in flight: the blocking client as that many threads
# sharing one connection (`--one-con`), the async client as that many tasks on one
# connection (`--async-client`, a tokio runtime of [workers] threads, default 1). Each
# pair runs twice, alternating which goes first, and the table prints the better of each.
set -euo pipefail
ops="${1:-100000}"
workers="${2:-1}"
source "$(dirname "$0")/bench-common.sh"
port=$((20000 + RANDOM % 20000))
"$basalt" standalone --data "$work/data" --thrift-port 0 --rpc-port "$port" --info-port 0 \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do grep -q "MasterService) listening" "$work/server.log" && break; sleep 0.1; done
addr="127.0.0.1:$port"
rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
"$basalt" pe --rpc "$addr" --value-size 100 --rows "$ops" --threads 1 --durability ASYNC_WAL \
    sequentialWrite | rate >/dev/null
best() { sort -n | tail -1; }
printf "%-24s %10s %10s %6s\n" workload blocking async ratio
for command in randomRead randomWrite; do
    for n in 1 16 256; do
        rows=$(( (ops + n - 1) / n ))
        b=""; a=""
        for round in 1 2; do
            blocking() {
                "$basalt" pe --rpc "$addr" --one-con --value-size 100 --rows "$rows" \
                    --threads "$n" --key-space "$ops" --durability ASYNC_WAL --seed "$round" "$command" | rate
            }
            asynchronous() {
                "$basalt" pe --rpc "$addr" --async-client --async-workers "$workers" --value-size 100 \
                    --rows "$rows" --threads "$n" --key-space "$ops" --durability ASYNC_WAL \
                    --seed "$round" "$command" | rate
            }
            if [ "$round" = 1 ]; then b+="$(blocking) "; a+="$(asynchronous) ";
            else a+="$(asynchronous) "; b+="$(blocking) "; fi
        done
        b=$(tr ' ' '\n' <<<"$b" | best); a=$(tr ' ' '\n' <<<"$a" | best)
        printf "%-24s %10s %10s %6s\n" "$command x$n in flight" "$b" "$a" \
            "$(awk "BEGIN{printf \"%.2f\", $a/$b}")"
    done
done
