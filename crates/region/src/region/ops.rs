//! The region's public reads and writes, through layers around one trait ([`RegionOps`]):
//! the engine ([`Engine`]: the stored operations of `write.rs`, `read.rs` and `rmw.rs`),
//! `hbase:meta`'s key order around it for meta's region (`meta_order.rs`), and a coprocessor's
//! hooks around it for a region with an observer (`observed.rs`). Each public call picks its
//! layers in one place, [`Region::layers`].

use basalt_common::Durability;
use basalt_common::error::Result;
use basalt_common::metrics::Op;
use basalt_common::ops::{
    Append, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put, RowMutations,
    RowResult, Scan,
};

use super::meta_order::MetaOrder;
use super::observed::Observed;
use super::{Region, RowMutation};
use crate::{RegionObserver, RegionScanner};

/// A region's operations, as a layer serves them to the one above it.
pub(super) trait RegionOps {
    fn put(&self, put: &Put) -> Result<()>;
    fn mutate_rows(&self, mutations: &[RowMutation], durability: Durability) -> Result<()>;
    fn delete(&self, delete: &Delete) -> Result<()>;
    fn get(&self, get: &Get) -> Result<RowResult>;
    fn scan(&self, scan: &Scan) -> Result<RegionScanner>;
    fn increment(&self, inc: &Increment) -> Result<RowResult>;
    fn append(&self, append: &Append) -> Result<RowResult>;
    fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>>;
    /// With `hooks`, the action's write hooks run once the check passed, under the row's
    /// lock (an observer cannot run them from outside).
    fn check_and_mutate(
        &self,
        cam: &CheckAndMutate,
        hooks: Option<&dyn RegionObserver>,
    ) -> Result<CheckAndMutateResult>;
}

/// The engine alone: rows as stored, no hooks.
pub(super) struct Engine<'a>(pub(super) &'a Region);

impl RegionOps for Engine<'_> {
    fn put(&self, put: &Put) -> Result<()> {
        self.0.put_stored(put)
    }

    fn mutate_rows(&self, mutations: &[RowMutation], durability: Durability) -> Result<()> {
        self.0.mutate_rows_stored(mutations, durability)
    }

    fn delete(&self, delete: &Delete) -> Result<()> {
        self.0.delete_stored(delete)
    }

    fn get(&self, get: &Get) -> Result<RowResult> {
        self.0.get_stored(get)
    }

    fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        self.0.scan_stored(scan)
    }

    fn increment(&self, inc: &Increment) -> Result<RowResult> {
        self.0.increment_stored(inc)
    }

    fn append(&self, append: &Append) -> Result<RowResult> {
        self.0.append_stored(append)
    }

    fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        self.0.mutate_row_stored(mutations)
    }

    fn check_and_mutate(
        &self,
        cam: &CheckAndMutate,
        hooks: Option<&dyn RegionObserver>,
    ) -> Result<CheckAndMutateResult> {
        self.0.check_and_mutate_stored(cam, hooks)
    }
}

impl Region {
    /// Runs `op` on this region's layers: meta's key order for meta's region, the observer's
    /// hooks (unless `observed` is false: a coprocessor's own read) for a region with one,
    /// else the engine alone. Meta's region never has an observer (`set_observer`).
    fn layers<T>(&self, observed: bool, op: impl FnOnce(&dyn RegionOps) -> T) -> T {
        let engine = Engine(self);
        if self.meta {
            return op(&MetaOrder(engine));
        }
        match self.observer().filter(|_| observed) {
            Some(observer) => op(&Observed::new(self, observer, engine)),
            None => op(&engine),
        }
    }

    /// Writes every cell of `put` atomically.
    pub fn put(&self, put: &Put) -> Result<()> {
        let _timer = self.time(Op::Put);
        self.layers(true, |ops| ops.put(put))
    }

    /// Applies puts and deletes of several rows as one atomic mutation: one sequence id, one
    /// WAL record, all visible at once (HBase's `mutateRowsWithLocks`, which `hbase:meta`
    /// changes use). Deletes must name their timestamps or delete whole columns or families:
    /// a "newest version" delete would have to read first.
    pub fn mutate_rows(&self, mutations: &[RowMutation], durability: Durability) -> Result<()> {
        self.layers(true, |ops| ops.mutate_rows(mutations, durability))
    }

    /// Writes the delete markers of `delete` atomically. A whole-row delete writes one
    /// DeleteFamily marker per family; a single-version delete without a timestamp masks the
    /// newest version there is (or "now" when there is none), as HBase's
    /// `prepareDeleteTimestamps` does.
    pub fn delete(&self, delete: &Delete) -> Result<()> {
        let _timer = self.time(Op::Delete);
        self.layers(true, |ops| ops.delete(delete))
    }

    /// Reads one row.
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        let _timer = self.time(Op::Get);
        self.layers(true, |ops| ops.get(get))
    }

    /// Reads one row without the region's observer (a coprocessor's own read).
    pub fn get_unobserved(&self, get: &Get) -> Result<RowResult> {
        self.layers(false, |ops| ops.get(get))
    }

    /// [`Region::get_unobserved`] as a raw read: delete markers and the cells they mask too,
    /// as a raw scan returns them (a coprocessor's look at what a delete removed).
    pub fn get_raw_unobserved(&self, get: &Get) -> Result<RowResult> {
        let mut scan = Scan::new()
            .with_start_row(get.row.clone())
            .with_stop_row_inclusive(get.row.clone(), true)
            .raw(true);
        scan.families = get.families.clone();
        scan.time_range = get.time_range;
        scan.max_versions = get.max_versions;
        let mut rows = self.layers(false, |ops| ops.scan(&scan))?;
        Ok(rows.next().transpose()?.unwrap_or(RowResult {
            row: get.row.clone(),
            cells: Vec::new(),
            partial: false,
        }))
    }

    /// Opens a scanner over the rows `scan` selects, at the current read point.
    pub fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        self.layers(true, |ops| ops.scan(scan))
    }

    /// Adds to counters of one row and returns their new cells, atomically (HBase's
    /// `increment`): each counter is read (its newest version within the time range; missing
    /// counts as 0) and written at `max(its timestamp + 1, now)`, all under the row's
    /// exclusive lock, so concurrent increments lose nothing. A counter that is not 8 bytes
    /// fails the whole Increment. Overflow wraps, as Java's long arithmetic does.
    pub fn increment(&self, inc: &Increment) -> Result<RowResult> {
        let _timer = self.time(Op::Increment);
        self.layers(true, |ops| ops.increment(inc))
    }

    /// Appends to cells of one row and returns their new cells, atomically (HBase's `append`);
    /// timestamps as for increments.
    pub fn append(&self, append: &Append) -> Result<RowResult> {
        let _timer = self.time(Op::Append);
        self.layers(true, |ops| ops.append(append))
    }

    /// Applies puts, deletes, increments and appends of one row atomically (HBase's
    /// `mutateRow`): one sequence id, all visible together. Every read (deletes of "the newest
    /// version", increments, appends) sees the row as it was before. Returns one result per
    /// mutation, in order: an increment's or append's new cells, empty for a put or delete.
    pub fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        self.layers(true, |ops| ops.mutate_row(mutations))
    }

    /// Applies `cam.action` if `cam.condition` holds on the row's current data, atomically
    /// (HBase's `checkAndMutate`). A Put's cells without a timestamp are written at
    /// `max(now, the checked cell's timestamp)`, as HBase does.
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let _timer = self.time(Op::CheckAndMutate);
        self.layers(true, |ops| ops.check_and_mutate(cam, None))
    }
}
