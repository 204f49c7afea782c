//! One WAL record's body: an edit, the cells one mutation wrote to one region under one
//! sequence id. Layout in `docs/design/wal.md`.

use basalt_common::replication::ClusterId;
use basalt_common::{Bytes, Cell, CellType};

/// Record kinds: an edit, and an edit with what replication needs of it (the clusters it came
/// through, the families that replicate). Flush and compaction markers (HBase's METAFAMILY
/// edits) will take further codes.
const KIND_EDIT: u8 = 1;
const KIND_REPLICATED_EDIT: u8 = 2;

/// What replication needs of an edit (HBase's WALKey `cluster_ids` and `scopes`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditOrigin {
    /// The clusters the edit came through (empty for an edit made on this cluster).
    pub cluster_ids: Vec<ClusterId>,
    /// The families of the edit's table with a REPLICATION_SCOPE, when it was written.
    pub replicated_families: Vec<Bytes>,
}

impl EditOrigin {
    pub fn is_empty(&self) -> bool {
        self.cluster_ids.is_empty() && self.replicated_families.is_empty()
    }
}

/// The cells one mutation wrote to one region, as logged before they reach the memstore.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalEdit {
    /// The region's encoded name (the MD5 hex that names its directory).
    pub region: String,
    /// The table's name, `namespace:qualifier` or just the qualifier in `default`.
    pub table: String,
    /// The sequence id the region gave the mutation; every cell carries it on replay.
    pub seq_id: u64,
    /// When the edit was logged, in milliseconds since the epoch.
    pub write_time_ms: i64,
    pub origin: EditOrigin,
    pub cells: Vec<Cell>,
}

/// Appends `edit`'s body (without the record header) to `out`. Fails, naming what, only for
/// names longer than the format's 16-bit lengths, which valid tables and regions never reach.
pub fn encode_edit(edit: &WalEdit, out: &mut Vec<u8>) -> Result<(), String> {
    encode_body(
        &edit.region,
        &edit.table,
        edit.seq_id,
        edit.write_time_ms,
        (&edit.origin.cluster_ids, &edit.origin.replicated_families),
        edit.cells.iter(),
        out,
    )
}

/// [`encode_edit`] from borrowed parts, for writers that hold their cells elsewhere (a
/// region logging a mutation need not build a [`WalEdit`]). The cells' own sequence ids are
/// not written: the edit's applies to all of them.
pub(crate) fn encode_body<'c>(
    region: &str,
    table: &str,
    seq_id: u64,
    write_time_ms: i64,
    (cluster_ids, replicated): (&[ClusterId], &[Bytes]),
    cells: impl ExactSizeIterator<Item = &'c Cell>,
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let tagged = !cluster_ids.is_empty() || !replicated.is_empty();
    out.push(if tagged {
        KIND_REPLICATED_EDIT
    } else {
        KIND_EDIT
    });
    put_str16(out, "region name", region)?;
    put_str16(out, "table name", table)?;
    out.extend_from_slice(&seq_id.to_be_bytes());
    out.extend_from_slice(&write_time_ms.to_be_bytes());
    if tagged {
        let n = u8::try_from(cluster_ids.len())
            .map_err(|_| format!("{} cluster ids on one edit", cluster_ids.len()))?;
        out.push(n);
        for id in cluster_ids {
            out.extend_from_slice(&id.0.to_be_bytes());
        }
        let n = u8::try_from(replicated.len())
            .map_err(|_| format!("{} replicated families", replicated.len()))?;
        out.push(n);
        for family in replicated {
            // Family names are at most 127 bytes.
            out.push(family.len() as u8);
            out.extend_from_slice(family);
        }
    }
    let count =
        u32::try_from(cells.len()).map_err(|_| format!("{} cells in one edit", cells.len()))?;
    out.extend_from_slice(&count.to_be_bytes());
    for cell in cells {
        let value_len = u32::try_from(cell.value().len())
            .map_err(|_| format!("a value of {} bytes", cell.value().len()))?;
        out.push(cell.cell_type.code());
        // The cell already fits these widths: `Cell` holds them as u16, u8 and u32.
        out.extend_from_slice(&(cell.row().len() as u16).to_be_bytes());
        out.push(cell.family().len() as u8);
        out.extend_from_slice(&(cell.qualifier().len() as u32).to_be_bytes());
        out.extend_from_slice(&value_len.to_be_bytes());
        out.extend_from_slice(&cell.timestamp.to_be_bytes());
        match cell.ttl_ms {
            None => out.push(0),
            Some(ttl) => {
                out.push(1);
                out.extend_from_slice(&ttl.to_be_bytes());
            }
        }
        out.extend_from_slice(cell.row());
        out.extend_from_slice(cell.family());
        out.extend_from_slice(cell.qualifier());
        out.extend_from_slice(cell.value());
    }
    Ok(())
}

fn put_str16(out: &mut Vec<u8>, what: &str, s: &str) -> Result<(), String> {
    let len = u16::try_from(s.len()).map_err(|_| format!("{what} of {} bytes", s.len()))?;
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// Decodes a record body written by [`encode_edit`]. `body` is the whole body (its CRC
/// already checked); the error says what was wrong and at which offset within the body.
pub fn decode_edit(body: &Bytes) -> Result<WalEdit, String> {
    let mut r = BodyReader { body, at: 0 };
    let kind = r.u8("record kind")?;
    if kind != KIND_EDIT && kind != KIND_REPLICATED_EDIT {
        return Err(format!("unknown record kind {kind}"));
    }
    let region = r.str16("region name")?;
    let table = r.str16("table name")?;
    let seq_id = r.u64("sequence id")?;
    let write_time_ms = r.u64("write time")? as i64;
    let mut origin = EditOrigin::default();
    if kind == KIND_REPLICATED_EDIT {
        for _ in 0..r.u8("cluster id count")? {
            origin
                .cluster_ids
                .push(ClusterId(u128::from_be_bytes(r.array("cluster id")?)));
        }
        for _ in 0..r.u8("replicated family count")? {
            let len = usize::from(r.u8("replicated family length")?);
            origin
                .replicated_families
                .push(r.take(len, "replicated family")?);
        }
    }
    let count = r.u32("cell count")?;
    // Every cell takes at least 20 bytes, so a count the body cannot hold is caught before
    // anything is allocated for it.
    if u64::from(count) * 20 > (body.len() - r.at) as u64 {
        return Err(format!("cell count {count} does not fit the record"));
    }
    let mut cells = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let at = r.at;
        let code = r.u8("cell type")?;
        // Seek sentinels (Minimum, Maximum) are never stored, so never logged.
        let cell_type = CellType::from_code(code)
            .filter(|t| *t == CellType::Put || t.is_delete())
            .ok_or_else(|| format!("cell type {code} at body offset {at} is not a stored type"))?;
        let row_len = usize::from(r.u16("row length")?);
        let family_len = usize::from(r.u8("family length")?);
        let qualifier_len = r.u32("qualifier length")? as usize;
        let value_len = r.u32("value length")? as usize;
        let timestamp = r.u64("timestamp")? as i64;
        let ttl_ms = match r.u8("TTL flag")? {
            0 => None,
            1 => Some(r.u64("TTL")?),
            other => return Err(format!("TTL flag {other} at body offset {}", r.at - 1)),
        };
        let total = row_len + family_len + qualifier_len + value_len;
        let buf = r.take(total, "cell bytes")?;
        let cell = Cell::from_buffer(
            buf,
            row_len,
            family_len,
            qualifier_len,
            timestamp,
            cell_type,
        )
        .ok_or_else(|| format!("cell lengths out of range at body offset {at}"))?
        .with_seq_id(seq_id)
        .with_ttl_ms(ttl_ms);
        cells.push(cell);
    }
    if r.at != body.len() {
        return Err(format!(
            "{} bytes left over after the last cell",
            body.len() - r.at
        ));
    }
    Ok(WalEdit {
        region,
        table,
        seq_id,
        write_time_ms,
        origin,
        cells,
    })
}

/// Bounds-checked reads from a record body; every failure names the field and the offset.
struct BodyReader<'a> {
    body: &'a Bytes,
    at: usize,
}

impl BodyReader<'_> {
    fn take(&mut self, len: usize, what: &str) -> Result<Bytes, String> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.body.len())
            .ok_or_else(|| {
                format!(
                    "{what} ({len} bytes at body offset {}) runs past the record's {} bytes",
                    self.at,
                    self.body.len()
                )
            })?;
        let bytes = self.body.slice(self.at..end);
        self.at = end;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let bytes = self.take(N, what)?;
        let mut out = [0; N];
        out.copy_from_slice(&bytes);
        Ok(out)
    }

    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.array::<1>(what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.array(what)?))
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.array(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.array(what)?))
    }

    fn str16(&mut self, what: &str) -> Result<String, String> {
        let len = usize::from(self.u16(what)?);
        let at = self.at;
        let bytes = self.take(len, what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|_| format!("{what} at body offset {at} is not UTF-8"))
    }
}
