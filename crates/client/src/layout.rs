//! [`LayoutClient`]: a [`Client`] that reads and writes tables by their logical row keys
//! whatever key layout they declare (issue 34, `basalt_common::key_layout`). Puts, gets,
//! deletes, increments, appends, check-and-mutates and batches take logical keys and send the
//! stored ones; results come back with logical keys. A scan over a salted or time-bucketed
//! table runs one scan per bucket, each on a thread of its own, and merges them into logical
//! key order (reversed scans and limits too); over a hash-prefixed or reversed table, whose
//! stored order says nothing of the logical one, it reads the whole table and sorts what is in
//! range (up to [`SORTED_SCAN_LIMIT`] rows). Tables without a layout pass through untouched;
//! the inner client stays there for raw access to stored keys.
//!
//! Row filters run on the server, so they see stored keys (`docs/design/key-layouts.md`).

use std::collections::HashMap;
use std::fmt;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use basalt_common::key_layout::KeyLayout;
use basalt_common::ops::{
    Append, CheckAction, CheckAndMutate, CheckAndMutateResult, Increment, RowMutations, RowOp,
};
use basalt_common::{Bytes, Delete, Error, Get, Put, Result, RowResult, Scan, TableName};

use basalt_ops::prelude::TableAdmin;
use basalt_ops::{Caller, Changed, MasterRequest, MasterResponse};

use crate::client::{Scanner, forward_server_admin};
use crate::{BatchOp, BatchOutcome, Client, EndpointCall};

/// How long a table's layout is taken as known (a table dropped and made again elsewhere
/// with another layout is seen after this).
const CACHE_FOR: Duration = Duration::from_secs(5);
/// The most rows a range scan of a hash-prefixed or reversed table sorts in memory.
pub const SORTED_SCAN_LIMIT: usize = 1_000_000;
/// Rows each bucket's scan reads ahead of the merge.
const READ_AHEAD: usize = 256;

/// A [`Client`] over logical row keys; see the module documentation.
pub struct LayoutClient {
    inner: Arc<dyn Client>,
    layouts: RwLock<HashMap<TableName, (Option<KeyLayout>, Instant)>>,
}

impl fmt::Debug for LayoutClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LayoutClient")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl LayoutClient {
    /// Lays keys out for tables with a layout, over `inner`.
    pub fn new(inner: Arc<dyn Client>) -> Self {
        LayoutClient {
            inner,
            layouts: RwLock::new(HashMap::new()),
        }
    }

    /// The client underneath: stored keys, no translation.
    pub fn raw(&self) -> &Arc<dyn Client> {
        &self.inner
    }

    /// The table's layout (cached for a few seconds); none for a plain table or one that
    /// cannot be described (the call itself then says why).
    pub fn layout(&self, table: &TableName) -> Option<KeyLayout> {
        if let Some((layout, at)) = self
            .layouts
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(table)
            && at.elapsed() < CACHE_FOR
        {
            return *layout;
        }
        match self.inner.describe_table(table) {
            Ok(d) => {
                let layout = KeyLayout::of(&d.metadata).ok().flatten();
                self.layouts
                    .write()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(table.clone(), (layout, Instant::now()));
                layout
            }
            Err(_) => None,
        }
    }

    fn forget(&self, table: &TableName) {
        self.layouts
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(table);
    }
}

impl Caller for LayoutClient {
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> Result<MasterResponse> {
        self.inner.call_master(on, request)
    }

    /// A table changed (or, after a restore, any may have): its layout is read again.
    fn changed(&self, what: Changed<'_>) {
        match what {
            Changed::Table(table) => self.forget(table),
            Changed::Regions => self
                .layouts
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .clear(),
        }
        self.inner.changed(what);
    }
}

/// Stored keys of logical ones, and back.
pub(crate) fn physical(layout: Option<KeyLayout>, row: &Bytes) -> Result<Bytes> {
    match layout {
        Some(l) => l.physical(row),
        None => Ok(row.clone()),
    }
}

/// An operation on one row, whose row key can be swapped for the stored one.
pub(crate) trait OnRow: Clone {
    fn row_mut(&mut self) -> &mut Bytes;
}

macro_rules! on_row {
    ($($t:ty),*) => {
        $(impl OnRow for $t {
            fn row_mut(&mut self) -> &mut Bytes {
                &mut self.row
            }
        })*
    };
}

on_row!(Put, Delete, Get, Increment, Append);

/// `op` addressed to its stored row.
pub(crate) fn at_stored_row<T: OnRow>(layout: Option<KeyLayout>, op: &T) -> Result<T> {
    let mut op = op.clone();
    let row = physical(layout, op.row_mut())?;
    *op.row_mut() = row;
    Ok(op)
}

pub(crate) fn logical_result(layout: Option<KeyLayout>, r: RowResult) -> Result<RowResult> {
    let Some(l) = layout else {
        return Ok(r);
    };
    if r.cells.is_empty() && r.row.is_empty() {
        return Ok(r);
    }
    let row = l.logical(&r.row)?;
    let cells = r.cells.iter().map(|c| c.with_row(&row)).collect();
    Ok(RowResult {
        row,
        cells,
        partial: r.partial,
    })
}

fn physical_row_op(layout: Option<KeyLayout>, op: &RowOp) -> Result<RowOp> {
    Ok(match op {
        RowOp::Put(p) => RowOp::Put(at_stored_row(layout, p)?),
        RowOp::Delete(d) => RowOp::Delete(at_stored_row(layout, d)?),
        RowOp::Increment(i) => RowOp::Increment(at_stored_row(layout, i)?),
        RowOp::Append(a) => RowOp::Append(at_stored_row(layout, a)?),
    })
}

pub(crate) fn physical_mutations(
    layout: Option<KeyLayout>,
    m: &RowMutations,
) -> Result<RowMutations> {
    Ok(RowMutations {
        row: physical(layout, &m.row)?,
        mutations: m
            .mutations
            .iter()
            .map(|op| physical_row_op(layout, op))
            .collect::<Result<_>>()?,
    })
}

pub(crate) fn physical_check_and_mutate(
    layout: Option<KeyLayout>,
    cam: &CheckAndMutate,
) -> Result<CheckAndMutate> {
    let action = match &cam.action {
        CheckAction::Put(p) => CheckAction::Put(at_stored_row(layout, p)?),
        CheckAction::Delete(d) => CheckAction::Delete(at_stored_row(layout, d)?),
        CheckAction::RowMutations(m) => CheckAction::RowMutations(physical_mutations(layout, m)?),
        CheckAction::Increment(i) => CheckAction::Increment(at_stored_row(layout, i)?),
        CheckAction::Append(a) => CheckAction::Append(at_stored_row(layout, a)?),
    };
    Ok(CheckAndMutate {
        row: physical(layout, &cam.row)?,
        check: cam.check.clone(),
        action,
    })
}

pub(crate) fn physical_batch_op(layout: Option<KeyLayout>, op: &BatchOp) -> Result<BatchOp> {
    Ok(match op {
        BatchOp::Get(g) => BatchOp::Get(at_stored_row(layout, g)?),
        BatchOp::Put(p) => BatchOp::Put(at_stored_row(layout, p)?),
        BatchOp::Delete(d) => BatchOp::Delete(at_stored_row(layout, d)?),
        BatchOp::Increment(i) => BatchOp::Increment(at_stored_row(layout, i)?),
        BatchOp::Append(a) => BatchOp::Append(at_stored_row(layout, a)?),
        BatchOp::RowMutations(m) => BatchOp::RowMutations(physical_mutations(layout, m)?),
        BatchOp::CheckAndMutate(c) => {
            BatchOp::CheckAndMutate(physical_check_and_mutate(layout, c)?)
        }
    })
}

pub(crate) fn logical_outcome(layout: Option<KeyLayout>, o: BatchOutcome) -> Result<BatchOutcome> {
    Ok(match o {
        BatchOutcome::Row(r) => BatchOutcome::Row(logical_result(layout, r)?),
        BatchOutcome::Rows(rs) => BatchOutcome::Rows(
            rs.into_iter()
                .map(|r| logical_result(layout, r))
                .collect::<Result<_>>()?,
        ),
        BatchOutcome::CheckAndMutate(c) => BatchOutcome::CheckAndMutate(CheckAndMutateResult {
            success: c.success,
            result: c.result.map(|r| logical_result(layout, r)).transpose()?,
        }),
        BatchOutcome::Done => BatchOutcome::Done,
    })
}

/// Whether logical row `row` is inside the scan's range (start and stop as the scan gives
/// them: for a reversed scan, start is the upper bound).
pub(crate) fn in_range(scan: &Scan, row: &[u8]) -> bool {
    let (lo, hi, lo_in, hi_in) = if scan.reversed {
        (
            &scan.stop_row,
            &scan.start_row,
            scan.include_stop_row,
            scan.include_start_row,
        )
    } else {
        (
            &scan.start_row,
            &scan.stop_row,
            scan.include_start_row,
            scan.include_stop_row,
        )
    };
    let above = lo.is_empty() || row > &lo[..] || (lo_in && row == &lo[..]);
    let below = hi.is_empty() || row < &hi[..] || (hi_in && row == &hi[..]);
    above && below
}

/// Bucket `bucket`'s stored range for a logical scan.
pub(crate) fn bucket_scan(layout: KeyLayout, bucket: u8, scan: &Scan) -> Scan {
    let mut s = scan.clone();
    let with = |k: &Bytes| {
        let mut v = Vec::with_capacity(k.len() + 1);
        v.push(bucket);
        v.extend_from_slice(k);
        Bytes::from(v)
    };
    let bucket_end = || {
        if bucket == u8::MAX {
            Bytes::new()
        } else {
            Bytes::from(vec![bucket + 1])
        }
    };
    if scan.reversed {
        // From the upper bound down to the lower.
        s.start_row = if scan.start_row.is_empty() {
            s.include_start_row = false;
            bucket_end()
        } else {
            with(&scan.start_row)
        };
        s.stop_row = if scan.stop_row.is_empty() {
            Bytes::from(vec![bucket])
        } else {
            with(&scan.stop_row)
        };
    } else {
        let (start, stop) = layout.bucket_range(bucket, &scan.start_row, &scan.stop_row);
        s.start_row = start;
        s.stop_row = stop;
        if scan.stop_row.is_empty() {
            s.include_stop_row = false;
        }
    }
    s
}

/// Which bucket's head comes next in logical order: the least (or, reversed, greatest); ties
/// keep the lower bucket, so a row's pieces (a batch limit) stay together.
pub(crate) fn next_head(heads: &[Option<RowResult>], reversed: bool) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (i, head) in heads.iter().enumerate() {
        let Some(h) = head else { continue };
        let better = match best.and_then(|b| heads[b].as_ref()) {
            None => true,
            Some(b) if reversed => h.row > b.row,
            Some(b) => h.row < b.row,
        };
        if better {
            best = Some(i);
        }
    }
    best
}

/// The scan that reads a hash-prefixed or reversed table whole (its stored order says
/// nothing of the logical one): [`sorted_in_range`] keeps what `scan` asks for.
pub(crate) fn whole_table(scan: &Scan) -> Scan {
    let mut all = scan.clone();
    all.start_row = Bytes::new();
    all.stop_row = Bytes::new();
    all.reversed = false;
    all.limit = None;
    all
}

/// Keeps a logical row of [`whole_table`]'s if `scan` wants it; refuses more than
/// [`SORTED_SCAN_LIMIT`] of them.
pub(crate) fn keep_in_range(
    rows: &mut Vec<RowResult>,
    row: RowResult,
    scan: &Scan,
    table: &TableName,
    layout: KeyLayout,
) -> Result<()> {
    if in_range(scan, &row.row) {
        rows.push(row);
        if rows.len() > SORTED_SCAN_LIMIT {
            return Err(Error::Refused(format!(
                "a range scan of {table} ({layout}) sorts its rows in memory, and this \
                 one has more than {SORTED_SCAN_LIMIT}: narrow it, or use a SALT or \
                 TIME_BUCKETS layout, whose scans merge in order"
            )));
        }
    }
    Ok(())
}

/// The rows kept, in the scan's logical order, up to its limit.
pub(crate) fn sorted_in_range(mut rows: Vec<RowResult>, scan: &Scan) -> Vec<RowResult> {
    // Stable: a row's pieces keep their order.
    rows.sort_by(|a, b| a.row.cmp(&b.row));
    if scan.reversed {
        rows.reverse();
    }
    let mut out = Vec::new();
    let mut whole = 0;
    for r in rows {
        if scan.limit.is_some_and(|l| whole >= l) {
            break;
        }
        if !r.partial {
            whole += 1;
        }
        out.push(r);
    }
    out
}

/// Merges the buckets' rows (each in stored order, so in logical order within the bucket)
/// into logical order.
struct Merge {
    layout: KeyLayout,
    reversed: bool,
    limit: Option<usize>,
    returned: usize,
    sources: Vec<Receiver<Result<RowResult>>>,
    heads: Vec<Option<RowResult>>,
    started: bool,
    failed: bool,
}

impl Merge {
    fn fill(&mut self, i: usize) -> Option<Error> {
        match self.sources[i].recv() {
            Ok(Ok(row)) => match logical_result(Some(self.layout), row) {
                Ok(r) => self.heads[i] = Some(r),
                Err(e) => return Some(e),
            },
            Ok(Err(e)) => return Some(e),
            Err(_) => self.heads[i] = None,
        }
        None
    }
}

impl Iterator for Merge {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Result<RowResult>> {
        if self.failed || self.limit.is_some_and(|l| self.returned >= l) {
            return None;
        }
        if !self.started {
            self.started = true;
            for i in 0..self.sources.len() {
                if let Some(e) = self.fill(i) {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let i = next_head(&self.heads, self.reversed)?;
        let row = self.heads[i].take()?;
        if let Some(e) = self.fill(i) {
            self.failed = true;
            return Some(Err(e));
        }
        if !row.partial {
            self.returned += 1;
        }
        Some(Ok(row))
    }
}

impl LayoutClient {
    fn scan_buckets(
        &self,
        layout: KeyLayout,
        buckets: u16,
        table: &TableName,
        scan: &Scan,
    ) -> Result<Scanner> {
        let mut sources = Vec::new();
        for bucket in 0..buckets {
            let s = bucket_scan(layout, bucket as u8, scan);
            let rows = Arc::clone(&self.inner).scan(table, &s)?;
            let (tx, rx) = sync_channel(READ_AHEAD);
            std::thread::Builder::new()
                .name(format!("scan-bucket-{bucket}"))
                .spawn(move || {
                    for row in rows {
                        // The merge went away (dropped or done): stop reading.
                        if tx.send(row).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| Error::storage(format!("starting a bucket's scan: {e}")))?;
            sources.push(rx);
        }
        let heads = vec![None; sources.len()];
        Ok(Scanner::new(Merge {
            layout,
            reversed: scan.reversed,
            limit: scan.limit,
            returned: 0,
            sources,
            heads,
            started: false,
            failed: false,
        }))
    }

    /// A hash prefix or a reversal: the whole table, the rows in range sorted.
    fn scan_sorted(&self, layout: KeyLayout, table: &TableName, scan: &Scan) -> Result<Scanner> {
        let mut rows = Vec::new();
        for row in Arc::clone(&self.inner).scan(table, &whole_table(scan))? {
            let row = logical_result(Some(layout), row?)?;
            keep_in_range(&mut rows, row, scan, table, layout)?;
        }
        let rows = sorted_in_range(rows, scan);
        Ok(Scanner::new(rows.into_iter().map(Ok)))
    }
}

impl crate::ServerAdmin for LayoutClient {
    // Servers and regions are not keyed by rows: all of it passes through.
    crate::client::server_admin_calls!(forward_server_admin inner);
}

impl crate::DataClient for LayoutClient {
    fn bulk_load(
        &self,
        table: &TableName,
        row: &[u8],
        files: &[(Bytes, std::path::PathBuf)],
    ) -> Result<()> {
        self.inner.bulk_load(table, row, files)
    }

    fn put(&self, table: &TableName, put: &Put) -> Result<()> {
        let Some(known) = self.layout(table) else {
            return self.inner.put(table, put);
        };
        let layout = Some(known);
        self.inner.put(table, &at_stored_row(layout, put)?)
    }

    fn delete(&self, table: &TableName, delete: &Delete) -> Result<()> {
        // A plain table passes through untouched: no copy on the gateways' hot path.
        let Some(known) = self.layout(table) else {
            return self.inner.delete(table, delete);
        };
        let layout = Some(known);
        self.inner.delete(table, &at_stored_row(layout, delete)?)
    }

    fn get(&self, table: &TableName, get: &Get) -> Result<RowResult> {
        // A plain table passes through untouched: no copy on the gateways' hot path.
        let Some(known) = self.layout(table) else {
            return self.inner.get(table, get);
        };
        let layout = Some(known);
        let r = self.inner.get(table, &at_stored_row(layout, get)?)?;
        logical_result(layout, r)
    }

    fn coprocessor_service(
        &self,
        table: &TableName,
        call: &EndpointCall<'_>,
    ) -> Result<Vec<(Bytes, Vec<u8>)>> {
        // The range is in the table's stored keys: an endpoint sees the rows as stored.
        self.inner.coprocessor_service(table, call)
    }

    fn aggregate(
        self: Arc<Self>,
        table: &TableName,
        scan: &Scan,
        interpreter: crate::aggregate::Interpreter,
        what: crate::aggregate::Aggregation,
    ) -> Result<Option<crate::aggregate::Number>> {
        if self.layout(table).is_none() {
            return Arc::clone(&self.inner).aggregate(table, scan, interpreter, what);
        }
        // The stored keys are not the rows': the rows are read here, through the layout.
        crate::aggregate::computed_here(self, table, scan, interpreter, what)
    }

    fn scan(self: Arc<Self>, table: &TableName, scan: &Scan) -> Result<Scanner> {
        match self.layout(table) {
            None => Arc::clone(&self.inner).scan(table, scan),
            Some(layout) => match layout.buckets() {
                Some(n) => self.scan_buckets(layout, n, table, scan),
                None => self.scan_sorted(layout, table, scan),
            },
        }
    }

    fn increment(&self, table: &TableName, inc: &Increment) -> Result<RowResult> {
        // A plain table passes through untouched: no copy on the gateways' hot path.
        let Some(known) = self.layout(table) else {
            return self.inner.increment(table, inc);
        };
        let layout = Some(known);
        let r = self.inner.increment(table, &at_stored_row(layout, inc)?)?;
        logical_result(layout, r)
    }

    fn append(&self, table: &TableName, append: &Append) -> Result<RowResult> {
        // A plain table passes through untouched: no copy on the gateways' hot path.
        let Some(known) = self.layout(table) else {
            return self.inner.append(table, append);
        };
        let layout = Some(known);
        let r = self.inner.append(table, &at_stored_row(layout, append)?)?;
        logical_result(layout, r)
    }

    fn check_and_mutate(
        &self,
        table: &TableName,
        cam: &CheckAndMutate,
    ) -> Result<CheckAndMutateResult> {
        // A plain table passes through untouched: no copy on the gateways' hot path.
        let Some(known) = self.layout(table) else {
            return self.inner.check_and_mutate(table, cam);
        };
        let layout = Some(known);
        let r = self
            .inner
            .check_and_mutate(table, &physical_check_and_mutate(layout, cam)?)?;
        Ok(CheckAndMutateResult {
            success: r.success,
            result: r.result.map(|x| logical_result(layout, x)).transpose()?,
        })
    }

    fn batch(&self, table: &TableName, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        let Some(known) = self.layout(table) else {
            return self.inner.batch(table, ops);
        };
        let layout = Some(known);
        // Ops whose key does not fit the layout fail alone, as a refused op of a batch does.
        let mut out: Vec<Option<Result<BatchOutcome>>> = Vec::with_capacity(ops.len());
        let mut sent = Vec::new();
        let mut at = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match physical_batch_op(layout, op) {
                Ok(p) => {
                    sent.push(p);
                    at.push(i);
                    out.push(None);
                }
                Err(e) => out.push(Some(Err(e))),
            }
        }
        for (i, r) in at.into_iter().zip(self.inner.batch(table, &sent)) {
            out[i] = Some(r.and_then(|o| logical_outcome(layout, o)));
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::storage("a batch answered too few ops"))))
            .collect()
    }
}
