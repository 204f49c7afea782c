//! Table: reads and writes of one table's rows, each sent to the region that holds its row.

use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_client::{BatchOp, BatchOutcome};
use basalt_common::ops::{Append, CheckAndMutate, CheckAndMutateResult, Increment, RowMutations};
use basalt_common::{Bytes, Delete, Error, Get, Put, Result, RowResult, Scan, TableName};
use basalt_region::{Region, RegionScanner};

use basalt_master::HostedTable;

use crate::engine::Engine;

/// How long a request keeps retrying while its region is unavailable (splitting, merging,
/// being reopened by an alter): HBase's client retries for about as long by default.
const RETRY_FOR: Duration = Duration::from_secs(60);

/// A handle on one table (HBase's `Table`). Cheap to clone and to share between threads.
#[derive(Debug, Clone)]
pub struct Table {
    engine: Arc<Engine>,
    name: TableName,
}

/// Runs `op` until it does not fail with NotServingRegion (the region split, merged or is
/// reopening: looking the row up again finds the region that serves it now), for at most
/// [`RETRY_FOR`].
fn retrying<T>(mut op: impl FnMut() -> Result<T>) -> Result<T> {
    // The clock is read at the first failure, not before the first try: most operations
    // succeed at once, and a gateway runs this for every call it serves.
    let mut deadline = None;
    let mut pause = Duration::from_micros(100);
    loop {
        match op() {
            Err(Error::NotServingRegion(_))
                if Instant::now() < *deadline.get_or_insert_with(|| Instant::now() + RETRY_FOR) =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(20));
            }
            other => return other,
        }
    }
}

impl Table {
    pub(crate) fn new(engine: Arc<Engine>, name: TableName) -> Self {
        Table { engine, name }
    }

    pub fn name(&self) -> &TableName {
        &self.name
    }

    fn hosted(&self) -> Result<Arc<HostedTable>> {
        let table = self.engine.table(&self.name)?;
        if !table.is_enabled() {
            return Err(Error::TableNotEnabled(self.name.clone()));
        }
        Ok(table)
    }

    /// Writes go through the client API to user tables only; the catalog changes itself.
    fn writable(&self) -> Result<Arc<HostedTable>> {
        if self.name.is_system() {
            return Err(Error::Refused(format!(
                "{} is a system table: it is changed by administrative operations only",
                self.name
            )));
        }
        self.hosted()
    }

    /// Runs `op` on the region holding `row`, retrying as regions move.
    fn on_row<T>(&self, row: &[u8], write: bool, op: impl Fn(&Region) -> Result<T>) -> Result<T> {
        retrying(|| {
            let table = if write {
                self.writable()?
            } else {
                self.hosted()?
            };
            op(table.region_for(row)?.as_ref())
        })
    }

    /// Calls a coprocessor endpoint on each region holding rows of `[start, stop)` (empty:
    /// unbounded): each region's name and response, in key order.
    pub fn coprocessor_service(
        &self,
        (start, stop): (&[u8], &[u8]),
        service: &str,
        method: &str,
        request: &[u8],
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        let regions = self.hosted()?.regions();
        let mut out = Vec::new();
        for region in regions {
            let info = region.info();
            let after_start = info.end_key.is_empty() || start < &info.end_key[..];
            let before_stop = stop.is_empty() || &info.start_key[..] < stop;
            if !(after_start && before_stop) {
                continue;
            }
            let answer = region
                .observer()
                .and_then(|o| o.endpoint(service, method, request))
                .ok_or_else(|| {
                    Error::Coprocessor(format!(
                        "No registered coprocessor service {service}.{method} on table {}",
                        self.name
                    ))
                })??;
            out.push((info.region_name(), answer));
        }
        Ok(out)
    }

    /// Writes one row's cells atomically.
    pub fn put(&self, put: &Put) -> Result<()> {
        self.on_row(&put.row, true, |r| r.put(put))
    }

    /// Writes several rows. Each Put is atomic on its own; the list is not. Stops at the
    /// first failure, returning it with the index of the failed Put.
    pub fn put_all(&self, puts: &[Put]) -> std::result::Result<(), (usize, Error)> {
        for (i, put) in puts.iter().enumerate() {
            self.put(put).map_err(|e| (i, e))?;
        }
        Ok(())
    }

    /// Adds `amount` to the counter at `family:qualifier` of `row` (8 bytes, big-endian; a
    /// missing counter is 0) and returns the new value. Concurrent increments of one counter
    /// lose nothing (HBase's `incrementColumnValue`).
    pub fn increment_column_value(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let inc = basalt_client::one_counter(row, family, qualifier, amount);
        basalt_client::counter_value(&self.increment(&inc)?)
    }

    /// Adds to counters of one row and returns their new cells (HBase's `increment`).
    pub fn increment(&self, inc: &Increment) -> Result<RowResult> {
        self.on_row(&inc.row, true, |r| r.increment(inc))
    }

    /// Appends bytes to cells of one row and returns their new cells (HBase's `append`).
    pub fn append(&self, append: &Append) -> Result<RowResult> {
        self.on_row(&append.row, true, |r| r.append(append))
    }

    /// Applies puts, deletes, increments and appends of one row atomically (HBase's
    /// `mutateRow`); one result per mutation, in order: an increment's or append's new
    /// cells, empty for a put or a delete.
    pub fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        self.on_row(&mutations.row, true, |r| r.mutate_row(mutations))
    }

    /// Applies a mutation if a condition on the row holds, atomically (HBase's
    /// `checkAndMutate`).
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        self.on_row(&cam.row, true, |r| r.check_and_mutate(cam))
    }

    /// Runs operations of any kind and rows, each on its own (HBase's `batch`: not atomic
    /// across operations), and returns one outcome per operation, in order.
    pub fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        let started = std::time::Instant::now();
        let outcomes = ops
            .iter()
            .map(|op| match op {
                BatchOp::Get(g) => self.get(g).map(BatchOutcome::Row),
                BatchOp::Put(p) => self.put(p).map(|()| BatchOutcome::Done),
                BatchOp::Delete(d) => self.delete(d).map(|()| BatchOutcome::Done),
                BatchOp::Increment(i) => self.increment(i).map(BatchOutcome::Row),
                BatchOp::Append(a) => self.append(a).map(BatchOutcome::Row),
                BatchOp::RowMutations(m) => self.mutate_row(m).map(BatchOutcome::Rows),
                BatchOp::CheckAndMutate(c) => {
                    self.check_and_mutate(c).map(BatchOutcome::CheckAndMutate)
                }
            })
            .collect();
        self.engine
            .rs
            .config
            .metrics
            .timed(basalt_common::metrics::Op::Multi, started);
        outcomes
    }

    /// Deletes from one row atomically.
    pub fn delete(&self, delete: &Delete) -> Result<()> {
        self.on_row(&delete.row, true, |r| r.delete(delete))
    }

    /// Reads one row; an empty [`RowResult`] if nothing matches.
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        self.on_row(&get.row, false, |r| r.get(get))
    }

    /// Reads several rows, one result per Get in the same order.
    pub fn get_all(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        gets.iter().map(|g| self.get(g)).collect()
    }

    /// Whether the Get would return any cell.
    pub fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get)?.is_empty())
    }

    /// Rows of the table, as `scan` selects them, across every region in key order (or
    /// reversed), with the scan's limit counted over the whole table.
    pub fn scan(&self, scan: &Scan) -> Result<ResultScanner> {
        scan.validate()?;
        self.hosted()?;
        let position = scan.start_bound();
        let mut scanner = ResultScanner {
            table: self.clone(),
            scan: scan.clone(),
            position: Some(position),
            rows_left: scan.limit,
            current: None,
            filter_ended: false,
        };
        if scan.limit == Some(0) {
            scanner.position = None;
        }
        // The first region's scanner opens now, so a bad scan (an unknown family) fails here
        // as in HBase, not at the first row.
        if let Some(position) = scanner.position.take() {
            scanner.current = scanner.open_next(position)?;
        }
        Ok(scanner)
    }
}

/// The rows of a scan, read lazily region after region (HBase's `ResultScanner`).
#[derive(Debug)]
pub struct ResultScanner {
    table: Table,
    scan: Scan,
    /// Where the next region's scan starts; None once the scan is over.
    position: Option<Bound<Bytes>>,
    rows_left: Option<usize>,
    current: Option<RegionScanner>,
    /// Set when a filter that is done (not the scan's bounds) ended the scan.
    filter_ended: bool,
}

impl ResultScanner {
    /// Whether the scan ended because its filter was done with it (a WhileMatch that failed,
    /// an InclusiveStop passed), rather than by running out of rows: a server serving one
    /// region's part of a scan tells the client not to go on to the next region.
    pub fn filter_ended(&self) -> bool {
        self.filter_ended
    }

    /// Opens a scanner on the region at `position`, for the part of the scan inside it, and
    /// moves `position` to where the next region starts (None if this is the last one).
    fn open_next(&mut self, position: Bound<Bytes>) -> Result<Option<RegionScanner>> {
        retrying(|| {
            let table = self.table.hosted()?;
            let region = if self.scan.reversed {
                match &position {
                    Bound::Unbounded => table.last_region(),
                    Bound::Included(row) => Some(table.region_for(row)?),
                    Bound::Excluded(row) => table.region_before(row),
                }
            } else {
                match &position {
                    Bound::Unbounded => Some(table.region_for(b"")?),
                    Bound::Included(row) | Bound::Excluded(row) => Some(table.region_for(row)?),
                }
            };
            let Some(region) = region else {
                self.position = None;
                return Ok(None);
            };
            let info = region.info();
            let mut part = self.scan.clone();
            part.limit = self.rows_left;
            let (start, include_start) = match &position {
                Bound::Unbounded => (Bytes::new(), true),
                Bound::Included(r) => (r.clone(), true),
                Bound::Excluded(r) => (r.clone(), false),
            };
            part.start_row = start;
            part.include_start_row = include_start;
            let stop = &self.scan.stop_row;
            if self.scan.reversed {
                // The region's start row bounds this part unless the scan stops above it.
                let region_floor = !info.start_key.is_empty()
                    && (stop.is_empty() || info.start_key[..] > stop[..]);
                if region_floor {
                    part.stop_row = info.start_key.clone();
                    part.include_stop_row = true;
                    self.position = Some(Bound::Excluded(info.start_key.clone()));
                } else {
                    self.position = None;
                }
            } else {
                let region_ceiling =
                    !info.end_key.is_empty() && (stop.is_empty() || info.end_key[..] <= stop[..]);
                if region_ceiling {
                    part.stop_row = info.end_key.clone();
                    part.include_stop_row = false;
                    self.position = Some(Bound::Included(info.end_key.clone()));
                    if !stop.is_empty()
                        && info.end_key[..] == stop[..]
                        && !self.scan.include_stop_row
                    {
                        self.position = None;
                    }
                } else {
                    self.position = None;
                }
            }
            region.scan(&part).map(Some)
        })
    }
}

impl Iterator for ResultScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(current) = &mut self.current {
                match current.next() {
                    Some(Ok(row)) => {
                        if !row.partial
                            && let Some(left) = &mut self.rows_left
                        {
                            *left -= 1;
                            if *left == 0 {
                                self.position = None;
                                self.current = None;
                            }
                        }
                        return Some(Ok(row));
                    }
                    Some(Err(e)) => {
                        self.position = None;
                        self.current = None;
                        return Some(Err(e));
                    }
                    None => {
                        // A filter that is done (a WhileMatch that failed, a prefix passed)
                        // ends the whole scan; a PageFilter only this region's part.
                        if current.filter_ends_scan() {
                            self.position = None;
                            self.filter_ended = true;
                        }
                        self.current = None;
                    }
                }
            }
            let position = self.position.take()?;
            match self.open_next(position) {
                Ok(Some(s)) => self.current = Some(s),
                // A reversed scan ran off the table's first region.
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
