#!/usr/bin/env bash
# Starts Apache HBase 2.6 standalone (one JVM: a ZooKeeper, a master and a region server), from
# Maven Central's jars, as the benchmarks' peer; nothing of HBase's is committed.
#   scripts/hbase/standalone.sh DIR [HEAP]   -> prints "ZKPORT PID" once HBase serves
# DIR holds its root (file://), temporary files, configuration and log (DIR/hbase.log). HEAP
# (default 4g) is the JVM's -Xmx and -Xms, with G1, as HBase's book advises. Every port is on
# 127.0.0.1 and picked free; the UIs are off. Stop it with `kill PID` (SIGTERM: a clean stop).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
dir="$(mkdir -p "$1" && cd "$1" && pwd)"
heap="${2:-4g}"
if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven) >/dev/null 2>&1
fi
out="$here/../../target/java/hbase-server"
mkdir -p "$out"
cp="$out/classpath.txt"
if [ ! -s "$cp" ] || [ "$here/server/pom.xml" -nt "$cp" ]; then
    mvn -B -q --no-transfer-progress -f "$here/server/pom.xml" dependency:build-classpath \
        -Dmdep.outputFile="$cp" -DexcludeArtifactIds=slf4j-reload4j,slf4j-log4j12,log4j,reload4j >&2
fi
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
zk=$(free_port)
master=$(free_port)
rs=$(free_port)
mkdir -p "$dir/conf" "$dir/root" "$dir/tmp"
cat >"$dir/conf/hbase-site.xml" <<XML
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$dir/root</value></property>
  <property><name>hbase.tmp.dir</name><value>$dir/tmp</value></property>
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$zk</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$dir/zookeeper</value></property>
  <property><name>hbase.zookeeper.property.maxClientCnxns</name><value>0</value></property>
  <property><name>hbase.master.port</name><value>$master</value></property>
  <property><name>hbase.regionserver.port</name><value>$rs</value></property>
  <property><name>hbase.master.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.regionserver.hostname</name><value>127.0.0.1</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
</configuration>
XML
cat >"$dir/conf/log4j2.properties" <<'LOG'
status = warn
appender.file.type = File
appender.file.name = file
appender.file.fileName = ${sys:hbase.log.file}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{ISO8601} %-5p [%t] %c{2}: %m%n
rootLogger = INFO,file
LOG
# The flags of HBase's bin/hbase on JDK 11+ (add_jdk11_jvm_flags), and G1.
opens=(-XX:+UseG1GC "-Xmx$heap" "-Xms$heap" -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
    --add-modules jdk.unsupported --add-opens java.base/java.nio=ALL-UNNAMED
    --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
    --add-exports java.base/sun.net.dns=ALL-UNNAMED --add-exports java.base/sun.net.util=ALL-UNNAMED)
log="$dir/hbase.log"
: >"$log"
nohup java "${opens[@]}" -Dhbase.log.file="$log" -Dlog4j2.configurationFile="$dir/conf/log4j2.properties" \
    -Djava.io.tmpdir="$dir/tmp" -cp "$dir/conf:$(cat "$cp")" \
    org.apache.hadoop.hbase.master.HMaster start >"$dir/hbase.out" 2>&1 &
pid=$!
# Up when the master has finished initializing (meta and namespace online); bounded.
for _ in $(seq 1 600); do
    if grep -q "Master has completed initialization" "$log" 2>/dev/null; then
        echo "$zk $pid"
        exit 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "HBase exited while starting; see $log and $dir/hbase.out" >&2
        exit 1
    fi
    sleep 0.5
done
kill "$pid" 2>/dev/null || true
echo "HBase did not finish starting in 300 s; see $log" >&2
exit 1
