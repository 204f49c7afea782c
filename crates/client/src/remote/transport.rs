//! How the remote client's one body of logic (routing, retries, scans, administration) runs
//! both blocking and on tokio: it is written once as async code over a [`Transport`], and
//!
//! - [`Blocking`] makes calls on [`RpcClient`], the threaded connection, whose futures are
//!   ready when first polled: [`block`] runs them on the caller's thread, with no runtime and
//!   no thread switch (the blocking `RemoteConnection`);
//! - [`Tokio`] makes calls on [`AsyncRpcClient`], many in flight on one connection (the
//!   async `AsyncConnection`).

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use prost::Message;

use super::aio::AsyncRpcClient;
use super::{RemoteConfig, RpcClient, RpcError};

/// Calls to servers, pauses and ZooKeeper lookups, blocking or async.
pub(crate) trait Transport: Send + Sync + std::fmt::Debug + 'static {
    /// One connection to one service of one server.
    type Conn: Send + Sync + std::fmt::Debug + 'static;

    /// Connects to `service` at `addr` as `config` says (user, TLS, Kerberos, timeout).
    fn open(
        addr: SocketAddr,
        service: &'static str,
        config: &RemoteConfig,
    ) -> impl Future<Output = io::Result<Self::Conn>> + Send;

    /// One call; a mutation's cells follow in `cells`, the parts of a cell block.
    fn call<Q: Message, R: Message + Default>(
        conn: &Self::Conn,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> impl Future<Output = Result<R, RpcError>> + Send;

    fn is_broken(conn: &Self::Conn) -> bool;

    fn peer(conn: &Self::Conn) -> SocketAddr;

    /// The pause between retries.
    fn sleep(pause: Duration) -> impl Future<Output = ()> + Send;

    /// Which of a server's pooled connections this call takes.
    fn slot() -> usize;

    /// Where ZooKeeper at `quorum` says the active master (or `hbase:meta`) is.
    fn lookup(
        quorum: &str,
        master: bool,
        timeout: Duration,
    ) -> impl Future<Output = io::Result<SocketAddr>> + Send;
}

/// The blocking transport; see the module documentation.
#[derive(Debug)]
pub(crate) struct Blocking;

impl Transport for Blocking {
    type Conn = RpcClient;

    fn open(
        addr: SocketAddr,
        service: &'static str,
        config: &RemoteConfig,
    ) -> impl Future<Output = io::Result<RpcClient>> + Send {
        std::future::ready(
            RpcClient::connect_authenticated(
                addr,
                service,
                &config.user,
                config.tls.as_ref(),
                config.kerberos.as_deref(),
            )
            .and_then(|client| {
                client.set_timeout(Some(config.rpc_timeout))?;
                Ok(client)
            }),
        )
    }

    fn call<Q: Message, R: Message + Default>(
        conn: &RpcClient,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> impl Future<Output = Result<R, RpcError>> + Send {
        std::future::ready(if cells.iter().all(|part| part.is_empty()) {
            conn.call(method, request)
        } else {
            conn.call_with_cells(method, request, cells)
        })
    }

    fn is_broken(conn: &RpcClient) -> bool {
        conn.is_broken()
    }

    fn peer(conn: &RpcClient) -> SocketAddr {
        conn.peer()
    }

    fn sleep(pause: Duration) -> impl Future<Output = ()> + Send {
        std::thread::sleep(pause);
        std::future::ready(())
    }

    fn slot() -> usize {
        thread_slot()
    }

    fn lookup(
        quorum: &str,
        master: bool,
        timeout: Duration,
    ) -> impl Future<Output = io::Result<SocketAddr>> + Send {
        std::future::ready(zookeeper_lookup(quorum, master, timeout))
    }
}

fn zookeeper_lookup(quorum: &str, master: bool, timeout: Duration) -> io::Result<SocketAddr> {
    if master {
        basalt_coord::master_server(quorum, timeout)
    } else {
        basalt_coord::meta_server(quorum, timeout)
    }
}

/// This thread's place in connection pools: threads are numbered in the order they first
/// call, so a pool of `n` connections gets every `n`th thread on each.
fn thread_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SLOT: usize = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    SLOT.with(|slot| *slot)
}

/// The async transport on tokio; see the module documentation.
#[derive(Debug)]
pub(crate) struct Tokio;

impl Transport for Tokio {
    type Conn = AsyncRpcClient;

    fn open(
        addr: SocketAddr,
        service: &'static str,
        config: &RemoteConfig,
    ) -> impl Future<Output = io::Result<AsyncRpcClient>> + Send {
        let config = config.clone();
        async move {
            AsyncRpcClient::connect_with(
                addr,
                service,
                &config.user,
                config.tls.as_ref(),
                config.kerberos.as_deref(),
                Some(config.rpc_timeout),
            )
            .await
        }
    }

    fn call<Q: Message, R: Message + Default>(
        conn: &AsyncRpcClient,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> impl Future<Output = Result<R, RpcError>> + Send {
        // The frame is made now, so the future holds neither the request nor the cells.
        let started = conn.start(method, request, cells);
        async move { conn.finish(started, method).await }
    }

    fn is_broken(conn: &AsyncRpcClient) -> bool {
        conn.is_broken()
    }

    fn peer(conn: &AsyncRpcClient) -> SocketAddr {
        conn.peer()
    }

    fn sleep(pause: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(pause)
    }

    fn slot() -> usize {
        // Calls on tokio have no thread of their own: they take the connections in turn.
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        NEXT.fetch_add(1, Ordering::Relaxed)
    }

    fn lookup(
        quorum: &str,
        master: bool,
        timeout: Duration,
    ) -> impl Future<Output = io::Result<SocketAddr>> + Send {
        // ZooKeeper's session runs on a thread of its own; wait for it off the runtime.
        let quorum = quorum.to_owned();
        async move {
            tokio::task::spawn_blocking(move || zookeeper_lookup(&quorum, master, timeout))
                .await
                .map_err(io::Error::other)?
        }
    }
}

/// Wakes the thread that waits in [`block`].
struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs a future to its end on this thread. The blocking transport's futures are ready when
/// first polled, so this is one poll; anything else parks the thread until woken.
pub(crate) fn block<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// Runs the futures together and gives their outputs in order (the blocking transport's are
/// ready at their first poll, so they run one after another).
pub(crate) async fn join_all<F: Future>(futures: impl IntoIterator<Item = F>) -> Vec<F::Output> {
    let mut running: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = running.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (future, output) in running.iter_mut().zip(outputs.iter_mut()) {
            if output.is_some() {
                continue;
            }
            match future.as_mut().poll(cx) {
                Poll::Ready(v) => *output = Some(v),
                Poll::Pending => all = false,
            }
        }
        if all { Poll::Ready(()) } else { Poll::Pending }
    })
    .await;
    outputs.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ready after `polls` polls, waking itself each time; records when it finished.
    struct After {
        polls: usize,
        id: usize,
        finished: Arc<std::sync::Mutex<Vec<usize>>>,
    }

    impl Future for After {
        type Output = usize;

        fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            if self.polls == 0 {
                self.finished
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(self.id);
                return Poll::Ready(self.id);
            }
            self.polls -= 1;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }

    #[test]
    fn join_all_runs_futures_together_and_keeps_their_order() {
        let finished = Arc::new(std::sync::Mutex::new(Vec::new()));
        let futures = [3, 0, 1].into_iter().enumerate().map(|(id, polls)| After {
            polls,
            id,
            finished: Arc::clone(&finished),
        });
        assert_eq!(block(join_all(futures)), [0, 1, 2]);
        // The quicker ones finished first: they ran together, not one after another.
        let order = finished
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        assert_eq!(order, [1, 2, 0]);
        assert!(block(join_all(Vec::<After>::new())).is_empty());
    }
}

/// A message already encoded: a MasterService request from `basalt_ops`, which knows its own
/// bytes, sent as it is, and its answer's bytes kept whole for the operation to decode.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Encoded(pub(crate) Vec<u8>);

impl Message for Encoded {
    fn encode_raw(&self, buf: &mut impl prost::bytes::BufMut) {
        buf.put_slice(&self.0);
    }

    fn merge(&mut self, mut buf: impl prost::bytes::Buf) -> Result<(), prost::DecodeError> {
        while buf.has_remaining() {
            let chunk = buf.chunk();
            self.0.extend_from_slice(chunk);
            let n = chunk.len();
            buf.advance(n);
        }
        Ok(())
    }

    fn merge_field(
        &mut self,
        tag: u32,
        wire_type: prost::encoding::WireType,
        buf: &mut impl prost::bytes::Buf,
        ctx: prost::encoding::DecodeContext,
    ) -> Result<(), prost::DecodeError> {
        // Only reached were `merge` not overridden: the bytes are kept whole there.
        prost::encoding::skip_field(wire_type, tag, buf, ctx)
    }

    fn encoded_len(&self) -> usize {
        self.0.len()
    }

    fn clear(&mut self) {
        self.0.clear();
    }
}
