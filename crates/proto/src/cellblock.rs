//! Cell blocks on input: the cells of a call's mutations sent after its parameter message, as
//! HBase's Java client does (`MutationProto.associated_cell_count` says how many cells of the
//! block each mutation owns, in order). Codecs: `KeyValueCodec` and `KeyValueCodecWithTags`;
//! format in `docs/design/rpc.md`.

use std::ops::Range;

use basalt_common::Bytes;

use crate::exception;
use crate::pb::mutation_proto::DeleteType;
use crate::pb::{ExceptionResponse, MutationProto};

pub const KEY_VALUE_CODEC: &str = "org.apache.hadoop.hbase.codec.KeyValueCodec";
const KEY_VALUE_CODEC_WITH_TAGS: &str = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";
/// Each cell's parts with 4-byte lengths, then the sequence id (HBase's CellCodec).
pub const CELL_CODEC: &str = "org.apache.hadoop.hbase.codec.CellCodec";
/// CellCodec with the tags after the value.
pub const CELL_CODEC_WITH_TAGS: &str = "org.apache.hadoop.hbase.codec.CellCodecWithTags";
/// Each cell a length-delimited protobuf `Cell` (HBase's MessageCodec).
pub const MESSAGE_CODEC: &str = "org.apache.hadoop.hbase.codec.MessageCodec";

/// One cell of a block, as HBase's KeyValue holds it. Decoded, its parts are slices of the
/// call's frame, not copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    pub row: Bytes,
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    /// KeyValue.Type: Put 4, Delete 8, DeleteFamilyVersion 10, DeleteColumn 12,
    /// DeleteFamily 14.
    pub kind: u8,
    pub value: Bytes,
}

/// KeyValue.Type of a put cell.
pub const PUT: u8 = 4;

impl KeyValue {
    /// The delete kind of a delete cell; None for a put; an error for an unknown type.
    pub fn delete_type(&self) -> Result<Option<DeleteType>, ExceptionResponse> {
        Ok(match self.kind {
            PUT => None,
            8 => Some(DeleteType::DeleteOneVersion),
            10 => Some(DeleteType::DeleteFamilyVersion),
            12 => Some(DeleteType::DeleteMultipleVersions),
            14 => Some(DeleteType::DeleteFamily),
            other => return Err(bad(format!("cell block: cell type {other}"))),
        })
    }

    /// The cell's timestamp; None for HBase's LATEST_TIMESTAMP (Long.MAX_VALUE), which means
    /// the server's time, as a cell sent without one.
    pub fn given_timestamp(&self) -> Option<i64> {
        (self.timestamp != i64::MAX).then_some(self.timestamp)
    }
}

/// The KeyValue.Type of a delete kind.
pub fn delete_kind(d: DeleteType) -> u8 {
    match d {
        DeleteType::DeleteOneVersion => 8,
        DeleteType::DeleteFamilyVersion => 10,
        DeleteType::DeleteMultipleVersions => 12,
        DeleteType::DeleteFamily => 14,
    }
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
        Some(
            KEY_VALUE_CODEC
            | KEY_VALUE_CODEC_WITH_TAGS
            | CELL_CODEC
            | CELL_CODEC_WITH_TAGS
            | MESSAGE_CODEC,
        ) => Ok(()),
        Some(other) if !other.is_empty() => Err(bad(format!(
            "cell block codec {other} is not supported (use {KEY_VALUE_CODEC}, \
             {KEY_VALUE_CODEC_WITH_TAGS}, {CELL_CODEC}, {CELL_CODEC_WITH_TAGS} or {MESSAGE_CODEC})"
        ))),
        _ => Err(bad(
            "a call carries a cell block but the connection named no codec".into(),
        )),
    }
}

/// A block in the connection's codec as KeyValueCodec's form, which the services read: the
/// block itself for the KeyValue codecs; CellCodec's, CellCodecWithTags' and MessageCodec's
/// cells rewritten (tags kept, as KeyValueCodecWithTags carries them, so a service that
/// stores none can refuse them; sequence ids dropped: the server assigns its own).
pub fn as_key_values(codec: Option<&str>, block: &Bytes) -> Result<Bytes, ExceptionResponse> {
    let cells = match codec {
        Some(CELL_CODEC) => cell_codec_cells(block, false)?,
        Some(CELL_CODEC_WITH_TAGS) => cell_codec_cells(block, true)?,
        Some(MESSAGE_CODEC) => message_codec_cells(block)?,
        _ => return Ok(block.clone()),
    };
    let mut out = Vec::with_capacity(block.len());
    for (c, tags) in cells {
        write_tagged_cell(&mut out, &c, &tags);
    }
    Ok(Bytes::from(out))
}

/// One cell of another codec, and its tags.
type Foreign = (KeyValue, Bytes);

fn cell_codec_cells(block: &Bytes, with_tags: bool) -> Result<Vec<Foreign>, ExceptionResponse> {
    let mut block = block.clone();
    let mut cells = Vec::new();
    while !block.is_empty() {
        let mut part = |what: &str| -> Result<Bytes, ExceptionResponse> {
            let n = be_u32(&mut block, what)?;
            take(&mut block, n, what)
        };
        let row = part("a CellCodec row")?;
        let family = part("a CellCodec family")?;
        let qualifier = part("a CellCodec qualifier")?;
        let fixed = take(&mut block, 9, "a CellCodec timestamp and type")?;
        let value = take_prefixed(&mut block, "a CellCodec value")?;
        let tags = if with_tags {
            take_prefixed(&mut block, "CellCodecWithTags tags")?
        } else {
            Bytes::new()
        };
        take(&mut block, 8, "a CellCodec sequence id")?;
        let mut ts = [0; 8];
        ts.copy_from_slice(&fixed[..8]);
        let cell = KeyValue {
            row,
            family,
            qualifier,
            timestamp: i64::from_be_bytes(ts),
            kind: fixed[8],
            value,
        };
        cell.delete_type()?;
        cells.push((cell, tags));
    }
    Ok(cells)
}

fn take_prefixed(block: &mut Bytes, what: &str) -> Result<Bytes, ExceptionResponse> {
    let n = be_u32(block, what)?;
    take(block, n, what)
}

fn message_codec_cells(block: &Bytes) -> Result<Vec<Foreign>, ExceptionResponse> {
    use prost::Message;
    let mut block = block.clone();
    let mut cells = Vec::new();
    while !block.is_empty() {
        let len = prost::encoding::decode_varint(&mut block)
            .map_err(|e| bad(format!("cell block: a MessageCodec cell's length: {e}")))?;
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        let msg = take(&mut block, len, "a MessageCodec cell")?;
        let c = crate::pb::Cell::decode(msg)
            .map_err(|e| bad(format!("cell block: a MessageCodec cell: {e}")))?;
        let kind = u8::try_from(c.cell_type.unwrap_or(PUT.into()))
            .map_err(|_| bad("cell block: a MessageCodec cell type out of range".into()))?;
        let cell = KeyValue {
            row: Bytes::from(c.row.unwrap_or_default()),
            family: Bytes::from(c.family.unwrap_or_default()),
            qualifier: Bytes::from(c.qualifier.unwrap_or_default()),
            timestamp: c
                .timestamp
                .map_or(i64::MAX, |t| i64::try_from(t).unwrap_or(i64::MAX)),
            kind,
            value: Bytes::from(c.value.unwrap_or_default()),
        };
        cell.delete_type()?;
        cells.push((cell, Bytes::from(c.tags.unwrap_or_default())));
    }
    Ok(cells)
}

/// One cell in KeyValueCodecWithTags form (no tags: KeyValueCodec's).
fn write_tagged_cell(out: &mut Vec<u8>, c: &KeyValue, tags: &[u8]) {
    let start = out.len();
    write_cell(
        out,
        &c.row,
        &c.family,
        &c.qualifier,
        c.timestamp,
        c.kind,
        &c.value,
    );
    if !tags.is_empty() {
        out.extend_from_slice(&(tags.len() as u16).to_be_bytes());
        out.extend_from_slice(tags);
        let len = (out.len() - start - 4) as u32;
        out[start..start + 4].copy_from_slice(&len.to_be_bytes());
    }
}

/// Splits `n` bytes off the front of `buf`.
fn take(buf: &mut Bytes, n: usize, what: &str) -> Result<Bytes, ExceptionResponse> {
    if buf.len() < n {
        return Err(bad(format!(
            "cell block: {what} needs {n} bytes, {} left",
            buf.len()
        )));
    }
    Ok(buf.split_to(n))
}

fn be_u32(buf: &mut Bytes, what: &str) -> Result<usize, ExceptionResponse> {
    let b = take(buf, 4, what)?;
    Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// The cells of a block: each a 4-byte length, then a KeyValue (key length, value length, key,
/// value, and with tags a 2-byte tags length and the tags, which Basalt drops: replication
/// reads HBase's cells this way).
pub fn decode(block: &Bytes) -> Result<Vec<KeyValue>, ExceptionResponse> {
    decode_cells(block, false)
}

/// The cells of a client's block, as [`decode`], but a cell with tags is refused by name:
/// Basalt stores no tags, so a client's would be lost.
pub fn decode_untagged(block: &Bytes) -> Result<Vec<KeyValue>, ExceptionResponse> {
    decode_cells(block, true)
}

fn decode_cells(block: &Bytes, refuse_tags: bool) -> Result<Vec<KeyValue>, ExceptionResponse> {
    let mut block = block.clone();
    let mut cells = Vec::new();
    while !block.is_empty() {
        let len = be_u32(&mut block, "a cell's length")?;
        let mut kv = take(&mut block, len, "a cell")?;
        let key_len = be_u32(&mut kv, "a key length")?;
        let value_len = be_u32(&mut kv, "a value length")?;
        let mut key = take(&mut kv, key_len, "a key")?;
        let value = take(&mut kv, value_len, "a value")?;
        // Whatever follows the value inside the cell's length is tags (a 2-byte length
        // first).
        if refuse_tags && kv.len() > 2 {
            return Err(crate::refused(
                "a cell block cell's tags",
                "Basalt stores no cell tags",
            ));
        }
        let row_len = take(&mut key, 2, "a row length")?;
        let row_len = usize::from(u16::from_be_bytes([row_len[0], row_len[1]]));
        let row = take(&mut key, row_len, "a row")?;
        let family_len = usize::from(take(&mut key, 1, "a family length")?[0]);
        let family = take(&mut key, family_len, "a family")?;
        let qualifier_len = key
            .len()
            .checked_sub(9)
            .ok_or_else(|| bad("cell block: a key too short for its timestamp and type".into()))?;
        let qualifier = take(&mut key, qualifier_len, "a qualifier")?;
        let mut timestamp = [0; 8];
        timestamp.copy_from_slice(&key[..8]);
        let cell = KeyValue {
            row,
            family,
            qualifier,
            timestamp: i64::from_be_bytes(timestamp),
            kind: key[8],
            value,
        };
        cell.delete_type()?;
        cells.push(cell);
    }
    Ok(cells)
}

/// Deals a block's cells to the mutations that count them, in order: for each mutation, the
/// range of `cells` it owns (empty for a mutation whose cells are in the message). Checks
/// everything before anything is written: a count past the block's end, cells left over, a
/// cell of another row than its mutation's.
pub fn deal<'a>(
    mutations: impl IntoIterator<Item = Option<&'a MutationProto>>,
    cells: &[KeyValue],
) -> Result<Vec<Range<usize>>, ExceptionResponse> {
    let mut next = 0;
    let mut dealt = Vec::new();
    for m in mutations {
        let n = m
            .and_then(|m| m.associated_cell_count)
            .and_then(|n| usize::try_from(n).ok())
            .unwrap_or(0);
        let owned = cells.get(next..next + n).ok_or_else(|| {
            bad("cell block: a mutation counts more cells than the block holds".into())
        })?;
        let row = m.and_then(|m| m.row.as_deref());
        for c in owned {
            if row.is_some_and(|r| r != &c.row[..]) || c.row != owned[0].row {
                return Err(bad(format!(
                    "cell block: a cell of row {:?} in a mutation of row {:?}",
                    String::from_utf8_lossy(&c.row),
                    String::from_utf8_lossy(row.unwrap_or(&owned[0].row))
                )));
            }
        }
        dealt.push(next..next + n);
        next += n;
    }
    match cells.len() - next {
        0 => Ok(dealt),
        n => Err(bad(format!(
            "cell block: {n} cells left over that no mutation counts"
        ))),
    }
}

/// Writes one cell in KeyValueCodec form.
pub fn write_cell(
    out: &mut Vec<u8>,
    row: &[u8],
    family: &[u8],
    qualifier: &[u8],
    timestamp: i64,
    kind: u8,
    value: &[u8],
) {
    let key_len = 2 + row.len() + 1 + family.len() + qualifier.len() + 8 + 1;
    let len = 8 + key_len + value.len();
    out.reserve(4 + len);
    out.extend_from_slice(&(len as u32).to_be_bytes());
    out.extend_from_slice(&(key_len as u32).to_be_bytes());
    out.extend_from_slice(&(value.len() as u32).to_be_bytes());
    out.extend_from_slice(&(row.len() as u16).to_be_bytes());
    out.extend_from_slice(row);
    out.push(family.len() as u8);
    out.extend_from_slice(family);
    out.extend_from_slice(qualifier);
    out.extend_from_slice(&timestamp.to_be_bytes());
    out.push(kind);
    out.extend_from_slice(value);
}

/// Encodes cells as a KeyValueCodec block (for clients and tests).
pub fn encode(cells: &[KeyValue]) -> Vec<u8> {
    let mut out = Vec::new();
    for c in cells {
        write_cell(
            &mut out,
            &c.row,
            &c.family,
            &c.qualifier,
            c.timestamp,
            c.kind,
            &c.value,
        );
    }
    out
}
