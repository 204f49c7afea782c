#!/usr/bin/env bash
# Runs one of HBase's own tools, from Maven Central's jars, against a running Basalt:
#   BASALT_ZK=host:port tests/java/tool.sh MAIN_CLASS [args...]
# e.g. org.apache.hadoop.hbase.PerformanceEvaluation --nomapred --rows=1000 sequentialWrite 1.
# BASALT_TOOLS names the set of jars: tools (the default: HBase 2.6's tools and MapReduce
# jobs) or shell (HBase's JRuby shell). The classpath (tests/java/$BASALT_TOOLS/pom.xml) is
# resolved once into target/java/$BASALT_TOOLS; the tool
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
set_name="${BASALT_TOOLS:-tools}"
pom="$here/$set_name/pom.xml"
[ -f "$pom" ] || { echo "tool.sh: no set of jars named '$set_name' (tests/java/$set_name/pom.xml)" >&2; exit 2; }
out="$here/../../target/java/$set_name"
mkdir -p "$out"
cp="$out/classpath.txt"
if [ ! -s "$cp" ] || [ "$pom" -nt "$cp" ]; then
    mvn -B -q --no-transfer-progress -f "$pom" dependency:build-classpath \
        -Dmdep.outputFile="$cp" -DexcludeArtifactIds=slf4j-reload4j,slf4j-log4j12 >&2
fi
# The module openings HBase's bin/hbase gives JDK 11+, and the two JRuby asks for its
# native IO (the shell reads its input through them).
opens=(--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.io=ALL-UNNAMED
    --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
    --add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED
    --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/jdk.internal.misc=ALL-UNNAMED)
# Run from target/java/SET: MapReduce's local runner links its jars into the working
# directory.
cd "$out"
exec java "${opens[@]}" -Djava.io.tmpdir="$out" -Dhadoop.tmp.dir="$out/hadoop" \
    -Dlog4j2.configurationFile="$here/tools/log4j2.properties" \
    -Dlog4j.configuration="file:$here/tools/log4j.properties" -cp "$(cat "$cp")" "$main" \
    -Dhbase.zookeeper.quorum="$BASALT_ZK" "$@"
