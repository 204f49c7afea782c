//! Mutations and their attributes from protobuf: a mutation's cells (from the message or
//! the call's cell block), timestamps, durability, TTL and time ranges.

use super::*;
use basalt_common::replication::{CLUSTER_IDS_ATTRIBUTE, ClusterId, decode_cluster_ids};

/// A wire timestamp; Long.MAX_VALUE (LATEST_TIMESTAMP) means "none given": the server's time
/// for puts, the newest version for a one-version delete.
pub(super) fn given(ts: Option<u64>) -> Option<i64> {
    ts.and_then(|t| i64::try_from(t).ok())
        .filter(|t| *t != LATEST_TIMESTAMP)
}

/// A mutation's cell TTL in milliseconds, from its `_ttl` attribute; an attribute of another
/// width, or a TTL that is not positive, is refused by name.
pub(super) fn ttl_attribute(
    attributes: &[pb::NameBytesPair],
) -> Result<Option<u64>, ExceptionResponse> {
    let Some(a) = attributes.iter().find(|a| a.name == TTL_ATTRIBUTE) else {
        return Ok(None);
    };
    let value = a.value.as_deref().unwrap_or_default();
    let ms = <[u8; 8]>::try_from(value)
        .map(i64::from_be_bytes)
        .ok()
        .and_then(|ms| u64::try_from(ms).ok())
        .filter(|&ms| ms > 0);
    match ms {
        Some(ms) => Ok(Some(ms)),
        None => Err(exception(
            "org.apache.hadoop.hbase.DoNotRetryIOException",
            format!(
                "the mutation attribute {TTL_ATTRIBUTE} must be a positive 8-byte long, got {value:?}"
            ),
            true,
        )),
    }
}

/// The clusters a replicated mutation came through, from HBase's `_cs.id` attribute.
pub(super) fn cluster_ids_attribute(
    attributes: &[pb::NameBytesPair],
) -> Result<Vec<ClusterId>, ExceptionResponse> {
    match attributes.iter().find(|a| a.name == CLUSTER_IDS_ATTRIBUTE) {
        None => Ok(Vec::new()),
        Some(a) => {
            decode_cluster_ids(a.value.as_deref().unwrap_or_default()).map_err(|e| from_error(&e))
        }
    }
}

/// Per-family time ranges (HBase's `setColumnFamilyTimeRange`), as family -> [min, max).
pub(super) fn family_time_ranges(ranges: &[pb::ColumnFamilyTimeRange]) -> Vec<(Bytes, i64, i64)> {
    ranges
        .iter()
        .map(|r| {
            let (from, to) = ts_range(Some(&r.time_range));
            (Bytes::copy_from_slice(&r.column_family), from, to)
        })
        .collect()
}

pub(super) fn raw_attribute(attributes: &[pb::NameBytesPair]) -> bool {
    attributes.iter().any(|a| {
        a.name == RAW_ATTRIBUTE
            && a.value
                .as_deref()
                .is_some_and(|v| v.first().is_some_and(|b| *b != 0))
    })
}

pub(super) fn ts_range(tr: Option<&pb::TimeRange>) -> (i64, i64) {
    let Some(tr) = tr else {
        return (0, i64::MAX);
    };
    let from = i64::try_from(tr.from.unwrap_or(0)).unwrap_or(i64::MAX);
    let to = tr
        .to
        .map_or(i64::MAX, |t| i64::try_from(t).unwrap_or(i64::MAX));
    (from, to)
}

pub(super) fn durability(d: Option<i32>) -> Durability {
    use mutation_proto::Durability as D;
    match d.and_then(|d| D::try_from(d).ok()) {
        Some(D::SkipWal) => Durability::SkipWal,
        Some(D::AsyncWal) => Durability::AsyncWal,
        Some(D::SyncWal) => Durability::SyncWal,
        Some(D::FsyncWal) => Durability::FsyncWal,
        _ => Durability::UseDefault,
    }
}

/// One cell of a mutation, from the message or from the call's cell block.
pub(super) struct Part {
    pub(super) family: Bytes,
    pub(super) qualifier: Bytes,
    pub(super) timestamp: Option<u64>,
    pub(super) delete_type: Option<i32>,
    pub(super) value: Bytes,
}

/// The cells of a mutation: `cells` (its share of the call's cell block, sliced from the
/// frame) if it counts any, else those in the message (copied out of it).
pub(super) fn parts(
    m: &pb::MutationProto,
    cells: &[KeyValue],
) -> Result<Vec<Part>, ExceptionResponse> {
    if m.associated_cell_count.unwrap_or(0) > 0 {
        if cells.is_empty() {
            return Err(unsupported(
                "a mutation counting cells of a call without a cell block",
            ));
        }
        return cells
            .iter()
            .map(|c| {
                Ok(Part {
                    family: c.family.clone(),
                    qualifier: c.qualifier.clone(),
                    // LATEST_TIMESTAMP (and a negative one) means the server's time.
                    timestamp: u64::try_from(c.timestamp)
                        .ok()
                        .filter(|&t| t != LATEST_TIMESTAMP as u64),
                    delete_type: c.delete_type()?.map(|d| d as i32),
                    value: c.value.clone(),
                })
            })
            .collect();
    }
    let copy = |b: Option<&Vec<u8>>| Bytes::copy_from_slice(b.map_or(&[][..], Vec::as_slice));
    Ok(m.column_value
        .iter()
        .flat_map(|cv| {
            let family = Bytes::copy_from_slice(&cv.family);
            cv.qualifier_value.iter().map(move |qv| Part {
                family: family.clone(),
                qualifier: copy(qv.qualifier.as_ref()),
                timestamp: qv.timestamp,
                delete_type: qv.delete_type,
                value: copy(qv.value.as_ref()),
            })
        })
        .collect())
}

/// The row and the operation a `MutationProto` describes, its cells in the message or, when it
/// counts them, in `cells`.
pub(super) fn action(
    m: &pb::MutationProto,
    cells: &[KeyValue],
) -> Result<(Bytes, CheckAction), ExceptionResponse> {
    check_mutation(m)?;
    let parts = parts(m, cells)?;
    let row = match (&m.row, cells.first()) {
        (None, Some(c)) if m.associated_cell_count.unwrap_or(0) > 0 => c.row.clone(),
        (row, _) => Bytes::copy_from_slice(row.as_deref().unwrap_or_default()),
    };
    let ts = given(m.timestamp).unwrap_or(LATEST_TIMESTAMP);
    let ttl_ms = ttl_attribute(&m.attribute)?;
    let cluster_ids = cluster_ids_attribute(&m.attribute)?;
    use mutation_proto::{DeleteType, MutationType};
    let kind = m.mutate_type.and_then(|t| MutationType::try_from(t).ok());
    let action = match kind {
        Some(MutationType::Put) => {
            let mut put = Put::new(row.clone()).with_timestamp(ts);
            for p in parts {
                put = match p.timestamp {
                    Some(t) => put.add_column_at(
                        p.family,
                        p.qualifier,
                        i64::try_from(t).unwrap_or(LATEST_TIMESTAMP),
                        p.value,
                    ),
                    None => put.add_column(p.family, p.qualifier, p.value),
                };
            }
            put.ttl_ms = ttl_ms;
            put.cluster_ids = cluster_ids;
            CheckAction::Put(put.with_durability(durability(m.durability)))
        }
        Some(MutationType::Delete) => {
            let mut delete = Delete::new(row.clone()).with_timestamp(ts);
            for p in parts {
                let (f, q) = (p.family, p.qualifier);
                let t = given(p.timestamp);
                let kind = p.delete_type.and_then(|d| DeleteType::try_from(d).ok());
                delete = match (kind, t) {
                    (Some(DeleteType::DeleteOneVersion), Some(t)) => delete.add_column_at(f, q, t),
                    (Some(DeleteType::DeleteOneVersion), None) => delete.add_column(f, q),
                    (Some(DeleteType::DeleteFamily), Some(t)) => delete.add_family_at(f, t),
                    (Some(DeleteType::DeleteFamily), None) => delete.add_family(f),
                    (Some(DeleteType::DeleteFamilyVersion), t) => {
                        delete.add_family_version(f, t.unwrap_or(ts))
                    }
                    (_, Some(t)) => delete.add_columns_at(f, q, t),
                    (_, None) => delete.add_columns(f, q),
                };
            }
            delete.cluster_ids = cluster_ids;
            CheckAction::Delete(delete.with_durability(durability(m.durability)))
        }
        Some(MutationType::Increment) => {
            let mut inc = Increment::new(row.clone());
            for p in parts {
                let amount = i64::from_be_bytes(p.value[..].try_into().map_err(|_| {
                    exception(
                        "org.apache.hadoop.hbase.DoNotRetryIOException",
                        format!("Field is not a long, it's {} bytes wide", p.value.len()),
                        true,
                    )
                })?);
                inc = inc.add_column(p.family, p.qualifier, amount);
            }
            inc.ttl_ms = ttl_ms;
            let (from, to) = ts_range(m.time_range.as_ref());
            CheckAction::Increment(
                inc.with_time_range(from, to)
                    .with_durability(durability(m.durability)),
            )
        }
        Some(MutationType::Append) => {
            let mut app = Append::new(row.clone());
            for p in parts {
                app = app.add_column(p.family, p.qualifier, p.value);
            }
            app.ttl_ms = ttl_ms;
            let (from, to) = ts_range(m.time_range.as_ref());
            CheckAction::Append(
                app.with_time_range(from, to)
                    .with_durability(durability(m.durability)),
            )
        }
        None => return Err(unsupported("a mutation without a type")),
    };
    Ok((row, action))
}

/// The block's cells dealt to a call's mutations ([`cellblock::deal`]); nothing without a
/// block (a mutation that counts cells then fails by itself, naming the missing block).
pub(super) fn dealt<'a>(
    block: &[u8],
    mutations: impl IntoIterator<Item = Option<&'a pb::MutationProto>>,
    cells: &[KeyValue],
) -> Result<Vec<Range<usize>>, ExceptionResponse> {
    if block.is_empty() {
        return Ok(Vec::new());
    }
    cellblock::deal(mutations, cells)
}

/// The cells `dealt` gives the `k`th mutation of a call (none when the call has no block).
pub(super) fn share<'a>(cells: &'a [KeyValue], dealt: &[Range<usize>], k: usize) -> &'a [KeyValue] {
    dealt.get(k).map_or(&[], |r| &cells[r.clone()])
}

/// The fields of a Get Basalt refuses (docs/design/fields.md): any attribute but the
/// isolation level, and the per-family cell limits.
pub(super) fn check_get(g: &pb::Get) -> Result<(), ExceptionResponse> {
    check_attributes("Get.attribute", &g.attribute, &[ISOLATION_ATTRIBUTE])?;
    check_isolation("Get.attribute", &g.attribute)?;
    per_family_limits("Get", g.store_limit, g.store_offset)
}

/// `store_limit` and `store_offset` (HBase's `setMaxResultsPerColumnFamily` and
/// `setRowOffsetPerColumnFamily`), which Basalt's reads do not apply.
pub(super) fn per_family_limits(
    owner: &str,
    limit: Option<u32>,
    offset: Option<u32>,
) -> Result<(), ExceptionResponse> {
    let why = "Basalt does not limit or offset cells per column family";
    if limit.is_some() {
        return Err(refused(&format!("{owner}.store_limit"), why));
    }
    if offset.is_some_and(|o| o > 0) {
        return Err(refused(&format!("{owner}.store_offset"), why));
    }
    Ok(())
}

/// The fields of a Scan Basalt refuses: attributes other than `_raw_`, the isolation
/// level and the scan-metrics mark, the per-family limits, and a read point to resume at (Basalt never hands one out).
pub(super) fn check_scan(s: &pb::Scan) -> Result<(), ExceptionResponse> {
    check_attributes(
        "Scan.attribute",
        &s.attribute,
        &[RAW_ATTRIBUTE, ISOLATION_ATTRIBUTE, SCAN_METRICS_ATTRIBUTE],
    )?;
    check_isolation("Scan.attribute", &s.attribute)?;
    per_family_limits("Scan", s.store_limit, s.store_offset)?;
    if s.mvcc_read_point.is_some_and(|p| p > 0) {
        return Err(refused(
            "Scan.mvcc_read_point",
            "Basalt's scan answers carry no read point to resume at",
        ));
    }
    Ok(())
}

/// The fields of a mutation Basalt refuses: attributes other than `_ttl`, `_cs.id` and `_rr_`, a
/// time range on a Put or Delete (HBase reads it for Increment and Append only), and cell
/// tags.
pub(super) fn check_mutation(m: &pb::MutationProto) -> Result<(), ExceptionResponse> {
    check_attributes(
        "MutationProto.attribute",
        &m.attribute,
        &[
            TTL_ATTRIBUTE,
            CLUSTER_IDS_ATTRIBUTE,
            RETURN_RESULTS_ATTRIBUTE,
        ],
    )?;
    returns_results(&m.attribute)?;
    use mutation_proto::MutationType;
    let kind = m.mutate_type.and_then(|t| MutationType::try_from(t).ok());
    if m.time_range.is_some() && matches!(kind, Some(MutationType::Put | MutationType::Delete)) {
        return Err(refused(
            "MutationProto.time_range",
            "a time range applies to an Increment or Append",
        ));
    }
    let tagged = m
        .column_value
        .iter()
        .flat_map(|cv| &cv.qualifier_value)
        .any(|qv| qv.tags.as_ref().is_some_and(|t| !t.is_empty()));
    if tagged {
        return Err(refused(
            "MutationProto.ColumnValue.QualifierValue.tags",
            "Basalt stores no cell tags",
        ));
    }
    Ok(())
}

/// The fields of a BulkLoadHFile Basalt refuses: HDFS tokens, a token from PrepareBulkLoad
/// (which Basalt does not serve), a sequence id for the loaded files (docs/design/bulk.md),
/// and replication's origin clusters (Basalt's sinks load replicated files themselves).
pub(super) fn check_bulk_load(r: &pb::BulkLoadHFileRequest) -> Result<(), ExceptionResponse> {
    if r.fs_token.is_some() {
        return Err(refused(
            "BulkLoadHFileRequest.fs_token",
            "Basalt reads files from its own file system, with no HDFS tokens",
        ));
    }
    if r.bulk_token.as_deref().is_some_and(|t| !t.is_empty()) {
        return Err(refused(
            "BulkLoadHFileRequest.bulk_token",
            "Basalt does not serve PrepareBulkLoad, which hands out the token",
        ));
    }
    if r.assign_seq_num() {
        return Err(refused(
            "BulkLoadHFileRequest.assign_seq_num",
            "loaded files keep sequence id 0 in Basalt (docs/design/bulk.md)",
        ));
    }
    if !r.cluster_ids.is_empty() {
        return Err(refused(
            "BulkLoadHFileRequest.cluster_ids",
            "Basalt's replication sinks load replicated files themselves",
        ));
    }
    Ok(())
}
