//! MasterService: table and namespace administration, as native clients call it. Basalt's
//! procedures finish before the call returns, so every procedure id handed out is FINISHED
//! when asked about.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};

use std::sync::Arc;

use basalt_common::chore::Chore;

use basalt_common::{Bytes, Error, ErrorKind, RegionInfo, TableName};
use prost::Message;

use basalt_proto::pb::{
    self, AddColumnRequest, ClusterStatusOption, CreateTableRequest, DeleteColumnRequest,
    ExceptionResponse, GetClusterStatusRequest, GetClusterStatusResponse,
    GetNamespaceDescriptorResponse, GetProcedureResultRequest, GetProcedureResultResponse,
    GetTableDescriptorsRequest, GetTableDescriptorsResponse, GetTableNamesRequest,
    GetTableNamesResponse, GetTableStateRequest, GetTableStateResponse, HBaseVersionFileContent,
    IsMasterRunningResponse, ListNamespaceDescriptorsResponse, ListNamespacesResponse,
    ListTableNamesByNamespaceResponse, LiveServerInfo, MergeTableRegionsRequest,
    ModifyTableRequest, NamespaceNameRequest, NamespaceRequest, ProcedureResponse, RegionLoad,
    RegionStatesCount, ServerLoad, SplitTableRegionRequest, TableNameRequest,
    TableRegionStatesCount, TruncateTableRequest, get_procedure_result_response, table_state,
};
use basalt_proto::schema::{
    descriptor, family, namespace, namespace_descriptor, pb_table_name, schema, table_name,
};
use basalt_proto::{decode, exception, from_error as fail, refused, replication};

mod nonces;
mod refusals;
mod tenancy;

use crate::Admin;
use crate::master::Master;
use basalt_common::ServerName;

type Outcome = Result<Vec<u8>, ExceptionResponse>;

/// A region the catalog does not know is one no server serves: NotServingRegionException, as
/// HBase's master answers, so the client looks it up again.
fn unknown_region(e: &Error) -> ExceptionResponse {
    match e.kind() {
        ErrorKind::NotFound => exception(
            "org.apache.hadoop.hbase.NotServingRegionException",
            e.to_string(),
            false,
        ),
        _ => fail(e),
    }
}

fn bad(what: impl Into<String>) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        what.into(),
        true,
    )
}

/// MasterService for one server.
#[derive(Debug)]
pub struct MasterService {
    master: Arc<Master>,
    /// The last procedure id handed out.
    procedures: AtomicU64,
    /// This master's address, and (standalone) the address its one region server serves at,
    /// which the cluster status reports for it.
    master_addr: SocketAddr,
    region_server: Option<SocketAddr>,
    /// The master's own start code (a cluster's master); None: its region server's.
    start_code: Option<i64>,
    /// When the cluster status was last asked for, and the requests served until then: the
    /// server load's requests per second are measured over the time between two asks.
    last_status: std::sync::Mutex<(std::time::Instant, u64)>,
    /// Set by StopMaster: a cluster's master process stops (a backup takes over); none in a
    /// standalone server, which refuses it.
    stop: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Whether callers authenticate with Kerberos (the RPC's SASL), for the capabilities.
    secure_authentication: bool,
    /// The procedure calls already run, by nonce (`nonces`).
    nonces: nonces::Nonces,
}

impl MasterService {
    pub fn new(master: Arc<Master>, addr: SocketAddr, region_server: Option<SocketAddr>) -> Self {
        MasterService {
            master,
            procedures: AtomicU64::new(0),
            master_addr: addr,
            region_server,
            start_code: None,
            last_status: std::sync::Mutex::new((std::time::Instant::now(), 0)),
            stop: None,
            secure_authentication: false,
            nonces: nonces::Nonces::default(),
        }
    }

    /// Callers authenticate with Kerberos: the capabilities say SECURE_AUTHENTICATION.
    pub fn with_secure_authentication(mut self, on: bool) -> Self {
        self.secure_authentication = on;
        self
    }

    /// Serves StopMaster by setting `flag`, which the master's process watches.
    pub fn with_stop(mut self, flag: Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// A cluster's master, started at `start_code` (its name's).
    pub fn with_start_code(mut self, start_code: i64) -> Self {
        self.start_code = Some(start_code);
        self
    }

    /// A server's name (`host:port` and start code) as protobuf.
    fn named(&self, name: &ServerName) -> pb::ServerName {
        let (host, port) = name.host_and_port().unwrap_or((&name.host_port, 0));
        pb::ServerName {
            host_name: host.to_owned(),
            port: Some(u32::from(port)),
            start_code: u64::try_from(name.start_code).ok(),
        }
    }

    /// A region server's name as the status reports it: its own, or (standalone) the
    /// address its RPC serves at with its start code.
    fn pb_server(&self, name: &ServerName) -> pb::ServerName {
        match self.region_server {
            Some(addr) => pb::ServerName {
                host_name: addr.ip().to_string(),
                port: Some(u32::from(addr.port())),
                start_code: u64::try_from(name.start_code).ok(),
            },
            None => self.named(name),
        }
    }

    /// The cluster as HBase's ClusterStatus describes it: the live region servers, each with
    /// its regions' loads (figures where the region is open in this process), the master, the
    /// dead servers a cluster's master recovered and its backup masters. `options` picks the parts, as HBase does; none
    /// asked means all.
    fn cluster_status(&self, options: &[i32]) -> Outcome {
        use ClusterStatusOption as O;
        let wants = |o: O| options.is_empty() || options.contains(&(o as i32));
        let mut loads: BTreeMap<String, Vec<RegionLoad>> = BTreeMap::new();
        let mut counts = Vec::new();
        let mut total_requests = 0u64;
        let mut tables: Vec<_> = self.master.tables().values().cloned().collect();
        // Meta's region first, as HBase lists a server's regions.
        tables.sort_by_key(|t| !t.name.is_meta());
        // Each live server's own figures for its regions; a region on a server that does not
        // answer is listed without figures.
        let servers = self.master.servers.all();
        let reported: HashMap<String, HashMap<Vec<u8>, RegionLoad>> = servers
            .iter()
            .map(|s| {
                let loads = s.region_loads().unwrap_or_default();
                (
                    s.name().to_string(),
                    loads
                        .into_iter()
                        .map(|l| (l.region_specifier.value.clone(), l))
                        .collect(),
                )
            })
            .collect();
        for t in tables.iter().filter(|t| t.is_enabled()) {
            let stores = u32::try_from(t.descriptor().families().len()).unwrap_or(u32::MAX);
            let placed = t.placed();
            for p in &placed {
                let server = p.server.name().to_string();
                let name = p.info.region_name();
                let load = match reported.get(&server).and_then(|m| m.get(&name[..])) {
                    Some(l) => l.clone(),
                    None => RegionLoad {
                        region_specifier: basalt_proto::region(&name),
                        stores: Some(stores),
                        ..RegionLoad::default()
                    },
                };
                total_requests +=
                    load.read_requests_count.unwrap_or(0) + load.write_requests_count.unwrap_or(0);
                loads.entry(server).or_default().push(load);
            }
            let n = u32::try_from(placed.len()).unwrap_or(u32::MAX);
            counts.push(TableRegionStatesCount {
                table_name: pb_table_name(&t.name),
                region_states_count: RegionStatesCount {
                    open_regions: n,
                    split_regions: 0,
                    closed_regions: 0,
                    regions_in_transition: 0,
                    total_regions: n,
                },
            });
        }
        let start_code = servers.first().map_or(0, |s| s.name().start_code);
        let rate = self.requests_per_second(total_requests);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .and_then(|d| u64::try_from(d.as_millis()).ok());
        let live: Vec<LiveServerInfo> = servers
            .iter()
            .map(|server| {
                // A server that does not answer is listed without its replication figures.
                let replication = wants(O::LiveServers)
                    .then(|| server.report().ok())
                    .flatten()
                    .unwrap_or_default();
                (server, replication)
            })
            .map(|(server, replication)| LiveServerInfo {
                server: self.pb_server(server.name()),
                server_load: ServerLoad {
                    repl_load_source: replication.source,
                    repl_load_sink: replication.sink,
                    tasks: replication.tasks,
                    number_of_requests: Some(rate),
                    total_number_of_requests: Some(total_requests),
                    used_heap_mb: memory_mb("/proc/self/status", "VmRSS:"),
                    max_heap_mb: memory_mb("/proc/meminfo", "MemTotal:"),
                    region_loads: loads.remove(&server.name().to_string()).unwrap_or_default(),
                    report_start_time: u64::try_from(server.name().start_code).ok(),
                    report_end_time: now,
                    info_server_port: None,
                },
            })
            .collect();
        let master_name = pb::ServerName {
            host_name: self.master_addr.ip().to_string(),
            port: Some(u32::from(self.master_addr.port())),
            start_code: u64::try_from(self.start_code.unwrap_or(start_code)).ok(),
        };
        let status = pb::ClusterStatus {
            hbase_version: wants(O::HbaseVersion).then(|| HBaseVersionFileContent {
                version: basalt_proto::HBASE_VERSION.to_owned(),
            }),
            servers_name: if wants(O::ServersName) {
                live.iter().map(|l| l.server.clone()).collect()
            } else {
                Vec::new()
            },
            live_servers: if wants(O::LiveServers) {
                live
            } else {
                Vec::new()
            },
            dead_servers: self
                .master
                .dead_servers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .iter()
                .map(|s| self.named(s))
                .collect(),
            cluster_id: wants(O::ClusterId).then(|| pb::ClusterId {
                cluster_id: self.master.cluster_id.clone(),
            }),
            master: wants(O::Master).then_some(master_name),
            backup_masters: self
                .master
                .backup_masters
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .iter()
                .map(|s| self.named(s))
                .collect(),
            balancer_on: wants(O::BalancerOn)
                .then(|| self.master.balancer_on.load(Ordering::Acquire)),
            master_info_port: wants(O::MasterInfoPort).then_some(-1),
            table_region_states_count: if wants(O::TableToRegionsCount) {
                counts
            } else {
                Vec::new()
            },
        };
        Ok(GetClusterStatusResponse {
            cluster_status: status,
        }
        .encode_to_vec())
    }

    /// Requests per second since the cluster status was last asked for (since the service
    /// started, the first time), given the requests served until now.
    fn requests_per_second(&self, total: u64) -> u64 {
        let mut last = self
            .last_status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let now = std::time::Instant::now();
        let seconds = now.duration_since(last.0).as_secs_f64().max(0.001);
        let rate = total.saturating_sub(last.1) as f64 / seconds;
        *last = (now, total);
        rate.round() as u64
    }

    /// The name of the serving region a RegionInfo describes (table, start key and id).
    /// The name of the region a RegionInfo describes: table, start key and id are all a
    /// region name holds (a region not serving is the split's UnknownRegionException).
    fn region_name(info: &pb::RegionInfo) -> Result<Bytes, ExceptionResponse> {
        if info.replica_id.is_some_and(|r| r > 0) {
            return Err(refused(
                "RegionInfo.replica_id",
                "Basalt keeps one replica of each region (replica 0)",
            ));
        }
        let table = table_name(&info.table_name)?;
        let start = Bytes::from(info.start_key.clone().unwrap_or_default());
        let id = i64::try_from(info.region_id).unwrap_or(-1);
        Ok(RegionInfo::new(table, start, Bytes::new(), id).region_name())
    }

    fn done(&self) -> Vec<u8> {
        let id = self.procedures.fetch_add(1, Ordering::AcqRel) + 1;
        ProcedureResponse { proc_id: Some(id) }.encode_to_vec()
    }

    /// Runs `method`; `None` if Basalt does not serve it.
    /// Runs `method` for `user` (none: a caller inside the process); `None` if MasterService
    /// has no such method.
    pub fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        user: Option<&basalt_common::acl::User>,
    ) -> Option<Outcome> {
        if method == "ExecMasterService" {
            return Some(crate::access_service::exec(&self.master, param, user));
        }
        if let Err(e) = crate::access_service::authorize(&self.master, method, param, user) {
            return Some(Err(e));
        }
        if let Some(outcome) = crate::access_service::call(&self.master, method, param) {
            return Some(outcome);
        }
        // Every method with a nonce is one `dispatch` serves.
        match nonces::of_request(method, param) {
            Some(key) => Some(self.nonces.once(key, || {
                self.dispatch(method, param)
                    .unwrap_or_else(|| Err(bad(format!("{method} is not served"))))
            })),
            None => self.dispatch(method, param),
        }
    }

    /// MasterService's own methods (after access control); `None` for one it lacks.
    fn dispatch(&self, method: &str, param: Option<&[u8]>) -> Option<Outcome> {
        if let Some(outcome) = self.tenancy_call(method, param) {
            return Some(outcome);
        }
        let admin = Admin::new(Arc::clone(&self.master));
        Some(match method {
            "IsMasterRunning" => Ok(IsMasterRunningResponse {
                is_master_running: true,
            }
            .encode_to_vec()),
            "CreateTable" => decode::<CreateTableRequest>(param).and_then(|r| {
                let name = table_name(
                    r.table_schema
                        .table_name
                        .as_ref()
                        .ok_or_else(|| bad("CreateTable without a table name"))?,
                )?;
                let desc = descriptor(name, &r.table_schema)?;
                let splits: Vec<Bytes> = r
                    .split_keys
                    .iter()
                    .map(|k| Bytes::copy_from_slice(k))
                    .collect();
                admin
                    .create_table_with_splits(desc, &splits)
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "DeleteTable" | "EnableTable" | "DisableTable" => decode::<TableNameRequest>(param)
                .and_then(|r| {
                    let t = table_name(&r.table_name)?;
                    let result = match method {
                        "DeleteTable" => admin.delete_table(&t),
                        "EnableTable" => admin.enable_table(&t),
                        _ => admin.disable_table(&t),
                    };
                    result.map_err(|e| fail(&e))?;
                    Ok(self.done())
                }),
            "IsBalancerEnabled" => Ok(pb::IsBalancerEnabledResponse {
                enabled: admin.is_balancer_enabled(),
            }
            .encode_to_vec()),
            "Snapshot" => decode::<pb::SnapshotRequest>(param).and_then(|r| {
                refusals::check_snapshot(&r.snapshot)?;
                let table = r.snapshot.table.as_deref().unwrap_or_default();
                let table = TableName::parse(table).map_err(|e| fail(&e))?;
                admin
                    .snapshot_with_ttl(&r.snapshot.name, &table, r.snapshot.ttl.unwrap_or(0))
                    .map_err(|e| fail(&e))?;
                // Taken before this answer: nothing to wait for.
                Ok(pb::SnapshotResponse {
                    expected_timeout: 0,
                }
                .encode_to_vec())
            }),
            "IsSnapshotDone" => decode::<pb::IsSnapshotDoneRequest>(param).and_then(|r| {
                let name = r
                    .snapshot
                    .as_ref()
                    .map(|s| s.name.clone())
                    .unwrap_or_default();
                let found = admin
                    .list_snapshots()
                    .map_err(|e| fail(&e))?
                    .into_iter()
                    .find(|s| s.name == name);
                Ok(pb::IsSnapshotDoneResponse {
                    done: Some(found.is_some()),
                    snapshot: found.as_ref().map(crate::snapshots::description),
                }
                .encode_to_vec())
            }),
            "GetCompletedSnapshots" => {
                decode::<pb::GetCompletedSnapshotsRequest>(param).and_then(|_| {
                    let found = admin.list_snapshots().map_err(|e| fail(&e))?;
                    Ok(pb::GetCompletedSnapshotsResponse {
                        snapshots: found.iter().map(crate::snapshots::description).collect(),
                    }
                    .encode_to_vec())
                })
            }
            "CloneSnapshot" => decode::<pb::CloneSnapshotRequest>(param).and_then(|r| {
                refusals::check_restore("CloneSnapshotRequest", r.restore_acl(), None)?;
                let table = r.snapshot.table.as_deref().unwrap_or_default();
                let table = TableName::parse(table).map_err(|e| fail(&e))?;
                admin
                    .clone_snapshot(&r.snapshot.name, &table)
                    .map_err(|e| fail(&e))?;
                // Done before the answer: a procedure id GetProcedureResult calls finished
                // (CloneSnapshotResponse's proc_id is field 1, as ProcedureResponse's).
                Ok(self.done())
            }),
            "RestoreSnapshot" => decode::<pb::RestoreSnapshotRequest>(param).and_then(|r| {
                refusals::check_restore(
                    "RestoreSnapshotRequest",
                    r.restore_acl(),
                    r.custom_sft.as_deref(),
                )?;
                admin
                    .restore_snapshot(&r.snapshot.name)
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "DeleteSnapshot" => decode::<pb::DeleteSnapshotRequest>(param).and_then(|r| {
                admin
                    .delete_snapshot(&r.snapshot.name)
                    .map_err(|e| fail(&e))?;
                Ok(pb::DeleteSnapshotResponse {}.encode_to_vec())
            }),
            "SetBalancerRunning" => decode::<pb::SetBalancerRunningRequest>(param).map(|r| {
                pb::SetBalancerRunningResponse {
                    prev_balance_value: Some(admin.balance_switch(r.on)),
                }
                .encode_to_vec()
            }),
            "Balance" => decode::<pb::BalanceRequest>(param).and_then(|r| {
                if r.dry_run() {
                    return Err(refused(
                        "BalanceRequest.dry_run",
                        "Basalt's balancer plans and moves in one step",
                    ));
                }
                let ran = admin.balance().map_err(|e| fail(&e))?;
                Ok(pb::BalanceResponse {
                    balancer_ran: ran,
                    moves_calculated: None,
                    moves_executed: None,
                }
                .encode_to_vec())
            }),
            "MoveRegion" => decode::<pb::MoveRegionRequest>(param).and_then(|r| {
                let to = r.dest_server_name.map(|s| match s.start_code {
                    Some(code) => format!("{},{},{code}", s.host_name, s.port.unwrap_or(0)),
                    None => format!("{}:{}", s.host_name, s.port.unwrap_or(0)),
                });
                admin
                    .move_region(&r.region.value, to.as_deref())
                    .map_err(|e| unknown_region(&e))?;
                Ok(pb::MoveRegionResponse {}.encode_to_vec())
            }),
            "AssignRegion" => decode::<pb::AssignRegionRequest>(param).and_then(|r| {
                admin
                    .assign(&r.region.value)
                    .map_err(|e| unknown_region(&e))?;
                Ok(pb::AssignRegionResponse {}.encode_to_vec())
            }),
            "UnassignRegion" => decode::<pb::UnassignRegionRequest>(param).and_then(|r| {
                admin
                    .unassign(&r.region.value)
                    .map_err(|e| unknown_region(&e))?;
                Ok(pb::UnassignRegionResponse {}.encode_to_vec())
            }),
            "SplitRegion" => decode::<SplitTableRegionRequest>(param).and_then(|r| {
                let name = Self::region_name(&r.region_info)?;
                admin
                    .split_region(&name, r.split_row.as_deref())
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "MergeTableRegions" => decode::<MergeTableRegionsRequest>(param).and_then(|r| {
                if r.forcible() {
                    return Err(refused(
                        "MergeTableRegionsRequest.forcible",
                        "Basalt merges adjacent regions only",
                    ));
                }
                let [a, b] = r.region.as_slice() else {
                    return Err(bad(format!(
                        "MergeTableRegions takes two regions, not {}",
                        r.region.len()
                    )));
                };
                admin
                    .merge_regions(&a.value, &b.value)
                    .map_err(|e| unknown_region(&e))?;
                Ok(self.done())
            }),
            "ModifyTable" => decode::<ModifyTableRequest>(param).and_then(|r| {
                let name = table_name(&r.table_name)?;
                admin
                    .modify_table(descriptor(name, &r.table_schema)?)
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "GetClusterStatus" => decode::<GetClusterStatusRequest>(param)
                .and_then(|r| self.cluster_status(&r.options)),
            // HBase's service spells a few methods with a lower-case first letter.
            "TruncateTable" | "truncateTable" => {
                decode::<TruncateTableRequest>(param).and_then(|r| {
                    let t = table_name(&r.table_name)?;
                    admin
                        .truncate_table(&t, r.preserve_splits())
                        .map_err(|e| fail(&e))?;
                    Ok(self.done())
                })
            }
            "AddColumn" | "ModifyColumn" => decode::<AddColumnRequest>(param).and_then(|r| {
                let t = table_name(&r.table_name)?;
                let f = family(&r.column_families)?;
                let result = if method == "AddColumn" {
                    admin.add_column_family(&t, f)
                } else {
                    admin.modify_column_family(&t, f)
                };
                result.map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "DeleteColumn" => decode::<DeleteColumnRequest>(param).and_then(|r| {
                let t = table_name(&r.table_name)?;
                admin
                    .delete_column_family(&t, &r.column_name)
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "GetTableDescriptors" => decode::<GetTableDescriptorsRequest>(param).and_then(|r| {
                let names: Vec<TableName> = if r.table_names.is_empty() {
                    self.names(
                        r.regex.as_deref(),
                        r.include_sys_tables(),
                        r.namespace.as_deref(),
                    )?
                } else {
                    r.table_names
                        .iter()
                        .map(table_name)
                        .collect::<Result<_, _>>()?
                };
                // Tables that do not exist are left out, as HBase's master does.
                let table_schema = names
                    .iter()
                    .filter_map(|t| admin.describe_table(t).ok())
                    .map(|d| schema(&d))
                    .collect();
                Ok(GetTableDescriptorsResponse { table_schema }.encode_to_vec())
            }),
            "GetTableNames" => decode::<GetTableNamesRequest>(param).and_then(|r| {
                let names = self.names(
                    r.regex.as_deref(),
                    r.include_sys_tables(),
                    r.namespace.as_deref(),
                )?;
                Ok(GetTableNamesResponse {
                    table_names: names.iter().map(pb_table_name).collect(),
                }
                .encode_to_vec())
            }),
            "GetTableState" => decode::<GetTableStateRequest>(param).and_then(|r| {
                let t = table_name(&r.table_name)?;
                let enabled = admin.is_table_enabled(&t).map_err(|e| fail(&e))?;
                let state = if enabled {
                    table_state::State::Enabled
                } else {
                    table_state::State::Disabled
                };
                Ok(GetTableStateResponse {
                    table_state: pb::TableState {
                        state: state as i32,
                    },
                }
                .encode_to_vec())
            }),
            "GetProcedureResult" | "getProcedureResult" => {
                decode::<GetProcedureResultRequest>(param).map(|r| {
                    use get_procedure_result_response::State;
                    let known =
                        r.proc_id >= 1 && r.proc_id <= self.procedures.load(Ordering::Acquire);
                    GetProcedureResultResponse {
                        state: if known {
                            State::Finished
                        } else {
                            State::NotFound
                        } as i32,
                        ..GetProcedureResultResponse::default()
                    }
                    .encode_to_vec()
                })
            }
            "CreateNamespace" | "ModifyNamespace" => {
                decode::<NamespaceRequest>(param).and_then(|r| {
                    let ns = namespace_descriptor(&r.namespace_descriptor);
                    let result = if method == "CreateNamespace" {
                        admin.create_namespace(ns)
                    } else {
                        admin.modify_namespace(ns)
                    };
                    result.map_err(|e| fail(&e))?;
                    Ok(self.done())
                })
            }
            "DeleteNamespace" => decode::<NamespaceNameRequest>(param).and_then(|r| {
                admin
                    .delete_namespace(&r.namespace_name)
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "GetNamespaceDescriptor" => decode::<NamespaceNameRequest>(param).and_then(|r| {
                let d = admin
                    .get_namespace_descriptor(&r.namespace_name)
                    .map_err(|e| fail(&e))?;
                Ok(GetNamespaceDescriptorResponse {
                    namespace_descriptor: namespace(&d),
                }
                .encode_to_vec())
            }),
            "ListNamespaceDescriptors" => Ok(ListNamespaceDescriptorsResponse {
                namespace_descriptor: admin
                    .list_namespace_descriptors()
                    .iter()
                    .map(namespace)
                    .collect(),
            }
            .encode_to_vec()),
            "ListNamespaces" => Ok(ListNamespacesResponse {
                namespace_name: admin
                    .list_namespace_descriptors()
                    .into_iter()
                    .map(|d| d.name)
                    .collect(),
            }
            .encode_to_vec()),
            "ListTableNamesByNamespace" => decode::<NamespaceNameRequest>(param).and_then(|r| {
                let names = admin
                    .list_table_names_by_namespace(&r.namespace_name)
                    .map_err(|e| fail(&e))?;
                Ok(ListTableNamesByNamespaceResponse {
                    table_name: names.iter().map(pb_table_name).collect(),
                }
                .encode_to_vec())
            }),
            "AddReplicationPeer" => decode::<pb::AddReplicationPeerRequest>(param).and_then(|r| {
                let config = replication::peer(&r.peer_config).map_err(|e| fail(&e))?;
                let enabled = r.peer_state.state == pb::replication_state::State::Enabled as i32;
                admin
                    .add_peer(&r.peer_id, config, enabled)
                    .map_err(|e| fail(&e))?;
                Ok(self.done())
            }),
            "RemoveReplicationPeer" => {
                decode::<pb::RemoveReplicationPeerRequest>(param).and_then(|r| {
                    admin.remove_peer(&r.peer_id).map_err(|e| fail(&e))?;
                    Ok(self.done())
                })
            }
            "EnableReplicationPeer" | "DisableReplicationPeer" => {
                decode::<pb::EnableReplicationPeerRequest>(param).and_then(|r| {
                    let on = method == "EnableReplicationPeer";
                    admin
                        .set_peer_enabled(&r.peer_id, on)
                        .map_err(|e| fail(&e))?;
                    Ok(self.done())
                })
            }
            "UpdateReplicationPeerConfig" => {
                decode::<pb::UpdateReplicationPeerConfigRequest>(param).and_then(|r| {
                    let config = replication::peer(&r.peer_config).map_err(|e| fail(&e))?;
                    admin
                        .update_peer_config(&r.peer_id, config)
                        .map_err(|e| fail(&e))?;
                    Ok(self.done())
                })
            }
            "GetReplicationPeerConfig" => decode::<pb::GetReplicationPeerConfigRequest>(param)
                .and_then(|r| {
                    let peer = admin.peer(&r.peer_id).map_err(|e| fail(&e))?;
                    Ok(pb::GetReplicationPeerConfigResponse {
                        peer_id: peer.id,
                        peer_config: replication::pb_peer(&peer.config),
                    }
                    .encode_to_vec())
                }),
            "ReplicationPeerModificationSwitch" => {
                decode::<pb::ReplicationPeerModificationSwitchRequest>(param).and_then(|r| {
                    let was = admin.peer_modification_switch(r.on).map_err(|e| fail(&e))?;
                    Ok(pb::ReplicationPeerModificationSwitchResponse {
                        previous_value: was,
                    }
                    .encode_to_vec())
                })
            }
            "IsReplicationPeerModificationEnabled" => {
                decode::<pb::IsReplicationPeerModificationEnabledRequest>(param).and_then(|_| {
                    let on = admin.peer_modification_enabled().map_err(|e| fail(&e))?;
                    Ok(
                        pb::IsReplicationPeerModificationEnabledResponse { enabled: on }
                            .encode_to_vec(),
                    )
                })
            }
            "SetSplitOrMergeEnabled" => {
                decode::<pb::SetSplitOrMergeEnabledRequest>(param).map(|r| {
                    pb::SetSplitOrMergeEnabledResponse {
                        prev_value: r
                            .switch_types
                            .iter()
                            .map(|t| {
                                let split = *t == pb::MasterSwitchType::Split as i32;
                                admin.split_or_merge_switch(split, r.enabled)
                            })
                            .collect(),
                    }
                    .encode_to_vec()
                })
            }
            "GetLogEntries" => decode::<pb::LogRequest>(param).and_then(|r| {
                const OUTER: &str =
                    "org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos$";
                let log = &self.master.balancer_log;
                let (class, message) = if r.log_class_name.ends_with("BalancerDecisionsRequest") {
                    let q = decode::<pb::BalancerDecisionsRequest>(Some(&r.log_message))?;
                    let limit = q.limit.map_or(usize::MAX, |l| l as usize);
                    let decisions =
                        log.decisions(limit)
                            .into_iter()
                            .map(|d| pb::BalancerDecision {
                                initial_function_costs: d.initial_function_costs,
                                final_function_costs: d.final_function_costs,
                                init_total_cost: d.init_total_cost,
                                computed_total_cost: d.computed_total_cost,
                                computed_steps: d.computed_steps,
                                region_plans: d.region_plans,
                            });
                    (
                        "BalancerDecisionsResponse",
                        pb::BalancerDecisionsResponse {
                            balancer_decision: decisions.collect(),
                        }
                        .encode_to_vec(),
                    )
                } else if r.log_class_name.ends_with("BalancerRejectionsRequest") {
                    let q = decode::<pb::BalancerRejectionsRequest>(Some(&r.log_message))?;
                    let limit = q.limit.map_or(usize::MAX, |l| l as usize);
                    let rejections =
                        log.rejections(limit)
                            .into_iter()
                            .map(|r| pb::BalancerRejection {
                                reason: r.reason,
                                cost_func_info: r.cost_func_info,
                            });
                    (
                        "BalancerRejectionsResponse",
                        pb::BalancerRejectionsResponse {
                            balancer_rejection: rejections.collect(),
                        }
                        .encode_to_vec(),
                    )
                } else {
                    return Err(bad(format!(
                        "a master keeps the balancer's decisions and rejections, not {}",
                        r.log_class_name
                    )));
                };
                Ok(pb::LogEntry {
                    log_class_name: format!("{OUTER}{class}"),
                    log_message: message,
                }
                .encode_to_vec())
            }),
            "GetProcedures" => decode::<pb::GetProceduresRequest>(param).map(|_| {
                pb::GetProceduresResponse {
                    procedure: self
                        .master
                        .procedure_log
                        .procedures()
                        .iter()
                        .map(basalt_proto::procedure_pb)
                        .collect(),
                }
                .encode_to_vec()
            }),
            "GetLocks" => decode::<pb::GetLocksRequest>(param).map(|_| {
                use basalt_common::procedure::Resource;
                let lock = self
                    .master
                    .procedure_log
                    .locks()
                    .iter()
                    .map(|l| pb::LockedResource {
                        resource_type: match l.resource {
                            Resource::Server(_) => pb::LockedResourceType::Server,
                            Resource::Namespace(_) => pb::LockedResourceType::Namespace,
                            Resource::Table(_) => pb::LockedResourceType::Table,
                            Resource::Region(_) => pb::LockedResourceType::Region,
                        } as i32,
                        resource_name: Some(l.resource.name().to_owned()),
                        lock_type: pb::LockType::Exclusive as i32,
                        exclusive_lock_owner_procedure: Some(basalt_proto::procedure_pb(&l.owner)),
                        shared_lock_count: None,
                        waiting_procedures: l
                            .waiting
                            .iter()
                            .map(basalt_proto::procedure_pb)
                            .collect(),
                    })
                    .collect();
                pb::GetLocksResponse { lock }.encode_to_vec()
            }),
            "GetSchemaAlterStatus" => {
                decode::<pb::GetSchemaAlterStatusRequest>(param).and_then(|r| {
                    let name = table_name(&r.table_name)?;
                    let table = self.master.table(&name).map_err(|e| fail(&e))?;
                    let (yet, total) = table.alter_status();
                    Ok(pb::GetSchemaAlterStatusResponse {
                        yet_to_update_regions: Some(yet),
                        total_regions: Some(total),
                    }
                    .encode_to_vec())
                })
            }
            "FlushMasterStore" => decode::<pb::FlushMasterStoreRequest>(param).and_then(|_| {
                crate::procedures::flush_meta(&self.master).map_err(|e| fail(&e))?;
                Ok(pb::FlushMasterStoreResponse {}.encode_to_vec())
            }),
            "Normalize" => decode::<pb::NormalizeRequest>(param).and_then(|r| {
                let mut tables: Vec<TableName> = Vec::new();
                for t in &r.table_names {
                    tables.push(table_name(t)?);
                }
                if r.regex.is_some() || r.namespace.is_some() {
                    tables.extend(self.names(r.regex.as_deref(), false, r.namespace.as_deref())?);
                    if tables.is_empty() {
                        // Nothing matched: nothing to normalize (not every table).
                        return Ok(pb::NormalizeResponse {
                            normalizer_ran: admin.chore_enabled(Chore::Normalizer),
                        }
                        .encode_to_vec());
                    }
                }
                let ran = admin.normalize(&tables).map_err(|e| fail(&e))?;
                Ok(pb::NormalizeResponse {
                    normalizer_ran: ran,
                }
                .encode_to_vec())
            }),
            "SetNormalizerRunning" => {
                decode::<pb::SetNormalizerRunningRequest>(param).and_then(|r| {
                    let was = admin
                        .chore_switch(Chore::Normalizer, r.on)
                        .map_err(|e| fail(&e))?;
                    Ok(pb::SetNormalizerRunningResponse {
                        prev_normalizer_value: Some(was),
                    }
                    .encode_to_vec())
                })
            }
            "SetCleanerChoreRunning" => decode::<pb::SetCleanerChoreRunningRequest>(param)
                .and_then(|r| {
                    let was = admin
                        .chore_switch(Chore::Cleaner, r.on)
                        .map_err(|e| fail(&e))?;
                    Ok(pb::SetCleanerChoreRunningResponse {
                        prev_value: Some(was),
                    }
                    .encode_to_vec())
                }),
            "SwitchSnapshotCleanup" => {
                decode::<pb::SetSnapshotCleanupRequest>(param).and_then(|r| {
                    let was = admin
                        .chore_switch(Chore::SnapshotCleanup, r.enabled)
                        .map_err(|e| fail(&e))?;
                    Ok(pb::SetSnapshotCleanupResponse {
                        prev_snapshot_cleanup: was,
                    }
                    .encode_to_vec())
                })
            }
            "IsSnapshotCleanupEnabled" => {
                decode::<pb::IsSnapshotCleanupEnabledRequest>(param).map(|_| {
                    pb::IsSnapshotCleanupEnabledResponse {
                        enabled: admin.chore_enabled(Chore::SnapshotCleanup),
                    }
                    .encode_to_vec()
                })
            }
            "IsCleanerChoreEnabled" => {
                decode::<pb::IsCleanerChoreEnabledRequest>(param).map(|_| {
                    pb::IsCleanerChoreEnabledResponse {
                        value: admin.chore_enabled(Chore::Cleaner),
                    }
                    .encode_to_vec()
                })
            }
            "RunCleanerChore" => decode::<pb::RunCleanerChoreRequest>(param).and_then(|_| {
                admin.run_cleaner_chore().map_err(|e| fail(&e))?;
                Ok(pb::RunCleanerChoreResponse {
                    cleaner_chore_ran: true,
                }
                .encode_to_vec())
            }),
            "IsNormalizerEnabled" => decode::<pb::IsNormalizerEnabledRequest>(param).map(|_| {
                pb::IsNormalizerEnabledResponse {
                    enabled: admin.chore_enabled(Chore::Normalizer),
                }
                .encode_to_vec()
            }),
            "RunCatalogScan" => decode::<pb::RunCatalogScanRequest>(param).and_then(|_| {
                let cleaned = admin.run_catalog_janitor().map_err(|e| fail(&e))?;
                Ok(pb::RunCatalogScanResponse {
                    scan_result: Some(i32::try_from(cleaned).unwrap_or(i32::MAX)),
                }
                .encode_to_vec())
            }),
            "EnableCatalogJanitor" => {
                decode::<pb::EnableCatalogJanitorRequest>(param).and_then(|r| {
                    let was = admin
                        .chore_switch(Chore::CatalogJanitor, r.enable)
                        .map_err(|e| fail(&e))?;
                    Ok(pb::EnableCatalogJanitorResponse {
                        prev_value: Some(was),
                    }
                    .encode_to_vec())
                })
            }
            "IsCatalogJanitorEnabled" => {
                decode::<pb::IsCatalogJanitorEnabledRequest>(param).map(|_| {
                    pb::IsCatalogJanitorEnabledResponse {
                        value: admin.chore_enabled(Chore::CatalogJanitor),
                    }
                    .encode_to_vec()
                })
            }
            "IsSplitOrMergeEnabled" => decode::<pb::IsSplitOrMergeEnabledRequest>(param).map(|r| {
                let split = r.switch_type == pb::MasterSwitchType::Split as i32;
                pb::IsSplitOrMergeEnabledResponse {
                    enabled: admin.split_or_merge_enabled(split),
                }
                .encode_to_vec()
            }),
            "getSecurityCapabilities" => {
                decode::<pb::SecurityCapabilitiesRequest>(param).map(|_| {
                    use pb::security_capabilities_response::Capability as C;
                    let mut caps = vec![if self.secure_authentication {
                        C::SecureAuthentication
                    } else {
                        C::SimpleAuthentication
                    } as i32];
                    if self.master.access.is_enabled() {
                        caps.push(C::Authorization as i32);
                    }
                    pb::SecurityCapabilitiesResponse { capabilities: caps }.encode_to_vec()
                })
            }
            // Basalt's master has no maintenance mode (HBase's hbase.master.maintenance_mode).
            "IsMasterInMaintenanceMode" => {
                decode::<pb::IsInMaintenanceModeRequest>(param).map(|_| {
                    pb::IsInMaintenanceModeResponse {
                        in_maintenance_mode: false,
                    }
                    .encode_to_vec()
                })
            }
            "StopMaster" => decode::<pb::StopMasterRequest>(param).and_then(|_| {
                let flag = self.stop.as_ref().ok_or_else(|| {
                    bad("a standalone server's master stops only with its process")
                })?;
                flag.store(true, Ordering::Release);
                Ok(pb::StopMasterResponse {}.encode_to_vec())
            }),
            "ClearDeadServers" => decode::<pb::ClearDeadServersRequest>(param).map(|r| {
                let names: Vec<String> = r.server_name.iter().map(server_name_text).collect();
                let kept = admin.clear_dead_servers(&names);
                pb::ClearDeadServersResponse {
                    server_name: kept
                        .iter()
                        .filter_map(|n| ServerName::parse(n))
                        .map(|n| self.named(&n))
                        .collect(),
                }
                .encode_to_vec()
            }),
            "DecommissionRegionServers" => decode::<pb::DecommissionRegionServersRequest>(param)
                .and_then(|r| {
                    let names: Vec<String> = r.server_name.iter().map(server_name_text).collect();
                    admin
                        .decommission_region_servers(&names, r.offload)
                        .map_err(|e| fail(&e))?;
                    Ok(pb::DecommissionRegionServersResponse {}.encode_to_vec())
                }),
            "RecommissionRegionServer" => decode::<pb::RecommissionRegionServerRequest>(param)
                .and_then(|r| {
                    let regions: Vec<Vec<u8>> = r.region.iter().map(|s| s.value.clone()).collect();
                    admin
                        .recommission_region_server(&server_name_text(&r.server_name), &regions)
                        .map_err(|e| fail(&e))?;
                    Ok(pb::RecommissionRegionServerResponse {}.encode_to_vec())
                }),
            "ListDecommissionedRegionServers" => {
                decode::<pb::ListDecommissionedRegionServersRequest>(param).map(|_| {
                    pb::ListDecommissionedRegionServersResponse {
                        server_name: admin
                            .decommissioned_region_servers()
                            .iter()
                            .filter_map(|n| ServerName::parse(n))
                            .map(|n| self.named(&n))
                            .collect(),
                    }
                    .encode_to_vec()
                })
            }
            "ListReplicationPeers" => {
                decode::<pb::ListReplicationPeersRequest>(param).and_then(|r| {
                    let pattern = r.regex.as_deref().unwrap_or(".*");
                    let re = regex::Regex::new(&format!("^(?:{pattern})$"))
                        .map_err(|e| bad(format!("regex {pattern:?}: {e}")))?;
                    let peers = admin.list_peers().map_err(|e| fail(&e))?;
                    Ok(pb::ListReplicationPeersResponse {
                        peer_desc: peers
                            .iter()
                            .filter(|p| re.is_match(&p.id))
                            .map(replication::pb_description)
                            .collect(),
                    }
                    .encode_to_vec())
                })
            }
            _ => return None,
        })
    }

    /// Table names by regex, system tables and namespace, sorted.
    fn names(
        &self,
        regex: Option<&str>,
        include_system: bool,
        namespace: Option<&str>,
    ) -> Result<Vec<TableName>, ExceptionResponse> {
        let admin = Admin::new(Arc::clone(&self.master));
        let mut names = admin
            .list_table_names_matching(regex.unwrap_or(".*"), include_system)
            .map_err(|e| fail(&e))?;
        if let Some(ns) = namespace.filter(|n| !n.is_empty()) {
            names.retain(|t| t.namespace() == ns);
        }
        names.sort();
        Ok(names)
    }
}

/// A server named in a request: `host,port,startcode`, or `host:port` without a start code.
fn server_name_text(s: &pb::ServerName) -> String {
    match (s.port, s.start_code) {
        (Some(port), Some(code)) => format!("{},{port},{code}", s.host_name),
        (Some(port), None) => format!("{}:{port}", s.host_name),
        _ => s.host_name.clone(),
    }
}

/// A memory figure from a `/proc` file (`key` then kilobytes), in MiB: the server load's
/// "heap" figures, since Basalt has no heap of its own to report (the process's resident
/// memory is its used heap, the machine's memory its maximum). `None` where the file is not
/// there (not Linux).
fn memory_mb(file: &str, key: &str) -> Option<u32> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    u32::try_from(kb / 1024).ok()
}

impl basalt_proto::service::Service for MasterService {
    fn name(&self) -> &'static str {
        "MasterService"
    }

    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        _cell_block: &basalt_common::Bytes,
        caller: Option<&basalt_common::acl::User>,
    ) -> Option<Outcome> {
        MasterService::call(self, method, param, caller)
    }
}
