//! Entry points for the fuzz targets (`fuzz/`) and the stable-toolchain robustness test: each
//! feeds arbitrary bytes to one decoder, which must return an error or a value, never panic.

use std::path::Path;

use basalt_common::{Bytes, Cell};
use basalt_fs::{FileSystem, MemFs};

use crate::block::{self, BlockKind};
use crate::bloom::{BloomFilter, BloomIndex};
use crate::info::FileInfo;
use crate::key::decode_index_key;
use crate::reader::StoreFileReader;
use crate::trailer::Trailer;
use crate::{data_block, index};

/// A framed block of every kind.
pub fn block(bytes: &[u8]) {
    for kind in [
        BlockKind::Data,
        BlockKind::LeafIndex,
        BlockKind::RootIndex,
        BlockKind::Bloom,
        BlockKind::BloomIndex,
        BlockKind::Info,
    ] {
        let _ = block::decode(kind, &Bytes::copy_from_slice(bytes));
    }
}

/// A data block payload: walked whole, and searched in place.
pub fn data_block(bytes: &[u8]) {
    let _ = data_block::decode(bytes);
    let Ok(block) = data_block::DataBlock::new(Bytes::copy_from_slice(bytes)) else {
        return;
    };
    let mut cursor = data_block::BlockCursor::default();
    for row in [b"".as_slice(), b"row", b"\xff"] {
        if cursor.seek(&block, &Cell::first_on_row(row)).is_ok() {
            let _ = cursor.cell(&block);
            let _ = cursor.step(&block);
        }
        let _ = cursor.last_row_before(&block, Some(&Cell::last_on_row(row)));
        let _ = cursor.last_row_before(&block, None);
    }
}

/// An index block payload, the keys in it, and the entries as a reader holds a leaf (searched
/// for a few keys).
pub fn index(bytes: &[u8]) {
    if let Ok(entries) = index::decode(bytes) {
        for e in &entries {
            let _ = decode_index_key(&e.key);
        }
        if let Ok(part) = index::IndexPart::new(entries) {
            for row in [b"".as_slice(), b"row", b"\xff"] {
                let _ = part.count_before(&Cell::first_on_row(row), std::cmp::Ordering::is_le);
                let _ = part.count_before(&Cell::last_on_row(row), std::cmp::Ordering::is_lt);
            }
        }
    }
}

/// A trailer.
pub fn trailer(bytes: &[u8]) {
    let _ = Trailer::decode(bytes);
}

/// A file info payload, a bloom payload and a bloom index payload.
pub fn meta(bytes: &[u8]) {
    let _ = FileInfo::decode(bytes);
    if let Ok(bloom) = BloomFilter::decode(bytes) {
        let _ = bloom.may_contain_column(b"row", b"q");
    }
    if let Ok(index) = BloomIndex::decode(bytes) {
        for row in [b"".as_slice(), b"row", b"\xff"] {
            let _ = index.chunk_of(row);
        }
    }
}

/// A whole file: opened, then every cell read.
pub fn store_file(bytes: &[u8]) {
    let fs = MemFs::new();
    let path = Path::new("/fuzz/f");
    if fs.create_dir_all(Path::new("/fuzz")).is_err() {
        return;
    }
    let Ok(mut w) = fs.create(path) else { return };
    if w.append(bytes).is_err() {
        return;
    }
    drop(w);
    let Ok(reader) = StoreFileReader::open(&fs, path) else {
        return;
    };
    // The bloom filter (a chunked one reads its chunks), the mid key, a reversed step.
    for row in [b"".as_slice(), b"row", b"\xff"] {
        let _ = reader.may_contain_row(row);
        let _ = reader.may_contain_column(row, b"q");
        let _ = reader
            .scanner()
            .last_row_before(std::ops::Bound::Included(row));
    }
    let _ = reader.mid_key();
    let mut s = reader.scanner();
    if s.seek(&Cell::first_on_row(b"")).is_err() {
        return;
    }
    // A file holds at most as many cells as it has bytes; bound the walk anyway.
    for _ in 0..bytes.len() + 1 {
        if s.current().is_none() || s.advance().is_err() {
            return;
        }
    }
}
