//! The RocksDB comparator (cargo feature `rocksdb`): the same rows as Basalt stores them,
//! encoded as RocksDB keys `row (0x00 escaped as 0x00 0xFF) | 0x00 0x01 | u8 family length |
//! family | qualifier | inverted timestamp (8 bytes, big-endian)`: keys sort by row as
//! Basalt's rows do, a row's cells are adjacent, and each column's newest version comes
//! first. A put is one write batch (atomic per row, as in
//! Basalt); the WAL follows the durability asked for: off for SKIP_WAL, written for
//! ASYNC_WAL and SYNC_WAL (RocksDB's default, which survives a killed process), synced for
//! FSYNC_WAL. The block cache gets the same size as Basalt's, and bloom filters are built on
//! the row part of keys (a prefix extractor), as Basalt's ROW blooms are.

use std::path::Path;

use anyhow::{Context, Result};
use basalt_client::{Compression, Durability};

use super::{Backend, RowSpec};

pub struct Rocks {
    db: rocksdb::DB,
    write: rocksdb::WriteOptions,
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
    ) -> Result<Rocks> {
        let mut opts = rocksdb::Options::default();
        opts.create_if_missing(true);
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
        // Bloom filters on the row part of keys (a get reads one row: several keys).
        table.set_bloom_filter(10.0, false);
        table.set_whole_key_filtering(false);
        opts.set_block_based_table_factory(&table);
        opts.set_prefix_extractor(rocksdb::SliceTransform::create(
            "basalt-row",
            row_part,
            Some(has_row),
        ));
        opts.set_memtable_prefix_bloom_ratio(0.1);
        let db = rocksdb::DB::open(&opts, dir)
            .with_context(|| format!("opening RocksDB in {}", dir.display()))?;
        let mut write = rocksdb::WriteOptions::default();
        write.disable_wal(durability == Durability::SkipWal);
        write.set_sync(durability == Durability::FsyncWal);
        Ok(Rocks { db, write })
    }
}

impl Backend for Rocks {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        for (row, cells) in rows {
            let mut batch = rocksdb::WriteBatch::default();
            for (f, q, v) in cells {
                batch.put(cell_key(row, f, q, ts), v);
            }
            self.db.write_opt(batch, &self.write)?;
        }
        Ok(())
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        let prefix = row_prefix(row);
        let mut read = rocksdb::ReadOptions::default();
        read.set_prefix_same_as_start(true);
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
    }
}
