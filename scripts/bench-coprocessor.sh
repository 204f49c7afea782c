#!/usr/bin/env bash
# What an observer costs (issue 50): `basalt pe` randomWrite and randomRead of 100-byte rows
# over the native RPC, on two tables of one `basalt standalone`, in the same run and
# alternating: `plain`, and `observed`, which attaches coprocessors/examples/empty (every hook
# of a get and a put exported, each doing nothing: the cost of calling into WebAssembly and
# of copying the operation across). One connection, then 8.
#   scripts/bench-coprocessor.sh [rows] [rounds]
set -euo pipefail
rows="${1:-100000}"
rounds="${2:-3}"
source "$(dirname "$0")/bench-common.sh"
modules=$(scripts/build-coprocessors.sh)
"$basalt" standalone --data "$work/data" --thrift-port 0 --rpc-port 0 --info-port -1 \
    >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "MasterService) listening" "$work/server.log" && break; sleep 0.1; done
addr=$(sed -n 's/^rpc (.*) listening on \(\S*\).*/\1/p' "$work/server.log" | head -1)

"$basalt" shell --connect "$addr" -n >/dev/null <<SHELL
create 'plain', 'info'
create 'observed', 'info'
alter 'observed', METHOD => 'table_att', 'coprocessor' => 'file://$modules/empty.wasm|1|'
SHELL

rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
pe() { # pe <table> <threads> <command>
    "$basalt" pe --rpc "$addr" --value-size 100 --table "$1" --rows $((rows / $2)) \
        --threads "$2" "$3" | rate
}
printf "%-22s %6s %12s %12s %9s\n" workload round plain observed obs/plain
for threads in 1 8; do
    for command in randomWrite randomRead; do
        for round in $(seq "$rounds"); do
            plain=$(pe plain "$threads" "$command")
            observed=$(pe observed "$threads" "$command")
            printf "%-22s %6s %12s %12s %9s\n" "$command x$threads" "$round" "$plain" "$observed" \
                "$(awk "BEGIN{printf \"%.2f\", $observed/$plain}")"
        done
    done
done
