//! What Thrift2's methods answer, written as HBase's thrift2 structs.

use basalt_client::slowlog::SlowCall;
use basalt_client::{
    Cell, ColumnFamilyDescriptor, NamespaceDescriptor, RegionSummary, RowResult, TableDescriptor,
    TableName,
};

use super::read::{BLOOM, COMPRESSION, ENCODING, KEEP_DELETED, enum_code};
use crate::protocol::{TType, Writer};

/// A successful call's value (field 0 of the result struct).
#[derive(Debug)]
pub enum Reply2 {
    Void,
    Bool(bool),
    I32(i32),
    /// `list<bool>`.
    Bools(Vec<bool>),
    /// `TResult` (an empty row: no row field, no column values).
    Result(RowResult),
    /// `list<TResult>`.
    Results(Vec<RowResult>),
    /// `list<TDelete>`: deleteMultiple answers an empty one, as HBase does.
    NoDeletes,
    Location(RegionSummary, TableName),
    Locations(Vec<RegionSummary>, TableName),
    Table(TableDescriptor),
    Tables(Vec<TableDescriptor>),
    TableNames(Vec<TableName>),
    Namespace(NamespaceDescriptor),
    Namespaces(Vec<NamespaceDescriptor>),
    /// `list<string>`.
    Strings(Vec<String>),
    /// `list<TOnlineLogRecord>`.
    SlowLog(Vec<(String, SlowCall)>),
    /// `map<string, string>`.
    StringMap(Vec<(String, String)>),
}

/// The exceptions of thrift2's `hbase.thrift`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure2 {
    /// `TIOError` {message 1, canRetry 2}, in field 1 of every method's result.
    Io { message: String, can_retry: bool },
    /// `TIllegalArgument` {message 1}: field 2 of getScannerRows and closeScanner, the only
    /// methods that declare it; other methods send it as a TIOError that cannot be retried.
    IllegalArgument(String),
}

impl From<basalt_client::Error> for Failure2 {
    fn from(e: basalt_client::Error) -> Self {
        use basalt_client::ErrorKind;
        Failure2::Io {
            message: format!("{}: {e}", e.exception_name()),
            // HBase's handler: retry unless the cause was a DoNotRetryIOException.
            can_retry: matches!(e.kind(), ErrorKind::Unavailable | ErrorKind::Io),
        }
    }
}

impl Failure2 {
    /// Writes the exception as the field its method declares.
    pub fn write(&self, w: &mut Writer, declares_ia: bool) {
        match self {
            Failure2::IllegalArgument(message) if declares_ia => {
                w.field(2, TType::Struct);
                w.struct_begin();
                w.field(1, TType::String);
                w.string(message);
                w.struct_end();
            }
            Failure2::IllegalArgument(message) => io_error(w, message, false),
            Failure2::Io { message, can_retry } => io_error(w, message, *can_retry),
        }
    }
}

fn io_error(w: &mut Writer, message: &str, can_retry: bool) {
    w.field(1, TType::Struct);
    w.struct_begin();
    w.field(1, TType::String);
    w.string(message);
    w.field_bool(2, can_retry);
    w.struct_end();
}

fn binary_field(w: &mut Writer, id: i16, v: &[u8]) {
    w.field(id, TType::String);
    w.binary(v);
}

fn i32_field(w: &mut Writer, id: i16, v: i32) {
    w.field(id, TType::I32);
    w.i32(v);
}

fn clamp(v: impl TryInto<i32>) -> i32 {
    v.try_into().unwrap_or(i32::MAX)
}

/// TColumnValue {family 1, qualifier 2, value 3, timestamp 4, type 6}.
fn column_value(w: &mut Writer, cell: &Cell) {
    w.struct_begin();
    binary_field(w, 1, cell.family());
    binary_field(w, 2, cell.qualifier());
    binary_field(w, 3, cell.value());
    w.field(4, TType::I64);
    w.i64(cell.timestamp);
    w.field(6, TType::Byte);
    w.byte(cell.cell_type.code() as i8);
    w.struct_end();
}

/// TResult {row 1, columnValues 2, stale 3, partial 4}: an empty result has no row.
fn result(w: &mut Writer, r: &RowResult) {
    w.struct_begin();
    if !r.cells.is_empty() {
        binary_field(w, 1, &r.row);
    }
    w.field(2, TType::List);
    w.list_begin(TType::Struct, r.cells.len());
    for cell in &r.cells {
        column_value(w, cell);
    }
    w.field_bool(3, false);
    w.field_bool(4, r.partial);
    w.struct_end();
}

/// TTableName {ns 1, qualifier 2}: the namespace is always named, `default` included.
fn table_name(w: &mut Writer, t: &TableName) {
    w.struct_begin();
    binary_field(w, 1, t.namespace().as_bytes());
    binary_field(w, 2, t.qualifier().as_bytes());
    w.struct_end();
}

/// `host,port,startcode` or `host:port` as TServerName {hostName 1, port 2, startCode 3}.
fn server_name(w: &mut Writer, server: Option<&str>) {
    let server = server.unwrap_or_default();
    let mut parts = server.split([',', ':']);
    let host = parts.next().unwrap_or_default();
    let port: i32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
    let start_code: Option<i64> = parts.next().and_then(|c| c.parse().ok());
    w.struct_begin();
    w.field(1, TType::String);
    w.string(host);
    i32_field(w, 2, port);
    if let Some(code) = start_code {
        w.field(3, TType::I64);
        w.i64(code);
    }
    w.struct_end();
}

/// THRegionLocation {serverName 1, regionInfo 2 (THRegionInfo: regionId 1, tableName 2,
/// startKey 3, endKey 4, offline 5, split 6, replicaId 7)}.
fn location(w: &mut Writer, r: &RegionSummary, table: &TableName) {
    w.struct_begin();
    w.field(1, TType::Struct);
    server_name(w, r.server.as_deref());
    w.field(2, TType::Struct);
    w.struct_begin();
    w.field(1, TType::I64);
    w.i64(r.region_id());
    binary_field(w, 2, table.to_string().as_bytes());
    binary_field(w, 3, &r.start_key);
    binary_field(w, 4, &r.end_key);
    w.field_bool(5, false);
    w.field_bool(6, false);
    i32_field(w, 7, 0);
    w.struct_end();
    w.struct_end();
}

fn string_map(w: &mut Writer, id: i16, entries: &[(String, String)]) {
    w.field(id, TType::Map);
    w.map_begin(TType::String, TType::String, entries.len());
    for (k, v) in entries {
        w.string(k);
        w.string(v);
    }
}

fn owned(map: &std::collections::BTreeMap<String, String>) -> Vec<(String, String)> {
    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// TColumnFamilyDescriptor, every field set (see `read::family` for the numbers); its
/// attributes are the free-form METADATA, the typed fields carry the rest.
fn family(w: &mut Writer, f: &ColumnFamilyDescriptor) {
    w.struct_begin();
    binary_field(w, 1, &f.name);
    string_map(w, 2, &owned(&f.metadata));
    string_map(w, 3, &owned(&f.configuration));
    i32_field(w, 4, clamp(f.block_size));
    let enums = [
        (5, enum_code(BLOOM, f.bloom_filter.as_str())),
        (6, enum_code(COMPRESSION, f.compression.as_str())),
        (8, enum_code(ENCODING, f.data_block_encoding.as_str())),
        (9, enum_code(KEEP_DELETED, f.keep_deleted_cells.as_str())),
    ];
    for (id, code) in enums {
        if let Some(code) = code {
            i32_field(w, id, code);
        }
    }
    w.field(7, TType::I16);
    w.i16(i16::try_from(f.dfs_replication).unwrap_or(i16::MAX));
    i32_field(w, 10, clamp(f.max_versions));
    i32_field(w, 11, clamp(f.min_versions));
    i32_field(w, 12, clamp(f.replication_scope));
    i32_field(w, 13, clamp(f.ttl_seconds));
    w.field_bool(14, f.block_cache);
    w.field_bool(15, f.cache_blooms_on_write);
    w.field_bool(16, f.cache_data_on_write);
    w.field_bool(17, f.cache_index_on_write);
    w.field_bool(18, f.compress_tags);
    w.field_bool(19, f.evict_blocks_on_close);
    w.field_bool(20, f.in_memory);
    w.struct_end();
}

/// TTableDescriptor {tableName 1, columns 2, attributes 3, durability 4}.
fn table(w: &mut Writer, t: &TableDescriptor) {
    w.struct_begin();
    w.field(1, TType::Struct);
    table_name(w, &t.name);
    w.field(2, TType::List);
    w.list_begin(TType::Struct, t.families().len());
    for f in t.families() {
        family(w, f);
    }
    string_map(w, 3, &t.non_default_attributes());
    let durability = basalt_client::Durability::ALL
        .iter()
        .position(|d| *d == t.durability)
        .unwrap_or(0);
    i32_field(w, 4, durability as i32);
    w.struct_end();
}

/// TNamespaceDescriptor {name 1, configuration 2}.
fn namespace(w: &mut Writer, n: &NamespaceDescriptor) {
    w.struct_begin();
    w.field(1, TType::String);
    w.string(&n.name);
    string_map(w, 2, &owned(&n.configuration));
    w.struct_end();
}

/// TOnlineLogRecord {startTime 1, processingTime 2, queueTime 3, responseSize 4,
/// clientAddress 5, serverClass 6, methodName 7, callDetails 8, param 9, userName 10,
/// multiGetsCount 11, multiMutationsCount 12, multiServiceCalls 13, regionName 14}.
fn slow_call(w: &mut Writer, server: &str, c: &SlowCall) {
    w.struct_begin();
    w.field(1, TType::I64);
    w.i64(c.start_time_ms);
    i32_field(w, 2, clamp(c.processing_ms));
    i32_field(w, 3, clamp(c.queue_ms));
    w.field(4, TType::I64);
    w.i64(i64::try_from(c.response_size).unwrap_or(i64::MAX));
    let strings: [(i16, String); 6] = [
        (5, c.client_address.clone()),
        (6, server.to_owned()),
        (7, c.method.clone()),
        (8, c.call_details()),
        (9, String::new()),
        (10, c.user.clone()),
    ];
    for (id, s) in &strings {
        w.field(*id, TType::String);
        w.string(s);
    }
    for id in 11..=13 {
        i32_field(w, id, 0);
    }
    if let Some(region) = &c.region {
        w.field(14, TType::String);
        w.string(region);
    }
    w.struct_end();
}

impl Reply2 {
    /// Writes the value as field 0 of the result struct (nothing for void).
    pub fn write(&self, w: &mut Writer) {
        let list = |w: &mut Writer, elem: TType, n: usize| {
            w.field(0, TType::List);
            w.list_begin(elem, n);
        };
        match self {
            Reply2::Void => {}
            Reply2::Bool(v) => w.field_bool(0, *v),
            Reply2::I32(v) => i32_field(w, 0, *v),
            Reply2::Bools(v) => {
                list(w, TType::Bool, v.len());
                for b in v {
                    w.bool_elem(*b);
                }
            }
            Reply2::Result(r) => {
                w.field(0, TType::Struct);
                result(w, r);
            }
            Reply2::Results(rs) => {
                list(w, TType::Struct, rs.len());
                for r in rs {
                    result(w, r);
                }
            }
            Reply2::NoDeletes => list(w, TType::Struct, 0),
            Reply2::Location(r, t) => {
                w.field(0, TType::Struct);
                location(w, r, t);
            }
            Reply2::Locations(rs, t) => {
                list(w, TType::Struct, rs.len());
                for r in rs {
                    location(w, r, t);
                }
            }
            Reply2::Table(t) => {
                w.field(0, TType::Struct);
                table(w, t);
            }
            Reply2::Tables(ts) => {
                list(w, TType::Struct, ts.len());
                for t in ts {
                    table(w, t);
                }
            }
            Reply2::TableNames(ts) => {
                list(w, TType::Struct, ts.len());
                for t in ts {
                    table_name(w, t);
                }
            }
            Reply2::Namespace(n) => {
                w.field(0, TType::Struct);
                namespace(w, n);
            }
            Reply2::Namespaces(ns) => {
                list(w, TType::Struct, ns.len());
                for n in ns {
                    namespace(w, n);
                }
            }
            Reply2::Strings(ss) => {
                list(w, TType::String, ss.len());
                for s in ss {
                    w.string(s);
                }
            }
            Reply2::SlowLog(calls) => {
                list(w, TType::Struct, calls.len());
                for (server, c) in calls {
                    slow_call(w, server, c);
                }
            }
            Reply2::StringMap(entries) => string_map(w, 0, entries),
        }
    }
}
