//! AdminService: a region server's own administration (HBase's AdminProtos), served on the
//! same port as ClientService: region descriptions, the server's online regions, flushes and
//! compactions of one region, and the server's name. Splits and merges are MasterService's
//! (`SplitRegion`, `MergeTableRegions`), as in HBase 2.

use std::net::SocketAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use basalt_client::{Connection, ErrorKind, RegionInfo};
use prost::Message;

use crate::pb::{
    self, CompactRegionRequest, CompactRegionResponse, ExceptionResponse, FlushRegionRequest,
    FlushRegionResponse, GetOnlineRegionResponse, GetRegionInfoRequest, GetRegionInfoResponse,
    GetServerInfoResponse, RegionSpecifier, ServerInfo, get_region_info_response,
};
use basalt_proto::schema::region_info_pb;
use basalt_proto::{META_REGION, decode, exception, from_error};

type Outcome = Result<Vec<u8>, ExceptionResponse>;

/// AdminService for one server.
#[derive(Debug)]
pub struct AdminService {
    conn: Connection,
    /// Where this server's RPC listens: the host and port of its server name.
    addr: SocketAddr,
}

/// The region a specifier names (full name, encoded name, or HBase's fixed `hbase:meta,,1`).
/// A region this server does not serve is a NotServingRegionException, as in HBase, so clients
/// look it up again.
pub(crate) fn named_region(
    conn: &Connection,
    spec: &RegionSpecifier,
) -> Result<RegionInfo, ExceptionResponse> {
    let admin = conn.admin();
    let found = if spec.value == META_REGION {
        admin
            .online_regions()
            .into_iter()
            .next()
            .ok_or_else(|| basalt_client::Error::UnknownRegion("hbase:meta".into()))
    } else {
        admin.region_info(&spec.value)
    };
    found.map_err(|e| match e.kind() {
        ErrorKind::NotFound => exception(
            "org.apache.hadoop.hbase.NotServingRegionException",
            format!(
                "Region {} is not online",
                String::from_utf8_lossy(&spec.value)
            ),
            false,
        ),
        _ => from_error(&e),
    })
}

fn millis_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl AdminService {
    pub fn new(conn: Connection, addr: SocketAddr) -> Self {
        AdminService { conn, addr }
    }

    /// Runs `method`; `None` if Basalt does not serve it.
    pub fn call(&self, method: &str, param: Option<&[u8]>) -> Option<Outcome> {
        Some(match method {
            "GetRegionInfo" => decode::<GetRegionInfoRequest>(param).and_then(|r| {
                let info = named_region(&self.conn, &r.region)?;
                let user_region = !info.table.is_system();
                Ok(GetRegionInfoResponse {
                    region_info: region_info_pb(&info),
                    // Compactions run inside the calls that ask for them, so none is pending
                    // when another call can look.
                    compaction_state: r
                        .compaction_state()
                        .then_some(get_region_info_response::CompactionState::None as i32),
                    splittable: Some(user_region),
                    mergeable: Some(user_region),
                    best_split_row: None,
                }
                .encode_to_vec())
            }),
            "GetOnlineRegion" => Ok(GetOnlineRegionResponse {
                region_info: self
                    .conn
                    .admin()
                    .online_regions()
                    .iter()
                    .map(region_info_pb)
                    .collect(),
            }
            .encode_to_vec()),
            "FlushRegion" => decode::<FlushRegionRequest>(param).and_then(|r| {
                let info = named_region(&self.conn, &r.region)?;
                // Basalt flushes every family of the region; a flush of one family is a
                // subset HBase allows, and flushing more never loses data.
                self.conn
                    .admin()
                    .flush_region(&info.region_name())
                    .map_err(|e| from_error(&e))?;
                Ok(FlushRegionResponse {
                    last_flush_time: millis_now(),
                    flushed: Some(true),
                    wrote_flush_wal_marker: Some(false),
                }
                .encode_to_vec())
            }),
            "CompactRegion" => decode::<CompactRegionRequest>(param).and_then(|r| {
                let info = named_region(&self.conn, &r.region)?;
                self.conn
                    .admin()
                    .compact_region(&info.region_name(), r.major())
                    .map_err(|e| from_error(&e))?;
                Ok(CompactRegionResponse {}.encode_to_vec())
            }),
            "GetServerInfo" => Ok(GetServerInfoResponse {
                server_info: ServerInfo {
                    server_name: pb::ServerName {
                        host_name: self.addr.ip().to_string(),
                        port: Some(u32::from(self.addr.port())),
                        start_code: u64::try_from(self.conn.server_start_code()).ok(),
                    },
                    webui_port: None,
                },
            }
            .encode_to_vec()),
            _ => return None,
        })
    }
}
