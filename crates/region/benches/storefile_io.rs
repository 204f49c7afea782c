//! Store file benchmarks (issue 4): flush throughput beside the disk's own sequential write
//! bandwidth, and point gets and scans served from store files through a warm block cache.
//! Run with `cargo bench -p basalt-region --bench storefile_io`; BENCHMARKS.md records results.

use std::io::Write;
use std::sync::Arc;

use basalt_common::{Get, Put, Scan};
use basalt_fs::{FileSystem, LocalFs};
use basalt_region::Region;
use bytes::Bytes;

#[path = "support/flush_data.rs"]
mod flush_data;

use flush_data::{FLUSH_BYTES, FLUSH_CELLS, VALUE, region, row};

fn main() {
    divan::main();
}

/// Times `write_file`, which writes `FLUSH_BYTES` in 1 MiB pieces to a new file at the path
/// it is given and syncs it.
fn time_disk_write(
    bencher: divan::Bencher<'_, '_>,
    write_file: impl Fn(&std::path::Path, &[u8], usize),
) {
    let dir = tempfile::tempdir().expect("temp dir");
    let piece = vec![7u8; 1 << 20];
    let mut n = 0;
    bencher
        .counter(divan::counter::BytesCount::new(FLUSH_BYTES))
        .bench_local(|| {
            n += 1;
            write_file(
                &dir.path().join(format!("f{n}")),
                &piece,
                FLUSH_BYTES / piece.len(),
            );
        });
}

/// The disk's sequential write bandwidth: 64 MiB through a buffered file, then fsync.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn disk_sequential_write(bencher: divan::Bencher<'_, '_>) {
    time_disk_write(bencher, |path, piece, pieces| {
        let file = std::fs::File::create(path).expect("create");
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, file);
        for _ in 0..pieces {
            out.write_all(piece).expect("write");
        }
        out.into_inner().expect("flush").sync_data().expect("sync");
    });
}

/// The disk's sequential write bandwidth around the page cache: 64 MiB in 1 MiB appends to a
/// file from `LocalFs::create_bulk` (direct I/O, as store files are written), then sync.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn disk_sequential_write_direct(bencher: divan::Bencher<'_, '_>) {
    time_disk_write(bencher, |path, piece, pieces| {
        let mut out = LocalFs.create_bulk(path).expect("create");
        for _ in 0..pieces {
            out.append(piece).expect("write");
        }
        out.sync().expect("sync");
    });
}

/// A flush of a memstore holding about 64 MiB of cells (key and value bytes), to local disk.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn flush_64mib(bencher: divan::Bencher<'_, '_>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let region = region(dir.path(), 64 << 20, 64 * 1024);
    let mut next = 0u64;
    bencher
        .counter(divan::counter::BytesCount::new(FLUSH_BYTES))
        .with_inputs(|| {
            for _ in 0..FLUSH_CELLS {
                region
                    .put(&Put::new(row(next)).add_column("cf", "q", Bytes::from_static(VALUE)))
                    .expect("put");
                next += 1;
            }
        })
        .bench_local_values(|()| region.flush().expect("flush"));
}

const FILE_ROWS: u64 = 200_000;

fn flushed_region(dir: &std::path::Path, columns: usize, block_size: u32) -> Region {
    let region = region(dir, 1 << 30, block_size);
    for i in 0..FILE_ROWS {
        let mut put = Put::new(row(i));
        for c in 0..columns {
            put = put.add_column("cf", format!("field{c}"), Bytes::from_static(VALUE));
        }
        region.put(&put).expect("put");
    }
    region.flush().expect("flush");
    // Warm the block cache.
    let region = Arc::new(region);
    let n = region.scan(&Scan::new()).expect("scan").count();
    assert_eq!(n as u64, FILE_ROWS);
    Arc::try_unwrap(region).expect("sole owner")
}

/// A random point get of a one-cell row, served from a store file through a warm block cache:
/// with 64 KiB blocks (a few hundred), and with 4 KiB blocks (about 7,000: the index of a
/// 64 KiB-block file of 450 MB).
#[divan::bench(sample_count = 50, sample_size = 1000, args = [65536, 4096])]
fn get_from_store_file(bencher: divan::Bencher<'_, '_>, block_size: u32) {
    let dir = tempfile::tempdir().expect("temp dir");
    let region = flushed_region(dir.path(), 1, block_size);
    let mut i = 0u64;
    bencher.bench_local(|| {
        i = (i + 7_919) % FILE_ROWS;
        let r = region.get(&Get::new(row(i))).expect("get");
        assert_eq!(r.cells.len(), 1);
        r
    });
}

/// A full scan of 200,000 rows x 5 columns from a store file through a warm block cache.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn scan_from_store_file(bencher: divan::Bencher<'_, '_>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let region = Arc::new(flushed_region(dir.path(), 5, 64 * 1024));
    bencher
        .counter(divan::counter::ItemsCount::new(FILE_ROWS as usize * 5))
        .bench_local(|| {
            let mut cells = 0;
            for r in region.scan(&Scan::new()).expect("scan") {
                cells += r.expect("row").cells.len();
            }
            cells
        });
}
