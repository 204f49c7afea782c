//! Filter evaluation: HBase's `Filter` protocol ([`Filter`]) and the filters that decide cell by
//! cell. Row-level filters live in `rows`, the combinators in `list`.
//!
//! The read path drives a filter per row as HBase's region scanner does: `reset`,
//! `filter_all_remaining` (true ends the scan), `filter_row_key`, then for each cell the query
//! matcher lets through `filter_cell` (and `transform_cell` on included cells), then
//! `filter_row_cells` and `filter_row` on a non-empty row.

use std::collections::BTreeSet;

use bytes::Bytes;

use super::compare::{Compiled, passes};
use super::list::{FilterList, SkipFilter, WhileMatchFilter};
use super::rows::{
    FuzzyRowFilter, InclusiveStopFilter, MultiRowRangeFilter, PageFilter, PrefixFilter,
    RandomRowFilter, RowFilter,
};
use super::{Comparator, FilterSpec};
use crate::cell::{Cell, CellType};
use crate::error::{Error, Result};
use crate::ops::CompareOperator;

/// What a filter says of one cell (HBase's `Filter.ReturnCode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReturnCode {
    Include,
    IncludeAndNextCol,
    IncludeAndSeekNextRow,
    Skip,
    NextCol,
    NextRow,
    /// Seek to [`Filter::next_cell_hint`].
    SeekNextUsingHint,
}

impl ReturnCode {
    /// Whether the cell is returned.
    pub fn includes(self) -> bool {
        matches!(
            self,
            ReturnCode::Include | ReturnCode::IncludeAndNextCol | ReturnCode::IncludeAndSeekNextRow
        )
    }

    /// How far the read moves on: 0 the next cell, 1 the next column, 2 the next row.
    pub(super) fn reach(self) -> u8 {
        match self {
            ReturnCode::Include | ReturnCode::Skip | ReturnCode::SeekNextUsingHint => 0,
            ReturnCode::IncludeAndNextCol | ReturnCode::NextCol => 1,
            ReturnCode::IncludeAndSeekNextRow | ReturnCode::NextRow => 2,
        }
    }

    pub(super) fn from_parts(include: bool, reach: u8) -> ReturnCode {
        match (include, reach) {
            (true, 0) => ReturnCode::Include,
            (true, 1) => ReturnCode::IncludeAndNextCol,
            (true, _) => ReturnCode::IncludeAndSeekNextRow,
            (false, 0) => ReturnCode::Skip,
            (false, 1) => ReturnCode::NextCol,
            (false, _) => ReturnCode::NextRow,
        }
    }
}

/// HBase's filter protocol. Every method has the neutral default, so a filter states only
/// what it decides.
pub trait Filter: Send + std::fmt::Debug {
    /// Called before each row.
    fn reset(&mut self) {}

    /// True once no later cell can pass: the scan ends.
    fn filter_all_remaining(&self) -> bool {
        false
    }

    /// Whether being done ends the whole scan rather than one region's part of it (a
    /// PageFilter counts rows per region, as in HBase).
    fn ends_scan(&self) -> bool {
        self.filter_all_remaining()
    }

    /// True drops the row before any of its cells is read.
    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        false
    }

    /// After `filter_row_key` dropped `row`: the smallest later row that may pass, for a
    /// forward scan to seek to.
    fn next_row_hint(&self, _row: &[u8]) -> Option<Bytes> {
        None
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        ReturnCode::Include
    }

    /// Rewrites an included cell.
    fn transform_cell(&self, cell: Cell) -> Cell {
        cell
    }

    /// After `SeekNextUsingHint`: the key to seek to, after `cell`.
    fn next_cell_hint(&self, _cell: &Cell) -> Option<Cell> {
        None
    }

    /// Edits a row's cells once all are read.
    fn filter_row_cells(&mut self, _cells: &mut Vec<Cell>) {}

    /// Whether the filter decides on whole rows (`filter_row_cells` / `filter_row`); such a
    /// filter cannot be used with a scan's batch.
    fn has_filter_row(&self) -> bool {
        false
    }

    /// True drops the row after its cells are read.
    fn filter_row(&mut self) -> bool {
        false
    }
}

impl FilterSpec {
    /// The filter this spec describes, for a scan in the given direction. Fails on an invalid
    /// regular expression, a fuzzy mask of the wrong length, or an inverted row range.
    pub fn build(&self, reversed: bool) -> Result<Box<dyn Filter>> {
        let compiled = Compiled::new;
        Ok(match self {
            FilterSpec::KeyOnly { len_as_value } => Box::new(KeyOnlyFilter(*len_as_value)),
            FilterSpec::FirstKeyOnly => Box::new(FirstKeyOnlyFilter(false)),
            FilterSpec::Prefix(p) => Box::new(PrefixFilter::new(p.clone(), reversed)),
            FilterSpec::ColumnPrefix(p) => {
                Box::new(MultipleColumnPrefixFilter::new(std::slice::from_ref(p)))
            }
            FilterSpec::MultipleColumnPrefix(ps) => Box::new(MultipleColumnPrefixFilter::new(ps)),
            FilterSpec::ColumnCountGet(limit) => Box::new(ColumnCountGetFilter {
                limit: *limit,
                count: 0,
            }),
            FilterSpec::Page(size) => Box::new(PageFilter::new(*size)),
            FilterSpec::ColumnPagination {
                limit,
                offset,
                column_offset,
            } => Box::new(ColumnPaginationFilter {
                limit: *limit,
                offset: *offset,
                column_offset: column_offset.clone(),
                count: 0,
            }),
            FilterSpec::InclusiveStop(stop) => {
                Box::new(InclusiveStopFilter::new(stop.clone(), reversed))
            }
            FilterSpec::Timestamps(ts) => Box::new(TimestampsFilter(ts.iter().copied().collect())),
            FilterSpec::Row(op, c) => Box::new(RowFilter::new(*op, compiled(c)?)),
            FilterSpec::Family(op, c) => Box::new(CellPartFilter {
                part: Part::Family,
                op: *op,
                comparator: compiled(c)?,
            }),
            FilterSpec::Qualifier(op, c) => Box::new(CellPartFilter {
                part: Part::Qualifier,
                op: *op,
                comparator: compiled(c)?,
            }),
            FilterSpec::Value(op, c) => Box::new(CellPartFilter {
                part: Part::Value,
                op: *op,
                comparator: compiled(c)?,
            }),
            FilterSpec::ColumnRange {
                min,
                min_inclusive,
                max,
                max_inclusive,
            } => Box::new(ColumnRangeFilter {
                min: (!min.is_empty()).then(|| min.clone()),
                min_inclusive: *min_inclusive,
                max: (!max.is_empty()).then(|| max.clone()),
                max_inclusive: *max_inclusive,
            }),
            FilterSpec::SingleColumnValue {
                family,
                qualifier,
                op,
                comparator,
                filter_if_missing,
                latest_version_only,
                exclude,
            } => Box::new(SingleColumnValueFilter {
                column: Column::new(family, qualifier),
                op: *op,
                comparator: compiled(comparator)?,
                filter_if_missing: *filter_if_missing,
                latest_version_only: *latest_version_only,
                exclude: *exclude,
                found: false,
                matched: false,
            }),
            FilterSpec::DependentColumn {
                family,
                qualifier,
                drop_dependent,
                compare,
            } => Box::new(DependentColumnFilter {
                column: Column::new(family, qualifier),
                drop_dependent: *drop_dependent,
                compare: match compare {
                    Some((op, c)) => Some((*op, compiled(c)?)),
                    None => None,
                },
                stamps: BTreeSet::new(),
            }),
            FilterSpec::ColumnValue {
                family,
                qualifier,
                op,
                comparator,
            } => Box::new(ColumnValueFilter {
                column: Column::new(family, qualifier),
                op: *op,
                comparator: compiled(comparator)?,
                found: false,
            }),
            FilterSpec::Skip(inner) => Box::new(SkipFilter::new(inner.build(reversed)?)),
            FilterSpec::WhileMatch(inner) => {
                Box::new(WhileMatchFilter::new(inner.build(reversed)?))
            }
            FilterSpec::List {
                must_pass_all,
                filters,
            } => Box::new(FilterList::new(
                *must_pass_all,
                filters
                    .iter()
                    .map(|f| f.build(reversed))
                    .collect::<Result<_>>()?,
            )),
            FilterSpec::FuzzyRow(pairs) => Box::new(FuzzyRowFilter::new(pairs, reversed)?),
            FilterSpec::MultiRowRange(ranges) => {
                Box::new(MultiRowRangeFilter::new(ranges, reversed)?)
            }
            FilterSpec::RandomRow(chance) => Box::new(RandomRowFilter::new(*chance)),
        })
    }
}

/// The seek key before every cell of `qualifier` in `cell`'s row and family.
pub(super) fn first_on_column(cell: &Cell, qualifier: &[u8]) -> Cell {
    Cell::new(
        cell.row(),
        cell.family(),
        qualifier,
        i64::MAX,
        CellType::Maximum,
        b"",
    )
    .with_seq_id(u64::MAX)
}

/// A `family:qualifier` a filter tests.
#[derive(Debug)]
struct Column {
    family: Bytes,
    qualifier: Bytes,
}

impl Column {
    fn new(family: &Bytes, qualifier: &Bytes) -> Column {
        Column {
            family: family.clone(),
            qualifier: qualifier.clone(),
        }
    }

    fn holds(&self, cell: &Cell) -> bool {
        cell.family() == self.family && cell.qualifier() == self.qualifier
    }
}

/// KeyOnlyFilter: values stripped, or replaced by their 4-byte length.
#[derive(Debug)]
struct KeyOnlyFilter(bool);

impl Filter for KeyOnlyFilter {
    fn transform_cell(&self, cell: Cell) -> Cell {
        let len;
        let value: &[u8] = if self.0 {
            len = u32::try_from(cell.value().len())
                .unwrap_or(u32::MAX)
                .to_be_bytes();
            &len
        } else {
            b""
        };
        let mut out = Cell::new(
            cell.row(),
            cell.family(),
            cell.qualifier(),
            cell.timestamp,
            cell.cell_type,
            value,
        );
        out.seq_id = cell.seq_id;
        out.ttl_ms = cell.ttl_ms;
        out
    }
}

/// FirstKeyOnlyFilter: the first cell of each row.
#[derive(Debug)]
struct FirstKeyOnlyFilter(bool);

impl Filter for FirstKeyOnlyFilter {
    fn reset(&mut self) {
        self.0 = false;
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if std::mem::replace(&mut self.0, true) {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }
}

/// ColumnPrefixFilter and MultipleColumnPrefixFilter: qualifiers starting with any prefix,
/// seeking from one prefix to the next.
#[derive(Debug)]
struct MultipleColumnPrefixFilter {
    prefixes: Vec<Bytes>,
    hint: Option<Bytes>,
}

impl MultipleColumnPrefixFilter {
    fn new(prefixes: &[Bytes]) -> Self {
        let prefixes: BTreeSet<Bytes> = prefixes.iter().cloned().collect();
        MultipleColumnPrefixFilter {
            prefixes: prefixes.into_iter().collect(),
            hint: None,
        }
    }
}

impl Filter for MultipleColumnPrefixFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let q = cell.qualifier();
        if self.prefixes.iter().any(|p| q.starts_with(p)) {
            return ReturnCode::Include;
        }
        // The first prefix sorting after the qualifier: every qualifier before it fails.
        match self.prefixes.iter().find(|p| p[..] > *q) {
            Some(next) => {
                self.hint = Some(next.clone());
                ReturnCode::SeekNextUsingHint
            }
            None => ReturnCode::NextRow,
        }
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        self.hint.as_ref().map(|q| first_on_column(cell, q))
    }
}

/// ColumnCountGetFilter: the first `limit` columns, then the scan is over.
#[derive(Debug)]
struct ColumnCountGetFilter {
    limit: u32,
    count: u32,
}

impl Filter for ColumnCountGetFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_all_remaining(&self) -> bool {
        self.count > self.limit
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        self.count = self.count.saturating_add(1);
        if self.filter_all_remaining() {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        }
    }
}

/// ColumnPaginationFilter: per row, `limit` columns after `offset` columns (or from the
/// qualifier `column_offset`).
#[derive(Debug)]
struct ColumnPaginationFilter {
    limit: u32,
    offset: u32,
    column_offset: Option<Bytes>,
    count: u32,
}

impl Filter for ColumnPaginationFilter {
    fn reset(&mut self) {
        self.count = 0;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if let Some(start) = &self.column_offset {
            if self.count >= self.limit {
                return ReturnCode::NextRow;
            }
            if self.count == 0 && cell.qualifier() < &start[..] {
                return ReturnCode::SeekNextUsingHint;
            }
            self.count += 1;
            return ReturnCode::IncludeAndNextCol;
        }
        if self.count >= self.offset.saturating_add(self.limit) {
            return ReturnCode::NextRow;
        }
        let code = if self.count < self.offset {
            ReturnCode::NextCol
        } else {
            ReturnCode::IncludeAndNextCol
        };
        self.count += 1;
        code
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        self.column_offset
            .as_ref()
            .map(|q| first_on_column(cell, q))
    }
}

/// TimestampsFilter: cells with exactly these timestamps.
#[derive(Debug)]
struct TimestampsFilter(BTreeSet<i64>);

impl Filter for TimestampsFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.0.contains(&cell.timestamp) {
            ReturnCode::Include
        } else if self.0.first().is_none_or(|min| cell.timestamp < *min) {
            // Versions run newest first: no older one can be listed.
            ReturnCode::NextCol
        } else {
            ReturnCode::Skip
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Part {
    Family,
    Qualifier,
    Value,
}

/// FamilyFilter, QualifierFilter and ValueFilter.
#[derive(Debug)]
struct CellPartFilter {
    part: Part,
    op: CompareOperator,
    comparator: Compiled,
}

impl Filter for CellPartFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let bytes = match self.part {
            Part::Family => cell.family(),
            Part::Qualifier => cell.qualifier(),
            Part::Value => cell.value(),
        };
        if passes(self.op, &self.comparator, bytes) {
            ReturnCode::Include
        } else if let Part::Family = self.part {
            // The rest of the row in this family fails too.
            ReturnCode::NextRow
        } else {
            ReturnCode::Skip
        }
    }
}

/// ColumnRangeFilter: qualifiers within a range, seeking to its start.
#[derive(Debug)]
struct ColumnRangeFilter {
    min: Option<Bytes>,
    min_inclusive: bool,
    max: Option<Bytes>,
    max_inclusive: bool,
}

impl Filter for ColumnRangeFilter {
    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let q = cell.qualifier();
        if let Some(min) = &self.min {
            match q.cmp(min) {
                std::cmp::Ordering::Less => return ReturnCode::SeekNextUsingHint,
                std::cmp::Ordering::Equal if !self.min_inclusive => return ReturnCode::NextCol,
                _ => {}
            }
        }
        match &self.max {
            Some(max) if q > &max[..] || (q == &max[..] && !self.max_inclusive) => {
                ReturnCode::NextRow
            }
            _ => ReturnCode::Include,
        }
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        self.min.as_ref().map(|q| first_on_column(cell, q))
    }
}

/// SingleColumnValueFilter (and its Exclude variant): whole rows whose tested column passes.
#[derive(Debug)]
struct SingleColumnValueFilter {
    column: Column,
    op: CompareOperator,
    comparator: Compiled,
    filter_if_missing: bool,
    latest_version_only: bool,
    exclude: bool,
    found: bool,
    matched: bool,
}

impl Filter for SingleColumnValueFilter {
    fn reset(&mut self) {
        self.found = false;
        self.matched = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.matched || (self.latest_version_only && self.found) || !self.column.holds(cell) {
            return ReturnCode::Include;
        }
        self.found = true;
        if !passes(self.op, &self.comparator, cell.value()) {
            return if self.latest_version_only {
                ReturnCode::NextRow
            } else {
                ReturnCode::Include
            };
        }
        self.matched = true;
        ReturnCode::Include
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        if self.exclude {
            cells.retain(|c| !self.column.holds(c));
        }
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        if self.found {
            !self.matched
        } else {
            self.filter_if_missing
        }
    }
}

/// DependentColumnFilter: cells with a timestamp of the reference column in the same row.
#[derive(Debug)]
struct DependentColumnFilter {
    column: Column,
    drop_dependent: bool,
    compare: Option<(CompareOperator, Compiled)>,
    stamps: BTreeSet<i64>,
}

impl Filter for DependentColumnFilter {
    fn reset(&mut self) {
        self.stamps.clear();
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if !self.column.holds(cell) {
            // Decided once the row is read.
            return ReturnCode::Include;
        }
        if let Some((op, c)) = &self.compare
            && !passes(*op, c, cell.value())
        {
            return ReturnCode::Skip;
        }
        self.stamps.insert(cell.timestamp);
        if self.drop_dependent {
            ReturnCode::Skip
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        cells.retain(|c| self.stamps.contains(&c.timestamp));
    }

    fn has_filter_row(&self) -> bool {
        true
    }
}

/// ColumnValueFilter: only the cells of the tested column whose value passes.
#[derive(Debug)]
struct ColumnValueFilter {
    column: Column,
    op: CompareOperator,
    comparator: Compiled,
    found: bool,
}

impl Filter for ColumnValueFilter {
    fn reset(&mut self) {
        self.found = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if !self.column.holds(cell) {
            return if self.found {
                ReturnCode::NextRow
            } else {
                ReturnCode::NextCol
            };
        }
        self.found = true;
        if passes(self.op, &self.comparator, cell.value()) {
            ReturnCode::Include
        } else {
            ReturnCode::Skip
        }
    }
}

/// Errors of filters given through the API rather than the language.
pub(super) fn invalid(filter: &str, what: impl std::fmt::Display) -> Error {
    Error::InvalidArgument(format!("{filter}: {what}"))
}

/// The comparator of a spec, for the naive evaluation tests use.
impl Comparator {
    /// Whether `cell` passes `op` against this comparator, as a filter reads it (cell on the
    /// left). Compiles the comparator on every call: for tests and one-off checks.
    pub fn cell_passes(&self, op: CompareOperator, cell: &[u8]) -> Result<bool> {
        Ok(passes(op, &Compiled::new(self)?, cell))
    }
}
