#!/usr/bin/env bash
# Restarts every region server of a running cluster in turn without failing a client call
# (HBase's rolling-restart.sh with graceful_stop.sh):
#   scripts/rolling-restart.sh ZOOKEEPER 'RESTART_COMMAND'
# For each live region server, in turn:
#   1. `basalt regionserver stop --graceful --ack HOST:PORT`: the balancer is switched off, the
#      server's regions move to the others (each checked serving before the next moves), the
#      server stops cleanly (its hbase:meta, if it held it, moves then), the balancer is
#      switched back;
#   2. RESTART_COMMAND, run by bash with the server's HOST:PORT as $1, starts it again (on the
#      same host and port): how depends on how the cluster is run (`systemctl start
#      basalt-regionserver@"$1"`, a remote shell, ...); it must return once the process is
#      started;
#   3. once the cluster lists it live again, `basalt regionmover load --ack HOST:PORT` moves
#      its regions back.
# The basalt binary is $BASALT, else `basalt` on the PATH. Each step is bounded (a server that
# does not come back within 120 s stops the script with an error).
set -euo pipefail
zk="$1"
restart="$2"
basalt="${BASALT:-basalt}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

live() { # the live region servers, host:port each
    echo "list_liveservers" | "$basalt" shell --zookeeper "$zk" -n 2>/dev/null |
        awk -F, '/^[^ ].*,[0-9]+,[0-9]+$/ {print $1 ":" $2}'
}

servers=$(live)
[ -n "$servers" ] || { echo "no live region server found through $zk" >&2; exit 1; }
echo "rolling restart of $(echo "$servers" | wc -w) region servers: $(echo $servers)"
for server in $servers; do
    started=$(date +%s)
    list="$work/regions-$server"
    "$basalt" regionserver stop --graceful --ack --zookeeper "$zk" --filename "$list" "$server"
    bash -c "$restart" restart "$server"
    for _ in $(seq 600); do
        live | grep -qx "$server" && break
        sleep 0.2
    done
    live | grep -qx "$server" || { echo "$server did not come back within 120 s" >&2; exit 1; }
    "$basalt" regionmover load --ack --zookeeper "$zk" --filename "$list" "$server"
    echo "restarted $server in $(( $(date +%s) - started )) s"
done
echo "rolling restart done"
