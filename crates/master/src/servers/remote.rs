//! A region server across the network, as a cluster's master reaches it: AdminService over
//! the native RPC (`Link`). Its exceptions come back as Basalt's errors: a region the server
//! does not hold is NotServingRegion, a server that cannot be reached an I/O error naming it.

use std::net::SocketAddr;
use std::sync::Arc;

use prost::Message;

use basalt_common::{Bytes, Error, RegionInfo, Result, ServerName};
use basalt_proto::pb::{
    self, CloseRegionRequest, CloseRegionResponse, CompactRegionRequest, CompactRegionResponse,
    FlushRegionRequest, FlushRegionResponse, OpenRegionRequest, OpenRegionResponse,
    PrepareMergeRequest, PrepareMergeResponse, PrepareSplitRequest, PrepareSplitResponse,
    ReopenRegionRequest, ReopenRegionResponse, SettleRequest, SettleResponse,
    open_region_request::RegionOpenInfo,
};
use basalt_proto::region;
use basalt_proto::schema::{region_info, region_info_pb};

use super::RegionServerAdmin;
use super::link::{Link, LinkConfig};
use crate::meta::MetaStore;

/// One region server, reached over AdminService.
#[derive(Debug)]
pub struct RemoteServer {
    link: Link,
}

impl RemoteServer {
    /// The server `name` (whose host and port are where it listens); nothing is connected
    /// until the first call.
    pub fn new(name: ServerName, config: LinkConfig) -> Result<Self> {
        Ok(RemoteServer {
            link: Link::new(name, "AdminService", config)?,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.link.addr
    }

    fn start_code(&self) -> Option<u64> {
        u64::try_from(self.link.name.start_code).ok()
    }

    fn call<Q: Message, R: Message + Default>(&self, method: &str, request: &Q) -> Result<R> {
        self.link.call(method, request)
    }

    fn unreachable(&self, why: &str) -> Error {
        self.link.unreachable(why)
    }
}

fn decoded(e: pb::ExceptionResponse) -> Error {
    Error::corrupt(format!(
        "a region server's answer: {}",
        e.stack_trace.unwrap_or_default()
    ))
}

fn infos(list: &[RegionInfo]) -> Vec<pb::RegionInfo> {
    list.iter().map(region_info_pb).collect()
}

impl RegionServerAdmin for RemoteServer {
    fn name(&self) -> &ServerName {
        &self.link.name
    }

    fn rows(&self, info: &RegionInfo) -> Result<Arc<dyn MetaStore>> {
        Ok(Arc::new(super::RemoteMeta::region(
            self.link.name.clone(),
            self.link.config.clone(),
            info.region_name().to_vec(),
        )?))
    }

    fn report(&self) -> Result<pb::GetServerReportResponse> {
        self.call("GetServerReport", &pb::GetServerReportRequest {})
    }

    fn run_log_cleaner(&self) -> Result<u64> {
        let r: pb::RunLogCleanerResponse =
            self.call("RunLogCleaner", &pb::RunLogCleanerRequest {})?;
        Ok(r.deleted)
    }

    fn region_loads(&self) -> Result<Vec<pb::RegionLoad>> {
        let r: pb::GetRegionLoadResponse = self.call(
            "GetRegionLoad",
            &pb::GetRegionLoadRequest { table_name: None },
        )?;
        Ok(r.region_loads)
    }

    fn open_region(&self, info: &RegionInfo) -> Result<u64> {
        let r: OpenRegionResponse = self.call(
            "OpenRegion",
            &OpenRegionRequest {
                open_info: vec![RegionOpenInfo {
                    region: region_info_pb(info),
                    ..RegionOpenInfo::default()
                }],
                server_start_code: self.start_code(),
                ..OpenRegionRequest::default()
            },
        )?;
        r.open_seq_num
            .first()
            .copied()
            .ok_or_else(|| self.unreachable("OpenRegion answered without a sequence id"))
    }

    fn close_region(&self, info: &RegionInfo) -> Result<bool> {
        let answer: Result<CloseRegionResponse> = self.call(
            "CloseRegion",
            &CloseRegionRequest {
                region: region(&info.region_name()),
                server_start_code: self.start_code(),
                ..CloseRegionRequest::default()
            },
        );
        match answer {
            Ok(r) => Ok(r.closed),
            Err(Error::NotServingRegion(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    fn reopen_region(&self, info: &RegionInfo) -> Result<u64> {
        let r: ReopenRegionResponse = self.call(
            "ReopenRegion",
            &ReopenRegionRequest {
                region: region_info_pb(info),
                server_start_code: self.start_code(),
            },
        )?;
        Ok(r.open_seq_num)
    }

    /// A cluster's region server closes a disabled table's regions and opens them again when
    /// it is enabled, as HBase's does (the embedded engine keeps them open, not serving).
    fn set_serving(&self, info: &RegionInfo, serving: bool) -> Result<()> {
        if serving {
            self.open_region(info).map(|_| ())
        } else {
            self.close_region(info).map(|_| ())
        }
    }

    fn drop_region(&self, info: &RegionInfo) -> Result<()> {
        self.close_region(info).map(|_| ())
    }

    fn flush_region(&self, info: &RegionInfo) -> Result<()> {
        let _: FlushRegionResponse = self.call(
            "FlushRegion",
            &FlushRegionRequest {
                region: region(&info.region_name()),
                ..FlushRegionRequest::default()
            },
        )?;
        Ok(())
    }

    fn compact_region(&self, info: &RegionInfo, major: bool) -> Result<()> {
        let _: CompactRegionResponse = self.call(
            "CompactRegion",
            &CompactRegionRequest {
                region: region(&info.region_name()),
                major: Some(major),
                family: None,
            },
        )?;
        Ok(())
    }

    fn split_region(
        &self,
        parent: &RegionInfo,
        at: Option<Bytes>,
        daughter_id: i64,
    ) -> Result<[RegionInfo; 2]> {
        let r: PrepareSplitResponse = self.call(
            "PrepareSplit",
            &PrepareSplitRequest {
                parent: region_info_pb(parent),
                split_row: at.map(|k| k.to_vec()),
                daughter_id,
                server_start_code: self.start_code(),
            },
        )?;
        let daughters = r
            .daughter
            .iter()
            .map(region_info)
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(decoded)?;
        <[RegionInfo; 2]>::try_from(daughters)
            .map_err(|d| self.unreachable(&format!("PrepareSplit answered {} daughters", d.len())))
    }

    fn merge_regions(&self, lo: &RegionInfo, hi: &RegionInfo, merged: &RegionInfo) -> Result<()> {
        let _: PrepareMergeResponse = self.call(
            "PrepareMerge",
            &PrepareMergeRequest {
                lo: region_info_pb(lo),
                hi: region_info_pb(hi),
                merged: region_info_pb(merged),
                server_start_code: self.start_code(),
            },
        )?;
        Ok(())
    }

    fn settle(
        &self,
        parents: &[RegionInfo],
        children: &[RegionInfo],
        committed: bool,
    ) -> Result<Vec<u64>> {
        let r: SettleResponse = self.call(
            "Settle",
            &SettleRequest {
                parent: infos(parents),
                child: infos(children),
                committed,
                server_start_code: self.start_code(),
            },
        )?;
        Ok(r.open_seq_num)
    }
}
