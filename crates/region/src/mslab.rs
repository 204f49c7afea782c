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

/// Chunks for one memstore.
#[derive(Debug, Default)]
pub struct Mslab {
    current: Mutex<BytesMut>,
}

impl Mslab {
    /// Copies `parts` into one contiguous region and returns each part's copy.
    pub fn copy<const N: usize>(&self, parts: [&[u8]; N]) -> [Bytes; N] {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let all = if len > MAX_ALLOC {
            let mut own = BytesMut::with_capacity(len);
            parts.iter().for_each(|p| own.extend_from_slice(p));
            own.freeze()
        } else {
            // A chunk is only appended to and split under this lock; a panic cannot leave it
            // inconsistent, so a poisoned lock is still usable.
            let mut chunk = self.current.lock().unwrap_or_else(PoisonError::into_inner);
            if chunk.capacity() - chunk.len() < len {
                *chunk = BytesMut::with_capacity(CHUNK_SIZE);
            }
            parts.iter().for_each(|p| chunk.extend_from_slice(p));
            chunk.split().freeze()
        };
        let mut start = 0;
        parts.map(|p| {
            let part = all.slice(start..start + p.len());
            start += p.len();
            part
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_fields_and_spills_large_cells() {
        let slab = Mslab::default();
        let [row, q, v] = slab.copy([b"row", b"q", b"value"]);
        let [row2, q2] = slab.copy([b"row2", b""]);
        assert_eq!(
            (&row[..], &q[..], &v[..]),
            (&b"row"[..], &b"q"[..], &b"value"[..])
        );
        assert_eq!((&row2[..], q2.len()), (&b"row2"[..], 0));
        // Two small copies share a chunk: the second starts right after the first.
        assert_eq!(v.as_ptr().wrapping_add(5), row2.as_ptr());
        let big = vec![7u8; MAX_ALLOC + 1];
        let [big_copy] = slab.copy([&big[..]]);
        assert_eq!(big_copy.len(), MAX_ALLOC + 1);
        let [small] = slab.copy([b"small"]);
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
        let cells: Vec<_> = (0..20)
            .map(|_| slab.copy([b"r", b"q", &value[..]]))
            .collect();
        assert!(cells.iter().all(|[_, _, v]| v[..] == value[..]));
    }
}
