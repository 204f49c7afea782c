#!/usr/bin/env bash
# Issue 35, durable writes side by side: Basalt's group commit against RocksDB, same machine,
# same run, same rows (`basalt pe --compare-rocksdb sequentialWrite`, 100-byte values):
#   FSYNC_WAL with 1, 4, 16 and 64 writers against RocksDB with `sync=true` and the same
#   writers; SYNC_WAL (written to the OS, not synced) against RocksDB's unsynced WAL.
# Beside them, the machine's own figures for the data directory's disk: synced 4 KiB writes
# per second, appended and in place (`dd oflag=dsync`), and sequential write bandwidth
# (`dd oflag=direct`).
#   scripts/bench-durable.sh [rows per run]          (default 16000)
# Needs Debian's librocksdb (installed here, as scripts/bench-ycsb.sh does).
set -euo pipefail
rows=${1:-16000}
source "$(dirname "$0")/bench-rocksdb-common.sh"
data=$(mktemp -d -p "${TMPDIR:-/tmp}" basalt-durable.XXXXXX)
trap 'rm -rf "$data"' EXIT

echo "== the disk under $data"
rate() { awk -v what="$1" '{for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i-1); printf "%s: %.0f/s\n", what, 2000 / s}'; }
dd if=/dev/zero of="$data/dsync" bs=4k count=2000 oflag=dsync 2>&1 | tail -1 |
  rate "synced 4 KiB appends (the file grows, as RocksDB's WAL does)"
# Basalt's WAL writes into segments allocated up front: synced writes in place.
dd if=/dev/zero of="$data/inplace" bs=1M count=16 2>/dev/null
dd if=/dev/zero of="$data/inplace" bs=4k count=2000 conv=notrunc oflag=dsync 2>&1 | tail -1 |
  rate "synced 4 KiB writes in place (as into Basalt's preallocated WAL segments)"
rm -f "$data/inplace"
dd if=/dev/zero of="$data/direct" bs=1M count=256 oflag=direct 2>&1 | tail -1 |
  awk '{printf "sequential writes (O_DIRECT, 1 MiB): %s %s\n", $(NF-1), $NF}'
rm -f "$data/dsync" "$data/direct"

# One comparison: prints "durability writers basalt rocksdb basalt/rocksdb".
run() {
  local durability=$1 writers=$2 dir="$data/$1-$2"
  "$basalt" pe --dir "$dir" --compare-rocksdb --json --durability "$durability" \
    --value-size 100 --threads "$writers" --rows $((rows / writers)) sequentialWrite |
    python3 -c '
import json, sys
for line in sys.stdin:
    line = line.strip()
    if line.startswith("{") and "\"compare\"" in line:
        r = json.loads(line)
        b, k, q = r["basalt_ops_per_second"], r["rocksdb_ops_per_second"], r["ratio"]
        print(f"{sys.argv[1]:<10} {sys.argv[2]:>7} {b:>10.0f} {k:>10.0f} {q:>8.2f}")
' "$durability" "$writers"
  rm -rf "$dir" "$dir-rocksdb"
}
echo "== sequentialWrite, ops/s"
printf "%-10s %7s %10s %10s %8s\n" durability writers basalt rocksdb ratio
for w in 1 4 16 64; do run FSYNC_WAL "$w"; done
for w in 1 16; do run SYNC_WAL "$w"; done
