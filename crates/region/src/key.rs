//! Keys of cells within one store (one family of one region), where the family is implied.
//!
//! Order: row ascending, then qualifier ascending, then timestamp, type and sequence id all
//! descending, exactly HBase's cell order with the family left out. One sentinel breaks the
//! pattern, as in HBase: an empty qualifier with type `Minimum` is "last on row" and sorts after
//! every cell of its row, so a scanner can seek past a row without building the next row key.

use std::cmp::Ordering;

use basalt_common::cell::compare_versions;
use basalt_common::{Bytes, Cell, CellType};

/// The key of one cell in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreKey {
    /// The row's first 8 bytes, big-endian and zero-padded: most comparisons end here,
    /// without following the row's pointer to its bytes (one cache miss fewer per step).
    row_prefix: u64,
    pub row: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    pub cell_type: CellType,
    pub seq_id: u64,
}

/// What a store holds for a key besides the key itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreValue {
    pub value: Bytes,
    /// The cell's own TTL in milliseconds (HBase's TTL tag).
    pub ttl_ms: Option<u64>,
}

/// The first 8 bytes of `row` as a big-endian number, zero-padded. Two rows whose prefixes
/// differ compare as their prefixes do; equal prefixes need the full comparison.
#[inline]
fn prefix_of(row: &[u8]) -> u64 {
    let mut buf = [0u8; 8];
    let n = row.len().min(8);
    buf[..n].copy_from_slice(&row[..n]);
    u64::from_be_bytes(buf)
}

impl StoreKey {
    pub fn new(
        row: Bytes,
        qualifier: Bytes,
        timestamp: i64,
        cell_type: CellType,
        seq_id: u64,
    ) -> Self {
        StoreKey {
            row_prefix: prefix_of(&row),
            row,
            qualifier,
            timestamp,
            cell_type,
            seq_id,
        }
    }

    /// Whether this key is in `row`; cheap when both share one buffer, as a mutation's do.
    #[inline]
    pub fn in_row(&self, row: &[u8]) -> bool {
        let mine: &[u8] = &self.row;
        (mine.as_ptr() == row.as_ptr() && mine.len() == row.len()) || mine == row
    }

    /// Sorts before every cell of `row`.
    pub fn first_on_row(row: &Bytes) -> StoreKey {
        StoreKey::new(
            row.clone(),
            Bytes::new(),
            i64::MAX,
            CellType::Maximum,
            u64::MAX,
        )
    }

    /// Sorts after every cell of `row` and before every cell of the next row.
    pub fn last_on_row(row: &Bytes) -> StoreKey {
        StoreKey::new(row.clone(), Bytes::new(), i64::MIN, CellType::Minimum, 0)
    }

    /// Sorts before every cell of `row, qualifier`.
    pub fn first_on_column(row: &Bytes, qualifier: &[u8]) -> StoreKey {
        let qualifier = Bytes::copy_from_slice(qualifier);
        StoreKey::new(
            row.clone(),
            qualifier,
            i64::MAX,
            CellType::Maximum,
            u64::MAX,
        )
    }

    /// Sorts after every cell of `row, qualifier` and before the row's next column.
    pub fn after_column(row: &Bytes, qualifier: &[u8]) -> StoreKey {
        if qualifier.is_empty() {
            // (row, "", MIN, Minimum) is the last-on-row sentinel; the next column after the
            // empty one starts at qualifier "\0".
            return StoreKey::first_on_column(row, b"\0");
        }
        let qualifier = Bytes::copy_from_slice(qualifier);
        StoreKey::new(row.clone(), qualifier, i64::MIN, CellType::Minimum, 0)
    }

    #[inline]
    fn is_last_on_row(&self) -> bool {
        self.cell_type == CellType::Minimum && self.qualifier.is_empty()
    }

    /// The full cell this key and value describe, in `family`.
    pub fn to_cell(&self, family: &Bytes, value: &StoreValue) -> Cell {
        Cell {
            row: self.row.clone(),
            family: family.clone(),
            qualifier: self.qualifier.clone(),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq_id: self.seq_id,
            value: value.value.clone(),
            ttl_ms: value.ttl_ms,
        }
    }
}

impl Ord for StoreKey {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.row_prefix != other.row_prefix {
            return self.row_prefix.cmp(&other.row_prefix);
        }
        if !self.in_row(&other.row) {
            match self.row.as_ref().cmp(other.row.as_ref()) {
                Ordering::Equal => {}
                ord => return ord,
            }
        }
        let (a_last, b_last) = (self.is_last_on_row(), other.is_last_on_row());
        if a_last || b_last {
            return a_last.cmp(&b_last);
        }
        self.qualifier
            .as_ref()
            .cmp(other.qualifier.as_ref())
            .then_with(|| {
                compare_versions(
                    self.timestamp,
                    self.cell_type,
                    self.seq_id,
                    other.timestamp,
                    other.cell_type,
                    other.seq_id,
                )
            })
    }
}

impl PartialOrd for StoreKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(row: &'static [u8], q: &'static [u8], ts: i64, t: CellType) -> StoreKey {
        StoreKey::new(Bytes::from_static(row), Bytes::from_static(q), ts, t, 1)
    }

    #[test]
    fn prefix_order_agrees_with_byte_order() {
        let rows: [&[u8]; 9] = [
            b"",
            b"\0",
            b"a",
            b"ab",
            b"ab\0",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefgi",
            b"\xff",
        ];
        for a in rows {
            for b in rows {
                let ka = key_row(a);
                let kb = key_row(b);
                assert_eq!(ka.cmp(&kb), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    fn key_row(row: &[u8]) -> StoreKey {
        StoreKey::new(
            Bytes::copy_from_slice(row),
            Bytes::from_static(b"q"),
            1,
            CellType::Put,
            1,
        )
    }

    #[test]
    fn sentinels_bracket_rows_and_columns() {
        let r = Bytes::from_static(b"r");
        let cells = [
            key(b"r", b"", 5, CellType::DeleteFamily),
            key(b"r", b"", 5, CellType::Put),
            key(b"r", b"\0", 9, CellType::Put),
            key(b"r", b"a", 9, CellType::Put),
            key(b"r", b"a", 1, CellType::Put),
            key(b"r", b"b", 0, CellType::Put),
        ];
        for c in &cells {
            assert!(StoreKey::first_on_row(&r) < *c);
            assert!(StoreKey::last_on_row(&r) > *c);
        }
        assert!(StoreKey::last_on_row(&r) < key(b"r\0", b"", 1, CellType::Put));
        let a = b"a";
        assert!(StoreKey::after_column(&r, a) > cells[4]);
        assert!(StoreKey::after_column(&r, a) < cells[5]);
        assert!(StoreKey::after_column(&r, b"") > cells[1]);
        assert!(StoreKey::after_column(&r, b"") <= cells[2]);
        assert!(StoreKey::first_on_column(&r, a) < cells[3]);
    }
}
