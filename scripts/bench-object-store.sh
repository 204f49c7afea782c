#!/usr/bin/env bash
# Issue 35, fourth part: gets and scans with store files on an object store against the
# local disk, one run. The store is s3rver (npm, installed here into target/s3rver), an
# S3-compatible server on this machine that keeps objects as files; so the figures are the
# cost of the S3 API's round trips (HTTP, signing, one Node.js process answering), not of a
# network. (Not moto, which the tests use: its ranged GET copies the whole object, so its
# cost grows with the store file's size.) For each backend: `basalt pe sequentialWrite` fills
# a table (flushed to store files when the process closes the engine), then randomRead and
# scanRange100 over the whole table, each in a fresh process, once with the block cache off
# (every block read from the store or the disk), and twice in one process with a cache that
# holds the table: the first run fills the cache, the second reads from it (these two with
# ten times the operations). The page cache
# is dropped before every process (when run as root) so the local disk is read too.
#   scripts/bench-object-store.sh [rows] [reads] [scans]
#   defaults: 40000 rows of 1000 bytes (~40 MB), 20000 gets, 2000 scans (x10 with the
#   cache); 2 threads
set -euo pipefail
rows=${1:-40000}
reads=${2:-20000}
scans=${3:-2000}
threads=2
# The store is reached through the cargo feature `object-store`.
BASALT_FEATURES=object-store
source "$(dirname "$0")/bench-common.sh"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
s3rver="$root/target/s3rver"
if [ ! -x "$s3rver/node_modules/.bin/s3rver" ]; then
    command -v npm >/dev/null || { apt-get update -qq && apt-get install -y -qq npm; }
    mkdir -p "$s3rver"
    npm install --silent --no-audit --no-fund --prefix "$s3rver" s3rver@3.7.1
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$work/s3"
"$s3rver/node_modules/.bin/s3rver" -d "$work/s3" -a 127.0.0.1 -p "$port" \
    --configure-bucket basalt >"$work/s3rver.log" 2>&1 &
server=$!
for _ in $(seq 100); do
    curl -sf "http://127.0.0.1:$port/" >/dev/null && break
    sleep 0.1
done
# s3rver checks signatures against its one built-in key.
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
url="s3://basalt/bench?endpoint=http://127.0.0.1:$port&delete_delay=0"
echo "== S3 server (s3rver) on port $port; $rows rows x 1000 bytes, $threads threads"

drop_caches() { sync; [ "$(id -u)" = 0 ] && echo 3 >/proc/sys/vm/drop_caches || true; }
results=$work/results.jsonl
: >"$results"
pe() { # backend "label|label..." pe-args...: one label per command, in order
    local backend=$1 labels=$2; shift 2
    local flags=(--dir "$work/$backend" --threads "$threads" --value-size 1000 --json)
    [ "$backend" = s3 ] && flags+=(--object-store "$url")
    drop_caches
    "$basalt" pe "${flags[@]}" "$@" | grep '^{' |
        python3 -c '
import json, sys
for line, label in zip(sys.stdin, sys.argv[2].split("|")):
    r = json.loads(line); r["store"] = sys.argv[1]; r["label"] = label; print(json.dumps(r))' \
            "$backend" "$labels" >>"$results"
}
space=(--key-space "$rows")
for backend in local s3; do
    pe "$backend" "write (memstore and WAL)" --rows $((rows / threads)) sequentialWrite
    # Every read a block read: no block cache.
    pe "$backend" "get, no block cache" --block-cache 0 "${space[@]}" \
        --rows $((reads / threads)) randomRead
    pe "$backend" "scan 100, no block cache" --block-cache 0 "${space[@]}" \
        --rows $((scans / threads)) scanRange100
    # A cache that holds the table: the first run fills it, the second reads it; ten times
    # the operations, so that the second lasts long enough to measure.
    pe "$backend" "get, cache filling|get, cache full" --block-cache $((256 << 20)) \
        "${space[@]}" --rows $((10 * reads / threads)) randomRead randomRead
    pe "$backend" "scan 100, cache filling|scan 100, cache full" --block-cache $((256 << 20)) \
        "${space[@]}" --rows $((10 * scans / threads)) scanRange100 scanRange100
    echo "$backend: data/ $(du -sm "$work/$backend/data" | cut -f1) MB and WALs/" \
        "$(du -sm "$work/$backend/WALs" | cut -f1) MB on the data directory"
done
echo "s3rver holds $(du -sm "$work/s3" | cut -f1) MB"
python3 - "$results" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows.setdefault(r["label"], {})[r["store"]] = r
print(f"{'operation':<26} {'local ops/s':>11} {'p99 us':>8} {'S3 ops/s':>9} {'p99 us':>8} {'S3/local':>8}")
for label, v in rows.items():
    l, s = v.get("local"), v.get("s3")
    if not l or not s:
        continue
    p99 = lambda r: r.get("latency_us", {}).get("p99", 0)
    print(f"{label:<26} {l['ops_per_second']:>11.0f} {p99(l):>8} {s['ops_per_second']:>9.0f} {p99(s):>8} {s['ops_per_second'] / l['ops_per_second']:>8.2f}")
PY
