//! The memstore-local allocation buffer (HBase's MSLAB): cells are copied into large chunks
//! as they enter a memstore.
//!
//! A cell's row, qualifier and value then sit side by side, and every cell of a chunk shares
//! one reference count, so reading a cell touches one or two cache lines instead of a separate
//! allocation per field plus one per reference count. It also means the memstore never pins a
//! caller's (possibly much larger) buffers. Cells larger than [`MAX_ALLOC`] bypass the chunks.

use std::sync::{Mutex, PoisonError};

use basalt_common::{Cell, CellType};
use bytes::{Bytes, BytesMut};

/// Bytes per chunk (`hbase.hregion.memstore.mslab.chunksize`).
const CHUNK_SIZE: usize = 2 * 1024 * 1024;
/// Larger cells get their own allocation (`hbase.hregion.memstore.mslab.max.allocation`).
const MAX_ALLOC: usize = 256 * 1024;

/// Chunks for one memstore.
#[derive(Debug, Default)]
pub struct Mslab {
    current: Mutex<BytesMut>,
}

impl Mslab {
    /// Copies `parts` one after the other into one contiguous region.
    pub fn copy_joined(&self, parts: &[&[u8]]) -> Bytes {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len > MAX_ALLOC {
            let mut own = BytesMut::with_capacity(len);
            parts.iter().for_each(|p| own.extend_from_slice(p));
            return own.freeze();
        }
        // A chunk is only appended to and split under this lock; a panic cannot leave it
        // inconsistent, so a poisoned lock is still usable.
        let mut chunk = self.current.lock().unwrap_or_else(PoisonError::into_inner);
        if chunk.capacity() - chunk.len() < len {
            *chunk = BytesMut::with_capacity(CHUNK_SIZE);
        }
        parts.iter().for_each(|p| chunk.extend_from_slice(p));
        chunk.split().freeze()
    }

    /// A cell of these coordinates and value, its bytes copied into the chunks in HBase's
    /// KeyValue order; `None` if a part exceeds the format (row 65535 bytes, family 255,
    /// qualifier 4 GiB).
    pub fn cell(
        &self,
        (row, family, qualifier): (&[u8], &[u8], &[u8]),
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Option<Cell> {
        let buf = self.copy_joined(&[row, family, qualifier, value]);
        Cell::from_buffer(
            buf,
            row.len(),
            family.len(),
            qualifier.len(),
            timestamp,
            cell_type,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_parts_and_spills_large_ones() {
        let slab = Mslab::default();
        let a = slab.copy_joined(&[b"row", b"q", b"value"]);
        let b = slab.copy_joined(&[b"row2", b""]);
        assert_eq!(&a[..], b"rowqvalue");
        assert_eq!(&b[..], b"row2");
        // Two small copies share a chunk: the second starts right after the first.
        assert_eq!(a.as_ptr().wrapping_add(a.len()), b.as_ptr());
        let big = vec![7u8; MAX_ALLOC + 1];
        assert_eq!(slab.copy_joined(&[&big]).len(), MAX_ALLOC + 1);
        let small = slab.copy_joined(&[b"small"]);
        assert_eq!(
            &small[..],
            b"small",
            "a large copy does not disturb the chunk"
        );
    }

    #[test]
    fn full_chunk_is_replaced() {
        let slab = Mslab::default();
        let value = vec![1u8; 200 * 1024];
        let copies: Vec<_> = (0..20).map(|_| slab.copy_joined(&[b"r", &value])).collect();
        assert!(copies.iter().all(|c| c[1..] == value[..]));
    }
}
