//! File size against the raw key and value bytes written, per compression codec.
//!
//! `cargo run --release -p basalt-storefile --example codec_sizes`
//!
//! The cells are YCSB-like: 100,000 rows `user` + 20 digits, 10 fields each, 100-byte values
//! of printable text (as YCSB's generator makes them, so they compress somewhat).

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use basalt_common::{BloomType, Cell, Compression};
use basalt_fs::{FileSystem, LocalFs};
use basalt_storefile::{StoreFileReader, StoreFileWriter, WriterOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("basalt-codec-sizes-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mut cells = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in 0..100_000u64 {
        let row = format!("user{:020}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 1);
        for f in 0..10 {
            let value: Vec<u8> = (0..100)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    b' ' + (state % 95) as u8
                })
                .collect();
            cells.push(
                Cell::put(
                    row.as_bytes(),
                    b"family",
                    format!("field{f}").as_bytes(),
                    1,
                    &value,
                )
                .with_seq_id(1),
            );
        }
    }
    cells.sort_by(basalt_common::cell::compare_in_store);
    let raw: usize = cells
        .iter()
        .map(|c| c.row().len() + c.family().len() + c.qualifier().len() + 9 + c.value().len())
        .sum();
    println!(
        "{} cells, {:.1} MiB of raw key and value bytes\n",
        cells.len(),
        raw as f64 / 1048576.0
    );
    println!(
        "{:<8} {:>12} {:>10} {:>12} {:>12}",
        "codec", "file MiB", "file/raw", "write MB/s", "scan Mcell/s"
    );
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    for compression in [
        Compression::None,
        Compression::Lz4,
        Compression::Snappy,
        Compression::Zstd,
        Compression::Gz,
    ] {
        let path = dir.join(compression.as_str());
        let opts = WriterOptions {
            family: "family".into(),
            block_size: 64 * 1024,
            compression,
            bloom: BloomType::Row,
            bloom_prefix_len: 0,
            max_index_block: 64 * 1024,
            max_bloom_chunk: 128 * 1024,
            compacted_from: Vec::new(),
        };
        let started = Instant::now();
        let mut w = StoreFileWriter::create(Arc::clone(&fs), &path, opts)?;
        for c in &cells {
            w.append(c)?;
        }
        w.finish()?;
        let write_secs = started.elapsed().as_secs_f64();
        let size = std::fs::metadata(&path)?.len();
        let started = Instant::now();
        let scanned = scan(&path)?;
        let scan_secs = started.elapsed().as_secs_f64();
        assert_eq!(scanned, cells.len());
        println!(
            "{:<8} {:>12.1} {:>10.3} {:>12.0} {:>12.2}",
            compression.as_str(),
            size as f64 / 1048576.0,
            size as f64 / raw as f64,
            raw as f64 / write_secs / 1e6,
            scanned as f64 / scan_secs / 1e6
        );
    }
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

/// Reads every cell (no block cache: every block decoded once).
fn scan(path: &Path) -> Result<usize, Box<dyn std::error::Error>> {
    let reader = StoreFileReader::open(&LocalFs, path)?;
    let mut s = reader.scanner();
    s.seek(&Cell::first_on_row(b""))?;
    let mut n = 0;
    while s.current().is_some() {
        n += 1;
        s.advance()?;
    }
    Ok(n)
}
