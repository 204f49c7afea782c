//! The Thrift1 server: an accept loop and a thread per connection, each reading a call,
//! running it and writing the reply, with the transport (buffered or framed) and protocol
//! (binary or compact) the server was started with.
//!
//! A connection that sends something unreadable (malformed, truncated, over the size limit)
//! is answered with a TApplicationException where the protocol still allows it, then closed;
//! other connections do not notice. Shutdown stops accepting, lets each connection finish the
//! call it is in, and waits for them.

use std::io::{self, BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use basalt_client::Connection;

use crate::handler::{Handler, declares_illegal_argument};
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
        }
    }
}

/// A running Thrift1 server.
#[derive(Debug)]
pub struct ThriftServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    handler: Arc<Handler>,
}

/// Ends when `stop` is set, and how often blocked reads look at it.
const POLL: Duration = Duration::from_millis(100);

struct Shared {
    handler: Arc<Handler>,
    config: ThriftConfig,
    stop: Arc<AtomicBool>,
    live: AtomicUsize,
    connections: Mutex<Vec<JoinHandle<()>>>,
}

impl ThriftServer {
    /// Binds and starts serving `conn`. Port 0 picks a free port ([`ThriftServer::local_addr`]).
    pub fn start(conn: Connection, config: ThriftConfig) -> io::Result<ThriftServer> {
        let listener = TcpListener::bind(config.bind)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handler = Arc::new(Handler::new(
            conn,
            config.scanner_lease,
            config.server_host.clone(),
            config.server_port,
        ));
        let shared = Arc::new(Shared {
            handler: Arc::clone(&handler),
            config,
            stop: Arc::clone(&stop),
            live: AtomicUsize::new(0),
            connections: Mutex::new(Vec::new()),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("thrift-accept".into())
                .spawn(move || accept_loop(&listener, &shared))?
        };
        let reaper = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("thrift-leases".into())
                .spawn(move || {
                    while !shared.stop.load(Ordering::Acquire) {
                        std::thread::sleep(POLL);
                        shared.handler.scanners.expire();
                    }
                })?
        };
        Ok(ThriftServer {
            addr,
            stop,
            threads: vec![accept, reaper],
            handler,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Open scanners (for tests of leases).
    pub fn open_scanners(&self) -> usize {
        self.handler.scanners.len()
    }

    /// Stops accepting, lets every connection finish its current call, waits for them, and
    /// closes every scanner. The engine stays open: its owner closes it.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.handler.scanners.clear();
    }
}

impl Drop for ThriftServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    while !shared.stop.load(Ordering::Acquire) {
        match listener.accept() {
            Ok((stream, _)) => {
                if shared.live.load(Ordering::Acquire) >= shared.config.max_connections {
                    eprintln!(
                        "thrift: refusing a connection: {} are open",
                        shared.config.max_connections
                    );
                    continue;
                }
                shared.live.fetch_add(1, Ordering::AcqRel);
                let conn_shared = Arc::clone(shared);
                let spawned = std::thread::Builder::new()
                    .name("thrift-conn".into())
                    .spawn(move || {
                        if let Err(e) = serve(stream, &conn_shared) {
                            eprintln!("thrift: connection dropped: {e}");
                        }
                        conn_shared.live.fetch_sub(1, Ordering::AcqRel);
                    });
                match spawned {
                    Ok(handle) => {
                        let mut threads = shared
                            .connections
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner);
                        threads.retain(|t| !t.is_finished());
                        threads.push(handle);
                    }
                    Err(e) => {
                        shared.live.fetch_sub(1, Ordering::AcqRel);
                        eprintln!("thrift: cannot start a connection thread: {e}");
                    }
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(POLL / 10),
            Err(e) => {
                eprintln!("thrift: accept failed: {e}");
                std::thread::sleep(POLL);
            }
        }
    }
    let threads = std::mem::take(
        &mut *shared
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner),
    );
    for t in threads {
        let _ = t.join();
    }
}

/// A socket reader that waits out read timeouts: between calls it gives up when the server
/// stops; within a call, when bytes stop arriving for the stall timeout.
struct Patient<'a> {
    inner: BufReader<TcpStream>,
    stop: &'a AtomicBool,
    stall: Duration,
    /// Whether a call is being read (then a stop does not interrupt it).
    in_call: bool,
}

impl Read for Patient<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let started = Instant::now();
        loop {
            match self.inner.read(buf) {
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    if !self.in_call && self.stop.load(Ordering::Acquire) {
                        return Ok(0);
                    }
                    if self.in_call && started.elapsed() > self.stall {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the call's bytes stopped arriving",
                        ));
                    }
                }
                Ok(n) => {
                    // The first byte of a call starts it.
                    self.in_call |= n > 0;
                    return Ok(n);
                }
                other => return other,
            }
        }
    }
}

fn serve(stream: TcpStream, shared: &Shared) -> Result<(), WireError> {
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(POLL))?;
    let mut out = BufWriter::new(stream.try_clone()?);
    let mut input = Patient {
        inner: BufReader::with_capacity(64 * 1024, stream),
        stop: &shared.stop,
        stall: shared.config.stall_timeout,
        in_call: false,
    };
    let protocol = if shared.config.compact {
        Protocol::Compact
    } else {
        Protocol::Binary
    };
    let limit = shared.config.max_message;
    loop {
        input.in_call = false;
        let reply = if shared.config.framed {
            let mut len = [0u8; 4];
            if input.read(&mut len[..1])? == 0 {
                return Ok(());
            }
            input.read_exact(&mut len[1..])?;
            let len = u32::from_be_bytes(len) as usize;
            if len > limit {
                return Err(WireError::TooLarge { limit });
            }
            let mut frame = vec![0u8; len];
            input.read_exact(&mut frame)?;
            let mut reader = Reader::new(&frame[..], protocol, limit);
            handle(&mut reader, shared, protocol)
        } else {
            let mut reader = Reader::new(&mut input, protocol, limit);
            handle(&mut reader, shared, protocol)
        };
        let reply = match reply {
            Ok(Some(reply)) => reply,
            Ok(None) => continue,
            Err(WireError::Closed) => return Ok(()),
            Err(e) => {
                // Tell the client why, if we can, then drop the connection.
                let mut w = Writer::new(protocol);
                application_exception(&mut w, "", 0, 7, &e.to_string());
                let _ = send(&mut out, &w.buf, shared.config.framed);
                return Err(e);
            }
        };
        send(&mut out, &reply, shared.config.framed)?;
    }
}

fn send(out: &mut BufWriter<TcpStream>, message: &[u8], framed: bool) -> io::Result<()> {
    if framed {
        out.write_all(
            &u32::try_from(message.len())
                .unwrap_or(u32::MAX)
                .to_be_bytes(),
        )?;
    }
    out.write_all(message)?;
    out.flush()
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

/// Reads one call and returns the reply's bytes (none for a oneway call).
fn handle<R: Read>(
    reader: &mut Reader<R>,
    shared: &Shared,
    protocol: Protocol,
) -> Result<Option<Vec<u8>>, WireError> {
    let MessageHeader { name, kind, seq } = reader.message_begin()?;
    let args = reader.read_struct()?;
    let mut w = Writer::new(protocol);
    if kind != CALL && kind != ONEWAY {
        application_exception(&mut w, &name, seq, 4, "expected a call");
        return Ok(Some(w.buf));
    }
    let Some(outcome) = shared.handler.call(&name, &args) else {
        // UNKNOWN_METHOD.
        application_exception(
            &mut w,
            &name,
            seq,
            1,
            &format!("Invalid method name: '{name}'"),
        );
        return Ok(Some(w.buf));
    };
    if kind == ONEWAY {
        return Ok(None);
    }
    w.message_begin(&name, REPLY, seq);
    w.struct_begin();
    match outcome {
        Ok(reply) => reply.write(&mut w),
        Err(failure) => failure.write(
            &mut w,
            declares_illegal_argument(&name),
            name == "createTable",
        ),
    }
    w.struct_end();
    Ok(Some(w.buf))
}
