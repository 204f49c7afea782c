//! An HTTP server on a runtime of its own, for the REST gateway and the info pages.
//!
//! Handlers get an [`axum::Router`]; the engine's calls block, so a handler runs them with
//! [`blocking`] (tokio's blocking pool) and the runtime's two workers stay free to accept
//! and parse requests. [`HttpServer::shutdown`] stops accepting, lets requests in flight
//! finish (for a few seconds at most) and joins the runtime's thread.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

pub use crate::tls::tls_config;
pub use {axum, rustls};

/// How long a shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(5);

/// Connections an HTTP server holds open at once unless told otherwise; more wait in the
/// listen queue until one closes.
pub const MAX_CONNECTIONS: usize = 1000;

/// A running HTTP server.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Binds `addr` (port 0 picks a free one) and serves `router` on a thread named `name`,
    /// over TLS when given a server configuration ([`tls_config`]), with at most
    /// `max_connections` connections open at once.
    pub fn start(
        addr: SocketAddr,
        name: &str,
        router: axum::Router,
        tls: Option<Arc<rustls::ServerConfig>>,
        max_connections: usize,
    ) -> io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        Self::serve(listener, name, router, tls, max_connections)
    }

    /// Serves `router` on an already bound listener.
    pub fn serve(
        listener: TcpListener,
        name: &str,
        router: axum::Router,
        tls: Option<Arc<rustls::ServerConfig>>,
        max_connections: usize,
    ) -> io::Result<Self> {
        let slots = Arc::new(tokio::sync::Semaphore::new(max_connections.max(1)));
        let addr = listener.local_addr()?;
        listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .max_blocking_threads(64)
            .thread_name(format!("{name}-worker"))
            .enable_io()
            .enable_time()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let listener = {
            let _entered = runtime.enter();
            tokio::net::TcpListener::from_std(listener)?
        };
        let thread = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                runtime.block_on(async move {
                    let stop = async {
                        let _ = stopped.await;
                    };
                    let served = match tls {
                        None => {
                            let listener = Capped {
                                inner: listener,
                                slots,
                            };
                            axum::serve(listener, router)
                                .with_graceful_shutdown(stop)
                                .await
                        }
                        Some(config) => {
                            let listener = Capped {
                                inner: TlsListener {
                                    tcp: listener,
                                    acceptor: tokio_rustls::TlsAcceptor::from(config),
                                },
                                slots,
                            };
                            axum::serve(listener, router)
                                .with_graceful_shutdown(stop)
                                .await
                        }
                    };
                    if let Err(e) = served {
                        let _ = std::io::Write::write_fmt(
                            &mut std::io::stderr(),
                            format_args!("http server stopped: {e}\n"),
                        );
                    }
                });
                runtime.shutdown_timeout(DRAIN);
            })?;
        Ok(HttpServer {
            addr,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops accepting, lets requests in flight finish, and waits for the server's thread.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// Runs a blocking call (an engine or client call) on the blocking pool; a panic in it
/// becomes an error rather than taking the connection down.
pub async fn blocking<T: Send + 'static>(
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| format!("the request's handler failed: {e}"))
}

/// Escapes text for XML or HTML content and attribute values.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A listener that holds at most as many connections open as `slots` has permits: accepting
/// waits for one, and each connection gives its permit back when it closes.
struct Capped<L> {
    inner: L,
    slots: Arc<tokio::sync::Semaphore>,
}

impl<L: axum::serve::Listener> axum::serve::Listener for Capped<L>
where
    L::Io: Unpin,
{
    type Io = Held<L::Io>;
    type Addr = L::Addr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        // The semaphore is never closed, so acquiring only waits.
        let permit = loop {
            if let Ok(p) = Arc::clone(&self.slots).acquire_owned().await {
                break p;
            }
        };
        let (io, addr) = self.inner.accept().await;
        (
            Held {
                io,
                _permit: permit,
            },
            addr,
        )
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.inner.local_addr()
    }
}

/// A connection holding one of its listener's places until it is dropped.
struct Held<S> {
    io: S,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl<S: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Held<S> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<S: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Held<S> {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<io::Result<usize>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> std::task::Poll<io::Result<usize>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

/// How long a TLS handshake may take before its connection is dropped.
const HANDSHAKE: Duration = Duration::from_secs(10);

/// Accepts TCP connections and completes their TLS handshakes; a connection whose handshake
/// fails (a plaintext client, an untrusted certificate, silence) is dropped alone.
struct TlsListener {
    tcp: tokio::net::TcpListener,
    acceptor: tokio_rustls::TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
    type Io = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((stream, addr)) = self.tcp.accept().await else {
                // Out of descriptors, say: wait a little rather than spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            if let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE, self.acceptor.accept(stream)).await
            {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// The raw (still percent-encoded) values of parameter `name` in a URL's query string.
pub fn query_values<'q>(query: &'q str, name: &str) -> Vec<&'q str> {
    query
        .split('&')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (k == name).then_some(v)
        })
        .collect()
}

/// Percent-decodes one piece of a URL (`+` is left alone: in a query it means a space, in a
/// path it does not). A `%` without two hex digits is an error naming the piece.
pub fn percent_decode(piece: &str) -> Result<Vec<u8>, String> {
    // `percent-encoding` passes a malformed escape through; Basalt refuses it.
    let bytes = piece.as_bytes();
    let malformed = bytes.iter().enumerate().any(|(i, b)| {
        *b == b'%'
            && !bytes
                .get(i + 1..i + 3)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit))
    });
    if malformed {
        return Err(format!("bad percent escape in {piece:?}"));
    }
    Ok(percent_encoding::percent_decode_str(piece).collect())
}

/// Every byte but ASCII letters, digits and `-_.~:` escaped, as query values are sent.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~')
    .remove(b':');

/// Percent-encodes a query value.
pub fn percent_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, QUERY_VALUE).to_string()
}
