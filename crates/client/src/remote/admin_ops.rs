//! MasterService's and AdminService's calls for operating a cluster (issues 46 and 47): the
//! replication peers, and the region servers themselves (decommissioning, stopping, switches,
//! WAL rolls, block caches, what the cluster's security is). Part of [`super::admin`]'s
//! [`AdminCalls`], whose `admin_calls!` list gives them to the blocking and async handles.

use super::admin::{AdminCalls, server_addr, server_pb, server_text};
use super::*;
use basalt_common::balancer_log::{Decision, Rejection};
use basalt_common::chore::Chore;
use basalt_common::procedure::{Lock, Procedure, Resource};
use basalt_common::rsgroup::{RsGroupChange, RsGroupInfo};
use basalt_common::slowlog::{Filter as SlowLogFilter, SlowCall};

impl<T: Transport> AdminCalls<'_, T> {}

impl<T: Transport> AdminCalls<'_, T> {}

impl<T: Transport> AdminCalls<'_, T> {
    pub(super) async fn decommission_region_servers(
        &self,
        servers: &[String],
        offload: bool,
    ) -> Result<()> {
        let server_name = servers
            .iter()
            .map(|s| server_pb(s))
            .collect::<Result<Vec<_>>>()?;
        let _: pb::DecommissionRegionServersResponse = self
            .cluster_call(
                "DecommissionRegionServers",
                &pb::DecommissionRegionServersRequest {
                    server_name,
                    offload,
                },
            )
            .await?;
        self.conn.forget_all();
        Ok(())
    }

    pub(super) async fn recommission_region_server(
        &self,
        server: &str,
        regions: &[Vec<u8>],
    ) -> Result<()> {
        let _: pb::RecommissionRegionServerResponse = self
            .cluster_call(
                "RecommissionRegionServer",
                &pb::RecommissionRegionServerRequest {
                    server_name: server_pb(server)?,
                    region: regions.iter().map(|r| region(r)).collect(),
                },
            )
            .await?;
        self.conn.forget_all();
        Ok(())
    }

    pub(super) async fn decommissioned_region_servers(&self) -> Result<Vec<String>> {
        let r: pb::ListDecommissionedRegionServersResponse = self
            .cluster_call(
                "ListDecommissionedRegionServers",
                &pb::ListDecommissionedRegionServersRequest {},
            )
            .await?;
        Ok(r.server_name.iter().map(server_text).collect())
    }

    pub(super) async fn compaction_switch(
        &self,
        on: bool,
        servers: &[String],
    ) -> Result<Vec<(String, bool)>> {
        let host_port = crate::ServerName::host_port_of;
        let live: Vec<String> = self
            .cluster_summary()
            .await?
            .servers
            .into_iter()
            .map(|s| s.name)
            .collect();
        let mut out = Vec::new();
        for name in live {
            if !servers.is_empty() && !servers.iter().any(|s| host_port(s) == host_port(&name)) {
                continue;
            }
            let c = self.conn;
            let r: pb::CompactionSwitchResponse = c
                .call_admin(
                    server_addr(&name)?,
                    "CompactionSwitch",
                    &pb::CompactionSwitchRequest { enabled: on },
                )
                .await
                .map_err(|e| Error::storage(format!("CompactionSwitch on {name}: {e}")))?;
            out.push((name, r.prev_state));
        }
        Ok(out)
    }

    pub(super) async fn clear_block_cache(&self, table: &TableName) -> Result<(u64, u64, u64)> {
        let mut by_server: HashMap<std::net::SocketAddr, Vec<pb::RegionSpecifier>> = HashMap::new();
        for loc in self.regions(table).await? {
            let server = self.conn.server_of(&loc);
            by_server.entry(server).or_default().push(region(&loc.name));
        }
        let (mut blocks, mut bytes, mut capacity) = (0u64, 0u64, 0u64);
        for (server, regions) in by_server {
            let c = self.conn;
            let r: pb::ClearRegionBlockCacheResponse = c
                .call_admin(
                    server,
                    "ClearRegionBlockCache",
                    &pb::ClearRegionBlockCacheRequest { region: regions },
                )
                .await
                .map_err(|e| Error::storage(format!("ClearRegionBlockCache on {server}: {e}")))?;
            let n = |v: Option<i64>| u64::try_from(v.unwrap_or(0)).unwrap_or(0);
            blocks += n(r.stats.evicted_blocks);
            bytes += n(r.stats.bytes_evicted);
            capacity = capacity.max(n(r.stats.max_cache_size));
        }
        Ok((blocks, bytes, capacity))
    }

    pub(super) async fn security_capabilities(&self) -> Result<Vec<String>> {
        use pb::security_capabilities_response::Capability;
        let r: pb::SecurityCapabilitiesResponse = self
            .cluster_call(
                "getSecurityCapabilities",
                &pb::SecurityCapabilitiesRequest {},
            )
            .await?;
        Ok(r.capabilities
            .iter()
            .filter_map(|c| Capability::try_from(*c).ok())
            .map(|c| c.as_str_name().to_owned())
            .collect())
    }

    pub(super) async fn in_maintenance_mode(&self) -> Result<bool> {
        let r: pb::IsInMaintenanceModeResponse = self
            .cluster_call(
                "IsMasterInMaintenanceMode",
                &pb::IsInMaintenanceModeRequest {},
            )
            .await?;
        Ok(r.in_maintenance_mode)
    }

    pub(super) async fn roll_wal_writer(&self, server: &str) -> Result<()> {
        let addr = server_addr(server)?;
        let c = self.conn;
        let _: pb::RollWalWriterResponse = c
            .call_admin(addr, "RollWALWriter", &pb::RollWalWriterRequest {})
            .await
            .map_err(|e| Error::storage(format!("RollWALWriter on {server}: {e}")))?;
        Ok(())
    }

    pub(super) async fn update_config(&self, server: &str) -> Result<()> {
        let addr = server_addr(server)?;
        let meta = TableName::parse("hbase:meta")?;
        let _: pb::UpdateConfigurationResponse = self
            .conn
            .call_admin(
                addr,
                "UpdateConfiguration",
                &pb::UpdateConfigurationRequest {},
            )
            .await
            .map_err(|e| settled(&meta, e))?;
        Ok(())
    }

    /// Every live region server, then the active master and the backups (a standalone server
    /// is both, and is asked once).
    pub(super) async fn update_all_config(&self) -> Result<()> {
        let status = self.cluster_status().await?;
        let mut servers: Vec<String> = Vec::new();
        let names = status
            .live_servers
            .iter()
            .map(|s| &s.server)
            .chain(status.master.as_ref())
            .chain(&status.backup_masters);
        for name in names {
            let text = format!("{}:{}", name.host_name, name.port.unwrap_or_default());
            if !servers.contains(&text) {
                servers.push(text);
            }
        }
        for server in servers {
            self.update_config(&server).await?;
        }
        Ok(())
    }

    pub(super) async fn chore_switch(&self, chore: Chore, on: bool) -> Result<bool> {
        Ok(match chore {
            Chore::CatalogJanitor => {
                let r: pb::EnableCatalogJanitorResponse = self
                    .cluster_call(
                        "EnableCatalogJanitor",
                        &pb::EnableCatalogJanitorRequest { enable: on },
                    )
                    .await?;
                r.prev_value.unwrap_or(false)
            }
            Chore::Cleaner => {
                let r: pb::SetCleanerChoreRunningResponse = self
                    .cluster_call(
                        "SetCleanerChoreRunning",
                        &pb::SetCleanerChoreRunningRequest { on },
                    )
                    .await?;
                r.prev_value.unwrap_or(false)
            }
            Chore::SnapshotCleanup => {
                let r: pb::SetSnapshotCleanupResponse = self
                    .cluster_call(
                        "SwitchSnapshotCleanup",
                        &pb::SetSnapshotCleanupRequest {
                            enabled: on,
                            synchronous: None,
                        },
                    )
                    .await?;
                r.prev_snapshot_cleanup
            }
            Chore::Normalizer => {
                let r: pb::SetNormalizerRunningResponse = self
                    .cluster_call(
                        "SetNormalizerRunning",
                        &pb::SetNormalizerRunningRequest { on },
                    )
                    .await?;
                r.prev_normalizer_value.unwrap_or(false)
            }
        })
    }

    pub(super) async fn chore_enabled(&self, chore: Chore) -> Result<bool> {
        Ok(match chore {
            Chore::CatalogJanitor => {
                let r: pb::IsCatalogJanitorEnabledResponse = self
                    .cluster_call(
                        "IsCatalogJanitorEnabled",
                        &pb::IsCatalogJanitorEnabledRequest {},
                    )
                    .await?;
                r.value
            }
            Chore::Cleaner => {
                let r: pb::IsCleanerChoreEnabledResponse = self
                    .cluster_call(
                        "IsCleanerChoreEnabled",
                        &pb::IsCleanerChoreEnabledRequest {},
                    )
                    .await?;
                r.value
            }
            Chore::SnapshotCleanup => {
                let r: pb::IsSnapshotCleanupEnabledResponse = self
                    .cluster_call(
                        "IsSnapshotCleanupEnabled",
                        &pb::IsSnapshotCleanupEnabledRequest {},
                    )
                    .await?;
                r.enabled
            }
            Chore::Normalizer => {
                let r: pb::IsNormalizerEnabledResponse = self
                    .cluster_call("IsNormalizerEnabled", &pb::IsNormalizerEnabledRequest {})
                    .await?;
                r.enabled
            }
        })
    }

    pub(super) async fn run_cleaner_chore(&self) -> Result<bool> {
        let r: pb::RunCleanerChoreResponse = self
            .cluster_call("RunCleanerChore", &pb::RunCleanerChoreRequest {})
            .await?;
        Ok(r.cleaner_chore_ran)
    }

    pub(super) async fn run_catalog_janitor(&self) -> Result<usize> {
        let r: pb::RunCatalogScanResponse = self
            .cluster_call("RunCatalogScan", &pb::RunCatalogScanRequest {})
            .await?;
        Ok(usize::try_from(r.scan_result.unwrap_or(0)).unwrap_or(0))
    }

    pub(super) async fn compaction_state(&self, table: &TableName) -> Result<String> {
        use pb::get_region_info_response::CompactionState as S;
        let (mut minor, mut major) = (false, false);
        for loc in self.regions(table).await? {
            let server = self.conn.server_of(&loc);
            let r: pb::GetRegionInfoResponse = self
                .conn
                .call_admin(
                    server,
                    "GetRegionInfo",
                    &pb::GetRegionInfoRequest {
                        region: region(&loc.name),
                        compaction_state: Some(true),
                        best_split_row: None,
                    },
                )
                .await
                .map_err(|e| Error::storage(format!("GetRegionInfo on {server}: {e}")))?;
            match r.compaction_state.map(S::try_from) {
                Some(Ok(S::Minor)) => minor = true,
                Some(Ok(S::Major)) => major = true,
                Some(Ok(S::MajorAndMinor)) => (minor, major) = (true, true),
                _ => {}
            }
        }
        Ok(basalt_common::metrics::compaction_state_name(minor, major).to_owned())
    }

    /// The live servers `servers` names (all of them if it names none), by full name.
    async fn live_named(&self, servers: &[String]) -> Result<Vec<String>> {
        let host_port = crate::ServerName::host_port_of;
        let live: Vec<String> = self
            .cluster_summary()
            .await?
            .servers
            .into_iter()
            .map(|s| s.name)
            .collect();
        Ok(live
            .into_iter()
            .filter(|n| servers.is_empty() || servers.iter().any(|s| host_port(s) == host_port(n)))
            .collect())
    }

    pub(super) async fn slow_log(
        &self,
        servers: &[String],
        filter: &SlowLogFilter,
    ) -> Result<Vec<(String, SlowCall)>> {
        use pb::slow_log_response_request::{FilterByOperator, LogType};
        let request = pb::SlowLogResponseRequest {
            region_name: filter.region.clone(),
            table_name: filter.table.clone(),
            client_address: filter.client_address.clone(),
            user_name: filter.user.clone(),
            limit: Some(u32::try_from(filter.limit).unwrap_or(u32::MAX)),
            filter_by_operator: Some(if filter.and {
                FilterByOperator::And
            } else {
                FilterByOperator::Or
            } as i32),
            log_type: Some(if filter.large {
                LogType::LargeLog
            } else {
                LogType::SlowLog
            } as i32),
        };
        let meta = TableName::parse("hbase:meta")?;
        let mut out = Vec::new();
        for name in self.live_named(servers).await? {
            let entry: pb::LogEntry = self
                .conn
                .call_admin(
                    server_addr(&name)?,
                    "GetLogEntries",
                    &pb::LogRequest {
                        log_class_name: basalt_proto::SLOW_LOG_REQUEST_CLASS.into(),
                        log_message: prost::Message::encode_to_vec(&request),
                    },
                )
                .await
                .map_err(|e| settled(&meta, e))?;
            let responses =
                <pb::SlowLogResponses as prost::Message>::decode(&entry.log_message[..])
                    .map_err(|e| Error::corrupt(format!("a slow log from {name}: {e}")))?;
            out.extend(
                responses
                    .slow_log_payloads
                    .iter()
                    .map(|p| (name.clone(), basalt_proto::slow_call(p))),
            );
        }
        Ok(out)
    }

    pub(super) async fn clear_slow_log(&self, servers: &[String]) -> Result<(usize, usize)> {
        let names = self.live_named(servers).await?;
        let mut cleared = 0;
        for name in &names {
            let r: std::result::Result<pb::ClearSlowLogResponses, _> = self
                .conn
                .call_admin(
                    server_addr(name)?,
                    "ClearSlowLogsResponses",
                    &pb::ClearSlowLogResponseRequest {},
                )
                .await;
            // A server that does not answer is counted as not cleared, as HBase counts it.
            if r.is_ok_and(|r| r.is_cleaned) {
                cleared += 1;
            }
        }
        Ok((cleared, names.len()))
    }

    pub(super) async fn balancer_log(
        &self,
        limit: usize,
    ) -> Result<(Vec<Decision>, Vec<Rejection>)> {
        const OUTER: &str = "org.apache.hadoop.hbase.shaded.protobuf.generated.MasterProtos$";
        let limit = Some(u32::try_from(limit).unwrap_or(u32::MAX));
        let entry: pb::LogEntry = self
            .cluster_call(
                "GetLogEntries",
                &pb::LogRequest {
                    log_class_name: format!("{OUTER}BalancerDecisionsRequest"),
                    log_message: prost::Message::encode_to_vec(&pb::BalancerDecisionsRequest {
                        limit,
                    }),
                },
            )
            .await?;
        let decisions =
            <pb::BalancerDecisionsResponse as prost::Message>::decode(&entry.log_message[..])
                .map_err(|e| Error::corrupt(format!("the balancer's decisions: {e}")))?
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
        let entry: pb::LogEntry = self
            .cluster_call(
                "GetLogEntries",
                &pb::LogRequest {
                    log_class_name: format!("{OUTER}BalancerRejectionsRequest"),
                    log_message: prost::Message::encode_to_vec(&pb::BalancerRejectionsRequest {
                        limit,
                    }),
                },
            )
            .await?;
        let rejections =
            <pb::BalancerRejectionsResponse as prost::Message>::decode(&entry.log_message[..])
                .map_err(|e| Error::corrupt(format!("the balancer's rejections: {e}")))?
                .balancer_rejection
                .into_iter()
                .map(|r| Rejection {
                    reason: r.reason,
                    cost_func_info: r.cost_func_info,
                })
                .collect();
        Ok((decisions, rejections))
    }

    pub(super) async fn list_rsgroups(&self) -> Result<Vec<RsGroupInfo>> {
        let r: pb::ListRsGroupInfosResponse = self
            .cluster_call("ListRSGroupInfos", &pb::ListRsGroupInfosRequest {})
            .await?;
        r.r_s_group_info
            .iter()
            .map(basalt_proto::rsgroup::info_of)
            .collect()
    }

    pub(super) async fn change_rsgroups(&self, change: &RsGroupChange) -> Result<()> {
        use basalt_proto::rsgroup::server_pb;
        // Checked here, as the server would: a bad address is named, not sent as port 0.
        let servers = |list: &[String]| {
            list.iter()
                .map(|s| basalt_common::rsgroup::address(s).map(|a| server_pb(&a)))
                .collect::<Result<Vec<_>>>()
        };
        match change {
            RsGroupChange::Add(name) => {
                let _: pb::AddRsGroupResponse = self
                    .cluster_call(
                        "AddRSGroup",
                        &pb::AddRsGroupRequest {
                            r_s_group_name: name.clone(),
                        },
                    )
                    .await?;
            }
            RsGroupChange::Remove(name) => {
                let _: pb::RemoveRsGroupResponse = self
                    .cluster_call(
                        "RemoveRSGroup",
                        &pb::RemoveRsGroupRequest {
                            r_s_group_name: name.clone(),
                        },
                    )
                    .await?;
            }
            RsGroupChange::Rename { from, to } => {
                let _: pb::RenameRsGroupResponse = self
                    .cluster_call(
                        "RenameRSGroup",
                        &pb::RenameRsGroupRequest {
                            old_rsgroup_name: from.clone(),
                            new_rsgroup_name: to.clone(),
                        },
                    )
                    .await?;
            }
            RsGroupChange::MoveServers { to, servers: list } => {
                let _: pb::MoveServersResponse = self
                    .cluster_call(
                        "MoveServers",
                        &pb::MoveServersRequest {
                            target_group: to.clone(),
                            servers: servers(list)?,
                        },
                    )
                    .await?;
            }
            RsGroupChange::MoveTables { to, tables } => {
                let _: pb::MoveTablesResponse = self
                    .cluster_call(
                        "MoveTables",
                        &pb::MoveTablesRequest {
                            target_group: to.clone(),
                            table_name: tables
                                .iter()
                                .map(basalt_proto::schema::pb_table_name)
                                .collect(),
                        },
                    )
                    .await?;
            }
            RsGroupChange::MoveNamespaces { to, namespaces } => {
                let _: pb::MoveNamespacesResponse = self
                    .cluster_call(
                        "MoveNamespaces",
                        &pb::MoveNamespacesRequest {
                            target_group: to.clone(),
                            namespace: namespaces.clone(),
                        },
                    )
                    .await?;
            }
            RsGroupChange::RemoveServers(list) => {
                let _: pb::RemoveServersResponse = self
                    .cluster_call(
                        "RemoveServers",
                        &pb::RemoveServersRequest {
                            servers: servers(list)?,
                        },
                    )
                    .await?;
            }
            RsGroupChange::Configure { name, config } => {
                let _: pb::UpdateRsGroupConfigResponse = self
                    .cluster_call(
                        "UpdateRSGroupConfig",
                        &pb::UpdateRsGroupConfigRequest {
                            group_name: name.clone(),
                            configuration: config
                                .iter()
                                .map(|(k, v)| pb::NameStringPair {
                                    name: k.clone(),
                                    value: v.clone(),
                                })
                                .collect(),
                        },
                    )
                    .await?;
            }
        }
        Ok(())
    }

    pub(super) async fn balance_rsgroup(&self, name: &str) -> Result<bool> {
        let r: pb::BalanceRsGroupResponse = self
            .cluster_call(
                "BalanceRSGroup",
                &pb::BalanceRsGroupRequest {
                    r_s_group_name: name.to_owned(),
                    ignore_rit: None,
                    dry_run: None,
                },
            )
            .await?;
        Ok(r.balance_ran)
    }

    pub(super) async fn procedures(&self) -> Result<Vec<Procedure>> {
        let r: pb::GetProceduresResponse = self
            .cluster_call("GetProcedures", &pb::GetProceduresRequest {})
            .await?;
        Ok(r.procedure.iter().map(basalt_proto::procedure).collect())
    }

    pub(super) async fn locks(&self) -> Result<Vec<Lock>> {
        let r: pb::GetLocksResponse = self
            .cluster_call("GetLocks", &pb::GetLocksRequest {})
            .await?;
        Ok(r.lock
            .iter()
            .filter_map(|l| {
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
            })
            .collect())
    }

    pub(super) async fn flush_master_store(&self) -> Result<()> {
        let _: pb::FlushMasterStoreResponse = self
            .cluster_call("FlushMasterStore", &pb::FlushMasterStoreRequest {})
            .await?;
        Ok(())
    }

    pub(super) async fn clear_compaction_queues(
        &self,
        server: &str,
        queues: &[String],
    ) -> Result<()> {
        let addr = server_addr(server)?;
        let meta = TableName::parse("hbase:meta")?;
        let _: pb::ClearCompactionQueuesResponse = self
            .conn
            .call_admin(
                addr,
                "ClearCompactionQueues",
                &pb::ClearCompactionQueuesRequest {
                    queue_name: queues.to_vec(),
                },
            )
            .await
            .map_err(|e| settled(&meta, e))?;
        Ok(())
    }

    pub(super) async fn normalize(&self, tables: &[TableName]) -> Result<bool> {
        let r: pb::NormalizeResponse = self
            .cluster_call(
                "Normalize",
                &pb::NormalizeRequest {
                    table_names: tables.iter().map(pb_table_name).collect(),
                    regex: None,
                    namespace: None,
                },
            )
            .await?;
        Ok(r.normalizer_ran)
    }

    pub(super) async fn stop_region_server(&self, server: &str) -> Result<()> {
        let addr = server_addr(server)?;
        let c = self.conn;
        let _: pb::StopServerResponse = c
            .call_admin(
                addr,
                "StopServer",
                &pb::StopServerRequest {
                    reason: "Called by admin client".into(),
                },
            )
            .await
            .map_err(|e| Error::storage(format!("StopServer on {server}: {e}")))?;
        Ok(())
    }

    pub(super) async fn split_or_merge_switch(&self, split: bool, on: bool) -> Result<bool> {
        let kind = if split {
            pb::MasterSwitchType::Split
        } else {
            pb::MasterSwitchType::Merge
        };
        let r: pb::SetSplitOrMergeEnabledResponse = self
            .cluster_call(
                "SetSplitOrMergeEnabled",
                &pb::SetSplitOrMergeEnabledRequest {
                    enabled: on,
                    synchronous: None,
                    switch_types: vec![kind as i32],
                },
            )
            .await?;
        Ok(r.prev_value.first().copied().unwrap_or(true))
    }

    pub(super) async fn split_or_merge_enabled(&self, split: bool) -> Result<bool> {
        let kind = if split {
            pb::MasterSwitchType::Split
        } else {
            pb::MasterSwitchType::Merge
        };
        let r: pb::IsSplitOrMergeEnabledResponse = self
            .cluster_call(
                "IsSplitOrMergeEnabled",
                &pb::IsSplitOrMergeEnabledRequest {
                    switch_type: kind as i32,
                },
            )
            .await?;
        Ok(r.enabled)
    }

    pub(super) async fn stop_master(&self) -> Result<()> {
        let _: pb::StopMasterResponse = self
            .cluster_call("StopMaster", &pb::StopMasterRequest {})
            .await?;
        Ok(())
    }

    pub(super) async fn clear_dead_servers(&self, servers: &[String]) -> Result<Vec<String>> {
        let server_name = servers
            .iter()
            .map(|s| server_pb(s))
            .collect::<Result<Vec<_>>>()?;
        let r: pb::ClearDeadServersResponse = self
            .cluster_call(
                "ClearDeadServers",
                &pb::ClearDeadServersRequest { server_name },
            )
            .await?;
        Ok(r.server_name.iter().map(server_text).collect())
    }
}
