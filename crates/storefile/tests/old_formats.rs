//! Store files written by earlier versions of the format still open and read the same. The
//! files under `tests/fixtures/` were written once by the writer of their version and are
//! kept as they are; each holds the cells [`cells`] makes, so every read is checked against
//! them: a whole walk, a seek to every row, and a reversed step from every row.
//!
//! `BASALT_WRITE_FIXTURES=1 cargo test -p basalt-storefile --test old_formats` writes the
//! current version's fixtures (once, when a version is new); the others are never rewritten.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::{BloomType, Cell, CellType, Compression};
use basalt_fs::{FileSystem, LocalFs};
use basalt_storefile::{BlockCache, CacheUse, StoreFileReader, StoreFileWriter, WriterOptions};

/// The fixtures' cells: 300 rows of one to twelve columns, some with several versions, delete
/// markers and TTLs, values from empty to 99 bytes, in store order.
fn cells() -> Vec<Cell> {
    let mut cells = Vec::new();
    for r in 0..300u32 {
        let row = format!("row-{:05}", r * 7);
        for q in 0..1 + r % 12 {
            let qualifier = format!("q{q:02}");
            let versions = if q % 5 == 0 { 3 } else { 1 };
            for v in 0..versions {
                let ts = 1_000_000 - i64::from(v) * 10;
                let kind = match (r + q + v) % 17 {
                    0 => CellType::DeleteColumn,
                    1 => CellType::Delete,
                    _ => CellType::Put,
                };
                let value = vec![b'a' + (r % 26) as u8; ((r * 13 + q * 7) % 100) as usize];
                let cell = Cell::new(
                    row.as_bytes(),
                    b"cf",
                    qualifier.as_bytes(),
                    ts,
                    kind,
                    &value,
                )
                .with_seq_id(u64::from(r * 100 + q * 3 + v + 1))
                .with_ttl_ms((q % 4 == 3).then_some(86_400_000));
                cells.push(cell);
            }
        }
    }
    cells
}

/// The fixtures of one version: a name and the options it was written with.
fn fixtures() -> Vec<(&'static str, WriterOptions)> {
    let opts = |compression, bloom, block_size, max_index_block| WriterOptions {
        family: "cf".into(),
        block_size,
        compression,
        bloom,
        bloom_prefix_len: 0,
        max_index_block,
        max_bloom_chunk: max_index_block,
        compacted_from: Vec::new(),
    };
    vec![
        // HBase's defaults: 64 KiB blocks, a row bloom.
        (
            "plain",
            opts(Compression::None, BloomType::Row, 64 * 1024, 64 * 1024),
        ),
        // Small blocks and index blocks: many data blocks under a three-level index.
        (
            "lz4-rowcol-small",
            opts(Compression::Lz4, BloomType::RowCol, 512, 256),
        ),
        (
            "zstd-nobloom",
            opts(Compression::Zstd, BloomType::None, 4096, 64 * 1024),
        ),
    ]
}

fn fixture_dir(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(version)
}

/// Writes the current writer's fixtures into `tests/fixtures/v<current>/`.
#[test]
fn write_current_fixtures_when_asked() {
    if std::env::var_os("BASALT_WRITE_FIXTURES").is_none() {
        return;
    }
    let dir = fixture_dir(&format!(
        "v{}.{}",
        basalt_storefile::FORMAT_MAJOR,
        basalt_storefile::FORMAT_MINOR
    ));
    let fs: Arc<dyn FileSystem> = Arc::new(LocalFs);
    fs.create_dir_all(&dir).unwrap();
    for (name, opts) in fixtures() {
        let mut w = StoreFileWriter::create(Arc::clone(&fs), &dir.join(name), opts).unwrap();
        for c in cells() {
            w.append(&c).unwrap();
        }
        w.finish().unwrap();
    }
}

/// Every fixture of every version reads as the cells it was written from.
#[test]
fn files_of_every_version_read_the_same() {
    let expected = cells();
    let versions = ["v1.0", "v1.1", "v1.2"];
    let fs = LocalFs;
    for version in versions {
        for (name, _) in fixtures() {
            let path = fixture_dir(version).join(name);
            let what = format!("{version}/{name}");
            let reader = StoreFileReader::open(&fs, &path)
                .unwrap_or_else(|e| panic!("{what} does not open: {e}"));
            assert_eq!(reader.info().cell_count, expected.len() as u64, "{what}");
            check_reads(&reader, &expected, &what);
            // Through a block cache that reads around the page cache (direct I/O).
            let cache = CacheUse {
                cache: Arc::new(BlockCache::new(1 << 20).with_direct_reads(true)),
                cache_blocks: true,
                in_memory: false,
            };
            let reader = StoreFileReader::open_with_cache(&fs, &path, Some(cache)).unwrap();
            check_reads(&reader, &expected, &format!("{what}, direct reads"));
        }
    }
}

fn check_reads(reader: &StoreFileReader, expected: &[Cell], what: &str) {
    let mut s = reader.scanner();
    s.seek(&Cell::first_on_row(b"")).unwrap();
    let mut walked = Vec::new();
    while let Some(c) = s.current() {
        walked.push(c.clone());
        s.advance().unwrap();
    }
    assert_eq!(walked.len(), expected.len(), "{what}: cells walked");
    for (got, want) in walked.iter().zip(expected) {
        assert_eq!(got, want, "{what}");
        assert_eq!(
            (got.seq_id, got.ttl_ms),
            (want.seq_id, want.ttl_ms),
            "{what}: {want}"
        );
    }
    for c in expected {
        assert!(
            reader.may_contain_column(c.row(), c.qualifier()),
            "{what}: the bloom of {c}"
        );
    }
    let mut rows: Vec<&[u8]> = expected.iter().map(|c| c.row()).collect();
    rows.dedup();
    for (i, row) in rows.iter().enumerate() {
        s.seek(&Cell::first_on_row(row)).unwrap();
        let first = expected.iter().find(|c| c.row() == *row).unwrap();
        assert_eq!(s.current(), Some(first), "{what}: seek to a row");
        assert!(reader.may_contain_row(row), "{what}: the bloom");
        let before = s.last_row_before(Bound::Excluded(row)).unwrap();
        let previous = i.checked_sub(1).map(|p| rows[p]);
        assert_eq!(before.as_deref(), previous, "{what}: the row before");
    }
    let last = s.last_row_before(Bound::Unbounded).unwrap();
    assert_eq!(
        last.as_deref(),
        rows.last().copied(),
        "{what}: the last row"
    );
}
