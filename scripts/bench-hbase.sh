#!/usr/bin/env bash
# Basalt against Apache HBase 2.6 itself, through the same client: YCSB 0.17's core with the
# project's DB class over HBase's Java client (scripts/hbase/ycsb, written to the behaviour of
# YCSB's HBase 2 binding, which Maven Central does not serve here), against an HBase
# standalone started from Maven Central's jars (scripts/hbase/standalone.sh) and a Basalt
# standalone, one after the other on the same machine, in one run.
#
#   scripts/bench-hbase.sh [RECORDS] [OPERATIONS] [THREADS...]
#       defaults: 100000 100000 1 16; WORKLOADS="a b c d e f" (YCSB's core workloads),
#       HEAP=4g (HBase's heap; Basalt runs with no limit set), REGIONS=16 (the table's
#       pre-split regions, the same on both), FIELDLENGTH=100 (10 fields: 1 KiB records)
#
# Each server gets a fresh data directory; its start-up time (process start to serving), the
# load and each workload at each thread count, then HBase's own PerformanceEvaluation
# (--nomapred randomWrite, randomRead, scan; the last thread count as its clients) are
# measured; after each, the server's peak
# RSS (VmHWM) and CPU seconds (utime + stime) over the operations. Writes
# bench-results/hbase.jsonl (one line per server, workload and thread count) and prints a
# table with Basalt / HBase ratios (throughput: higher is better for Basalt; p99 and RSS:
# lower is).
set -euo pipefail
source "$(dirname "$0")/bench-common.sh"
trap 'stop_all; rm -rf "$work"' EXIT

records=${1:-100000}
operations=${2:-100000}
shift 2 2>/dev/null || true
threads=("$@")
[ ${#threads[@]} -gt 0 ] || threads=(1 16)
workloads=${WORKLOADS:-a b c d e f}
heap=${HEAP:-4g}
regions=${REGIONS:-16}
fieldlength=${FIELDLENGTH:-100}

# The YCSB classpath: core, the DB class, HBase's shaded client.
ycsb_dir="$root/target/java/ycsb"
mkdir -p "$ycsb_dir"
mvn -B -q --no-transfer-progress -f scripts/hbase/ycsb/pom.xml package -DskipTests >&2
mvn -B -q --no-transfer-progress -f scripts/hbase/ycsb/pom.xml dependency:build-classpath \
    -Dmdep.outputFile="$ycsb_dir/classpath.txt" >&2
ycsb_cp="$ycsb_dir/build/classes:$(cat "$ycsb_dir/classpath.txt")"

pids=()
stop_all() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null || true
    done
    for p in "${pids[@]}"; do
        for _ in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -9 "$p" 2>/dev/null || true
    done
    pids=()
}

now_ms() { date +%s%3N; }
cpu_seconds() { # utime + stime of a process, in seconds
    awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}
peak_rss_kb() { awk '/VmHWM/ { print $2 }' "/proc/$1/status"; }

# Workload properties: YCSB's core workloads (workloads/workload[a-f] in YCSB's repository).
workload_props() {
    local w=$1 f=$2
    {
        echo "workload=site.ycsb.workloads.CoreWorkload"
        echo "recordcount=$records"
        echo "operationcount=$operations"
        echo "fieldcount=10"
        echo "fieldlength=$fieldlength"
        echo "readallfields=true"
        echo "measurementtype=hdrhistogram"
        echo "hdrhistogram.percentiles=50,99,99.9"
        case $w in
        a) echo "readproportion=0.5"; echo "updateproportion=0.5"; echo "requestdistribution=zipfian" ;;
        b) echo "readproportion=0.95"; echo "updateproportion=0.05"; echo "requestdistribution=zipfian" ;;
        c) echo "readproportion=1"; echo "requestdistribution=zipfian" ;;
        d) echo "readproportion=0.95"; echo "insertproportion=0.05"; echo "requestdistribution=latest" ;;
        e) echo "scanproportion=0.95"; echo "insertproportion=0.05"; echo "requestdistribution=zipfian"
           echo "maxscanlength=100"; echo "scanlengthdistribution=uniform" ;;
        f) echo "readproportion=0.5"; echo "readmodifywriteproportion=0.5"; echo "requestdistribution=zipfian" ;;
        esac
    } >"$f"
}

ycsb() { # ycsb QUORUM PHASE(-load|-t) WORKLOAD THREADS -> YCSB's report on stdout
    local quorum=$1 phase=$2 w=$3 t=$4
    local props="$work/workload$w"
    workload_props "$w" "$props"
    java --add-opens java.base/java.nio=ALL-UNNAMED -cp "$ycsb_cp" \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn site.ycsb.Client "$phase" \
        -db basalt.ycsb.HBaseClient -P "$props" -p table=usertable -p columnfamily=family \
        -p hbase.zookeeper.quorum="$quorum" -threads "$t" 2>"$work/ycsb.err"
}

# `metric REPORT SECTION NAME`: a value of YCSB's report ("[READ], 99thPercentileLatency(us), 812").
metric() {
    local v
    v=$(awk -F', ' -v s="[$2]" -v n="$3" '$1 == s && $2 == n { print $3; exit }' "$1")
    echo "${v:-0}"
}

out_dir=bench-results
mkdir -p "$out_dir"
results="$out_dir/hbase.jsonl"
: >"$results"

# `measure SERVER QUORUM PID STARTUP_MS`: the load and every workload against one server.
measure() {
    local server=$1 quorum=$2 pid=$3 startup=$4
    java --add-opens java.base/java.nio=ALL-UNNAMED -cp "$ycsb_cp" \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=warn basalt.ycsb.CreateTable \
        "$quorum" usertable family "$regions" >&2
    local phases=("load:1")
    for w in $workloads; do
        for t in "${threads[@]}"; do phases+=("$w:$t"); done
    done
    for phase in "${phases[@]}"; do
        local w=${phase%%:*} t=${phase##*:} report="$work/$server-$phase.txt"
        local cpu0 cpu1
        cpu0=$(cpu_seconds "$pid")
        # The client's CPU too (bash's `time`: user and system seconds of the YCSB JVM): on a
        # machine it shares with the server, it bounds the throughput of both.
        local TIMEFORMAT='%U %S'
        if [ "$w" = load ]; then
            { time ycsb "$quorum" -load a "${threads[-1]}" >"$report"; } 2>"$work/client-cpu"
            t=${threads[-1]}
        else
            { time ycsb "$quorum" -t "$w" "$t" >"$report"; } 2>"$work/client-cpu"
        fi
        cpu1=$(cpu_seconds "$pid")
        local client_cpu
        client_cpu=$(awk '{ print $1 + $2 }' "$work/client-cpu")
        local ops section
        ops=$(metric "$report" OVERALL "Throughput(ops/sec)")
        section=$(case $w in load) echo INSERT ;; e) echo SCAN ;; *) echo READ ;; esac)
        local count
        count=$(awk -F', ' '$2 == "Operations" { s += $3 } END { print s + 0 }' "$report")
        printf '{"server":"%s","workload":"%s","threads":%s,"ops_per_sec":%s,"p50_us":%s,"p99_us":%s,"p999_us":%s,"cpu_us_per_op":%s,"client_cpu_us_per_op":%s,"peak_rss_kb":%s,"startup_ms":%s}\n' \
            "$server" "$w" "$t" "${ops:-0}" \
            "$(metric "$report" "$section" "50thPercentileLatency(us)")" \
            "$(metric "$report" "$section" "99thPercentileLatency(us)")" \
            "$(metric "$report" "$section" "99.9PercentileLatency(us)")" \
            "$(awk -v a="$cpu0" -v b="$cpu1" -v n="$count" 'BEGIN { printf "%.1f", n ? (b - a) * 1e6 / n : 0 }')" \
            "$(awk -v c="$client_cpu" -v n="$count" 'BEGIN { printf "%.1f", n ? c * 1e6 / n : 0 }')" \
            "$(peak_rss_kb "$pid")" "$startup" | tee -a "$results"
    done
}

# `pe_measure SERVER QUORUM PID`: HBase's PerformanceEvaluation --nomapred (randomWrite,
# randomRead, scan) with the last thread count as its clients, OPERATIONS rows in all, into a
# table of its own pre-split as YCSB's; throughput from its timings, latencies from its
# per-client summaries (the worst client's).
pe_measure() {
    local server=$1 quorum=$2 pid=$3 clients=${threads[-1]}
    local rows=$((operations / clients))
    for cmd in randomWrite randomRead scan; do
        local report="$work/$server-pe-$cmd.txt" cpu0 cpu1
        cpu0=$(cpu_seconds "$pid")
        BASALT_ZK="$quorum" tests/java/tool.sh org.apache.hadoop.hbase.PerformanceEvaluation \
            --nomapred --rows="$rows" --presplit="$regions" "$cmd" "$clients" >"$report" 2>&1
        cpu1=$(cpu_seconds "$pid")
        python3 - "$report" "$server" "$cmd" "$clients" "$rows" "$cpu0" "$cpu1" "$(peak_rss_kb "$pid")" <<'PY' | tee -a "$results"
import json, re, sys
report, server, cmd, clients, rows, cpu0, cpu1, rss = sys.argv[1:]
text = open(report).read()
timings = re.search(r"Summary of timings \(ms\): \[([0-9, ]+)\]", text)
if not timings:
    sys.exit(f"PerformanceEvaluation {cmd} against {server} printed no timings: see {report}")
slowest = max(int(t) for t in timings.group(1).split(","))
ops = int(clients) * int(rows)
def worst(name):
    found = [float(v) for v in re.findall(rf"Latency \(us\) : .*?\b{re.escape(name)}=([0-9.]+)", text)]
    return max(found) if found else 0
print(json.dumps({"server": server, "workload": f"pe-{cmd}", "threads": int(clients),
    "ops_per_sec": ops / (slowest / 1000), "p50_us": worst("50th"), "p99_us": worst("99th"),
    "p999_us": worst("99.9th"), "cpu_us_per_op": round((float(cpu1) - float(cpu0)) * 1e6 / ops, 1),
    "peak_rss_kb": int(rss), "startup_ms": 0}))
PY
    done
}

echo "== HBase 2.6.4 standalone (heap $heap)" >&2
start=$(now_ms)
read -r hbase_zk hbase_pid < <(scripts/hbase/standalone.sh "$work/hbase" "$heap")
pids+=("$hbase_pid")
measure hbase "127.0.0.1:$hbase_zk" "$hbase_pid" $(($(now_ms) - start))
pe_measure hbase "127.0.0.1:$hbase_zk" "$hbase_pid"
stop_all

echo "== Basalt standalone" >&2
read -r zk_port zk_pid < <(tests/zookeeper/start.sh "$work/zk")
pids+=("$zk_pid")
start=$(now_ms)
"$basalt" standalone --data "$work/basalt" --zookeeper "127.0.0.1:$zk_port" --rpc-port 0 \
    --thrift-port 0 --info-port -1 >"$work/basalt.log" 2>&1 &
basalt_pid=$!
pids+=("$basalt_pid")
for _ in $(seq 1 300); do
    grep -q "published /hbase/master" "$work/basalt.log" && break
    sleep 0.1
done
measure basalt "127.0.0.1:$zk_port" "$basalt_pid" $(($(now_ms) - start))
pe_measure basalt "127.0.0.1:$zk_port" "$basalt_pid"
stop_all

# The table: each workload's figures side by side.
python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
by = {(r["server"], r["workload"], r["threads"]): r for r in rows}
print("| workload | threads | HBase ops/s | Basalt ops/s | ratio | HBase p99 us | Basalt p99 us | p99 ratio | CPU us/op HBase | Basalt | client CPU us/op, HBase | Basalt |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for (s, w, t), b in sorted(by.items()):
    if s != "basalt" or ("hbase", w, t) not in by:
        continue
    h = by[("hbase", w, t)]
    ratio = b["ops_per_sec"] / h["ops_per_sec"] if h["ops_per_sec"] else 0
    p99 = b["p99_us"] / h["p99_us"] if h["p99_us"] else 0
    print(f"| {w} | {t} | {h['ops_per_sec']:.0f} | {b['ops_per_sec']:.0f} | {ratio:.2f} | {h['p99_us']} | {b['p99_us']} | {p99:.2f} | {h['cpu_us_per_op']} | {b['cpu_us_per_op']} | {h.get('client_cpu_us_per_op', '-')} | {b.get('client_cpu_us_per_op', '-')} |")
print()
for s in ("hbase", "basalt"):
    mine = [r for r in rows if r["server"] == s]
    startup = max(r["startup_ms"] for r in mine)
    rss = max(r["peak_rss_kb"] for r in mine)
    print(f"{s}: start-up {startup} ms, peak RSS {rss / 1024:.0f} MiB")
PY
