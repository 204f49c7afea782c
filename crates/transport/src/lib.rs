//! HBase's native RPC from the client's side, the transport that `basalt-client` and the
//! master (to its region servers) share: one connection to one service (HBase's `RpcClient`),
//! shared by any number of threads as HBase's clients share theirs, blocking or async
//! ([`aio`]), and the region lookup a client needs (a scan of `hbase:meta`).
//!
//! Calls are multiplexed by call id. A caller queues its request frame; whoever finds no
//! write under way writes every queued frame with one system call, after letting the other
//! callers run for a moment when calls are waiting, so that frames queued meanwhile go too.
//!
//! While one thread at a time calls, it reads its own answer from the socket: no thread
//! switch. Once calls overlap, the connection starts a thread of its own that reads every
//! answer from then on and hands each to the caller waiting on its id (as HBase's client reads
//! its connections on an event loop): one system call then reads the answers of all the calls
//! the server answered together (it answers calls that arrived together with one write, see
//! `server`), and no caller waits for another to hand over the reading.

pub mod aio;

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

pub use basalt_net::tls::TlsClient;
use basalt_net::tls::{Wire, WireReader};
use prost::Message;

use basalt_proto::cellblock;
use basalt_proto::frame::{
    FrameError, encode_call, encode_call_with_cells, encode_connection_start, read_response,
};
use basalt_proto::pb::{
    self, ConnectionHeader, ResponseHeader, Scan, ScanRequest, ScanResponse, UserInformation,
};
use basalt_proto::{META_REGION, region};

/// Why a call failed.
#[derive(Debug)]
pub enum RpcError {
    /// The connection failed: it broke, timed out, or carried a bad frame.
    Frame(FrameError),
    /// The server's exception: its Java class and message.
    Remote {
        /// The exception's Java class (`org.apache.hadoop.hbase...`).
        class: String,
        /// What the server said, with its stack trace if it sent one.
        message: String,
    },
    /// The answer's message could not be decoded.
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

impl std::error::Error for RpcError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RpcError::Frame(e) => Some(e),
            RpcError::Remote { .. } | RpcError::Decode(_) => None,
        }
    }
}

impl From<io::Error> for RpcError {
    fn from(e: io::Error) -> Self {
        RpcError::Frame(FrameError::Io(e))
    }
}

/// The largest response accepted.
const MAX_RESPONSE: usize = 1 << 30;

/// One connection to one service. Calls take `&self`: threads share it. Dropping it closes
/// the connection (and ends its reading thread, if one started).
#[derive(Debug)]
pub struct RpcClient {
    shared: Arc<Shared>,
    /// The reading thread, once calls overlapped.
    reader: Mutex<Option<JoinHandle<()>>>,
    /// The server's address.
    peer: SocketAddr,
}

#[derive(Debug)]
struct Shared {
    /// Written by whoever sends; shut down when a write or read fails.
    socket: Wire,
    next_id: AtomicU32,
    out: Mutex<Outbox>,
    /// Held by the caller reading answers, or for good by the reading thread.
    input: Mutex<BufReader<WireReader>>,
    /// Set once the reading thread is started: callers no longer read.
    reading_thread: std::sync::atomic::AtomicBool,
    calls: Mutex<Calls>,
    /// How long a call waits for its answer, in nanoseconds; 0: forever.
    timeout_nanos: AtomicU64,
    /// A call gave up waiting on this connection: when it closes, what it has not sent is
    /// discarded (`Wire::abort`), so no request reaches the server after its caller moved on.
    abandoned: std::sync::atomic::AtomicBool,
}

/// Request frames waiting for the socket.
#[derive(Debug, Default)]
struct Outbox {
    queued: Vec<u8>,
    /// The buffer last written, kept so the next batch does not grow a new one.
    spare: Vec<u8>,
    /// A caller is writing; it writes what is queued meanwhile before it lets go.
    writing: bool,
}

/// Calls waiting for their answers.
#[derive(Debug, Default)]
struct Calls {
    waiting: HashMap<u32, Slot>,
    /// Why the connection is unusable (it then answers every call with this).
    broken: Option<String>,
    /// The server refused the connection with this exception (class, message): every call
    /// fails with it.
    refused: Option<(String, String)>,
}

impl Calls {
    /// Why calls fail, once the connection broke.
    fn failure(&self) -> Option<RpcError> {
        failure(self.refused.as_ref(), self.broken.as_deref())
    }

    fn take_answer(&mut self, id: u32) -> Option<Answer> {
        if !matches!(self.waiting.get(&id), Some(Slot::Answered(_))) {
            return None;
        }
        match self.waiting.remove(&id) {
            Some(Slot::Answered(answer)) => Some(answer),
            _ => None,
        }
    }
}

#[derive(Debug)]
enum Slot {
    Waiting(Thread),
    Answered(Answer),
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves its state whole, so a poisoned lock is still usable.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why calls on a connection fail, once it is refused (with the server's exception, which
/// retrying would not change) or broken.
#[doc(hidden)]
pub fn failure(refused: Option<&(String, String)>, broken: Option<&str>) -> Option<RpcError> {
    if let Some((class, message)) = refused {
        return Some(RpcError::Remote {
            class: class.clone(),
            message: message.clone(),
        });
    }
    broken.map(self::broken)
}

#[doc(hidden)]
pub fn broken(reason: &str) -> RpcError {
    RpcError::Frame(FrameError::Io(io::Error::new(
        io::ErrorKind::ConnectionAborted,
        format!("the connection broke: {reason}"),
    )))
}

type Answer = (ResponseHeader, Option<Vec<u8>>);

impl Shared {
    /// As the reader (holding `input`), reads answers and hands them to their callers until
    /// call `id`'s arrives (or was handed over before this caller began to read), or its
    /// `deadline` passes between answers (None; the call no longer waits). The caller starts
    /// the reading thread afterwards if other calls wait.
    fn read_until(
        &self,
        id: u32,
        deadline: Option<Instant>,
        mut input: MutexGuard<'_, BufReader<WireReader>>,
    ) -> Result<Option<Answer>, RpcError> {
        let mine = loop {
            {
                let mut calls = lock(&self.calls);
                if let Some(answer) = calls.take_answer(id) {
                    break Some(answer);
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    calls.waiting.remove(&id);
                    break None;
                }
            }
            match read_response(&mut *input, MAX_RESPONSE) {
                Ok((header, _)) if is_about_connection(&header) => {
                    drop(input);
                    lock(&self.calls).waiting.remove(&id);
                    return Err(self.refuse(&header));
                }
                Ok((header, message)) => {
                    if header.call_id.unwrap_or(0) == id {
                        lock(&self.calls).waiting.remove(&id);
                        break Some((header, message));
                    }
                    self.deliver((header, message));
                }
                Err(e) => {
                    drop(input);
                    lock(&self.calls).waiting.remove(&id);
                    return Err(self.fail(e));
                }
            }
        };
        drop(input);
        Ok(mine)
    }

    /// The reading thread: reads every answer and hands it to the caller waiting on its id
    /// (an answer to a call that stopped waiting is dropped) until the connection breaks or
    /// is closed. A read that times out before an answer begins is no fault: it reads on,
    /// and each waiting caller gives up at its own deadline.
    fn read_answers(&self) {
        let mut input = lock(&self.input);
        loop {
            match input.fill_buf() {
                Ok([]) => {
                    self.break_off("the server closed the connection".into());
                    return;
                }
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    continue;
                }
                Err(e) => {
                    self.fail(FrameError::Io(e));
                    return;
                }
            }
            match read_response(&mut *input, MAX_RESPONSE) {
                Ok((header, _)) if is_about_connection(&header) => {
                    self.refuse(&header);
                    return;
                }
                Ok(answer) => self.deliver(answer),
                Err(e) => {
                    self.fail(e);
                    return;
                }
            }
        }
    }

    /// Hands `answer` to the caller waiting on its call id, and wakes it. A call that timed
    /// out is no longer waiting: its answer is dropped.
    fn deliver(&self, answer: Answer) {
        let id = answer.0.call_id.unwrap_or(0);
        let waiting = match lock(&self.calls).waiting.get_mut(&id) {
            Some(slot) => match std::mem::replace(slot, Slot::Answered(answer)) {
                Slot::Waiting(t) => Some(t),
                Slot::Answered(_) => None,
            },
            None => None,
        };
        if let Some(t) = waiting {
            t.unpark();
        }
    }

    /// Wakes one caller still waiting for its answer.
    fn wake_a_waiting_caller(&self) {
        let calls = lock(&self.calls);
        if let Some(t) = calls.waiting.values().find_map(|s| match s {
            Slot::Waiting(t) => Some(t),
            Slot::Answered(_) => None,
        }) {
            t.unpark();
        }
    }

    /// Reading failed with `e`: the connection is broken. A TLS failure (the server refused
    /// this client's certificate, say) is a refusal, which retrying would not change: calls
    /// fail with it as a Java client's SSLHandshakeException.
    fn fail(&self, e: FrameError) -> RpcError {
        if let FrameError::Io(io) = &e
            && basalt_net::tls::is_tls_failure(io)
        {
            return self.refuse_with(TLS_REFUSED.to_owned(), io.to_string());
        }
        let e = RpcError::Frame(e);
        self.break_off(e.to_string());
        e
    }

    /// The server refused the connection (`header` says why): every call fails with its
    /// exception from now on. Returns that failure.
    fn refuse(&self, header: &ResponseHeader) -> RpcError {
        let e = header.exception.clone().unwrap_or_default();
        self.refuse_with(
            e.exception_class_name.unwrap_or_default(),
            e.stack_trace.unwrap_or_default(),
        )
    }

    fn refuse_with(&self, class: String, message: String) -> RpcError {
        lock(&self.calls).refused = Some((class.clone(), message.clone()));
        self.break_off(format!("the server refused it: {class}: {message}"));
        RpcError::Remote { class, message }
    }

    /// Marks the connection broken and wakes every waiting caller. What it has not sent is
    /// discarded: the callers it belongs to are told the connection broke.
    fn break_off(&self, reason: String) {
        self.socket.abort();
        let mut calls = lock(&self.calls);
        calls.broken.get_or_insert(reason);
        for slot in calls.waiting.values() {
            if let Slot::Waiting(t) = slot {
                t.unpark();
            }
        }
    }

    /// Writes `frame`, or, while another caller is writing, queues it for that caller to
    /// write; a writer writes what was queued meanwhile (all of it at once) before it lets go.
    /// With `others_waiting` (calls of other callers await answers), the writer first lets
    /// them run: callers woken by answers that came together queue their frames meanwhile,
    /// and this write takes them too.
    fn send(&self, frame: Vec<u8>, others_waiting: bool) -> io::Result<()> {
        {
            let mut out = lock(&self.out);
            if out.queued.is_empty() {
                // A large frame (a batch's cells) is not copied again.
                out.queued = frame;
            } else {
                out.queued.extend_from_slice(&frame);
            }
            if out.writing {
                return Ok(());
            }
            out.writing = true;
        }
        if others_waiting {
            std::thread::yield_now();
        }
        let mut batch = Vec::new();
        let mut written = Ok(());
        loop {
            let mut out = lock(&self.out);
            if batch.capacity() > 0 {
                batch.clear();
                out.spare = std::mem::take(&mut batch);
            }
            if let Err(e) = written {
                out.writing = false;
                out.queued.clear();
                drop(out);
                self.break_off(format!("writing a call: {e}"));
                return Err(e);
            }
            if out.queued.is_empty() {
                out.writing = false;
                return Ok(());
            }
            let spare = std::mem::take(&mut out.spare);
            batch = std::mem::replace(&mut out.queued, spare);
            drop(out);
            written = self.socket.write_all(&batch);
        }
    }
}

impl Drop for RpcClient {
    fn drop(&mut self) {
        // Ends the reading thread's read; after a call gave up here, unsent requests go too.
        let broken = lock(&self.shared.calls).broken.is_some();
        if broken || self.shared.abandoned.load(Ordering::Acquire) {
            self.shared.socket.abort();
        } else {
            self.shared.socket.shutdown();
        }
        if let Some(reader) = lock(&self.reader).take() {
            let _ = reader.join();
        }
    }
}

/// The exception class of a TLS failure, as a Java client sees it.
pub const TLS_REFUSED: &str = "javax.net.ssl.SSLHandshakeException";

/// The call id of a server's answer about the whole connection (HBase's -1): a refusal.
const CONNECTION_CALL_ID: u32 = u32::MAX;

fn is_about_connection(header: &ResponseHeader) -> bool {
    header.call_id == Some(CONNECTION_CALL_ID) && header.exception.is_some()
}

/// A region as a client routes to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The region's full name (`table,start,id.hash.`).
    pub name: Vec<u8>,
    /// Its first row.
    pub start: Vec<u8>,
    /// The row after its last (empty: the end of the table).
    pub end: Vec<u8>,
    /// Its region id (the time it was made, in its name after the start row).
    pub id: u64,
    /// Where meta says it is served (`info:server`), if it says and the name resolves.
    pub server: Option<SocketAddr>,
}

/// Kerberos' SASL exchange as the client (`basalt_net::kerberos::initiate`).
#[cfg(feature = "kerberos")]
fn sasl_initiate(reader: &mut WireReader, socket: &Wire, principal: &str) -> io::Result<()> {
    basalt_net::kerberos::initiate(reader, &mut |bytes| socket.write_all(bytes), principal)
}

#[cfg(not(feature = "kerberos"))]
fn sasl_initiate(_: &mut WireReader, _: &Wire, _: &str) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "this basalt was built without Kerberos (cargo build --features kerberos)",
    ))
}

/// How long a TLS handshake (or a Kerberos exchange) may take.
pub const HANDSHAKE: Duration = Duration::from_secs(10);

/// The user a connection names when none is given.
pub const DEFAULT_USER: &str = "basalt";

impl RpcClient {
    /// Connects and opens `service` (`ClientService`, `MasterService`) as the user `basalt`.
    pub fn connect(addr: SocketAddr, service: &str) -> io::Result<RpcClient> {
        Self::connect_as(addr, service, DEFAULT_USER)
    }

    /// Connects and opens `service` as `user` (HBase's SIMPLE authentication: the connection
    /// header names the user, and a server that allows it believes it).
    pub fn connect_as(addr: SocketAddr, service: &str, user: &str) -> io::Result<RpcClient> {
        Self::connect_with(addr, service, user, None)
    }

    /// [`RpcClient::connect_as`], over TLS when given `tls` (HBase's
    /// `hbase.client.netty.tls.enabled`): the server's certificate is verified, and a client
    /// certificate shown if `tls` has one. The handshake must finish in [`HANDSHAKE`].
    pub fn connect_with(
        addr: SocketAddr,
        service: &str,
        user: &str,
        tls: Option<&TlsClient>,
    ) -> io::Result<RpcClient> {
        Self::connect_authenticated(addr, service, user, tls, None)
    }

    /// [`RpcClient::connect_with`], authenticating with Kerberos (SASL GSSAPI) to the server
    /// whose principal is `kerberos` (`hbase/host@REALM`) when given, with the ticket `kinit`
    /// left in the credential cache; the user is then the ticket's, not `user`. Without the
    /// `kerberos` feature, asking for it is an error.
    pub fn connect_authenticated(
        addr: SocketAddr,
        service: &str,
        user: &str,
        tls: Option<&TlsClient>,
        kerberos: Option<&str>,
    ) -> io::Result<RpcClient> {
        // Bounded: a host cut off by the network would hold a plain connect for minutes.
        let stream = TcpStream::connect_timeout(&addr, HANDSHAKE)?;
        stream.set_nodelay(true)?;
        let (socket, mut reader) = match tls {
            None => Wire::plain(stream)?,
            Some(tls) => tls.connect(stream, HANDSHAKE)?,
        };
        let header = ConnectionHeader {
            user_info: Some(UserInformation {
                effective_user: Some(user.into()),
                real_user: None,
            }),
            service_name: Some(service.into()),
            // Puts and deletes send their cells in cell blocks, as HBase's client does.
            cell_block_codec_class: Some(cellblock::KEY_VALUE_CODEC.into()),
            ..ConnectionHeader::default()
        };
        match kerberos {
            None => socket.write_all(&encode_connection_start(&header))?,
            Some(principal) => {
                socket.write_all(&basalt_proto::frame::encode_preamble(
                    basalt_proto::frame::AUTH_KERBEROS,
                ))?;
                // The exchange must not wait forever on a silent server.
                socket.socket().set_read_timeout(Some(HANDSHAKE))?;
                sasl_initiate(&mut reader, &socket, principal)?;
                socket.socket().set_read_timeout(None)?;
                socket.write_all(&basalt_proto::frame::encode_connection_header(&header))?;
            }
        }
        let input = BufReader::with_capacity(64 * 1024, reader);
        Ok(RpcClient {
            shared: Arc::new(Shared {
                socket,
                next_id: AtomicU32::new(0),
                out: Mutex::new(Outbox::default()),
                input: Mutex::new(input),
                reading_thread: std::sync::atomic::AtomicBool::new(false),
                calls: Mutex::new(Calls::default()),
                timeout_nanos: AtomicU64::new(0),
                abandoned: std::sync::atomic::AtomicBool::new(false),
            }),
            reader: Mutex::new(None),
            peer: addr,
        })
    }

    /// Starts the reading thread unless it runs. Where no thread can be started, callers go
    /// on reading for each other.
    fn start_reading_thread(&self) {
        let mut reader = lock(&self.reader);
        if reader.is_some() {
            return;
        }
        let shared = Arc::clone(&self.shared);
        if let Ok(handle) = std::thread::Builder::new()
            .name("rpc-client-reader".into())
            .spawn(move || shared.read_answers())
        {
            *reader = Some(handle);
            self.shared.reading_thread.store(true, Ordering::Release);
        }
    }

    /// How long a call may wait for its answer (and a request for the socket); None: forever.
    /// A call not answered in time fails. While callers read for themselves, a socket that
    /// stays silent that long in the middle of a read breaks the connection; once the reading
    /// thread runs, the connection stays open and a late answer is dropped.
    pub fn set_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        self.shared.socket.socket().set_write_timeout(timeout)?;
        self.shared.socket.socket().set_read_timeout(timeout)?;
        // A zero timeout is refused by the socket calls above, so 0 can mean "none".
        let nanos = timeout.map_or(0, |t| u64::try_from(t.as_nanos()).unwrap_or(u64::MAX));
        self.shared.timeout_nanos.store(nanos, Ordering::Relaxed);
        Ok(())
    }

    /// Whether the connection's reading thread runs: it starts once calls overlap, and until
    /// then each caller reads its own answer.
    pub fn reads_on_a_thread(&self) -> bool {
        self.shared.reading_thread.load(Ordering::Acquire)
    }

    /// The server's address.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Whether the connection broke (every call on it now fails).
    pub fn is_broken(&self) -> bool {
        lock(&self.shared.calls).broken.is_some()
    }

    /// Calls `method` with `request` and waits for its answer (other threads' calls share the connection meanwhile).
    pub fn call<Q: Message, R: Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> Result<R, RpcError> {
        self.call_frame(method, |id| encode_call(id, method, request))
    }

    /// A call whose mutations' cells follow the request in a KeyValueCodec cell block (see
    /// `cellblock`), given in parts, as HBase's client sends puts and deletes.
    pub fn call_with_cells<Q: Message, R: Message + Default>(
        &self,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> Result<R, RpcError> {
        self.call_frame(method, |id| {
            encode_call_with_cells(id, method, request, cells)
        })
    }

    /// Sends the frame `encode` makes for a new call id and waits for the answer.
    fn call_frame<R: Message + Default>(
        &self,
        method: &str,
        encode: impl FnOnce(u32) -> Vec<u8>,
    ) -> Result<R, RpcError> {
        let shared = &self.shared;
        let id = shared
            .next_id
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_add(1);
        let others_waiting = {
            let mut calls = lock(&shared.calls);
            if let Some(failure) = calls.failure() {
                return Err(failure);
            }
            calls
                .waiting
                .insert(id, Slot::Waiting(std::thread::current()));
            calls.waiting.len() > 1
        };
        if let Err(e) = shared.send(encode(id), others_waiting) {
            lock(&shared.calls).waiting.remove(&id);
            return Err(e.into());
        }
        let deadline = match shared.timeout_nanos.load(Ordering::Relaxed) {
            0 => None,
            nanos => Some(Instant::now() + Duration::from_nanos(nanos)),
        };
        let (header, message) = loop {
            let alone = {
                let mut calls = lock(&shared.calls);
                if let Some(answer) = calls.take_answer(id) {
                    break answer;
                }
                if let Some(e) = calls.failure() {
                    calls.waiting.remove(&id);
                    return Err(e);
                }
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    calls.waiting.remove(&id);
                    shared.abandoned.store(true, Ordering::Release);
                    return Err(RpcError::Frame(FrameError::Io(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no answer to {method} (call {id}) in time"),
                    ))));
                }
                calls.waiting.len() == 1
            };
            let threaded = shared.reading_thread.load(Ordering::Acquire);
            if !threaded && !alone {
                self.start_reading_thread();
            }
            let input = if threaded {
                None
            } else {
                match shared.input.try_lock() {
                    Ok(input) => Some(input),
                    Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
                    Err(TryLockError::WouldBlock) => None,
                }
            };
            match input {
                Some(input) => {
                    let answer = shared.read_until(id, deadline, input)?;
                    if !lock(&shared.calls).waiting.is_empty() {
                        self.start_reading_thread();
                        if !shared.reading_thread.load(Ordering::Acquire) {
                            // No thread could be started: a waiting caller reads on.
                            shared.wake_a_waiting_caller();
                        }
                    }
                    if let Some(answer) = answer {
                        break answer;
                    }
                }
                None => match deadline {
                    Some(d) => {
                        std::thread::park_timeout(d.saturating_duration_since(Instant::now()));
                    }
                    None => std::thread::park(),
                },
            }
        };
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
    pub fn regions(&self, table: &str) -> Result<Vec<Location>, RpcError> {
        regions_in(&self.call("Scan", &meta_scan(table))?)
    }
}

/// The scan of `hbase:meta` that finds `table`'s regions (`ns:table` or `table`).
#[doc(hidden)]
pub fn meta_scan(table: &str) -> ScanRequest {
    let start = format!("{table},").into_bytes();
    let mut stop = start.clone();
    if let Some(last) = stop.last_mut() {
        *last += 1;
    }
    ScanRequest {
        region: Some(region(META_REGION)),
        scan: Some(Scan {
            start_row: Some(start),
            stop_row: Some(stop),
            ..Scan::default()
        }),
        number_of_rows: Some(10_000),
        close_scanner: Some(true),
        ..ScanRequest::default()
    }
}

/// The serving regions in an answer to [`meta_scan`], in key order.
#[doc(hidden)]
pub fn regions_in(resp: &ScanResponse) -> Result<Vec<Location>, RpcError> {
    let mut out = Vec::new();
    for r in &resp.results {
        let info = r.cell.iter().find(|c| {
            c.family.as_deref() == Some(&b"info"[..])
                && c.qualifier.as_deref() == Some(&b"regioninfo"[..])
        });
        let column = |q: &[u8]| {
            r.cell.iter().find(|c| {
                c.family.as_deref() == Some(&b"info"[..]) && c.qualifier.as_deref() == Some(q)
            })
        };
        let state = column(b"state");
        let server = column(b"server")
            .and_then(|c| c.value.as_deref())
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| std::net::ToSocketAddrs::to_socket_addrs(v).ok())
            .and_then(|mut a| a.next());
        // Split parents stay in meta until cleaned; only serving regions route.
        if state.and_then(|c| c.value.as_deref()) != Some(&b"OPEN"[..]) {
            continue;
        }
        let (Some(info), Some(name)) = (info, r.cell.first().and_then(|c| c.row.clone())) else {
            continue;
        };
        let value = info.value.as_deref().unwrap_or_default();
        let body = value.strip_prefix(b"PBUF").unwrap_or(value);
        let ri = pb::RegionInfo::decode(body).map_err(|e| RpcError::Decode(e.to_string()))?;
        out.push(Location {
            name,
            start: ri.start_key.unwrap_or_default(),
            end: ri.end_key.unwrap_or_default(),
            id: ri.region_id,
            server,
        });
    }
    Ok(out)
}

/// The region of `regions` (in key order) holding `row`.
pub fn locate<'a>(regions: &'a [Location], row: &[u8]) -> Option<&'a Location> {
    regions
        .iter()
        .find(|r| r.start.as_slice() <= row && (r.end.is_empty() || row < r.end.as_slice()))
}
