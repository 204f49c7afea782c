//! The on-disk cell key (HBase's KeyValue key) and the index key (cell key + sequence id).

use basalt_common::{Bytes, Cell, CellType};

/// Key bytes that are not row, family or qualifier: row length, family length, timestamp, type.
pub const KEY_OVERHEAD: usize = 2 + 1 + 8 + 1;

/// Appends the key of `cell`: row length, row, family length, family, qualifier, timestamp,
/// type. Row and family lengths must fit (validation guarantees it for stored cells).
pub fn encode_key(cell: &Cell, out: &mut Vec<u8>) {
    let (row, family) = (cell.row(), cell.family());
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(family.len() as u8);
    out.extend_from_slice(family);
    out.extend_from_slice(cell.qualifier());
    out.extend_from_slice(&cell.timestamp.to_be_bytes());
    out.push(cell.cell_type.code());
}

/// The key of `cell` followed by its sequence id: what index entries hold.
pub fn encode_index_key(cell: &Cell) -> Vec<u8> {
    let mut out = Vec::with_capacity(cell.row().len() + cell.qualifier().len() + 32);
    encode_key(cell, &mut out);
    out.extend_from_slice(&cell.seq_id.to_be_bytes());
    out
}

/// How a stored cell's key stands after the previous one in store order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The first key, or one of a row after the previous key's.
    NewRow,
    /// The same row, a later column.
    NewColumn,
    /// The same column: an older version, or a lower type or sequence id.
    SameColumn,
    /// Not after the previous key: out of order, or the same key again.
    NotAfter,
}

/// Where encoded key `b` (with its sequence id) stands after encoded key `a`, both of the
/// same family and made by [`encode_key`], given `shared`, the length of their common
/// prefix. A difference within rows or qualifiers of equal length is decided by the byte
/// at `shared`, without comparing the slices again.
pub fn step(a: &[u8], a_seq: u64, b: &[u8], b_seq: u64, shared: usize) -> Step {
    use std::cmp::Ordering::{Equal, Greater, Less};
    let row_len = |k: &[u8]| usize::from(u16::from_be_bytes([k[0], k[1]]));
    let (row_a, row_b) = (row_len(a), row_len(b));
    let rows = if row_a != row_b {
        a[2..2 + row_a].cmp(&b[2..2 + row_b])
    } else if shared < 2 + row_a {
        a[shared].cmp(&b[shared])
    } else {
        Equal
    };
    match rows {
        Less => return Step::NewRow,
        Greater => return Step::NotAfter,
        Equal => {}
    }
    // Same row and family: the qualifiers start at the same offset and end 9 bytes
    // (timestamp, type) before the key does.
    let at = 3 + row_a + usize::from(a[2 + row_a]);
    let (end_a, end_b) = (a.len() - 9, b.len() - 9);
    let common = (end_a - at).min(end_b - at);
    let columns = if shared < at + common {
        a[shared].cmp(&b[shared])
    } else {
        end_a.cmp(&end_b)
    };
    match columns {
        Less => return Step::NewColumn,
        Greater => return Step::NotAfter,
        Equal => {}
    }
    let stamp = |k: &[u8], end: usize| {
        let mut ts = [0u8; 8];
        ts.copy_from_slice(&k[end..end + 8]);
        i64::from_be_bytes(ts)
    };
    // Newer timestamps, higher types and higher sequence ids come first.
    let version = stamp(b, end_b)
        .cmp(&stamp(a, end_a))
        .then_with(|| b[b.len() - 1].cmp(&a[a.len() - 1]))
        .then_with(|| b_seq.cmp(&a_seq));
    if version == Less {
        Step::SameColumn
    } else {
        Step::NotAfter
    }
}

/// The parts of an encoded key.
#[derive(Debug)]
pub struct KeyParts<'a> {
    pub row: &'a [u8],
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub cell_type: CellType,
}

/// Splits an encoded key of a stored cell (a put or a delete marker), or says why it is
/// malformed.
pub fn decode_key(key: &[u8]) -> Result<KeyParts<'_>, String> {
    split_key(key, |t| t == CellType::Put || t.is_delete())
}

/// Splits an encoded key whose type `accept` allows.
fn split_key(key: &[u8], accept: impl Fn(CellType) -> bool) -> Result<KeyParts<'_>, String> {
    if key.len() < KEY_OVERHEAD {
        return Err(format!(
            "key of {} bytes is shorter than {KEY_OVERHEAD}",
            key.len()
        ));
    }
    let row_len = usize::from(u16::from_be_bytes([key[0], key[1]]));
    let family_len_at = 2 + row_len;
    let family_len = *key
        .get(family_len_at)
        .ok_or_else(|| format!("row length {row_len} overruns a {}-byte key", key.len()))?
        as usize;
    let qualifier_at = family_len_at + 1 + family_len;
    let tail_at = key.len() - 9;
    if qualifier_at > tail_at {
        return Err(format!(
            "row and family lengths ({row_len}, {family_len}) overrun a {}-byte key",
            key.len()
        ));
    }
    let mut ts = [0u8; 8];
    ts.copy_from_slice(&key[tail_at..tail_at + 8]);
    let code = key[key.len() - 1];
    let cell_type = CellType::from_code(code)
        .filter(|t| accept(*t))
        .ok_or_else(|| format!("unknown cell type {code}"))?;
    Ok(KeyParts {
        row: &key[2..family_len_at],
        family: &key[family_len_at + 1..qualifier_at],
        qualifier: &key[qualifier_at..tail_at],
        timestamp: i64::from_be_bytes(ts),
        cell_type,
    })
}

/// The cell an index key describes (empty value), for comparisons in store order: a stored
/// cell's key, or (format 1.1, for a block that starts a row) the row's first-on-row seek key.
pub fn decode_index_key(key: &[u8]) -> Result<Cell, String> {
    if key.len() < 8 {
        return Err("index key shorter than its sequence id".into());
    }
    let (cell_key, seq) = key.split_at(key.len() - 8);
    let mut seq_bytes = [0u8; 8];
    seq_bytes.copy_from_slice(seq);
    let parts = split_key(cell_key, |t| {
        t == CellType::Put || t.is_delete() || t == CellType::Maximum
    })?;
    parts_cell(&parts, u64::from_be_bytes(seq_bytes))
}

/// The index key of a block whose first cell, `first`, starts its row: the row's first-on-row
/// seek key, so a seek for the row finds this block, not the one before.
pub fn row_index_key(first: &Cell) -> Vec<u8> {
    encode_index_key(&Cell::first_on_row(first.row()))
}

/// The cell (empty value) of an encoded key and its sequence id.
pub fn key_cell(key: &[u8], seq_id: u64) -> Result<Cell, String> {
    parts_cell(&decode_key(key)?, seq_id)
}

fn parts_cell(parts: &KeyParts<'_>, seq_id: u64) -> Result<Cell, String> {
    let cell = Cell::from_buffer(
        Bytes::from([parts.row, parts.family, parts.qualifier].concat()),
        parts.row.len(),
        parts.family.len(),
        parts.qualifier.len(),
        parts.timestamp,
        parts.cell_type,
    )
    .ok_or("key parts do not fit a cell")?;
    Ok(cell.with_seq_id(seq_id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Rows and qualifiers over a tiny alphabet, so that equal, prefix and differing ones
    /// all turn up.
    fn arb_cell() -> impl Strategy<Value = Cell> {
        let part = proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b')], 0..4);
        let kind = prop_oneof![
            Just(CellType::Put),
            Just(CellType::Delete),
            Just(CellType::DeleteColumn),
            Just(CellType::DeleteFamily)
        ];
        (part.clone(), part, -2i64..2, kind, 0u64..3).prop_map(|(row, q, ts, t, seq)| {
            Cell::new(&row, b"cf", &q, ts, t, b"").with_seq_id(seq)
        })
    }

    proptest! {
        #[test]
        fn step_agrees_with_store_order(a in arb_cell(), b in arb_cell()) {
            let (mut ka, mut kb) = (Vec::new(), Vec::new());
            encode_key(&a, &mut ka);
            encode_key(&b, &mut kb);
            let shared = ka.iter().zip(&kb).take_while(|(x, y)| x == y).count();
            let expected = if basalt_common::cell::compare_in_store(&a, &b).is_lt() {
                if a.row() != b.row() {
                    Step::NewRow
                } else if a.qualifier() != b.qualifier() {
                    Step::NewColumn
                } else {
                    Step::SameColumn
                }
            } else {
                Step::NotAfter
            };
            prop_assert_eq!(step(&ka, a.seq_id, &kb, b.seq_id, shared), expected);
        }
    }

    #[test]
    fn keys_round_trip() {
        let cell =
            Cell::new(b"row", b"cf", b"qual", 42, CellType::DeleteColumn, b"v").with_seq_id(9);
        let decoded = decode_index_key(&encode_index_key(&cell)).unwrap();
        assert_eq!(
            (decoded.row(), decoded.family(), decoded.qualifier()),
            (&b"row"[..], &b"cf"[..], &b"qual"[..])
        );
        assert_eq!(
            (decoded.timestamp, decoded.cell_type, decoded.seq_id),
            (42, CellType::DeleteColumn, 9)
        );
        assert!(decode_key(b"short").is_err());
        let mut bad = Vec::new();
        encode_key(&cell, &mut bad);
        bad[1] = 200; // row length past the end
        assert!(decode_key(&bad).is_err());
    }
}
