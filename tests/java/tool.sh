#!/usr/bin/env bash
# Runs one of HBase's own tools, from Maven Central's jars, against a running Basalt:
#   BASALT_ZK=host:port tests/java/tool.sh MAIN_CLASS [args...]
# e.g. org.apache.hadoop.hbase.PerformanceEvaluation --nomapred --rows=1000 sequentialWrite 1.
# The classpath (tests/java/tools/pom.xml) is resolved once into target/java/tools; the tool
# gets hbase.zookeeper.quorum as its one setting (a generic -D option, before its own).
# Logs go through log4j2 (tools/log4j2.properties): Hadoop's own SLF4J binding is left out.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
main="$1"
shift
: "${BASALT_ZK:?BASALT_ZK must name the ZooKeeper Basalt publishes to (host:port)}"
if ! command -v mvn >/dev/null || ! command -v java >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven) >/dev/null 2>&1
fi
out="$here/../../target/java/tools"
mkdir -p "$out"
cp="$out/classpath.txt"
if [ ! -s "$cp" ] || [ "$here/tools/pom.xml" -nt "$cp" ]; then
    mvn -B -q --no-transfer-progress -f "$here/tools/pom.xml" dependency:build-classpath \
        -Dmdep.outputFile="$cp" -DexcludeArtifactIds=slf4j-reload4j,slf4j-log4j12 >&2
fi
# The module openings HBase's bin/hbase gives JDK 11+.
opens=(--add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED)
# Run from target/java/tools: MapReduce's local runner links its jars into the working
# directory.
cd "$out"
exec java "${opens[@]}" -Djava.io.tmpdir="$out" -Dhadoop.tmp.dir="$out/hadoop" \
    -Dlog4j2.configurationFile="$here/tools/log4j2.properties" \
    -Dlog4j.configuration="file:$here/tools/log4j.properties" -cp "$(cat "$cp")" "$main" \
    -Dhbase.zookeeper.quorum="$BASALT_ZK" "$@"
