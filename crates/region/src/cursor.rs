//! The seam between the read path and the places cells live: anything that can be walked in
//! [`StoreKey`] order. The memstore implements it now; store files and the merge of several
//! sources implement it when persistence arrives.

use std::ops::Bound;

use basalt_common::Bytes;

use crate::key::{StoreKey, bytes_eq};

/// A forward cursor over one store's visible cells, with seeks. The cells it hands out live
/// for `'g` (the epoch guard or block pins the cursor holds), so readers can keep references to
/// earlier cells instead of cloning them.
pub trait CellCursor<'g> {
    /// Positions at the first visible cell with key >= `key`.
    fn seek(&mut self, key: &StoreKey);

    /// The cell at the current position, or `None` past the end.
    fn peek(&self) -> Option<&'g StoreKey>;

    /// Moves to the next visible cell.
    fn advance(&mut self);

    /// The greatest row holding a visible cell that is within `bound` from above (at most the
    /// row for `Included`, below it for `Excluded`): the step of a reversed scan.
    fn last_row_before(&self, bound: Bound<&[u8]>) -> Option<Bytes>;

    /// Moves past every remaining cell of column `(row, qualifier)`. Stepping is cheaper than
    /// a seek when few versions remain, so it steps a little before it seeks.
    fn skip_column(&mut self, row: &[u8], qualifier: &[u8]) {
        for _ in 0..4 {
            self.advance();
            match self.peek() {
                Some(k) if k.in_row(row) && bytes_eq(k.qualifier(), qualifier) => {}
                _ => return,
            }
        }
        self.seek(&StoreKey::after_column(row, qualifier));
    }

    /// Moves past every remaining cell of `row`.
    fn skip_row(&mut self, row: &[u8]) {
        for _ in 0..4 {
            match self.peek() {
                Some(k) if k.in_row(row) => self.advance(),
                _ => return,
            }
        }
        self.seek(&StoreKey::last_on_row(row));
    }
}
