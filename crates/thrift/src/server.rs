//! The Thrift1 server: an accept loop and a thread per connection, each reading a call,
//! running it and writing the reply, with the transport (buffered or framed) and protocol
//! (binary or compact) the server was started with.
//!
//! A connection that sends something unreadable (malformed, truncated, over the size limit)
//! is answered with a TApplicationException where the protocol still allows it, then closed;
//! other connections do not notice. Shutdown stops accepting, lets each connection finish the
//! call it is in, and waits for them.

use std::io::{self, BufRead, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_client::Client;
use basalt_net::{POLL, Patient, spawn_acceptor, spawn_reaper};

use crate::handler::{Handler, declares_illegal_argument};
use crate::protocol::Fields;
use crate::protocol::{
    CALL, EXCEPTION, MessageHeader, ONEWAY, Protocol, REPLY, Reader, TType, WireError, Writer,
};

/// How a server is started (HBase's thrift server flags and settings).
#[derive(Debug, Clone)]
pub struct ThriftConfig {
    pub bind: SocketAddr,
    /// Framed transport (`--framed`); buffered otherwise.
    pub framed: bool,
    /// Compact protocol (`--compact`); binary otherwise.
    pub compact: bool,
    /// The largest frame (framed) or message (buffered) accepted, in bytes.
    pub max_message: usize,
    /// Scanners idle this long are closed.
    pub scanner_lease: Duration,
    /// Connections served at once; more are closed at accept.
    pub max_connections: usize,
    /// A call whose bytes stop arriving for this long drops its connection.
    pub stall_timeout: Duration,
    /// The host and port TRegionInfo reports as the region server.
    pub server_host: String,
    pub server_port: i32,
    /// Serve over TLS with this configuration (HBase's `--ssl`); plaintext without.
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

impl Default for ThriftConfig {
    fn default() -> Self {
        ThriftConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 9090)),
            framed: false,
            compact: false,
            // HBase's default max frame is 2 MB; buffered messages are allowed 64 MiB.
            max_message: 64 << 20,
            scanner_lease: Duration::from_secs(60),
            max_connections: 1000,
            stall_timeout: Duration::from_secs(30),
            server_host: "localhost".into(),
            server_port: 16020,
            tls: None,
        }
    }
}

/// What a call answers: its result struct's field (the value, or the exception the method
/// declares), written after the reply's header.
pub trait Answer {
    fn write(&self, w: &mut Writer);
}

/// A Thrift service a server runs: Thrift1's `Hbase` ([`Handler`]) or Thrift2's
/// `THBaseService` ([`crate::thrift2::Thrift2`]).
pub trait Service: Send + Sync {
    /// Runs method `name` on its arguments; None for a method the service lacks.
    fn serve(&self, name: &str, args: &Fields) -> Option<Box<dyn Answer>>;
    /// Closes the scanners idle past their lease.
    fn expire_scanners(&self);
    /// Scanners open now.
    fn open_scanners(&self) -> usize;
    /// Closes every scanner.
    fn close_scanners(&self);
}

/// Thrift1's outcome with what its method declares.
struct Answer1 {
    outcome: crate::handler::Outcome,
    declares_ia: bool,
    declares_exists: bool,
}

impl Answer for Answer1 {
    fn write(&self, w: &mut Writer) {
        match &self.outcome {
            Ok(reply) => reply.write(w),
            Err(failure) => failure.write(w, self.declares_ia, self.declares_exists),
        }
    }
}

impl Service for Handler {
    fn serve(&self, name: &str, args: &Fields) -> Option<Box<dyn Answer>> {
        let outcome = self.call(name, args)?;
        Some(Box::new(Answer1 {
            outcome,
            declares_ia: declares_illegal_argument(name),
            declares_exists: name == "createTable",
        }))
    }

    fn expire_scanners(&self) {
        self.scanners.expire();
    }

    fn open_scanners(&self) -> usize {
        self.scanners.len()
    }

    fn close_scanners(&self) {
        self.scanners.clear();
    }
}

/// A running Thrift server (Thrift1 or Thrift2).
pub struct ThriftServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    service: Arc<dyn Service>,
}

impl std::fmt::Debug for ThriftServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThriftServer")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

struct Shared {
    service: Arc<dyn Service>,
    config: ThriftConfig,
    stop: Arc<AtomicBool>,
}

impl ThriftServer {
    /// Binds and starts serving `conn`, an embedded or a remote connection (the gateway is a
    /// client of Basalt, as HBase's Thrift server is of its cluster). Port 0 picks a free
    /// port ([`ThriftServer::local_addr`]).
    pub fn start(conn: Arc<dyn Client>, config: ThriftConfig) -> io::Result<ThriftServer> {
        let handler = Arc::new(Handler::new(
            conn,
            config.scanner_lease,
            config.server_host.clone(),
            config.server_port,
        ));
        Self::start_service(handler, config)
    }

    /// Binds and starts serving Thrift2's THBaseService on `conn` (HBase's `hbase thrift2`).
    pub fn start_thrift2(conn: Arc<dyn Client>, config: ThriftConfig) -> io::Result<ThriftServer> {
        let service = Arc::new(crate::thrift2::Thrift2::new(
            conn,
            config.scanner_lease,
            config.server_host.clone(),
            config.server_port,
        ));
        Self::start_service(service, config)
    }

    /// Binds and serves `service`.
    pub fn start_service(
        service: Arc<dyn Service>,
        config: ThriftConfig,
    ) -> io::Result<ThriftServer> {
        let listener = TcpListener::bind(config.bind)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let shared = Arc::new(Shared {
            service: Arc::clone(&service),
            config,
            stop: Arc::clone(&stop),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            let max = shared.config.max_connections;
            let serve = Arc::new(move |stream| serve(stream, &shared));
            spawn_acceptor(listener, Arc::clone(&stop), max, "thrift", serve)?
        };
        let reaper = {
            let shared = Arc::clone(&shared);
            spawn_reaper("thrift", Arc::clone(&stop), move || {
                shared.service.expire_scanners();
            })?
        };
        Ok(ThriftServer {
            addr,
            stop,
            threads: vec![accept, reaper],
            service,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Open scanners (for tests of leases).
    pub fn open_scanners(&self) -> usize {
        self.service.open_scanners()
    }

    /// Stops accepting, lets every connection finish its current call, waits for them, and
    /// closes every scanner. The engine stays open: its owner closes it.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.service.close_scanners();
    }
}

impl Drop for ThriftServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> Result<(), WireError> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(POLL))?;
    let stall = shared.config.stall_timeout;
    match &shared.config.tls {
        None => serve_stream(Patient::over(stream, &shared.stop, stall), shared),
        Some(config) => {
            // The handshake runs on the first read, under the same patience as a call.
            let session = rustls::ServerConnection::new(Arc::clone(config))
                .map_err(|e| WireError::Io(io::Error::other(format!("TLS: {e}"))))?;
            let tls = rustls::StreamOwned::new(session, stream);
            serve_stream(Patient::over(tls, &shared.stop, stall), shared)
        }
    }
}

/// Serves one connection's calls, replies written to the stream read from.
fn serve_stream<S: Read + Write>(
    mut input: Patient<'_, S>,
    shared: &Shared,
) -> Result<(), WireError> {
    let protocol = if shared.config.compact {
        Protocol::Compact
    } else {
        Protocol::Binary
    };
    let framed = shared.config.framed;
    let limit = shared.config.max_message;
    // One reply buffer for the connection's life.
    let mut w = Writer::new(protocol);
    loop {
        input.next_message();
        w.reset(framed);
        let answered = if framed {
            let mut len = [0u8; 4];
            if input.read(&mut len[..1])? == 0 {
                return Ok(());
            }
            input.read_exact(&mut len[1..])?;
            let len = u32::from_be_bytes(len) as usize;
            if len > limit {
                Err(WireError::TooLarge { limit })
            } else {
                let mut frame = vec![0u8; len];
                input.read_exact(&mut frame)?;
                handle(
                    &mut Reader::new(&frame[..], protocol, limit),
                    shared,
                    &mut w,
                )
            }
        } else {
            handle(
                &mut Reader::new(&mut input, protocol, limit),
                shared,
                &mut w,
            )
        };
        match answered {
            Ok(true) => {}
            Ok(false) => continue,
            Err(WireError::Closed) => return Ok(()),
            Err(e) => {
                // Tell the client why, if we can, then drop the connection.
                w.reset(framed);
                application_exception(&mut w, "", 0, 7, &e.to_string());
                if framed {
                    w.finish_frame();
                }
                let _ = input.get_mut().write_all(&w.buf);
                return Err(e);
            }
        }
        if framed {
            w.finish_frame();
        }
        input.get_mut().write_all(&w.buf)?;
    }
}

/// TApplicationException {1: message, 2: type}.
fn application_exception(w: &mut Writer, name: &str, seq: i32, kind: i32, message: &str) {
    w.message_begin(name, EXCEPTION, seq);
    w.struct_begin();
    w.field(1, TType::String);
    w.string(message);
    w.field(2, TType::I32);
    w.i32(kind);
    w.struct_end();
}

/// Reads one call and writes its reply into `w`; false for a oneway call (no reply).
fn handle<R: BufRead>(
    reader: &mut Reader<R>,
    shared: &Shared,
    w: &mut Writer,
) -> Result<bool, WireError> {
    let MessageHeader { name, kind, seq } = reader.message_begin()?;
    let args = reader.read_struct()?;
    if kind != CALL && kind != ONEWAY {
        application_exception(w, &name, seq, 4, "expected a call");
        return Ok(true);
    }
    let Some(answer) = shared.service.serve(&name, &args) else {
        // UNKNOWN_METHOD.
        application_exception(w, &name, seq, 1, &format!("Invalid method name: '{name}'"));
        return Ok(true);
    };
    if kind == ONEWAY {
        return Ok(false);
    }
    w.message_begin(&name, REPLY, seq);
    w.struct_begin();
    answer.write(w);
    w.struct_end();
    Ok(true)
}
