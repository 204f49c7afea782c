//! The seam between the read path and the places cells live: anything that can be walked in
//! store order (`docs/design/data-model.md`). The memstore, store files, and the merge of
//! several of them implement it. Steps that may read a file return errors.

use std::ops::Bound;

use basalt_common::{Bytes, Cell, Result};

use crate::key::bytes_eq;

/// Whether two byte strings are equal; cheap when both point into one buffer, as the cells of
/// one mutation or one block do.
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    (a.as_ptr() == b.as_ptr() && a.len() == b.len()) || bytes_eq(a, b)
}

/// A forward cursor over one store's visible cells, with seeks.
pub trait CellCursor {
    /// Positions at the first visible cell >= `key` in store order.
    fn seek(&mut self, key: &Cell) -> Result<()>;

    /// The cell at the current position, or `None` past the end.
    fn peek(&self) -> Option<&Cell>;

    /// Moves to the next visible cell.
    fn advance(&mut self) -> Result<()>;

    /// The greatest row holding a visible cell within `bound` from above (at most the row for
    /// `Included`, below it for `Excluded`): the step of a reversed scan. The position is
    /// undefined afterwards; seek before reading on.
    fn last_row_before(&mut self, bound: Bound<&[u8]>) -> Result<Option<Bytes>>;

    /// Moves past every remaining cell of column `(row, qualifier)`. Stepping is cheaper than
    /// a seek when few versions remain, so it steps a little before it seeks.
    fn skip_column(&mut self, row: &[u8], qualifier: &[u8]) -> Result<()> {
        for _ in 0..4 {
            self.advance()?;
            match self.peek() {
                Some(c) if same_bytes(c.row(), row) && bytes_eq(c.qualifier(), qualifier) => {}
                _ => return Ok(()),
            }
        }
        self.seek(&Cell::after_column(row, qualifier))
    }

    /// Moves past every remaining cell of `row`.
    fn skip_row(&mut self, row: &[u8]) -> Result<()> {
        for _ in 0..4 {
            match self.peek() {
                Some(c) if same_bytes(c.row(), row) => self.advance()?,
                _ => return Ok(()),
            }
        }
        self.seek(&Cell::last_on_row(row))
    }
}
