//! The RocksDB comparator (cargo feature `rocksdb`), in one of two layouts (`--rocksdb-layout`):
//!
//! - `cells`: the same rows as Basalt stores them, encoded as RocksDB keys `row (0x00 escaped
//!   as 0x00 0xFF) | 0x00 0x01 | u8 family length | family | qualifier | inverted timestamp
//!   (8 bytes, big-endian)`: keys sort by row as Basalt's rows do, a row's cells are
//!   adjacent, and each column's newest version comes first. A get is a prefix iteration
//!   bounded by the row (`prefix_same_as_start` and an upper bound), bloom filters on the row
//!   part of keys (a prefix extractor), as Basalt's ROW blooms are.
//! - `rows`: one key per row, its value the row's columns (`u8 family length | family | u16
//!   qualifier length | qualifier | u32 value length | value`, newest version only); a put
//!   writes the whole row, an update (YCSB's, one field) is a merge that overlays its columns
//!   on the row's (an associative merge operator), so it needs no read; a get is one `get`.
//!   Whole-key bloom filters.
//!
//! A put is one write batch (atomic per row, as in Basalt); the WAL follows the durability
//! asked for: off for SKIP_WAL, written for ASYNC_WAL and SYNC_WAL (RocksDB's default, which
//! survives a killed process), synced for FSYNC_WAL. Options as a RocksDB user would set them
//! for this machine: the block cache of Basalt's size holding index and filter blocks too (L0's
//! pinned), 10-bit blooms, two background jobs, a 128 MiB memtable (Basalt's flush size),
//! dynamic level sizes. Layout and options: docs/design/pe.md.

use std::path::Path;

use anyhow::{Context, Result};
use basalt_embedded::{Compression, Durability};

use super::{Backend, RowSpec};

/// How the comparator lays rows out (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RocksLayout {
    Cells,
    Rows,
}

pub struct Rocks {
    db: rocksdb::DB,
    write: rocksdb::WriteOptions,
    /// Made once: creating read options costs an allocation across the FFI per call.
    read: rocksdb::ReadOptions,
    layout: RocksLayout,
}

/// A row's columns, `rows` layout: (family, qualifier) -> value, in order.
type Columns = std::collections::BTreeMap<(Vec<u8>, Vec<u8>), Vec<u8>>;

fn encode_columns<'a>(columns: impl Iterator<Item = (&'a [u8], &'a [u8], &'a [u8])>) -> Vec<u8> {
    let mut out = Vec::new();
    for (f, q, v) in columns {
        out.push(f.len() as u8);
        out.extend_from_slice(f);
        out.extend_from_slice(&(q.len() as u16).to_be_bytes());
        out.extend_from_slice(q);
        out.extend_from_slice(&(v.len() as u32).to_be_bytes());
        out.extend_from_slice(v);
    }
    out
}

/// The columns of an encoded row, `(family, qualifier, value)`, without copying; stops at a
/// malformed tail (the comparator wrote every value itself).
fn columns(mut bytes: &[u8]) -> impl Iterator<Item = (&[u8], &[u8], &[u8])> {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
        let (head, tail) = (b.get(..n)?, b.get(n..)?);
        *b = tail;
        Some(head)
    }
    std::iter::from_fn(move || {
        let f_len = usize::from(*take(&mut bytes, 1)?.first()?);
        let f = take(&mut bytes, f_len)?;
        let q_len = take(&mut bytes, 2)?;
        let q = take(
            &mut bytes,
            usize::from(u16::from_be_bytes([q_len[0], q_len[1]])),
        )?;
        let v_len: [u8; 4] = take(&mut bytes, 4)?.try_into().ok()?;
        let v = take(&mut bytes, u32::from_be_bytes(v_len) as usize)?;
        Some((f, q, v))
    })
}

/// Decodes `bytes` into `into`, later columns replacing earlier ones.
fn decode_columns(bytes: &[u8], into: &mut Columns) {
    for (f, q, v) in columns(bytes) {
        into.insert((f.to_vec(), q.to_vec()), v.to_vec());
    }
}

/// The `rows` layout's merge: the operands' columns laid over the existing row's.
fn overlay(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    let mut columns = Columns::new();
    if let Some(e) = existing {
        decode_columns(e, &mut columns);
    }
    for op in operands.iter() {
        decode_columns(op, &mut columns);
    }
    Some(encode_columns(
        columns.iter().map(|((f, q), v)| (&f[..], &q[..], &v[..])),
    ))
}

/// The smallest key after every key starting with `prefix` (none if it is all 0xFF).
fn after_prefix(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// The row, escaped and terminated so that encodings sort as the rows do.
fn row_prefix(row: &[u8]) -> Vec<u8> {
    let mut k = Vec::with_capacity(row.len() + 2);
    for &b in row {
        k.push(b);
        if b == 0 {
            k.push(0xFF);
        }
    }
    k.extend_from_slice(&[0, 1]);
    k
}

fn cell_key(row: &[u8], family: &[u8], qualifier: &[u8], ts: i64) -> Vec<u8> {
    let mut k = row_prefix(row);
    k.push(family.len() as u8);
    k.extend_from_slice(family);
    k.extend_from_slice(qualifier);
    k.extend_from_slice(&(!(ts as u64)).to_be_bytes());
    k
}

/// The column part of a key (family length, family, qualifier), without the timestamp.
fn column_of(key: &[u8], prefix_len: usize) -> &[u8] {
    &key[prefix_len..key.len().saturating_sub(8)]
}

/// The encoded row (terminator included) a key starts with.
fn row_of(key: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    while i + 1 < key.len() {
        match (key[i], key[i + 1]) {
            (0, 1) => return Some(&key[..i + 2]),
            (0, _) => i += 2,
            _ => i += 1,
        }
    }
    None
}

/// The prefix extractor: a key's encoded row, so a row's lookups use the prefix bloom filter.
fn row_part(key: &[u8]) -> &[u8] {
    row_of(key).unwrap_or(key)
}

fn has_row(key: &[u8]) -> bool {
    row_of(key).is_some()
}

impl Rocks {
    pub fn open(
        dir: &Path,
        durability: Durability,
        compression: Compression,
        block_cache: u64,
        layout: RocksLayout,
        block_size: usize,
        direct_reads: bool,
    ) -> Result<Rocks> {
        let mut opts = rocksdb::Options::default();
        opts.set_use_direct_reads(direct_reads);
        opts.create_if_missing(true);
        opts.set_max_background_jobs(2);
        opts.set_write_buffer_size(128 << 20);
        opts.set_level_compaction_dynamic_level_bytes(true);
        opts.set_bytes_per_sync(1 << 20);
        opts.set_compression_type(match compression {
            Compression::Snappy => rocksdb::DBCompressionType::Snappy,
            Compression::Lz4 => rocksdb::DBCompressionType::Lz4,
            Compression::Zstd => rocksdb::DBCompressionType::Zstd,
            Compression::Gz => rocksdb::DBCompressionType::Zlib,
            _ => rocksdb::DBCompressionType::None,
        });
        let mut table = rocksdb::BlockBasedOptions::default();
        let cache =
            rocksdb::Cache::new_lru_cache(usize::try_from(block_cache).unwrap_or(usize::MAX))
                .context("creating RocksDB's block cache")?;
        table.set_block_cache(&cache);
        table.set_cache_index_and_filter_blocks(true);
        table.set_pin_l0_filter_and_index_blocks_in_cache(true);
        table.set_format_version(5);
        table.set_block_size(block_size);
        table.set_bloom_filter(10.0, false);
        match layout {
            RocksLayout::Cells => {
                // Bloom filters on the row part of keys (a get reads one row: several keys).
                table.set_whole_key_filtering(false);
                opts.set_prefix_extractor(rocksdb::SliceTransform::create(
                    "basalt-row",
                    row_part,
                    Some(has_row),
                ));
                opts.set_memtable_prefix_bloom_ratio(0.1);
            }
            RocksLayout::Rows => {
                table.set_whole_key_filtering(true);
                opts.set_merge_operator_associative("basalt-row-overlay", overlay);
            }
        }
        opts.set_block_based_table_factory(&table);
        let db = rocksdb::DB::open(&opts, dir)
            .with_context(|| format!("opening RocksDB in {}", dir.display()))?;
        let mut write = rocksdb::WriteOptions::default();
        write.disable_wal(durability == Durability::SkipWal);
        write.set_sync(durability == Durability::FsyncWal);
        Ok(Rocks {
            db,
            write,
            read: rocksdb::ReadOptions::default(),
            layout,
        })
    }
}

impl Backend for Rocks {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        for (row, cells) in rows {
            let mut batch = rocksdb::WriteBatch::default();
            match self.layout {
                RocksLayout::Cells => {
                    for (f, q, v) in cells {
                        batch.put(cell_key(row, f, q, ts), v);
                    }
                }
                RocksLayout::Rows => batch.put(
                    row,
                    encode_columns(cells.iter().map(|(f, q, v)| (&f[..], &q[..], &v[..]))),
                ),
            }
            self.db.write_opt(batch, &self.write)?;
        }
        Ok(())
    }

    /// Rows layout: the columns are merged into the row (no read); cells layout: a put.
    fn update(&self, rows: &[RowSpec]) -> Result<()> {
        if self.layout == RocksLayout::Cells {
            return self.put(rows);
        }
        for (row, cells) in rows {
            let columns = encode_columns(cells.iter().map(|(f, q, v)| (&f[..], &q[..], &v[..])));
            self.db.merge_opt(row, columns, &self.write)?;
        }
        Ok(())
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        if self.layout == RocksLayout::Rows {
            let Some(value) = self.db.get_pinned_opt(row, &self.read)? else {
                return Ok(0);
            };
            return Ok(columns(&value).count());
        }
        let prefix = row_prefix(row);
        let mut read = rocksdb::ReadOptions::default();
        read.set_prefix_same_as_start(true);
        if let Some(end) = after_prefix(&prefix) {
            read.set_iterate_upper_bound(end);
        }
        let mut it = self.db.raw_iterator_opt(read);
        it.seek(&prefix);
        let mut cells = 0;
        let mut last_column: Option<Vec<u8>> = None;
        while let Some(key) = it.key() {
            if !key.starts_with(&prefix) {
                break;
            }
            // Newest version of each column only.
            let column = column_of(key, prefix.len());
            if last_column.as_deref() != Some(column) {
                cells += 1;
                last_column = Some(column.to_vec());
            }
            it.next();
        }
        it.status()?;
        Ok(cells)
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        let mut read = rocksdb::ReadOptions::default();
        read.set_total_order_seek(true);
        if self.layout == RocksLayout::Rows {
            let mut it = self.db.raw_iterator_opt(read);
            it.seek(start);
            let mut seen = 0;
            while seen < rows && it.valid() {
                // The value is read, as a scan returning cells would.
                let _ = it.value();
                seen += 1;
                it.next();
            }
            it.status()?;
            return Ok(seen);
        }
        let mut it = self.db.raw_iterator_opt(read);
        it.seek(row_prefix(start));
        let mut seen = 0;
        let mut last_row: Option<Vec<u8>> = None;
        while let Some(key) = it.key() {
            let Some(row) = row_of(key) else { break };
            if last_row.as_deref() != Some(row) {
                if seen == rows {
                    break;
                }
                seen += 1;
                last_row = Some(row.to_vec());
            }
            // The values are read, as a scan returning cells would.
            let _ = it.value();
            it.next();
        }
        it.status()?;
        Ok(seen)
    }

    fn increment(&self, _row: &[u8], _family: &[u8], _qualifier: &[u8]) -> Result<i64> {
        anyhow::bail!(
            "increment is not compared with RocksDB yet (it needs a merge operator to be fair)"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_embedded::Bytes;

    #[test]
    fn encoded_rows_sort_as_rows() {
        let rows: [&[u8]; 6] = [b"", b"\x00", b"a", b"a\x00", b"a\x00b", b"ab"];
        for w in rows.windows(2) {
            let (a, b) = (cell_key(w[0], b"f", b"q", 5), cell_key(w[1], b"f", b"q", 5));
            assert!(a < b, "{:?} {:?}", w[0], w[1]);
            assert_eq!(row_of(&a), Some(&row_prefix(w[0])[..]));
        }
        // Newer versions first.
        assert!(cell_key(b"r", b"f", b"q", 9) < cell_key(b"r", b"f", b"q", 5));
        assert_eq!(after_prefix(b"a\x00\x01"), Some(b"a\x00\x02".to_vec()));
        assert_eq!(after_prefix(b"\xff"), None);
    }

    #[test]
    fn rows_overlay_their_columns() {
        let dir = tempfile::tempdir().expect("dir");
        let db = Rocks::open(
            dir.path(),
            Durability::SyncWal,
            Compression::None,
            1 << 20,
            RocksLayout::Rows,
            4096,
            false,
        )
        .expect("open");
        let cells = |pairs: &[(&str, &str)]| -> Vec<(Bytes, Bytes, Bytes)> {
            pairs
                .iter()
                .map(|(q, v)| {
                    (
                        Bytes::from("f"),
                        Bytes::from(q.to_string()),
                        Bytes::from(v.to_string()),
                    )
                })
                .collect()
        };
        db.put(&[(Bytes::from("r"), cells(&[("a", "1"), ("b", "2")]))])
            .expect("put");
        db.update(&[(Bytes::from("r"), cells(&[("b", "3"), ("c", "4")]))])
            .expect("update");
        assert_eq!(db.get(b"r").expect("get"), 3);
        let value = db.db.get(b"r").expect("get").expect("row");
        let mut columns = Columns::new();
        decode_columns(&value, &mut columns);
        assert_eq!(
            columns.get(&(b"f".to_vec(), b"b".to_vec())),
            Some(&b"3".to_vec())
        );
        assert_eq!(db.get(b"nope").expect("get"), 0);
        db.put(&[(Bytes::from("s"), cells(&[("a", "1")]))])
            .expect("put");
        assert_eq!(db.scan(b"", 10).expect("scan"), 2);
    }
}
