//! The cluster: its status, its servers (decommissioned, dead), the master's procedures,
//! locks and logs. Changing any of it needs global ADMIN, and so does reading the
//! procedures, locks and logs; the status and capabilities are open to all.

use basalt_common::balancer_log::{Decision, Rejection};
use basalt_common::procedure::{Lock, Procedure, Resource};
use basalt_common::{Error, Result};
use basalt_proto::pb;

use crate::declare::{calls, operations};
use crate::{Changed, need};

operations! {
    /// The cluster and the master.
    area Cluster, handler ClusterHandler;
    /// The cluster's status: servers, regions, loads.
    GetClusterStatus(pb::GetClusterStatusRequest) -> pb::GetClusterStatusResponse
        = get_cluster_status, need need::anyone;
    /// Forgets dead servers; answers those it kept.
    ClearDeadServers(pb::ClearDeadServersRequest) -> pb::ClearDeadServersResponse
        = clear_dead_servers, need need::admin;
    /// Takes servers out of service, moving their regions off if asked.
    DecommissionRegionServers(pb::DecommissionRegionServersRequest)
        -> pb::DecommissionRegionServersResponse = decommission_region_servers, need need::admin;
    /// Puts a server back in service, with regions to move back.
    RecommissionRegionServer(pb::RecommissionRegionServerRequest)
        -> pb::RecommissionRegionServerResponse = recommission_region_server, need need::admin;
    /// The servers out of service.
    ListDecommissionedRegionServers(pb::ListDecommissionedRegionServersRequest)
        -> pb::ListDecommissionedRegionServersResponse
        = list_decommissioned_region_servers, need need::admin;
    /// Stops a cluster's master (a backup takes over).
    StopMaster(pb::StopMasterRequest) -> pb::StopMasterResponse = stop_master,
        need need::admin;
    /// Whether the master is in maintenance mode (Basalt's never is).
    IsMasterInMaintenanceMode(pb::IsInMaintenanceModeRequest) -> pb::IsInMaintenanceModeResponse
        = is_master_in_maintenance_mode, need need::anyone;
    /// How callers authenticate and whether access is checked.
    SecurityCapabilities as "getSecurityCapabilities" (pb::SecurityCapabilitiesRequest)
        -> pb::SecurityCapabilitiesResponse = security_capabilities, need need::anyone;
    /// The master's procedures.
    GetProcedures(pb::GetProceduresRequest) -> pb::GetProceduresResponse = get_procedures,
        need need::admin;
    /// The locks the master's procedures hold.
    GetLocks(pb::GetLocksRequest) -> pb::GetLocksResponse = get_locks, need need::admin;
    /// The balancer's decisions or rejections.
    GetLogEntries(pb::LogRequest) -> pb::LogEntry = get_log_entries, need need::admin;
    /// Writes the catalog's memstore to a file.
    FlushMasterStore(pb::FlushMasterStoreRequest) -> pb::FlushMasterStoreResponse
        = flush_master_store, need need::admin;
}

/// Servers named `host,port,startcode` or `host:port`, as requests carry them.
fn server_names(servers: &[String]) -> Result<Vec<pb::ServerName>> {
    servers
        .iter()
        .map(|s| basalt_proto::server_name(s))
        .collect()
}

/// One of the master's logs (GetLogEntries): request `Q` as the log names it, answer `R`.
async fn log_entries<C, Q, R>(c: &C, request: &str, message: &Q) -> Result<R>
where
    C: crate::AsyncCaller + ?Sized,
    Q: prost::Message,
    R: prost::Message + Default,
{
    const OUTER: &str = "org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos$";
    let request = pb::LogRequest {
        log_class_name: format!("{OUTER}{request}"),
        log_message: message.encode_to_vec(),
    };
    let entry = c.call::<GetLogEntries>(None, request).await?;
    R::decode(&entry.log_message[..])
        .map_err(|e| Error::corrupt(format!("the master's log entries: {e}")))
}

/// A lock as the master reports it (None: a peer's, which Basalt's locks do not show).
fn lock_of(l: &pb::LockedResource) -> Option<Lock> {
    let name = l.resource_name.clone().unwrap_or_default();
    let resource = match l.resource_type() {
        pb::LockedResourceType::Server => Resource::Server(name),
        pb::LockedResourceType::Namespace => Resource::Namespace(name),
        pb::LockedResourceType::Table => Resource::Table(name),
        pb::LockedResourceType::Region => Resource::Region(name),
        pb::LockedResourceType::Peer => return None,
    };
    let mut owner = basalt_proto::procedure(l.exclusive_lock_owner_procedure.as_ref()?);
    owner.resource = resource.clone();
    Some(Lock {
        resource,
        owner,
        waiting: l
            .waiting_procedures
            .iter()
            .map(basalt_proto::procedure)
            .collect(),
    })
}

calls! {
    /// The cluster: its servers, the master's procedures, locks and logs.
    ClusterAdmin, AsyncClusterAdmin;

    /// Takes servers out of service, moving their regions away if `offload`.
    async fn decommission_region_servers(c, servers: &[String], offload: bool) -> Result<()> {
        let request = pb::DecommissionRegionServersRequest {
            server_name: server_names(servers)?,
            offload,
        };
        c.call::<DecommissionRegionServers>(None, request).await?;
        c.changed(Changed::Regions);
        Ok(())
    }

    /// Puts a server back in service, moving `regions` (full names) back onto it.
    async fn recommission_region_server(c, server: &str, regions: &[Vec<u8>]) -> Result<()> {
        let request = pb::RecommissionRegionServerRequest {
            server_name: basalt_proto::server_name(server)?,
            region: regions.iter().map(|r| basalt_proto::region(r)).collect(),
        };
        c.call::<RecommissionRegionServer>(None, request).await?;
        c.changed(Changed::Regions);
        Ok(())
    }

    /// The servers out of service, `host,port,startcode`.
    async fn decommissioned_region_servers(c) -> Result<Vec<String>> {
        let request = pb::ListDecommissionedRegionServersRequest {};
        let r = c.call::<ListDecommissionedRegionServers>(None, request).await?;
        Ok(r.server_name.iter().map(basalt_proto::server_text).collect())
    }

    /// Forgets dead servers; returns the names it could not.
    async fn clear_dead_servers(c, servers: &[String]) -> Result<Vec<String>> {
        let request = pb::ClearDeadServersRequest {
            server_name: server_names(servers)?,
        };
        let r = c.call::<ClearDeadServers>(None, request).await?;
        Ok(r.server_name.iter().map(basalt_proto::server_text).collect())
    }

    /// Stops the active master alone (a backup takes over).
    async fn stop_master(c) -> Result<()> {
        c.call::<StopMaster>(None, pb::StopMasterRequest {}).await?;
        Ok(())
    }

    /// Whether the master is in maintenance mode.
    async fn in_maintenance_mode(c) -> Result<bool> {
        let r = c
            .call::<IsMasterInMaintenanceMode>(None, pb::IsInMaintenanceModeRequest {})
            .await?;
        Ok(r.in_maintenance_mode)
    }

    /// The cluster's security capabilities, by HBase's names (`SIMPLE_AUTHENTICATION`, ...).
    async fn security_capabilities(c) -> Result<Vec<String>> {
        use pb::security_capabilities_response::Capability;
        let r = c
            .call::<SecurityCapabilities>(None, pb::SecurityCapabilitiesRequest {})
            .await?;
        Ok(r.capabilities
            .iter()
            .filter_map(|c| Capability::try_from(*c).ok())
            .map(|c| c.as_str_name().to_owned())
            .collect())
    }

    /// The master's procedures.
    async fn procedures(c) -> Result<Vec<Procedure>> {
        let r = c.call::<GetProcedures>(None, pb::GetProceduresRequest {}).await?;
        Ok(r.procedure.iter().map(basalt_proto::procedure).collect())
    }

    /// The locks the master's procedures hold.
    async fn locks(c) -> Result<Vec<Lock>> {
        let r = c.call::<GetLocks>(None, pb::GetLocksRequest {}).await?;
        Ok(r.lock.iter().filter_map(lock_of).collect())
    }

    /// The balancer's recent decisions and rejections, at most `limit` of each.
    async fn balancer_log(c, limit: usize) -> Result<(Vec<Decision>, Vec<Rejection>)> {
        let limit = Some(u32::try_from(limit).unwrap_or(u32::MAX));
        let decisions: pb::BalancerDecisionsResponse = log_entries(
            c,
            "BalancerDecisionsRequest",
            &pb::BalancerDecisionsRequest { limit },
        )
        .await?;
        let rejections: pb::BalancerRejectionsResponse = log_entries(
            c,
            "BalancerRejectionsRequest",
            &pb::BalancerRejectionsRequest { limit },
        )
        .await?;
        let decisions = decisions
            .balancer_decision
            .into_iter()
            .map(|d| Decision {
                initial_function_costs: d.initial_function_costs,
                final_function_costs: d.final_function_costs,
                init_total_cost: d.init_total_cost,
                computed_total_cost: d.computed_total_cost,
                computed_steps: d.computed_steps,
                region_plans: d.region_plans,
            })
            .collect();
        let rejections = rejections
            .balancer_rejection
            .into_iter()
            .map(|r| Rejection {
                reason: r.reason,
                cost_func_info: r.cost_func_info,
            })
            .collect();
        Ok((decisions, rejections))
    }

    /// Flushes `hbase:meta`, the master's store.
    async fn flush_master_store(c) -> Result<()> {
        c.call::<FlushMasterStore>(None, pb::FlushMasterStoreRequest {})
            .await?;
        Ok(())
    }
}
