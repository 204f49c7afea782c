//! The methods of HBase's `Hbase.thrift` service, each a translation onto the client API with
//! the semantics of HBase's `ThriftHBaseServiceHandler` (reference §8.1): read timestamps
//! are exclusive upper bounds, `mutateRows` applies its puts before its deletes, a column
//! without `:` is a whole family and `cf:` the empty qualifier.

use basalt_client::prelude::*;
use std::sync::Arc;
use std::time::Duration;

use basalt_client::acl::{Actions, Permission, Scope};
use basalt_client::{
    Append, BatchOp, Bytes, CheckAction, CheckAndMutate, Client, ColumnFamilyDescriptor, Condition,
    Delete, Durability, FilterSpec, Get, Increment, LATEST_TIMESTAMP, Put, RegionSummary,
    RowResult, Scan, TableDescriptor, TableName, parse_filter,
};

use crate::protocol::{Fields, Value};
use crate::reply::{Failure, RegionInfo, Reply};
use crate::scanners::Scanners;

pub type Outcome = Result<Reply, Failure>;

/// Serves calls for one server; shared by its connections. It is a client of Basalt like any
/// other: the connection is embedded or remote.
#[derive(Debug)]
pub struct Handler {
    conn: Arc<dyn Client>,
    pub scanners: Scanners,
    host: String,
    port: i32,
}

/// The methods that declare `IllegalArgument` (others send it as an IOError).
pub fn declares_illegal_argument(method: &str) -> bool {
    matches!(
        method,
        "createTable"
            | "mutateRow"
            | "mutateRowTs"
            | "mutateRows"
            | "mutateRowsTs"
            | "atomicIncrement"
            | "scannerGet"
            | "scannerGetList"
            | "scannerClose"
            | "checkAndPut"
    )
}

fn illegal(message: impl Into<String>) -> Failure {
    Failure::IllegalArgument(message.into())
}

/// A required binary argument.
fn bin<'a>(args: &'a Fields, id: i16, what: &str) -> Result<&'a [u8], Failure> {
    args.binary(id)
        .ok_or_else(|| illegal(format!("missing argument {what}")))
}

fn text(bytes: &[u8]) -> Result<&str, Failure> {
    std::str::from_utf8(bytes).map_err(|_| illegal("a table name must be UTF-8"))
}

fn table_name(args: &Fields, id: i16) -> Result<TableName, Failure> {
    Ok(TableName::parse(text(bin(args, id, "tableName")?)?)?)
}

/// `family` or `family:qualifier` (one copy of the column, sliced).
fn parse_column(column: &[u8]) -> (Bytes, Option<Bytes>) {
    let column = Bytes::copy_from_slice(column);
    match column.iter().position(|&b| b == b':') {
        Some(i) => (column.slice(..i), Some(column.slice(i + 1..))),
        None => (column, None),
    }
}

/// The binary elements of a `list<Text>` argument (absent: none).
fn texts(args: &Fields, id: i16) -> Vec<&[u8]> {
    args.list(id)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| match v {
            Value::Binary(b) => Some(&b[..]),
            _ => None,
        })
        .collect()
}

fn get_with_columns(mut get: Get, columns: &[&[u8]]) -> Get {
    for c in columns {
        get = match parse_column(c) {
            (f, None) => get.add_family(f),
            (f, Some(q)) => get.add_column(f, q),
        };
    }
    get
}

fn scan_with_columns(mut scan: Scan, columns: &[&[u8]]) -> Scan {
    for c in columns {
        scan = match parse_column(c) {
            (f, None) => scan.add_family(f),
            (f, Some(q)) => scan.add_column(f, q),
        };
    }
    scan
}

fn durability(write_to_wal: bool) -> Durability {
    if write_to_wal {
        Durability::SyncWal
    } else {
        Durability::SkipWal
    }
}

/// One row's Mutation list as a Put and a Delete at `ts` (HBase's handler builds the same two;
/// LATEST_TIMESTAMP means the server's time).
fn row_mutations(row: &[u8], mutations: &[Value], ts: i64) -> Result<(Put, Delete), Failure> {
    let row = Bytes::copy_from_slice(row);
    let mut put = Put::new(row.clone()).with_timestamp(ts);
    let mut delete = Delete::new(row).with_timestamp(ts);
    for m in mutations {
        let Value::Struct(m) = m else { continue };
        let column = m.binary(2).unwrap_or_default();
        let wal = m.bool(4).unwrap_or(true);
        match (m.bool(1).unwrap_or(false), parse_column(column)) {
            (true, (family, None)) => {
                delete = delete.add_family(family).with_durability(durability(wal));
            }
            (true, (family, Some(q))) => {
                delete = delete
                    .add_columns(family, q)
                    .with_durability(durability(wal));
            }
            (false, (_, None)) => {
                return Err(illegal(
                    "No column qualifier specified. Delete is the only mutation supported over \
                     the whole column family.",
                ));
            }
            (false, (family, Some(q))) => {
                let value = Bytes::copy_from_slice(m.binary(3).unwrap_or_default());
                put = put
                    .add_column(family, q, value)
                    .with_durability(durability(wal));
            }
        }
    }
    Ok((put, delete))
}

/// A Thrift1 ColumnDescriptor as a family, with the IDL's defaults for what is unset.
fn family_from(desc: &Fields) -> Result<ColumnFamilyDescriptor, Failure> {
    let name = desc
        .binary(1)
        .ok_or_else(|| illegal("a column descriptor needs a name"))?;
    let name = name.strip_suffix(b":").unwrap_or(name);
    let mut family = ColumnFamilyDescriptor::new(Bytes::copy_from_slice(name))
        .with_max_versions(u32::try_from(desc.i32(2).unwrap_or(3)).map_err(|_| {
            illegal(format!(
                "maxVersions must be positive, got {:?}",
                desc.i32(2)
            ))
        })?)
        .with_in_memory(desc.bool(4).unwrap_or(false))
        .with_block_cache(desc.bool(8).unwrap_or(false));
    let compression = desc.binary(3).map_or("NONE", |c| text(c).unwrap_or("NONE"));
    family.set_attribute("COMPRESSION", compression)?;
    let bloom = desc.binary(5).map_or("NONE", |c| text(c).unwrap_or("NONE"));
    family.set_attribute("BLOOMFILTER", bloom)?;
    match desc.i32(9) {
        Some(ttl) if ttl > 0 && ttl != i32::MAX => family = family.with_ttl_seconds(ttl as u32),
        Some(ttl) if ttl == 0 || ttl < -1 => {
            return Err(illegal(format!(
                "timeToLive must be positive (or -1 for forever), got {ttl}"
            )));
        }
        _ => {}
    }
    Ok(family)
}

impl Handler {
    pub fn new(conn: Arc<dyn Client>, scanner_lease: Duration, host: String, port: i32) -> Self {
        Handler {
            conn,
            scanners: Scanners::new(scanner_lease),
            host,
            port,
        }
    }

    /// Runs method `name` on its decoded arguments; `None` for a method the service lacks.
    pub fn call(&self, name: &str, a: &Fields) -> Option<Outcome> {
        // The only map arguments of `Hbase.thrift` are the methods' `attributes`, which HBase
        // hands to coprocessors: Basalt runs none, so a non-empty one is refused by name
        // rather than ignored (happybase sends none).
        if let Some((id, _)) =
            a.0.iter()
                .find(|(_, v)| matches!(v, Value::Map(m) if !m.is_empty()))
        {
            return Some(Err(Failure::Io(format!(
                "DoNotRetryIOException: {name}.attributes (argument {id}) is not supported: \
                 Basalt runs no coprocessor that could read an attribute"
            ))));
        }
        Some(match name {
            "enableTable" => self.admin_call(a, |c, t| c.enable_table(t)),
            "disableTable" => self.admin_call(a, |c, t| c.disable_table(t)),
            "isTableEnabled" => {
                table_name(a, 1).and_then(|t| Ok(Reply::Bool(self.conn.is_table_enabled(&t)?)))
            }
            "compact" => self.compact(a, false),
            "majorCompact" => self.compact(a, true),
            "getTableNames" => self.table_names().map(|names| {
                Reply::Names(
                    names
                        .into_iter()
                        .map(|t| t.to_string().into_bytes())
                        .collect(),
                )
            }),
            "getTableNamesWithIsTableEnabled" => self.names_enabled(),
            "getColumnDescriptors" => table_name(a, 1).and_then(|t| {
                let desc = self.conn.describe_table(&t)?;
                Ok(Reply::Families(desc.families().to_vec()))
            }),
            "getTableRegions" => self.table_regions(a),
            "createTable" => self.create_table(a),
            "deleteTable" => self.delete_table(a),
            "get" => self.get(a, 3, None, None),
            "getVer" => self.get(a, 3, a.i32(4), None),
            "getVerTs" => self.get(a, 3, a.i32(5), a.i64(4)),
            "getRow" => self.get_rows(a, false, None, None),
            "getRowWithColumns" => self.get_rows(a, false, Some(3), None),
            "getRowTs" => self.get_rows(a, false, None, a.i64(3)),
            "getRowWithColumnsTs" => self.get_rows(a, false, Some(3), a.i64(4)),
            "getRows" => self.get_rows(a, true, None, None),
            "getRowsWithColumns" => self.get_rows(a, true, Some(3), None),
            "getRowsTs" => self.get_rows(a, true, None, a.i64(3)),
            "getRowsWithColumnsTs" => self.get_rows(a, true, Some(3), a.i64(4)),
            "mutateRow" => self.mutate_row(a, LATEST_TIMESTAMP),
            "mutateRowTs" => self.mutate_row(a, a.i64(4).unwrap_or(LATEST_TIMESTAMP)),
            "mutateRows" => self.mutate_rows(a, LATEST_TIMESTAMP),
            "mutateRowsTs" => self.mutate_rows(a, a.i64(3).unwrap_or(LATEST_TIMESTAMP)),
            "atomicIncrement" => self.atomic_increment(a),
            "deleteAll" => self.delete_all(a, Some(3), LATEST_TIMESTAMP),
            "deleteAllTs" => self.delete_all(a, Some(3), a.i64(4).unwrap_or(LATEST_TIMESTAMP)),
            "deleteAllRow" => self.delete_all(a, None, LATEST_TIMESTAMP),
            "deleteAllRowTs" => self.delete_all(a, None, a.i64(3).unwrap_or(LATEST_TIMESTAMP)),
            "increment" => a
                .strukt(1)
                .ok_or_else(|| illegal("missing argument increment"))
                .and_then(|i| self.increment(i))
                .map(|_| Reply::Void),
            "incrementRows" => self.increment_rows(a),
            "append" => self.append(a),
            "checkAndPut" => self.check_and_put(a),
            "scannerOpenWithScan" => self.scanner_open_with_scan(a),
            "scannerOpen" => self.scanner_open(a, Some(2), None, 3, None, false),
            "scannerOpenWithStop" => self.scanner_open(a, Some(2), Some(3), 4, None, false),
            "scannerOpenWithPrefix" => self.scanner_open(a, Some(2), None, 3, None, true),
            "scannerOpenTs" => self.scanner_open(a, Some(2), None, 3, a.i64(4), false),
            "scannerOpenWithStopTs" => self.scanner_open(a, Some(2), Some(3), 4, a.i64(5), false),
            "scannerGet" => self.scanner_get(a, Some(1)),
            "scannerGetList" => self.scanner_get(a, a.i32(2)),
            "scannerClose" => match a.i32(1) {
                Some(id) if self.scanners.close(id) => Ok(Reply::Void),
                _ => Err(illegal("scanner ID is invalid")),
            },
            "getRegionInfo" => self.region_info(a),
            "getRowOrBefore" => self.row_or_before(a),
            "getThriftServerType" => Ok(Reply::I32(1)),
            "getClusterId" => Ok(Reply::String(format!("basalt-{}:{}", self.host, self.port))),
            "grant" | "revoke" => self.access_control(a, name == "grant"),
            _ => return None,
        })
    }

    /// `grant` / `revoke` (HBase 2.x's Thrift1): a TAccessControlEntity {username 1, scope 2
    /// (TABLE 0, NAMESPACE 1), actions 4, tableName 5, nsName 6}. Answers true.
    fn access_control(&self, a: &Fields, grant: bool) -> Outcome {
        let info = a
            .strukt(1)
            .ok_or_else(|| illegal("missing argument info"))?;
        let user = text(bin(info, 1, "username")?)?.to_owned();
        let scope = match info.i32(2) {
            Some(0) => Scope::table(&table_name(info, 5)?),
            Some(1) => Scope::Namespace(text(bin(info, 6, "nsName")?)?.to_owned()),
            other => return Err(illegal(format!("unknown permission scope {other:?}"))),
        };
        if grant {
            let actions = Actions::parse(text(bin(info, 4, "actions")?)?)?;
            self.conn.grant(
                &Permission {
                    principal: user,
                    scope,
                    actions,
                },
                false,
            )?;
        } else {
            self.conn.revoke(&user, &scope)?;
        }
        Ok(Reply::Bool(true))
    }

    fn admin_call(
        &self,
        a: &Fields,
        f: impl FnOnce(&dyn Client, &TableName) -> basalt_client::Result<()>,
    ) -> Outcome {
        let t = table_name(a, 1)?;
        f(self.conn.as_ref(), &t)?;
        Ok(Reply::Void)
    }

    fn table_names(&self) -> Result<Vec<TableName>, Failure> {
        let mut names = self.conn.table_names()?;
        names.sort();
        Ok(names)
    }

    fn names_enabled(&self) -> Outcome {
        let mut out = Vec::new();
        for t in self.table_names()? {
            out.push((t.to_string().into_bytes(), self.conn.is_table_enabled(&t)?));
        }
        Ok(Reply::NamesEnabled(out))
    }

    /// A region name first, else a table name, as HBase does.
    fn compact(&self, a: &Fields, major: bool) -> Outcome {
        let name = bin(a, 1, "tableNameOrRegionName")?;
        if self.conn.compact_region(name, major).is_ok() {
            return Ok(Reply::Void);
        }
        let table = TableName::parse(text(name)?)?;
        self.conn.compact(&table, major)?;
        Ok(Reply::Void)
    }

    /// A region as `getTableRegions` describes it: with the server holding it (a cluster's),
    /// or this gateway's server.
    fn region(&self, region: RegionSummary) -> RegionInfo {
        let held = region
            .server
            .as_deref()
            .and_then(basalt_client::ServerName::parse)
            .and_then(|s| s.host_and_port().map(|(h, p)| (h.to_owned(), i32::from(p))));
        let (host, port) = held.unwrap_or_else(|| (self.host.clone(), self.port));
        RegionInfo { region, host, port }
    }

    fn table_regions(&self, a: &Fields) -> Outcome {
        let t = table_name(a, 1)?;
        // A missing table has no regions, which is not an error (as in HBase).
        let regions = match self.conn.regions(&t) {
            Ok(r) => r,
            Err(basalt_client::Error::TableNotFound(_)) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        Ok(Reply::Regions(
            regions.into_iter().map(|r| self.region(r)).collect(),
        ))
    }

    fn create_table(&self, a: &Fields) -> Outcome {
        let t = table_name(a, 1)?;
        let families = a.list(2).unwrap_or_default();
        if families.is_empty() {
            return Err(illegal("a table needs at least one column family"));
        }
        let mut desc = TableDescriptor::named(&t.to_string())?;
        for f in families {
            let Value::Struct(f) = f else {
                return Err(illegal("columnFamilies must hold ColumnDescriptors"));
            };
            desc = desc.with_family(family_from(f)?);
        }
        self.conn.create_table(desc, &[])?;
        Ok(Reply::Void)
    }

    fn delete_table(&self, a: &Fields) -> Outcome {
        let t = table_name(a, 1)?;
        if !self.conn.table_exists(&t)? {
            return Err(Failure::Io(format!(
                "TableNotFoundException: table {t} does not exist"
            )));
        }
        self.conn.delete_table(&t)?;
        Ok(Reply::Void)
    }

    /// `get` / `getVer` / `getVerTs`: the cells of one column (or family).
    fn get(&self, a: &Fields, column: i16, versions: Option<i32>, ts: Option<i64>) -> Outcome {
        let table = table_name(a, 1)?;
        let row = bin(a, 2, "row")?;
        let column = bin(a, column, "column")?;
        let mut get = get_with_columns(Get::new(Bytes::copy_from_slice(row)), &[column]);
        if let Some(v) = versions {
            get = get.read_versions(u32::try_from(v.max(1)).unwrap_or(1));
        }
        if let Some(ts) = ts {
            get = get.with_time_range(0, ts);
        }
        Ok(Reply::Cells(self.conn.get(&table, &get)?.cells))
    }

    /// The getRow* family: one or many rows, some columns or all, before a timestamp or not.
    fn get_rows(&self, a: &Fields, many: bool, columns: Option<i16>, ts: Option<i64>) -> Outcome {
        let table = table_name(a, 1)?;
        let rows: Vec<&[u8]> = if many {
            texts(a, 2)
        } else {
            vec![bin(a, 2, "row")?]
        };
        let columns = columns.map(|id| texts(a, id)).unwrap_or_default();
        let mut out = Vec::new();
        for row in rows {
            let mut get = get_with_columns(Get::new(Bytes::copy_from_slice(row)), &columns);
            if let Some(ts) = ts {
                get = get.with_time_range(0, ts);
            }
            let result = self.conn.get(&table, &get)?;
            if !result.cells.is_empty() {
                out.push(result);
            }
        }
        Ok(Reply::Rows {
            rows: out,
            sorted: false,
        })
    }

    /// mutateRow(Ts): the Delete, then the Put (two steps, as HBase).
    fn mutate_row(&self, a: &Fields, ts: i64) -> Outcome {
        let table = table_name(a, 1)?;
        let row = bin(a, 2, "row")?;
        let (put, delete) = row_mutations(row, a.list(3).unwrap_or_default(), ts)?;
        if !delete.entries.is_empty() {
            self.conn.delete(&table, &delete)?;
        }
        if !put.cells.is_empty() {
            self.conn.put(&table, &put)?;
        }
        Ok(Reply::Void)
    }

    /// mutateRows(Ts): every row's puts, then every row's deletes.
    fn mutate_rows(&self, a: &Fields, ts: i64) -> Outcome {
        let table = table_name(a, 1)?;
        let mut puts = Vec::new();
        let mut deletes = Vec::new();
        for batch in a.list(2).unwrap_or_default() {
            let Value::Struct(batch) = batch else {
                continue;
            };
            let row = bin(batch, 1, "BatchMutation.row")?;
            let (put, delete) = row_mutations(row, batch.list(2).unwrap_or_default(), ts)?;
            if !put.cells.is_empty() {
                puts.push(BatchOp::Put(put));
            }
            if !delete.entries.is_empty() {
                deletes.push(BatchOp::Delete(delete));
            }
        }
        // One row's put (a client writing row by row) skips the batch machinery.
        if let ([BatchOp::Put(put)], []) = (&puts[..], &deletes[..]) {
            self.conn.put(&table, put)?;
            return Ok(Reply::Void);
        }
        for ops in [puts, deletes] {
            for outcome in self.conn.batch(&table, &ops) {
                outcome?;
            }
        }
        Ok(Reply::Void)
    }

    fn atomic_increment(&self, a: &Fields) -> Outcome {
        let table = table_name(a, 1)?;
        let row = bin(a, 2, "row")?;
        let (family, qualifier) = parse_column(bin(a, 3, "column")?);
        let value = a.i64(4).unwrap_or(0);
        let v = self.conn.increment_column_value(
            &table,
            row,
            &family,
            &qualifier.unwrap_or_default(),
            value,
        )?;
        Ok(Reply::I64(v))
    }

    fn delete_all(&self, a: &Fields, column: Option<i16>, ts: i64) -> Outcome {
        let table = table_name(a, 1)?;
        let row = Bytes::copy_from_slice(bin(a, 2, "row")?);
        let delete = Delete::new(row).with_timestamp(ts);
        let delete = match column {
            None => delete,
            Some(id) => match parse_column(bin(a, id, "column")?) {
                (f, None) => delete.add_family(f),
                (f, Some(q)) => delete.add_columns(f, q),
            },
        };
        self.conn.delete(&table, &delete)?;
        Ok(Reply::Void)
    }

    /// One TIncrement {table, row, column, ammount}.
    fn increment(&self, i: &Fields) -> Result<(), Failure> {
        let table = table_name(i, 1)?;
        let row = bin(i, 2, "row")?;
        let (family, qualifier) = parse_column(bin(i, 3, "column")?);
        let inc = Increment::new(Bytes::copy_from_slice(row)).add_column(
            family,
            qualifier.unwrap_or_default(),
            i.i64(4).unwrap_or(0),
        );
        self.conn.increment(&table, &inc)?;
        Ok(())
    }

    fn increment_rows(&self, a: &Fields) -> Outcome {
        for i in a.list(1).unwrap_or_default() {
            if let Value::Struct(i) = i {
                self.increment(i)?;
            }
        }
        Ok(Reply::Void)
    }

    fn append(&self, a: &Fields) -> Outcome {
        let ap = a
            .strukt(1)
            .ok_or_else(|| illegal("missing argument append"))?;
        let table = table_name(ap, 1)?;
        let row = bin(ap, 2, "row")?;
        let columns = texts(ap, 3);
        let values = texts(ap, 4);
        if columns.len() != values.len() {
            return Err(Failure::Io(format!(
                "IllegalArgumentException: {} columns but {} values",
                columns.len(),
                values.len()
            )));
        }
        let mut append = Append::new(Bytes::copy_from_slice(row));
        for (c, v) in columns.iter().zip(values) {
            let (family, qualifier) = parse_column(c);
            append = append.add_column(
                family,
                qualifier.unwrap_or_default(),
                Bytes::copy_from_slice(v),
            );
        }
        Ok(Reply::Cells(self.conn.append(&table, &append)?.cells))
    }

    fn check_and_put(&self, a: &Fields) -> Outcome {
        let table = table_name(a, 1)?;
        let row = Bytes::copy_from_slice(bin(a, 2, "row")?);
        let (family, qualifier) = parse_column(bin(a, 3, "column")?);
        let m = a
            .strukt(6)
            .ok_or_else(|| illegal("missing argument mput"))?;
        let (put_family, put_qualifier) = parse_column(m.binary(2).unwrap_or_default());
        let Some(put_qualifier) = put_qualifier else {
            return Err(illegal("the put of checkAndPut needs family:qualifier"));
        };
        let put = Put::new(row.clone())
            .add_column(
                put_family,
                put_qualifier,
                Bytes::copy_from_slice(m.binary(3).unwrap_or_default()),
            )
            .with_durability(durability(m.bool(4).unwrap_or(true)));
        let qualifier = qualifier.unwrap_or_default();
        // No expected value: the check is that the column is absent.
        let condition = match a.binary(5) {
            Some(v) => Condition::equals(family, qualifier, Bytes::copy_from_slice(v)),
            None => Condition::not_exists(family, qualifier),
        };
        let cam = CheckAndMutate::new(row, condition, CheckAction::Put(put));
        Ok(Reply::Bool(
            self.conn.check_and_mutate(&table, &cam)?.success,
        ))
    }

    fn scanner_open_with_scan(&self, a: &Fields) -> Outcome {
        let table = table_name(a, 1)?;
        let s = a.strukt(2).cloned().unwrap_or_default();
        let mut scan = scan_with_columns(Scan::new(), &texts(&s, 4))
            .reversed(s.bool(9).unwrap_or(false))
            .with_cache_blocks(s.bool(10).unwrap_or(true));
        if let Some(start) = s.binary(1) {
            scan = scan.with_start_row(Bytes::copy_from_slice(start));
        }
        if let Some(stop) = s.binary(2) {
            scan = scan.with_stop_row(Bytes::copy_from_slice(stop));
        }
        if let Some(ts) = s.i64(3) {
            scan = scan.with_time_range(0, ts);
        }
        if let Some(caching) = s.i32(5).filter(|c| *c > 0) {
            scan = scan.with_caching(caching as usize);
        }
        if let Some(batch) = s.i32(7).filter(|b| *b > 0) {
            scan = scan.with_batch(batch as usize);
        }
        if let Some(filter) = s.binary(6).filter(|f| !f.is_empty()) {
            let filter = std::str::from_utf8(filter)
                .map_err(|_| {
                    Failure::Io("IllegalArgumentException: filterString is not UTF-8".into())
                })
                .and_then(|f| {
                    parse_filter(f)
                        .map_err(|e| Failure::Io(format!("IllegalArgumentException: {e}")))
                })?;
            scan = scan.with_filter(filter);
        }
        let scanner = Arc::clone(&self.conn).scan(&table, &scan)?;
        Ok(Reply::I32(
            self.scanners.add(scanner, s.bool(8).unwrap_or(false)),
        ))
    }

    /// The scannerOpen* variants: start (or prefix), stop, columns, timestamp.
    fn scanner_open(
        &self,
        a: &Fields,
        start: Option<i16>,
        stop: Option<i16>,
        columns: i16,
        ts: Option<i64>,
        prefix: bool,
    ) -> Outcome {
        let table = table_name(a, 1)?;
        let mut scan = scan_with_columns(Scan::new(), &texts(a, columns));
        if let Some(start) = start.and_then(|id| a.binary(id)) {
            let start = Bytes::copy_from_slice(start);
            if prefix {
                // HBase: start at the prefix, while rows have it.
                scan = scan.with_filter(FilterSpec::WhileMatch(Box::new(FilterSpec::Prefix(
                    start.clone(),
                ))));
            }
            scan = scan.with_start_row(start);
        }
        if let Some(stop) = stop.and_then(|id| a.binary(id)) {
            scan = scan.with_stop_row(Bytes::copy_from_slice(stop));
        }
        if let Some(ts) = ts {
            scan = scan.with_time_range(0, ts);
        }
        let scanner = Arc::clone(&self.conn).scan(&table, &scan)?;
        Ok(Reply::I32(self.scanners.add(scanner, false)))
    }

    fn scanner_get(&self, a: &Fields, n: Option<i32>) -> Outcome {
        let id = a.i32(1).ok_or_else(|| illegal("scanner ID is invalid"))?;
        let n = usize::try_from(n.unwrap_or(1).max(0)).unwrap_or(0);
        match self.scanners.next(id, n) {
            None => Err(illegal("scanner ID is invalid")),
            Some(Err(e)) => Err(e.into()),
            Some(Ok((rows, sorted))) => Ok(Reply::Rows { rows, sorted }),
        }
    }

    /// `getRegionInfo(row)`, where row is a meta key `table,row,...`: the region of `table`
    /// holding `row`.
    fn region_info(&self, a: &Fields) -> Outcome {
        let key = bin(a, 1, "row")?;
        let comma = key.iter().position(|&b| b == b',').ok_or_else(|| {
            Failure::Io(format!(
                "IOException: {} is not a region key",
                String::from_utf8_lossy(key)
            ))
        })?;
        let table = TableName::parse(text(&key[..comma])?)?;
        let rest = &key[comma + 1..];
        let row = &rest[..rest.iter().rposition(|&b| b == b',').unwrap_or(rest.len())];
        let region = self
            .conn
            .regions(&table)?
            .into_iter()
            .find(|r| r.start_key[..] <= *row && (r.end_key.is_empty() || *row < r.end_key[..]))
            .ok_or_else(|| Failure::Io("IOException: no region holds that row".into()))?;
        Ok(Reply::Region(self.region(region)))
    }

    /// `getRowOrBefore(table, row, family)` (HBase 1.x): the cells of `family` in the last row
    /// at or before `row`.
    fn row_or_before(&self, a: &Fields) -> Outcome {
        let table = table_name(a, 1)?;
        let row = Bytes::copy_from_slice(bin(a, 2, "row")?);
        let (family, _) = parse_column(bin(a, 3, "family")?);
        let scan = Scan::new()
            .with_start_row(row)
            .reversed(true)
            .add_family(family)
            .with_limit(1);
        let first: Option<RowResult> = Arc::clone(&self.conn)
            .scan(&table, &scan)?
            .next()
            .transpose()?;
        Ok(Reply::Cells(first.map(|r| r.cells).unwrap_or_default()))
    }
}
