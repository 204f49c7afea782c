//! Keys of cells within one store (one family of one region).
//!
//! A key is the stored cell itself (HBase's KeyValue layout, see [`Cell`]) plus an inline copy
//! of its row's first 32 bytes. Order: row ascending, then qualifier ascending, then timestamp,
//! type and sequence id all descending: HBase's cell order with the family left out, since a
//! store holds one family. One sentinel breaks the pattern, as in HBase: an empty qualifier with
//! type `Minimum` is "last on row" and sorts after every cell of its row, so a scanner can seek
//! past a row without building the next row key.

use std::cmp::Ordering;

use basalt_common::Cell;
use basalt_common::cell::compare_versions;

/// The key of one cell in a store: the cell, and its row prefix for fast comparisons.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreKey {
    /// The row's first 32 bytes, big-endian and zero-padded: most comparisons end here,
    /// without following the cell's pointer to its bytes (a cache miss saved per step). 32
    /// because row keys often share a long prefix: HBase PE's rows are 26 zero-padded digits,
    /// the first 16 of them `0` below ten billion rows (`user…` and `com.…` keys too).
    row_prefix: [u64; 4],
    pub cell: Cell,
}

/// The first 32 bytes of `row` as a big-endian number, zero-padded. Two rows whose prefixes
/// differ compare as their prefixes do; equal prefixes need the full comparison.
#[inline]
fn prefix_of(row: &[u8]) -> [u64; 4] {
    // Words rather than a u128 pair, which would force 16-byte alignment and pad every key.
    let mut buf = [0u8; 32];
    let n = row.len().min(32);
    buf[..n].copy_from_slice(&row[..n]);
    let mut words = [0u64; 4];
    for (word, bytes) in words.iter_mut().zip(buf.chunks_exact(8)) {
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        *word = u64::from_be_bytes(b);
    }
    words
}

/// Byte-string order without a library call for the short strings keys are made of (rows and
/// qualifiers are usually well under 64 bytes): eight bytes at a time, as big-endian words.
#[inline]
pub fn bytes_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let common = a.len().min(b.len());
    if common > 64 {
        return a.cmp(b);
    }
    let word = |c: &[u8]| u64::from_be_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    let whole = common / 8 * 8;
    for (x, y) in a[..whole].chunks_exact(8).zip(b[..whole].chunks_exact(8)) {
        match word(x).cmp(&word(y)) {
            Ordering::Equal => {}
            ord => return ord,
        }
    }
    for (x, y) in a[whole..common].iter().zip(&b[whole..common]) {
        match x.cmp(y) {
            Ordering::Equal => {}
            ord => return ord,
        }
    }
    a.len().cmp(&b.len())
}

/// Byte-string equality, eight bytes at a time; cheaper than [`bytes_cmp`] for the row and
/// column boundary checks of every scanned cell.
#[inline]
pub fn bytes_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if a.len() > 64 {
        return a == b;
    }
    let (a_words, a_rest) = a.split_at(a.len() / 8 * 8);
    let (b_words, b_rest) = b.split_at(a_words.len());
    let word = |c: &[u8]| u64::from_ne_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    a_words
        .chunks_exact(8)
        .zip(b_words.chunks_exact(8))
        .all(|(x, y)| word(x) == word(y))
        && a_rest == b_rest
}

impl StoreKey {
    pub fn new(cell: Cell) -> Self {
        StoreKey {
            row_prefix: prefix_of(cell.row()),
            cell,
        }
    }

    /// Sorts before every cell of `row`.
    pub fn first_on_row(row: &[u8]) -> StoreKey {
        StoreKey::new(Cell::first_on_row(row))
    }

    /// Sorts after every cell of `row` and before every cell of the next row.
    pub fn last_on_row(row: &[u8]) -> StoreKey {
        StoreKey::new(Cell::last_on_row(row))
    }
}

impl Ord for StoreKey {
    fn cmp(&self, other: &Self) -> Ordering {
        if self.row_prefix != other.row_prefix {
            return self.row_prefix.cmp(&other.row_prefix);
        }
        let (mine, theirs) = (self.cell.row(), other.cell.row());
        let same_buffer = mine.as_ptr() == theirs.as_ptr() && mine.len() == theirs.len();
        if !same_buffer {
            match bytes_cmp(mine, theirs) {
                Ordering::Equal => {}
                ord => return ord,
            }
        }
        let (a_last, b_last) = (self.cell.is_last_on_row(), other.cell.is_last_on_row());
        if a_last || b_last {
            return a_last.cmp(&b_last);
        }
        let (a, b) = (&self.cell, &other.cell);
        bytes_cmp(a.qualifier(), b.qualifier()).then_with(|| compare_versions(a, b))
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
    use basalt_common::CellType;

    fn sk_after_column(row: &[u8], q: &[u8]) -> StoreKey {
        StoreKey::new(Cell::after_column(row, q))
    }

    fn sk_first_on_column(row: &[u8], q: &[u8]) -> StoreKey {
        StoreKey::new(Cell::first_on_column(row, q))
    }

    fn key(row: &'static [u8], q: &'static [u8], ts: i64, t: CellType) -> StoreKey {
        StoreKey::new(Cell::new(row, b"cf", q, ts, t, b"").with_seq_id(1))
    }

    #[test]
    fn bytes_cmp_and_eq_agree_with_slices() {
        let samples: Vec<Vec<u8>> = (0..80)
            .flat_map(|n| {
                let base: Vec<u8> = (0..n).map(|i| i as u8).collect();
                let mut flipped = base.clone();
                if let Some(last) = flipped.last_mut() {
                    *last ^= 1;
                }
                [base, flipped]
            })
            .collect();
        for a in &samples {
            for b in &samples {
                assert_eq!(bytes_eq(a, b), a == b, "{a:?} vs {b:?}");
                assert_eq!(bytes_cmp(a, b), a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }

    #[test]
    fn prefix_order_agrees_with_byte_order() {
        let rows: [&[u8]; 15] = [
            b"",
            b"\0",
            b"a",
            b"ab",
            b"ab\0",
            b"abcdefghijklmnop",
            b"abcdefghijklmnop\0",
            b"abcdefghijklmnoq",
            b"00000000000000000000012345",
            b"00000000000000000000012346",
            b"abcdefghijklmnopqrstuvwxyz012345",
            b"abcdefghijklmnopqrstuvwxyz012345\0",
            b"abcdefghijklmnopqrstuvwxyz012345a",
            b"abcdefghijklmnopqrstuvwxyz012346",
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
        StoreKey::new(Cell::new(row, b"cf", b"q", 1, CellType::Put, b"").with_seq_id(1))
    }

    #[test]
    fn agrees_with_the_shared_store_order() {
        let keys = [
            StoreKey::first_on_row(b"r"),
            key(b"r", b"", 5, CellType::DeleteFamily),
            key(b"r", b"", 5, CellType::Put),
            sk_after_column(b"r", b""),
            key(b"r", b"a", 9, CellType::Put),
            sk_after_column(b"r", b"a"),
            StoreKey::last_on_row(b"r"),
            key(b"r\0", b"", 1, CellType::Put),
        ];
        for a in &keys {
            for b in &keys {
                let shared = basalt_common::cell::compare_in_store(&a.cell, &b.cell);
                assert_eq!(a.cmp(b), shared, "{:?} vs {:?}", a.cell, b.cell);
            }
        }
    }

    #[test]
    fn sentinels_bracket_rows_and_columns() {
        let r = b"r";
        let cells = [
            key(b"r", b"", 5, CellType::DeleteFamily),
            key(b"r", b"", 5, CellType::Put),
            key(b"r", b"\0", 9, CellType::Put),
            key(b"r", b"a", 9, CellType::Put),
            key(b"r", b"a", 1, CellType::Put),
            key(b"r", b"b", 0, CellType::Put),
        ];
        for c in &cells {
            assert!(StoreKey::first_on_row(r) < *c);
            assert!(StoreKey::last_on_row(r) > *c);
        }
        assert!(StoreKey::last_on_row(r) < key(b"r\0", b"", 1, CellType::Put));
        let a = b"a";
        assert!(sk_after_column(r, a) > cells[4]);
        assert!(sk_after_column(r, a) < cells[5]);
        assert!(sk_after_column(r, b"") > cells[1]);
        assert!(sk_after_column(r, b"") <= cells[2]);
        assert!(sk_first_on_column(r, a) < cells[3]);
    }
}
