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

use std::cmp::Ordering;

use basalt_common::error::{Error, Result};
use basalt_common::filter::{Filter, ReturnCode};
use basalt_common::{Bytes, Cell};

/// Longest encoded row: a cell's row length is 16 bits.
pub(crate) const MAX_KEY_LENGTH: usize = u16::MAX as usize;

/// Ends a part.
const END: [u8; 2] = [0x00, 0x01];
/// A 0x00 byte inside a part.
const ZERO: [u8; 2] = [0x00, 0xFF];

/// The parts HBase's meta comparator compares: up to the first comma, up to the last comma
/// after it, and the rest.
fn parts(row: &[u8]) -> Vec<&[u8]> {
    let Some(first) = row.iter().position(|&b| b == b',') else {
        return vec![row];
    };
    let rest = &row[first + 1..];
    match rest.iter().rposition(|&b| b == b',') {
        Some(last) => vec![&row[..first], &rest[..last], &rest[last + 1..]],
        None => vec![&row[..first], rest],
    }
}

/// The stored key of meta row `row`.
pub fn encode(row: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(row.len() + 6);
    for part in parts(row) {
        for &b in part {
            if b == 0 {
                out.extend_from_slice(&ZERO);
            } else {
                out.push(b);
            }
        }
        out.extend_from_slice(&END);
    }
    out
}

/// The meta row a stored key holds; an error for bytes [`encode`] cannot have written.
pub fn decode(key: &[u8]) -> Result<Vec<u8>> {
    let corrupt = |at: usize, what: &str| {
        Error::corrupt(format!(
            "hbase:meta row key {}: {what} at byte {at}",
            basalt_common::bytes_display::BinaryDisplay::new(key)
        ))
    };
    let mut out = Vec::with_capacity(key.len());
    let mut parts = 0;
    let mut i = 0;
    let mut open = false;
    while i < key.len() {
        if !open {
            if parts > 0 {
                out.push(b',');
            }
            if parts == 3 {
                return Err(corrupt(i, "a fourth part"));
            }
            open = true;
        }
        match key[i] {
            0 => match key.get(i + 1) {
                Some(0xFF) => out.push(0),
                Some(0x01) => {
                    open = false;
                    parts += 1;
                }
                _ => return Err(corrupt(i, "a zero byte not followed by FF or 01")),
            },
            b => {
                out.push(b);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    if open {
        return Err(corrupt(key.len(), "an unterminated part"));
    }
    Ok(out)
}

/// HBase's `MetaCellComparator.compareRows`, for checking the encoding.
pub fn compare_rows(a: &[u8], b: &[u8]) -> Ordering {
    let (pa, pb) = (parts(a), parts(b));
    for (x, y) in pa.iter().zip(&pb) {
        match x.cmp(y) {
            Ordering::Equal => {}
            ord => return ord,
        }
    }
    pa.len().cmp(&pb.len())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of the kinds meta holds and clients search with, in HBase's meta order.
    fn hbase_ordered() -> Vec<Vec<u8>> {
        let region = |table: &[u8], start: &[u8], id: &[u8]| {
            let mut r = table.to_vec();
            r.push(b',');
            r.extend_from_slice(start);
            r.push(b',');
            r.extend_from_slice(id);
            r
        };
        let mut every_byte: Vec<u8> = (0..=255u8).collect();
        every_byte.rotate_left(1);
        vec![
            b"default".to_vec(),
            b"t".to_vec(),
            region(b"t", b"", b""),
            region(b"t", b"", b"1700000000000.aaaa."),
            region(b"t", b"\x00", b"1700000000000.bbbb."),
            region(b"t", b"\x00", b"99999999999999"),
            region(b"t", b"\x00,\xff", b"1700000000000.cccc."),
            region(b"t", &every_byte, b"1"),
            region(b"t", b",", b"1700000000000.dddd."),
            region(b"t", b"a,b,c", b"1700000000000.eeee."),
            region(b"t", b"\xff\xff", b"1700000000000.ffff."),
            region(b"t", b"\xff\xff", b"99999999999999"),
            b"t-other".to_vec(),
            b"t1".to_vec(),
            region(b"t1", b"", b"1700000000000.9999."),
        ]
    }

    #[test]
    fn stored_keys_sort_as_hbase_sorts_meta_rows() {
        let rows = hbase_ordered();
        for w in rows.windows(2) {
            assert_eq!(
                compare_rows(&w[0], &w[1]),
                Ordering::Less,
                "{:?} < {:?}",
                String::from_utf8_lossy(&w[0]),
                String::from_utf8_lossy(&w[1])
            );
        }
        for a in &rows {
            for b in &rows {
                assert_eq!(
                    encode(a).cmp(&encode(b)),
                    compare_rows(a, b),
                    "{a:?} against {b:?}"
                );
            }
        }
    }

    #[test]
    fn keys_decode_to_their_rows() {
        for row in hbase_ordered() {
            assert_eq!(decode(&encode(&row)).unwrap(), row);
        }
        assert_eq!(decode(b"").unwrap(), b"");
    }

    #[test]
    fn bytes_that_no_row_encodes_to_are_refused() {
        for bad in [
            &b"t"[..],
            b"t\x00",
            b"t\x00\x02",
            b"a\x00\x01b\x00\x01c\x00\x01d\x00\x01",
        ] {
            assert!(
                matches!(decode(bad), Err(Error::Corrupt { .. })),
                "{bad:?} decoded"
            );
        }
    }
}
