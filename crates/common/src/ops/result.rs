//! RowResult: the cells of one row that a Get or Scan returned.

use bytes::Bytes;

use crate::cell::Cell;

/// The cells of one row, sorted in HBase's cell order. HBase calls this `Result`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowResult {
    pub row: Bytes,
    pub cells: Vec<Cell>,
    /// True when a Scan's batch limit cut this row and more of its cells follow in the next
    /// result (HBase's `mayHaveMoreCellsInRow`).
    pub partial: bool,
}

impl RowResult {
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    /// The newest returned cell of `family:qualifier`.
    pub fn latest_cell(&self, family: &[u8], qualifier: &[u8]) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.family() == family && c.qualifier() == qualifier)
    }

    /// The value of the newest returned cell of `family:qualifier`.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.latest_cell(family, qualifier).map(Cell::value)
    }

    /// Every returned version of `family:qualifier`, newest first.
    pub fn column_cells<'a>(
        &'a self,
        family: &'a [u8],
        qualifier: &'a [u8],
    ) -> impl Iterator<Item = &'a Cell> + 'a {
        self.cells
            .iter()
            .filter(move |c| c.family() == family && c.qualifier() == qualifier)
    }

    /// The cells of one family.
    pub fn family_cells<'a>(&'a self, family: &'a [u8]) -> impl Iterator<Item = &'a Cell> + 'a {
        self.cells.iter().filter(move |c| c.family() == family)
    }
}
