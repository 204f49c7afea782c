//! The RPC server: an accept loop and a thread per connection (as the Thrift gateway: engine
//! calls block). A connection that sends something unreadable is closed; the others go on.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_client::Connection;
use basalt_net::{POLL, Patient, serve_connections};

use crate::admin_service::AdminService;
use crate::cellblock;
use crate::client_service::{ClientService, exception};
use crate::frame::{self, FrameError};
use crate::master_service::MasterService;
use crate::pb::ExceptionResponse;

/// How the RPC server is started.
#[derive(Debug, Clone)]
pub struct RpcConfig {
    pub bind: SocketAddr,
    /// The largest frame accepted (HBase's `hbase.ipc.max.request.size`, 256 MiB).
    pub max_frame: usize,
    pub scanner_lease: Duration,
    /// A frame whose bytes stop arriving for this long drops its connection.
    pub stall_timeout: Duration,
    /// The region server a master on this port reports in its cluster status; None: this
    /// server itself (which serves ClientService too).
    pub region_server: Option<SocketAddr>,
}

impl Default for RpcConfig {
    fn default() -> Self {
        RpcConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 16020)),
            max_frame: 256 << 20,
            scanner_lease: Duration::from_secs(60),
            stall_timeout: Duration::from_secs(30),
            region_server: None,
        }
    }
}

/// A running RPC server.
#[derive(Debug)]
pub struct RpcServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    service: Arc<ClientService>,
}

struct Shared {
    service: Arc<ClientService>,
    master: MasterService,
    admin: AdminService,
    config: RpcConfig,
    stop: Arc<AtomicBool>,
}

impl RpcServer {
    pub fn start(conn: Connection, config: RpcConfig) -> io::Result<RpcServer> {
        let listener = TcpListener::bind(config.bind)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let service = Arc::new(ClientService::new(conn.clone(), config.scanner_lease));
        let shared = Arc::new(Shared {
            master: MasterService::new(conn.clone(), addr, config.region_server.unwrap_or(addr)),
            admin: AdminService::new(conn.clone(), addr),
            service: Arc::clone(&service),
            config,
            stop: Arc::clone(&stop),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("rpc-accept".into())
                .spawn(move || {
                    let conn_shared = Arc::clone(&shared);
                    serve_connections(
                        &listener,
                        &shared.stop,
                        usize::MAX,
                        "rpc",
                        Arc::new(move |stream| serve(stream, &conn_shared)),
                    );
                })?
        };
        let reaper = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("rpc-leases".into())
                .spawn(move || {
                    while !shared.stop.load(Ordering::Acquire) {
                        std::thread::sleep(POLL);
                        shared.service.expire();
                    }
                })?
        };
        Ok(RpcServer {
            addr,
            stop,
            threads: vec![accept, reaper],
            service,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn open_scanners(&self) -> usize {
        self.service.open_scanners()
    }

    /// Stops accepting, lets each connection finish its call, and waits for them.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for RpcServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> Result<(), FrameError> {
    stream.set_nodelay(true)?;
    let mut out = stream.try_clone()?;
    let mut input = Patient::new(stream, &shared.stop, shared.config.stall_timeout)?;
    let limit = shared.config.max_frame;
    match frame::read_preamble(&mut input) {
        Err(FrameError::Closed) => return Ok(()),
        other => other?,
    }
    let header = frame::read_connection_header(&mut input, limit)?;
    let service = header.service_name.unwrap_or_default();
    // Answers not yet written: while the next call is already here whole (a client that
    // shares the connection between threads sends several at once), its answer joins them,
    // and one write sends them all.
    let mut replies = Vec::new();
    loop {
        if !replies.is_empty() && !frame::holds_whole_frame(input.buffered()) {
            out.write_all(&replies)?;
            replies.clear();
        }
        input.next_message();
        let call = match frame::read_call(&mut input, limit) {
            Ok(call) => call,
            Err(FrameError::Closed) => return Ok(()),
            Err(e) => return Err(e),
        };
        let call_id = call.header.call_id.unwrap_or(0);
        let method = call.header.method_name.clone().unwrap_or_default();
        // One port serves both services, chosen by the connection header.
        let outcome = match service.as_str() {
            "ClientService" if !call.cell_block.is_empty() => Some(
                cellblock::check_codec(
                    header.cell_block_codec_class.as_deref(),
                    header.cell_block_compressor_class.as_deref(),
                )
                .and_then(|()| {
                    shared
                        .service
                        .call(&method, call.param.as_deref(), &call.cell_block)
                        .unwrap_or_else(|| Err(unknown(&service, &method)))
                }),
            ),
            "ClientService" => shared.service.call(&method, call.param.as_deref(), &[]),
            "MasterService" => shared.master.call(&method, call.param.as_deref()),
            "AdminService" => shared.admin.call(&method, call.param.as_deref()),
            _ => None,
        };
        let outcome = outcome.unwrap_or_else(|| Err(unknown(&service, &method)));
        frame::append_response(&mut replies, call_id, outcome);
    }
}

fn unknown(service: &str, method: &str) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
        format!("No registered service or method {service}.{method}"),
        true,
    )
}
