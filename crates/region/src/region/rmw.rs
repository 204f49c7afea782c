//! Read-modify-writes of one row (HBase's increment, append, checkAndMutate) and atomic row
//! mutations: each takes the row's lock exclusively, reads what it needs at the current read
//! point, builds every cell, and applies them as one mutation (docs/design/data-model.md).

use std::collections::{BTreeMap, BTreeSet};

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::error::{Error, Result};
use basalt_common::ops::{
    Append, Check, CheckAction, CheckAndMutate, CheckAndMutateResult, Get, Increment, RowMutations,
    RowOp, RowResult, TimeRange,
};
use basalt_common::{Bytes, Cell, CellType, Durability};

use super::Region;
use super::observed::{after_action, observe_action};
use crate::matcher::StoreQuery;

/// Cells to apply, each with the index of its store.
type StoreCells = Vec<(usize, Cell)>;

/// The newest timestamp among cells the server stamped.
fn newest(cells: &[(usize, Cell)]) -> Option<i64> {
    cells.iter().map(|(_, c)| c.timestamp).max()
}

/// An 8-byte big-endian counter, or HBase's error for a cell of another size.
fn decode_counter(value: &[u8]) -> Result<i64> {
    let bytes: [u8; 8] = value.try_into().map_err(|_| {
        Error::Refused(format!(
            "Field is not a long, it's {} bytes wide",
            value.len()
        ))
    })?;
    Ok(i64::from_be_bytes(bytes))
}

/// The strongest durability the mutations ask for (USE_DEFAULT counts as the table's, so it
/// is kept unless FSYNC_WAL is asked for).
fn strongest(mutations: &[RowOp]) -> Durability {
    let rank = |d: Durability| match d {
        Durability::SkipWal => 0,
        Durability::AsyncWal => 1,
        Durability::SyncWal => 2,
        Durability::UseDefault => 3,
        Durability::FsyncWal => 4,
    };
    mutations
        .iter()
        .map(RowOp::durability)
        .max_by_key(|d| rank(*d))
        .unwrap_or(Durability::UseDefault)
}

impl Region {
    /// Checks what every read-modify-write checks first, and returns the row's exclusive lock.
    fn lock_for_rmw(&self, row: &[u8], what: &str) -> Result<std::sync::RwLockWriteGuard<'_, ()>> {
        self.check_writable(what)?;
        self.check_row(row)?;
        self.check_serving(row)?;
        Ok(self.row_locks.exclusive(row))
    }

    /// Adds to counters of one row and returns their new cells, atomically (HBase's
    /// `increment`): each counter is read (its newest version within the time range; missing
    /// counts as 0) and written at `max(its timestamp + 1, now)`, all under the row's
    /// exclusive lock, so concurrent increments lose nothing. A counter that is not 8 bytes
    /// fails the whole Increment. Overflow wraps, as Java's long arithmetic does.
    pub(crate) fn increment_stored(&self, inc: &Increment) -> Result<RowResult> {
        let _lock = self.lock_for_rmw(&inc.row, "Increment")?;
        let (cells, out) = self.increment_cells(inc, self.now_for(&inc.row))?;
        self.note_floor(&inc.row, newest(&cells));
        self.apply(cells, inc.durability)?;
        Ok(out)
    }

    /// Appends to cells of one row and returns their new cells, atomically (HBase's `append`);
    /// timestamps as for increments.
    pub(crate) fn append_stored(&self, append: &Append) -> Result<RowResult> {
        let _lock = self.lock_for_rmw(&append.row, "Append")?;
        let (cells, out) = self.append_cells(append, self.now_for(&append.row))?;
        self.note_floor(&append.row, newest(&cells));
        self.apply(cells, append.durability)?;
        Ok(out)
    }

    /// Applies puts, deletes, increments and appends of one row atomically (HBase's
    /// `mutateRow`): one sequence id, all visible together. Every read (deletes of "the newest
    /// version", increments, appends) sees the row as it was before. Returns one result per
    /// mutation, in order: an increment's or append's new cells, empty for a put or delete.
    pub(crate) fn mutate_row_stored(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        mutations.validate()?;
        let _lock = self.lock_for_rmw(&mutations.row, mutations.class())?;
        let now = self.now_for(&mutations.row);
        let (cells, results, floor) = self.row_mutation_cells(mutations, now)?;
        self.note_floor(&mutations.row, floor);
        self.apply(cells, strongest(&mutations.mutations))?;
        Ok(results)
    }

    /// Applies `cam.action` if `cam.condition` holds on the row's current data, atomically
    /// (HBase's `checkAndMutate`). A Put's cells without a timestamp are written at
    /// `max(now, the checked cell's timestamp)`, as HBase does. With `hooks` (an observer's),
    /// the action's write hooks run once the check passed.
    pub(crate) fn check_and_mutate_stored(
        &self,
        cam: &CheckAndMutate,
        hooks: Option<&dyn crate::RegionObserver>,
    ) -> Result<CheckAndMutateResult> {
        if cam.action.row() != &cam.row {
            return Err(Error::InvalidArgument(format!(
                "The row of the action ({}) differs from the checked row ({})",
                BinaryDisplay::new(cam.action.row()),
                BinaryDisplay::new(&cam.row)
            )));
        }
        if let CheckAction::RowMutations(m) = &cam.action {
            m.validate()?;
        }
        let (holds, stamp, _lock, now) = match &cam.check {
            Check::Column(c) => {
                c.time_range.validate()?;
                let store = self.store_index(&c.family)?;
                let lock = self.lock_for_rmw(&cam.row, cam.action.class())?;
                let now = self.now_for(&cam.row);
                let current = self.newest_cell(&cam.row, store, &c.qualifier, c.time_range, now)?;
                let holds = c.holds(current.as_ref().map(Cell::value));
                let stamp = now.max(current.map_or(now, |c| c.timestamp));
                (holds, stamp, lock, now)
            }
            Check::Filter { filter, time_range } => {
                let mut get = Get::new(cam.row.clone()).with_filter(filter.clone());
                get.time_range = *time_range;
                let lock = self.lock_for_rmw(&cam.row, cam.action.class())?;
                let now = self.now_for(&cam.row);
                let holds = !self.get_stored(&get)?.cells.is_empty();
                (holds, now, lock, now)
            }
        };
        if !holds {
            return Ok(CheckAndMutateResult {
                success: false,
                result: None,
            });
        }
        // With the check passed, the action is a write like any other: the observer's put
        // and delete hooks see it (as HBase's batch under checkAndMutate calls prePut), under
        // the row's lock.
        let observed = match hooks {
            Some(observer) => Some(observe_action(observer, &cam.action)?),
            None => None,
        };
        let action = observed.as_ref().unwrap_or(&cam.action);
        let (cells, durability, result, floor) = match action {
            CheckAction::Put(p) => (
                self.put_cells(p, stamp)?,
                p.durability,
                None,
                Self::put_floor(p, stamp),
            ),
            CheckAction::Delete(d) => {
                self.validate_delete(d)?;
                let markers = self.delete_markers(d, now)?;
                let floor = Self::delete_floor(&markers, now);
                (
                    self.marker_cells(&d.row, markers)?,
                    d.durability,
                    None,
                    floor,
                )
            }
            CheckAction::RowMutations(m) => {
                let (cells, _, floor) = self.row_mutation_cells(m, stamp)?;
                (cells, strongest(&m.mutations), None, floor)
            }
            CheckAction::Increment(i) => {
                let (cells, out) = self.increment_cells(i, now)?;
                let floor = newest(&cells);
                (cells, i.durability, Some(out), floor)
            }
            CheckAction::Append(a) => {
                let (cells, out) = self.append_cells(a, now)?;
                let floor = newest(&cells);
                (cells, a.durability, Some(out), floor)
            }
        };
        self.note_floor(&cam.row, floor);
        self.apply(cells, durability)?;
        let mut result = result;
        if let Some(observer) = hooks {
            after_action(observer, action, result.as_mut())?;
        }
        Ok(CheckAndMutateResult {
            success: true,
            result,
        })
    }

    /// The cells of a RowMutations, in order, each mutation's result, and the floor the
    /// server's stamps of them leave (the caller holds the row's exclusive lock).
    fn row_mutation_cells(
        &self,
        m: &RowMutations,
        now: i64,
    ) -> Result<(StoreCells, Vec<RowResult>, Option<i64>)> {
        let mut cells = Vec::new();
        let mut results = Vec::with_capacity(m.mutations.len());
        let mut floor: Option<i64> = None;
        for mutation in &m.mutations {
            let (result, stamped) = match mutation {
                RowOp::Put(p) => {
                    self.check_row(&p.row)?;
                    cells.extend(self.put_cells(p, now)?);
                    (None, Self::put_floor(p, now))
                }
                RowOp::Delete(d) => {
                    self.validate_delete(d)?;
                    let markers = self.delete_markers(d, now)?;
                    let stamped = Self::delete_floor(&markers, now);
                    cells.extend(self.marker_cells(&d.row, markers)?);
                    (None, stamped)
                }
                RowOp::Increment(i) => {
                    let (more, out) = self.increment_cells(i, now)?;
                    let stamped = newest(&more);
                    cells.extend(more);
                    (Some(out), stamped)
                }
                RowOp::Append(a) => {
                    let (more, out) = self.append_cells(a, now)?;
                    let stamped = newest(&more);
                    cells.extend(more);
                    (Some(out), stamped)
                }
            };
            floor = floor.max(stamped);
            results.push(result.unwrap_or_else(|| RowResult {
                row: m.row.clone(),
                cells: Vec::new(),
                partial: false,
            }));
        }
        Ok((cells, results, floor))
    }

    /// Reads each column of a read-modify-write (the caller holds the row's exclusive lock)
    /// and builds its new cell from the old value with `combine`; returns the cells to apply
    /// and the result to return. A column given twice counts once, its last amount winning,
    /// as in HBase's family map.
    fn rmw_cells<T: Clone>(
        &self,
        row: &Bytes,
        columns: impl Iterator<Item = (Bytes, Bytes, T)>,
        time_range: TimeRange,
        ttl_ms: Option<u64>,
        now: i64,
        combine: impl Fn(Option<&Cell>, &T) -> Result<Vec<u8>>,
    ) -> Result<(Vec<(usize, Cell)>, RowResult)> {
        time_range.validate()?;
        let mut by_column = BTreeMap::new();
        for (family, qualifier, arg) in columns {
            let store = self.store_index(&family)?;
            by_column.insert((store, qualifier), arg);
        }
        if by_column.is_empty() {
            return Err(Error::InvalidArgument("No columns to update".into()));
        }
        let mut cells = Vec::with_capacity(by_column.len());
        let mut out = Vec::with_capacity(by_column.len());
        for ((store, qualifier), arg) in &by_column {
            let current = self.newest_cell(row, *store, qualifier, time_range, now)?;
            let value = combine(current.as_ref(), arg)?;
            let ts = current.map_or(now, |c| now.max(c.timestamp.saturating_add(1)));
            let cell = self.stores[*store]
                .build_cell(row, qualifier, ts, CellType::Put, &value)?
                .with_ttl_ms(ttl_ms);
            out.push(cell.clone());
            cells.push((*store, cell));
        }
        Ok((
            cells,
            RowResult {
                row: row.clone(),
                cells: out,
                partial: false,
            },
        ))
    }

    fn increment_cells(
        &self,
        inc: &Increment,
        now: i64,
    ) -> Result<(Vec<(usize, Cell)>, RowResult)> {
        self.rmw_cells(
            &inc.row,
            inc.columns.iter().cloned(),
            inc.time_range,
            inc.ttl_ms,
            now,
            |current, amount: &i64| {
                let old = current.map_or(Ok(0), |c| decode_counter(c.value()))?;
                Ok(old.wrapping_add(*amount).to_be_bytes().to_vec())
            },
        )
    }

    fn append_cells(&self, append: &Append, now: i64) -> Result<(Vec<(usize, Cell)>, RowResult)> {
        let (cells, out) = self.rmw_cells(
            &append.row,
            append.columns.iter().cloned(),
            append.time_range,
            append.ttl_ms,
            now,
            |current, tail: &Bytes| {
                let mut v = current.map_or_else(Vec::new, |c| c.value().to_vec());
                v.extend_from_slice(tail);
                Ok(v)
            },
        )?;
        for (_, cell) in &cells {
            self.check_cell_size(
                cell.row(),
                cell.family(),
                cell.qualifier(),
                cell.value().len(),
            )?;
        }
        Ok((cells, out))
    }

    /// The newest visible cell of a column within `time_range`.
    fn newest_cell(
        &self,
        row: &[u8],
        store: usize,
        qualifier: &[u8],
        time_range: TimeRange,
        now: i64,
    ) -> Result<Option<Cell>> {
        let columns = BTreeSet::from([Bytes::copy_from_slice(qualifier)]);
        let family = self.stores[store].family();
        let query = StoreQuery::new(family, Some(&columns), time_range, 1, false, now);
        let cells = self.read_store_row(store, row, query)?;
        Ok(cells.into_iter().next())
    }
}
