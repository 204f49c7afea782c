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

use basalt_common::{Bytes, Cell, Result};

use crate::cursor::CellCursor;
use crate::key::StoreKey;

/// Per-cell bookkeeping bytes counted on top of the cell's bytes (an estimate, as HBase's
/// heap-size accounting is): the key struct inside its skip-list node, the node's reference
/// count and height (8 bytes), its tower of two pointers on average (crossbeam-skiplist's
/// heights are 1 + trailing zeros of a random word: 16), and the allocator's header (16).
const CELL_OVERHEAD: usize = std::mem::size_of::<StoreKey>() + 8 + 16 + 16;

/// A store's in-memory cells.
pub struct MemStore {
    cells: SkipList<StoreKey, ()>,
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
            heap_size: AtomicUsize::new(0),
        }
    }

    /// Adds a cell, and returns the memstore's estimated bytes with it. A cell with an
    /// identical key (same coordinates and sequence id) replaces the earlier one, as within one
    /// HBase mutation.
    pub fn insert(&self, cell: Cell) -> usize {
        let size = MemStore::accounted_size(&cell);
        let before = self.heap_size.fetch_add(size, Ordering::Relaxed);
        let guard = crossbeam_epoch::pin();
        self.cells
            .insert(StoreKey::new(cell), (), &guard)
            .release(&guard);
        before + size
    }

    /// The bytes a cell counts for in memstore accounting.
    pub fn accounted_size(cell: &Cell) -> usize {
        cell.serialized_size() + CELL_OVERHEAD
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

    /// Calls `f` on every cell in key order, whatever its sequence id (flattening copies them
    /// all). Faster than a cursor over a large memstore: the walk runs a few entries ahead of
    /// `f` and touches each cell's bytes early, so the cache misses of reaching a cell's node
    /// and its bytes overlap instead of following one another.
    pub fn for_each_cell(&self, mut f: impl FnMut(&Cell)) {
        const AHEAD: usize = 8;
        let guard = crossbeam_epoch::pin();
        let mut ahead = std::collections::VecDeque::with_capacity(AHEAD);
        let mut next = self.cells.front(&guard);
        loop {
            while ahead.len() < AHEAD {
                let Some(entry) = next.take() else { break };
                touch(&entry.key().cell);
                next = entry.next();
                ahead.push_back(entry);
            }
            let Some(entry) = ahead.pop_front() else {
                return;
            };
            f(&entry.key().cell);
        }
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
    cells: &'g SkipList<StoreKey, ()>,
    guard: &'g Guard,
    read_point: u64,
    current: Option<Entry<'g, 'g, StoreKey, ()>>,
}

impl std::fmt::Debug for MemStoreCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemStoreCursor")
            .field("read_point", &self.read_point)
            .field("current", &self.current.as_ref().map(|e| &e.key().cell))
            .finish()
    }
}

impl MemStoreCursor<'_> {
    fn skip_invisible_forward(&mut self) {
        while let Some(e) = &mut self.current {
            if e.key().cell.seq_id <= self.read_point {
                return;
            }
            if !e.move_next() {
                self.current = None;
            }
        }
    }
}

impl CellCursor for MemStoreCursor<'_> {
    fn seek(&mut self, key: &Cell) -> Result<()> {
        let key = StoreKey::new(key.clone());
        self.current = self.cells.lower_bound(Bound::Included(&key), self.guard);
        self.skip_invisible_forward();
        Ok(())
    }

    #[inline]
    fn peek(&self) -> Option<&Cell> {
        self.current.as_ref().map(|e| &e.key().cell)
    }

    #[inline]
    fn advance(&mut self) -> Result<()> {
        if let Some(e) = &mut self.current {
            if e.move_next() {
                self.skip_invisible_forward();
            } else {
                self.current = None;
            }
        }
        Ok(())
    }

    fn last_row_before(&mut self, bound: Bound<&[u8]>) -> Result<Option<Bytes>> {
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
            if e.key().cell.seq_id <= self.read_point {
                return Ok(Some(e.key().cell.row_bytes()));
            }
            entry = e.prev();
        }
        Ok(None)
    }
}

/// Loads a byte from each cache line of the cell's bytes, so they are on their way into the
/// cache before the cell is encoded.
#[inline]
fn touch(cell: &Cell) {
    let row = cell.row();
    let value = cell.value();
    let mut sum = row.first().copied().unwrap_or(0);
    for i in (0..value.len()).step_by(64) {
        sum = sum.wrapping_add(value[i]);
    }
    std::hint::black_box(sum);
}
