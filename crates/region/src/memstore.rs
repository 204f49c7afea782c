//! The memstore: a store's recent writes, in a concurrent skip list sorted by [`StoreKey`].
//!
//! Writers insert without locking the whole structure; readers walk it through a
//! [`MemStoreCursor`] that hides cells newer than the reader's MVCC read point, so a multi-cell
//! mutation becomes visible all at once. Cursors borrow an epoch guard: they step through the
//! list without reference counting, and the cells they hand out stay valid while it is held.

use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_epoch::Guard;
use crossbeam_skiplist::base::{Entry, SkipList};

use basalt_common::Bytes;

use basalt_common::CellType;

use crate::cursor::CellCursor;
use crate::key::{StoreKey, StoreValue};
use crate::mslab::Mslab;

/// Per-cell bookkeeping bytes counted on top of the key and value bytes: the skip-list node,
/// the key and value structs and the reference-counted buffers' headers (an estimate, as
/// HBase's heap-size accounting is).
const CELL_OVERHEAD: usize = 128;

/// A store's in-memory cells.
pub struct MemStore {
    cells: SkipList<StoreKey, StoreValue>,
    mslab: Mslab,
    heap_size: AtomicUsize,
}

impl std::fmt::Debug for MemStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemStore")
            .field("cells", &self.cells.len())
            .field("heap_size", &self.heap_size())
            .finish()
    }
}

impl Default for MemStore {
    fn default() -> Self {
        MemStore::new()
    }
}

impl MemStore {
    pub fn new() -> Self {
        MemStore {
            cells: SkipList::new(crossbeam_epoch::default_collector().clone()),
            mslab: Mslab::default(),
            heap_size: AtomicUsize::new(0),
        }
    }

    /// Copies a mutation's row into the memstore's chunks, once for all the cells it writes
    /// here: they then share one buffer, which saves memory and lets scans recognise a row's
    /// cells by pointer.
    pub fn copy_row(&self, row: &[u8]) -> Bytes {
        let [copy] = self.mslab.copy([row]);
        copy
    }

    /// Adds one cell of `row` (a copy from [`MemStore::copy_row`]), copying its qualifier and
    /// value into the memstore's chunks. A cell with an identical key (same coordinates and
    /// sequence id) replaces the earlier one, as within one HBase mutation.
    #[expect(
        clippy::too_many_arguments,
        reason = "one cell's coordinates, as HBase's KeyValue"
    )]
    pub fn insert(
        &self,
        row: &Bytes,
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        seq_id: u64,
        value: &[u8],
        ttl_ms: Option<u64>,
    ) {
        let size = row.len() + qualifier.len() + value.len() + CELL_OVERHEAD;
        let [qualifier, value] = self.mslab.copy([qualifier, value]);
        let key = StoreKey::new(row.clone(), qualifier, timestamp, cell_type, seq_id);
        let value = StoreValue { value, ttl_ms };
        let guard = crossbeam_epoch::pin();
        self.cells.insert(key, value, &guard).release(&guard);
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

    /// A cursor that sees only cells with sequence id <= `read_point`, valid while `guard` is
    /// held. It starts unpositioned; call [`CellCursor::seek`] first.
    pub fn cursor<'g>(&'g self, read_point: u64, guard: &'g Guard) -> MemStoreCursor<'g> {
        MemStoreCursor {
            cells: &self.cells,
            guard,
            read_point,
            current: None,
        }
    }
}

/// Walks a [`MemStore`] in key order at a fixed read point.
pub struct MemStoreCursor<'g> {
    cells: &'g SkipList<StoreKey, StoreValue>,
    guard: &'g Guard,
    read_point: u64,
    current: Option<Entry<'g, 'g, StoreKey, StoreValue>>,
}

impl std::fmt::Debug for MemStoreCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemStoreCursor")
            .field("read_point", &self.read_point)
            .field("current", &self.current.as_ref().map(|e| e.key()))
            .finish()
    }
}

impl MemStoreCursor<'_> {
    fn skip_invisible_forward(&mut self) {
        while let Some(e) = &mut self.current {
            if e.key().seq_id <= self.read_point {
                return;
            }
            if !e.move_next() {
                self.current = None;
            }
        }
    }
}

impl<'g> CellCursor<'g> for MemStoreCursor<'g> {
    fn seek(&mut self, key: &StoreKey) {
        self.current = self.cells.lower_bound(Bound::Included(key), self.guard);
        self.skip_invisible_forward();
    }

    #[inline]
    fn peek(&self) -> Option<(&'g StoreKey, &'g StoreValue)> {
        self.current.as_ref().map(|e| (e.key(), e.value()))
    }

    #[inline]
    fn advance(&mut self) {
        if let Some(e) = &mut self.current {
            if e.move_next() {
                self.skip_invisible_forward();
            } else {
                self.current = None;
            }
        }
    }

    fn last_row_before(&self, bound: Bound<&Bytes>) -> Option<Bytes> {
        let mut entry = match bound {
            Bound::Unbounded => self.cells.back(self.guard),
            Bound::Included(row) => self
                .cells
                .upper_bound(Bound::Excluded(&StoreKey::last_on_row(row)), self.guard),
            Bound::Excluded(row) => self
                .cells
                .upper_bound(Bound::Excluded(&StoreKey::first_on_row(row)), self.guard),
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
