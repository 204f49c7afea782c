//! The combinators: FilterList (MUST_PASS_ALL / MUST_PASS_ONE, HBase's `FilterListWithAND` and
//! `FilterListWithOR`), SkipFilter and WhileMatchFilter.

use std::cmp::Ordering;

use bytes::Bytes;

use super::eval::{Filter, ReturnCode};
use crate::cell::{Cell, compare_cells};

/// A list of filters that must all pass (AND) or of which one must pass (OR).
#[derive(Debug)]
pub(super) struct FilterList {
    must_pass_all: bool,
    filters: Vec<Box<dyn Filter>>,
    /// Which filters included the current cell: their transforms apply.
    included: Vec<bool>,
    /// AND: which filters asked to seek on the current cell.
    hinting: Vec<bool>,
    /// OR: each filter's last code that skips cells, with the cell it was given, so a filter
    /// is not shown cells it asked to skip (HBase's `prevFilterRCList` / `prevCellList`).
    prev: Vec<Option<(ReturnCode, Cell)>>,
}

impl FilterList {
    pub(super) fn new(must_pass_all: bool, filters: Vec<Box<dyn Filter>>) -> Self {
        let n = filters.len();
        FilterList {
            must_pass_all,
            filters,
            included: vec![false; n],
            hinting: vec![false; n],
            prev: vec![None; n],
        }
    }

    /// OR: what a filter would say of `cell` given what it said of an earlier cell of the row,
    /// or `None` if it has to be asked.
    fn known_code(&self, i: usize, cell: &Cell) -> Option<ReturnCode> {
        let (code, prev) = self.prev[i].as_ref()?;
        match code {
            ReturnCode::SeekNextUsingHint => self.filters[i]
                .next_cell_hint(prev)
                .filter(|hint| compare_cells(cell, hint) == Ordering::Less)
                .map(|_| ReturnCode::SeekNextUsingHint),
            ReturnCode::NextCol | ReturnCode::IncludeAndNextCol => (cell.family() == prev.family()
                && cell.qualifier() == prev.qualifier())
            .then_some(ReturnCode::NextCol),
            ReturnCode::NextRow | ReturnCode::IncludeAndSeekNextRow => {
                (cell.family() == prev.family()).then_some(ReturnCode::NextRow)
            }
            ReturnCode::Include | ReturnCode::Skip => None,
        }
    }

    fn filter_cell_all(&mut self, cell: &Cell) -> ReturnCode {
        let (mut include, mut reach, mut hint) = (true, 0, false);
        for (i, f) in self.filters.iter_mut().enumerate() {
            self.included[i] = false;
            self.hinting[i] = false;
            if f.filter_all_remaining() {
                return ReturnCode::NextRow;
            }
            let code = f.filter_cell(cell);
            if code == ReturnCode::SeekNextUsingHint {
                self.hinting[i] = true;
                hint = true;
            }
            include &= code.includes();
            reach = reach.max(code.reach());
            self.included[i] = code.includes();
        }
        if hint {
            ReturnCode::SeekNextUsingHint
        } else {
            ReturnCode::from_parts(include, reach)
        }
    }

    fn filter_cell_one(&mut self, cell: &Cell) -> ReturnCode {
        let mut merged: Option<ReturnCode> = None;
        for i in 0..self.filters.len() {
            self.included[i] = false;
            if self.filters[i].filter_all_remaining() {
                continue;
            }
            let code = match self.known_code(i, cell) {
                Some(code) => code,
                None => {
                    let code = self.filters[i].filter_cell(cell);
                    self.prev[i] = match code {
                        ReturnCode::Include | ReturnCode::Skip => None,
                        _ => Some((code, cell.clone())),
                    };
                    code
                }
            };
            self.included[i] = code.includes();
            merged = Some(match merged {
                None => code,
                Some(m) => merge_one(m, code),
            });
        }
        merged.unwrap_or(ReturnCode::Skip)
    }
}

/// MUST_PASS_ONE's merge: included if either includes; moves on only as far as both allow;
/// a seek only when both seek.
fn merge_one(a: ReturnCode, b: ReturnCode) -> ReturnCode {
    if a == ReturnCode::SeekNextUsingHint && b == ReturnCode::SeekNextUsingHint {
        return ReturnCode::SeekNextUsingHint;
    }
    ReturnCode::from_parts(a.includes() || b.includes(), a.reach().min(b.reach()))
}

impl Filter for FilterList {
    fn reset(&mut self) {
        for f in &mut self.filters {
            f.reset();
        }
        self.prev.fill(None);
    }

    fn filter_all_remaining(&self) -> bool {
        if self.filters.is_empty() {
            false
        } else if self.must_pass_all {
            self.filters.iter().any(|f| f.filter_all_remaining())
        } else {
            self.filters.iter().all(|f| f.filter_all_remaining())
        }
    }

    fn ends_scan(&self) -> bool {
        if self.filters.is_empty() {
            false
        } else if self.must_pass_all {
            self.filters.iter().any(|f| f.ends_scan())
        } else {
            self.filters.iter().all(|f| f.ends_scan())
        }
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        // Every filter sees the row key, as in HBase.
        let mut rejected = Vec::with_capacity(self.filters.len());
        for f in &mut self.filters {
            rejected.push(f.filter_all_remaining() || f.filter_row_key(row));
        }
        if self.must_pass_all {
            rejected.iter().any(|r| *r)
        } else {
            rejected.iter().all(|r| *r)
        }
    }

    fn next_row_hint(&self, row: &[u8]) -> Option<Bytes> {
        let hints = self
            .filters
            .iter()
            .filter(|f| !f.filter_all_remaining())
            .map(|f| f.next_row_hint(row));
        if self.must_pass_all {
            // A row must pass every filter: it is at least each hint.
            hints.flatten().max()
        } else {
            // One filter may pass any row it did not hint past.
            hints.collect::<Option<Vec<_>>>()?.into_iter().min()
        }
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        if self.filters.is_empty() {
            ReturnCode::Include
        } else if self.must_pass_all {
            self.filter_cell_all(cell)
        } else {
            self.filter_cell_one(cell)
        }
    }

    fn transform_cell(&self, mut cell: Cell) -> Cell {
        for (f, included) in self.filters.iter().zip(&self.included) {
            if *included {
                cell = f.transform_cell(cell);
            }
        }
        cell
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        if self.must_pass_all {
            self.filters
                .iter()
                .zip(&self.hinting)
                .filter(|(f, hinting)| **hinting && !f.filter_all_remaining())
                .filter_map(|(f, _)| f.next_cell_hint(cell))
                .max()
        } else {
            self.filters
                .iter()
                .filter(|f| !f.filter_all_remaining())
                .map(|f| f.next_cell_hint(cell))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .min()
        }
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        for f in &mut self.filters {
            f.filter_row_cells(cells);
        }
    }

    fn has_filter_row(&self) -> bool {
        self.filters.iter().any(|f| f.has_filter_row())
    }

    fn filter_row(&mut self) -> bool {
        if self.filters.is_empty() {
            return false;
        }
        // Both stop at the first filter that decides, as HBase's lists do.
        if self.must_pass_all {
            self.filters.iter_mut().any(|f| f.filter_row())
        } else {
            self.filters.iter_mut().all(|f| f.filter_row())
        }
    }
}

/// SKIP: drops the whole row if the wrapped filter does anything but include one of its
/// cells (an `IncludeAndNextCol` counts as a rejection, as in HBase).
#[derive(Debug)]
pub(super) struct SkipFilter {
    inner: Box<dyn Filter>,
    filter_row: bool,
}

impl SkipFilter {
    pub(super) fn new(inner: Box<dyn Filter>) -> Self {
        SkipFilter {
            inner,
            filter_row: false,
        }
    }
}

impl Filter for SkipFilter {
    fn reset(&mut self) {
        self.inner.reset();
        self.filter_row = false;
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let code = self.inner.filter_cell(cell);
        self.filter_row |= code != ReturnCode::Include;
        code
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        self.inner.next_cell_hint(cell)
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.filter_row
    }
}

/// WHILE: ends the scan at the wrapped filter's first rejection.
#[derive(Debug)]
pub(super) struct WhileMatchFilter {
    inner: Box<dyn Filter>,
    done: bool,
}

impl WhileMatchFilter {
    pub(super) fn new(inner: Box<dyn Filter>) -> Self {
        WhileMatchFilter { inner, done: false }
    }
}

impl Filter for WhileMatchFilter {
    fn reset(&mut self) {
        self.inner.reset();
    }

    fn filter_all_remaining(&self) -> bool {
        self.done || self.inner.filter_all_remaining()
    }

    fn ends_scan(&self) -> bool {
        self.done || self.inner.ends_scan()
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.filter_all_remaining() {
            return true;
        }
        let rejected = self.inner.filter_row_key(row);
        self.done |= rejected;
        rejected
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        let code = self.inner.filter_cell(cell);
        self.done |= code != ReturnCode::Include;
        code
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        self.inner.transform_cell(cell)
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        self.inner.next_cell_hint(cell)
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        self.inner.filter_row_cells(cells);
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        let rejected = self.inner.filter_row();
        self.done |= rejected;
        rejected
    }
}
