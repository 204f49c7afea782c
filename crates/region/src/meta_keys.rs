//! `hbase:meta`'s row order, kept by storing meta's rows under an order-preserving encoding.
//!
//! HBase sorts meta's rows with `MetaCellComparator`, not byte by byte: a row
//! `<table>,<start key>,<region id>.<encoded>.` is split at its first comma and at its last
//! comma, and the three parts (table, start key, id) are compared one after the other. So
//! `t,\x00,1.` sorts after `t,,1.` and before `t1,,1.` (byte order puts `t1,...` first, as `1`
//! is below `,`), and a client that looks a row's region up with a reversed scan from
//! `<table>,<row>,99999999999999` finds it however the row's bytes compare with `,`.
//!
//! Basalt's store files, memstores and scanners order rows byte by byte. Rather than give the
//! whole engine a second comparator, the meta region stores each row as a key whose byte order
//! is the meta order: every part, with each 0x00 byte written as `00 FF`, followed by `00 01`.
//! A shorter part is then a prefix that sorts first, and a row with fewer parts sorts before
//! one with more and the same leading parts, as in HBase (a table's state row `t` comes before
//! its regions). The region encodes rows on the way in (mutations, gets, scan bounds) and
//! decodes them on the way out (results, and every row a filter sees), so nothing above the
//! region ever sees an encoded row. The format is in docs/design/catalog.md.

use basalt_common::filter::{Filter, ReturnCode};
use basalt_common::{Bytes, Cell};

pub use basalt_common::meta_key::{MAX_KEY_LENGTH, compare_rows, decode, encode};

/// `cell` with its row replaced.
fn with_row(cell: &Cell, row: &[u8]) -> Cell {
    Cell::new(
        row,
        cell.family(),
        cell.qualifier(),
        cell.timestamp,
        cell.cell_type,
        cell.value(),
    )
    .with_seq_id(cell.seq_id)
    .with_ttl_ms(cell.ttl_ms)
}

/// A stored meta cell as the world sees it. A key that does not decode (only a corrupt file
/// could hold one) is returned as stored rather than failing a read of the catalog.
pub(crate) fn decode_cell(cell: &Cell) -> Cell {
    match decode(cell.row()) {
        Ok(row) => with_row(cell, &row),
        Err(_) => cell.clone(),
    }
}

/// A stored result as the world sees it: its row and its cells' rows decoded.
pub(crate) fn shown(r: basalt_common::ops::RowResult) -> basalt_common::ops::RowResult {
    basalt_common::ops::RowResult {
        row: match decode(&r.row) {
            Ok(row) => Bytes::from(row),
            Err(_) => r.row,
        },
        cells: r.cells.iter().map(decode_cell).collect(),
        partial: r.partial,
    }
}

/// A meta cell as stored; `None` when its row is too long to store.
fn encode_cell(cell: &Cell) -> Option<Cell> {
    let key = encode(cell.row());
    (key.len() <= MAX_KEY_LENGTH).then(|| with_row(cell, &key))
}

/// A filter of a meta read, shown rows as they are, not as stored: every row and cell passes
/// through decoding on the way in and encoding on the way back (hints and rewritten cells).
#[derive(Debug)]
pub(crate) struct MetaRowsFilter(pub(crate) Box<dyn Filter>);

impl Filter for MetaRowsFilter {
    fn reset(&mut self) {
        self.0.reset();
    }

    fn filter_all_remaining(&self) -> bool {
        self.0.filter_all_remaining()
    }

    fn ends_scan(&self) -> bool {
        self.0.ends_scan()
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        match decode(row) {
            Ok(row) => self.0.filter_row_key(&row),
            Err(_) => self.0.filter_row_key(row),
        }
    }

    fn next_row_hint(&self, row: &[u8]) -> Option<Bytes> {
        let row = decode(row).ok()?;
        let hint = self.0.next_row_hint(&row)?;
        Some(Bytes::from(encode(&hint)))
    }

    fn filter_cell(&mut self, cell: &Cell) -> ReturnCode {
        self.0.filter_cell(&decode_cell(cell))
    }

    fn transform_cell(&self, cell: Cell) -> Cell {
        let out = self.0.transform_cell(decode_cell(&cell));
        encode_cell(&out).unwrap_or(cell)
    }

    fn next_cell_hint(&self, cell: &Cell) -> Option<Cell> {
        let hint = self.0.next_cell_hint(&decode_cell(cell))?;
        encode_cell(&hint)
    }

    fn filter_row_cells(&mut self, cells: &mut Vec<Cell>) {
        let mut shown: Vec<Cell> = cells.iter().map(decode_cell).collect();
        self.0.filter_row_cells(&mut shown);
        *cells = shown.iter().filter_map(encode_cell).collect();
    }

    fn has_filter_row(&self) -> bool {
        self.0.has_filter_row()
    }

    fn filter_row(&mut self) -> bool {
        self.0.filter_row()
    }
}
