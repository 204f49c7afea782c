//! Cell blocks on input: the cells of a call's mutations sent after its parameter message, as
//! HBase's Java client does (`MutationProto.associated_cell_count` says how many cells of the
//! block each mutation owns, in order). Codecs: `KeyValueCodec` and `KeyValueCodecWithTags`;
//! format in `docs/design/rpc.md`.

use crate::client_service::exception;
use crate::pb::{ExceptionResponse, MultiRequest, MutateRequest, MutationProto, mutation_proto};

const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";
const KEY_VALUE_CODEC_WITH_TAGS: &str = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

/// One cell of a block, as HBase's KeyValue holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    pub row: Vec<u8>,
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub timestamp: i64,
    /// KeyValue.Type: Put 4, Delete 8, DeleteFamilyVersion 10, DeleteColumn 12,
    /// DeleteFamily 14.
    pub kind: u8,
    pub value: Vec<u8>,
}

fn bad(what: String) -> ExceptionResponse {
    exception("org.apache.hadoop.hbase.DoNotRetryIOException", what, true)
}

/// Whether a connection's codec (the connection header's `cell_block_codec_class`) can carry
/// input cells; an error names what cannot.
pub fn check_codec(codec: Option<&str>, compressor: Option<&str>) -> Result<(), ExceptionResponse> {
    if let Some(c) = compressor.filter(|c| !c.is_empty()) {
        return Err(bad(format!(
            "cell block compressor {c} is not supported; connect without one"
        )));
    }
    match codec {
        Some(KEY_VALUE_CODEC | KEY_VALUE_CODEC_WITH_TAGS) => Ok(()),
        Some(other) if !other.is_empty() => Err(bad(format!(
            "cell block codec {other} is not supported (use {KEY_VALUE_CODEC})"
        ))),
        _ => Err(bad(
            "a call carries a cell block but the connection named no codec".into(),
        )),
    }
}

/// Splits `n` bytes off the front of `buf`.
fn take<'a>(buf: &mut &'a [u8], n: usize, what: &str) -> Result<&'a [u8], ExceptionResponse> {
    if buf.len() < n {
        return Err(bad(format!(
            "cell block: {what} needs {n} bytes, {} left",
            buf.len()
        )));
    }
    let (head, rest) = buf.split_at(n);
    *buf = rest;
    Ok(head)
}

fn be_u32(buf: &mut &[u8], what: &str) -> Result<usize, ExceptionResponse> {
    let b = take(buf, 4, what)?;
    Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// The cells of a block: each a 4-byte length, then a KeyValue (key length, value length, key,
/// value, and with tags a 2-byte tags length and the tags, which Basalt drops).
pub fn decode(mut block: &[u8]) -> Result<Vec<KeyValue>, ExceptionResponse> {
    let mut cells = Vec::new();
    while !block.is_empty() {
        let len = be_u32(&mut block, "a cell's length")?;
        let mut kv = take(&mut block, len, "a cell")?;
        let key_len = be_u32(&mut kv, "a key length")?;
        let value_len = be_u32(&mut kv, "a value length")?;
        let mut key = take(&mut kv, key_len, "a key")?;
        let value = take(&mut kv, value_len, "a value")?.to_vec();
        // Whatever follows the value inside the cell's length is tags.
        let row_len = usize::from(u16::from_be_bytes(
            take(&mut key, 2, "a row length")?
                .try_into()
                .unwrap_or([0; 2]),
        ));
        let row = take(&mut key, row_len, "a row")?.to_vec();
        let family_len = usize::from(take(&mut key, 1, "a family length")?[0]);
        let family = take(&mut key, family_len, "a family")?.to_vec();
        let qualifier_len = key
            .len()
            .checked_sub(9)
            .ok_or_else(|| bad("cell block: a key too short for its timestamp and type".into()))?;
        let qualifier = take(&mut key, qualifier_len, "a qualifier")?.to_vec();
        let timestamp = i64::from_be_bytes(
            take(&mut key, 8, "a timestamp")?
                .try_into()
                .unwrap_or([0; 8]),
        );
        let kind = take(&mut key, 1, "a type")?[0];
        cells.push(KeyValue {
            row,
            family,
            qualifier,
            timestamp,
            kind,
            value,
        });
    }
    Ok(cells)
}

/// Moves a mutation's `associated_cell_count` cells from `cells` into its `column_value`s, so
/// the rest of the server sees one form. Each cell must be of the mutation's row.
fn inflate(
    m: &mut MutationProto,
    cells: &mut std::vec::IntoIter<KeyValue>,
) -> Result<(), ExceptionResponse> {
    use mutation_proto::column_value::QualifierValue;
    use mutation_proto::{ColumnValue, DeleteType};
    let n = usize::try_from(m.associated_cell_count.take().unwrap_or(0)).unwrap_or(0);
    for _ in 0..n {
        let c = cells.next().ok_or_else(|| {
            bad("cell block: a mutation counts more cells than the block holds".into())
        })?;
        if m.row.as_deref() != Some(&c.row[..]) {
            if m.row.is_none() {
                m.row = Some(c.row.clone());
            } else {
                return Err(bad(format!(
                    "cell block: a cell of row {:?} in a mutation of row {:?}",
                    String::from_utf8_lossy(&c.row),
                    String::from_utf8_lossy(m.row.as_deref().unwrap_or_default())
                )));
            }
        }
        let delete_type = match c.kind {
            4 => None,
            8 => Some(DeleteType::DeleteOneVersion),
            10 => Some(DeleteType::DeleteFamilyVersion),
            12 => Some(DeleteType::DeleteMultipleVersions),
            14 => Some(DeleteType::DeleteFamily),
            other => return Err(bad(format!("cell block: cell type {other}"))),
        };
        let qv = QualifierValue {
            qualifier: Some(c.qualifier),
            value: Some(c.value),
            // HBase's LATEST_TIMESTAMP (Long.MAX_VALUE) means "server time", like no timestamp.
            timestamp: u64::try_from(c.timestamp)
                .ok()
                .filter(|&t| t != i64::MAX as u64),
            delete_type: delete_type.map(|d| d as i32),
            tags: None,
        };
        match m.column_value.last_mut() {
            Some(cv) if cv.family == c.family => cv.qualifier_value.push(qv),
            _ => m.column_value.push(ColumnValue {
                family: c.family,
                qualifier_value: vec![qv],
            }),
        }
    }
    Ok(())
}

fn finish(cells: &std::vec::IntoIter<KeyValue>) -> Result<(), ExceptionResponse> {
    match cells.len() {
        0 => Ok(()),
        n => Err(bad(format!(
            "cell block: {n} cells left over that no mutation counts"
        ))),
    }
}

/// A Mutate call's cells, moved into its mutation.
pub fn inflate_mutate(req: &mut MutateRequest, block: &[u8]) -> Result<(), ExceptionResponse> {
    let mut cells = decode(block)?.into_iter();
    inflate(&mut req.mutation, &mut cells)?;
    finish(&cells)
}

/// A Multi call's cells, moved into its mutations in the order they appear (region action by
/// region action, action by action), as HBase's client writes them.
pub fn inflate_multi(req: &mut MultiRequest, block: &[u8]) -> Result<(), ExceptionResponse> {
    let mut cells = decode(block)?.into_iter();
    for ra in &mut req.region_action {
        for a in &mut ra.action {
            if let Some(m) = &mut a.mutation {
                inflate(m, &mut cells)?;
            }
        }
    }
    finish(&cells)
}

/// Encodes cells as a KeyValueCodec block (for clients and tests).
pub fn encode(cells: &[KeyValue]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in cells {
        let key_len = 2 + c.row.len() + 1 + c.family.len() + c.qualifier.len() + 8 + 1;
        let len = 8 + key_len + c.value.len();
        out.extend_from_slice(&(len as u32).to_be_bytes());
        out.extend_from_slice(&(key_len as u32).to_be_bytes());
        out.extend_from_slice(&(c.value.len() as u32).to_be_bytes());
        out.extend_from_slice(&(c.row.len() as u16).to_be_bytes());
        out.extend_from_slice(&c.row);
        out.push(c.family.len() as u8);
        out.extend_from_slice(&c.family);
        out.extend_from_slice(&c.qualifier);
        out.extend_from_slice(&c.timestamp.to_be_bytes());
        out.push(c.kind);
        out.extend_from_slice(&c.value);
    }
    out
}
