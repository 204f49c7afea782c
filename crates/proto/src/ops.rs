//! Basalt's operations and results in HBase's protobuf forms, as a client sends and reads
//! them: puts and deletes as MutationProto (cells in the message), a `Result` as a RowResult.
//! The remote client and the master (writing `hbase:meta` on another server) use them.

use basalt_common::replication::{CLUSTER_IDS_ATTRIBUTE, ClusterId, encode_cluster_ids};
use basalt_common::{
    Bytes, Cell, CellType, Delete, Durability, LATEST_TIMESTAMP, Put, RowResult, TimeRange,
};

use crate::pb::{self, MutationProto, mutation_proto};

pub fn pb_durability(d: Durability) -> i32 {
    use mutation_proto::Durability as D;
    (match d {
        Durability::UseDefault => D::UseDefault,
        Durability::SkipWal => D::SkipWal,
        Durability::AsyncWal => D::AsyncWal,
        Durability::SyncWal => D::SyncWal,
        Durability::FsyncWal => D::FsyncWal,
    }) as i32
}

pub fn pb_time_range(t: &TimeRange) -> Option<pb::TimeRange> {
    (*t != TimeRange::ALL).then(|| pb::TimeRange {
        from: u64::try_from(t.min).ok(),
        to: u64::try_from(t.max).ok(),
    })
}

pub fn cell_type(t: Option<i32>) -> CellType {
    match t.and_then(|t| pb::CellType::try_from(t).ok()) {
        Some(pb::CellType::Delete) => CellType::Delete,
        Some(pb::CellType::DeleteFamilyVersion) => CellType::DeleteFamilyVersion,
        Some(pb::CellType::DeleteColumn) => CellType::DeleteColumn,
        Some(pb::CellType::DeleteFamily) => CellType::DeleteFamily,
        _ => CellType::Put,
    }
}

/// A cell type as HBase's `CellType` enum.
pub fn pb_cell_type(t: CellType) -> pb::CellType {
    match t {
        CellType::Put => pb::CellType::Put,
        CellType::Delete => pb::CellType::Delete,
        CellType::DeleteFamilyVersion => pb::CellType::DeleteFamilyVersion,
        CellType::DeleteColumn => pb::CellType::DeleteColumn,
        CellType::DeleteFamily => pb::CellType::DeleteFamily,
        CellType::Minimum => pb::CellType::Minimum,
        CellType::Maximum => pb::CellType::Maximum,
    }
}

/// One row's cells as a `Result` with the cells in the message (no cell block).
pub fn result_pb(cells: &[Cell], partial: bool) -> pb::Result {
    pb::Result {
        cell: cells
            .iter()
            .map(|c| pb::Cell {
                row: Some(c.row().to_vec()),
                family: Some(c.family().to_vec()),
                qualifier: Some(c.qualifier().to_vec()),
                timestamp: Some(c.timestamp as u64),
                cell_type: Some(pb_cell_type(c.cell_type) as i32),
                value: Some(c.value().to_vec()),
                tags: None,
            })
            .collect(),
        partial: partial.then_some(true),
        ..pb::Result::default()
    }
}

pub fn row_result(r: pb::Result) -> RowResult {
    let cells: Vec<Cell> = r
        .cell
        .iter()
        .map(|c| {
            Cell::new(
                c.row.as_deref().unwrap_or_default(),
                c.family.as_deref().unwrap_or_default(),
                c.qualifier.as_deref().unwrap_or_default(),
                c.timestamp
                    .and_then(|t| i64::try_from(t).ok())
                    .unwrap_or_default(),
                cell_type(c.cell_type),
                c.value.as_deref().unwrap_or_default(),
            )
        })
        .collect();
    RowResult {
        row: cells
            .first()
            .map(|c| Bytes::copy_from_slice(c.row()))
            .unwrap_or_default(),
        cells,
        partial: r.partial.unwrap_or(false),
    }
}

/// A MutationProto of `kind` for `row`, with `cells` as (family, qualifier, value, timestamp,
/// delete type) in the message itself.
pub fn mutation(
    row: &Bytes,
    kind: mutation_proto::MutationType,
    timestamp: Option<i64>,
    durability: Durability,
    cells: impl Iterator<Item = (Bytes, Bytes, Vec<u8>, Option<i64>, Option<i32>)>,
) -> MutationProto {
    use mutation_proto::ColumnValue;
    use mutation_proto::column_value::QualifierValue;
    let mut column_value: Vec<ColumnValue> = Vec::new();
    for (family, qualifier, value, ts, delete_type) in cells {
        let qv = QualifierValue {
            qualifier: Some(qualifier.to_vec()),
            value: Some(value),
            timestamp: ts.and_then(|t| u64::try_from(t).ok()),
            delete_type,
            tags: None,
        };
        match column_value.last_mut() {
            Some(cv) if cv.family[..] == family[..] => cv.qualifier_value.push(qv),
            _ => column_value.push(ColumnValue {
                family: family.to_vec(),
                qualifier_value: vec![qv],
            }),
        }
    }
    MutationProto {
        row: Some(row.to_vec()),
        mutate_type: Some(kind as i32),
        column_value,
        timestamp: timestamp
            .filter(|&t| t != LATEST_TIMESTAMP)
            .and_then(|t| u64::try_from(t).ok()),
        durability: Some(pb_durability(durability)),
        ..MutationProto::default()
    }
}

/// The `_ttl` attribute HBase's client sends for a mutation's cell TTL.
pub fn ttl_pb(ttl_ms: Option<u64>) -> Vec<pb::NameBytesPair> {
    ttl_ms
        .and_then(|ms| i64::try_from(ms).ok())
        .map(|ms| pb::NameBytesPair {
            name: crate::TTL_ATTRIBUTE.into(),
            value: Some(ms.to_be_bytes().to_vec()),
        })
        .into_iter()
        .collect()
}

pub fn put_pb(put: &Put) -> MutationProto {
    let mut m = mutation(
        &put.row,
        mutation_proto::MutationType::Put,
        Some(put.timestamp),
        put.durability,
        put.cells.iter().map(|c| {
            (
                c.family.clone(),
                c.qualifier.clone(),
                c.value.to_vec(),
                c.timestamp,
                None,
            )
        }),
    );
    m.attribute = ttl_pb(put.ttl_ms);
    m.attribute.extend(cluster_ids_pb(&put.cluster_ids));
    m
}

/// The `_cs.id` attribute naming the clusters a replicated mutation came through.
pub fn cluster_ids_pb(ids: &[ClusterId]) -> Option<pb::NameBytesPair> {
    (!ids.is_empty()).then(|| pb::NameBytesPair {
        name: CLUSTER_IDS_ATTRIBUTE.into(),
        value: Some(encode_cluster_ids(ids)),
    })
}

/// The protobuf delete kind of a delete entry's cell type.
pub fn delete_type(kind: CellType) -> mutation_proto::DeleteType {
    use mutation_proto::DeleteType as D;
    match kind {
        CellType::Delete => D::DeleteOneVersion,
        CellType::DeleteFamily => D::DeleteFamily,
        CellType::DeleteFamilyVersion => D::DeleteFamilyVersion,
        _ => D::DeleteMultipleVersions,
    }
}

pub fn delete_pb(delete: &Delete) -> MutationProto {
    let mut m = mutation(
        &delete.row,
        mutation_proto::MutationType::Delete,
        Some(delete.timestamp),
        delete.durability,
        delete.entries.iter().map(|e| {
            (
                e.family.clone(),
                e.qualifier.clone(),
                Vec::new(),
                e.timestamp,
                Some(delete_type(e.kind) as i32),
            )
        }),
    );
    m.attribute.extend(cluster_ids_pb(&delete.cluster_ids));
    m
}
