//! The cluster: its status, its servers (decommissioned, dead), the master's procedures,
//! locks and logs. Changing any of it needs global ADMIN, and so does reading the
//! procedures, locks and logs; the status and capabilities are open to all.

use basalt_proto::pb;

use crate::declare::operations;
use crate::need;

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
