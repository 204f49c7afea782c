#!/usr/bin/env bash
# Runs one of HBase's own tools, from Maven Central's jars, against a running Basalt:
#   BASALT_ZK=host:port tests/java/tool.sh MAIN_CLASS [args...]
# e.g. org.apache.hadoop.hbase.PerformanceEvaluation --nomapred --rows=1000 sequentialWrite 1.
# BASALT_TOOLS names the set of jars: tools (the default: HBase 2.6's tools and MapReduce
# jobs), shell (HBase's JRuby shell) or spark (a Spark job over TableInputFormat). The classpath (tests/java/$BASALT_TOOLS/pom.xml) is
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
classpath="$(cat "$cp")"
# A set with sources of its own (spark: the job) is compiled into target/java/SET/build.
if [ -d "$here/$set_name/src" ]; then
    classes="$out/build/classes"
    if [ ! -d "$classes" ] || [ -n "$(find "$here/$set_name/src" "$pom" -newer "$classes" -print -quit)" ]; then
        mvn -B -q --no-transfer-progress -f "$pom" compile >&2
        touch "$classes"
    fi
    classpath="$classes:$classpath"
fi
# The module openings HBase's bin/hbase gives JDK 11+, with those Spark's launcher adds and
# the two JRuby asks for its native IO (the shell reads its input through them).
opens=(--add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false)
for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util \
    java.util.concurrent java.util.concurrent.atomic jdk.internal.misc jdk.internal.ref sun.nio.ch \
    sun.nio.cs sun.security.action sun.util.calendar; do
    opens+=(--add-opens "java.base/$p=ALL-UNNAMED")
done
# Run from target/java/SET: MapReduce's local runner links its jars into the working
# directory.
cd "$out"
# Spark binds its driver to this address (the job says so too).
export SPARK_LOCAL_IP=127.0.0.1
exec java "${opens[@]}" -Djava.io.tmpdir="$out" -Dhadoop.tmp.dir="$out/hadoop" \
    -Dlog4j2.configurationFile="$here/tools/log4j2.properties" \
    -Dlog4j.configuration="file:$here/tools/log4j.properties" -cp "$classpath" "$main" \
    -Dhbase.zookeeper.quorum="$BASALT_ZK" "$@"
