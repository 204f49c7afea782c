//! Store file encoding without a disk (issue 4's flush target): how fast one core turns
//! sorted cells into framed data blocks, and a whole file written to memory, bloom and
//! index included. Run with `cargo bench -p basalt-storefile --bench encode`.

use std::path::Path;
use std::sync::Arc;

use basalt_common::{BloomType, Cell, ColumnFamilyDescriptor};
use basalt_fs::{FileSystem, MemFs};
use basalt_storefile::{StoreFileWriter, WriterOptions};

fn main() {
    divan::main();
}

/// About 64 MiB of key and value bytes: the flush benchmark's memstore.
const CELLS: usize = 64 * 1024 * 1024 / (24 + 2 + 1 + 9 + 12 + 100);

/// One-cell rows `user` + 20 digits with 100-byte values, in key order.
fn cells() -> Vec<Cell> {
    let value = [b'v'; 100];
    (0..CELLS)
        .map(|i| {
            let row = format!("user{:020}", i * 7919);
            Cell::put(row.as_bytes(), b"cf", b"q", 1_700_000_000_000, &value).with_seq_id(i as u64)
        })
        .collect()
}

fn options(bloom: BloomType) -> WriterOptions {
    let mut opts = WriterOptions::for_family(&ColumnFamilyDescriptor::new("cf"));
    opts.bloom = bloom;
    opts
}

fn writer(fs: &Arc<dyn FileSystem>, n: usize, bloom: BloomType) -> StoreFileWriter {
    StoreFileWriter::create(Arc::clone(fs), Path::new(&format!("/f{n}")), options(bloom))
        .expect("writer")
}

/// Every cell appended to one part (in memory, as a flush thread encodes a key range).
#[divan::bench(sample_count = 5, sample_size = 1, args = [BloomType::Row, BloomType::None])]
fn encode_part(bencher: divan::Bencher<'_, '_>, bloom: BloomType) {
    let cells = cells();
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let writer = writer(&fs, 0, bloom);
    bencher
        .counter(divan::counter::ItemsCount::new(CELLS))
        .bench_local(|| {
            let mut part = writer.part();
            for cell in &cells {
                part.append(cell).expect("append");
            }
            part
        });
}

/// A whole file written to a memory file system: data blocks, bloom, index, info, trailer.
#[divan::bench(sample_count = 5, sample_size = 1)]
fn write_file(bencher: divan::Bencher<'_, '_>) {
    let cells = cells();
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    let mut n = 0;
    bencher
        .counter(divan::counter::ItemsCount::new(CELLS))
        .bench_local(|| {
            n += 1;
            let mut w = writer(&fs, n, BloomType::Row);
            for cell in &cells {
                w.append(cell).expect("append");
            }
            w.finish().expect("finish");
            fs.delete(Path::new(&format!("/f{n}"))).expect("delete");
        });
}
