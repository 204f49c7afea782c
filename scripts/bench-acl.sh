#!/usr/bin/env bash
# What access control costs on the native RPC (issue 32): one connection's puts and gets of
# 100-byte rows, and 16 connections', against three `basalt standalone` servers run one
# after the other on the same machine:
#   off        no --authorization
#   on         --authorization, 1,000 other users' grants, the caller holding one global RWC
#   on, many   --authorization, the caller holding 1,000 grants (one per namespace) + RWC
#   scripts/bench-acl.sh [rows]
set -euo pipefail
rows="${1:-50000}"
source "$(dirname "$0")/bench-common.sh"
server=""
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$work"' EXIT

start() { # start <name> <flags...>: sets $server (its pid) and $addr (its RPC address)
    local name="$1"; shift
    "$basalt" standalone --data "$work/$name" --thrift-port 0 --rpc-port 0 --info-port -1 "$@" \
        >"$work/$name.log" 2>&1 &
    server=$!
    for _ in $(seq 100); do grep -q "MasterService) listening" "$work/$name.log" && break; sleep 0.1; done
    addr=$(sed -n 's/^rpc (.*) listening on \(\S*\).*/\1/p' "$work/$name.log" | head -1)
}
stop() { kill "$server"; wait "$server" 2>/dev/null || true; server=""; }
rate() { grep -o "= [0-9]* ops/s" | awk '{print $2}'; }
bench() { # bench <addr>: four rates
    local addr="$1" per=$((rows / 4))
    for spec in "1 sequentialWrite $rows" "1 randomRead $rows" "16 sequentialWrite $per" "16 randomRead $per"; do
        set -- $spec
        "$basalt" pe --rpc "$addr" --value-size 100 --table "b$1" --rows "$3" --threads "$1" "$2" | rate
    done
}
grants() { # grants <addr> <script>
    "$basalt" shell --connect "$1" --user admin -n <"$2" >/dev/null
}

start off
off=($(bench "$addr")); stop

start on --authorization --superuser admin
{ echo "grant 'basalt', 'RWC'"; for i in $(seq 1000); do echo "grant 'user$i', 'R'"; done; } >"$work/others.shell"
grants "$addr" "$work/others.shell"
on=($(bench "$addr")); stop

start many --authorization --superuser admin
{ for i in $(seq 1000); do echo "create_namespace 'ns$i'"; echo "grant 'basalt', 'R', '@ns$i'"; done
  echo "grant 'basalt', 'RWC'"; } >"$work/many.shell"
grants "$addr" "$work/many.shell"
many=($(bench "$addr")); stop

printf "%-26s %10s %10s %10s %8s %8s\n" workload off on "on, many" on/off many/off
names=("sequentialWrite x1" "randomRead x1" "sequentialWrite x16" "randomRead x16")
for i in 0 1 2 3; do
    printf "%-26s %10s %10s %10s %8s %8s\n" "${names[$i]}" "${off[$i]}" "${on[$i]}" "${many[$i]}" \
        "$(awk "BEGIN{printf \"%.2f\", ${on[$i]}/${off[$i]}}")" \
        "$(awk "BEGIN{printf \"%.2f\", ${many[$i]}/${off[$i]}}")"
done
