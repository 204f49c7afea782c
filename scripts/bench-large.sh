#!/usr/bin/env bash
# Issue 35, second part: YCSB with data larger than memory, for Basalt and RocksDB (the
# comparator's `rows` layout, the better one for YCSB), in one run. Each engine runs in a
# memory cgroup (cgroup v1 `memory`, which charges the page cache to the group) limited to
# LIMIT, so neither the block cache nor the operating system's page cache holds the data set:
# reads go to the disk. YCSB load, then A, B, C and E, reporting throughput and p99 latency.
#   scripts/bench-large.sh [records] [operations] [limit] [block cache]
#   defaults: 1000000 records (~1.2 GB of store files), 100000 operations, a 1 GiB limit,
#   128 MiB block cache
# DIRECT_READS=1 reads both engines' files with direct I/O (`pe --direct-reads`: Basalt's
# direct reads, RocksDB's use_direct_reads), around the page cache.
# Needs root (the cgroup) and Debian's librocksdb (installed here). Basalt sizes its memstore
# budget from the cgroup's limit (a quarter of it). Each engine runs in a process of its own
# (`pe ycsb`, `pe ycsb --rocksdb-only`): in one process the limit held both engines' caches
# and memtables, and a 512 MiB run thrashed.
set -euo pipefail
records=${1:-1000000}
operations=${2:-100000}
limit=${3:-$((1 << 30))}
cache=${4:-$((128 << 20))}
source "$(dirname "$0")/bench-rocksdb-common.sh"
data=$(mktemp -d -p "${BENCH_DIR:-/var/tmp}" basalt-large.XXXXXX)
group=/sys/fs/cgroup/memory/basalt-bench-$$
mkdir "$group"
echo "$limit" >"$group/memory.limit_in_bytes"
trap 'rmdir "$group" 2>/dev/null || true; rm -rf "$data"' EXIT
echo "== memory limit $((limit >> 20)) MiB, block cache $((cache >> 20)) MiB, $records records${DIRECT_READS:+, direct reads}"

# Runs one `basalt pe ycsb` inside the cgroup (a subshell that moves itself in first); the
# engine's peak resident set (GNU time's, over every run) goes to $data/peak-<engine>.
pe() {
  local engine=$1
  shift
  (echo $BASHPID >"$group/cgroup.procs"; exec /usr/bin/time -f %M -o "$data/rss" "$basalt" pe ycsb "$@")
  local peak=$(($(cat "$data/rss") >> 10))
  local before=$(cat "$data/peak-$engine" 2>/dev/null || echo 0)
  echo $((peak > before ? peak : before)) >"$data/peak-$engine"
}

# Each workload on each engine, each in a process of its own (so the limit holds one engine),
# the page cache dropped before each.
results=$data/results.jsonl
: >"$results"
for w in a b c e; do
  skip=(--skip-load)
  [ "$w" = a ] && skip=()
  common=(--dir "$data/ycsb" --json --block-cache "$cache" --block-size 4096 --workload "$w"
    "${skip[@]}" --records "$records" --operations "$operations" --threads 4)
  [ -n "${DIRECT_READS:-}" ] && common+=(--direct-reads)
  sync; echo 3 >/proc/sys/vm/drop_caches
  pe basalt "${common[@]}" | tee -a "$results" >/dev/null
  sync; echo 3 >/proc/sys/vm/drop_caches
  pe rocksdb "${common[@]}" --rocksdb-only --rocksdb-layout rows | tee -a "$results" >/dev/null
  echo "workload $w done: store files $(du -sh "$data/ycsb/data" | cut -f1) (Basalt; its oldWALs," \
    "kept ten minutes as HBase's are: $(du -sh "$data/ycsb/oldWALs" 2>/dev/null | cut -f1)), $(du -sh "$data/ycsb-rocksdb" | cut -f1) (RocksDB)"
done
# BENCH_RESULTS=FILE keeps the JSON lines (bench-scaling.sh reads them).
[ -n "${BENCH_RESULTS:-}" ] && cp "$results" "$BENCH_RESULTS"
echo "peak resident set: Basalt $(cat "$data/peak-basalt") MiB, RocksDB $(cat "$data/peak-rocksdb") MiB (limit $((limit >> 20)) MiB)"
python3 - "$results" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{") or '"compare"' in line:
        continue
    r = json.loads(line)
    key = (r["workload"], r["phase"])
    # The slowest operation type's p99 (READ, UPDATE, INSERT or SCAN).
    p99 = max((o["latency_us"]["p99"] for o in r.get("operations", [])), default=0)
    rows.setdefault(key, {})[r["backend"]] = (r["ops_per_second"], p99)
print(f"{'workload':<16} {'basalt ops/s':>12} {'p99 us':>8} {'rocksdb ops/s':>13} {'p99 us':>8} {'ratio':>6}")
for (w, phase), v in rows.items():
    if w != "workloada" and phase == "load":
        continue
    b, k = v.get("basalt", (0, 0)), v.get("rocksdb", (0, 0))
    ratio = b[0] / k[0] if k[0] else 0
    print(f"{w + ' ' + phase:<16} {b[0]:>12.0f} {b[1]:>8} {k[0]:>13.0f} {k[1]:>8} {ratio:>6.2f}")
PY
