//! MasterService's and AdminService's calls for tables, families, namespaces and regions:
//! written once ([`AdminCalls`]) for the blocking [`RemoteAdmin`] and the async
//! [`super::AsyncAdmin`].

use super::*;
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

    /// Empties one region, named by its full name (MasterService TruncateRegion).
    async fn truncate_region(&self, name: &TableName, region: &[u8]) -> Result<()> {
        let unknown = || {
            Error::InvalidArgument(format!(
                "{} is not a region of {name}",
                String::from_utf8_lossy(region)
            ))
        };
        let found = self.regions(name).await?;
        let at = found
            .iter()
            .find(|l| l.name == region)
            .ok_or_else(unknown)?;
        let info = basalt_common::RegionInfo::new(
            name.clone(),
            Bytes::copy_from_slice(&at.start),
            Bytes::copy_from_slice(&at.end),
            i64::try_from(at.id).map_err(|_| unknown())?,
        );
        let _: pb::ProcedureResponse = self
            .master(
                name,
                "TruncateRegion",
                &pb::TruncateRegionRequest {
                    region_info: basalt_proto::schema::region_info_pb(&info),
                    ..pb::TruncateRegionRequest::default()
                },
            )
            .await?;
        self.done(name);
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

pub(super) use basalt_proto::{server_name as server_pb, server_text};

/// The address of a server named `host,port,startcode` or `host:port`.
pub(super) fn server_addr(server: &str) -> Result<std::net::SocketAddr> {
    let pb = server_pb(server)?;
    let text = format!("{}:{}", pb.host_name, pb.port.unwrap_or_default());
    std::net::ToSocketAddrs::to_socket_addrs(&text.as_str())
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| Error::InvalidArgument(format!("{server} is not a server address")))
}

both_faces! {
    RemoteAdmin<'_>, super::AsyncAdmin;

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
    /// Empties one region, named by its full name (MasterService TruncateRegion).
    fn truncate_region(&self, name: &TableName, region: &[u8]) -> Result<()>;
    /// The table's serving regions as the client routes to them, from `hbase:meta`.
    fn regions(&self, name: &TableName) -> Result<Vec<Location>>;
    /// Each serving region's size (store files and memstore) in bytes, rounded down to whole
    /// MiB as the cluster status reports it, by region name.
    fn region_sizes(&self) -> Result<HashMap<Vec<u8>, u64>>;
    /// Live and dead servers and serving regions (MasterService GetClusterStatus).
    fn cluster_summary(&self) -> Result<crate::ClusterSummary>;
    /// The server's name, `host,port,startcode` (AdminService GetServerInfo).
    fn server_name(&self) -> Result<String>;
    /// Stops a region server cleanly (AdminService StopServer).
    fn stop_region_server(&self, server: &str) -> Result<()>;
    /// Rolls a region server's WAL (AdminService RollWALWriter).
    fn roll_wal_writer(&self, server: &str) -> Result<()>;
    /// Has a server read its settings file again (AdminService UpdateConfiguration).
    fn update_config(&self, server: &str) -> Result<()>;
    /// `update_config` on every live region server and the masters.
    fn update_all_config(&self) -> Result<()>;
    /// The compactions running in the table's regions (AdminService GetRegionInfo).
    fn compaction_state(&self, table: &TableName) -> Result<String>;
    /// The servers' slow or large calls (AdminService GetLogEntries).
    fn slow_log(&self, servers: &[String], filter: &SlowLogFilter) -> Result<Vec<(String, SlowCall)>>;
    /// Empties the servers' slow logs (AdminService ClearSlowLogsResponses).
    fn clear_slow_log(&self, servers: &[String]) -> Result<(usize, usize)>;
    /// Clears a server's compaction queues (AdminService ClearCompactionQueues).
    fn clear_compaction_queues(&self, server: &str, queues: &[String]) -> Result<()>;
    /// Drops the table's blocks from its servers' caches (AdminService ClearRegionBlockCache):
    /// blocks and bytes evicted, and the largest cache's capacity.
    fn clear_block_cache(&self, table: &TableName) -> Result<(u64, u64, u64)>;
    /// Switches compactions on the servers named, or every live one (AdminService
    /// CompactionSwitch); returns each server and its previous state.
    fn compaction_switch(&self, on: bool, servers: &[String]) -> Result<Vec<(String, bool)>>;
}
