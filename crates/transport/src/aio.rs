//! An async connection to one service of HBase's native RPC, on tokio (HBase's
//! `NettyRpcConnection`): any number of calls in flight on it at once, each answered through
//! its call id. A task reads the answers and hands each to the call waiting on its id. Calls
//! queue their frames; whichever call finds no write under way writes everything queued, so
//! the frames of calls made together leave in one system call.
//!
//! Plain, TLS (tokio-rustls) and Kerberos (SASL GSSAPI, exchanged before the connection turns
//! async) connections, as [`crate::RpcClient`] makes them; Kerberos over TLS is the blocking
//! client's only. The runtime needs its IO and time drivers (`enable_all`).
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use basalt_transport::aio::AsyncRpcClient;
//! use basalt_proto::pb::{GetRequest, GetResponse};
//!
//! let client = AsyncRpcClient::connect("127.0.0.1:16020".parse()?, "ClientService", "app").await?;
//! let request = GetRequest::default();
//! let response: GetResponse = client.call("Get", &request).await?;
//! # let _ = response;
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use basalt_proto::cellblock;
use basalt_proto::frame::{
    FrameError, decode_response, encode_call_with_cells, encode_connection_header,
    encode_connection_start, encode_preamble,
};
use basalt_proto::pb::{ConnectionHeader, ResponseHeader, UserInformation};
use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;

use crate::broken;
use crate::{RpcError, TlsClient};

/// The largest answer a connection accepts (HBase's `hbase.ipc.max.request.size`).
const MAX_FRAME: usize = 256 * 1024 * 1024;

/// The call id of an answer about the whole connection (HBase's -1): a refusal.
const CONNECTION_CALL_ID: u32 = u32::MAX;

type Answer = (ResponseHeader, Option<Vec<u8>>);
type Reader = Box<dyn AsyncRead + Send + Unpin>;
type Writer = Box<dyn AsyncWrite + Send + Unpin>;

/// The calls waiting for their answers, and why the connection broke once it has.
#[derive(Debug, Default)]
struct Pending {
    waiting: HashMap<u32, oneshot::Sender<Answer>>,
    broken: Option<String>,
    /// The server refused the connection (or its TLS session) with this exception (class,
    /// message): every call fails with it, and retrying would not change it.
    refused: Option<(String, String)>,
}

impl Pending {
    /// Why calls fail, once the connection broke.
    fn failure(&self) -> Option<RpcError> {
        crate::failure(self.refused.as_ref(), self.broken.as_deref())
    }
}

/// Frames waiting for the socket while a call writes.
#[derive(Debug, Default)]
struct Outbox {
    queued: Vec<u8>,
    writing: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One connection to one service of a server; see the module documentation. Cheap to share
/// (behind an `Arc`) among any number of tasks.
pub struct AsyncRpcClient {
    /// Taken by the call that writes (the one that found no write under way).
    writer: tokio::sync::Mutex<Writer>,
    outbox: Mutex<Outbox>,
    pending: Arc<Mutex<Pending>>,
    next_id: AtomicU32,
    reader: tokio::task::JoinHandle<()>,
    peer: SocketAddr,
    /// How long a call waits for its answer.
    timeout: Option<Duration>,
    /// The socket underneath (a second handle on it), to abandon the connection with.
    socket: Option<std::net::TcpStream>,
    /// A call gave up waiting here: when the connection goes, what it has not sent goes
    /// unsent (see `basalt_net::tls::abort`).
    abandoned: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for AsyncRpcClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncRpcClient")
            .field("peer", &self.peer)
            .field("in_flight", &self.in_flight())
            .finish_non_exhaustive()
    }
}

/// A call's id and frame, made before anything is awaited.
#[doc(hidden)]
#[derive(Debug)]
pub struct Started {
    id: u32,
    frame: Vec<u8>,
}

impl AsyncRpcClient {
    /// Connects to `addr` and opens `service` (`ClientService`, `MasterService`) as `user`
    /// (HBase's SIMPLE authentication). Must run inside a tokio runtime.
    pub async fn connect(addr: SocketAddr, service: &str, user: &str) -> io::Result<Self> {
        Self::connect_with(addr, service, user, None, None, None).await
    }

    /// [`AsyncRpcClient::connect`] over TLS when given `tls`, authenticated with Kerberos
    /// when given the servers' principal (`hbase/host@REALM`; needs the `kerberos` feature),
    /// each call waiting at most `timeout` for its answer.
    pub async fn connect_with(
        addr: SocketAddr,
        service: &str,
        user: &str,
        tls: Option<&TlsClient>,
        kerberos: Option<&str>,
        timeout: Option<Duration>,
    ) -> io::Result<Self> {
        let header = ConnectionHeader {
            user_info: Some(UserInformation {
                effective_user: Some(user.into()),
                real_user: None,
            }),
            service_name: Some(service.into()),
            cell_block_codec_class: Some(cellblock::KEY_VALUE_CODEC.into()),
            ..ConnectionHeader::default()
        };
        let (read, mut write, socket): (Reader, Writer, _) = match (tls, kerberos) {
            (None, None) => {
                let stream = connect(addr).await?;
                stream.set_nodelay(true)?;
                let socket = handle(&stream);
                let (read, write) = stream.into_split();
                (Box::new(read), Box::new(write), socket)
            }
            #[cfg(not(feature = "tls"))]
            (Some(tls), None) => match *tls {},
            #[cfg(feature = "tls")]
            (Some(tls), None) => {
                let stream = connect(addr).await?;
                stream.set_nodelay(true)?;
                let socket = handle(&stream);
                let stream = tokio::time::timeout(crate::HANDSHAKE, tls.connect_async(stream))
                    .await
                    .map_err(|_| {
                        io::Error::new(io::ErrorKind::TimedOut, "the TLS handshake took too long")
                    })??;
                let (read, write) = tokio::io::split(stream);
                (Box::new(read), Box::new(write), socket)
            }
            (None, Some(principal)) => {
                let principal = principal.to_owned();
                let stream =
                    tokio::task::spawn_blocking(move || kerberos_handshake(addr, &principal))
                        .await
                        .map_err(io::Error::other)??;
                let stream = TcpStream::from_std(stream)?;
                let socket = handle(&stream);
                let (read, write) = stream.into_split();
                (Box::new(read), Box::new(write), socket)
            }
            (Some(_), Some(_)) => {
                return Err(io::Error::new(
                    io::ErrorKind::Unsupported,
                    "Kerberos over TLS is the blocking client's only (RemoteConnection)",
                ));
            }
        };
        let start = match kerberos {
            None => encode_connection_start(&header),
            Some(_) => encode_connection_header(&header),
        };
        write.write_all(&start).await?;
        let pending = Arc::new(Mutex::new(Pending::default()));
        let reader = tokio::spawn(read_answers(read, Arc::clone(&pending)));
        Ok(AsyncRpcClient {
            writer: tokio::sync::Mutex::new(write),
            outbox: Mutex::new(Outbox::default()),
            pending,
            next_id: AtomicU32::new(0),
            reader,
            peer: addr,
            timeout,
            socket,
            abandoned: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Calls `method` with `request` and waits for its answer, while any number of other
    /// calls are in flight on the same connection.
    pub async fn call<Q: Message, R: Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> Result<R, RpcError> {
        let started = self.start(method, request, &[]);
        self.finish(started, method).await
    }

    /// A call whose mutations' cells follow the request in a KeyValueCodec cell block, given
    /// in parts (as HBase's client sends puts and deletes).
    pub async fn call_with_cells<Q: Message, R: Message + Default>(
        &self,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> Result<R, RpcError> {
        let started = self.start(method, request, cells);
        self.finish(started, method).await
    }

    /// Encodes a call's frame under a new call id (nothing is awaited, so the request need
    /// not live across an await).
    #[doc(hidden)]
    pub fn start<Q: Message>(&self, method: &str, request: &Q, cells: &[&[u8]]) -> Started {
        let id = self.new_id();
        Started {
            id,
            frame: encode_call_with_cells(id, method, request, cells),
        }
    }

    /// Sends a started call and waits for its answer (at most the connection's timeout).
    #[doc(hidden)]
    pub async fn finish<R: Message + Default>(
        &self,
        started: Started,
        method: &str,
    ) -> Result<R, RpcError> {
        let Started { id, frame } = started;
        let (tx, answer) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if let Some(failure) = pending.failure() {
                return Err(failure);
            }
            pending.waiting.insert(id, tx);
        }
        // Whatever happens to this call from here on (even its future dropped), its id stops
        // waiting when it ends.
        let waiting = Waiting {
            pending: &self.pending,
            id,
        };
        // The timeout covers the sending too: a peer that stops reading stalls the write.
        let exchange = async {
            self.send(frame).await?;
            Ok::<_, RpcError>(answer.await)
        };
        let answer = match self.timeout {
            None => exchange.await?,
            Some(limit) => match tokio::time::timeout(limit, exchange).await {
                Ok(answer) => answer?,
                Err(_) => {
                    self.abandoned.store(true, Ordering::Release);
                    return Err(RpcError::Frame(FrameError::Io(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no answer to {method} (call {id}) in {limit:?}"),
                    ))));
                }
            },
        };
        drop(waiting);
        // A dropped sender: the connection broke before the answer came.
        let (header, message) = match answer {
            Ok(answer) => answer,
            Err(_) => {
                return Err(lock(&self.pending)
                    .failure()
                    .unwrap_or_else(|| broken("no reason given")));
            }
        };
        if let Some(e) = header.exception {
            return Err(RpcError::Remote {
                class: e.exception_class_name.unwrap_or_default(),
                message: e.stack_trace.unwrap_or_default(),
            });
        }
        R::decode(message.unwrap_or_default().as_slice())
            .map_err(|e| RpcError::Decode(format!("{method}: {e}")))
    }

    /// Queues `frame`, and writes everything queued unless another call is writing (it then
    /// writes this frame too before it lets go).
    async fn send(&self, frame: Vec<u8>) -> Result<(), RpcError> {
        {
            let mut out = lock(&self.outbox);
            if out.writing {
                out.queued.extend_from_slice(&frame);
                return Ok(());
            }
            out.writing = true;
        }
        // Dropped before it is done (its call given up mid-write): part of a frame may have
        // left, so the connection is broken for every call.
        let mut writing = WriteUnderWay {
            client: self,
            done: false,
        };
        let mut batch = frame;
        let mut writer = self.writer.lock().await;
        loop {
            if let Err(e) = writer.write_all(&batch).await {
                let why = format!("writing: {e}");
                self.fail(&why);
                writing.done = true;
                lock(&self.outbox).writing = false;
                return Err(RpcError::Frame(FrameError::Io(e)));
            }
            batch.clear();
            let mut out = lock(&self.outbox);
            if out.queued.is_empty() {
                out.writing = false;
                writing.done = true;
                return Ok(());
            }
            std::mem::swap(&mut batch, &mut out.queued);
        }
    }

    /// Marks the connection broken: every waiting call fails with `why`, and so does every
    /// later one.
    fn fail(&self, why: &str) {
        self.abandoned.store(true, Ordering::Release);
        let mut pending = lock(&self.pending);
        pending.broken.get_or_insert_with(|| why.to_owned());
        pending.waiting.clear();
    }

    /// How many calls wait for their answers now.
    pub fn in_flight(&self) -> usize {
        lock(&self.pending).waiting.len()
    }

    /// The server's address.
    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Whether the connection broke (every call on it now fails).
    pub fn is_broken(&self) -> bool {
        lock(&self.pending).broken.is_some()
    }

    /// A call id no waiting call has: ids count up, skipping 0 and the connection's own.
    fn new_id(&self) -> u32 {
        loop {
            let id = self.next_id.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
            if id != 0 && id != CONNECTION_CALL_ID {
                return id;
            }
        }
    }
}

/// Takes a call's id off the waiting list when the call ends, however it ends.
struct Waiting<'a> {
    pending: &'a Mutex<Pending>,
    id: u32,
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        lock(self.pending).waiting.remove(&self.id);
    }
}

/// The write under way; see [`AsyncRpcClient::send`].
struct WriteUnderWay<'a> {
    client: &'a AsyncRpcClient,
    done: bool,
}

impl Drop for WriteUnderWay<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.client
                .fail("a call was given up in the middle of writing");
            lock(&self.client.outbox).writing = false;
        }
    }
}

impl Drop for AsyncRpcClient {
    fn drop(&mut self) {
        self.reader.abort();
        // A connection a call gave up on, or that broke: nothing it has not sent may reach
        // the server later (a put applied again over newer writes, issue 45).
        if (self.abandoned.load(Ordering::Acquire) || self.is_broken())
            && let Some(socket) = &self.socket
        {
            basalt_net::tls::abort(socket);
        }
    }
}

/// A second handle on a connected socket (None if the system has no descriptor to spare:
/// the connection then closes as any other).
fn handle(stream: &TcpStream) -> Option<std::net::TcpStream> {
    use std::os::fd::AsFd;
    stream
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .map(std::net::TcpStream::from)
}

/// Connects within [`crate::HANDSHAKE`] (a host cut off by the network would hold a plain
/// connect for minutes).
async fn connect(addr: SocketAddr) -> io::Result<TcpStream> {
    tokio::time::timeout(crate::HANDSHAKE, TcpStream::connect(addr))
        .await
        .map_err(|_| {
            io::Error::new(
                io::ErrorKind::TimedOut,
                format!("connecting to {addr} took over {:?}", crate::HANDSHAKE),
            )
        })?
}

/// Kerberos' SASL exchange on a blocking socket, before the connection turns async.
#[cfg(feature = "kerberos")]
fn kerberos_handshake(addr: SocketAddr, principal: &str) -> io::Result<std::net::TcpStream> {
    use std::io::Write;
    let mut stream = std::net::TcpStream::connect_timeout(&addr, crate::HANDSHAKE)?;
    stream.set_nodelay(true)?;
    stream.set_read_timeout(Some(crate::HANDSHAKE))?;
    stream.write_all(&encode_preamble(basalt_proto::frame::AUTH_KERBEROS))?;
    let mut writer = stream.try_clone()?;
    basalt_net::kerberos::initiate(&mut stream, &mut |bytes| writer.write_all(bytes), principal)?;
    stream.set_read_timeout(None)?;
    stream.set_nonblocking(true)?;
    Ok(stream)
}

#[cfg(not(feature = "kerberos"))]
fn kerberos_handshake(_: SocketAddr, _: &str) -> io::Result<std::net::TcpStream> {
    let _ = encode_preamble;
    Err(io::Error::new(
        io::ErrorKind::Unsupported,
        "this basalt was built without Kerberos (cargo build --features kerberos)",
    ))
}

/// Reads every answer and hands it to the call waiting on its id, until the connection
/// breaks; then every waiting call fails with why. A refusal (the server's, or a TLS failure,
/// such as a client certificate the server does not take) fails them with its exception.
async fn read_answers(read: Reader, pending: Arc<Mutex<Pending>>) {
    // One system call reads the answers the server wrote together.
    let mut read = tokio::io::BufReader::with_capacity(64 * 1024, read);
    let (why, refused) = loop {
        match read_answer(&mut read).await {
            Ok((header, message)) => {
                let id = header.call_id.unwrap_or(0);
                if id == CONNECTION_CALL_ID
                    && let Some(e) = header.exception
                {
                    let class = e.exception_class_name.unwrap_or_default();
                    let message = e.stack_trace.unwrap_or_default();
                    break (
                        format!("the server refused it: {class}: {message}"),
                        Some((class, message)),
                    );
                }
                // An answer nobody waits for (its call was given up) is dropped.
                if let Some(tx) = lock(&pending).waiting.remove(&id) {
                    let _ = tx.send((header, message));
                }
            }
            Err(FrameError::Io(e)) if basalt_net::tls::is_tls_failure(&e) => {
                break (
                    format!("TLS: {e}"),
                    Some((crate::TLS_REFUSED.to_owned(), format!("TLS: {e}"))),
                );
            }
            Err(e) => break (e.to_string(), None),
        }
    };
    let mut pending = lock(&pending);
    pending.broken.get_or_insert(why);
    if pending.refused.is_none() {
        pending.refused = refused;
    }
    // Dropping the senders wakes every waiting call with the failure.
    pending.waiting.clear();
}

async fn read_answer(read: &mut (impl AsyncRead + Unpin)) -> Result<Answer, FrameError> {
    let mut len = [0u8; 4];
    match read.read_exact(&mut len).await {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Err(FrameError::Closed),
        Err(e) => return Err(FrameError::Io(e)),
    }
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_FRAME {
        return Err(FrameError::TooLarge {
            len,
            limit: MAX_FRAME,
        });
    }
    let mut body = vec![0u8; len];
    read.read_exact(&mut body).await?;
    decode_response(&body)
}
