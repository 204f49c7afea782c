//! HBase's Thrift2 service, `THBaseService` of the thrift2 `hbase.thrift` (what `hbase
//! thrift2` serves): every method, each a translation onto the client API with the semantics
//! of HBase's thrift2 `ThriftHBaseServiceHandler`. Fields are read in `read`, answers written
//! in `write`; `docs/design/thrift2.md` lists every struct's fields and how each is served.

mod read;
mod write;

use basalt_client::prelude::*;
use std::sync::Arc;
use std::time::Duration;

use basalt_client::acl::{Actions, Permission, Scope};
use basalt_client::slowlog::Filter as SlowLogFilter;
use basalt_client::{
    BatchOp, BatchOutcome, Bytes, CheckAction, CheckAndMutate, Client, Condition, RegionSummary,
    RowResult, TableDescriptor, TableName,
};

pub use write::{Failure2, Reply2};

use crate::protocol::{Fields, Writer};
use crate::scanners::Scanners;
use crate::server::{Answer, Service};
use read::{required, required_struct, structs, utf8};

type Outcome2 = Result<Reply2, Failure2>;

/// Serves THBaseService for one server; shared by its connections.
#[derive(Debug)]
pub struct Thrift2 {
    conn: Arc<dyn Client>,
    scanners: Scanners,
    /// The server named for regions whose connection does not know their server (an
    /// embedded engine: this process).
    host: String,
    port: i32,
}

/// The system tables listed when a caller asks for them.
const SYSTEM_TABLES: [&str; 7] = [
    "hbase:meta",
    "hbase:namespace",
    "hbase:acl",
    "hbase:quota",
    "hbase:labels",
    "hbase:rsgroup",
    "hbase:replication",
];

fn illegal(message: impl Into<String>) -> Failure2 {
    Failure2::IllegalArgument(message.into())
}

/// The argument `id`, a required struct.
fn arg<'a>(a: &'a Fields, id: i16, name: &str) -> Result<&'a Fields, Failure2> {
    required_struct(a, id, name)
}

/// A `string` argument.
fn string_arg<'a>(a: &'a Fields, id: i16, name: &str) -> Result<&'a str, Failure2> {
    utf8(required(a, id, name)?, name)
}

/// A regular expression matched against whole names, as Java's `Pattern.matches`.
fn whole_match(regex: &str) -> Result<regex::Regex, Failure2> {
    regex::Regex::new(&format!("^(?:{regex})$"))
        .map_err(|e| illegal(format!("regex {regex:?} is not a regular expression: {e}")))
}

/// One value per operation of a batch, or the first error.
fn outcomes(
    results: Vec<basalt_client::Result<BatchOutcome>>,
) -> Result<Vec<BatchOutcome>, Failure2> {
    results
        .into_iter()
        .map(|r| r.map_err(Failure2::from))
        .collect()
}

fn row_of(outcome: BatchOutcome) -> RowResult {
    match outcome {
        BatchOutcome::Row(r) => r,
        _ => RowResult::default(),
    }
}

struct Answer2 {
    outcome: Outcome2,
    declares_ia: bool,
}

impl Answer for Answer2 {
    fn write(&self, w: &mut Writer) {
        match &self.outcome {
            Ok(reply) => reply.write(w),
            Err(failure) => failure.write(w, self.declares_ia),
        }
    }
}

impl Service for Thrift2 {
    fn serve(&self, name: &str, args: &Fields) -> Option<Box<dyn Answer>> {
        let outcome = self.call(name, args)?;
        Some(Box::new(Answer2 {
            outcome,
            declares_ia: matches!(name, "getScannerRows" | "closeScanner"),
        }))
    }

    fn expire_scanners(&self) {
        self.scanners.expire();
    }

    fn open_scanners(&self) -> usize {
        self.scanners.len()
    }

    fn close_scanners(&self) {
        self.scanners.clear();
    }
}

impl Thrift2 {
    pub fn new(conn: Arc<dyn Client>, scanner_lease: Duration, host: String, port: i32) -> Self {
        Thrift2 {
            conn,
            scanners: Scanners::new(scanner_lease),
            host,
            port,
        }
    }

    /// Runs method `name` on its decoded arguments; `None` for a method the service lacks.
    pub fn call(&self, name: &str, a: &Fields) -> Option<Outcome2> {
        Some(match name {
            "exists" => self.exists(a),
            "existsAll" => self.exists_all(a),
            "get" => self.get(a),
            "getMultiple" => self.get_multiple(a),
            "put" => self.put(a),
            "putMultiple" => self.put_multiple(a),
            "checkAndPut" => {
                self.check_and(a, |a| Ok(CheckAction::Put(read::put(arg(a, 6, "tput")?)?)))
            }
            "deleteSingle" => self.delete(a),
            "deleteMultiple" => self.delete_multiple(a),
            "checkAndDelete" => self.check_and(a, |a| {
                Ok(CheckAction::Delete(read::delete(arg(a, 6, "tdelete")?)?))
            }),
            "checkAndMutate" => self.check_and_mutate(a),
            "increment" => self.increment(a),
            "append" => self.append(a),
            "mutateRow" => self.mutate_row(a),
            "openScanner" => self.open_scanner(a),
            "getScannerRows" => self.scanner_rows(a),
            "closeScanner" => match a.i32(1) {
                Some(id) if self.scanners.close(id) => Ok(Reply2::Void),
                _ => Err(illegal("Invalid scanner Id")),
            },
            "getScannerResults" => self.scanner_results(a),
            "getRegionLocation" => self.region_location(a),
            "getAllRegionLocations" => self.all_region_locations(a),
            "getThriftServerType" => Ok(Reply2::I32(2)),
            "getSlowLogResponses" => self.slow_log(a),
            "clearSlowLogResponses" => self.clear_slow_log(a),
            "grant" | "revoke" => self.access_control(a, name == "grant"),
            "getUserPermission" => self.user_permissions(a),
            _ => return self.admin(name, a),
        })
    }

    /// The table and data-definition methods.
    fn admin(&self, name: &str, a: &Fields) -> Option<Outcome2> {
        let conn = self.conn.as_ref();
        let table = || read::table_name(arg(a, 1, "tableName")?);
        let void = |r: basalt_client::Result<()>| r.map(|_| Reply2::Void).map_err(Failure2::from);
        Some(match name {
            "getTableDescriptor" => {
                table().and_then(|t| Ok(Reply2::Table(conn.describe_table(&t)?)))
            }
            "getTableDescriptors" => structs(a, 1)
                .map(|t| Ok(conn.describe_table(&read::table_name(t)?)?))
                .collect::<Result<Vec<_>, Failure2>>()
                .map(Reply2::Tables),
            "tableExists" => table().and_then(|t| Ok(Reply2::Bool(conn.table_exists(&t)?))),
            "getTableDescriptorsByPattern" => self.tables_matching(a).and_then(|names| {
                let descs = names
                    .iter()
                    .map(|t| conn.describe_table(t))
                    .collect::<basalt_client::Result<Vec<_>>>()?;
                Ok(Reply2::Tables(descs))
            }),
            "getTableNamesByPattern" => self.tables_matching(a).map(Reply2::TableNames),
            "getTableDescriptorsByNamespace" => self.tables_in(a).and_then(|names| {
                let descs = names
                    .iter()
                    .map(|t| conn.describe_table(t))
                    .collect::<basalt_client::Result<Vec<_>>>()?;
                Ok(Reply2::Tables(descs))
            }),
            "getTableNamesByNamespace" => self.tables_in(a).map(Reply2::TableNames),
            "createTable" => self.create_table(a),
            "deleteTable" => table().and_then(|t| void(conn.delete_table(&t))),
            "truncateTable" => {
                table().and_then(|t| void(conn.truncate_table(&t, a.bool(2).unwrap_or(false))))
            }
            "enableTable" => table().and_then(|t| void(conn.enable_table(&t))),
            "disableTable" => table().and_then(|t| void(conn.disable_table(&t))),
            "isTableEnabled" => table().and_then(|t| Ok(Reply2::Bool(conn.is_table_enabled(&t)?))),
            "isTableDisabled" => {
                table().and_then(|t| Ok(Reply2::Bool(!conn.is_table_enabled(&t)?)))
            }
            "isTableAvailable" => table().and_then(|t| Ok(Reply2::Bool(self.available(&t, None)?))),
            "isTableAvailableWithSplit" => table().and_then(|t| {
                let splits = read::binaries(a, 2);
                let splits = a.get(2).is_some().then_some(&splits[..]);
                Ok(Reply2::Bool(self.available(&t, splits)?))
            }),
            "addColumnFamily" | "modifyColumnFamily" => table().and_then(|t| {
                let family = read::family(arg(a, 2, "column")?)?;
                let mut desc = conn.describe_table(&t)?;
                let present = desc.family(&family.name).is_some();
                if present == (name == "addColumnFamily") {
                    return Err(basalt_client::Error::InvalidArgument(format!(
                        "Column family '{}' {} in table '{t}'",
                        String::from_utf8_lossy(&family.name),
                        if present {
                            "already exists"
                        } else {
                            "does not exist"
                        }
                    ))
                    .into());
                }
                desc.remove_family(&family.name);
                desc.add_family(family);
                void(conn.modify_table(desc))
            }),
            "deleteColumnFamily" => table().and_then(|t| {
                let family = required(a, 2, "column")?;
                let mut desc = conn.describe_table(&t)?;
                if desc.remove_family(family).is_none() {
                    return Err(basalt_client::Error::NoSuchColumnFamily {
                        table: t,
                        family: basalt_client::BinaryDisplay::new(family),
                    }
                    .into());
                }
                void(conn.modify_table(desc))
            }),
            "modifyTable" => arg(a, 1, "desc")
                .and_then(read::table_descriptor)
                .and_then(|d| void(conn.modify_table(d))),
            "createNamespace" => arg(a, 1, "namespaceDesc")
                .and_then(read::namespace)
                .and_then(|ns| void(conn.create_namespace(ns))),
            "modifyNamespace" => arg(a, 1, "namespaceDesc")
                .and_then(read::namespace)
                .and_then(|ns| void(conn.modify_namespace(ns))),
            "deleteNamespace" => {
                string_arg(a, 1, "name").and_then(|n| void(conn.delete_namespace(n)))
            }
            "getNamespaceDescriptor" => {
                string_arg(a, 1, "name").and_then(|n| Ok(Reply2::Namespace(conn.namespace(n)?)))
            }
            "listNamespaceDescriptors" => conn
                .namespaces()
                .map(Reply2::Namespaces)
                .map_err(Failure2::from),
            "listNamespaces" => conn
                .namespaces()
                .map(|ns| Reply2::Strings(ns.into_iter().map(|n| n.name).collect()))
                .map_err(Failure2::from),
            _ => return None,
        })
    }

    fn exists(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let (get, _) = read::get(arg(a, 2, "tget")?)?;
        Ok(Reply2::Bool(!self.conn.get(&table, &get)?.is_empty()))
    }

    /// The TGets of argument 2, as one batch.
    fn gets(&self, a: &Fields) -> Result<(Vec<RowResult>, Vec<bool>), Failure2> {
        let table = read::table_arg(a, 1)?;
        let mut ops = Vec::new();
        let mut existence = Vec::new();
        for g in structs(a, 2) {
            let (get, only) = read::get(g)?;
            ops.push(BatchOp::Get(get));
            existence.push(only);
        }
        let rows = outcomes(self.conn.batch(&table, &ops))?
            .into_iter()
            .map(row_of)
            .collect();
        Ok((rows, existence))
    }

    fn exists_all(&self, a: &Fields) -> Outcome2 {
        let (rows, _) = self.gets(a)?;
        Ok(Reply2::Bools(rows.iter().map(|r| !r.is_empty()).collect()))
    }

    /// An existence-only Get answers an empty result, as HBase's thrift2 does (its Result
    /// carries the answer in `exists`, which TResult lacks): use `exists` for the answer.
    fn get(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let (get, only) = read::get(arg(a, 2, "tget")?)?;
        let row = self.conn.get(&table, &get)?;
        Ok(Reply2::Result(if only {
            RowResult::default()
        } else {
            row
        }))
    }

    fn get_multiple(&self, a: &Fields) -> Outcome2 {
        let (rows, existence) = self.gets(a)?;
        Ok(Reply2::Results(
            rows.into_iter()
                .zip(existence)
                .map(|(row, only)| if only { RowResult::default() } else { row })
                .collect(),
        ))
    }

    fn put(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let put = read::put(arg(a, 2, "tput")?)?;
        self.conn.put(&table, &put)?;
        Ok(Reply2::Void)
    }

    /// Applies the batch of argument 2 (each element read by `op`); fails with the first
    /// error, as HBase's `Table.put(List)` throws for the batch.
    fn write_batch(
        &self,
        a: &Fields,
        op: impl Fn(&Fields) -> Result<BatchOp, Failure2>,
    ) -> Result<(), Failure2> {
        let table = read::table_arg(a, 1)?;
        let ops = structs(a, 2).map(op).collect::<Result<Vec<_>, _>>()?;
        outcomes(self.conn.batch(&table, &ops))?;
        Ok(())
    }

    fn put_multiple(&self, a: &Fields) -> Outcome2 {
        self.write_batch(a, |p| Ok(BatchOp::Put(read::put(p)?)))?;
        Ok(Reply2::Void)
    }

    fn delete(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let delete = read::delete(arg(a, 2, "tdelete")?)?;
        self.conn.delete(&table, &delete)?;
        Ok(Reply2::Void)
    }

    fn delete_multiple(&self, a: &Fields) -> Outcome2 {
        self.write_batch(a, |d| Ok(BatchOp::Delete(read::delete(d)?)))?;
        Ok(Reply2::NoDeletes)
    }

    /// checkAndPut / checkAndDelete (table 1, row 2, family 3, qualifier 4, value 5, action
    /// 6): no expected value checks that the column is absent.
    fn check_and(
        &self,
        a: &Fields,
        action: impl FnOnce(&Fields) -> Result<CheckAction, Failure2>,
    ) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let row = Bytes::copy_from_slice(required(a, 2, "row")?);
        let family = Bytes::copy_from_slice(required(a, 3, "family")?);
        let qualifier = Bytes::copy_from_slice(required(a, 4, "qualifier")?);
        let condition = match a.binary(5) {
            Some(v) => Condition::equals(family, qualifier, Bytes::copy_from_slice(v)),
            None => Condition::not_exists(family, qualifier),
        };
        let cam = CheckAndMutate::new(row, condition, action(a)?);
        Ok(Reply2::Bool(
            self.conn.check_and_mutate(&table, &cam)?.success,
        ))
    }

    /// checkAndMutate (table 1, row 2, family 3, qualifier 4, compareOperator 5, value 6,
    /// rowMutations 7).
    fn check_and_mutate(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let row = Bytes::copy_from_slice(required(a, 2, "row")?);
        let family = Bytes::copy_from_slice(required(a, 3, "family")?);
        let qualifier = Bytes::copy_from_slice(required(a, 4, "qualifier")?);
        let op = read::compare_operator(a.i32(5))?;
        // No value: the column must be absent (HBase's ifNotExists), whatever the operator.
        let condition = match a.binary(6) {
            Some(v) => Condition::matches(family, qualifier, op, Bytes::copy_from_slice(v)),
            None => Condition::not_exists(family, qualifier),
        };
        let mutations = read::row_mutations(arg(a, 7, "rowMutations")?)?;
        let cam = CheckAndMutate::new(row, condition, CheckAction::RowMutations(mutations));
        Ok(Reply2::Bool(
            self.conn.check_and_mutate(&table, &cam)?.success,
        ))
    }

    fn increment(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let (inc, results) = read::increment(arg(a, 2, "tincrement")?)?;
        let row = self.conn.increment(&table, &inc)?;
        Ok(Reply2::Result(if results {
            row
        } else {
            RowResult::default()
        }))
    }

    fn append(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let (append, results) = read::append(arg(a, 2, "tappend")?)?;
        let row = self.conn.append(&table, &append)?;
        Ok(Reply2::Result(if results {
            row
        } else {
            RowResult::default()
        }))
    }

    fn mutate_row(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let m = read::row_mutations(arg(a, 2, "trowMutations")?)?;
        outcomes(self.conn.batch(&table, &[BatchOp::RowMutations(m)]))?;
        Ok(Reply2::Void)
    }

    fn open_scanner(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let scan = read::scan(arg(a, 2, "tscan")?)?;
        let scanner = Arc::clone(&self.conn).scan(&table, &scan)?;
        Ok(Reply2::I32(self.scanners.add(scanner, false)))
    }

    /// The `numRows` argument (default 1); negative is none.
    fn num_rows(a: &Fields, id: i16) -> usize {
        usize::try_from(a.i32(id).unwrap_or(1)).unwrap_or(0)
    }

    fn scanner_rows(&self, a: &Fields) -> Outcome2 {
        let id = a.i32(1).ok_or_else(|| illegal("Invalid scanner Id"))?;
        match self.scanners.next(id, Self::num_rows(a, 2)) {
            None => Err(illegal("Invalid scanner Id")),
            Some(Err(e)) => Err(e.into()),
            Some(Ok((rows, _))) => Ok(Reply2::Results(rows)),
        }
    }

    /// Opens a scanner, reads up to numRows (argument 3) and closes it.
    fn scanner_results(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let scan = read::scan(arg(a, 2, "tscan")?)?;
        let n = Self::num_rows(a, 3);
        let limit = scan.limit.map_or(n, |l| l.min(n)).max(1);
        let scanner = Arc::clone(&self.conn).scan(&table, &scan.with_limit(limit))?;
        let rows = scanner.take(n).collect::<basalt_client::Result<Vec<_>>>()?;
        Ok(Reply2::Results(rows))
    }

    /// The table's regions, each with its server (this gateway's own for an embedded engine).
    fn located_regions(&self, table: &TableName) -> Result<Vec<RegionSummary>, Failure2> {
        let mut regions = self.conn.regions(table)?;
        for r in &mut regions {
            if r.server.is_none() {
                r.server = Some(format!("{}:{}", self.host, self.port));
            }
        }
        Ok(regions)
    }

    /// getRegionLocation (table 1, row 2, reload 3): the gateway keeps no location cache, so
    /// every call reads meta and `reload` changes nothing.
    fn region_location(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        let row = required(a, 2, "row")?;
        let region = self
            .located_regions(&table)?
            .into_iter()
            .find(|r| r.start_key[..] <= *row && (r.end_key.is_empty() || *row < r.end_key[..]))
            .ok_or_else(|| Failure2::Io {
                message: format!("NoServerForRegionException: no region of {table} holds that row"),
                can_retry: true,
            })?;
        Ok(Reply2::Location(region, table))
    }

    fn all_region_locations(&self, a: &Fields) -> Outcome2 {
        let table = read::table_arg(a, 1)?;
        Ok(Reply2::Locations(self.located_regions(&table)?, table))
    }

    /// HBase's `isTableAvailable`: enabled with every region served; with split keys (the
    /// deprecated form), also exactly the regions those keys make.
    fn available(&self, t: &TableName, splits: Option<&[Bytes]>) -> Result<bool, Failure2> {
        if !self.conn.table_exists(t)? || !self.conn.is_table_enabled(t)? {
            return Ok(false);
        }
        let regions = self.conn.regions(t)?;
        Ok(match splits {
            None => !regions.is_empty(),
            Some(keys) => {
                let starts: Vec<&Bytes> = regions.iter().skip(1).map(|r| &r.start_key).collect();
                let mut keys: Vec<&Bytes> = keys.iter().collect();
                keys.sort();
                keys.dedup();
                starts == keys
            }
        })
    }

    /// createTable (desc 1, splitKeys 2).
    fn create_table(&self, a: &Fields) -> Outcome2 {
        let desc: TableDescriptor = read::table_descriptor(arg(a, 1, "desc")?)?;
        let splits = read::binaries(a, 2);
        self.conn.create_table(desc, &splits)?;
        Ok(Reply2::Void)
    }

    /// The tables whose `ns:table` name matches `regex` (argument 1, absent: every table),
    /// system tables too when `includeSysTables` (argument 2).
    fn tables_matching(&self, a: &Fields) -> Result<Vec<TableName>, Failure2> {
        let pattern = match a.binary(1) {
            Some(r) => Some(whole_match(utf8(r, "regex")?)?),
            None => None,
        };
        let mut names = self.conn.table_names()?;
        if a.bool(2).unwrap_or(false) {
            for system in SYSTEM_TABLES {
                let t = TableName::parse(system)?;
                if self.conn.table_exists(&t)? {
                    names.push(t);
                }
            }
        }
        names.retain(|t| {
            pattern.as_ref().is_none_or(|p| {
                // HBase matches the name as written: `t` in default, `ns:t` elsewhere.
                p.is_match(&t.to_string())
            })
        });
        names.sort();
        Ok(names)
    }

    /// The tables of the namespace in argument 1 (which must exist).
    fn tables_in(&self, a: &Fields) -> Result<Vec<TableName>, Failure2> {
        let ns = string_arg(a, 1, "name")?;
        self.conn.namespace(ns)?;
        let mut names: Vec<TableName> = self
            .conn
            .table_names()?
            .into_iter()
            .filter(|t| t.namespace() == ns)
            .collect();
        if ns == "hbase" {
            for system in SYSTEM_TABLES {
                let t = TableName::parse(system)?;
                if self.conn.table_exists(&t)? {
                    names.push(t);
                }
            }
        }
        names.sort();
        Ok(names)
    }

    /// The servers of a `set<TServerName>` argument: `host,port,startcode` with a start code
    /// (that instance of the server only), `host:port` without.
    fn servers(a: &Fields) -> Result<Vec<String>, Failure2> {
        structs(a, 1)
            .map(|s| {
                let host = utf8(
                    required(s, 1, "TServerName.hostName")?,
                    "TServerName.hostName",
                )?;
                let port = s
                    .i32(2)
                    .ok_or_else(|| illegal("TServerName.port is required"))?;
                Ok(match s.i64(3) {
                    Some(code) => format!("{host},{port},{code}"),
                    None => format!("{host}:{port}"),
                })
            })
            .collect()
    }

    /// getSlowLogResponses (serverNames 1, logQueryFilter 2: regionName 1, clientAddress 2,
    /// tableName 3, userName 4, limit 5 = 10, logType 6 (SLOW_LOG 1, LARGE_LOG 2),
    /// filterByOperator 7 (AND 0, OR 1; default OR)).
    fn slow_log(&self, a: &Fields) -> Outcome2 {
        let servers = Self::servers(a)?;
        let f = a.strukt(2).cloned().unwrap_or_default();
        let text = |id: i16, field: &str| -> Result<Option<String>, Failure2> {
            f.binary(id)
                .map(|v| utf8(v, field).map(str::to_owned))
                .transpose()
        };
        let large = match f.i32(6).unwrap_or(1) {
            1 => false,
            2 => true,
            other => {
                return Err(illegal(format!(
                    "TLogQueryFilter.logType {other} is not a TLogType (1 SLOW_LOG, 2 LARGE_LOG)"
                )));
            }
        };
        let and = match f.i32(7).unwrap_or(1) {
            0 => true,
            1 => false,
            other => {
                return Err(illegal(format!(
                    "TLogQueryFilter.filterByOperator {other} is not a TFilterByOperator (0 AND, 1 OR)"
                )));
            }
        };
        let filter = SlowLogFilter {
            region: text(1, "TLogQueryFilter.regionName")?,
            client_address: text(2, "TLogQueryFilter.clientAddress")?,
            table: text(3, "TLogQueryFilter.tableName")?,
            user: text(4, "TLogQueryFilter.userName")?,
            and,
            large,
            limit: usize::try_from(f.i32(5).unwrap_or(10)).unwrap_or(0),
        };
        Ok(Reply2::SlowLog(self.conn.slow_log(&servers, &filter)?))
    }

    /// clearSlowLogResponses (serverNames 1): one answer per server (every live server when
    /// none is named).
    fn clear_slow_log(&self, a: &Fields) -> Outcome2 {
        let servers = Self::servers(a)?;
        if servers.is_empty() {
            let (cleared, of) = self.conn.clear_slow_log(&[])?;
            return Ok(Reply2::Bools((0..of).map(|i| i < cleared).collect()));
        }
        let mut answers = Vec::with_capacity(servers.len());
        for server in servers {
            let (cleared, _) = self.conn.clear_slow_log(std::slice::from_ref(&server))?;
            answers.push(cleared == 1);
        }
        Ok(Reply2::Bools(answers))
    }

    /// grant / revoke (info 1: TAccessControlEntity {username 1, scope 2 (TABLE 0,
    /// NAMESPACE 1), actions 3, tableName 4, nsName 5}). Answers true.
    fn access_control(&self, a: &Fields, grant: bool) -> Outcome2 {
        let info = arg(a, 1, "info")?;
        let user = utf8(
            required(info, 1, "TAccessControlEntity.username")?,
            "TAccessControlEntity.username",
        )?;
        let scope = match info.i32(2) {
            Some(0) => Scope::table(&read::table_name(required_struct(
                info,
                4,
                "TAccessControlEntity.tableName",
            )?)?),
            Some(1) => Scope::Namespace(
                utf8(
                    required(info, 5, "TAccessControlEntity.nsName")?,
                    "TAccessControlEntity.nsName",
                )?
                .to_owned(),
            ),
            other => {
                return Err(illegal(format!(
                    "TAccessControlEntity.scope {other:?} is not a TPermissionScope (0 TABLE, 1 NAMESPACE)"
                )));
            }
        };
        if grant {
            let actions = utf8(
                required(info, 3, "TAccessControlEntity.actions")?,
                "TAccessControlEntity.actions",
            )?;
            let permission = Permission {
                principal: user.to_owned(),
                scope,
                actions: Actions::parse(actions)?,
            };
            self.conn.grant(&permission, false)?;
        } else {
            self.conn.revoke(user, &scope)?;
        }
        Ok(Reply2::Bool(true))
    }

    /// getUserPermission (tableOrNsName 1, scope 2): each principal's actions at that table
    /// or namespace, as `user -> RWXCA codes`.
    fn user_permissions(&self, a: &Fields) -> Outcome2 {
        let name = string_arg(a, 1, "tableOrNsName")?;
        let scope = match a.i32(2) {
            Some(0) => Scope::table(&TableName::parse(name)?),
            Some(1) => Scope::Namespace(name.to_owned()),
            other => {
                return Err(illegal(format!(
                    "scope {other:?} is not a TPermissionScope (0 TABLE, 1 NAMESPACE)"
                )));
            }
        };
        let grants = self.conn.user_permissions(&scope)?;
        Ok(Reply2::StringMap(
            grants
                .into_iter()
                .filter(|p| p.scope == scope)
                .map(|p| (p.principal, p.actions.to_string()))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{Protocol, Reader, Value};

    fn fields(pairs: Vec<(i16, Value)>) -> Fields {
        Fields(pairs)
    }

    fn bin(v: &[u8]) -> Value {
        Value::Binary(v.to_vec())
    }

    #[test]
    fn unsupported_fields_are_refused_by_name() {
        let tget = fields(vec![(1, bin(b"r")), (12, Value::I32(2))]);
        let err = read::get(&tget).expect_err("storeLimit");
        let Failure2::Io { message, can_retry } = err else {
            panic!("{err:?}")
        };
        assert!(message.contains("TGet.storeLimit"), "{message}");
        assert!(!can_retry);

        let attrs = Value::Map(vec![(bin(b"owner"), bin(b"x"))]);
        let tput = fields(vec![
            (1, bin(b"r")),
            (
                2,
                Value::List(vec![Value::Struct(fields(vec![
                    (1, bin(b"f")),
                    (2, bin(b"q")),
                    (3, bin(b"v")),
                ]))]),
            ),
            (5, attrs),
        ]);
        let err = read::put(&tput).expect_err("attribute");
        assert!(
            format!("{err:?}").contains("TPut.attributes[owner]"),
            "{err:?}"
        );
    }

    #[test]
    fn a_delete_family_version_needs_a_timestamp() {
        let tdelete = fields(vec![
            (1, bin(b"r")),
            (
                2,
                Value::List(vec![Value::Struct(fields(vec![
                    (1, bin(b"f")),
                    (2, bin(b"q")),
                ]))]),
            ),
            (4, Value::I32(3)),
        ]);
        let err = read::delete(&tdelete).expect_err("no timestamp");
        assert_eq!(
            err,
            Failure2::IllegalArgument(
                "Timestamp is required for TDelete with DeleteFamilyVersion type".into()
            )
        );
    }

    #[test]
    fn an_illegal_argument_is_field_2_only_where_declared() {
        for (declared, field) in [(true, 2), (false, 1)] {
            let mut w = Writer::new(Protocol::Binary);
            w.struct_begin();
            Failure2::IllegalArgument("Invalid scanner Id".into()).write(&mut w, declared);
            w.struct_end();
            let mut r = Reader::new(&w.buf[..], Protocol::Binary, 1 << 20);
            let result = r.read_struct().expect("decodes");
            let exception = result.strukt(field).expect("the declared field");
            assert_eq!(exception.binary(1), Some(&b"Invalid scanner Id"[..]));
        }
    }
}
