//! Tables of a remote server, over the native RPC: the data half of issue 10's remote client.
//! [`RemoteConnection`] finds a table's regions in `hbase:meta` and caches them; each
//! [`RemoteTable`] call goes to the region holding its row, and is retried with backoff (the
//! region cache dropped first) when the server answers that the region moved, is not served,
//! or is busy, or when the connection breaks, until the operation timeout. Calls take and
//! return `basalt_client`'s types (Get, Put, Delete, Scan, Increment, Append, RowMutations,
//! CheckAndMutate, RowResult), so the same code runs embedded or remote; `Connection` is to
//! grow a remote mode on top of it. Filters travel in HBase's protobuf form.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_client::{
    Append, BatchOp, BatchOutcome, Bytes, Cell, CellType, Check, CheckAction, CheckAndMutate,
    CheckAndMutateResult, ColumnFamilyDescriptor, Comparator, Delete, Durability, Error, Get,
    Increment, Mutation, NamespaceDescriptor, Put, Result, RowMutations, RowResult, Scan,
    TableDescriptor, TableName, TimeRange,
};

use crate::client::{Location, RpcClient, RpcError, locate, region};
use crate::filters::{comparator_pb, compare_type, filter_pb};
use crate::master_service::{
    descriptor, namespace, namespace_descriptor, pb_table_name, schema, table_name,
};
use crate::pb::{
    self, GetRequest, GetResponse, MultiRequest, MultiResponse, MutateRequest, MutateResponse,
    MutationProto, ScanRequest, ScanResponse, mutation_proto,
};

/// Timeouts and backoff of a [`RemoteConnection`].
#[derive(Debug, Clone)]
pub struct RemoteConfig {
    /// How long one operation may take, retries included (HBase's
    /// `hbase.client.operation.timeout`).
    pub operation_timeout: Duration,
    /// How long one call may wait for its answer (HBase's `hbase.rpc.timeout`).
    pub rpc_timeout: Duration,
    /// The first pause between retries, doubled each time up to `max_pause` (HBase's
    /// `hbase.client.pause`).
    pub pause: Duration,
    pub max_pause: Duration,
}

impl Default for RemoteConfig {
    fn default() -> Self {
        RemoteConfig {
            operation_timeout: Duration::from_secs(60),
            rpc_timeout: Duration::from_secs(60),
            pause: Duration::from_millis(100),
            max_pause: Duration::from_secs(2),
        }
    }
}

/// A connection to one server's ClientService, with its region cache.
#[derive(Debug)]
pub struct RemoteConnection {
    addr: SocketAddr,
    config: RemoteConfig,
    /// None after a broken call; the next call connects again.
    client: Mutex<Option<RpcClient>>,
    /// MasterService and AdminService, opened on first use.
    master: Mutex<Option<RpcClient>>,
    region_admin: Mutex<Option<RpcClient>>,
    regions: Mutex<HashMap<TableName, Arc<Vec<Location>>>>,
}

/// What a failed call means for the operation.
enum Failure {
    /// Try again after dropping cached locations (and the socket, if `broken`).
    Retry {
        reason: String,
        broken: bool,
    },
    Fatal(Error),
}

/// HBase's exception classes a client retries after relocating the region.
fn retriable(class: &str) -> bool {
    [
        "NotServingRegionException",
        "RegionMovedException",
        "RegionTooBusyException",
        "RegionOpeningException",
        "ServerNotRunningYetException",
        "CallQueueTooBigException",
    ]
    .iter()
    .any(|c| class.ends_with(c))
}

/// Basalt's error for a server's exception, by its Java class.
fn remote_error(table: &TableName, class: &str, message: String) -> Error {
    let short = class.rsplit('.').next().unwrap_or(class);
    match short {
        "TableNotFoundException" => Error::TableNotFound(table.clone()),
        "TableNotEnabledException" => Error::TableNotEnabled(table.clone()),
        "NoSuchColumnFamilyException" => {
            let family = message
                .split("Column family ")
                .nth(1)
                .and_then(|rest| rest.split(" does not exist").next())
                .unwrap_or_default();
            Error::NoSuchColumnFamily {
                table: table.clone(),
                family: basalt_client::BinaryDisplay::new(family.as_bytes()),
            }
        }
        "TableExistsException" => Error::TableExists(table.clone()),
        "TableNotDisabledException" => Error::TableNotDisabled(table.clone()),
        "NamespaceNotFoundException" => Error::NamespaceNotFound(message),
        "NamespaceExistException" => Error::NamespaceExists(message),
        "DoNotRetryIOException" | "IllegalArgumentException" => Error::InvalidArgument(message),
        "ConstraintException" => Error::Refused(message),
        _ => Error::Storage(format!("{class}: {message}")),
    }
}

fn classify(table: &TableName, e: RpcError) -> Failure {
    match e {
        RpcError::Remote { class, message } if retriable(&class) => Failure::Retry {
            reason: format!("{class}: {message}"),
            broken: false,
        },
        RpcError::Remote { class, message } => Failure::Fatal(remote_error(table, &class, message)),
        RpcError::Frame(f) => Failure::Retry {
            reason: f.to_string(),
            broken: true,
        },
        RpcError::Decode(d) => Failure::Fatal(Error::Corrupt(format!("a response: {d}"))),
    }
}

impl RemoteConnection {
    /// Connects to a server's RPC port (`basalt standalone --rpc-port`).
    pub fn connect(addr: SocketAddr, config: RemoteConfig) -> Result<RemoteConnection> {
        let client = Self::open(addr, &config)
            .map_err(|e| Error::Storage(format!("cannot connect to {addr}: {e}")))?;
        Ok(RemoteConnection {
            addr,
            config,
            client: Mutex::new(Some(client)),
            master: Mutex::new(None),
            region_admin: Mutex::new(None),
            regions: Mutex::new(HashMap::new()),
        })
    }

    /// Finds the server through ZooKeeper (`host:port` of the quorum), as HBase's clients do:
    /// `/hbase/meta-region-server` names it.
    pub fn through_zookeeper(quorum: &str, config: RemoteConfig) -> Result<RemoteConnection> {
        let addr = crate::zk::meta_server(quorum, config.rpc_timeout)
            .map_err(|e| Error::Storage(format!("finding the server in ZooKeeper: {e}")))?;
        Self::connect(addr, config)
    }

    fn open(addr: SocketAddr, config: &RemoteConfig) -> std::io::Result<RpcClient> {
        Self::open_service(addr, config, "ClientService")
    }

    fn open_service(
        addr: SocketAddr,
        config: &RemoteConfig,
        service: &str,
    ) -> std::io::Result<RpcClient> {
        let client = RpcClient::connect(addr, service)?;
        client.set_timeout(Some(config.rpc_timeout))?;
        Ok(client)
    }

    /// Table administration over MasterService (and AdminService for flushes).
    pub fn admin(&self) -> RemoteAdmin<'_> {
        RemoteAdmin { conn: self }
    }

    /// A table of the server (`ns:table` or `table`). Nothing is asked of the server until
    /// the first call; a table that does not exist fails then.
    pub fn table(&self, name: &str) -> Result<RemoteTable<'_>> {
        Ok(RemoteTable {
            conn: self,
            name: TableName::parse(name)?,
        })
    }

    /// One call on the shared connection, opened again if an earlier call broke it.
    fn call<Q: prost::Message, R: prost::Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> std::result::Result<R, RpcError> {
        self.call_on(&self.client, "ClientService", method, request)
    }

    /// One call on the connection to `service` kept in `slot`.
    fn call_on<Q: prost::Message, R: prost::Message + Default>(
        &self,
        slot: &Mutex<Option<RpcClient>>,
        service: &str,
        method: &str,
        request: &Q,
    ) -> std::result::Result<R, RpcError> {
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(Self::open_service(self.addr, &self.config, service)?);
        }
        let Some(client) = slot.as_mut() else {
            unreachable!("the slot was filled above")
        };
        let out = client.call(method, request);
        if matches!(out, Err(RpcError::Frame(_))) {
            // The stream may hold half a frame: start again on a new socket.
            *slot = None;
        }
        out
    }

    /// The table's regions, from the cache or from `hbase:meta`.
    fn locations(&self, table: &TableName) -> std::result::Result<Arc<Vec<Location>>, Failure> {
        if let Some(l) = self
            .regions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(table)
        {
            return Ok(Arc::clone(l));
        }
        let found = {
            let mut slot = self.client.lock().unwrap_or_else(PoisonError::into_inner);
            if slot.is_none() {
                *slot = Some(
                    Self::open(self.addr, &self.config).map_err(|e| Failure::Retry {
                        reason: e.to_string(),
                        broken: true,
                    })?,
                );
            }
            let Some(client) = slot.as_mut() else {
                unreachable!("the slot was filled above")
            };
            client
                .regions(&table.to_string())
                .map_err(|e| classify(table, e))?
        };
        if found.is_empty() {
            // No region serves: the table is missing or disabled (HBase's clients then say
            // TableNotFound / TableNotEnabled), or its regions are moving.
            let state: std::result::Result<pb::GetTableStateResponse, RpcError> = self.call_on(
                &self.master,
                "MasterService",
                "GetTableState",
                &pb::GetTableStateRequest {
                    table_name: pb_table_name(table),
                },
            );
            return Err(match state {
                Ok(s) if s.table_state.state == pb::table_state::State::Enabled as i32 => {
                    Failure::Retry {
                        reason: format!("no region of {table} is open"),
                        broken: false,
                    }
                }
                Ok(_) => Failure::Fatal(Error::TableNotEnabled(table.clone())),
                Err(e) => classify(table, e),
            });
        }
        let found = Arc::new(found);
        self.regions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(table.clone(), Arc::clone(&found));
        Ok(found)
    }

    fn forget(&self, table: &TableName) {
        self.regions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(table);
    }

    /// Runs `attempt` against the table's regions until it succeeds, fails for good, or the
    /// operation timeout passes; between tries the cache is dropped and the pause doubles.
    fn retrying<T>(
        &self,
        table: &TableName,
        mut attempt: impl FnMut(&[Location]) -> std::result::Result<T, Failure>,
    ) -> Result<T> {
        let started = Instant::now();
        let mut pause = self.config.pause;
        loop {
            let outcome = self.locations(table).and_then(|regions| attempt(&regions));
            match outcome {
                Ok(v) => return Ok(v),
                Err(Failure::Fatal(e)) => return Err(e),
                Err(Failure::Retry { reason, broken }) => {
                    self.forget(table);
                    if broken {
                        *self.client.lock().unwrap_or_else(PoisonError::into_inner) = None;
                    }
                    if started.elapsed() + pause > self.config.operation_timeout {
                        return Err(Error::NotServingRegion(format!(
                            "{table} (gave up after {:.1?}: {reason})",
                            started.elapsed()
                        )));
                    }
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(self.config.max_pause);
                }
            }
        }
    }
}

/// One table of a [`RemoteConnection`].
#[derive(Debug)]
pub struct RemoteTable<'c> {
    conn: &'c RemoteConnection,
    name: TableName,
}

fn row_region<'a>(regions: &'a [Location], row: &[u8]) -> std::result::Result<&'a [u8], Failure> {
    locate(regions, row)
        .map(|l| l.name.as_slice())
        .ok_or_else(|| Failure::Retry {
            reason: "no cached region holds the row".into(),
            broken: false,
        })
}

/// The region a reversed scan reads first from `from` down: the one holding `from` if it is
/// included, else the one holding the rows just below it; the last region for an empty `from`.
fn locate_below<'a>(regions: &'a [Location], from: &[u8], inclusive: bool) -> Option<&'a Location> {
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

fn pb_durability(d: Durability) -> i32 {
    use mutation_proto::Durability as D;
    (match d {
        Durability::UseDefault => D::UseDefault,
        Durability::SkipWal => D::SkipWal,
        Durability::AsyncWal => D::AsyncWal,
        Durability::SyncWal => D::SyncWal,
        Durability::FsyncWal => D::FsyncWal,
    }) as i32
}

fn pb_time_range(t: &TimeRange) -> Option<pb::TimeRange> {
    (*t != TimeRange::ALL).then(|| pb::TimeRange {
        from: u64::try_from(t.min).ok(),
        to: u64::try_from(t.max).ok(),
    })
}

fn pb_columns(families: &basalt_client::FamilyMap) -> Vec<pb::Column> {
    families
        .iter()
        .map(|(family, qualifiers)| pb::Column {
            family: family.to_vec(),
            qualifier: qualifiers.iter().flatten().map(|q| q.to_vec()).collect(),
        })
        .collect()
}

fn cell_type(t: Option<i32>) -> CellType {
    match t.and_then(|t| pb::CellType::try_from(t).ok()) {
        Some(pb::CellType::Delete) => CellType::Delete,
        Some(pb::CellType::DeleteFamilyVersion) => CellType::DeleteFamilyVersion,
        Some(pb::CellType::DeleteColumn) => CellType::DeleteColumn,
        Some(pb::CellType::DeleteFamily) => CellType::DeleteFamily,
        _ => CellType::Put,
    }
}

fn row_result(r: pb::Result) -> RowResult {
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
fn mutation(
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
            .filter(|&t| t != basalt_client::LATEST_TIMESTAMP)
            .and_then(|t| u64::try_from(t).ok()),
        durability: Some(pb_durability(durability)),
        ..MutationProto::default()
    }
}

fn get_pb(get: &Get) -> pb::Get {
    pb::Get {
        row: get.row.to_vec(),
        column: pb_columns(&get.families),
        time_range: pb_time_range(&get.time_range),
        max_versions: Some(get.max_versions),
        cache_blocks: Some(get.cache_blocks),
        filter: get.filter.as_ref().map(filter_pb),
        ..pb::Get::default()
    }
}

/// A Get's row as read: the row key even when no cell came back, as embedded reads say.
fn got(get: &Get, result: pb::Result) -> RowResult {
    let mut r = row_result(result);
    if r.cells.is_empty() {
        r.row = get.row.clone();
    }
    r
}

fn put_pb(put: &Put) -> MutationProto {
    mutation(
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
    )
}

fn delete_pb(delete: &Delete) -> MutationProto {
    use mutation_proto::DeleteType as D;
    mutation(
        &delete.row,
        mutation_proto::MutationType::Delete,
        Some(delete.timestamp),
        delete.durability,
        delete.entries.iter().map(|e| {
            let kind = match e.kind {
                CellType::Delete => D::DeleteOneVersion,
                CellType::DeleteFamily => D::DeleteFamily,
                CellType::DeleteFamilyVersion => D::DeleteFamilyVersion,
                _ => D::DeleteMultipleVersions,
            };
            (
                e.family.clone(),
                e.qualifier.clone(),
                Vec::new(),
                e.timestamp,
                Some(kind as i32),
            )
        }),
    )
}

fn increment_pb(inc: &Increment) -> MutationProto {
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
    m
}

fn append_pb(append: &Append) -> MutationProto {
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
    m
}

/// A check as HBase's Condition: a column against a BinaryComparator (NullComparator for
/// "absent"), or a filter.
fn condition_pb(row: &Bytes, check: &Check) -> pb::Condition {
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

impl RemoteTable<'_> {
    pub fn name(&self) -> &TableName {
        &self.name
    }

    /// One Mutate call (under `condition` if given): the result it returns and, with a
    /// condition, whether it was applied.
    fn mutate(
        &self,
        row: &Bytes,
        m: &MutationProto,
        condition: Option<pb::Condition>,
    ) -> Result<(Option<RowResult>, Option<bool>)> {
        let name = &self.name;
        self.conn.retrying(name, |regions| {
            let response: MutateResponse = self
                .conn
                .call(
                    "Mutate",
                    &MutateRequest {
                        region: region(row_region(regions, row)?),
                        mutation: m.clone(),
                        condition: condition.clone(),
                        ..MutateRequest::default()
                    },
                )
                .map_err(|e| classify(name, e))?;
            Ok((response.result.map(row_result), response.processed))
        })
    }

    pub fn put(&self, put: &Put) -> Result<()> {
        self.mutate(&put.row, &put_pb(put), None).map(|_| ())
    }

    pub fn delete(&self, delete: &Delete) -> Result<()> {
        self.mutate(&delete.row, &delete_pb(delete), None)
            .map(|_| ())
    }

    pub fn increment(&self, inc: &Increment) -> Result<RowResult> {
        Ok(self
            .mutate(&inc.row, &increment_pb(inc), None)?
            .0
            .unwrap_or_default())
    }

    pub fn append(&self, append: &Append) -> Result<RowResult> {
        Ok(self
            .mutate(&append.row, &append_pb(append), None)?
            .0
            .unwrap_or_default())
    }

    /// Mutations of one row applied together (HBase's `mutateRow`): one atomic region action.
    pub fn mutate_row(&self, mutations: &RowMutations) -> Result<()> {
        self.atomic(mutations, None).map(|_| ())
    }

    /// A mutation applied only if the condition holds, atomically (HBase's `checkAndMutate`).
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let condition = condition_pb(&cam.row, &cam.check);
        let (result, success) = match &cam.action {
            CheckAction::RowMutations(rm) => (None, self.atomic(rm, Some(condition))?),
            CheckAction::Put(p) => {
                let (r, done) = self.mutate(&cam.row, &put_pb(p), Some(condition))?;
                (r, done.unwrap_or(false))
            }
            CheckAction::Delete(d) => {
                let (r, done) = self.mutate(&cam.row, &delete_pb(d), Some(condition))?;
                (r, done.unwrap_or(false))
            }
            CheckAction::Increment(i) => {
                let (r, done) = self.mutate(&cam.row, &increment_pb(i), Some(condition))?;
                (r, done.unwrap_or(false))
            }
            CheckAction::Append(a) => {
                let (r, done) = self.mutate(&cam.row, &append_pb(a), Some(condition))?;
                (r, done.unwrap_or(false))
            }
        };
        Ok(CheckAndMutateResult { success, result })
    }

    /// One atomic region action holding the row's mutations, under `condition` if given;
    /// whether it was applied.
    fn atomic(&self, rm: &RowMutations, condition: Option<pb::Condition>) -> Result<bool> {
        let name = &self.name;
        let actions: Vec<pb::Action> = rm
            .mutations
            .iter()
            .zip(0u32..)
            .map(|(m, index)| pb::Action {
                index: Some(index),
                mutation: Some(match m {
                    Mutation::Put(p) => put_pb(p),
                    Mutation::Delete(d) => delete_pb(d),
                }),
                ..pb::Action::default()
            })
            .collect();
        self.conn.retrying(name, |regions| {
            let response: MultiResponse = self
                .conn
                .call(
                    "Multi",
                    &MultiRequest {
                        region_action: vec![pb::RegionAction {
                            region: region(row_region(regions, &rm.row)?),
                            atomic: Some(true),
                            action: actions.clone(),
                        }],
                        condition: condition.clone(),
                        ..MultiRequest::default()
                    },
                )
                .map_err(|e| classify(name, e))?;
            if let Some(e) = response
                .region_action_result
                .first()
                .and_then(|r| r.exception.as_ref())
            {
                let class = e.name.clone();
                let message = String::from_utf8_lossy(e.value.as_deref().unwrap_or_default());
                return Err(classify(
                    name,
                    RpcError::Remote {
                        class,
                        message: message.into_owned(),
                    },
                ));
            }
            Ok(response.processed.unwrap_or(condition.is_none()))
        })
    }

    /// Operations of any kind and rows, each on its own (HBase's `batch`: not atomic across
    /// operations), one outcome per operation in order. Gets, puts, deletes, increments and
    /// appends travel together in one Multi call, grouped by region, as HBase's client sends
    /// them; row mutations, check-and-mutates, and operations whose region failed in the Multi
    /// (moved, not served) run on their own, with the usual retries.
    pub fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        let mut out: Vec<Option<Result<BatchOutcome>>> = self.multi(ops);
        out.resize_with(ops.len(), || None);
        ops.iter()
            .zip(out)
            .map(|(op, done)| done.unwrap_or_else(|| self.one(op)))
            .collect()
    }

    fn one(&self, op: &BatchOp) -> Result<BatchOutcome> {
        match op {
            BatchOp::Get(g) => self.get(g).map(BatchOutcome::Row),
            BatchOp::Put(p) => self.put(p).map(|()| BatchOutcome::Done),
            BatchOp::Delete(d) => self.delete(d).map(|()| BatchOutcome::Done),
            BatchOp::Increment(i) => self.increment(i).map(BatchOutcome::Row),
            BatchOp::Append(a) => self.append(a).map(BatchOutcome::Row),
            BatchOp::RowMutations(m) => self.mutate_row(m).map(|()| BatchOutcome::Done),
            BatchOp::CheckAndMutate(c) => {
                self.check_and_mutate(c).map(BatchOutcome::CheckAndMutate)
            }
        }
    }

    /// The Multi part of a batch: an outcome for each operation it settled, None for the rest.
    fn multi(&self, ops: &[BatchOp]) -> Vec<Option<Result<BatchOutcome>>> {
        let mut out: Vec<Option<Result<BatchOutcome>>> = (0..ops.len()).map(|_| None).collect();
        let Ok(regions) = self.conn.locations(&self.name) else {
            return out;
        };
        let mut by_region: Vec<pb::RegionAction> = Vec::new();
        for (index, op) in ops.iter().enumerate() {
            let (row, mutation, get) = match op {
                BatchOp::Get(g) => (&g.row, None, Some(get_pb(g))),
                BatchOp::Put(p) => (&p.row, Some(put_pb(p)), None),
                BatchOp::Delete(d) => (&d.row, Some(delete_pb(d)), None),
                BatchOp::Increment(i) => (&i.row, Some(increment_pb(i)), None),
                BatchOp::Append(a) => (&a.row, Some(append_pb(a)), None),
                BatchOp::RowMutations(_) | BatchOp::CheckAndMutate(_) => continue,
            };
            let Some(location) = locate(&regions, row) else {
                continue;
            };
            let action = pb::Action {
                index: u32::try_from(index).ok(),
                mutation,
                get,
            };
            match by_region
                .iter_mut()
                .find(|ra| ra.region.value == location.name)
            {
                Some(ra) => ra.action.push(action),
                None => by_region.push(pb::RegionAction {
                    region: region(&location.name),
                    atomic: None,
                    action: vec![action],
                }),
            }
        }
        if by_region.is_empty() {
            return out;
        }
        let response: MultiResponse = match self.conn.call(
            "Multi",
            &MultiRequest {
                region_action: by_region,
                ..MultiRequest::default()
            },
        ) {
            Ok(r) => r,
            Err(_) => return out,
        };
        for result in response.region_action_result {
            // A region that failed as a whole leaves its operations to run on their own.
            if result.exception.is_some() {
                continue;
            }
            for r in result.result_or_exception {
                let Some(i) = r.index.and_then(|i| usize::try_from(i).ok()) else {
                    continue;
                };
                let Some(op) = ops.get(i) else { continue };
                out[i] = match (r.exception, r.result) {
                    (Some(e), _) => {
                        let message =
                            String::from_utf8_lossy(e.value.as_deref().unwrap_or_default())
                                .into_owned();
                        match classify(
                            &self.name,
                            RpcError::Remote {
                                class: e.name,
                                message,
                            },
                        ) {
                            Failure::Fatal(e) => Some(Err(e)),
                            Failure::Retry { .. } => None,
                        }
                    }
                    (None, result) => {
                        let result = result.unwrap_or_default();
                        Some(Ok(match op {
                            BatchOp::Get(g) => BatchOutcome::Row(got(g, result)),
                            BatchOp::Increment(_) | BatchOp::Append(_) => {
                                BatchOutcome::Row(row_result(result))
                            }
                            _ => BatchOutcome::Done,
                        }))
                    }
                };
            }
        }
        out
    }

    pub fn get(&self, get: &Get) -> Result<RowResult> {
        let name = &self.name;
        self.conn.retrying(name, |regions| {
            let response: GetResponse = self
                .conn
                .call(
                    "Get",
                    &GetRequest {
                        region: region(row_region(regions, &get.row)?),
                        get: get_pb(get),
                    },
                )
                .map_err(|e| classify(name, e))?;
            Ok(got(get, response.result.unwrap_or_default()))
        })
    }

    pub fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get)?.cells.is_empty())
    }

    /// Every row of the scan, region after region (for a reversed scan, from the last region
    /// back). Rows come in `caching`-sized calls.
    pub fn scan(&self, scan: &Scan) -> Result<Vec<RowResult>> {
        let name = &self.name;
        let mut out: Vec<RowResult> = Vec::new();
        // Where the next region's part of the scan starts, and whether that row is included.
        let mut from = scan.start_row.clone();
        let mut include_from = scan.include_start_row;
        loop {
            let remaining = scan.limit.map(|l| l.saturating_sub(out.len()));
            if remaining == Some(0) {
                return Ok(out);
            }
            let (rows, region, more) = self.conn.retrying(name, |regions| {
                let location = if scan.reversed {
                    locate_below(regions, &from, include_from)
                } else {
                    locate(regions, &from)
                }
                .ok_or_else(|| Failure::Retry {
                    reason: "no cached region holds the scan's start".into(),
                    broken: false,
                })?;
                let request = pb::Scan {
                    reversed: Some(scan.reversed),
                    column: pb_columns(&scan.families),
                    start_row: Some(from.to_vec()),
                    stop_row: (!scan.stop_row.is_empty()).then(|| scan.stop_row.to_vec()),
                    include_start_row: Some(include_from),
                    include_stop_row: Some(scan.include_stop_row),
                    time_range: pb_time_range(&scan.time_range),
                    max_versions: Some(scan.max_versions),
                    cache_blocks: Some(scan.cache_blocks),
                    batch_size: scan.batch.and_then(|b| u32::try_from(b).ok()),
                    filter: scan.filter.as_ref().map(filter_pb),
                    ..pb::Scan::default()
                };
                let caching = u32::try_from(scan.caching.unwrap_or(100).max(1)).unwrap_or(100);
                // A limit within one call's rows: ask for exactly that and close at once (one
                // round trip, as HBase's small scans); whole rows only, so not with batches.
                let last = remaining
                    .and_then(|r| u32::try_from(r).ok())
                    .filter(|&r| r <= caching && scan.batch.is_none());
                let mut rows = Vec::new();
                let mut response: ScanResponse = self
                    .conn
                    .call(
                        "Scan",
                        &ScanRequest {
                            region: Some(region(&location.name)),
                            scan: Some(request),
                            number_of_rows: Some(last.unwrap_or(caching)),
                            close_scanner: last.map(|_| true),
                            ..ScanRequest::default()
                        },
                    )
                    .map_err(|e| classify(name, e))?;
                // False once the server says the whole scan is over (a filter that is done).
                let mut more;
                loop {
                    rows.extend(response.results.drain(..).map(row_result));
                    more = response.more_results.unwrap_or(true);
                    // The server closes a scanner whose region part is done.
                    let Some(id) = response.scanner_id else { break };
                    if !response.more_results_in_region.unwrap_or(false) {
                        break;
                    }
                    if remaining.is_some_and(|r| rows.len() >= r) {
                        let _: std::result::Result<ScanResponse, RpcError> = self.conn.call(
                            "Scan",
                            &ScanRequest {
                                scanner_id: Some(id),
                                close_scanner: Some(true),
                                number_of_rows: Some(0),
                                ..ScanRequest::default()
                            },
                        );
                        break;
                    }
                    response = self
                        .conn
                        .call(
                            "Scan",
                            &ScanRequest {
                                scanner_id: Some(id),
                                number_of_rows: Some(caching),
                                ..ScanRequest::default()
                            },
                        )
                        .map_err(|e| classify(name, e))?;
                }
                Ok((rows, location.clone(), more))
            })?;
            out.extend(rows);
            if let Some(limit) = scan.limit {
                out.truncate(limit);
            }
            // The next region: after this one going forward, before it going back.
            let (next, past_stop) = if scan.reversed {
                let past = !scan.stop_row.is_empty() && region.start[..] <= scan.stop_row[..];
                (region.start, past)
            } else {
                let past = !scan.stop_row.is_empty() && region.end[..] >= scan.stop_row[..];
                (region.end, past)
            };
            if next.is_empty() || past_stop || !more {
                return Ok(out);
            }
            from = Bytes::from(next);
            // Forward, the next region starts at this one's end; back, the rows go on below
            // this one's start.
            include_from = !scan.reversed;
        }
    }
}

/// Table administration of a remote server: MasterService's table calls (Basalt's procedures
/// are finished when a call returns, so no procedure is polled), AdminService's flushes.
#[derive(Debug)]
pub struct RemoteAdmin<'c> {
    conn: &'c RemoteConnection,
}

impl RemoteAdmin<'_> {
    fn master<Q: prost::Message, R: prost::Message + Default>(
        &self,
        table: &TableName,
        method: &str,
        request: &Q,
    ) -> Result<R> {
        let c = self.conn;
        c.call_on(&c.master, "MasterService", method, request)
            .map_err(|e| match classify(table, e) {
                Failure::Fatal(e) => e,
                Failure::Retry { reason, .. } => Error::NotServingRegion(reason),
            })
    }

    fn done(&self, table: &TableName) {
        self.conn.forget(table);
    }

    pub fn create_table(&self, descriptor: TableDescriptor) -> Result<()> {
        self.create_table_with_splits(descriptor, &[])
    }

    pub fn create_table_with_splits(
        &self,
        descriptor: TableDescriptor,
        split_keys: &[Bytes],
    ) -> Result<()> {
        let name = descriptor.name.clone();
        let _: pb::ProcedureResponse = self.master(
            &name,
            "CreateTable",
            &pb::CreateTableRequest {
                table_schema: schema(&descriptor),
                split_keys: split_keys.iter().map(|k| k.to_vec()).collect(),
                ..pb::CreateTableRequest::default()
            },
        )?;
        self.done(&name);
        Ok(())
    }

    fn table_call(&self, method: &str, name: &TableName) -> Result<()> {
        let _: pb::ProcedureResponse = self.master(
            name,
            method,
            &pb::TableNameRequest {
                table_name: pb_table_name(name),
                ..pb::TableNameRequest::default()
            },
        )?;
        self.done(name);
        Ok(())
    }

    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        self.table_call("DisableTable", name)
    }

    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        self.table_call("EnableTable", name)
    }

    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        self.table_call("DeleteTable", name)
    }

    pub fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        let _: pb::ProcedureResponse = self.master(
            name,
            "TruncateTable",
            &pb::TruncateTableRequest {
                table_name: pb_table_name(name),
                preserve_splits: Some(preserve_splits),
            },
        )?;
        self.done(name);
        Ok(())
    }

    /// The table's schema, as `describe` shows it.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        let found: pb::GetTableDescriptorsResponse = self.master(
            name,
            "GetTableDescriptors",
            &pb::GetTableDescriptorsRequest {
                table_names: vec![pb_table_name(name)],
                ..pb::GetTableDescriptorsRequest::default()
            },
        )?;
        let schema = found
            .table_schema
            .first()
            .ok_or_else(|| Error::TableNotFound(name.clone()))?;
        descriptor(name.clone(), schema).map_err(|e| {
            Error::Corrupt(format!(
                "the server's schema of {name}: {}",
                e.stack_trace.unwrap_or_default()
            ))
        })
    }

    pub fn table_exists(&self, name: &TableName) -> Result<bool> {
        match self.describe_table(name) {
            Ok(_) => Ok(true),
            Err(Error::TableNotFound(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Every user table's name, sorted.
    pub fn list_table_names(&self) -> Result<Vec<TableName>> {
        let none = TableName::parse("hbase:meta")?;
        let names: pb::GetTableNamesResponse =
            self.master(&none, "GetTableNames", &pb::GetTableNamesRequest::default())?;
        let mut out = names
            .table_names
            .iter()
            .map(|t| table_name(t).map_err(|e| Error::Corrupt(e.stack_trace.unwrap_or_default())))
            .collect::<Result<Vec<_>>>()?;
        out.sort();
        Ok(out)
    }

    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        let state: pb::GetTableStateResponse = self.master(
            name,
            "GetTableState",
            &pb::GetTableStateRequest {
                table_name: pb_table_name(name),
            },
        )?;
        Ok(state.table_state.state == pb::table_state::State::Enabled as i32)
    }

    /// Replaces the table's schema online.
    pub fn modify_table(&self, descriptor: TableDescriptor) -> Result<()> {
        let name = descriptor.name.clone();
        let _: pb::ProcedureResponse = self.master(
            &name,
            "ModifyTable",
            &pb::ModifyTableRequest {
                table_name: pb_table_name(&name),
                table_schema: schema(&descriptor),
                ..pb::ModifyTableRequest::default()
            },
        )?;
        self.done(&name);
        Ok(())
    }

    pub fn add_column_family(
        &self,
        name: &TableName,
        family: ColumnFamilyDescriptor,
    ) -> Result<()> {
        self.column_call("AddColumn", name, &family)
    }

    pub fn modify_column_family(
        &self,
        name: &TableName,
        family: ColumnFamilyDescriptor,
    ) -> Result<()> {
        self.column_call("ModifyColumn", name, &family)
    }

    fn column_call(
        &self,
        method: &str,
        name: &TableName,
        family: &ColumnFamilyDescriptor,
    ) -> Result<()> {
        let described = TableDescriptor::new(name.clone()).with_family(family.clone());
        let column_families = schema(&described)
            .column_families
            .into_iter()
            .next()
            .unwrap_or_default();
        let _: pb::ProcedureResponse = self.master(
            name,
            method,
            &pb::AddColumnRequest {
                table_name: pb_table_name(name),
                column_families,
            },
        )?;
        self.done(name);
        Ok(())
    }

    pub fn delete_column_family(&self, name: &TableName, family: &[u8]) -> Result<()> {
        let _: pb::ProcedureResponse = self.master(
            name,
            "DeleteColumn",
            &pb::DeleteColumnRequest {
                table_name: pb_table_name(name),
                column_name: family.to_vec(),
            },
        )?;
        self.done(name);
        Ok(())
    }

    /// A namespace call's errors name the namespace asked about.
    fn namespaced<T>(&self, namespace: &str, out: Result<T>) -> Result<T> {
        out.map_err(|e| match e {
            Error::NamespaceNotFound(_) => Error::NamespaceNotFound(namespace.to_owned()),
            Error::NamespaceExists(_) => Error::NamespaceExists(namespace.to_owned()),
            other => other,
        })
    }

    /// The table named in errors of calls that concern no table.
    fn meta_name() -> Result<TableName> {
        TableName::new("hbase", "meta")
    }

    pub fn create_namespace(&self, ns: NamespaceDescriptor) -> Result<()> {
        let out = self.master::<_, pb::ProcedureResponse>(
            &Self::meta_name()?,
            "CreateNamespace",
            &pb::NamespaceRequest {
                namespace_descriptor: namespace(&ns),
            },
        );
        self.namespaced(&ns.name, out).map(|_| ())
    }

    /// Removes an empty namespace.
    pub fn delete_namespace(&self, name: &str) -> Result<()> {
        let out = self.master::<_, pb::ProcedureResponse>(
            &Self::meta_name()?,
            "DeleteNamespace",
            &pb::NamespaceNameRequest {
                namespace_name: name.to_owned(),
            },
        );
        self.namespaced(name, out).map(|_| ())
    }

    pub fn get_namespace_descriptor(&self, name: &str) -> Result<NamespaceDescriptor> {
        let out = self.master::<_, pb::GetNamespaceDescriptorResponse>(
            &Self::meta_name()?,
            "GetNamespaceDescriptor",
            &pb::NamespaceNameRequest {
                namespace_name: name.to_owned(),
            },
        );
        self.namespaced(name, out)
            .map(|r| namespace_descriptor(&r.namespace_descriptor))
    }

    pub fn list_namespace_descriptors(&self) -> Result<Vec<NamespaceDescriptor>> {
        let out: pb::ListNamespaceDescriptorsResponse = self.master(
            &Self::meta_name()?,
            "ListNamespaceDescriptors",
            &pb::Empty {},
        )?;
        Ok(out
            .namespace_descriptor
            .iter()
            .map(namespace_descriptor)
            .collect())
    }

    /// Writes each of the table's memstores to store files (AdminService FlushRegion on every
    /// region).
    pub fn flush(&self, name: &TableName) -> Result<()> {
        self.each_region(name, "FlushRegion", |r| pb::FlushRegionRequest {
            region: region(&r.name),
            ..pb::FlushRegionRequest::default()
        })
    }

    /// Compacts each of the table's regions (AdminService CompactRegion), minor or major.
    pub fn compact(&self, name: &TableName, major: bool) -> Result<()> {
        self.each_region(name, "CompactRegion", |r| pb::CompactRegionRequest {
            region: region(&r.name),
            major: Some(major),
            family: None,
        })
    }

    /// One AdminService call per region of the table, the request built by `request`.
    fn each_region<Q: prost::Message>(
        &self,
        name: &TableName,
        method: &str,
        request: impl Fn(&Location) -> Q,
    ) -> Result<()> {
        let c = self.conn;
        c.retrying(name, |regions| {
            for r in regions {
                let _: pb::Empty = c
                    .call_on(&c.region_admin, "AdminService", method, &request(r))
                    .map_err(|e| classify(name, e))?;
            }
            Ok(())
        })
    }

    /// Splits the region holding `at` there (MasterService SplitRegion, as HBase 2's
    /// `split(table, splitPoint)`).
    pub fn split(&self, name: &TableName, at: &[u8]) -> Result<()> {
        let c = self.conn;
        let target = c.retrying(name, |regions| row_region(regions, at).map(<[u8]>::to_vec))?;
        let info: pb::GetRegionInfoResponse = c
            .call_on(
                &c.region_admin,
                "AdminService",
                "GetRegionInfo",
                &pb::GetRegionInfoRequest {
                    region: region(&target),
                    compaction_state: None,
                    best_split_row: None,
                },
            )
            .map_err(|e| match classify(name, e) {
                Failure::Fatal(e) => e,
                Failure::Retry { reason, .. } => Error::NotServingRegion(reason),
            })?;
        let _: pb::ProcedureResponse = self.master(
            name,
            "SplitRegion",
            &pb::SplitTableRegionRequest {
                region_info: info.region_info,
                split_row: Some(at.to_vec()),
                ..pb::SplitTableRegionRequest::default()
            },
        )?;
        self.done(name);
        Ok(())
    }

    /// Merges two adjacent regions, named by their full names (MasterService
    /// MergeTableRegions).
    pub fn merge_regions(&self, name: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        let _: pb::ProcedureResponse = self.master(
            name,
            "MergeTableRegions",
            &pb::MergeTableRegionsRequest {
                region: vec![region(a), region(b)],
                ..pb::MergeTableRegionsRequest::default()
            },
        )?;
        self.done(name);
        Ok(())
    }

    /// The table's serving regions as the client routes to them, from `hbase:meta`.
    pub fn regions(&self, name: &TableName) -> Result<Vec<Location>> {
        self.conn.forget(name);
        self.conn.retrying(name, |regions| Ok(regions.to_vec()))
    }
}
