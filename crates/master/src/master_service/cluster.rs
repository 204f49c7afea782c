//! The cluster and the master, as MasterService serves them: the cluster's status, its
//! servers, the master's procedures, locks and balancer log, and its switches.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;

use basalt_common::chore::Chore;
use basalt_common::{Error, Result, ServerName};
use basalt_ops::chores::ChoreHandler;
use basalt_ops::cluster::ClusterHandler;
use basalt_proto::pb::{
    self, ClusterStatusOption, GetClusterStatusResponse, HBaseVersionFileContent, LiveServerInfo,
    RegionLoad, RegionStatesCount, ServerLoad, TableRegionStatesCount,
};
use basalt_proto::schema::pb_table_name;
use prost::Message;

use super::MasterService;

impl MasterService {
    /// This master's name: the address it serves at, with its start code (standalone: the
    /// region server's, whose process it shares).
    pub(super) fn master_name(&self) -> pb::ServerName {
        let start_code = self
            .master
            .servers
            .all()
            .first()
            .map_or(0, |s| s.name().start_code);
        pb::ServerName {
            host_name: self.master_addr.ip().to_string(),
            port: Some(u32::from(self.master_addr.port())),
            start_code: u64::try_from(self.start_code.unwrap_or(start_code)).ok(),
        }
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
    pub(super) fn pb_server(&self, name: &ServerName) -> pb::ServerName {
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
    fn cluster_status(&self, options: &[i32]) -> GetClusterStatusResponse {
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
        let master_name = self.master_name();
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
        GetClusterStatusResponse {
            cluster_status: status,
        }
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

impl ClusterHandler for MasterService {
    fn get_cluster_status(
        &self,
        r: pb::GetClusterStatusRequest,
    ) -> Result<pb::GetClusterStatusResponse> {
        Ok(self.cluster_status(&r.options))
    }

    fn clear_dead_servers(
        &self,
        r: pb::ClearDeadServersRequest,
    ) -> Result<pb::ClearDeadServersResponse> {
        let names: Vec<String> = r.server_name.iter().map(server_name_text).collect();
        let kept = self.admin().clear_dead_servers(&names);
        Ok(pb::ClearDeadServersResponse {
            server_name: kept
                .iter()
                .filter_map(|n| ServerName::parse(n))
                .map(|n| self.named(&n))
                .collect(),
        })
    }

    fn decommission_region_servers(
        &self,
        r: pb::DecommissionRegionServersRequest,
    ) -> Result<pb::DecommissionRegionServersResponse> {
        let names: Vec<String> = r.server_name.iter().map(server_name_text).collect();
        self.admin()
            .decommission_region_servers(&names, r.offload)?;
        Ok(pb::DecommissionRegionServersResponse {})
    }

    fn recommission_region_server(
        &self,
        r: pb::RecommissionRegionServerRequest,
    ) -> Result<pb::RecommissionRegionServerResponse> {
        let regions: Vec<Vec<u8>> = r.region.iter().map(|s| s.value.clone()).collect();
        self.admin()
            .recommission_region_server(&server_name_text(&r.server_name), &regions)?;
        Ok(pb::RecommissionRegionServerResponse {})
    }

    fn list_decommissioned_region_servers(
        &self,
        _: pb::ListDecommissionedRegionServersRequest,
    ) -> Result<pb::ListDecommissionedRegionServersResponse> {
        Ok(pb::ListDecommissionedRegionServersResponse {
            server_name: self
                .admin()
                .decommissioned_region_servers()
                .iter()
                .filter_map(|n| ServerName::parse(n))
                .map(|n| self.named(&n))
                .collect(),
        })
    }

    fn stop_master(&self, _: pb::StopMasterRequest) -> Result<pb::StopMasterResponse> {
        let flag = self.stop.as_ref().ok_or_else(|| {
            Error::Refused("a standalone server's master stops only with its process".into())
        })?;
        flag.store(true, Ordering::Release);
        Ok(pb::StopMasterResponse {})
    }

    /// Basalt's master has no maintenance mode (HBase's hbase.master.maintenance_mode).
    fn is_master_in_maintenance_mode(
        &self,
        _: pb::IsInMaintenanceModeRequest,
    ) -> Result<pb::IsInMaintenanceModeResponse> {
        Ok(pb::IsInMaintenanceModeResponse {
            in_maintenance_mode: false,
        })
    }

    fn security_capabilities(
        &self,
        _: pb::SecurityCapabilitiesRequest,
    ) -> Result<pb::SecurityCapabilitiesResponse> {
        use pb::security_capabilities_response::Capability as C;
        let mut caps = vec![if self.secure_authentication {
            C::SecureAuthentication
        } else {
            C::SimpleAuthentication
        } as i32];
        if self.master.access.is_enabled() {
            caps.push(C::Authorization as i32);
        }
        Ok(pb::SecurityCapabilitiesResponse { capabilities: caps })
    }

    fn get_procedures(&self, _: pb::GetProceduresRequest) -> Result<pb::GetProceduresResponse> {
        Ok(pb::GetProceduresResponse {
            procedure: self
                .master
                .procedure_log
                .procedures()
                .iter()
                .map(basalt_proto::procedure_pb)
                .collect(),
        })
    }

    fn get_locks(&self, _: pb::GetLocksRequest) -> Result<pb::GetLocksResponse> {
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
                waiting_procedures: l.waiting.iter().map(basalt_proto::procedure_pb).collect(),
            })
            .collect();
        Ok(pb::GetLocksResponse { lock })
    }

    fn get_log_entries(&self, r: pb::LogRequest) -> Result<pb::LogEntry> {
        const OUTER: &str = "org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos$";
        let log = &self.master.balancer_log;
        let limit = |l: Option<u32>| l.map_or(usize::MAX, |l| l as usize);
        let (class, message) = if r.log_class_name.ends_with("BalancerDecisionsRequest") {
            let q: pb::BalancerDecisionsRequest = decode_log(&r.log_message)?;
            let decisions =
                log.decisions(limit(q.limit))
                    .into_iter()
                    .map(|d| pb::BalancerDecision {
                        initial_function_costs: d.initial_function_costs,
                        final_function_costs: d.final_function_costs,
                        init_total_cost: d.init_total_cost,
                        computed_total_cost: d.computed_total_cost,
                        computed_steps: d.computed_steps,
                        region_plans: d.region_plans,
                    });
            let answer = pb::BalancerDecisionsResponse {
                balancer_decision: decisions.collect(),
            };
            ("BalancerDecisionsResponse", answer.encode_to_vec())
        } else if r.log_class_name.ends_with("BalancerRejectionsRequest") {
            let q: pb::BalancerRejectionsRequest = decode_log(&r.log_message)?;
            let rejections =
                log.rejections(limit(q.limit))
                    .into_iter()
                    .map(|r| pb::BalancerRejection {
                        reason: r.reason,
                        cost_func_info: r.cost_func_info,
                    });
            let answer = pb::BalancerRejectionsResponse {
                balancer_rejection: rejections.collect(),
            };
            ("BalancerRejectionsResponse", answer.encode_to_vec())
        } else {
            return Err(Error::Refused(format!(
                "a master keeps the balancer's decisions and rejections, not {}",
                r.log_class_name
            )));
        };
        Ok(pb::LogEntry {
            log_class_name: format!("{OUTER}{class}"),
            log_message: message,
        })
    }

    fn flush_master_store(
        &self,
        _: pb::FlushMasterStoreRequest,
    ) -> Result<pb::FlushMasterStoreResponse> {
        crate::procedures::flush_meta(&self.master)?;
        Ok(pb::FlushMasterStoreResponse {})
    }
}

/// The query a LogRequest carries.
fn decode_log<M: Message + Default>(bytes: &[u8]) -> Result<M> {
    M::decode(bytes).map_err(|e| Error::Refused(format!("cannot decode the request: {e}")))
}

/// A chore's switch and its query, as MasterService names them: `$set` turns `$chore` on or
/// off by the request's `$on` and answers its previous state in `$prev` (through `$wrap`:
/// `Some` where the field is optional); `$is` answers whether it is on in `$value`.
macro_rules! chore_switch {
    (
        $set:ident($set_req:ident.$on:ident) -> $set_resp:ident { $prev:ident: $wrap:path },
        $is:ident($is_req:ident) -> $is_resp:ident { $value:ident },
        $chore:expr
    ) => {
        fn $set(&self, r: pb::$set_req) -> Result<pb::$set_resp> {
            let was = self.admin().chore_switch($chore, r.$on)?;
            Ok(pb::$set_resp { $prev: $wrap(was) })
        }

        fn $is(&self, _: pb::$is_req) -> Result<pb::$is_resp> {
            Ok(pb::$is_resp {
                $value: self.admin().chore_enabled($chore),
            })
        }
    };
}

impl ChoreHandler for MasterService {
    fn run_catalog_scan(&self, _: pb::RunCatalogScanRequest) -> Result<pb::RunCatalogScanResponse> {
        let cleaned = self.admin().run_catalog_janitor()?;
        Ok(pb::RunCatalogScanResponse {
            scan_result: Some(i32::try_from(cleaned).unwrap_or(i32::MAX)),
        })
    }

    chore_switch! {
        enable_catalog_janitor(EnableCatalogJanitorRequest.enable)
            -> EnableCatalogJanitorResponse { prev_value: Some },
        is_catalog_janitor_enabled(IsCatalogJanitorEnabledRequest)
            -> IsCatalogJanitorEnabledResponse { value },
        Chore::CatalogJanitor
    }

    fn run_cleaner_chore(
        &self,
        _: pb::RunCleanerChoreRequest,
    ) -> Result<pb::RunCleanerChoreResponse> {
        self.admin().run_cleaner_chore()?;
        Ok(pb::RunCleanerChoreResponse {
            cleaner_chore_ran: true,
        })
    }

    chore_switch! {
        set_cleaner_chore_running(SetCleanerChoreRunningRequest.on)
            -> SetCleanerChoreRunningResponse { prev_value: Some },
        is_cleaner_chore_enabled(IsCleanerChoreEnabledRequest)
            -> IsCleanerChoreEnabledResponse { value },
        Chore::Cleaner
    }

    chore_switch! {
        set_normalizer_running(SetNormalizerRunningRequest.on)
            -> SetNormalizerRunningResponse { prev_normalizer_value: Some },
        is_normalizer_enabled(IsNormalizerEnabledRequest)
            -> IsNormalizerEnabledResponse { enabled },
        Chore::Normalizer
    }

    chore_switch! {
        switch_snapshot_cleanup(SetSnapshotCleanupRequest.enabled)
            -> SetSnapshotCleanupResponse { prev_snapshot_cleanup: std::convert::identity },
        is_snapshot_cleanup_enabled(IsSnapshotCleanupEnabledRequest)
            -> IsSnapshotCleanupEnabledResponse { enabled },
        Chore::SnapshotCleanup
    }
}
