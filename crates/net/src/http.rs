//! An HTTP server on a runtime of its own, for the REST gateway and the info pages.
//!
//! Handlers get an [`axum::Router`]; the engine's calls block, so a handler runs them with
//! [`blocking`] (tokio's blocking pool) and the runtime's two workers stay free to accept
//! and parse requests. [`HttpServer::shutdown`] stops accepting, lets requests in flight
//! finish (for a few seconds at most) and joins the runtime's thread.

use std::io;
use std::net::{SocketAddr, TcpListener};
use std::thread::JoinHandle;
use std::time::Duration;

pub use axum;

/// How long a shutdown waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(5);

/// A running HTTP server.
#[derive(Debug)]
pub struct HttpServer {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl HttpServer {
    /// Binds `addr` (port 0 picks a free one) and serves `router` on a thread named `name`.
    pub fn start(addr: SocketAddr, name: &str, router: axum::Router) -> io::Result<Self> {
        let listener = TcpListener::bind(addr)?;
        Self::serve(listener, name, router)
    }

    /// Serves `router` on an already bound listener.
    pub fn serve(listener: TcpListener, name: &str, router: axum::Router) -> io::Result<Self> {
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
                    let serving = axum::serve(listener, router).with_graceful_shutdown(async {
                        let _ = stopped.await;
                    });
                    if let Err(e) = serving.await {
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
