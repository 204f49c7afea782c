//! An async connection to one service of HBase's native RPC, on tokio (HBase's
//! `NettyRpcConnection`): any number of calls in flight on it at once, each answered through
//! its call id. A task reads the answers and hands each to the call waiting on its id; calls
//! write their frames in turn. This is the first piece of the async client of issue 44: plain
//! connections with SIMPLE authentication (TLS and Kerberos are [`super::RpcClient`]'s).
//!
//! ```no_run
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! use basalt_client::remote::aio::AsyncRpcClient;
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

use basalt_proto::cellblock;
use basalt_proto::frame::{FrameError, decode_response, encode_call, encode_connection_start};
use basalt_proto::pb::{ConnectionHeader, ResponseHeader, UserInformation};
use prost::Message;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::oneshot;

use super::RpcError;

/// The largest answer a connection accepts (HBase's `hbase.ipc.max.request.size`).
const MAX_FRAME: usize = 256 * 1024 * 1024;

/// The call id of an answer about the whole connection (HBase's -1): a refusal.
const CONNECTION_CALL_ID: u32 = u32::MAX;

type Answer = (ResponseHeader, Option<Vec<u8>>);

/// The calls waiting for their answers, and why the connection broke once it has.
#[derive(Debug, Default)]
struct Pending {
    waiting: HashMap<u32, oneshot::Sender<Answer>>,
    broken: Option<String>,
}

fn lock(pending: &Mutex<Pending>) -> MutexGuard<'_, Pending> {
    pending.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One connection to one service of a server; see the module documentation. Cheap to share
/// (behind an `Arc`) among any number of tasks.
#[derive(Debug)]
pub struct AsyncRpcClient {
    writer: tokio::sync::Mutex<OwnedWriteHalf>,
    pending: Arc<Mutex<Pending>>,
    next_id: AtomicU32,
    reader: tokio::task::JoinHandle<()>,
}

impl AsyncRpcClient {
    /// Connects to `addr` and opens `service` (`ClientService`, `MasterService`) as `user`
    /// (HBase's SIMPLE authentication). Must run inside a tokio runtime.
    pub async fn connect(addr: SocketAddr, service: &str, user: &str) -> io::Result<Self> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        let (read, mut write) = stream.into_split();
        let header = ConnectionHeader {
            user_info: Some(UserInformation {
                effective_user: Some(user.into()),
                real_user: None,
            }),
            service_name: Some(service.into()),
            cell_block_codec_class: Some(cellblock::KEY_VALUE_CODEC.into()),
            ..ConnectionHeader::default()
        };
        write.write_all(&encode_connection_start(&header)).await?;
        let pending = Arc::new(Mutex::new(Pending::default()));
        let reader = tokio::spawn(read_answers(read, Arc::clone(&pending)));
        Ok(AsyncRpcClient {
            writer: tokio::sync::Mutex::new(write),
            pending,
            next_id: AtomicU32::new(0),
            reader,
        })
    }

    /// Calls `method` with `request` and waits for its answer, while any number of other
    /// calls are in flight on the same connection.
    pub async fn call<Q: Message, R: Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> Result<R, RpcError> {
        let id = self.new_id();
        let (tx, rx) = oneshot::channel();
        {
            let mut pending = lock(&self.pending);
            if let Some(why) = &pending.broken {
                return Err(broken(why));
            }
            pending.waiting.insert(id, tx);
        }
        let frame = encode_call(id, method, request);
        if let Err(e) = self.writer.lock().await.write_all(&frame).await {
            lock(&self.pending).waiting.remove(&id);
            return Err(RpcError::Frame(FrameError::Io(e)));
        }
        // A dropped sender: the connection broke before the answer came.
        let (header, message) = match rx.await {
            Ok(answer) => answer,
            Err(_) => {
                let why = lock(&self.pending).broken.clone().unwrap_or_default();
                return Err(broken(&why));
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

    /// How many calls wait for their answers now.
    pub fn in_flight(&self) -> usize {
        lock(&self.pending).waiting.len()
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

impl Drop for AsyncRpcClient {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

fn broken(why: &str) -> RpcError {
    RpcError::Frame(FrameError::Io(io::Error::new(
        io::ErrorKind::BrokenPipe,
        format!("the connection broke: {why}"),
    )))
}

/// Reads every answer and hands it to the call waiting on its id, until the connection
/// breaks; then every waiting call fails with why.
async fn read_answers(mut read: OwnedReadHalf, pending: Arc<Mutex<Pending>>) {
    let why = loop {
        match read_answer(&mut read).await {
            Ok((header, message)) => {
                let id = header.call_id.unwrap_or(0);
                if id == CONNECTION_CALL_ID
                    && let Some(e) = &header.exception
                {
                    break format!(
                        "the server refused it: {}: {}",
                        e.exception_class_name.as_deref().unwrap_or_default(),
                        e.stack_trace.as_deref().unwrap_or_default()
                    );
                }
                // An answer nobody waits for (its call was given up) is dropped.
                if let Some(tx) = lock(&pending).waiting.remove(&id) {
                    let _ = tx.send((header, message));
                }
            }
            Err(e) => break e.to_string(),
        }
    };
    let mut pending = lock(&pending);
    pending.broken = Some(why);
    // Dropping the senders wakes every waiting call with the failure.
    pending.waiting.clear();
}

async fn read_answer(read: &mut OwnedReadHalf) -> Result<Answer, FrameError> {
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
