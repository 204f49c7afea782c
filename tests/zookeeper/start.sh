#!/usr/bin/env bash
# Starts a private ZooKeeper (Debian's package, installed here if missing) on 127.0.0.1 (or
# ADDRESS, e.g. a test network namespace's own) and a free port, for the tests that publish
# to it:
#   tests/zookeeper/start.sh DIR [ADDRESS [PORT]]   -> prints "PORT PID" once it answers `ruok`
# Stop it with `kill PID`. Logs: DIR/zk.log. Started again on the same DIR and PORT, it keeps
# its data and its clients' sessions (a restart, as the fault tests make).
set -euo pipefail
dir="$1"
addr="${2:-127.0.0.1}"
mkdir -p "$dir/data"
if [ ! -e /usr/share/java/zookeeper.jar ]; then
    (apt-get update -qq && apt-get install -y -qq zookeeper) >"$dir/install.log" 2>&1
fi
port="${3:-}"
[ -n "$port" ] || port=$(python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1]); s.close()' "$addr")
cat >"$dir/zoo.cfg" <<CFG
tickTime=1000
maxClientCnxns=0
dataDir=$dir/data
clientPort=$port
clientPortAddress=$addr
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr,stat,mntr
forceSync=no
CFG
cp="/usr/share/java/zookeeper.jar"
for j in slf4j-api slf4j-simple netty-handler netty-transport netty-common netty-buffer netty-resolver netty-codec netty-transport-native-epoll netty-transport-native-unix-common jline audience-annotations commons-cli; do
    [ -e "/usr/share/java/$j.jar" ] && cp="$cp:/usr/share/java/$j.jar"
done
java -Xmx256m -cp "$cp" org.apache.zookeeper.server.quorum.QuorumPeerMain "$dir/zoo.cfg" >>"$dir/zk.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
    if [ "$( (exec 3<>/dev/tcp/$addr/$port && printf ruok >&3 && timeout 1 cat <&3) 2>/dev/null || true)" = "imok" ]; then
        echo "$port $pid"
        exit 0
    fi
    sleep 0.1
done
echo "ZooKeeper did not start; see $dir/zk.log" >&2
kill "$pid" 2>/dev/null || true
exit 1
