//! MasterService's and AdminService's calls for operating a cluster (issues 46 and 47): the
//! replication peers, and the region servers themselves (decommissioning, stopping, switches,
//! WAL rolls, block caches, what the cluster's security is). Part of [`super::admin`]'s
//! [`AdminCalls`], whose `admin_calls!` list gives them to the blocking and async handles.

use super::admin::{AdminCalls, server_addr};
use super::*;
use basalt_common::slowlog::{Filter as SlowLogFilter, SlowCall};

impl<T: Transport> AdminCalls<'_, T> {}

impl<T: Transport> AdminCalls<'_, T> {}

impl<T: Transport> AdminCalls<'_, T> {
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
}
