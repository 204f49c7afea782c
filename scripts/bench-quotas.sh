#!/usr/bin/env bash
# The cost of quota checks on the hot path (issue 48's benchmark: within 5%):
#   scripts/bench-quotas.sh [rows] [rounds]
# One `basalt standalone`; `basalt pe --rpc` randomWrite and randomRead of 100-byte rows from
# 4 threads, with no quota in force ("off"), and with throttles set high enough never to trip
# ("on": a throttle on the benchmark's user, basalt, and one on the region servers, so every
# call is checked against two buckets). Each round measures both, in turns (off first in odd
# rounds, on first in even ones), and each write's table is flushed and left to settle before
# the next measurement, so neither state always runs beside the other's flushes and
# compactions; the ratio is on/off of the summed rates.
set -euo pipefail
rows="${1:-200000}"
rounds="${2:-3}"
source "$(dirname "$0")/bench-common.sh"
port=$((20000 + RANDOM % 20000))
"$basalt" standalone --data "$work/data" --rpc-port "$port" --info-port 0 \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "MasterService) listening" "$work/server.log" && break; sleep 0.1; done

shell() { "$basalt" shell --connect "127.0.0.1:$port" -n >/dev/null <<<"$1"; }
rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
pe() { # pe <command> <table>
    "$basalt" pe --rpc "127.0.0.1:$port" --value-size 100 --table "$2" --rows "$rows" \
        --threads 4 "$1" | rate
}
quotas() { # quotas on|off; the server reads them within a second
    if [ "$1" = on ]; then
        shell "set_quota TYPE => THROTTLE, USER => 'basalt', LIMIT => '100000000req/sec'
set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => '100000000req/sec'"
    else
        shell "set_quota TYPE => THROTTLE, USER => 'basalt', LIMIT => NONE
set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => NONE"
    fi
    sleep 2
}

# The table read by every round, written once.
pe sequentialWrite data >/dev/null
declare -A sum
printf "%-8s %-6s %12s %12s\n" round quotas randomWrite randomRead
settle() { shell "flush '$1'"; sleep 3; }
for round in $(seq "$rounds"); do
    order="off on"
    [ $((round % 2)) = 0 ] && order="on off"
    for state in $order; do
        quotas "$state"
        w=$(pe randomWrite "w$round$state")
        settle "w$round$state"
        r=$(pe randomRead data)
        sum[$state-w]=$(( ${sum[$state-w]:-0} + w ))
        sum[$state-r]=$(( ${sum[$state-r]:-0} + r ))
        printf "%-8s %-6s %12s %12s\n" "$round" "$state" "$w" "$r"
    done
done
printf "\non / off: randomWrite %s, randomRead %s\n" \
    "$(awk "BEGIN{printf \"%.3f\", ${sum[on-w]}/${sum[off-w]}}")" \
    "$(awk "BEGIN{printf \"%.3f\", ${sum[on-r]}/${sum[off-r]}}")"
