//! A small native-RPC client: one connection to one service, one call at a time, and the
//! region lookup a client needs (a scan of `hbase:meta`). `basalt pe --rpc` drives it; the
//! remote `Connection` of issue 10 will grow from it.

use std::io::{self, BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use prost::Message;

use crate::client_service::META_REGION;
use crate::frame::{FrameError, encode_call, encode_connection_start, read_response};
use crate::pb::{
    self, ConnectionHeader, RegionSpecifier, Scan, ScanRequest, ScanResponse, UserInformation,
    region_specifier::RegionSpecifierType,
};

/// Why a call failed.
#[derive(Debug)]
pub enum RpcError {
    Frame(FrameError),
    /// The server's exception: its Java class and message.
    Remote {
        class: String,
        message: String,
    },
    Decode(String),
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::Frame(e) => write!(f, "{e}"),
            RpcError::Remote { class, message } => write!(f, "{class}: {message}"),
            RpcError::Decode(e) => write!(f, "cannot decode the response: {e}"),
        }
    }
}

impl std::error::Error for RpcError {}

impl From<io::Error> for RpcError {
    fn from(e: io::Error) -> Self {
        RpcError::Frame(FrameError::Io(e))
    }
}

/// One connection to one service.
#[derive(Debug)]
pub struct RpcClient {
    out: TcpStream,
    input: BufReader<TcpStream>,
    call_id: u32,
}

/// A region as a client routes to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub name: Vec<u8>,
    pub start: Vec<u8>,
    pub end: Vec<u8>,
}

/// The region specifier for a region name.
pub fn region(name: &[u8]) -> RegionSpecifier {
    RegionSpecifier {
        r#type: RegionSpecifierType::RegionName as i32,
        value: name.to_vec(),
    }
}

impl RpcClient {
    /// Connects and opens `service` (`ClientService`, `MasterService`).
    pub fn connect(addr: SocketAddr, service: &str) -> io::Result<RpcClient> {
        let mut out = TcpStream::connect(addr)?;
        out.set_nodelay(true)?;
        out.write_all(&encode_connection_start(&ConnectionHeader {
            user_info: Some(UserInformation {
                effective_user: Some("basalt".into()),
                real_user: None,
            }),
            service_name: Some(service.into()),
            ..ConnectionHeader::default()
        }))?;
        Ok(RpcClient {
            input: BufReader::with_capacity(64 * 1024, out.try_clone()?),
            out,
            call_id: 0,
        })
    }

    /// How long a call may wait for its answer (and a request for the socket); None: forever.
    pub fn set_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.out.set_read_timeout(timeout)?;
        self.out.set_write_timeout(timeout)
    }

    pub fn call<Q: Message, R: Message + Default>(
        &mut self,
        method: &str,
        request: &Q,
    ) -> Result<R, RpcError> {
        self.call_id = self.call_id.wrapping_add(1);
        self.out
            .write_all(&encode_call(self.call_id, method, request))?;
        let (header, message) = read_response(&mut self.input, 1 << 30).map_err(RpcError::Frame)?;
        if let Some(e) = header.exception {
            return Err(RpcError::Remote {
                class: e.exception_class_name.unwrap_or_default(),
                message: e.stack_trace.unwrap_or_default(),
            });
        }
        R::decode(message.unwrap_or_default().as_slice())
            .map_err(|e| RpcError::Decode(e.to_string()))
    }

    /// The regions of `table` (`ns:table` or `table`), in key order, from `hbase:meta`.
    pub fn regions(&mut self, table: &str) -> Result<Vec<Location>, RpcError> {
        let start = format!("{table},").into_bytes();
        let mut stop = start.clone();
        if let Some(last) = stop.last_mut() {
            *last += 1;
        }
        let resp: ScanResponse = self.call(
            "Scan",
            &ScanRequest {
                region: Some(region(META_REGION)),
                scan: Some(Scan {
                    start_row: Some(start),
                    stop_row: Some(stop),
                    ..Scan::default()
                }),
                number_of_rows: Some(10_000),
                close_scanner: Some(true),
                ..ScanRequest::default()
            },
        )?;
        let mut out = Vec::new();
        for r in &resp.results {
            let info = r.cell.iter().find(|c| {
                c.family.as_deref() == Some(&b"info"[..])
                    && c.qualifier.as_deref() == Some(&b"regioninfo"[..])
            });
            let state = r.cell.iter().find(|c| {
                c.family.as_deref() == Some(&b"info"[..])
                    && c.qualifier.as_deref() == Some(&b"state"[..])
            });
            // Split parents stay in meta until cleaned; only serving regions route.
            if state.and_then(|c| c.value.as_deref()) != Some(&b"OPEN"[..]) {
                continue;
            }
            let (Some(info), Some(name)) = (info, r.cell.first().and_then(|c| c.row.clone()))
            else {
                continue;
            };
            let value = info.value.as_deref().unwrap_or_default();
            let body = value.strip_prefix(b"PBUF").unwrap_or(value);
            let ri = pb::RegionInfo::decode(body).map_err(|e| RpcError::Decode(e.to_string()))?;
            out.push(Location {
                name,
                start: ri.start_key.unwrap_or_default(),
                end: ri.end_key.unwrap_or_default(),
            });
        }
        Ok(out)
    }
}

/// The region of `regions` (in key order) holding `row`.
pub fn locate<'a>(regions: &'a [Location], row: &[u8]) -> Option<&'a Location> {
    regions
        .iter()
        .find(|r| r.start.as_slice() <= row && (r.end.is_empty() || row < r.end.as_slice()))
}
