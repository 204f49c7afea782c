//! Code a region runs around its own operations: HBase's `RegionObserver` hooks and its
//! coprocessor endpoints, as one trait. The engine only calls it; what runs behind it (the
//! region server's WebAssembly modules, `basalt-coprocessor`) is not the engine's business.
//!
//! Every hook has a default that lets the operation through unchanged, so an observer
//! implements only what it wants. A `pre_` hook that fails vetoes the operation: the caller
//! gets its error and nothing is written. A `post_` hook that fails after a write reaches
//! the caller as the operation's error, though the write stands (as a Java coprocessor's
//! exception from `postPut` does).

use std::fmt;

use basalt_common::Result;
use basalt_common::cell::Cell;
use basalt_common::ops::{
    Append, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put, RowResult, Scan,
};

/// See the module documentation. `&self` hooks are called from many threads at once.
pub trait RegionObserver: Send + Sync + fmt::Debug {
    /// Before a Get: `Ok(Some(result))` answers it without reading (HBase's bypass), and
    /// `post_get` is not called then.
    fn pre_get(&self, _get: &Get) -> Result<Option<RowResult>> {
        Ok(None)
    }

    /// After a Get: may change the row returned.
    fn post_get(&self, _get: &Get, _result: &mut RowResult) -> Result<()> {
        Ok(())
    }

    /// Before a Put is applied: may change its cells (not its row) or veto it.
    fn pre_put(&self, _put: &mut Put) -> Result<()> {
        Ok(())
    }

    fn post_put(&self, _put: &Put) -> Result<()> {
        Ok(())
    }

    /// Before a Delete is applied: may change its markers (not its row) or veto it.
    fn pre_delete(&self, _delete: &mut Delete) -> Result<()> {
        Ok(())
    }

    fn post_delete(&self, _delete: &Delete) -> Result<()> {
        Ok(())
    }

    /// Before an Increment (alone, in a row mutation, or as a check-and-mutate's action once
    /// its check holds): may change its columns and amounts (not its row) or veto it.
    fn pre_increment(&self, _inc: &mut Increment) -> Result<()> {
        Ok(())
    }

    /// After an Increment: may change the counters' new cells it returns.
    fn post_increment(&self, _inc: &Increment, _result: &mut RowResult) -> Result<()> {
        Ok(())
    }

    /// Before an Append, as [`RegionObserver::pre_increment`].
    fn pre_append(&self, _append: &mut Append) -> Result<()> {
        Ok(())
    }

    /// After an Append: may change the new cells it returns.
    fn post_append(&self, _append: &Append, _result: &mut RowResult) -> Result<()> {
        Ok(())
    }

    /// Before a scanner opens: may veto it.
    fn pre_scan_open(&self, _scan: &Scan) -> Result<()> {
        Ok(())
    }

    /// Whether [`RegionObserver::post_scan_next`] does anything: scanners of a region whose
    /// observer says no never call it.
    fn observes_scans(&self) -> bool {
        false
    }

    /// Each row (or part of a row) a scanner returns: `Ok(None)` drops it, `Ok(Some(row))`
    /// returns that instead. HBase calls `postScannerNext` once per batch of rows; this is
    /// called once per row.
    fn post_scan_next(&self, row: RowResult) -> Result<Option<RowResult>> {
        Ok(Some(row))
    }

    /// Before a check-and-mutate: may change it (not its row) or veto it.
    fn pre_check_and_mutate(&self, _cam: &mut CheckAndMutate) -> Result<()> {
        Ok(())
    }

    fn post_check_and_mutate(
        &self,
        _cam: &CheckAndMutate,
        _result: &mut CheckAndMutateResult,
    ) -> Result<()> {
        Ok(())
    }

    /// Before and after a flush. A flush is never vetoed (memory has to be freed): what
    /// these hooks return is logged.
    fn pre_flush(&self) -> Result<()> {
        Ok(())
    }

    fn post_flush(&self) -> Result<()> {
        Ok(())
    }

    /// Before a compaction: an error vetoes it (the compaction is skipped and its caller
    /// told why).
    fn pre_compact(&self, _major: bool) -> Result<()> {
        Ok(())
    }

    fn post_compact(&self, _major: bool) -> Result<()> {
        Ok(())
    }

    /// Before and after one WAL edit is replayed into the region as it opens after a crash
    /// (HBase's `preWALRestore`/`postWALRestore`): the cells the edit wrote. The region is not
    /// serving yet; what these return is logged.
    fn pre_wal_restore(&self, _cells: &[Cell]) -> Result<()> {
        Ok(())
    }

    fn post_wal_restore(&self, _cells: &[Cell]) -> Result<()> {
        Ok(())
    }

    /// An endpoint call (ExecService's CoprocessorServiceCall): `None` if no endpoint here
    /// serves `service`.
    fn endpoint(&self, _service: &str, _method: &str, _request: &[u8]) -> Option<Result<Vec<u8>>> {
        None
    }

    /// What runs here, for status pages: each module's name and whether it still runs.
    fn modules(&self) -> Vec<(String, bool)> {
        Vec::new()
    }

    /// Called once the region is open and serving (after any replay).
    fn opened(&self) {}
}
