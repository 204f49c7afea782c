//! MasterService's and AdminService's calls for tables, families, namespaces and regions:
//! written once ([`AdminCalls`]) for the blocking [`RemoteAdmin`] and the async
//! [`super::AsyncAdmin`].

use super::*;
use basalt_common::balancer_log::{Decision, Rejection};
use basalt_common::chore::Chore;
use basalt_common::procedure::{Lock, Procedure};
use basalt_common::rsgroup::{RsGroupChange, RsGroupInfo};
use basalt_common::slowlog::{Filter as SlowLogFilter, SlowCall};

/// Table administration of a remote server: MasterService's table calls (Basalt's procedures
/// are finished when a call returns, so no procedure is polled), AdminService's flushes.
#[derive(Debug)]
pub struct RemoteAdmin<'c> {
    pub(super) conn: &'c RemoteConnection,
}

impl RemoteAdmin<'_> {
    fn calls(&self) -> AdminCalls<'_, Blocking> {
        AdminCalls {
            conn: &self.conn.core,
        }
    }
}

impl basalt_ops::Caller for RemoteConnection {
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> Result<MasterResponse> {
        block(self.core.master_operation(on, request))
    }

    fn changed(&self, what: Changed<'_>) {
        self.core.changed(what);
    }
}

impl basalt_ops::Caller for RemoteAdmin<'_> {
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> Result<MasterResponse> {
        block(self.conn.core.master_operation(on, request))
    }

    fn changed(&self, what: Changed<'_>) {
        self.conn.core.changed(what);
    }
}

/// The administration calls, blocking or async, on a connection's core.
pub(super) struct AdminCalls<'c, T: Transport> {
    pub(super) conn: &'c Core<T>,
}

impl<T: Transport> AdminCalls<'_, T> {
    async fn master<Q: prost::Message, R: prost::Message + Default>(
        &self,
        table: &TableName,
        method: &str,
        request: &Q,
    ) -> Result<R> {
        let c = self.conn;
        c.call_master(method, request)
            .await
            .map_err(|e| settled(table, e))
    }

    fn done(&self, table: &TableName) {
        self.conn.forget(table);
    }

    /// The table named in errors of calls that concern no table.
    fn meta_name() -> Result<TableName> {
        TableName::new("hbase", "meta")
    }

    /// Writes each of the table's memstores to store files (AdminService FlushRegion on every
    /// region).
    async fn flush(&self, name: &TableName) -> Result<()> {
        self.each_region(name, "FlushRegion", |r| pb::FlushRegionRequest {
            region: region(&r.name),
            ..pb::FlushRegionRequest::default()
        })
        .await
    }

    /// Compacts each of the table's regions (AdminService CompactRegion), minor or major.
    async fn compact(&self, name: &TableName, major: bool) -> Result<()> {
        self.each_region(name, "CompactRegion", |r| pb::CompactRegionRequest {
            region: region(&r.name),
            major: Some(major),
            family: None,
        })
        .await
    }

    /// Compacts one region, named by its full name (AdminService CompactRegion).
    async fn compact_region(&self, name: &[u8], major: bool) -> Result<()> {
        let table = name
            .split(|&b| b == b',')
            .next()
            .and_then(|t| std::str::from_utf8(t).ok())
            .and_then(|t| TableName::parse(t).ok())
            .filter(|_| name.contains(&b','))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{} is not a region name",
                    String::from_utf8_lossy(name)
                ))
            })?;
        let c = self.conn;
        let server = c
            .locations(&table)
            .await
            .ok()
            .and_then(|regions| {
                regions
                    .iter()
                    .find(|l| l.name == name)
                    .map(|l| c.server_of(l))
            })
            .unwrap_or_else(|| c.meta_addr());
        let _: pb::CompactRegionResponse = c
            .call_admin(
                server,
                "CompactRegion",
                &pb::CompactRegionRequest {
                    region: region(name),
                    major: Some(major),
                    family: None,
                },
            )
            .await
            .map_err(|e| settled(&table, e))?;
        Ok(())
    }

    /// One AdminService call per region of the table, the request built by `request`.
    async fn each_region<Q: prost::Message>(
        &self,
        name: &TableName,
        method: &str,
        request: impl Fn(&Location) -> Q,
    ) -> Result<()> {
        let c = self.conn;
        retrying!(c, name, |regions| {
            for r in regions {
                let _: pb::Empty = c
                    .call_admin(c.server_of(r), method, &request(r))
                    .await
                    .map_err(|e| classify(name, e))?;
            }
            Ok(())
        })
    }

    /// Splits the region holding `at` there (MasterService SplitRegion, as HBase 2's
    /// `split(table, splitPoint)`), or, with no row, every region at its own split point
    /// (regions too small to split are left alone, as embedded).
    async fn split(&self, name: &TableName, at: Option<&[u8]>) -> Result<()> {
        let c = self.conn;
        let targets: Vec<Location> = retrying!(c, name, |regions| match at {
            Some(row) => Ok(vec![row_region(regions, row)?.clone()]),
            None => Ok(regions.to_vec()),
        })?;
        for target in targets {
            let info: pb::GetRegionInfoResponse = c
                .call_admin(
                    c.server_of(&target),
                    "GetRegionInfo",
                    &pb::GetRegionInfoRequest {
                        region: region(&target.name),
                        compaction_state: None,
                        best_split_row: None,
                    },
                )
                .await
                .map_err(|e| settled(name, e))?;
            let done = self
                .master::<_, pb::ProcedureResponse>(
                    name,
                    "SplitRegion",
                    &pb::SplitTableRegionRequest {
                        region_info: info.region_info,
                        split_row: at.map(<[u8]>::to_vec),
                        ..pb::SplitTableRegionRequest::default()
                    },
                )
                .await;
            match done {
                Ok(_) => {}
                Err(Error::Refused(_)) if at.is_none() => {}
                Err(e) => return Err(e),
            }
        }
        self.done(name);
        Ok(())
    }

    /// Merges two adjacent regions, named by their full names (MasterService
    /// MergeTableRegions).
    async fn merge_regions(&self, name: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        let _: pb::ProcedureResponse = self
            .master(
                name,
                "MergeTableRegions",
                &pb::MergeTableRegionsRequest {
                    region: vec![region(a), region(b)],
                    ..pb::MergeTableRegionsRequest::default()
                },
            )
            .await?;
        self.done(name);
        Ok(())
    }

    /// A MasterService call about no table in particular.
    pub(super) async fn cluster_call<Q: prost::Message, R: prost::Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> Result<R> {
        self.master(&TableName::parse("hbase:meta")?, method, request)
            .await
    }

    /// Grants a permission (MasterService Grant).
    async fn grant(&self, p: &basalt_common::acl::Permission, merge: bool) -> Result<()> {
        let _: pb::GrantResponse = self
            .cluster_call(
                "Grant",
                &pb::GrantRequest {
                    user_permission: basalt_proto::acl::user_permission(p),
                    merge_existing_permissions: Some(merge),
                },
            )
            .await?;
        Ok(())
    }

    /// Revokes what `principal` holds at `scope` (MasterService Revoke).
    async fn revoke(&self, principal: &str, scope: &basalt_common::acl::Scope) -> Result<()> {
        let p = basalt_common::acl::Permission {
            principal: principal.to_owned(),
            scope: scope.clone(),
            // The actions do not matter to a revoke; HBase's message needs some.
            actions: basalt_common::acl::Actions::of(&[basalt_common::acl::Action::Read]),
        };
        let _: pb::RevokeResponse = self
            .cluster_call(
                "Revoke",
                &pb::RevokeRequest {
                    user_permission: basalt_proto::acl::user_permission(&p),
                },
            )
            .await?;
        Ok(())
    }

    /// The grants at `scope` and inside it (MasterService GetUserPermissions).
    async fn user_permissions(
        &self,
        scope: &basalt_common::acl::Scope,
    ) -> Result<Vec<basalt_common::acl::Permission>> {
        let r: pb::GetUserPermissionsResponse = self
            .cluster_call(
                "GetUserPermissions",
                &basalt_proto::acl::permissions_request(scope),
            )
            .await?;
        r.user_permission
            .iter()
            .map(|u| basalt_proto::acl::permission_of(u).map_err(Error::corrupt))
            .collect()
    }

    /// Takes snapshot `name` of `table` (MasterService Snapshot).
    async fn snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        self.snapshot_with_ttl(name, table, 0).await
    }

    /// Takes snapshot `name` of `table` to live `ttl_secs` seconds (0: for ever).
    async fn snapshot_with_ttl(&self, name: &str, table: &TableName, ttl_secs: i64) -> Result<()> {
        let mut snapshot = snapshot_description(name, Some(table));
        snapshot.ttl = (ttl_secs != 0).then_some(ttl_secs);
        let _: pb::SnapshotResponse = self
            .master(table, "Snapshot", &pb::SnapshotRequest { snapshot })
            .await?;
        Ok(())
    }

    /// Every snapshot (MasterService GetCompletedSnapshots).
    async fn list_snapshots(&self) -> Result<Vec<crate::SnapshotInfo>> {
        let r: pb::GetCompletedSnapshotsResponse = self
            .cluster_call(
                "GetCompletedSnapshots",
                &pb::GetCompletedSnapshotsRequest {},
            )
            .await?;
        r.snapshots
            .into_iter()
            .map(|s| {
                Ok(crate::SnapshotInfo {
                    table: TableName::parse(s.table.as_deref().unwrap_or_default())?,
                    creation_time: s.creation_time.unwrap_or(0),
                    ttl_secs: s.ttl.unwrap_or(0).max(0),
                    name: s.name,
                })
            })
            .collect()
    }

    /// Makes table `table` from snapshot `name` (MasterService CloneSnapshot).
    async fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        let _: pb::CloneSnapshotResponse = self
            .master(
                table,
                "CloneSnapshot",
                &pb::CloneSnapshotRequest {
                    snapshot: snapshot_description(name, Some(table)),
                    nonce_group: None,
                    nonce: None,
                    restore_acl: None,
                },
            )
            .await?;
        Ok(())
    }

    /// Puts snapshot `name`'s table back as it was (MasterService RestoreSnapshot); the
    /// table must be disabled, or gone (then it is cloned).
    async fn restore_snapshot(&self, name: &str) -> Result<()> {
        let table = self
            .list_snapshots()
            .await?
            .into_iter()
            .find(|s| s.name == name)
            .map(|s| s.table)
            .ok_or_else(|| Error::InvalidArgument(format!("no snapshot named {name}")))?;
        let _: pb::RestoreSnapshotResponse = self
            .master(
                &table,
                "RestoreSnapshot",
                &pb::RestoreSnapshotRequest {
                    snapshot: snapshot_description(name, Some(&table)),
                    nonce_group: None,
                    nonce: None,
                    restore_acl: None,
                    custom_sft: None,
                },
            )
            .await?;
        Ok(())
    }

    /// Deletes snapshot `name` (MasterService DeleteSnapshot).
    async fn delete_snapshot(&self, name: &str) -> Result<()> {
        let _: pb::DeleteSnapshotResponse = self
            .cluster_call(
                "DeleteSnapshot",
                &pb::DeleteSnapshotRequest {
                    snapshot: snapshot_description(name, None),
                },
            )
            .await?;
        Ok(())
    }

    /// Switches the balancer (MasterService SetBalancerRunning); returns whether it was on.
    async fn balance_switch(&self, on: bool) -> Result<bool> {
        let r: pb::SetBalancerRunningResponse = self
            .cluster_call(
                "SetBalancerRunning",
                &pb::SetBalancerRunningRequest {
                    on,
                    synchronous: Some(true),
                },
            )
            .await?;
        Ok(r.prev_balance_value.unwrap_or(false))
    }

    /// Whether the balancer is on (MasterService IsBalancerEnabled).
    async fn balancer_enabled(&self) -> Result<bool> {
        let r: pb::IsBalancerEnabledResponse = self
            .cluster_call("IsBalancerEnabled", &pb::IsBalancerEnabledRequest {})
            .await?;
        Ok(r.enabled)
    }

    /// Runs the balancer once (MasterService Balance); false if it is switched off.
    async fn balancer(&self) -> Result<bool> {
        let r: pb::BalanceResponse = self
            .cluster_call("Balance", &pb::BalanceRequest::default())
            .await?;
        Ok(r.balancer_ran)
    }

    /// Moves a region (MasterService MoveRegion) to `to` (`host,port,startcode` or
    /// `host:port`), or to another server.
    async fn move_region(&self, name: &[u8], to: Option<&str>) -> Result<()> {
        let dest = match to {
            None => None,
            Some(server) => Some(server_pb(server)?),
        };
        let _: pb::MoveRegionResponse = self
            .cluster_call(
                "MoveRegion",
                &pb::MoveRegionRequest {
                    region: region(name),
                    dest_server_name: dest,
                },
            )
            .await?;
        self.conn.forget_all();
        Ok(())
    }

    /// Opens a closed region (MasterService AssignRegion).
    async fn assign(&self, name: &[u8]) -> Result<()> {
        let _: pb::AssignRegionResponse = self
            .cluster_call(
                "AssignRegion",
                &pb::AssignRegionRequest {
                    region: region(name),
                    r#override: None,
                },
            )
            .await?;
        self.conn.forget_all();
        Ok(())
    }

    /// Closes a region and leaves it closed (MasterService UnassignRegion).
    async fn unassign(&self, name: &[u8]) -> Result<()> {
        let _: pb::UnassignRegionResponse = self
            .cluster_call(
                "UnassignRegion",
                &pb::UnassignRegionRequest {
                    region: region(name),
                    force: None,
                },
            )
            .await?;
        self.conn.forget_all();
        Ok(())
    }

    /// The table's serving regions as the client routes to them, from `hbase:meta`.
    pub(super) async fn regions(&self, name: &TableName) -> Result<Vec<Location>> {
        self.conn.forget(name);
        retrying!(self.conn, name, |regions| Ok(regions.to_vec()))
    }
}

impl<T: Transport> AdminCalls<'_, T> {
    pub(super) async fn cluster_status(&self) -> Result<pb::ClusterStatus> {
        let status: pb::GetClusterStatusResponse = self
            .master(
                &Self::meta_name()?,
                "GetClusterStatus",
                &pb::GetClusterStatusRequest::default(),
            )
            .await?;
        Ok(status.cluster_status)
    }

    /// Each serving region's size (store files and memstore) in bytes, rounded down to whole
    /// MiB as the cluster status reports it, by region name.
    async fn region_sizes(&self) -> Result<HashMap<Vec<u8>, u64>> {
        let status = self.cluster_status().await?;
        Ok(status
            .live_servers
            .iter()
            .flat_map(|s| &s.server_load.region_loads)
            .map(|l| {
                (
                    l.region_specifier.value.clone(),
                    u64::from(l.region_size_mb.unwrap_or(0)) << 20,
                )
            })
            .collect())
    }

    /// Live and dead servers and serving regions (MasterService GetClusterStatus).
    pub(super) async fn cluster_summary(&self) -> Result<crate::ClusterSummary> {
        let status = self.cluster_status().await?;
        let name = server_text;
        Ok(crate::ClusterSummary {
            live_servers: status.live_servers.len(),
            dead: status.dead_servers.iter().map(name).collect(),
            regions: status
                .live_servers
                .iter()
                .map(|s| s.server_load.region_loads.len())
                .sum(),
            master: status.master.as_ref().map(name).unwrap_or_default(),
            backup_masters: status.backup_masters.len(),
            cluster_id: status
                .cluster_id
                .as_ref()
                .map(|c| c.cluster_id.clone())
                .unwrap_or_default(),
            servers: status
                .live_servers
                .iter()
                .map(|s| {
                    let (replication, sink) = basalt_proto::replication_status(
                        &s.server_load.repl_load_source,
                        s.server_load.repl_load_sink.as_ref(),
                    );
                    (s, replication, sink)
                })
                .map(|(s, replication, sink)| crate::ServerSummary {
                    name: name(&s.server),
                    replication,
                    sink,
                    tasks: s
                        .server_load
                        .tasks
                        .iter()
                        .map(|t| crate::TaskSummary {
                            description: t.description.clone(),
                            started_ms: t
                                .start_time
                                .and_then(|t| i64::try_from(t).ok())
                                .unwrap_or(0),
                        })
                        .collect(),
                    regions: s
                        .server_load
                        .region_loads
                        .iter()
                        .map(|l| crate::RegionLoad {
                            name: Bytes::from(l.region_specifier.value.clone()),
                            stores: l.stores.unwrap_or(0),
                            store_files: l.storefiles.unwrap_or(0),
                            store_file_size: u64::from(l.storefile_size_mb.unwrap_or(0)) << 20,
                            memstore_size: u64::from(l.mem_store_size_mb.unwrap_or(0)) << 20,
                            read_requests: l.read_requests_count.unwrap_or(0),
                            write_requests: l.write_requests_count.unwrap_or(0),
                        })
                        .collect(),
                })
                .collect(),
        })
    }

    /// The server's name, `host,port,startcode` (AdminService GetServerInfo).
    async fn server_name(&self) -> Result<String> {
        let c = self.conn;
        let info: pb::GetServerInfoResponse = c
            .call_admin(c.meta_addr(), "GetServerInfo", &pb::GetServerInfoRequest {})
            .await
            .map_err(|e| Error::storage(format!("GetServerInfo: {e}")))?;
        Ok(server_text(&info.server_info.server_name))
    }
}

/// A server's name as HBase prints it: `host,port,startcode`.
pub(super) fn server_text(s: &pb::ServerName) -> String {
    format!(
        "{},{},{}",
        s.host_name,
        s.port.unwrap_or_default(),
        s.start_code.unwrap_or_default()
    )
}

/// The address of a server named `host,port,startcode` or `host:port`.
pub(super) fn server_addr(server: &str) -> Result<std::net::SocketAddr> {
    let pb = server_pb(server)?;
    let text = format!("{}:{}", pb.host_name, pb.port.unwrap_or_default());
    std::net::ToSocketAddrs::to_socket_addrs(&text.as_str())
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| Error::InvalidArgument(format!("{server} is not a server address")))
}

/// A server named `host,port,startcode` or `host:port`, as MasterService takes it.
pub(super) fn server_pb(name: &str) -> Result<pb::ServerName> {
    let bad = || {
        Error::InvalidArgument(format!(
            "{name:?} is not a server name (host,port,startcode)"
        ))
    };
    // `host,port,startcode`, or `host:port` (no start code: any server there).
    let (server, start_code) = match crate::ServerName::parse(name) {
        Some(s) => (s.clone(), u64::try_from(s.start_code).ok()),
        None => (crate::ServerName::new(name, 0), None),
    };
    let (host, port) = server.host_and_port().ok_or_else(bad)?;
    Ok(pb::ServerName {
        host_name: host.to_owned(),
        port: Some(u32::from(port)),
        start_code,
    })
}

/// A `SnapshotDescription` naming snapshot `name` (of `table`), as a request carries it.
fn snapshot_description(name: &str, table: Option<&TableName>) -> pb::SnapshotDescription {
    pb::SnapshotDescription {
        name: name.to_owned(),
        table: table.map(ToString::to_string),
        creation_time: None,
        r#type: Some(pb::snapshot_description::Type::Flush as i32),
        version: None,
        owner: None,
        ttl: None,
        ..pb::SnapshotDescription::default()
    }
}

/// The administration calls of both handles, blocking and async, one of each per call.
macro_rules! admin_calls {
    ($($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $out:ty;)*) => {
        impl RemoteAdmin<'_> {
            $($(#[$doc])* pub fn $name(&self $(, $arg: $ty)*) -> $out {
                block(self.calls().$name($($arg),*))
            })*
        }

        impl super::AsyncAdmin {
            $($(#[$doc])* pub async fn $name(&self $(, $arg: $ty)*) -> $out {
                self.calls().$name($($arg),*).await
            })*
        }
    };
}

admin_calls! {
    /// Writes each of the table's memstores to store files (AdminService FlushRegion on every
    /// region).
    fn flush(&self, name: &TableName) -> Result<()>;
    /// Compacts each of the table's regions (AdminService CompactRegion), minor or major.
    fn compact(&self, name: &TableName, major: bool) -> Result<()>;
    /// Compacts one region, named by its full name (AdminService CompactRegion).
    fn compact_region(&self, name: &[u8], major: bool) -> Result<()>;
    /// Splits the region holding `at` there (MasterService SplitRegion, as HBase 2's
    /// `split(table, splitPoint)`), or, with no row, every region at its own split point
    /// (regions too small to split are left alone, as embedded).
    fn split(&self, name: &TableName, at: Option<&[u8]>) -> Result<()>;
    /// Merges two adjacent regions, named by their full names (MasterService
    /// MergeTableRegions).
    fn merge_regions(&self, name: &TableName, a: &[u8], b: &[u8]) -> Result<()>;
    /// Grants a permission (MasterService Grant).
    fn grant(&self, p: &basalt_common::acl::Permission, merge: bool) -> Result<()>;
    /// Revokes what `principal` holds at `scope` (MasterService Revoke).
    fn revoke(&self, principal: &str, scope: &basalt_common::acl::Scope) -> Result<()>;
    /// The grants at `scope` and inside it (MasterService GetUserPermissions).
    fn user_permissions(&self, scope: &basalt_common::acl::Scope) -> Result<Vec<basalt_common::acl::Permission>>;
    /// Takes snapshot `name` of `table` (MasterService Snapshot).
    fn snapshot(&self, name: &str, table: &TableName) -> Result<()>;
    /// Takes a snapshot that lives `ttl_secs` seconds (0: for ever).
    fn snapshot_with_ttl(&self, name: &str, table: &TableName, ttl_secs: i64) -> Result<()>;
    /// Every snapshot (MasterService GetCompletedSnapshots).
    fn list_snapshots(&self) -> Result<Vec<crate::SnapshotInfo>>;
    /// Makes table `table` from snapshot `name` (MasterService CloneSnapshot).
    fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()>;
    /// Puts snapshot `name`'s table back as it was (MasterService RestoreSnapshot); the
    /// table must be disabled, or gone (then it is cloned).
    fn restore_snapshot(&self, name: &str) -> Result<()>;
    /// Deletes snapshot `name` (MasterService DeleteSnapshot).
    fn delete_snapshot(&self, name: &str) -> Result<()>;
    /// Switches the balancer (MasterService SetBalancerRunning); returns whether it was on.
    fn balance_switch(&self, on: bool) -> Result<bool>;
    /// Whether the balancer is on (MasterService IsBalancerEnabled).
    fn balancer_enabled(&self) -> Result<bool>;
    /// Runs the balancer once (MasterService Balance); false if it is switched off.
    fn balancer(&self) -> Result<bool>;
    /// Moves a region (MasterService MoveRegion) to `to` (`host,port,startcode` or
    /// `host:port`), or to another server.
    fn move_region(&self, name: &[u8], to: Option<&str>) -> Result<()>;
    /// Opens a closed region (MasterService AssignRegion).
    fn assign(&self, name: &[u8]) -> Result<()>;
    /// Closes a region and leaves it closed (MasterService UnassignRegion).
    fn unassign(&self, name: &[u8]) -> Result<()>;
    /// The table's serving regions as the client routes to them, from `hbase:meta`.
    fn regions(&self, name: &TableName) -> Result<Vec<Location>>;
    /// Each serving region's size (store files and memstore) in bytes, rounded down to whole
    /// MiB as the cluster status reports it, by region name.
    fn region_sizes(&self) -> Result<HashMap<Vec<u8>, u64>>;
    /// Live and dead servers and serving regions (MasterService GetClusterStatus).
    fn cluster_summary(&self) -> Result<crate::ClusterSummary>;
    /// The server's name, `host,port,startcode` (AdminService GetServerInfo).
    fn server_name(&self) -> Result<String>;
    /// Takes servers out of service (MasterService DecommissionRegionServers).
    fn decommission_region_servers(&self, servers: &[String], offload: bool) -> Result<()>;
    /// Puts a server back in service (MasterService RecommissionRegionServer).
    fn recommission_region_server(&self, server: &str, regions: &[Vec<u8>]) -> Result<()>;
    /// The servers out of service (MasterService ListDecommissionedRegionServers).
    fn decommissioned_region_servers(&self) -> Result<Vec<String>>;
    /// Switches splits or merges (MasterService SetSplitOrMergeEnabled); returns whether they
    /// were on.
    fn split_or_merge_switch(&self, split: bool, on: bool) -> Result<bool>;
    /// Whether splits or merges are on (MasterService IsSplitOrMergeEnabled).
    fn split_or_merge_enabled(&self, split: bool) -> Result<bool>;
    /// Stops a region server cleanly (AdminService StopServer).
    fn stop_region_server(&self, server: &str) -> Result<()>;
    /// Stops the active master alone (MasterService StopMaster).
    fn stop_master(&self) -> Result<()>;
    /// Rolls a region server's WAL (AdminService RollWALWriter).
    fn roll_wal_writer(&self, server: &str) -> Result<()>;
    /// Has a server read its settings file again (AdminService UpdateConfiguration).
    fn update_config(&self, server: &str) -> Result<()>;
    /// `update_config` on every live region server and the masters.
    fn update_all_config(&self) -> Result<()>;
    /// Switches one of the master's chores (MasterService EnableCatalogJanitor,
    /// SetNormalizerRunning); returns whether it was on.
    fn chore_switch(&self, chore: Chore, on: bool) -> Result<bool>;
    /// Whether one of the master's chores is on (IsCatalogJanitorEnabled,
    /// IsNormalizerEnabled).
    fn chore_enabled(&self, chore: Chore) -> Result<bool>;
    /// Runs the cleaner chore now (MasterService RunCleanerChore).
    fn run_cleaner_chore(&self) -> Result<bool>;
    /// Runs the catalog janitor now (MasterService RunCatalogScan).
    fn run_catalog_janitor(&self) -> Result<usize>;
    /// Runs the normalizer now (MasterService Normalize).
    fn normalize(&self, tables: &[TableName]) -> Result<bool>;
    /// The compactions running in the table's regions (AdminService GetRegionInfo).
    fn compaction_state(&self, table: &TableName) -> Result<String>;
    /// Flushes hbase:meta, the master's store (MasterService FlushMasterStore).
    fn flush_master_store(&self) -> Result<()>;
    /// The servers' slow or large calls (AdminService GetLogEntries).
    fn slow_log(&self, servers: &[String], filter: &SlowLogFilter) -> Result<Vec<(String, SlowCall)>>;
    /// The balancer's recent decisions and rejections (MasterService GetLogEntries).
    fn balancer_log(&self, limit: usize) -> Result<(Vec<Decision>, Vec<Rejection>)>;
    /// The region server groups (MasterService ListRSGroupInfos).
    fn list_rsgroups(&self) -> Result<Vec<RsGroupInfo>>;
    /// Changes the groups (MasterService AddRSGroup, MoveServers, MoveTables, ...).
    fn change_rsgroups(&self, change: &RsGroupChange) -> Result<()>;
    /// Balances one group (MasterService BalanceRSGroup).
    fn balance_rsgroup(&self, name: &str) -> Result<bool>;
    /// The master's procedures (MasterService GetProcedures).
    fn procedures(&self) -> Result<Vec<Procedure>>;
    /// The locks the master's procedures hold (MasterService GetLocks).
    fn locks(&self) -> Result<Vec<Lock>>;
    /// Empties the servers' slow logs (AdminService ClearSlowLogsResponses).
    fn clear_slow_log(&self, servers: &[String]) -> Result<(usize, usize)>;
    /// Clears a server's compaction queues (AdminService ClearCompactionQueues).
    fn clear_compaction_queues(&self, server: &str, queues: &[String]) -> Result<()>;
    /// The cluster's security capabilities (MasterService getSecurityCapabilities).
    fn security_capabilities(&self) -> Result<Vec<String>>;
    /// Whether the master is in maintenance mode (MasterService IsMasterInMaintenanceMode).
    fn in_maintenance_mode(&self) -> Result<bool>;
    /// Drops the table's blocks from its servers' caches (AdminService ClearRegionBlockCache):
    /// blocks and bytes evicted, and the largest cache's capacity.
    fn clear_block_cache(&self, table: &TableName) -> Result<(u64, u64, u64)>;
    /// Switches compactions on the servers named, or every live one (AdminService
    /// CompactionSwitch); returns each server and its previous state.
    fn compaction_switch(&self, on: bool, servers: &[String]) -> Result<Vec<(String, bool)>>;
    /// Forgets dead servers; returns the names it could not (MasterService ClearDeadServers).
    fn clear_dead_servers(&self, servers: &[String]) -> Result<Vec<String>>;
}
