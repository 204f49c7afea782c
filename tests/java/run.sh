#!/usr/bin/env bash
# Runs one of the Java suites against a Basalt that is already running:
#   BASALT_ZK=host:port BASALT_RPC=host:port tests/java/run.sh MODULE HBASE_VERSION [maven args...]
# (BASALT_RPC, Basalt's RPC address, is for the suites that bootstrap without ZooKeeper.)
# MODULE is hbase2 (hbase-shaded-client 2.x), hbase1 (hbase-shaded-client 1.x) or asynchbase
# (OpenTSDB's client, org.hbase:asynchbase); VERSION is that client's. The client jars come
# from Maven Central by their coordinates on the first run (cached in ~/.m2); the build goes
# to target/java/MODULE-VERSION. JDK 17 and Maven are installed from
# Debian if missing. Prints the suite's counts last:
# "java MODULE VERSION: N tests, F failed, S skipped" (skipped ones are among the N).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
module="$1"
version="$2"
shift 2
: "${BASALT_ZK:?BASALT_ZK must name the ZooKeeper Basalt publishes to (host:port)}"
if ! command -v mvn >/dev/null || ! command -v javac >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq openjdk-17-jdk-headless maven) >/dev/null 2>&1
fi
reports="$here/../../target/java/$module-$version/surefire-reports"
rm -rf "$reports"
status=0
mvn -B -q --no-transfer-progress -f "$here/$module/pom.xml" -Dhbase.version="$version" -Dclient.version="$version" \
    -Dsurefire.failIfNoSpecifiedTests=false test "$@" || status=$?
tests=0
failed=0
skipped=0
for f in "$reports"/TEST-*.xml; do
    [ -e "$f" ] || continue
    line=$(grep -m1 '<testsuite' "$f")
    t=$(sed -n 's/.* tests="\([0-9]*\)".*/\1/p' <<<"$line")
    e=$(sed -n 's/.* errors="\([0-9]*\)".*/\1/p' <<<"$line")
    x=$(sed -n 's/.* failures="\([0-9]*\)".*/\1/p' <<<"$line")
    k=$(sed -n 's/.* skipped="\([0-9]*\)".*/\1/p' <<<"$line")
    tests=$((tests + t))
    failed=$((failed + e + x))
    skipped=$((skipped + ${k:-0}))
done
echo "java $module $version: $tests tests, $failed failed, $skipped skipped"
exit "$status"
