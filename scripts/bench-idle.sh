#!/usr/bin/env bash
# A region server holding 10,000 idle client connections (issue 63's target: under 100
# threads, and throughput at 16 clients unchanged while they are held):
#   scripts/bench-idle.sh [rows-per-client] [idle-connections] [rounds]
# Against one `basalt standalone`: 16 clients' randomWrite then randomRead over the native
# RPC (`basalt pe --rpc --threads 16`), alone and while the same pe process holds the idle
# connections (`--idle-connections`), alternating, for `rounds` rounds. Prints each run's
# rate, the server's threads while it ran (sampled mid-run), and the medians' ratio held /
# alone. PEER=/path/to/another/basalt runs the alone runs against that binary too (an older
# build, to see what the change did), each server on its own data.
set -euo pipefail
rows="${1:-20000}"
idle="${2:-10000}"
rounds="${3:-3}"
source "$(dirname "$0")/bench-common.sh"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

median() { sort -n | awk '{v[NR]=$1} END{if (NR == 0) exit; print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }

bench() { # bench <label> <binary> <idle counts...>
    local label="$1" bin="$2" port=$((20000 + RANDOM % 20000))
    shift 2
    "$bin" standalone --data "$work/$label" --thrift-port 0 --rpc-port "$port" --info-port 0 \
        --max-connections $((idle + 1000)) >"$work/$label.log" 2>&1 &
    local server=$!
    for _ in $(seq 100); do grep -q "MasterService) listening" "$work/$label.log" && break; sleep 0.1; done
    # The table exists and holds rows before anything is timed.
    "$bin" pe --rpc "127.0.0.1:$port" --value-size 1000 --rows "$rows" --threads 16 \
        sequentialWrite >/dev/null
    for round in $(seq "$rounds"); do
        for held in "$@"; do
            local extra=()
            if [ "$held" != 0 ]; then extra=(--idle-connections "$held"); fi
            for command in randomWrite randomRead; do
                "$bin" pe --rpc "127.0.0.1:$port" --value-size 1000 --rows "$rows" --threads 16 \
                    "${extra[@]}" "$command" >"$work/pe.out" 2>"$work/pe.err" &
                local pe=$!
                # Threads sampled once the run is under way (after the idle ones are parked).
                sleep 4
                local threads
                threads=$(ls "/proc/$server/task" | wc -l)
                wait "$pe"
                local r
                r=$(rate <"$work/pe.out")
                printf "%-8s round %s %-12s idle %5s  %8s ops/s  server threads %s\n" \
                    "$label" "$round" "$command" "$held" "$r" "$threads"
                echo "$label $command $held $r" >>"$work/rates"
            done
        done
    done
    kill "$server"
    wait "$server" 2>/dev/null || true
}

bench basalt "$basalt" 0 "$idle"
# The peer may predate --idle-connections: it runs alone.
if [ -n "${PEER:-}" ]; then bench peer "$PEER" 0; fi
echo
printf "%-8s %-12s %10s %10s %6s\n" binary command alone held ratio
for label in basalt ${PEER:+peer}; do
    for command in randomWrite randomRead; do
        a=$(awk -v l="$label" -v c="$command" '$1==l && $2==c && $3==0 {print $4}' "$work/rates" | median)
        h=$(awk -v l="$label" -v c="$command" '$1==l && $2==c && $3!=0 {print $4}' "$work/rates" | median)
        ratio=-
        if [ -n "$h" ]; then ratio=$(awk "BEGIN{printf \"%.2f\", $h/$a}"); fi
        printf "%-8s %-12s %10s %10s %6s\n" "$label" "$command" "$a" "${h:--}" "$ratio"
    done
done
