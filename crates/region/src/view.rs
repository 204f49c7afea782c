//! What a read sees, shared by a Get and the region scanner: the stores it queries, each
//! one's contents as the read began, the read point, and the read's filter; and the protocol
//! a filter runs on each row. The region builds a view ([`crate::Region`]'s `read_view`);
//! the scanner reads one without knowing the region, so neither imports the other.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use basalt_common::error::Result;
use basalt_common::filter::Filter;
use basalt_common::{Bytes, Cell};

use crate::matcher::{StoreQuery, read_row};
use crate::store::{FileFilter, StoreView};

/// A consistent view of some of a region's stores.
pub(crate) struct ReadView {
    /// What is asked of each store read, in family order.
    pub(crate) queries: Vec<StoreQuery>,
    /// Each queried store's memstore and files as the read began (later flushes and
    /// compactions do not change them; writes after the read point are invisible anyway).
    pub(crate) stores: Vec<Arc<StoreView>>,
    /// The newest write the read sees.
    pub(crate) read_point: u64,
    /// The read's filter, built for the region's key order.
    pub(crate) filter: Option<Box<dyn Filter>>,
}

impl std::fmt::Debug for ReadView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadView")
            .field("stores", &self.stores.len())
            .field("read_point", &self.read_point)
            .finish_non_exhaustive()
    }
}

impl ReadView {
    /// One row's cells, through the filter's protocol (a Get is a scan of one row).
    pub(crate) fn read_one_row(&mut self, row: &[u8], cache_blocks: bool) -> Result<Vec<Cell>> {
        let mut cells = Vec::new();
        let mut filter = self.filter.take();
        let skipped = filter
            .as_deref_mut()
            .is_some_and(|f| !matches!(start_row(f, row, false), RowVerdict::Read));
        if !skipped {
            let guard = crossbeam_epoch::pin();
            for (store, query) in self.stores.iter().zip(&self.queries) {
                let files = FileFilter {
                    row: Some(row),
                    min_timestamp: query.time_range.min,
                    cache_blocks,
                };
                let mut cursor = store.cursor(self.read_point, &guard, files);
                cursor.seek(&Cell::first_on_row(row))?;
                if read_row(
                    cursor.as_mut(),
                    row,
                    query,
                    filter.as_deref_mut(),
                    &mut cells,
                )? {
                    break;
                }
            }
            if let Some(f) = filter.as_deref_mut()
                && !finish_row(f, &mut cells)
            {
                cells.clear();
            }
        }
        self.filter = filter;
        Ok(cells)
    }
}

/// What a read's filter says of a row before its cells are read.
pub(crate) enum RowVerdict {
    Read,
    /// The row is filtered out; a forward scan may seek on to the hinted row.
    Skip(Option<Bytes>),
    /// No later row can pass: the scan is over.
    Done,
}

/// Starts a row under `filter`: reset, `filter_all_remaining`, `filter_row_key`.
pub(crate) fn start_row(filter: &mut dyn Filter, row: &[u8], reversed: bool) -> RowVerdict {
    filter.reset();
    if filter.filter_all_remaining() {
        return RowVerdict::Done;
    }
    if !filter.filter_row_key(row) {
        return RowVerdict::Read;
    }
    if filter.filter_all_remaining() {
        return RowVerdict::Done;
    }
    let hint = if reversed {
        None
    } else {
        filter.next_row_hint(row).filter(|h| h[..] > *row)
    };
    RowVerdict::Skip(hint)
}

/// Finishes a row under `filter` (`filter_row_cells`, then `filter_row` on a row that still
/// has cells): whether the row is returned.
pub(crate) fn finish_row(filter: &mut dyn Filter, cells: &mut Vec<Cell>) -> bool {
    filter.filter_row_cells(cells);
    !cells.is_empty() && !filter.filter_row()
}

/// A region's request counters (HBase's `readRequestsCount` and `writeRequestsCount`): a Get
/// or a row a scanner returns is one read, a mutation of a row is one write.
#[derive(Debug, Default)]
pub struct RequestCounts {
    reads: AtomicU64,
    writes: AtomicU64,
}

impl RequestCounts {
    pub(crate) fn read(&self) {
        self.reads.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn write(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
}
