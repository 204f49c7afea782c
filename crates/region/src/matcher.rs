//! The query matcher: which of a row's stored cells a read returns.
//!
//! One pass over one row of one store, in [`StoreKey`] order, applies HBase's rules in HBase's
//! order (`NormalUserScanQueryMatcher`, `RawScanQueryMatcher`, `ScanDeleteTracker`,
//! `ScanWildcardColumnTracker` / `ExplicitColumnTracker`):
//!
//! 1. expiry: a cell older than the family TTL ends its column (unless MIN_VERSIONS keeps it);
//!    a cell past its own TTL is skipped;
//! 2. delete markers are remembered, never returned (except by raw scans); with
//!    KEEP_DELETED_CELLS only markers inside the time range count, otherwise every marker at
//!    or after its start does;
//! 3. a put masked by a remembered marker is skipped;
//! 4. the time range, then the column selection;
//! 5. versions: a repeat of the timestamp just returned is a shadowed duplicate; deleted cells
//!    do not count; the column ends after `max_versions` cells, and expired cells past
//!    MIN_VERSIONS end it too;
//! 6. the read's filter, if any (`UserScanQueryMatcher.mergeFilterResponse`): it sees up to
//!    the family's VERSIONS of each column, and at most `max_versions` of the cells it
//!    includes are returned. Its answers move the cursor on: to the next column, the next
//!    row, or the key it hints.
//!
//! The cell order makes one pass enough: every marker that can mask a put sorts before it
//! (family markers live in the empty qualifier, the row's first column).

use std::collections::BTreeSet;

use std::cmp::Ordering;

use basalt_common::cell::compare_in_store;
use basalt_common::filter::{Filter, ReturnCode};
use basalt_common::ops::TimeRange;
use basalt_common::schema::KeepDeletedCells;
use basalt_common::{Bytes, Cell, CellType, ColumnFamilyDescriptor, Result};

use crate::cursor::{CellCursor, same_bytes};
use crate::key::bytes_eq;
use crate::nvb::NvbTracker;

/// What a read asks of one store, resolved against the family's schema.
#[derive(Debug, Clone)]
pub struct StoreQuery {
    /// Sorted explicit qualifiers, or `None` for every column.
    pub columns: Option<Vec<Bytes>>,
    pub time_range: TimeRange,
    pub max_versions: u32,
    /// Versions a filter is shown per column: the family's VERSIONS (raw: the requested ones).
    pub filter_versions: u32,
    pub min_versions: u32,
    /// Cells with a smaller timestamp have outlived the family TTL.
    pub oldest_unexpired: i64,
    pub now: i64,
    pub raw: bool,
    /// KEEP_DELETED_CELLS is on: markers only count inside the time range.
    pub see_past_deletes: bool,
    /// With NEW_VERSION_BEHAVIOR (not raw): the family's VERSIONS, which the order of writes
    /// enforces (`crate::nvb`).
    pub nvb_versions: Option<u32>,
}

impl StoreQuery {
    pub fn new(
        family: &ColumnFamilyDescriptor,
        columns: Option<&BTreeSet<Bytes>>,
        time_range: TimeRange,
        requested_versions: u32,
        raw: bool,
        now: i64,
    ) -> StoreQuery {
        // Raw scans ignore the family TTL, as HBase's StoreScanner does.
        let oldest_unexpired = match family.ttl_millis() {
            Some(ttl) if !raw => now.saturating_sub(ttl),
            _ => i64::MIN,
        };
        StoreQuery {
            columns: columns.map(|c| c.iter().cloned().collect()),
            time_range,
            max_versions: if raw {
                requested_versions
            } else {
                requested_versions.min(family.max_versions)
            },
            filter_versions: if raw {
                requested_versions
            } else {
                family.max_versions
            },
            min_versions: family.min_versions,
            oldest_unexpired,
            now,
            raw,
            see_past_deletes: family.keep_deleted_cells != KeepDeletedCells::False,
            nvb_versions: (family.new_version_behavior && !raw).then_some(family.max_versions),
        }
    }
}

/// Delete markers seen so far in the current row (family-wide) and column.
#[derive(Debug, Default)]
struct DeleteTracker {
    family_ts: Option<i64>,
    family_versions: Vec<i64>,
    column_ts: Option<i64>,
    column_versions: Vec<i64>,
}

/// Why a put is masked.
enum Masked {
    /// By a DeleteFamily or DeleteColumn: every older version of the column is masked too.
    AllOlder,
    /// By a Delete or DeleteFamilyVersion: this version only.
    ThisVersion,
}

impl DeleteTracker {
    fn add(&mut self, kind: CellType, ts: i64) {
        match kind {
            CellType::DeleteFamily => self.family_ts = self.family_ts.max(Some(ts)),
            CellType::DeleteFamilyVersion => self.family_versions.push(ts),
            CellType::DeleteColumn => self.column_ts = self.column_ts.max(Some(ts)),
            CellType::Delete => self.column_versions.push(ts),
            _ => {}
        }
    }

    fn start_column(&mut self) {
        self.column_ts = None;
        self.column_versions.clear();
    }

    fn check(&self, ts: i64) -> Option<Masked> {
        if self.family_ts.is_some_and(|d| ts <= d) || self.column_ts.is_some_and(|d| ts <= d) {
            Some(Masked::AllOlder)
        } else if self.family_versions.contains(&ts) || self.column_versions.contains(&ts) {
            Some(Masked::ThisVersion)
        } else {
            None
        }
    }
}

/// The column being walked.
#[derive(Debug, Default)]
struct ColumnState {
    /// Requested by the read (always, without explicit columns).
    selected: bool,
    /// Versions counted so far (puts only).
    count: u32,
    /// Cells the filter included so far.
    included: u32,
    /// Timestamp and type of the last cell returned, to drop shadowed duplicates.
    last: Option<(i64, CellType)>,
    /// The column has ended (versions, expiry, a filter's answer), but the cursor steps on
    /// through it: the empty qualifier's later cells may be family delete markers. Its
    /// remaining puts are neither returned nor shown to the filter.
    done: bool,
}

enum Step {
    Next,
    NextColumn,
    NextRow,
    SeekColumn(usize),
    /// A filter's hint.
    Hint(Cell),
}

/// Appends to `out` the cells of `row` that `query` returns from the store under `cursor`.
///
/// The cursor must be at the first cell at or after the start of `row` (it may already be in a
/// later row); it is left after the end of `row`, or at a later row a filter hinted. Returns
/// true if the filter is done with the whole scan (`filter_all_remaining`), which stops the
/// read where it is.
pub fn read_row<C: CellCursor + ?Sized>(
    cursor: &mut C,
    row: &[u8],
    query: &StoreQuery,
    mut filter: Option<&mut (dyn Filter + '_)>,
    out: &mut Vec<Cell>,
) -> Result<bool> {
    let mut deletes = DeleteTracker::default();
    let mut nvb = query.nvb_versions.map(NvbTracker::new);
    let mut col = ColumnState::default();
    // The current column's qualifier, copied: cursors over files may drop a block's cells
    // once they move past them.
    let mut qualifier: Vec<u8> = Vec::new();
    let mut in_column = false;
    let mut next_wanted = 0usize;
    loop {
        let step = {
            let Some(cell) = cursor.peek() else {
                return Ok(false);
            };
            if !same_bytes(cell.row(), row) {
                return Ok(false);
            }
            if filter.as_deref().is_some_and(|f| f.filter_all_remaining()) {
                return Ok(true);
            }
            let cell_qualifier = cell.qualifier();
            if !in_column || !bytes_eq(&qualifier, cell_qualifier) {
                in_column = true;
                qualifier.clear();
                qualifier.extend_from_slice(cell_qualifier);
                col = ColumnState {
                    selected: true,
                    ..ColumnState::default()
                };
                deletes.start_column();
                if let Some(t) = &mut nvb {
                    t.start_column(cell_qualifier.is_empty());
                }
                if let Some(wanted) = &query.columns {
                    while next_wanted < wanted.len() && wanted[next_wanted][..] < *cell_qualifier {
                        next_wanted += 1;
                    }
                    col.selected =
                        next_wanted < wanted.len() && wanted[next_wanted][..] == *cell_qualifier;
                }
            }
            // An unrequested empty qualifier is still read, for the family markers it holds.
            let read_for_markers = cell_qualifier.is_empty() && !query.raw;
            if !col.selected && !read_for_markers {
                if next_wanted < query.columns.as_ref().map_or(0, Vec::len) {
                    Step::SeekColumn(next_wanted)
                } else {
                    Step::NextRow
                }
            } else {
                match_cell(
                    cell,
                    query,
                    &mut deletes,
                    nvb.as_mut(),
                    &mut col,
                    filter.as_deref_mut(),
                    out,
                )
            }
        };
        match step {
            Step::Next => cursor.advance()?,
            // The empty qualifier also holds the row's family delete markers, which may sort
            // after the versions being skipped: step through it (HBASE-18471).
            Step::NextColumn if qualifier.is_empty() => {
                col.done = true;
                cursor.advance()?;
            }
            Step::NextColumn => cursor.skip_column(row, &qualifier)?,
            Step::NextRow => {
                cursor.skip_row(row)?;
                return Ok(false);
            }
            // Likewise a hint within the row must not jump over those markers.
            Step::Hint(hint) if qualifier.is_empty() && hint.row() == row => cursor.advance()?,
            Step::Hint(hint) => {
                if !seek_to_hint(cursor, row, &hint)? {
                    return Ok(false);
                }
            }
            Step::SeekColumn(i) => {
                if let Some(wanted) = &query.columns {
                    cursor.seek(&Cell::first_on_column(row, &wanted[i]))?;
                }
            }
        }
    }
}

/// Moves the cursor to a filter's hint; false if that left `row`. A hint that does not move
/// forward steps one cell, so a filter cannot stall the read.
fn seek_to_hint<C: CellCursor + ?Sized>(cursor: &mut C, row: &[u8], hint: &Cell) -> Result<bool> {
    let Some(current) = cursor.peek() else {
        return Ok(false);
    };
    let order = hint.row().cmp(row).then_with(|| {
        // A hint into a later family passes the rest of this family's row.
        match hint.family().cmp(current.family()) {
            Ordering::Equal => compare_in_store(hint, current),
            other => other,
        }
    });
    match order {
        Ordering::Greater if hint.row() == row && hint.family() == current.family() => {
            cursor.seek(hint)?;
            Ok(true)
        }
        Ordering::Greater if hint.row() != row => {
            cursor.seek(hint)?;
            Ok(false)
        }
        Ordering::Greater => {
            cursor.skip_row(row)?;
            Ok(false)
        }
        _ => {
            cursor.advance()?;
            Ok(true)
        }
    }
}

fn match_cell<'f>(
    cell: &Cell,
    query: &StoreQuery,
    deletes: &mut DeleteTracker,
    nvb: Option<&mut NvbTracker>,
    col: &mut ColumnState,
    filter: Option<&mut (dyn Filter + 'f)>,
    out: &mut Vec<Cell>,
) -> Step {
    let ts = cell.timestamp;
    let kind = cell.cell_type;
    // 1. Expiry.
    let expired = ts < query.oldest_unexpired;
    if expired && query.min_versions == 0 {
        return Step::NextColumn;
    }
    if let Some(ttl) = cell.ttl_ms {
        let ttl = i64::try_from(ttl).unwrap_or(i64::MAX);
        if ts.saturating_add(ttl) < query.now {
            return Step::Next;
        }
    }
    if query.raw && col.done {
        return Step::Next;
    }
    if !query.raw {
        // 2. Markers are remembered, not returned.
        if kind.is_delete() {
            let counts = if query.see_past_deletes {
                query.time_range.contains(ts)
            } else {
                query.time_range.contains_or_after(ts)
            };
            if counts {
                match nvb {
                    Some(t) => t.add_marker(kind, ts, cell.seq_id),
                    None => deletes.add(kind, ts),
                }
            }
            return Step::Next;
        }
        if !col.selected || col.done {
            return Step::Next;
        }
        // 3. Masked puts: by the order of writes (NEW_VERSION_BEHAVIOR), or by timestamps.
        if let Some(t) = nvb {
            if t.hides_put(ts, cell.seq_id) {
                return Step::Next;
            }
        } else {
            match deletes.check(ts) {
                Some(Masked::AllOlder) if !query.see_past_deletes => return Step::NextColumn,
                Some(_) => return Step::Next,
                None => {}
            }
        }
    }
    // 4. Time range.
    match query.time_range.compare(ts) {
        1 => return Step::Next,
        -1 => return Step::NextColumn,
        _ => {}
    }
    // 5. Versions.
    if col.last == Some((ts, kind)) {
        return Step::Next;
    }
    if !kind.is_delete() {
        col.count += 1;
    }
    let shown = if filter.is_some() {
        query.filter_versions
    } else {
        query.max_versions
    };
    if col.count > shown || (col.count > query.min_versions && expired) {
        return Step::NextColumn;
    }
    col.last = Some((ts, kind));
    let Some(filter) = filter else {
        out.push(cell.clone());
        return Step::Next;
    };
    // 6. The filter.
    let code = filter.filter_cell(cell);
    match code {
        ReturnCode::Skip => Step::Next,
        ReturnCode::NextCol => Step::NextColumn,
        ReturnCode::NextRow => Step::NextRow,
        ReturnCode::SeekNextUsingHint => match filter.next_cell_hint(cell) {
            Some(hint) => Step::Hint(hint),
            None => Step::Next,
        },
        ReturnCode::Include | ReturnCode::IncludeAndNextCol | ReturnCode::IncludeAndSeekNextRow => {
            col.included += 1;
            if col.included > query.max_versions {
                return Step::NextColumn;
            }
            out.push(filter.transform_cell(cell.clone()));
            match code {
                ReturnCode::IncludeAndNextCol => Step::NextColumn,
                ReturnCode::IncludeAndSeekNextRow => Step::NextRow,
                _ => Step::Next,
            }
        }
    }
}
