//! WAL entries as replication ships them (HBase's `ReplicateWALEntryRequest`): a `WALEntry`
//! per edit, its key naming the region, table, sequence id, write time, the clusters the edit
//! came through and the replicated families, its cells in the call's KeyValueCodec cell block
//! (counted by `associated_cell_count`), so an HBase peer could take them too.

use basalt_common::replication::ClusterId;
use basalt_common::{Bytes, Cell, Error, Result, TableName};
use basalt_proto::cellblock::{self, KeyValue};
use basalt_proto::pb;
use basalt_wal::WalEdit;

fn uuid(id: ClusterId) -> pb::Uuid {
    pb::Uuid {
        least_sig_bits: id.least_significant(),
        most_sig_bits: id.most_significant(),
    }
}

/// One edit as a `WALEntry`, its cells appended to `block`. `cells` are the ones that ship
/// (the replicated families' for this peer); `cluster_ids` those the entry carries.
pub fn entry(
    edit: &WalEdit,
    cells: &[&Cell],
    cluster_ids: &[ClusterId],
    block: &mut Vec<u8>,
) -> pb::WalEntry {
    for c in cells {
        cellblock::write_cell(
            block,
            c.row(),
            c.family(),
            c.qualifier(),
            c.timestamp,
            c.cell_type.code(),
            c.value(),
        );
    }
    pb::WalEntry {
        key: pb::WalKey {
            encoded_region_name: edit.region.as_bytes().to_vec(),
            table_name: edit.table.as_bytes().to_vec(),
            log_sequence_number: edit.seq_id,
            write_time: u64::try_from(edit.write_time_ms).unwrap_or(0),
            cluster_id: None,
            scopes: edit
                .origin
                .replicated_families
                .iter()
                .map(|f| pb::FamilyScope {
                    family: f.to_vec(),
                    scope_type: pb::ScopeType::ReplicationScopeGlobal as i32,
                })
                .collect(),
            following_kv_count: None,
            cluster_ids: cluster_ids.iter().map(|id| uuid(*id)).collect(),
            nonce_group: None,
            nonce: None,
            orig_sequence_number: None,
        },
        key_value_bytes: Vec::new(),
        associated_cell_count: Some(cells.len() as i32),
    }
}

/// An entry as the sink takes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub table: TableName,
    pub region: String,
    pub seq_id: u64,
    pub write_time_ms: i64,
    pub cluster_ids: Vec<ClusterId>,
    pub cells: Vec<KeyValue>,
}

fn bad(what: String) -> Error {
    Error::InvalidArgument(format!("ReplicateWALEntry: {what}"))
}

/// The entries of a request, each with its cells: from the cell block (as many as it
/// counts) or from the entry itself (`key_value_bytes`, one KeyValue each).
pub fn received(req: &pb::ReplicateWalEntryRequest, block: &Bytes) -> Result<Vec<Received>> {
    let cells = if block.is_empty() {
        Vec::new()
    } else {
        cellblock::decode(block)
            .map_err(|e| bad(format!("cell block: {}", e.stack_trace.unwrap_or_default())))?
    };
    let mut at = 0usize;
    let mut out = Vec::with_capacity(req.entry.len());
    for e in &req.entry {
        let key = &e.key;
        let table_text = String::from_utf8_lossy(&key.table_name);
        let table = TableName::parse(&table_text)?;
        let mut own: Vec<KeyValue> = Vec::new();
        for kv in &e.key_value_bytes {
            let mut framed = (kv.len() as u32).to_be_bytes().to_vec();
            framed.extend_from_slice(kv);
            own.extend(cellblock::decode(&Bytes::from(framed)).map_err(|e| {
                bad(format!(
                    "key_value_bytes: {}",
                    e.stack_trace.unwrap_or_default()
                ))
            })?);
        }
        let count = usize::try_from(e.associated_cell_count.unwrap_or(0))
            .map_err(|_| bad("a negative associated_cell_count".into()))?;
        let end = at
            .checked_add(count)
            .filter(|&end| end <= cells.len())
            .ok_or_else(|| {
                bad(format!(
                    "entries count {} cells or more, the cell block has {}",
                    at + count,
                    cells.len()
                ))
            })?;
        own.extend_from_slice(&cells[at..end]);
        at = end;
        let mut cluster_ids: Vec<ClusterId> = key
            .cluster_id
            .iter()
            .chain(&key.cluster_ids)
            .map(|u| ClusterId::from_halves(u.most_sig_bits, u.least_sig_bits))
            .collect();
        cluster_ids.dedup();
        out.push(Received {
            table,
            region: String::from_utf8_lossy(&key.encoded_region_name).into_owned(),
            seq_id: key.log_sequence_number,
            write_time_ms: i64::try_from(key.write_time).unwrap_or(i64::MAX),
            cluster_ids,
            cells: own,
        });
    }
    if at != cells.len() {
        return Err(bad(format!(
            "{} cells of the block belong to no entry",
            cells.len() - at
        )));
    }
    Ok(out)
}
