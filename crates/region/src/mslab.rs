//! The memstore-local allocation buffer (HBase's MSLAB): cells are copied into large chunks
//! as they enter a memstore.
//!
//! A cell's row, qualifier and value then sit side by side, and every cell of a chunk shares
//! one reference count, so reading a cell touches one or two cache lines instead of a separate
//! allocation per field plus one per reference count. It also means the memstore never pins a
//! caller's (possibly much larger) buffers. Cells larger than [`MAX_ALLOC`] bypass the chunks.

use std::sync::{Mutex, PoisonError};

use bytes::{Bytes, BytesMut};

/// Bytes per chunk (`hbase.hregion.memstore.mslab.chunksize`).
const CHUNK_SIZE: usize = 2 * 1024 * 1024;
/// Larger cells get their own allocation (`hbase.hregion.memstore.mslab.max.allocation`).
const MAX_ALLOC: usize = 256 * 1024;

/// A cell's fields copied next to each other.
#[derive(Debug)]
pub struct CopiedCell {
    pub row: Bytes,
    pub qualifier: Bytes,
    pub value: Bytes,
}

/// Chunks for one memstore.
#[derive(Debug, Default)]
pub struct Mslab {
    current: Mutex<BytesMut>,
}

impl Mslab {
    /// Copies `row`, `qualifier` and `value` into one contiguous region.
    pub fn copy(&self, row: &[u8], qualifier: &[u8], value: &[u8]) -> CopiedCell {
        let len = row.len() + qualifier.len() + value.len();
        let mut buf = if len > MAX_ALLOC {
            BytesMut::with_capacity(len)
        } else {
            // A chunk is only appended to and split under this lock; a panic cannot leave it
            // inconsistent, so a poisoned lock is still usable.
            let mut chunk = self.current.lock().unwrap_or_else(PoisonError::into_inner);
            if chunk.capacity() - chunk.len() < len {
                *chunk = BytesMut::with_capacity(CHUNK_SIZE);
            }
            chunk.extend_from_slice(row);
            chunk.extend_from_slice(qualifier);
            chunk.extend_from_slice(value);
            chunk.split()
        };
        if len > MAX_ALLOC {
            buf.extend_from_slice(row);
            buf.extend_from_slice(qualifier);
            buf.extend_from_slice(value);
        }
        let all = buf.freeze();
        let q_start = row.len();
        let v_start = q_start + qualifier.len();
        CopiedCell {
            row: all.slice(..q_start),
            qualifier: all.slice(q_start..v_start),
            value: all.slice(v_start..),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_fields_and_spills_large_cells() {
        let slab = Mslab::default();
        let a = slab.copy(b"row", b"q", b"value");
        let b = slab.copy(b"row2", b"", b"");
        assert_eq!(
            (&a.row[..], &a.qualifier[..], &a.value[..]),
            (&b"row"[..], &b"q"[..], &b"value"[..])
        );
        assert_eq!(
            (&b.row[..], b.qualifier.len(), b.value.len()),
            (&b"row2"[..], 0, 0)
        );
        // Two small cells share a chunk: the second starts right after the first.
        assert_eq!(a.value.as_ptr().wrapping_add(5), b.row.as_ptr());
        let big = vec![7u8; MAX_ALLOC + 1];
        let c = slab.copy(b"r", b"q", &big);
        assert_eq!(c.value.len(), MAX_ALLOC + 1);
        let d = slab.copy(b"r", b"q", b"small");
        assert_eq!(
            &d.value[..],
            b"small",
            "a large cell does not disturb the chunk"
        );
    }

    #[test]
    fn full_chunk_is_replaced() {
        let slab = Mslab::default();
        let value = vec![1u8; 200 * 1024];
        let cells: Vec<_> = (0..20).map(|_| slab.copy(b"r", b"q", &value)).collect();
        assert!(cells.iter().all(|c| c.value[..] == value[..]));
    }
}
