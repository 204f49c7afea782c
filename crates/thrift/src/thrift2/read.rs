//! Thrift2's request structs (HBase's thrift2 `hbase.thrift`) read into the client API's
//! operations, with HBase's `ThriftUtilities` semantics. Every field is honoured or refused
//! with an error that names it (`docs/design/thrift2.md` lists which and why).

use basalt_client::{
    Append, Bytes, ColumnFamilyDescriptor, CompareOperator, Delete, Durability, FilterSpec, Get,
    Increment, NamespaceDescriptor, Put, RowMutations, Scan, TableDescriptor, TableName,
    parse_filter,
};

use super::Failure2;
use crate::protocol::{Fields, Value};

/// The attribute a mutation's cell TTL travels in (milliseconds, an 8-byte big-endian long),
/// as HBase's `Mutation.setTTL` sends it.
const TTL_ATTRIBUTE: &[u8] = b"_ttl";
/// The attribute asking for a raw scan (one byte, non-zero), as HBase's `Scan.setRaw` sends it.
const RAW_ATTRIBUTE: &[u8] = b"_raw_";

fn illegal(message: impl Into<String>) -> Failure2 {
    Failure2::IllegalArgument(message.into())
}

/// A field Basalt does not serve, refused by its struct and field name.
fn unsupported(field: &str, why: &str) -> Failure2 {
    Failure2::Io {
        message: format!("DoNotRetryIOException: {field} is not supported: {why}"),
        can_retry: false,
    }
}

/// A required binary field.
pub fn required<'a>(s: &'a Fields, id: i16, field: &str) -> Result<&'a [u8], Failure2> {
    s.binary(id)
        .ok_or_else(|| illegal(format!("{field} is required")))
}

/// A required struct field.
pub fn required_struct<'a>(s: &'a Fields, id: i16, field: &str) -> Result<&'a Fields, Failure2> {
    s.strukt(id)
        .ok_or_else(|| illegal(format!("{field} is required")))
}

/// A UTF-8 string field.
pub fn utf8<'a>(bytes: &'a [u8], field: &str) -> Result<&'a str, Failure2> {
    std::str::from_utf8(bytes).map_err(|_| illegal(format!("{field} must be UTF-8")))
}

/// The struct elements of a list field (absent: none).
pub fn structs(s: &Fields, id: i16) -> impl Iterator<Item = &Fields> {
    s.list(id)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| match v {
            Value::Struct(f) => Some(f),
            _ => None,
        })
}

/// The binary elements of a list field (absent: none).
pub fn binaries(s: &Fields, id: i16) -> Vec<Bytes> {
    s.list(id)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| match v {
            Value::Binary(b) => Some(Bytes::copy_from_slice(b)),
            _ => None,
        })
        .collect()
}

/// A `map<binary, binary>` or `map<string, string>` field's entries.
fn map_entries(s: &Fields, id: i16) -> Vec<(&[u8], &[u8])> {
    match s.get(id) {
        Some(Value::Map(entries)) => entries
            .iter()
            .filter_map(|(k, v)| match (k, v) {
                (Value::Binary(k), Value::Binary(v)) => Some((&k[..], &v[..])),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The string entries of a map field, each checked as UTF-8.
fn string_map(s: &Fields, id: i16, field: &str) -> Result<Vec<(String, String)>, Failure2> {
    map_entries(s, id)
        .into_iter()
        .map(|(k, v)| Ok((utf8(k, field)?.to_owned(), utf8(v, field)?.to_owned())))
        .collect()
}

/// What a request's `attributes` map asks for: a cell TTL (`_ttl`) and a raw scan (`_raw_`)
/// are honoured where they mean something; any other attribute is refused by name, since
/// Basalt runs no coprocessor that could read it.
#[derive(Debug, Default)]
struct Attributes {
    ttl_ms: Option<u64>,
    raw: bool,
}

fn attributes(s: &Fields, id: i16, owner: &str, allowed: &[&[u8]]) -> Result<Attributes, Failure2> {
    let mut out = Attributes::default();
    for (name, value) in map_entries(s, id) {
        if !allowed.contains(&name) {
            return Err(unsupported(
                &format!(
                    "{owner}.attributes[{}]",
                    String::from_utf8_lossy(name).escape_debug()
                ),
                "Basalt honours only _ttl on mutations and _raw_ on scans (it runs no \
                 coprocessor that could read other attributes)",
            ));
        }
        if name == TTL_ATTRIBUTE {
            let ttl = <[u8; 8]>::try_from(value)
                .map(i64::from_be_bytes)
                .ok()
                .filter(|t| *t > 0)
                .ok_or_else(|| {
                    illegal(format!(
                        "{owner}.attributes[_ttl] must be a positive 8-byte long, got {value:?}"
                    ))
                })?;
            out.ttl_ms = Some(ttl as u64);
        } else if name == RAW_ATTRIBUTE {
            out.raw = value.iter().any(|b| *b != 0);
        }
    }
    Ok(out)
}

/// TDurability (USE_DEFAULT 0 .. FSYNC_WAL 4).
fn durability(s: &Fields, id: i16, owner: &str) -> Result<Durability, Failure2> {
    Ok(match s.i32(id) {
        None | Some(0) => Durability::UseDefault,
        Some(1) => Durability::SkipWal,
        Some(2) => Durability::AsyncWal,
        Some(3) => Durability::SyncWal,
        Some(4) => Durability::FsyncWal,
        Some(other) => {
            return Err(illegal(format!(
                "{owner}.durability {other} is not a TDurability (0 to 4)"
            )));
        }
    })
}

/// A TTimeRange {minStamp 1, maxStamp 2}: both required.
fn time_range(t: &Fields, owner: &str) -> Result<(i64, i64), Failure2> {
    match (t.i64(1), t.i64(2)) {
        (Some(min), Some(max)) if min >= 0 && min <= max => Ok((min, max)),
        (Some(min), Some(max)) => Err(illegal(format!(
            "{owner}.timeRange [{min}, {max}) is not a valid time range"
        ))),
        _ => Err(illegal(format!(
            "{owner}.timeRange needs minStamp and maxStamp"
        ))),
    }
}

/// A filter from `filterString` (HBase's filter language) or `filterBytes` (a serialized
/// protobuf Filter); both given is an error.
fn filter(
    s: &Fields,
    string: i16,
    bytes: i16,
    owner: &str,
) -> Result<Option<FilterSpec>, Failure2> {
    let text = s.binary(string).filter(|f| !f.is_empty());
    let pb = s.binary(bytes).filter(|f| !f.is_empty());
    match (text, pb) {
        (Some(_), Some(_)) => Err(illegal(format!(
            "{owner} has both filterString and filterBytes; give one"
        ))),
        (Some(text), None) => {
            let text = utf8(text, &format!("{owner}.filterString"))?;
            parse_filter(text)
                .map(Some)
                .map_err(|e| illegal(format!("{owner}.filterString: {e}")))
        }
        (None, Some(pb)) => basalt_proto::filters::filter_from_bytes(pb)
            .map(Some)
            .map_err(|e| illegal(format!("{owner}.filterBytes: {e}"))),
        (None, None) => Ok(None),
    }
}

/// TConsistency and targetReplicaId: Basalt keeps one replica of each region, so STRONG and
/// TIMELINE both read the primary (a TIMELINE read of the primary is never stale) and only
/// replica 0 exists.
fn check_replica(s: &Fields, consistency: i16, replica: i16, owner: &str) -> Result<(), Failure2> {
    match s.i32(consistency) {
        None | Some(1) | Some(2) => {}
        Some(other) => {
            return Err(illegal(format!(
                "{owner}.consistency {other} is not a TConsistency (1 STRONG, 2 TIMELINE)"
            )));
        }
    }
    match s.i32(replica) {
        None | Some(0) | Some(-1) => Ok(()),
        Some(other) => Err(unsupported(
            &format!("{owner}.targetReplicaId {other}"),
            "Basalt keeps one replica of each region (replica 0)",
        )),
    }
}

fn refuse_if_set(s: &Fields, id: i16, field: &str, why: &str) -> Result<(), Failure2> {
    if s.get(id).is_some() {
        return Err(unsupported(field, why));
    }
    Ok(())
}

const NO_VISIBILITY: &str = "Basalt has no visibility labels";

/// A TColumn {family 1, qualifier 2, timestamp 3}.
fn column(c: &Fields, owner: &str) -> Result<(Bytes, Option<Bytes>, Option<i64>), Failure2> {
    let family = Bytes::copy_from_slice(required(c, 1, &format!("{owner}.columns[].family"))?);
    Ok((family, c.binary(2).map(Bytes::copy_from_slice), c.i64(3)))
}

/// A TColumn of a read: HBase ignores its timestamp there; Basalt refuses it, since a reader
/// who sets it expects that version.
fn read_column(c: &Fields, owner: &str) -> Result<(Bytes, Option<Bytes>), Failure2> {
    let (family, qualifier, ts) = column(c, owner)?;
    if ts.is_some() {
        return Err(unsupported(
            &format!("{owner}.columns[].timestamp"),
            &format!("a read selects versions with {owner}.timestamp or {owner}.timeRange"),
        ));
    }
    Ok((family, qualifier))
}

/// A TGet: row 1, columns 2, timestamp 3, timeRange 4, maxVersions 5, filterString 6,
/// attributes 7, authorizations 8, consistency 9, targetReplicaId 10, cacheBlocks 11,
/// storeLimit 12, storeOffset 13, existence_only 14, filterBytes 15. Returns the Get and
/// whether only existence was asked.
pub fn get(g: &Fields) -> Result<(Get, bool), Failure2> {
    let mut get = Get::new(Bytes::copy_from_slice(required(g, 1, "TGet.row")?));
    for c in structs(g, 2) {
        get = match read_column(c, "TGet")? {
            (family, None) => get.add_family(family),
            (family, Some(q)) => get.add_column(family, q),
        };
    }
    // A timestamp wins over a time range, as in HBase.
    if let Some(ts) = g.i64(3) {
        get = get.with_timestamp(ts);
    } else if let Some(t) = g.strukt(4) {
        let (min, max) = time_range(t, "TGet")?;
        get = get.with_time_range(min, max);
    }
    if let Some(n) = g.i32(5) {
        let n = u32::try_from(n)
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| illegal(format!("TGet.maxVersions must be positive, got {n}")))?;
        get = get.read_versions(n);
    }
    if let Some(f) = filter(g, 6, 15, "TGet")? {
        get = get.with_filter(f);
    }
    attributes(g, 7, "TGet", &[])?;
    refuse_if_set(g, 8, "TGet.authorizations", NO_VISIBILITY)?;
    check_replica(g, 9, 10, "TGet")?;
    if let Some(cache) = g.bool(11) {
        get = get.with_cache_blocks(cache);
    }
    refuse_if_set(
        g,
        12,
        "TGet.storeLimit",
        "Basalt does not limit cells per column family",
    )?;
    refuse_if_set(
        g,
        13,
        "TGet.storeOffset",
        "Basalt does not offset cells per column family",
    )?;
    Ok((get, g.bool(14).unwrap_or(false)))
}

/// A TColumnValue's timestamp must not be negative; its tags and type are refused unless
/// they say what a put means anyway (no tags, type Put).
fn check_column_value(cv: &Fields, owner: &str) -> Result<(), Failure2> {
    if cv.binary(5).is_some_and(|t| !t.is_empty()) {
        return Err(unsupported(
            &format!("{owner}.tags"),
            "Basalt does not store cell tags",
        ));
    }
    match cv.get(6) {
        None => Ok(()),
        Some(Value::Byte(4)) => Ok(()),
        Some(other) => Err(unsupported(
            &format!("{owner}.type {other:?}"),
            "a put writes cells of type Put (4) only",
        )),
    }
}

/// A TPut: row 1, columnValues 2, timestamp 3, attributes 5, durability 6, cellVisibility 7.
pub fn put(p: &Fields) -> Result<Put, Failure2> {
    let row = Bytes::copy_from_slice(required(p, 1, "TPut.row")?);
    let mut put = Put::new(row);
    if let Some(ts) = p.i64(3) {
        put = put.with_timestamp(ts);
    }
    let values: Vec<&Fields> = structs(p, 2).collect();
    if values.is_empty() {
        return Err(illegal("TPut.columnValues must name at least one column"));
    }
    for cv in values {
        check_column_value(cv, "TPut.columnValues[]")?;
        let family = Bytes::copy_from_slice(required(cv, 1, "TPut.columnValues[].family")?);
        let qualifier = Bytes::copy_from_slice(required(cv, 2, "TPut.columnValues[].qualifier")?);
        let value = Bytes::copy_from_slice(required(cv, 3, "TPut.columnValues[].value")?);
        put = match cv.i64(4) {
            Some(ts) => put.add_column_at(family, qualifier, ts, value),
            None => put.add_column(family, qualifier, value),
        };
    }
    let attrs = attributes(p, 5, "TPut", &[TTL_ATTRIBUTE])?;
    if let Some(ttl) = attrs.ttl_ms {
        put = put.with_ttl_ms(ttl);
    }
    refuse_if_set(p, 7, "TPut.cellVisibility", NO_VISIBILITY)?;
    Ok(put.with_durability(durability(p, 6, "TPut")?))
}

/// A TDelete: row 1, columns 2, timestamp 3, deleteType 4 (default DELETE_COLUMNS),
/// attributes 6, durability 7. A column without a qualifier deletes its family; with one,
/// the delete type decides: DELETE_COLUMN the newest (or the timestamp's) version,
/// DELETE_COLUMNS every version up to the timestamp, DELETE_FAMILY the column's family,
/// DELETE_FAMILY_VERSION the family's cells at exactly the timestamp.
pub fn delete(d: &Fields) -> Result<Delete, Failure2> {
    let row = Bytes::copy_from_slice(required(d, 1, "TDelete.row")?);
    let mut delete = Delete::new(row);
    let kind = d.i32(4).unwrap_or(1);
    if !(0..=3).contains(&kind) {
        return Err(illegal(format!(
            "TDelete.deleteType {kind} is not a TDeleteType (0 to 3)"
        )));
    }
    let columns: Vec<&Fields> = structs(d, 2).collect();
    if columns.is_empty() {
        // The whole row, every version up to the timestamp.
        if let Some(ts) = d.i64(3) {
            delete = delete.with_timestamp(ts);
        }
    }
    for c in columns {
        let (family, qualifier, ts) = column(c, "TDelete")?;
        delete = match (qualifier, kind, ts) {
            (None, _, Some(ts)) => delete.add_family_at(family, ts),
            (None, _, None) => delete.add_family(family),
            (Some(q), 0, Some(ts)) => delete.add_column_at(family, q, ts),
            (Some(q), 0, None) => delete.add_column(family, q),
            (Some(q), 1, Some(ts)) => delete.add_columns_at(family, q, ts),
            (Some(q), 1, None) => delete.add_columns(family, q),
            (Some(_), 2, Some(ts)) => delete.add_family_at(family, ts),
            (Some(_), 2, None) => delete.add_family(family),
            (Some(_), _, Some(ts)) => delete.add_family_version(family, ts),
            (Some(_), _, None) => {
                return Err(illegal(
                    "Timestamp is required for TDelete with DeleteFamilyVersion type",
                ));
            }
        };
    }
    attributes(d, 6, "TDelete", &[])?;
    Ok(delete.with_durability(durability(d, 7, "TDelete")?))
}

/// A TIncrement: row 1, columns 2 (TColumnIncrement: family 1, qualifier 2, amount 3 =
/// 1), attributes 4, durability 5, cellVisibility 6, returnResults 7. Returns whether the
/// caller wants the new values back.
pub fn increment(i: &Fields) -> Result<(Increment, bool), Failure2> {
    let mut inc = Increment::new(Bytes::copy_from_slice(required(i, 1, "TIncrement.row")?));
    for c in structs(i, 2) {
        let family = Bytes::copy_from_slice(required(c, 1, "TIncrement.columns[].family")?);
        let qualifier = Bytes::copy_from_slice(required(c, 2, "TIncrement.columns[].qualifier")?);
        inc = inc.add_column(family, qualifier, c.i64(3).unwrap_or(1));
    }
    if inc.columns.is_empty() {
        return Err(illegal("TIncrement.columns must name at least one column"));
    }
    let attrs = attributes(i, 4, "TIncrement", &[TTL_ATTRIBUTE])?;
    if let Some(ttl) = attrs.ttl_ms {
        inc = inc.with_ttl_ms(ttl);
    }
    refuse_if_set(i, 6, "TIncrement.cellVisibility", NO_VISIBILITY)?;
    let inc = inc.with_durability(durability(i, 5, "TIncrement")?);
    Ok((inc, i.bool(7).unwrap_or(true)))
}

/// A TAppend: row 1, columns 2 (TColumnValue), attributes 3, durability 4, cellVisibility 5,
/// returnResults 6.
pub fn append(a: &Fields) -> Result<(Append, bool), Failure2> {
    let mut append = Append::new(Bytes::copy_from_slice(required(a, 1, "TAppend.row")?));
    for cv in structs(a, 2) {
        check_column_value(cv, "TAppend.columns[]")?;
        if cv.i64(4).is_some() {
            return Err(unsupported(
                "TAppend.columns[].timestamp",
                "an append writes at the server's time, as HBase's does",
            ));
        }
        let family = Bytes::copy_from_slice(required(cv, 1, "TAppend.columns[].family")?);
        let qualifier = Bytes::copy_from_slice(required(cv, 2, "TAppend.columns[].qualifier")?);
        let value = Bytes::copy_from_slice(required(cv, 3, "TAppend.columns[].value")?);
        append = append.add_column(family, qualifier, value);
    }
    if append.columns.is_empty() {
        return Err(illegal("TAppend.columns must name at least one column"));
    }
    let attrs = attributes(a, 3, "TAppend", &[TTL_ATTRIBUTE])?;
    if let Some(ttl) = attrs.ttl_ms {
        append = append.with_ttl_ms(ttl);
    }
    refuse_if_set(a, 5, "TAppend.cellVisibility", NO_VISIBILITY)?;
    let append = append.with_durability(durability(a, 4, "TAppend")?);
    Ok((append, a.bool(6).unwrap_or(true)))
}

/// A TScan: startRow 1, stopRow 2, columns 3, caching 4, maxVersions 5 (= 1), timeRange 6,
/// filterString 7, batchSize 8, attributes 9, authorizations 10, reversed 11, cacheBlocks 12,
/// colFamTimeRangeMap 13, readType 14, limit 15, consistency 16, targetReplicaId 17,
/// filterBytes 18.
pub fn scan(s: &Fields) -> Result<Scan, Failure2> {
    let mut scan = Scan::new();
    if let Some(start) = s.binary(1) {
        scan = scan.with_start_row(Bytes::copy_from_slice(start));
    }
    if let Some(stop) = s.binary(2) {
        scan = scan.with_stop_row(Bytes::copy_from_slice(stop));
    }
    for c in structs(s, 3) {
        scan = match read_column(c, "TScan")? {
            (family, None) => scan.add_family(family),
            (family, Some(q)) => scan.add_column(family, q),
        };
    }
    let positive = |id: i16, field: &str| -> Result<Option<usize>, Failure2> {
        match s.i32(id) {
            None => Ok(None),
            Some(n) if n > 0 => Ok(Some(n as usize)),
            // HBase treats zero or less as "not set" for caching, batch and limit.
            Some(_) if field != "maxVersions" => Ok(None),
            Some(n) => Err(illegal(format!("TScan.{field} must be positive, got {n}"))),
        }
    };
    if let Some(caching) = positive(4, "caching")? {
        scan = scan.with_caching(caching);
    }
    if let Some(n) = positive(5, "maxVersions")? {
        scan = scan.read_versions(u32::try_from(n).unwrap_or(u32::MAX));
    }
    if let Some(t) = s.strukt(6) {
        let (min, max) = time_range(t, "TScan")?;
        scan = scan.with_time_range(min, max);
    }
    if let Some(f) = filter(s, 7, 18, "TScan")? {
        scan = scan.with_filter(f);
    }
    if let Some(batch) = positive(8, "batchSize")? {
        scan = scan.with_batch(batch);
    }
    let attrs = attributes(s, 9, "TScan", &[RAW_ATTRIBUTE])?;
    scan = scan.raw(attrs.raw);
    refuse_if_set(s, 10, "TScan.authorizations", NO_VISIBILITY)?;
    scan = scan.reversed(s.bool(11).unwrap_or(false));
    if let Some(cache) = s.bool(12) {
        scan = scan.with_cache_blocks(cache);
    }
    if let Some(Value::Map(ranges)) = s.get(13) {
        for (family, range) in ranges {
            let (Value::Binary(family), Value::Struct(range)) = (family, range) else {
                continue;
            };
            let (min, max) = time_range(range, "TScan.colFamTimeRangeMap[]")?;
            scan = scan.with_family_time_range(Bytes::copy_from_slice(family), min, max);
        }
    }
    // TReadType (DEFAULT 1, STREAM 2, PREAD 3) is how HBase reads its HDFS files; Basalt
    // reads one way, so any of the three is served alike.
    if let Some(read_type) = s.i32(14).filter(|t| !(1..=3).contains(t)) {
        return Err(illegal(format!(
            "TScan.readType {read_type} is not a TReadType (1 to 3)"
        )));
    }
    if let Some(limit) = positive(15, "limit")? {
        scan = scan.with_limit(limit);
    }
    check_replica(s, 16, 17, "TScan")?;
    scan.validate()?;
    Ok(scan)
}

/// A TRowMutations {row 1, mutations 2 (TMutation: put 1 | deleteSingle 2)}.
pub fn row_mutations(m: &Fields) -> Result<RowMutations, Failure2> {
    let row = Bytes::copy_from_slice(required(m, 1, "TRowMutations.row")?);
    let mut out = RowMutations::new(row);
    for mutation in structs(m, 2) {
        out = match (mutation.strukt(1), mutation.strukt(2)) {
            (Some(p), None) => out.add_put(put(p)?),
            (None, Some(d)) => out.add_delete(delete(d)?),
            _ => {
                return Err(illegal(
                    "each TMutation must be exactly one of put and deleteSingle",
                ));
            }
        };
    }
    out.validate()?;
    Ok(out)
}

/// TCompareOperator (LESS 0 .. NO_OP 6).
pub fn compare_operator(code: Option<i32>) -> Result<CompareOperator, Failure2> {
    Ok(match code {
        Some(0) => CompareOperator::Less,
        Some(1) => CompareOperator::LessOrEqual,
        Some(2) => CompareOperator::Equal,
        Some(3) => CompareOperator::NotEqual,
        Some(4) => CompareOperator::GreaterOrEqual,
        Some(5) => CompareOperator::Greater,
        Some(6) => CompareOperator::NoOp,
        other => {
            return Err(illegal(format!(
                "compareOperator {other:?} is not a TCompareOperator (0 to 6)"
            )));
        }
    })
}

/// A TTableName {ns 1 (absent: default), qualifier 2}.
pub fn table_name(t: &Fields) -> Result<TableName, Failure2> {
    let qualifier = utf8(
        required(t, 2, "TTableName.qualifier")?,
        "TTableName.qualifier",
    )?;
    Ok(match t.binary(1) {
        Some(ns) if !ns.is_empty() => TableName::new(utf8(ns, "TTableName.ns")?, qualifier)?,
        _ => TableName::parse(qualifier)?,
    })
}

/// A table named by a binary argument (`ns:table` or `table`).
pub fn table_arg(a: &Fields, id: i16) -> Result<TableName, Failure2> {
    Ok(TableName::parse(utf8(required(a, id, "table")?, "table")?)?)
}

/// A thrift2 enum's numbers and HBase's spellings of them.
type EnumTable = &'static [(i32, &'static str)];

/// The spellings of thrift2's enums, by their numbers.
pub const BLOOM: &[(i32, &str)] = &[
    (0, "NONE"),
    (1, "ROW"),
    (2, "ROWCOL"),
    (3, "ROWPREFIX_FIXED_LENGTH"),
];
pub const COMPRESSION: &[(i32, &str)] = &[
    (0, "LZO"),
    (1, "GZ"),
    (2, "NONE"),
    (3, "SNAPPY"),
    (4, "LZ4"),
    (5, "BZIP2"),
    (6, "ZSTD"),
];
pub const ENCODING: &[(i32, &str)] = &[
    (0, "NONE"),
    (2, "PREFIX"),
    (3, "DIFF"),
    (4, "FAST_DIFF"),
    (7, "ROW_INDEX_V1"),
];
pub const KEEP_DELETED: &[(i32, &str)] = &[(0, "FALSE"), (1, "TRUE"), (2, "TTL")];

/// The thrift2 number of an HBase spelling (`NONE` -> 2 for compression).
/// None for a value thrift2's enum lacks (LZMA, BROTLI).
pub fn enum_code(table: &[(i32, &str)], name: &str) -> Option<i32> {
    table.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
}

fn enum_name(
    table: &[(i32, &'static str)],
    code: i32,
    field: &str,
    kind: &str,
) -> Result<&'static str, Failure2> {
    table
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
        .ok_or_else(|| illegal(format!("{field} {code} is not a {kind}")))
}

/// A TColumnFamilyDescriptor: name 1, attributes 2 (by HBase's names), configuration 3,
/// blockSize 4, bloomnFilterType 5, compressionType 6, dfsReplication 7, dataBlockEncoding 8,
/// keepDeletedCells 9, maxVersions 10, minVersions 11, scope 12, timeToLive 13,
/// blockCacheEnabled 14, cacheBloomsOnWrite 15, cacheDataOnWrite 16, cacheIndexesOnWrite 17,
/// compressTags 18, evictBlocksOnClose 19, inMemory 20. Unset fields keep Basalt's defaults.
pub fn family(f: &Fields) -> Result<ColumnFamilyDescriptor, Failure2> {
    let name = required(f, 1, "TColumnFamilyDescriptor.name")?;
    let mut family = ColumnFamilyDescriptor::new(Bytes::copy_from_slice(name));
    for (key, value) in map_entries(f, 2) {
        let key = utf8(key, "TColumnFamilyDescriptor.attributes")?;
        let value = utf8(value, "TColumnFamilyDescriptor.attributes")?;
        family.set_attribute(key, value)?;
    }
    for (key, value) in string_map(f, 3, "TColumnFamilyDescriptor.configuration")? {
        family.configuration.insert(key, value);
    }
    let typed: [(i16, &str, EnumTable, &str); 4] = [
        (5, "BLOOMFILTER", BLOOM, "TBloomFilterType"),
        (6, "COMPRESSION", COMPRESSION, "TCompressionAlgorithm"),
        (8, "DATA_BLOCK_ENCODING", ENCODING, "TDataBlockEncoding"),
        (9, "KEEP_DELETED_CELLS", KEEP_DELETED, "TKeepDeletedCells"),
    ];
    for (id, attribute, table, kind) in typed {
        if let Some(code) = f.i32(id) {
            let field = format!("TColumnFamilyDescriptor field {id}");
            family.set_attribute(attribute, enum_name(table, code, &field, kind)?)?;
        }
    }
    let numbers: [(i16, &str); 5] = [
        (4, "BLOCKSIZE"),
        (10, "VERSIONS"),
        (11, "MIN_VERSIONS"),
        (12, "REPLICATION_SCOPE"),
        (13, "TTL"),
    ];
    for (id, attribute) in numbers {
        if let Some(n) = f.i32(id) {
            if n < 0 && attribute != "TTL" {
                return Err(illegal(format!(
                    "TColumnFamilyDescriptor {attribute} must not be negative, got {n}"
                )));
            }
            // HBase's "forever" is Integer.MAX_VALUE; -1 is read the same way.
            let n = if attribute == "TTL" && n < 0 {
                i32::MAX
            } else {
                n
            };
            family.set_attribute(attribute, &n.to_string())?;
        }
    }
    if let Some(Value::I16(r)) = f.get(7) {
        family.set_attribute("DFS_REPLICATION", &r.max(&0).to_string())?;
    }
    let flags: [(i16, &str); 7] = [
        (14, "BLOCKCACHE"),
        (15, "CACHE_BLOOMS_ON_WRITE"),
        (16, "CACHE_DATA_ON_WRITE"),
        (17, "CACHE_INDEX_ON_WRITE"),
        (18, "COMPRESS_TAGS"),
        (19, "EVICT_BLOCKS_ON_CLOSE"),
        (20, "IN_MEMORY"),
    ];
    for (id, attribute) in flags {
        if let Some(on) = f.bool(id) {
            family.set_attribute(attribute, &on.to_string())?;
        }
    }
    Ok(family)
}

/// A TTableDescriptor: tableName 1, columns 2, attributes 3 (by HBase's names), durability 4.
pub fn table_descriptor(t: &Fields) -> Result<TableDescriptor, Failure2> {
    let name = table_name(required_struct(t, 1, "TTableDescriptor.tableName")?)?;
    let mut desc = TableDescriptor::new(name);
    for f in structs(t, 2) {
        desc.add_family(family(f)?);
    }
    for (key, value) in map_entries(t, 3) {
        let key = utf8(key, "TTableDescriptor.attributes")?;
        let value = utf8(value, "TTableDescriptor.attributes")?;
        desc.set_attribute(key, value)?;
    }
    if t.i32(4).is_some() {
        desc.durability = durability(t, 4, "TTableDescriptor")?;
    }
    Ok(desc)
}

/// A TNamespaceDescriptor {name 1, configuration 2}.
pub fn namespace(n: &Fields) -> Result<NamespaceDescriptor, Failure2> {
    let name = utf8(
        required(n, 1, "TNamespaceDescriptor.name")?,
        "TNamespaceDescriptor.name",
    )?;
    let mut ns = NamespaceDescriptor::new(name);
    for (key, value) in string_map(n, 2, "TNamespaceDescriptor.configuration")? {
        ns.configuration.insert(key, value);
    }
    Ok(ns)
}
