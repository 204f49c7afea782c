//! The RPC server: an accept loop and a thread per connection (as the Thrift gateway: engine
//! calls block). A connection that sends something unreadable is closed; the others go on.

use std::io::{self, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use basalt_client::Connection;

use crate::client_service::{ClientService, exception};
use crate::frame::{self, FrameError};
use crate::master_service::MasterService;

/// How the RPC server is started.
#[derive(Debug, Clone)]
pub struct RpcConfig {
    pub bind: SocketAddr,
    /// The largest frame accepted (HBase's `hbase.ipc.max.request.size`, 256 MiB).
    pub max_frame: usize,
    pub scanner_lease: Duration,
    /// A frame whose bytes stop arriving for this long drops its connection.
    pub stall_timeout: Duration,
}

impl Default for RpcConfig {
    fn default() -> Self {
        RpcConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 16020)),
            max_frame: 256 << 20,
            scanner_lease: Duration::from_secs(60),
            stall_timeout: Duration::from_secs(30),
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

const POLL: Duration = Duration::from_millis(100);

struct Shared {
    service: Arc<ClientService>,
    master: MasterService,
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
            master: MasterService::new(conn.clone()),
            service: Arc::clone(&service),
            config,
            stop: Arc::clone(&stop),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("rpc-accept".into())
                .spawn(move || accept_loop(&listener, &shared))?
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

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut connections: Vec<JoinHandle<()>> = Vec::new();
    while !shared.stop.load(Ordering::Acquire) {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(shared);
                let spawned =
                    std::thread::Builder::new()
                        .name("rpc-conn".into())
                        .spawn(move || {
                            if let Err(e) = serve(stream, &shared) {
                                eprintln!("rpc: connection dropped: {e}");
                            }
                        });
                match spawned {
                    Ok(h) => {
                        connections.retain(|t| !t.is_finished());
                        connections.push(h);
                    }
                    Err(e) => eprintln!("rpc: cannot start a connection thread: {e}"),
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(POLL / 10),
            Err(e) => {
                eprintln!("rpc: accept failed: {e}");
                std::thread::sleep(POLL);
            }
        }
    }
    for t in connections {
        let _ = t.join();
    }
}

/// Waits out read timeouts: between frames it gives up when the server stops, within a frame
/// when bytes stop arriving for the stall timeout.
struct Patient<'a> {
    inner: BufReader<TcpStream>,
    stop: &'a AtomicBool,
    stall: Duration,
    in_frame: bool,
}

impl Read for Patient<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut started: Option<Instant> = None;
        loop {
            match self.inner.read(buf) {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if !self.in_frame && self.stop.load(Ordering::Acquire) {
                        return Ok(0);
                    }
                    if self.in_frame
                        && started.get_or_insert_with(Instant::now).elapsed() > self.stall
                    {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the frame's bytes stopped arriving",
                        ));
                    }
                }
                Ok(n) => {
                    self.in_frame |= n > 0;
                    return Ok(n);
                }
                other => return other,
            }
        }
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> Result<(), FrameError> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(POLL))?;
    let mut out = stream.try_clone()?;
    let mut input = Patient {
        inner: BufReader::with_capacity(64 * 1024, stream),
        stop: &shared.stop,
        stall: shared.config.stall_timeout,
        in_frame: false,
    };
    let limit = shared.config.max_frame;
    match frame::read_preamble(&mut input) {
        Err(FrameError::Closed) => return Ok(()),
        other => other?,
    }
    let header = frame::read_connection_header(&mut input, limit)?;
    let service = header.service_name.unwrap_or_default();
    loop {
        input.in_frame = false;
        let call = match frame::read_call(&mut input, limit) {
            Ok(call) => call,
            Err(FrameError::Closed) => return Ok(()),
            Err(e) => return Err(e),
        };
        let call_id = call.header.call_id.unwrap_or(0);
        let method = call.header.method_name.clone().unwrap_or_default();
        // One port serves both services, chosen by the connection header.
        let outcome = match service.as_str() {
            "ClientService" => shared.service.call(&method, call.param.as_deref()),
            "MasterService" => shared.master.call(&method, call.param.as_deref()),
            _ => None,
        };
        let outcome = outcome.unwrap_or_else(|| {
            Err(exception(
                "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
                format!("No registered service or method {service}.{method}"),
                true,
            ))
        });
        out.write_all(&frame::encode_response(call_id, outcome))?;
    }
}
