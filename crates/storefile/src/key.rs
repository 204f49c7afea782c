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

/// The parts of an encoded key.
#[derive(Debug)]
pub struct KeyParts<'a> {
    pub row: &'a [u8],
    pub family: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub cell_type: CellType,
}

/// Splits an encoded key, or says why it is malformed.
pub fn decode_key(key: &[u8]) -> Result<KeyParts<'_>, String> {
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
        .filter(|t| *t == CellType::Put || t.is_delete())
        .ok_or_else(|| format!("unknown cell type {code}"))?;
    Ok(KeyParts {
        row: &key[2..family_len_at],
        family: &key[family_len_at + 1..qualifier_at],
        qualifier: &key[qualifier_at..tail_at],
        timestamp: i64::from_be_bytes(ts),
        cell_type,
    })
}

/// The cell an index key describes (empty value), for comparisons in store order.
pub fn decode_index_key(key: &[u8]) -> Result<Cell, String> {
    if key.len() < 8 {
        return Err("index key shorter than its sequence id".into());
    }
    let (cell_key, seq) = key.split_at(key.len() - 8);
    let parts = decode_key(cell_key)?;
    let mut seq_bytes = [0u8; 8];
    seq_bytes.copy_from_slice(seq);
    let cell = Cell::from_buffer(
        Bytes::from([parts.row, parts.family, parts.qualifier].concat()),
        parts.row.len(),
        parts.family.len(),
        parts.qualifier.len(),
        parts.timestamp,
        parts.cell_type,
    )
    .ok_or("index key parts do not fit a cell")?;
    Ok(cell.with_seq_id(u64::from_be_bytes(seq_bytes)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
