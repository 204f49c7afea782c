//! `hbase:meta`'s row order as a byte order: the stored key of a meta row.
//!
//! HBase sorts meta's rows with `MetaCellComparator`, not byte by byte: a row
//! `<table>,<start key>,<region id>.<encoded>.` is split at its first comma and at its last
//! comma, and the three parts (table, start key, id) are compared one after the other. The key
//! [`encode`] makes of a row sorts, byte by byte, as the row sorts in meta: every part, with
//! each 0x00 byte written as `00 FF`, followed by `00 01`. The meta region stores its rows so
//! (`basalt_region::meta_keys`); tools decode them to show them (docs/design/catalog.md).

use std::cmp::Ordering;

use crate::error::{Error, Result};

/// Longest encoded row: a cell's row length is 16 bits.
pub const MAX_KEY_LENGTH: usize = u16::MAX as usize;

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
            crate::bytes_display::BinaryDisplay::new(key)
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
