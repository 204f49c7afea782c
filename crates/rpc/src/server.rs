//! The RPC server: one thread waits on the listener and on every quiet connection (epoll);
//! a connection with bytes is served by a worker thread with blocking reads (engine calls
//! block) until it has been quiet for a read timeout, and then parked again
//! (`basalt_net::spawn_parked_acceptor`), so that idle clients hold no thread. Handler
//! threads take slow mutations from connections that threads share (see `handlers`, and
//! `docs/design/rpc.md`). A connection that sends something unreadable is closed; the
//! others go on.

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::acl::{GroupMapping, PrincipalRules, User};
use basalt_net::tls::{Wire, WireReader, common_name, linger, rustls};
use basalt_net::{Patient, Turn, spawn_parked_acceptor, spawn_reaper, waited_out};

use crate::cellblock;
use crate::frame::{self, Call, FrameError};
use crate::handlers::Handlers;
use crate::pb::{self, ExceptionResponse};
use basalt_proto::exception;
use basalt_proto::service::Service;
use prost::Message;

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
    /// Handler threads for slow mutations from connections that threads share (HBase's
    /// `hbase.regionserver.handler.count`, 30); 0 runs every call on its connection's thread.
    pub handlers: usize,
    /// TLS on this port (HBase's `hbase.server.netty.tls.enabled`); None: plaintext.
    pub tls: Option<RpcTls>,
    /// Whether a connection that shows no certificate is believed about the user its header
    /// names (HBase's SIMPLE authentication); if not, it is refused.
    pub simple_auth: bool,
    /// Connections open at once; more are closed at accept.
    pub max_connections: usize,
    /// Who may call AdminService (open, close, flush, split regions: the master's calls),
    /// by user name; None: anyone. Set once callers are authenticated: the superusers and
    /// the servers of the cluster (the name their certificate gives).
    pub admin_callers: Option<Vec<String>>,
    /// Callers' groups, for `@group` grants and superusers.
    pub groups: GroupMapping,
    /// Kerberos on this port (HBase's `hbase.security.authentication=kerberos`); None: a
    /// connection that asks for it is refused.
    pub kerberos: Option<RpcKerberos>,
    /// Where calls slower or larger than the server's thresholds are kept (HBase's slow log);
    /// None: nowhere.
    pub slow_log: Option<Arc<basalt_common::slowlog::SlowLog>>,
    /// The cluster's id, answered to the `Regist` preamble of HBase 2.6's
    /// RpcConnectionRegistry; None: that preamble is refused as a bad one, and the client
    /// asks ClientMetaService instead.
    pub cluster_id: Option<String>,
}

/// Kerberos (SASL GSSAPI) on the RPC port; needs the `kerberos` feature.
#[derive(Debug, Clone, Default)]
pub struct RpcKerberos {
    /// The service principal clients ask for (`hbase/host@REALM`), whose key is in the keytab
    /// `KRB5_KTNAME` names; None: any principal in it.
    pub principal: Option<String>,
}

/// TLS on the RPC port.
#[derive(Debug, Clone)]
pub struct RpcTls {
    /// The server's certificate, and whether and whose client certificates it asks for
    /// (`basalt_net::tls::server_config`).
    pub config: Arc<rustls::ServerConfig>,
    /// Plaintext connections are served beside TLS ones (HBase's
    /// `hbase.server.netty.tls.supportplaintext`); otherwise they are answered with an error
    /// and closed.
    pub plaintext: bool,
    /// From a client certificate's common name to the user it authenticates.
    pub users: PrincipalRules,
}

impl Default for RpcConfig {
    fn default() -> Self {
        RpcConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 16020)),
            max_frame: 256 << 20,
            scanner_lease: Duration::from_secs(60),
            stall_timeout: Duration::from_secs(30),
            region_server: None,
            handlers: 30,
            tls: None,
            simple_auth: true,
            max_connections: 1000,
            admin_callers: None,
            groups: GroupMapping::default(),
            kerberos: None,
            slow_log: None,
            cluster_id: None,
        }
    }
}

/// A running RPC server.
#[derive(Debug)]
pub struct RpcServer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    handlers: Arc<Handlers>,
    handler_threads: Vec<JoinHandle<()>>,
    services: Vec<Arc<dyn Service>>,
}

/// The services one port carries: a region server's ClientService and AdminService, a
/// master's MasterService, or (standalone) all three; each connection's header names the one
/// it calls. A call to one the port lacks is an UnknownProtocolException.
#[derive(Debug, Default)]
pub struct Services(Vec<Arc<dyn Service>>);

impl Services {
    pub fn new() -> Self {
        Services::default()
    }

    /// These services and `service` (replacing one of the same name).
    pub fn with(mut self, service: Arc<dyn Service>) -> Self {
        self.0.retain(|s| s.name() != service.name());
        self.0.push(service);
        self
    }
}

/// Calls queued for the handlers beyond this many per handler run on their connection's
/// thread instead (HBase refuses them; here the connection just stops reading meanwhile).
const QUEUED_PER_HANDLER: usize = 10;

struct Shared {
    services: Vec<Arc<dyn Service>>,
    config: RpcConfig,
    stop: Arc<AtomicBool>,
    handlers: Arc<Handlers>,
}

impl RpcServer {
    /// Serves `services` on a bound listener.
    pub fn serve(
        listener: TcpListener,
        services: Services,
        config: RpcConfig,
    ) -> io::Result<RpcServer> {
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let handlers = Arc::new(Handlers::new(
            config.handlers.saturating_mul(QUEUED_PER_HANDLER),
        ));
        let handler_threads = handlers.start(config.handlers);
        let shared = Arc::new(Shared {
            services: services.0.clone(),
            config,
            stop: Arc::clone(&stop),
            handlers: Arc::clone(&handlers),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            let max = shared.config.max_connections;
            spawn_parked_acceptor(
                listener,
                Arc::clone(&stop),
                max,
                basalt_net::MAX_WORKERS,
                "rpc",
                move |stream| RpcConnection {
                    peer: stream
                        .peer_addr()
                        .map(|a| a.to_string())
                        .unwrap_or_default(),
                    shared: Arc::clone(&shared),
                    state: State::New(stream),
                },
            )?
        };
        let reaper = {
            let shared = Arc::clone(&shared);
            spawn_reaper("rpc", Arc::clone(&stop), move || {
                for service in &shared.services {
                    service.expire();
                }
            })?
        };
        Ok(RpcServer {
            addr,
            stop,
            threads: vec![accept, reaper],
            handlers,
            handler_threads,
            services: services.0,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The scanners its services hold open for their callers.
    pub fn open_scanners(&self) -> usize {
        self.services.iter().map(|s| s.leases()).sum()
    }

    /// Stops accepting, lets each connection and handler finish its call, and waits for them.
    pub fn shutdown(mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        self.handlers.stop();
        for t in self.handler_threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for RpcServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.handlers.stop();
    }
}

/// What a connection's header chose: the service, and the cell block codec and compressor.
struct ConnInfo {
    service: String,
    /// The user the connection header named (HBase's SIMPLE authentication), whom access
    /// control checks; `anonymous` if it named nobody.
    user: User,
    codec: Option<String>,
    compressor: Option<String>,
    /// How long this connection's mutations take, in nanoseconds: a moving average over the
    /// last few (each weighs a quarter).
    mutation_ns: std::sync::atomic::AtomicU64,
    /// The client's address, for the slow log.
    peer: String,
}

/// Mutations that take longer than this on average (they wait for `fdatasync`, or for row
/// locks) go to the handlers once threads are seen sharing their connection. Quicker ones (a
/// SYNC_WAL put takes microseconds) run on the connection's thread: handing one to a handler
/// costs more than it saves.
const SLOW_MUTATION_NS: u64 = 40_000;

impl ConnInfo {
    /// Who the calls on this connection are for (every network caller is checked).
    fn caller(&self) -> Option<&User> {
        Some(&self.user)
    }

    fn slow_mutations(&self) -> bool {
        self.mutation_ns.load(Ordering::Relaxed) >= SLOW_MUTATION_NS
    }

    /// Runs a mutation, adding its time to the moving average.
    fn timed<T>(&self, run: impl FnOnce() -> T) -> T {
        let start = std::time::Instant::now();
        let result = run();
        let took = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let old = self.mutation_ns.load(Ordering::Relaxed);
        let new = old - old / 4 + took / 4;
        self.mutation_ns.store(new, Ordering::Relaxed);
        result
    }
}

/// A connection's writing side, shared with the handlers running its calls.
struct Outbox {
    stream: Wire,
    /// Handlers' answers not yet written.
    pending: Vec<u8>,
    /// The connection's thread is working through calls it has read, and writes `pending`
    /// with its own answers when it runs out; while it is not, a handler writes its answer
    /// itself.
    busy: bool,
}

impl Outbox {
    fn lock(outbox: &Mutex<Outbox>) -> std::sync::MutexGuard<'_, Outbox> {
        outbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the client has sent more than the connection's thread has read: a look at the
    /// socket without waiting. The socket is made non-blocking for the look, under this lock,
    /// which every write to it holds.
    fn input_waiting(&self) -> bool {
        let socket = self.stream.socket();
        if socket.set_nonblocking(true).is_err() {
            return false;
        }
        let waiting = matches!(socket.peek(&mut [0u8; 1]), Ok(n) if n > 0);
        if socket.set_nonblocking(false).is_err() {
            // A socket left non-blocking would fail later writes: give the connection up.
            self.stream.shutdown();
        }
        waiting
    }

    /// Writes `first` and then the handlers' pending answers, in one write when both have
    /// some.
    fn write(&mut self, first: &mut Vec<u8>) -> io::Result<()> {
        if !self.pending.is_empty() {
            first.append(&mut self.pending);
        }
        if first.is_empty() {
            return Ok(());
        }
        let written = self.stream.write_all(first);
        first.clear();
        written
    }
}

/// A handler's answer: written at once unless the connection's thread will write it with its
/// own. A connection that cannot be written is shut, which ends its thread's read too.
fn deliver(outbox: &Mutex<Outbox>, call_id: u32, outcome: Result<Vec<u8>, ExceptionResponse>) {
    let mut out = Outbox::lock(outbox);
    let mut reply = Vec::new();
    frame::append_response(&mut reply, call_id, outcome);
    if out.busy {
        out.pending.append(&mut reply);
    } else if out.write(&mut reply).is_err() {
        out.stream.shutdown();
    }
}

/// How long a connection may be quiet between calls before it is parked (and its thread
/// serves another): longer than a busy client's pause between one answer and its next call,
/// so those are served without a hand-off; short, so that threads follow the calls being
/// made, not the connections open (10,000 clients calling once a second keep about 50
/// workers).
const QUIET: Duration = Duration::from_millis(5);

/// The first byte of a TLS handshake record (a ClientHello); a plaintext HBase connection
/// starts with `HBas`.
const TLS_HANDSHAKE: u8 = 0x16;

/// The call id of an answer about the whole connection (HBase's -1): the client drops the
/// connection with its exception.
const CONNECTION_CALL_ID: u32 = u32::MAX;

/// Waits for a new connection's first byte without taking it: None if the peer closed, or
/// the server stops, before sending any.
fn first_byte(stream: &TcpStream, stop: &AtomicBool, stall: Duration) -> io::Result<Option<u8>> {
    let started = std::time::Instant::now();
    let mut byte = [0u8; 1];
    loop {
        match stream.peek(&mut byte) {
            Ok(0) => return Ok(None),
            Ok(_) => return Ok(Some(byte[0])),
            Err(e) if waited_out(&e) => {
                if stop.load(Ordering::Acquire) || started.elapsed() > stall {
                    return Ok(None);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

/// Answers a connection the server will not serve with `class: message` (as HBase answers
/// a bad preamble or a failed authentication), then closes it once the client has seen it.
fn refuse(wire: &Wire, class: &str, message: String) {
    let mut reply = Vec::new();
    frame::append_response(
        &mut reply,
        CONNECTION_CALL_ID,
        Err(exception(class, message, true)),
    );
    if wire.write_all(&reply).is_ok() {
        linger(wire.socket());
    }
    wire.shutdown();
}

/// Answers the `Regist` preamble with the cluster id (call id -1), then closes, as HBase's
/// server does; without an id, with the bad-preamble error HBase's client falls back on.
fn answer_registry(wire: &Wire, cluster_id: Option<&str>) {
    let Some(id) = cluster_id else {
        refuse(
            wire,
            "org.apache.hadoop.hbase.ipc.FatalConnectionException",
            "Expected HEADER=HBas but received HEADER=Regi".into(),
        );
        return;
    };
    let mut reply = Vec::new();
    let answer = pb::GetConnectionRegistryResponse {
        cluster_id: id.to_owned(),
    };
    frame::append_response(&mut reply, CONNECTION_CALL_ID, Ok(answer.encode_to_vec()));
    if wire.write_all(&reply).is_ok() {
        linger(wire.socket());
    }
    wire.shutdown();
}

const ACCESS_DENIED: &str = "org.apache.hadoop.hbase.security.AccessDeniedException";

/// Runs Kerberos' SASL exchange with a client whose preamble asked for it; its principal.
/// Refused (the client told, as HBase's server tells it: a SASL ERROR status) when this port
/// has no Kerberos or the exchange fails.
fn kerberos_accept(
    input: &mut Patient<'_, WireReader>,
    wire: &Wire,
    kerberos: Option<&RpcKerberos>,
) -> io::Result<String> {
    let Some(kerberos) = kerberos else {
        let why = "KERBEROS authentication is not enabled on this server";
        let _ = wire.write_all(&sasl_error(why));
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
    };
    sasl_accept(input, wire, kerberos)
}

#[cfg(feature = "kerberos")]
fn sasl_accept(
    input: &mut Patient<'_, WireReader>,
    wire: &Wire,
    kerberos: &RpcKerberos,
) -> io::Result<String> {
    basalt_net::kerberos::accept(
        input,
        &mut |bytes| wire.write_all(bytes),
        kerberos.principal.as_deref(),
    )
}

#[cfg(not(feature = "kerberos"))]
fn sasl_accept(
    _: &mut Patient<'_, WireReader>,
    wire: &Wire,
    _: &RpcKerberos,
) -> io::Result<String> {
    let why = "this server was built without Kerberos";
    let _ = wire.write_all(&sasl_error(why));
    Err(io::Error::new(io::ErrorKind::Unsupported, why))
}

/// A SASL ERROR reply: status 1, then the exception class and message (a 4-byte length and
/// UTF-8 each), as HBase's server writes it.
fn sasl_error(message: &str) -> Vec<u8> {
    let mut out = 1u32.to_be_bytes().to_vec();
    for s in ["javax.security.sasl.SaslException", message] {
        out.extend_from_slice(&u32::try_from(s.len()).unwrap_or(u32::MAX).to_be_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

/// A Kerberos principal's short name: `alice` for `alice@REALM` and `alice/host@REALM`
/// (Hadoop's default `auth_to_local` rule).
fn short_name(principal: &str) -> &str {
    principal.split(['/', '@']).next().unwrap_or(principal)
}

/// Who a connection's calls are for: the user its client certificate names (through the
/// principal rules), or, without one, the user its header names when SIMPLE authentication
/// is allowed. Err: why the connection is refused.
fn authenticate(
    wire: &Wire,
    kerberos: Option<String>,
    header_user: Option<String>,
    config: &RpcConfig,
) -> Result<User, String> {
    let name = match kerberos {
        // Hadoop's default auth_to_local: the principal's first component.
        Some(principal) => short_name(&principal).to_owned(),
        None => authenticated_name(wire, header_user, config)?,
    };
    Ok(User {
        groups: config.groups.groups_of(&name),
        name,
    })
}

/// The name [`authenticate`] finds.
fn authenticated_name(
    wire: &Wire,
    header_user: Option<String>,
    config: &RpcConfig,
) -> Result<String, String> {
    if let Some(cert) = wire.peer_certificate() {
        let cn = common_name(&cert)
            .ok_or_else(|| "the client certificate's subject has no common name (CN)".to_owned())?;
        let rules = config.tls.as_ref().map(|t| &t.users);
        return rules.and_then(|r| r.map(&cn)).ok_or_else(|| {
            format!("no principal rule maps the certificate name {cn:?} to a user")
        });
    }
    if !config.simple_auth {
        return Err(format!(
            "authentication is required: this server does not accept SIMPLE (unverified) \
             users{}",
            if wire.is_tls() {
                "; connect with a client certificate"
            } else {
                "; connect over TLS with a client certificate"
            }
        ));
    }
    Ok(header_user
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "anonymous".to_owned()))
}

/// One client's connection, served in turns (`basalt_net::Connection`): a new one is parked
/// until its first bytes; an open one between its calls once it has been quiet a while.
struct RpcConnection {
    shared: Arc<Shared>,
    peer: String,
    state: State,
}

enum State {
    /// Accepted: the preamble, a TLS or SASL handshake and the connection header come next.
    New(TcpStream),
    /// Past its header, quiet: nothing of its next call has been read.
    Open(Open),
}

/// What an open connection keeps between its turns.
struct Open {
    reader: WireReader,
    outbox: Arc<Mutex<Outbox>>,
    conn: Arc<ConnInfo>,
    /// Threads share the connection (see `serve_calls`).
    shared_by_threads: bool,
}

/// How a turn of [`serve_calls`] ended.
enum Pause {
    /// The client closed the connection, or the server stops.
    Ended,
    /// Nothing came for a read timeout, or the connection yields: it is parked.
    Parked,
}

impl basalt_net::Connection for RpcConnection {
    fn socket(&self) -> &TcpStream {
        match &self.state {
            State::New(stream) => stream,
            State::Open(open) => open.reader.socket(),
        }
    }

    fn serve(self, turn: &Turn<'_>) -> Option<Self> {
        let RpcConnection {
            shared,
            peer,
            state,
        } = self;
        let served = match state {
            State::New(stream) => serve_new(stream, &shared, &peer, turn),
            State::Open(open) => {
                let Open {
                    reader,
                    outbox,
                    conn,
                    shared_by_threads,
                } = open;
                let input = Patient::over(reader, &shared.stop, shared.config.stall_timeout);
                serve_open(input, &shared, conn, outbox, shared_by_threads, turn)
            }
        };
        match served {
            Ok(Some(open)) => Some(RpcConnection {
                shared,
                peer,
                state: State::Open(open),
            }),
            Ok(None) => None,
            Err(e) => {
                basalt_common::log::log("rpc", basalt_common::log::Level::Warn, || {
                    format!("connection from {peer} dropped: {e}")
                });
                None
            }
        }
    }
}

/// A new connection's handshake, then its calls.
fn serve_new(
    stream: TcpStream,
    shared: &Arc<Shared>,
    peer: &str,
    turn: &Turn<'_>,
) -> Result<Option<Open>, FrameError> {
    stream.set_nodelay(true)?;
    // Reads wait this long at most: between calls, a connection quiet this long gives its
    // thread up; within a message, the reader waits on (see `Patient`).
    stream.set_read_timeout(Some(QUIET))?;
    let stall = shared.config.stall_timeout;
    let (wire, reader) = match &shared.config.tls {
        None => Wire::plain(stream)?,
        Some(tls) => match first_byte(&stream, &shared.stop, stall)? {
            None => return Ok(None),
            Some(TLS_HANDSHAKE) => Wire::accept(&tls.config, stream, stall)?,
            Some(_) if tls.plaintext => Wire::plain(stream)?,
            Some(_) => {
                let (wire, _) = Wire::plain(stream)?;
                refuse(
                    &wire,
                    "org.apache.hadoop.hbase.ipc.FatalConnectionException",
                    "this server accepts TLS connections only (hbase.client.netty.tls.enabled); \
                     connect with TLS"
                        .into(),
                );
                return Ok(None);
            }
        },
    };
    let mut input = Patient::over(reader, &shared.stop, stall);
    let limit = shared.config.max_frame;
    let preamble = match frame::read_preamble_bytes(&mut input) {
        Err(FrameError::Closed) => return Ok(None),
        other => other?,
    };
    if &preamble == frame::REGISTRY_PREAMBLE {
        answer_registry(&wire, shared.config.cluster_id.as_deref());
        return Ok(None);
    }
    let auth = frame::check_preamble(&preamble)?;
    let kerberos = if auth == frame::AUTH_KERBEROS {
        match kerberos_accept(&mut input, &wire, shared.config.kerberos.as_ref()) {
            Ok(principal) => Some(principal),
            Err(e) => {
                linger(wire.socket());
                wire.shutdown();
                return Err(e.into());
            }
        }
    } else {
        None
    };
    let header = frame::read_connection_header(&mut input, limit)?;
    let user = match authenticate(
        &wire,
        kerberos,
        header.user_info.and_then(|u| u.effective_user),
        &shared.config,
    ) {
        Ok(user) => user,
        Err(why) => {
            refuse(&wire, ACCESS_DENIED, why);
            return Ok(None);
        }
    };
    let outbox = Arc::new(Mutex::new(Outbox {
        stream: wire,
        pending: Vec::new(),
        busy: true,
    }));
    let conn = Arc::new(ConnInfo {
        service: header.service_name.unwrap_or_default(),
        user,
        codec: header.cell_block_codec_class,
        compressor: header.cell_block_compressor_class,
        mutation_ns: std::sync::atomic::AtomicU64::new(0),
        peer: peer.to_owned(),
    });
    serve_open(input, shared, conn, outbox, false, turn)
}

/// Serves an open connection's calls: Some once it is quiet (to be parked), None once it
/// has ended.
fn serve_open(
    mut input: Patient<'_, WireReader>,
    shared: &Arc<Shared>,
    conn: Arc<ConnInfo>,
    outbox: Arc<Mutex<Outbox>>,
    mut shared_by_threads: bool,
    turn: &Turn<'_>,
) -> Result<Option<Open>, FrameError> {
    let served = serve_calls(
        &mut input,
        shared,
        &conn,
        &outbox,
        &mut shared_by_threads,
        turn,
    );
    if let Ok(Pause::Parked) = served {
        // `serve_calls` wrote every answer and left `busy` unset: handlers still running
        // write theirs themselves.
        return Ok(Some(Open {
            reader: input.into_inner(),
            outbox,
            conn,
            shared_by_threads,
        }));
    }
    // Answers of handlers still running are written as they finish.
    let mut out = Outbox::lock(&outbox);
    out.busy = false;
    let flushed = out.write(&mut Vec::new());
    served?;
    flushed?;
    Ok(None)
}

fn serve_calls(
    input: &mut Patient<'_, WireReader>,
    shared: &Arc<Shared>,
    conn: &Arc<ConnInfo>,
    outbox: &Arc<Mutex<Outbox>>,
    shared_by_threads: &mut bool,
    turn: &Turn<'_>,
) -> Result<Pause, FrameError> {
    let limit = shared.config.max_frame;
    // Answers not yet written: while the next call is already here whole (a client that
    // shares the connection between threads sends several at once), its answer joins them,
    // and one write sends them all.
    let mut replies = Vec::new();
    // A copy of `Outbox::busy`, which only this thread changes: the lock is taken when it
    // flips, not on every call.
    let mut busy = Outbox::lock(outbox).busy;
    loop {
        if !frame::holds_whole_frame(input.buffered()) {
            let mut out = Outbox::lock(outbox);
            out.write(&mut replies)?;
            out.busy = false;
            busy = false;
        }
        // Between calls, a connection quiet for a read timeout gives its thread up, as does
        // one that has had its turn while others wait for a thread.
        if input.buffered().is_empty() && (turn.should_yield() || input.quiet()?) {
            return Ok(if shared.stop.load(Ordering::Acquire) {
                Pause::Ended
            } else {
                Pause::Parked
            });
        }
        input.next_message();
        let mut call = match frame::read_call(input, limit) {
            Ok(call) => call,
            Err(FrameError::Closed) => return Ok(Pause::Ended),
            Err(e) => return Err(e),
        };
        if !busy {
            Outbox::lock(outbox).busy = true;
            busy = true;
        }
        let call_id = call.header.call_id.unwrap_or(0);
        let method = call.header.method_name.take().unwrap_or_default();
        let mutation = shared
            .service(&conn.service)
            .is_some_and(|s| s.may_wait(&method));
        // A call with another whole one behind it: threads share this connection (or see
        // below). From then on its slow mutations go to handlers, so that they wait together
        // and never hold up the connection's other calls; a lone caller's run here.
        *shared_by_threads |= frame::holds_whole_frame(input.buffered());
        if mutation && *shared_by_threads && conn.slow_mutations() {
            let (shared_c, conn_c, outbox_c) =
                (Arc::clone(shared), Arc::clone(conn), Arc::clone(outbox));
            let job = Box::new(move || {
                // A call that panics fails alone; the handler thread goes on.
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    conn_c.timed(|| execute(&shared_c, &conn_c, &method, &call))
                }))
                .unwrap_or_else(|_| {
                    Err(exception(
                        "java.io.IOException",
                        format!("internal error running {method}"),
                        true,
                    ))
                });
                deliver(&outbox_c, call_id, outcome);
            });
            // A full queue hands the call back: it runs here (its answer joins `pending`).
            if let Err(job) = shared.handlers.submit(job) {
                job();
            }
            continue;
        }
        let outcome = if mutation {
            let outcome = conn.timed(|| execute(shared, conn, &method, &call));
            // Calls sent while a slow mutation ran here: another thread shares the connection
            // (the buffer above only shows what one read brought in).
            if !*shared_by_threads && conn.slow_mutations() {
                *shared_by_threads = Outbox::lock(outbox).input_waiting();
            }
            outcome
        } else {
            execute(shared, conn, &method, &call)
        };
        frame::append_response(&mut replies, call_id, outcome);
    }
}

impl Shared {
    /// The service named `name`, if this port carries it.
    fn service(&self, name: &str) -> Option<&Arc<dyn Service>> {
        self.services.iter().find(|s| s.name() == name)
    }
}

/// Runs one call on the service its connection chose.
fn execute(
    shared: &Shared,
    conn: &ConnInfo,
    method: &str,
    call: &Call,
) -> Result<Vec<u8>, ExceptionResponse> {
    let name = conn.service.as_str();
    let Some(service) = shared.service(name) else {
        return Err(unknown(name, method));
    };
    if service.servers_only()
        && let Some(allowed) = &shared.config.admin_callers
        && !allowed.contains(&conn.user.name)
    {
        return Err(exception(
            ACCESS_DENIED,
            format!(
                "Insufficient permissions for user '{}' ({name}.{method} is for the cluster's \
                 servers and superusers)",
                conn.user.name
            ),
            true,
        ));
    }
    // The services read KeyValueCodec's form; another codec's block is rewritten into it.
    let cell_block = if call.cell_block.is_empty() {
        call.cell_block.clone()
    } else {
        cellblock::check_codec(conn.codec.as_deref(), conn.compressor.as_deref())?;
        cellblock::as_key_values(conn.codec.as_deref(), &call.cell_block)?
    };
    let started = std::time::Instant::now();
    let outcome = service
        .call(method, call.param.as_deref(), &cell_block, conn.caller())
        .unwrap_or_else(|| Err(unknown(name, method)));
    if let Some(log) = &shared.config.slow_log {
        note_slow(log, conn, method, call, started, &outcome);
    }
    outcome
}

/// Keeps the call in the slow log if it was slow or large.
fn note_slow(
    log: &basalt_common::slowlog::SlowLog,
    conn: &ConnInfo,
    method: &str,
    call: &Call,
    started: std::time::Instant,
    outcome: &Result<Vec<u8>, ExceptionResponse>,
) {
    let took = started.elapsed();
    let ms = u64::try_from(took.as_millis()).unwrap_or(u64::MAX);
    let size = outcome.as_ref().map_or(0, |r| r.len() as u64);
    let (slow, large) = log.judge(ms, size);
    if !slow && !large {
        return;
    }
    let start_time_ms = std::time::SystemTime::now()
        .checked_sub(took)
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let region = (conn.service == "ClientService")
        .then(|| {
            call.param
                .as_deref()
                .and_then(|p| basalt_proto::request_region(method, p))
        })
        .flatten();
    basalt_common::log::log("rpc", basalt_common::log::Level::Debug, || {
        format!(
            "{}.{method} from {} took {ms} ms, answered {size} bytes",
            conn.service, conn.peer
        )
    });
    log.record(basalt_common::slowlog::SlowCall {
        start_time_ms,
        processing_ms: u32::try_from(ms).unwrap_or(u32::MAX),
        queue_ms: 0,
        response_size: size,
        client_address: conn.peer.clone(),
        service: conn.service.clone(),
        method: method.to_owned(),
        user: conn.user.name.clone(),
        region,
        slow,
        large,
    });
}

fn unknown(service: &str, method: &str) -> ExceptionResponse {
    exception(
        "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
        format!("No registered service or method {service}.{method}"),
        true,
    )
}
