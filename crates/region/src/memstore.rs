//! The memstore: a store's recent writes, in a concurrent skip list sorted by [`StoreKey`].
//!
//! Writers insert without locking the whole structure; readers walk it through a [`MemStoreCursor`]
//! that hides cells newer than the reader's MVCC read point, so a multi-cell mutation becomes
//! visible all at once.

use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_skiplist::SkipMap;
use crossbeam_skiplist::map::Entry;

use basalt_common::Bytes;

use crate::cursor::CellCursor;
use crate::key::{StoreKey, StoreValue};

/// Per-cell bookkeeping bytes counted on top of the key and value bytes: the skip-list node,
/// the key and value structs and the reference-counted buffers' headers (an estimate, as
/// HBase's heap-size accounting is).
const CELL_OVERHEAD: usize = 128;

/// A store's in-memory cells.
#[derive(Debug, Default)]
pub struct MemStore {
    cells: SkipMap<StoreKey, StoreValue>,
    heap_size: AtomicUsize,
}

impl MemStore {
    pub fn new() -> Self {
        MemStore::default()
    }

    /// Adds one cell. A cell with an identical key (same coordinates and sequence id) replaces
    /// the earlier one, as within one HBase mutation.
    pub fn insert(&self, key: StoreKey, value: StoreValue) {
        let size = key.row.len() + key.qualifier.len() + value.value.len() + CELL_OVERHEAD;
        self.cells.insert(key, value);
        self.heap_size.fetch_add(size, Ordering::Relaxed);
    }

    /// Estimated bytes held.
    pub fn heap_size(&self) -> usize {
        self.heap_size.load(Ordering::Relaxed)
    }

    pub fn cell_count(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// A cursor that sees only cells with sequence id <= `read_point`. It starts unpositioned;
    /// call [`CellCursor::seek`] first.
    pub fn cursor(&self, read_point: u64) -> MemStoreCursor<'_> {
        MemStoreCursor {
            memstore: self,
            read_point,
            current: None,
        }
    }
}

/// Walks a [`MemStore`] in key order at a fixed read point.
pub struct MemStoreCursor<'a> {
    memstore: &'a MemStore,
    read_point: u64,
    current: Option<Entry<'a, StoreKey, StoreValue>>,
}

impl std::fmt::Debug for MemStoreCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemStoreCursor")
            .field("read_point", &self.read_point)
            .field("current", &self.current.as_ref().map(|e| e.key()))
            .finish()
    }
}

impl<'a> MemStoreCursor<'a> {
    fn skip_invisible_forward(&mut self) {
        while let Some(e) = &self.current {
            if e.key().seq_id <= self.read_point {
                return;
            }
            self.current = e.next();
        }
    }
}

impl CellCursor for MemStoreCursor<'_> {
    fn seek(&mut self, key: &StoreKey) {
        self.current = self.memstore.cells.lower_bound(Bound::Included(key));
        self.skip_invisible_forward();
    }

    #[inline]
    fn peek(&self) -> Option<(&StoreKey, &StoreValue)> {
        self.current.as_ref().map(|e| (e.key(), e.value()))
    }

    #[inline]
    fn advance(&mut self) {
        if let Some(e) = &self.current {
            self.current = e.next();
            self.skip_invisible_forward();
        }
    }

    fn last_row_before(&self, bound: Bound<&Bytes>) -> Option<Bytes> {
        let mut entry = match bound {
            Bound::Unbounded => self.memstore.cells.back(),
            Bound::Included(row) => self
                .memstore
                .cells
                .upper_bound(Bound::Excluded(&StoreKey::last_on_row(row))),
            Bound::Excluded(row) => self
                .memstore
                .cells
                .upper_bound(Bound::Excluded(&StoreKey::first_on_row(row))),
        };
        while let Some(e) = entry {
            if e.key().seq_id <= self.read_point {
                return Some(e.key().row.clone());
            }
            entry = e.prev();
        }
        None
    }
}
