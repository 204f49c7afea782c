//! Basalt's operations and results in HBase's protobuf forms, both ways.

use super::*;
pub(super) use basalt_proto::ops::{
    delete_pb, delete_type, mutation, pb_durability, pb_time_range, put_pb, row_result, ttl_pb,
};

pub(super) fn row_region<'a>(
    regions: &'a [Location],
    row: &[u8],
) -> std::result::Result<&'a Location, Failure> {
    locate(regions, row).ok_or_else(|| Failure::Retry("no cached region holds the row".into()))
}

/// The region a reversed scan reads first from `from` down: the one holding `from` if it is
/// included, else the one holding the rows just below it; the last region for an empty `from`.
pub(super) fn locate_below<'a>(
    regions: &'a [Location],
    from: &[u8],
    inclusive: bool,
) -> Option<&'a Location> {
    if from.is_empty() {
        return regions.iter().find(|r| r.end.is_empty());
    }
    regions.iter().find(|r| {
        let below_end = r.end.is_empty()
            || if inclusive {
                from < r.end.as_slice()
            } else {
                from <= r.end.as_slice()
            };
        let above_start = if inclusive {
            r.start.as_slice() <= from
        } else {
            r.start.as_slice() < from
        };
        above_start && below_end
    })
}

pub(super) fn pb_columns(families: &crate::FamilyMap) -> Vec<pb::Column> {
    families
        .iter()
        .map(|(family, qualifiers)| pb::Column {
            family: family.to_vec(),
            qualifier: qualifiers.iter().flatten().map(|q| q.to_vec()).collect(),
        })
        .collect()
}

pub(super) fn get_pb(get: &Get) -> pb::Get {
    pb::Get {
        row: get.row.to_vec(),
        column: pb_columns(&get.families),
        time_range: pb_time_range(&get.time_range),
        max_versions: Some(get.max_versions),
        cache_blocks: Some(get.cache_blocks),
        filter: get.filter.as_ref().map(filter_pb),
        cf_time_range: pb_family_time_ranges(&get.family_time_ranges),
        ..pb::Get::default()
    }
}

/// A Get's row as read: the row key even when no cell came back, as embedded reads say.
pub(super) fn got(get: &Get, result: pb::Result) -> RowResult {
    let mut r = row_result(result);
    if r.cells.is_empty() {
        r.row = get.row.clone();
    }
    r
}

/// Per-family time ranges as HBase's Get and Scan carry them.
pub(super) fn pb_family_time_ranges(
    ranges: &std::collections::BTreeMap<Bytes, TimeRange>,
) -> Vec<pb::ColumnFamilyTimeRange> {
    ranges
        .iter()
        .filter_map(|(family, range)| {
            Some(pb::ColumnFamilyTimeRange {
                column_family: family.to_vec(),
                time_range: pb_time_range(range)?,
            })
        })
        .collect()
}

/// A put as HBase's client sends it over a connection with a codec: the MutationProto counts
/// its cells, which are appended to `block` (each with its own timestamp, or
/// LATEST_TIMESTAMP for the put's).
pub(super) fn put_cells(put: &Put, block: &mut Vec<u8>) -> MutationProto {
    let cells = put.cells.iter().map(|c| {
        let (f, q, v) = (&c.family[..], &c.qualifier[..], &c.value[..]);
        (f, q, c.timestamp, cellblock::PUT, v)
    });
    let kind = mutation_proto::MutationType::Put;
    let mut m = counted(&put.row, kind, put.timestamp, put.durability, cells, block);
    m.attribute = ttl_pb(put.ttl_ms);
    m.attribute
        .extend(basalt_proto::ops::cluster_ids_pb(&put.cluster_ids));
    // A put's retry must not apply it again: stamped anew, it would land over newer writes.
    m.nonce = Some(new_nonce());
    m
}

/// A delete in cell block form, as [`put_cells`].
pub(super) fn delete_cells(delete: &Delete, block: &mut Vec<u8>) -> MutationProto {
    let cells = delete.entries.iter().map(|e| {
        let kind = cellblock::delete_kind(delete_type(e.kind));
        (&e.family[..], &e.qualifier[..], e.timestamp, kind, &[][..])
    });
    let kind = mutation_proto::MutationType::Delete;
    let mut m = counted(
        &delete.row,
        kind,
        delete.timestamp,
        delete.durability,
        cells,
        block,
    );
    m.attribute
        .extend(basalt_proto::ops::cluster_ids_pb(&delete.cluster_ids));
    m.nonce = Some(new_nonce());
    m
}

/// A MutationProto whose cells (family, qualifier, timestamp, KeyValue type, value) are
/// appended to `block`, the call's cell block, and counted in the message.
fn counted<'a>(
    row: &Bytes,
    kind: mutation_proto::MutationType,
    timestamp: i64,
    durability: Durability,
    cells: impl ExactSizeIterator<Item = (&'a [u8], &'a [u8], Option<i64>, u8, &'a [u8])>,
    block: &mut Vec<u8>,
) -> MutationProto {
    let count = cells.len();
    for (family, qualifier, ts, cell_kind, value) in cells {
        let ts = ts.unwrap_or(crate::LATEST_TIMESTAMP);
        cellblock::write_cell(block, row, family, qualifier, ts, cell_kind, value);
    }
    MutationProto {
        row: Some(row.to_vec()),
        mutate_type: Some(kind as i32),
        associated_cell_count: i32::try_from(count).ok(),
        timestamp: (timestamp != crate::LATEST_TIMESTAMP)
            .then(|| u64::try_from(timestamp).ok())
            .flatten(),
        durability: Some(pb_durability(durability)),
        ..MutationProto::default()
    }
}

pub(super) fn increment_pb(inc: &Increment) -> MutationProto {
    let mut m = mutation(
        &inc.row,
        mutation_proto::MutationType::Increment,
        None,
        inc.durability,
        inc.columns
            .iter()
            .map(|(f, q, n)| (f.clone(), q.clone(), n.to_be_bytes().to_vec(), None, None)),
    );
    m.time_range = pb_time_range(&inc.time_range);
    m.attribute = ttl_pb(inc.ttl_ms);
    m.nonce = Some(new_nonce());
    m
}

pub(super) fn append_pb(append: &Append) -> MutationProto {
    let mut m = mutation(
        &append.row,
        mutation_proto::MutationType::Append,
        None,
        append.durability,
        append
            .columns
            .iter()
            .map(|(f, q, v)| (f.clone(), q.clone(), v.to_vec(), None, None)),
    );
    m.time_range = pb_time_range(&append.time_range);
    m.attribute = ttl_pb(append.ttl_ms);
    m.nonce = Some(new_nonce());
    m
}

/// A random number, never 0 (HBase's "no nonce").
fn random_nonzero() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish().max(1)
}

/// This process's nonce group (HBase's client draws one at random, as here).
pub(super) fn nonce_group() -> u64 {
    static GROUP: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *GROUP.get_or_init(random_nonzero)
}

/// A nonce for one mutation (a put, delete, increment, append, row mutations or
/// check-and-mutate): sent again, unchanged, by every retry of it, so the server applies it
/// once. (HBase's client gives nonces to increments and appends only; a retried put, stamped
/// anew by the server, can land over newer writes: see docs/design/chaos.md.)
pub(super) fn new_nonce() -> u64 {
    random_nonzero()
}

/// A check as HBase's Condition: a column against a BinaryComparator (NullComparator for
/// "absent"), or a filter.
pub(super) fn condition_pb(row: &Bytes, check: &Check) -> pb::Condition {
    match check {
        Check::Column(c) => pb::Condition {
            row: row.to_vec(),
            family: Some(c.family.to_vec()),
            qualifier: Some(c.qualifier.to_vec()),
            compare_type: Some(compare_type(c.op) as i32),
            comparator: Some(comparator_pb(&if c.expected.is_empty() {
                Comparator::Null
            } else {
                Comparator::Binary(c.expected.clone())
            })),
            time_range: pb_time_range(&c.time_range),
            filter: None,
        },
        Check::Filter { filter, time_range } => pb::Condition {
            row: row.to_vec(),
            filter: Some(filter_pb(filter)),
            time_range: pb_time_range(time_range),
            ..pb::Condition::default()
        },
    }
}

/// A per-action or per-region exception of a Multi response (class and message in a
/// NameBytesPair) as the error a call would have returned.
pub(super) fn pair_error(e: pb::NameBytesPair) -> RpcError {
    RpcError::Remote {
        message: String::from_utf8_lossy(e.value.as_deref().unwrap_or_default()).into_owned(),
        class: e.name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_proto::cellblock::{KeyValue, decode};

    fn cells(block: Vec<u8>) -> Vec<KeyValue> {
        decode(&Bytes::from(block)).unwrap_or_default()
    }

    #[test]
    fn puts_and_deletes_count_their_cells_in_the_block() {
        let put = Put::new("r")
            .with_timestamp(9)
            .add_column("f", "a", "1")
            .add_column_at("f", "b", 5, "2")
            .with_durability(Durability::SkipWal);
        let mut block = Vec::new();
        let m = put_cells(&put, &mut block);
        assert_eq!(m.associated_cell_count, Some(2));
        assert!(
            m.column_value.is_empty(),
            "cells travel outside the message"
        );
        assert_eq!(m.row.as_deref(), Some(&b"r"[..]));
        assert_eq!(m.timestamp, Some(9));
        assert_eq!(
            m.durability,
            Some(mutation_proto::Durability::SkipWal as i32)
        );
        let got = cells(block);
        let shape: Vec<_> = got
            .iter()
            .map(|c| {
                (
                    &c.row[..],
                    &c.qualifier[..],
                    c.timestamp,
                    c.kind,
                    &c.value[..],
                )
            })
            .collect();
        // A cell without its own timestamp takes LATEST_TIMESTAMP; the server gives it the
        // mutation's, as it does a message's cell without one.
        assert_eq!(
            shape,
            [
                (&b"r"[..], &b"a"[..], i64::MAX, 4, &b"1"[..]),
                (&b"r"[..], &b"b"[..], 5, 4, &b"2"[..])
            ]
        );

        let delete = Delete::new("r")
            .add_column("f", "a")
            .add_columns_at("f", "b", 3)
            .add_family("g")
            .add_family_version("h", 4);
        let mut block = Vec::new();
        let m = delete_cells(&delete, &mut block);
        assert_eq!(m.associated_cell_count, Some(4));
        assert_eq!(m.timestamp, None);
        let got = cells(block);
        let kinds: Vec<_> = got
            .iter()
            .map(|c| (&c.family[..], c.kind, c.timestamp))
            .collect();
        assert_eq!(
            kinds,
            [
                (&b"f"[..], 8, i64::MAX),
                (&b"f"[..], 12, 3),
                (&b"g"[..], 14, i64::MAX),
                (&b"h"[..], 10, 4)
            ]
        );
    }
}
