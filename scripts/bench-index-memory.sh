#!/usr/bin/env bash
# Issue 43, item 3: the index and bloom bytes each engine keeps per GB of data. Loads YCSB's
# records into Basalt and the comparator's RocksDB (`rows` layout) with the same block size,
# then reads every store file's meta with `basalt hfile -m` and every SST's table properties
# with Debian's `sst_dump --show_properties`.
#   scripts/bench-index-memory.sh [records] [block size]    (defaults 1000000 and 4096)
# Basalt: what an open file keeps resident (the top of a partitioned index, a chunked bloom's
# index; a small file's whole index and bloom) and what its index and bloom blocks take on disk
# (what the block cache holds at most, as pinned meta blocks, once every leaf was read).
# RocksDB, as the comparator sets it up (cache_index_and_filter_blocks, one index block and
# one full filter per SST, pinned for level 0): its index and filter blocks, which live in
# its block cache whole.
set -euo pipefail
records=${1:-1000000}
block=${2:-4096}
source "$(dirname "$0")/bench-rocksdb-common.sh"
data=$(mktemp -d -p "${BENCH_DIR:-/var/tmp}" basalt-index.XXXXXX)
trap 'rm -rf "$data"' EXIT
echo "== loading $records records into both engines, $block-byte blocks"
"$basalt" pe ycsb --dir "$data/ycsb" --compare-rocksdb --rocksdb-layout rows --block-size "$block" \
  --workload c --records "$records" --operations 1000 --threads 1 --json >/dev/null

python3 - "$basalt" "$data" <<'PY'
import pathlib, re, subprocess, sys
basalt, data = sys.argv[1], pathlib.Path(sys.argv[2])
gb = 1e9
mib = float(1 << 20)

resident = disk_index = disk_bloom = size = files = 0
for f in sorted((data / "ycsb/data/default/usertable").glob("*/family/*")):
    out = subprocess.run([basalt, "hfile", "-m", str(f)], capture_output=True, text=True,
                         check=True).stdout
    r = re.search(r"Resident while open:\n\s+index=(\d+) bytes.*?, bloom=(\d+) bytes", out)
    d = re.search(r"On disk:\n\s+index=(\d+) bytes, bloom=(\d+) bytes, file=(\d+) bytes", out)
    resident += int(r[1]) + int(r[2])
    disk_index += int(d[1])
    disk_bloom += int(d[2])
    size += int(d[3])
    files += 1

props = subprocess.run(["sst_dump", f"--file={data / 'ycsb-rocksdb'}", "--show_properties"],
                       capture_output=True, text=True).stdout
def total(pattern):
    return sum(int(m) for m in re.findall(pattern, props))
r_data = total(r"data block size: (\d+)")
r_index = total(r"index block size \(.*?\): (\d+)")
r_filter = total(r"filter block size: (\d+)")
r_files = len(re.findall(r"data block size:", props))

def per_gb(n, of):
    return n / mib * gb / max(of, 1)

print(f"Basalt:  {files} store files, {size / 1e9:.2f} GB")
print(f"  resident while open:       {per_gb(resident, size):8.2f} MiB per GB")
print(f"  index blocks on disk:      {per_gb(disk_index, size):8.2f} MiB per GB"
      " (in the block cache as leaves are read; decoded, about twice that)")
print(f"  bloom blocks on disk:      {per_gb(disk_bloom, size):8.2f} MiB per GB")
print(f"RocksDB: {r_files} SSTs, {r_data / 1e9:.2f} GB of data blocks")
print(f"  index blocks:              {per_gb(r_index, r_data):8.2f} MiB per GB (in its block cache)")
print(f"  filter blocks:             {per_gb(r_filter, r_data):8.2f} MiB per GB (in its block cache)")
PY
