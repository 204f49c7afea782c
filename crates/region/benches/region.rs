//! Engine micro-benchmarks (issue 3): one-cell put into a region's memstore beside a bare
//! crossbeam `SkipMap` insert of the same keys, point get of an in-memory row, and a forward
//! scan. Run with `cargo bench -p basalt-region --bench region`; BENCHMARKS.md records results.

use std::sync::Arc;

use basalt_common::{Cell, ColumnFamilyDescriptor, Get, Put, Scan, SystemClock, TableDescriptor};
use basalt_fs::{FileSystem, MemFs};
use basalt_region::bench_support::MemStore;
use basalt_region::{Region, RegionConfig};
use bytes::Bytes;
use crossbeam_skiplist::SkipMap;

fn main() {
    divan::main();
}

/// Rows already in the structure before a put or get benchmark starts timing: a memstore that
/// fits in the CPU caches, and one that does not.
const SIZES: [usize; 2] = [10_000, 200_000];
/// Puts timed per benchmark: every sample inserts new keys, so both structures end equally big,
/// and the 10,000 timed inserts at most double the smaller structure.
const SAMPLES: u32 = 100;
const SAMPLE_SIZE: u32 = 100;
const VALUE: &[u8] = &[b'v'; 100];

/// YCSB-style row keys in a scrambled order, so inserts land all over the structure.
fn keys(n: usize) -> Vec<Bytes> {
    (0..n as u64)
        .map(|i| {
            let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31);
            Bytes::from(format!("user{h:020}"))
        })
        .collect()
}

fn region(families: &[&str]) -> Arc<Region> {
    let mut desc = TableDescriptor::named("bench").expect("name");
    // These benchmarks measure the in-memory path: keep the data in the memstore.
    desc.memstore_flushsize = 4 * 1024 * 1024 * 1024;
    for f in families {
        desc.add_family(ColumnFamilyDescriptor::new(f.as_bytes().to_vec()));
    }
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let config = RegionConfig::default();
    let dir = std::path::Path::new("/bench");
    let region = Region::open(
        basalt_common::RegionInfo::whole_table(desc.name.clone(), 1),
        desc,
        Arc::new(SystemClock),
        config,
        fs,
        dir,
    )
    .expect("region");
    Arc::new(region)
}

fn put_one(region: &Region, row: Bytes) {
    let put = Put::new(row).add_column("cf", "q", Bytes::from_static(VALUE));
    region.put(&put).expect("put");
}

#[divan::bench(args = SIZES, sample_count = SAMPLES, sample_size = SAMPLE_SIZE)]
fn region_put_one_cell(bencher: divan::Bencher<'_, '_>, preloaded: usize) {
    let region = region(&["cf"]);
    let all = keys(preloaded + (SAMPLES * SAMPLE_SIZE) as usize + 10_000);
    for k in &all[..preloaded] {
        put_one(&region, k.clone());
    }
    let mut next = preloaded;
    bencher.bench_local(|| {
        put_one(&region, all[next].clone());
        next += 1;
    });
}

#[divan::bench(args = SIZES, sample_count = SAMPLES, sample_size = SAMPLE_SIZE)]
fn memstore_insert_one_cell(bencher: divan::Bencher<'_, '_>, preloaded: usize) {
    let memstore = MemStore::new();
    let all = keys(preloaded + (SAMPLES * SAMPLE_SIZE) as usize + 10_000);
    let insert = |row: &Bytes, seq: u64| {
        let cell = Cell::new(row, b"cf", b"q", 1, basalt_common::CellType::Put, VALUE);
        memstore.insert(cell.with_seq_id(seq));
    };
    for (i, k) in all[..preloaded].iter().enumerate() {
        insert(k, i as u64);
    }
    let mut next = preloaded;
    bencher.bench_local(|| {
        insert(&all[next], next as u64);
        next += 1;
    });
}

#[divan::bench(args = SIZES, sample_count = SAMPLES, sample_size = SAMPLE_SIZE)]
fn bare_skipmap_insert(bencher: divan::Bencher<'_, '_>, preloaded: usize) {
    let map: SkipMap<Bytes, Bytes> = SkipMap::new();
    let all = keys(preloaded + (SAMPLES * SAMPLE_SIZE) as usize + 10_000);
    for k in &all[..preloaded] {
        map.insert(k.clone(), Bytes::from_static(VALUE));
    }
    let mut next = preloaded;
    bencher.bench_local(|| {
        map.insert(all[next].clone(), Bytes::from_static(VALUE));
        next += 1;
    });
}

#[divan::bench(args = SIZES, sample_count = SAMPLES, sample_size = SAMPLE_SIZE)]
fn region_get_row(bencher: divan::Bencher<'_, '_>, rows: usize) {
    let region = region(&["cf"]);
    let all = keys(rows);
    for k in &all {
        put_one(&region, k.clone());
    }
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7_919) % rows;
        let row = region.get(&Get::new(all[i].clone())).expect("get");
        assert_eq!(row.cells.len(), 1);
        row
    });
}

#[divan::bench(args = SIZES, sample_count = SAMPLES, sample_size = SAMPLE_SIZE)]
fn bare_skipmap_get(bencher: divan::Bencher<'_, '_>, rows: usize) {
    let map: SkipMap<Bytes, Bytes> = SkipMap::new();
    let all = keys(rows);
    for k in &all {
        map.insert(k.clone(), Bytes::from_static(VALUE));
    }
    let mut i = 0usize;
    bencher.bench_local(|| {
        i = (i + 7_919) % rows;
        map.get(&all[i]).map(|e| e.value().clone())
    });
}

const SCAN_ROWS: usize = 100_000;
const SCAN_COLUMNS: usize = 10;

/// Rows loaded in scrambled order (the skip list's nodes end up scattered in memory, the hard
/// case), or in key order (nodes laid out roughly as they are scanned).
const LOAD_ORDERS: [&str; 2] = ["random", "sequential"];

fn scan_keys(order: &str) -> Vec<Bytes> {
    let mut k = keys(SCAN_ROWS);
    if order == "sequential" {
        k.sort();
    }
    k
}

/// A full forward scan of 100,000 rows x 10 columns; throughput is in cells.
#[divan::bench(args = LOAD_ORDERS, sample_count = 10, sample_size = 1)]
fn region_scan(bencher: divan::Bencher<'_, '_>, order: &str) {
    let region = region(&["cf"]);
    for k in scan_keys(order) {
        let mut put = Put::new(k);
        for c in 0..SCAN_COLUMNS {
            put = put.add_column("cf", format!("field{c}"), Bytes::from_static(VALUE));
        }
        region.put(&put).expect("put");
    }
    bencher
        .counter(divan::counter::ItemsCount::new(SCAN_ROWS * SCAN_COLUMNS))
        .bench_local(|| {
            let mut cells = 0;
            for row in region.scan(&Scan::new()).expect("scan") {
                cells += row.expect("row").cells.len();
            }
            assert_eq!(cells, SCAN_ROWS * SCAN_COLUMNS);
            cells
        });
}

/// The same cells walked in a bare SkipMap, for the overhead ratio. It reads no key or value
/// bytes, only the entries, so it is a lower bound rather than a like-for-like reader.
#[divan::bench(args = LOAD_ORDERS, sample_count = 10, sample_size = 1)]
fn bare_skipmap_iterate(bencher: divan::Bencher<'_, '_>, order: &str) {
    let map: SkipMap<(Bytes, Bytes), Bytes> = SkipMap::new();
    for k in scan_keys(order) {
        for c in 0..SCAN_COLUMNS {
            map.insert(
                (k.clone(), Bytes::from(format!("field{c}"))),
                Bytes::from_static(VALUE),
            );
        }
    }
    bencher
        .counter(divan::counter::ItemsCount::new(SCAN_ROWS * SCAN_COLUMNS))
        .bench_local(|| {
            let mut n = 0;
            for e in map.iter() {
                n += e.value().len() / VALUE.len();
            }
            n
        });
}

/// Store files a scan merges: a flushed region's few, and many (a store compaction is
/// behind).
const FILES: [usize; 3] = [2, 8, 32];
const FILE_ROWS: usize = 32_000;
const FILE_COLUMNS: usize = 4;

/// A full forward scan of 32,000 rows x 4 columns spread over `files` store files, each row
/// in one file and neighbouring rows in different ones, so the merge changes source at every
/// row; throughput is in cells.
#[divan::bench(args = FILES, sample_count = 10, sample_size = 1)]
fn region_scan_files(bencher: divan::Bencher<'_, '_>, files: usize) {
    let region = region(&["cf"]);
    let mut rows = keys(FILE_ROWS);
    rows.sort();
    for file in 0..files {
        for row in rows.iter().skip(file).step_by(files) {
            let mut put = Put::new(row.clone());
            for c in 0..FILE_COLUMNS {
                put = put.add_column("cf", format!("field{c}"), Bytes::from_static(VALUE));
            }
            region.put(&put).expect("put");
        }
        region.flush().expect("flush");
    }
    bencher
        .counter(divan::counter::ItemsCount::new(FILE_ROWS * FILE_COLUMNS))
        .bench_local(|| {
            let mut cells = 0;
            for row in region.scan(&Scan::new()).expect("scan") {
                cells += row.expect("row").cells.len();
            }
            assert_eq!(cells, FILE_ROWS * FILE_COLUMNS);
            cells
        });
}
