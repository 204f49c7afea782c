//! The region scanner: rows in key order (or reversed), each merged across the stores a scan
//! touches, at the read point taken when the scanner opened (a consistent view).
//!
//! It reads ahead a bounded number of rows per refill, so it holds no borrow of the stores
//! between calls and pays one seek per store per refill rather than per row.

use std::collections::VecDeque;
use std::ops::Bound;
use std::sync::Arc;

use basalt_common::error::{Error, Result};
use basalt_common::filter::Filter;
use basalt_common::ops::{RowResult, Scan};
use basalt_common::{Bytes, Cell};

use crate::cursor::{CellCursor, same_bytes};
use crate::matcher::{StoreQuery, read_row};
use crate::store::{FileFilter, StoreView};
use crate::view::{ReadView, RequestCounts, RowVerdict, finish_row, start_row};

/// Rows read per refill unless the scan sets its caching.
const DEFAULT_ROWS_PER_REFILL: usize = 128;
/// A refill also stops after this many cells, so wide rows do not balloon the buffer.
const MAX_CELLS_PER_REFILL: usize = 16 * 1024;

/// Iterates over the rows of a scan.
#[derive(Debug)]
pub struct RegionScanner {
    queries: Vec<StoreQuery>,
    /// Each queried store's contents as the scanner opened: later flushes and compactions
    /// do not change what it reads (writes after the read point are invisible anyway).
    views: Vec<Arc<StoreView>>,
    read_point: u64,
    reversed: bool,
    /// Where the next refill starts.
    position: Bound<Bytes>,
    stop_row: Bytes,
    include_stop_row: bool,
    rows_left: Option<usize>,
    batch: Option<usize>,
    /// With partial results allowed: bytes of cells after which a row is cut.
    partial_size: Option<u64>,
    cache_blocks: bool,
    rows_per_refill: usize,
    buffer: VecDeque<RowResult>,
    exhausted: bool,
    filter: Option<Box<dyn Filter>>,
    /// The scan ended because the filter is done with every later row.
    filter_ended: bool,
    /// The region's read counter: each whole row returned is one read.
    requests: Arc<RequestCounts>,
    /// Rows looked at and rows a filter dropped, since the last `take_row_counts`.
    rows_scanned: u64,
    rows_filtered: u64,
    /// Where each batch of rows read is timed (ScanNext).
    metrics: Arc<basalt_common::metrics::ServerMetrics>,
    /// Rows are stored in meta order and decoded on the way out (`crate::meta_keys`).
    meta: bool,
    /// The region's observer, when it watches scanned rows.
    observer: Option<Arc<dyn crate::RegionObserver>>,
}

impl RegionScanner {
    /// A scanner over `view` for `scan`'s rows, counting its reads in `requests`. Its rows
    /// are returned as stored until a layer says otherwise ([`RegionScanner::in_meta_order`],
    /// [`RegionScanner::observed_by`]).
    pub(crate) fn new(
        view: ReadView,
        scan: &Scan,
        requests: Arc<RequestCounts>,
        metrics: Arc<basalt_common::metrics::ServerMetrics>,
    ) -> Result<Self> {
        let ReadView {
            queries,
            stores,
            read_point,
            filter,
        } = view;
        if scan.batch.is_some() && filter.as_ref().is_some_and(|f| f.has_filter_row()) {
            return Err(Error::InvalidArgument(
                "Cannot set batch on a scan using a filter that decides on whole rows \
                 (filterRow / filterRowCells)"
                    .into(),
            ));
        }
        Ok(RegionScanner {
            queries,
            views: stores,
            read_point,
            reversed: scan.reversed,
            position: scan.start_bound(),
            stop_row: scan.stop_row.clone(),
            include_stop_row: scan.include_stop_row,
            rows_left: scan.limit,
            batch: scan.batch,
            partial_size: scan.max_result_size.filter(|_| scan.allow_partial_results),
            cache_blocks: scan.cache_blocks,
            rows_per_refill: scan.caching.unwrap_or(DEFAULT_ROWS_PER_REFILL).max(1),
            buffer: VecDeque::new(),
            exhausted: scan.limit == Some(0),
            filter,
            filter_ended: false,
            requests,
            rows_scanned: 0,
            rows_filtered: 0,
            metrics,
            meta: false,
            observer: None,
        })
    }

    /// Rows stored in meta order, decoded on the way out (`crate::meta_keys`).
    pub(crate) fn in_meta_order(mut self) -> Self {
        self.meta = true;
        self
    }

    /// Each row shown to `observer`'s `post_scan_next` before it is returned.
    pub(crate) fn observed_by(mut self, observer: Arc<dyn crate::RegionObserver>) -> Self {
        self.observer = Some(observer);
        self
    }

    /// Whether the scan ended because its filter is done with the rest of the table (not just
    /// this region, as a PageFilter is).
    pub fn filter_ends_scan(&self) -> bool {
        self.filter_ended
    }

    /// Rows looked at and rows a filter dropped since the last call (HBase's server-side scan
    /// metrics ROWS_SCANNED and ROWS_FILTERED); rows read ahead count when read.
    pub fn take_row_counts(&mut self) -> (u64, u64) {
        let counts = (self.rows_scanned, self.rows_filtered);
        self.rows_scanned = 0;
        self.rows_filtered = 0;
        counts
    }

    fn end_by_filter(&mut self, filter: &dyn Filter) {
        self.exhausted = true;
        self.filter_ended = filter.ends_scan();
    }

    /// Whether `row` lies beyond the stop row in the scan's direction.
    fn past_stop(&self, row: &[u8]) -> bool {
        if self.stop_row.is_empty() {
            return false;
        }
        let ord = row.cmp(&self.stop_row);
        let beyond = if self.reversed {
            ord.is_lt()
        } else {
            ord.is_gt()
        };
        beyond || (ord.is_eq() && !self.include_stop_row)
    }

    /// Reads the next batch of rows (up to `rows_per_refill`); each batch is one ScanNext
    /// in the server's metrics, as each of HBase's scanner `next` calls is.
    fn refill(&mut self) -> Result<()> {
        let started = std::time::Instant::now();
        let mut filter = self.filter.take();
        let result = self.refill_with(filter.as_deref_mut());
        self.filter = filter;
        self.metrics
            .timed(basalt_common::metrics::Op::ScanNext, started);
        result
    }

    fn refill_with(&mut self, mut filter: Option<&mut (dyn Filter + 'static)>) -> Result<()> {
        // The views pinned at open, and one epoch guard per refill: the cursors walk memstores
        // without per-step reference counting.
        let views = self.views.clone();
        let guard = crossbeam_epoch::pin();
        let mut cursors: Vec<Box<dyn CellCursor + '_>> = views
            .iter()
            .zip(&self.queries)
            .map(|(v, q)| {
                let filter = FileFilter {
                    row: None,
                    min_timestamp: q.time_range.min,
                    cache_blocks: self.cache_blocks,
                };
                v.cursor(self.read_point, &guard, filter)
            })
            .collect();
        if !self.reversed {
            let start = match &self.position {
                Bound::Unbounded => Cell::first_on_row(b""),
                Bound::Included(row) => Cell::first_on_row(row),
                Bound::Excluded(row) => Cell::last_on_row(row),
            };
            for c in &mut cursors {
                c.seek(&start)?;
            }
        }
        let mut rows = 0;
        let mut cells_read = 0;
        let mut last_row_cells = 0;
        while rows < self.rows_per_refill && cells_read < MAX_CELLS_PER_REFILL {
            let Some(row) = self.next_row(&mut cursors)? else {
                self.exhausted = true;
                return Ok(());
            };
            if self.past_stop(&row) {
                self.exhausted = true;
                return Ok(());
            }
            self.rows_scanned += 1;
            if let Some(f) = filter.as_deref_mut() {
                match start_row(f, &row, self.reversed) {
                    RowVerdict::Read => {}
                    RowVerdict::Skip(hint) => {
                        self.rows_filtered += 1;
                        self.skip_row(&mut cursors, row, hint)?;
                        continue;
                    }
                    RowVerdict::Done => {
                        self.end_by_filter(f);
                        return Ok(());
                    }
                }
            }
            // Rows of a table tend to be alike: size for the last one to avoid regrowing.
            let mut cells = Vec::with_capacity(last_row_cells);
            let mut done = false;
            for (cursor, query) in cursors.iter_mut().zip(&self.queries) {
                // A filter done mid-row ends every store's read (HBase's DONE_SCAN).
                if !done && cursor.peek().is_some_and(|c| same_bytes(c.row(), &row)) {
                    done = read_row(
                        cursor.as_mut(),
                        &row,
                        query,
                        filter.as_deref_mut(),
                        &mut cells,
                    )?;
                }
            }
            self.position = Bound::Excluded(row.clone());
            if let Some(f) = filter.as_deref_mut() {
                if !finish_row(f, &mut cells) {
                    self.rows_filtered += 1;
                    cells.clear();
                }
                if done {
                    self.end_by_filter(f);
                }
            }
            if cells.is_empty() {
                if self.exhausted {
                    return Ok(());
                }
                continue;
            }
            rows += 1;
            cells_read += cells.len();
            last_row_cells = cells.len();
            self.emit(row, cells);
            if self.exhausted {
                return Ok(());
            }
            if let Some(left) = &mut self.rows_left {
                *left -= 1;
                if *left == 0 {
                    self.exhausted = true;
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Moves past a row the filter dropped: to the hinted row, or just past it.
    fn skip_row(
        &mut self,
        cursors: &mut [Box<dyn CellCursor + '_>],
        row: Bytes,
        hint: Option<Bytes>,
    ) -> Result<()> {
        match hint {
            Some(next) => {
                let key = Cell::first_on_row(&next);
                for c in cursors.iter_mut() {
                    c.seek(&key)?;
                }
                self.position = Bound::Included(next);
            }
            None => {
                if !self.reversed {
                    for c in cursors.iter_mut() {
                        if c.peek().is_some_and(|cell| same_bytes(cell.row(), &row)) {
                            c.skip_row(&row)?;
                        }
                    }
                }
                self.position = Bound::Excluded(row);
            }
        }
        Ok(())
    }

    /// The next row holding a cell in any store, with every cursor that holds it positioned
    /// at its start.
    fn next_row(&self, cursors: &mut [Box<dyn CellCursor + '_>]) -> Result<Option<Bytes>> {
        if !self.reversed {
            return Ok(cursors
                .iter()
                .filter_map(|c| c.peek())
                .min_by(|a, b| a.row().cmp(b.row()))
                .map(Cell::row_bytes));
        }
        let bound = self.position.as_ref().map(|r| &r[..]);
        let mut row: Option<Bytes> = None;
        for c in cursors.iter_mut() {
            if let Some(r) = c.last_row_before(bound)? {
                row = row.max(Some(r));
            }
        }
        let Some(row) = row else {
            return Ok(None);
        };
        let start = Cell::first_on_row(&row);
        for c in cursors.iter_mut() {
            c.seek(&start)?;
        }
        Ok(Some(row))
    }

    /// Queues a row's cells, cut into results of at most `batch` cells, and (with partial
    /// results allowed) at the max result size, every result but the last marked partial.
    fn emit(&mut self, row: Bytes, cells: Vec<Cell>) {
        if self.batch.is_none() && self.partial_size.is_none() {
            self.buffer.push_back(RowResult {
                row,
                cells,
                partial: false,
            });
            return;
        }
        let mut chunks: Vec<Vec<Cell>> = Vec::new();
        let mut current = Vec::new();
        let mut bytes = 0u64;
        for cell in cells {
            bytes += (cell.row().len()
                + cell.family().len()
                + cell.qualifier().len()
                + cell.value().len()
                + 12) as u64;
            current.push(cell);
            let full = self.batch.is_some_and(|b| current.len() >= b)
                || self.partial_size.is_some_and(|max| bytes >= max);
            if full {
                chunks.push(std::mem::take(&mut current));
                bytes = 0;
            }
        }
        if !current.is_empty() || chunks.is_empty() {
            chunks.push(current);
        }
        let last = chunks.len() - 1;
        for (i, chunk) in chunks.into_iter().enumerate() {
            self.buffer.push_back(RowResult {
                row: row.clone(),
                cells: chunk,
                partial: i < last,
            });
        }
    }
}

impl Iterator for RegionScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            while self.buffer.is_empty() && !self.exhausted {
                if let Err(e) = self.refill() {
                    // A storage error ends the scan; the rows before it were returned.
                    self.exhausted = true;
                    return Some(Err(e));
                }
            }
            let row = self.buffer.pop_front()?;
            if !row.partial {
                self.requests.read();
            }
            let row = if self.meta {
                crate::meta_keys::shown(row)
            } else {
                row
            };
            let Some(observer) = &self.observer else {
                return Some(Ok(row));
            };
            match observer.post_scan_next(row) {
                Ok(Some(row)) => return Some(Ok(row)),
                // The observer dropped the row: on to the next.
                Ok(None) => {}
                Err(e) => {
                    self.exhausted = true;
                    self.buffer.clear();
                    return Some(Err(e));
                }
            }
        }
    }
}
