//! AdminService: a region server's own administration (HBase's AdminProtos), served on the
//! same port as ClientService: region descriptions, the server's online regions, flushes and
//! compactions of one region, and the server's name. Splits and merges are MasterService's
//! (`SplitRegion`, `MergeTableRegions`), as in HBase 2.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use basalt_common::Bytes;
use basalt_proto::pb::{
    self, CloseRegionRequest, CloseRegionResponse, CompactRegionRequest, CompactRegionResponse,
    ExceptionResponse, FlushRegionRequest, FlushRegionResponse, GetOnlineRegionResponse,
    GetRegionInfoRequest, GetRegionInfoResponse, GetServerInfoResponse, OpenRegionRequest,
    OpenRegionResponse, PrepareMergeRequest, PrepareMergeResponse, PrepareSplitRequest,
    PrepareSplitResponse, RegionSpecifier, ReopenRegionRequest, ReopenRegionResponse, ServerInfo,
    SettleRequest, SettleResponse, get_region_info_response,
    open_region_response::RegionOpeningState,
};
use basalt_proto::schema::{region_info, region_info_pb, table_name};
use basalt_proto::{decode, exception, from_error, refused};
use basalt_region::Region;
use prost::Message;

use crate::RegionServer;
use crate::replication::sink::Sink;

type Outcome = Result<Vec<u8>, ExceptionResponse>;

/// AdminService for one region server.
#[derive(Debug)]
pub struct AdminService {
    rs: Arc<RegionServer>,
    /// Where this server's RPC listens: the host and port of its server name.
    addr: SocketAddr,
    /// Where batches peers replicate here are applied (none: ReplicateWALEntry is refused).
    sink: Option<Arc<Sink>>,
    /// Set by StopServer: the process stops cleanly (none: StopServer is refused).
    stop: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// The online region a specifier names (full name, encoded name, or HBase's fixed
/// `hbase:meta,,1`). A region this server does not serve is a NotServingRegionException, as
/// in HBase, so clients look it up again.
fn named_region(
    rs: &RegionServer,
    spec: &RegionSpecifier,
) -> Result<Arc<Region>, ExceptionResponse> {
    rs.region_named(&spec.value).ok_or_else(|| {
        exception(
            "org.apache.hadoop.hbase.NotServingRegionException",
            format!(
                "Region {} is not online",
                String::from_utf8_lossy(&spec.value)
            ),
            false,
        )
    })
}

fn millis_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl AdminService {
    pub fn new(rs: Arc<RegionServer>, addr: SocketAddr) -> Self {
        AdminService {
            rs,
            addr,
            sink: None,
            stop: None,
        }
    }

    /// Serves StopServer by setting `flag`, which the process watches to stop cleanly.
    pub fn with_stop(mut self, flag: Arc<std::sync::atomic::AtomicBool>) -> Self {
        self.stop = Some(flag);
        self
    }

    /// Takes the batches peer clusters replicate here, applying them through `sink`.
    pub fn with_sink(mut self, sink: Arc<Sink>) -> Self {
        self.sink = Some(sink);
        self
    }

    /// Runs `method`; `None` if Basalt does not serve it.
    pub fn call(&self, method: &str, param: Option<&[u8]>, cell_block: &Bytes) -> Option<Outcome> {
        Some(match method {
            "RollWALWriter" => decode::<pb::RollWalWriterRequest>(param).and_then(|_| {
                self.rs.roll_wal().map_err(|e| from_error(&e))?;
                Ok(pb::RollWalWriterResponse {
                    region_to_flush: Vec::new(),
                }
                .encode_to_vec())
            }),
            "StopServer" => decode::<pb::StopServerRequest>(param).and_then(|r| {
                let flag = self.stop.as_ref().ok_or_else(|| {
                    exception(
                        "org.apache.hadoop.hbase.DoNotRetryIOException",
                        "this region server runs inside a standalone server: stop the process"
                            .into(),
                        true,
                    )
                })?;
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "StopServer asked (reason: {}): stopping",
                    r.reason
                );
                flag.store(true, std::sync::atomic::Ordering::Release);
                Ok(pb::StopServerResponse {}.encode_to_vec())
            }),
            "UpdateConfiguration" => {
                decode::<pb::UpdateConfigurationRequest>(param).and_then(|_| {
                    self.rs
                        .config
                        .settings
                        .update(&self.rs.name.to_string())
                        .map_err(|e| from_error(&e))?;
                    Ok(pb::UpdateConfigurationResponse {}.encode_to_vec())
                })
            }
            // Basalt queues no compactions: a requested one runs in the call that asks, the
            // background ones are chosen as they start. The queue names are checked as
            // HBase checks them.
            "ClearCompactionQueues" => {
                decode::<pb::ClearCompactionQueuesRequest>(param).and_then(|r| {
                    if let Some(bad) = r.queue_name.iter().find(|q| *q != "long" && *q != "short") {
                        return Err(exception(
                            "org.apache.hadoop.hbase.DoNotRetryIOException",
                            format!("Unknown queue name {bad}: the queues are long and short"),
                            true,
                        ));
                    }
                    Ok(pb::ClearCompactionQueuesResponse {}.encode_to_vec())
                })
            }
            "GetLogEntries" => decode::<pb::LogRequest>(param).and_then(|r| {
                if !r.log_class_name.ends_with("SlowLogResponseRequest") {
                    return Err(exception(
                        "org.apache.hadoop.hbase.DoNotRetryIOException",
                        format!(
                            "a region server keeps the slow and large logs, not {}",
                            r.log_class_name
                        ),
                        true,
                    ));
                }
                let request = decode::<pb::SlowLogResponseRequest>(Some(&r.log_message))?;
                let calls = self
                    .rs
                    .slow_log
                    .read(&basalt_proto::slow_log_filter(&request));
                let responses = pb::SlowLogResponses {
                    slow_log_payloads: calls.iter().map(basalt_proto::slow_log_payload).collect(),
                };
                Ok(pb::LogEntry {
                    log_class_name: basalt_proto::SLOW_LOG_RESPONSES_CLASS.into(),
                    log_message: responses.encode_to_vec(),
                }
                .encode_to_vec())
            }),
            "ClearSlowLogsResponses" => {
                decode::<pb::ClearSlowLogResponseRequest>(param).map(|_| {
                    self.rs.slow_log.clear();
                    pb::ClearSlowLogResponses { is_cleaned: true }.encode_to_vec()
                })
            }
            // Basalt's: the master's cleaner_chore_run asks each server to clean its archive.
            "RunLogCleaner" => decode::<pb::RunLogCleanerRequest>(param).and_then(|_| {
                let deleted = self
                    .rs
                    .clean_wal_archive(true)
                    .map_err(|e| from_error(&e))?;
                Ok(pb::RunLogCleanerResponse {
                    deleted: deleted as u64,
                }
                .encode_to_vec())
            }),
            "GetServerReport" => decode::<pb::GetServerReportRequest>(param)
                .map(|_| basalt_proto::server_report(&self.rs.status()).encode_to_vec()),
            "ReplicateWALEntry" => decode::<pb::ReplicateWalEntryRequest>(param).and_then(|r| {
                let sink = self.sink.as_ref().ok_or_else(|| {
                    exception(
                        "org.apache.hadoop.hbase.DoNotRetryIOException",
                        "this server takes no replicated edits".into(),
                        true,
                    )
                })?;
                sink.apply(&r, cell_block).map_err(|e| from_error(&e))?;
                Ok(pb::ReplicateWalEntryResponse {}.encode_to_vec())
            }),
            "CompactionSwitch" => decode::<pb::CompactionSwitchRequest>(param).map(|r| {
                pb::CompactionSwitchResponse {
                    prev_state: self.rs.switch_compactions(r.enabled),
                }
                .encode_to_vec()
            }),
            "GetServerInfo" => Ok(GetServerInfoResponse {
                server_info: ServerInfo {
                    server_name: pb::ServerName {
                        host_name: self.addr.ip().to_string(),
                        port: Some(u32::from(self.addr.port())),
                        start_code: u64::try_from(self.rs.name.start_code).ok(),
                    },
                    webui_port: None,
                },
            }
            .encode_to_vec()),

            _ => return self.region_call(method, param),
        })
    }

    /// The calls on one region, or on all of them; then the assignment calls.
    fn region_call(&self, method: &str, param: Option<&[u8]>) -> Option<Outcome> {
        Some(match method {
            "GetRegionInfo" => decode::<GetRegionInfoRequest>(param).and_then(|r| {
                let region = named_region(&self.rs, &r.region)?;
                let info = region.info();
                let user_region = !info.table.is_system();
                Ok(GetRegionInfoResponse {
                    region_info: region_info_pb(info),
                    compaction_state: r.compaction_state().then(|| {
                        use get_region_info_response::CompactionState as S;
                        (match region.compaction_state() {
                            (false, false) => S::None,
                            (true, false) => S::Minor,
                            (false, true) => S::Major,
                            (true, true) => S::MajorAndMinor,
                        }) as i32
                    }),
                    splittable: Some(user_region),
                    mergeable: Some(user_region),
                    best_split_row: if r.best_split_row() {
                        region
                            .split_point()
                            .map_err(|e| from_error(&e))?
                            .map(|b| b.to_vec())
                    } else {
                        None
                    },
                }
                .encode_to_vec())
            }),
            "GetOnlineRegion" => {
                // Meta's region first, then by name, as HBase lists them.
                let mut online = self.rs.online_regions();
                online.sort_by_key(|r| (!r.info().table.is_system(), r.info().region_name()));
                Ok(GetOnlineRegionResponse {
                    region_info: online.iter().map(|r| region_info_pb(r.info())).collect(),
                }
                .encode_to_vec())
            }
            "FlushRegion" => decode::<FlushRegionRequest>(param).and_then(|r| {
                if r.if_older_than_ts.is_some() {
                    return Err(refused(
                        "FlushRegionRequest.if_older_than_ts",
                        "Basalt flushes when asked, whatever the last flush's age",
                    ));
                }
                if r.write_flush_wal_marker() {
                    return Err(refused(
                        "FlushRegionRequest.write_flush_wal_marker",
                        "Basalt logs no flush markers (it keeps no region replicas)",
                    ));
                }
                // Basalt flushes every family of the region; a flush of one family is a
                // subset HBase allows, and flushing more never loses data.
                named_region(&self.rs, &r.region)?
                    .flush()
                    .map_err(|e| from_error(&e))?;
                Ok(FlushRegionResponse {
                    last_flush_time: millis_now(),
                    flushed: Some(true),
                    wrote_flush_wal_marker: Some(false),
                }
                .encode_to_vec())
            }),
            "ClearRegionBlockCache" => {
                decode::<pb::ClearRegionBlockCacheRequest>(param).and_then(|r| {
                    let regions = r
                        .region
                        .iter()
                        .map(|spec| named_region(&self.rs, spec))
                        .collect::<Result<Vec<_>, _>>()?;
                    let (blocks, bytes, capacity) = self.rs.clear_block_cache(&regions);
                    let n = |v: u64| Some(i64::try_from(v).unwrap_or(i64::MAX));
                    Ok(pb::ClearRegionBlockCacheResponse {
                        stats: pb::CacheEvictionStats {
                            evicted_blocks: n(blocks),
                            bytes_evicted: n(bytes),
                            max_cache_size: n(capacity),
                        },
                    }
                    .encode_to_vec())
                })
            }
            "CompactRegion" => decode::<CompactRegionRequest>(param).and_then(|r| {
                if r.family.as_ref().is_some_and(|f| !f.is_empty()) {
                    return Err(refused(
                        "CompactRegionRequest.family",
                        "Basalt compacts every family of a region together",
                    ));
                }
                self.rs.check_compactions().map_err(|e| from_error(&e))?;
                named_region(&self.rs, &r.region)?
                    .compact(r.major())
                    .map_err(|e| from_error(&e))?;
                // Parents a compaction freed of their last references go with the master's
                // next cleanup, which the background worker runs.
                self.rs.wake_background();
                Ok(CompactRegionResponse {}.encode_to_vec())
            }),
            "GetRegionLoad" => decode::<pb::GetRegionLoadRequest>(param).and_then(|r| {
                let table = r
                    .table_name
                    .as_ref()
                    .map(|t| table_name(t).map(|t| t.to_string()))
                    .transpose()?;
                Ok(pb::GetRegionLoadResponse {
                    region_loads: self
                        .rs
                        .status()
                        .regions
                        .iter()
                        .filter(|r| table.as_ref().is_none_or(|t| *t == r.table))
                        .map(basalt_proto::region_load)
                        .collect(),
                }
                .encode_to_vec())
            }),
            _ => return self.assignment(method, param),
        })
    }

    /// A call meant for the server with `start_code`: this one, or a refusal (a master that
    /// still knows a server this one replaced at the same address).
    fn check_target(&self, start_code: Option<u64>) -> Result<(), ExceptionResponse> {
        let mine = u64::try_from(self.rs.name.start_code).ok();
        match start_code {
            Some(code) if Some(code) != mine => Err(exception(
                "org.apache.hadoop.hbase.DoNotRetryIOException",
                format!(
                    "This RPC was supposed to go to the server with start code {code}, but this \
                     server is {}",
                    self.rs.name
                ),
                true,
            )),
            _ => Ok(()),
        }
    }

    /// The master's calls: opening and closing regions, and Basalt's own calls for the region
    /// half of splits and merges (`docs/design/cluster.md`).
    fn assignment(&self, method: &str, param: Option<&[u8]>) -> Option<Outcome> {
        let failed = |e: basalt_common::Error| from_error(&e);
        Some(match method {
            "OpenRegion" => decode::<OpenRegionRequest>(param).and_then(|r| {
                self.check_target(r.server_start_code)?;
                check_open(&r)?;
                let mut out = OpenRegionResponse::default();
                for open in &r.open_info {
                    let info = region_info(&open.region)?;
                    let already = self.rs.is_online(&info);
                    let region = self.rs.assign(&info).map_err(failed)?;
                    out.opening_state.push(if already {
                        RegionOpeningState::AlreadyOpened as i32
                    } else {
                        RegionOpeningState::Opened as i32
                    });
                    out.open_seq_num.push(region.last_sequence_id());
                }
                Ok(out.encode_to_vec())
            }),
            "CloseRegion" => decode::<CloseRegionRequest>(param).and_then(|r| {
                self.check_target(r.server_start_code)?;
                check_close(&r)?;
                let region = named_region(&self.rs, &r.region)?;
                let closed = self.rs.unassign(region.info()).map_err(failed)?;
                Ok(CloseRegionResponse { closed }.encode_to_vec())
            }),
            "ReopenRegion" => decode::<ReopenRegionRequest>(param).and_then(|r| {
                self.check_target(r.server_start_code)?;
                let region = self.rs.reopen(&region_info(&r.region)?).map_err(failed)?;
                Ok(ReopenRegionResponse {
                    open_seq_num: region.last_sequence_id(),
                }
                .encode_to_vec())
            }),
            "PrepareSplit" => decode::<PrepareSplitRequest>(param).and_then(|r| {
                self.check_target(r.server_start_code)?;
                let daughters = self
                    .rs
                    .split_region(
                        &region_info(&r.parent)?,
                        r.split_row.map(Bytes::from),
                        r.daughter_id,
                    )
                    .map_err(failed)?;
                Ok(PrepareSplitResponse {
                    daughter: daughters.iter().map(region_info_pb).collect(),
                }
                .encode_to_vec())
            }),
            "PrepareMerge" => decode::<PrepareMergeRequest>(param).and_then(|r| {
                self.check_target(r.server_start_code)?;
                self.rs
                    .merge_regions(
                        &region_info(&r.lo)?,
                        &region_info(&r.hi)?,
                        &region_info(&r.merged)?,
                    )
                    .map_err(failed)?;
                Ok(PrepareMergeResponse {}.encode_to_vec())
            }),
            "Settle" => decode::<SettleRequest>(param).and_then(|r| {
                self.check_target(r.server_start_code)?;
                let infos = |list: &[pb::RegionInfo]| {
                    list.iter().map(region_info).collect::<Result<Vec<_>, _>>()
                };
                let opened = self
                    .rs
                    .settle(&infos(&r.parent)?, &infos(&r.child)?, r.committed)
                    .map_err(failed)?;
                Ok(SettleResponse {
                    open_seq_num: opened.iter().map(|r| r.last_sequence_id()).collect(),
                }
                .encode_to_vec())
            }),
            _ => return None,
        })
    }
}

impl basalt_proto::service::Service for AdminService {
    fn name(&self) -> &'static str {
        "AdminService"
    }

    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        cell_block: &Bytes,
        _caller: Option<&basalt_common::acl::User>,
    ) -> Option<Outcome> {
        AdminService::call(self, method, param, cell_block)
    }

    fn may_wait(&self, method: &str) -> bool {
        // A batch waits for its rows' writes, on any server of the cluster.
        method == "ReplicateWALEntry"
    }

    fn servers_only(&self) -> bool {
        true
    }
}

/// The fields of OpenRegion that HBase's master sets for its own procedures and Basalt's
/// master does not: refused rather than ignored (docs/design/fields.md).
fn check_open(r: &OpenRegionRequest) -> Result<(), ExceptionResponse> {
    for open in &r.open_info {
        if !open.favored_nodes.is_empty() {
            return Err(refused(
                "OpenRegionRequest.RegionOpenInfo.favored_nodes",
                "Basalt has no favored-nodes placement",
            ));
        }
        if open.open_proc_id.is_some_and(|id| id != -1) {
            return Err(refused(
                "OpenRegionRequest.RegionOpenInfo.open_proc_id",
                "Basalt's master runs no procedure for the region server to report to",
            ));
        }
    }
    if r.master_system_time.is_some() || r.initiating_master_active_time.is_some() {
        return Err(refused(
            "OpenRegionRequest.master_system_time / initiating_master_active_time",
            "Basalt's master names its target by serverStartCode",
        ));
    }
    Ok(())
}

/// The fields of CloseRegion that HBase's master sets and Basalt's does not.
fn check_close(r: &CloseRegionRequest) -> Result<(), ExceptionResponse> {
    if r.destination_server.is_some() {
        return Err(refused(
            "CloseRegionRequest.destination_server",
            "Basalt's clients find a moved region in meta",
        ));
    }
    if r.close_proc_id.is_some_and(|id| id != -1) {
        return Err(refused(
            "CloseRegionRequest.close_proc_id",
            "Basalt's master runs no procedure for the region server to report to",
        ));
    }
    if r.evict_cache() {
        return Err(refused(
            "CloseRegionRequest.evict_cache",
            "a closed region's blocks leave the cache as it is used",
        ));
    }
    if r.initiating_master_active_time.is_some() {
        return Err(refused(
            "CloseRegionRequest.initiating_master_active_time",
            "Basalt's master names its target by serverStartCode",
        ));
    }
    Ok(())
}
