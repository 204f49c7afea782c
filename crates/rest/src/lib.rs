//! HBase's REST gateway ("Stargate") onto Basalt's client API: the same paths and
//! representations as HBase's REST server (JSON, XML, protobuf, raw values), so REST clients
//! written for HBase work unchanged. Like `basalt thrift`, it is a client of the cluster (or
//! of the embedded engine in `basalt standalone`).
//!
//! The paths, representations and status codes are in `docs/design/rest.md`.

mod aggregate;
mod cellset;
mod filter;
mod media;
mod models;
pub mod params;
mod pb;
mod routes;
mod rows;
mod rowspec;
mod scanners;
mod schema;
mod xml;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use basalt_client::Client;
use basalt_net::Leases;
use basalt_net::http::HttpServer;

pub use filter::parse_json_filter;
pub use media::{Media, RestError};

/// How a REST server is started.
#[derive(Debug, Clone)]
pub struct RestConfig {
    pub bind: SocketAddr,
    /// Refuse every write with 403 (HBase's `hbase.rest.readonly`).
    pub read_only: bool,
    /// Scanners idle this long are closed.
    pub scanner_lease: Duration,
    /// The largest request body accepted, in bytes.
    pub max_body: usize,
    /// `host,port,startcode` reported as a region's location when the client does not know it
    /// (the one server of a standalone process).
    pub server_name: String,
    /// Serve HTTPS with this configuration (`basalt_net::http::tls_config`); plain HTTP without.
    pub tls: Option<std::sync::Arc<basalt_net::http::rustls::ServerConfig>>,
    /// Connections open at once; more wait to be accepted until one closes.
    pub max_connections: usize,
}

impl Default for RestConfig {
    fn default() -> Self {
        RestConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 8080)),
            read_only: false,
            scanner_lease: Duration::from_secs(60),
            max_body: 64 << 20,
            server_name: "localhost,16020,0".into(),
            tls: None,
            max_connections: basalt_net::http::MAX_CONNECTIONS,
        }
    }
}

/// What every request shares.
struct Rest {
    client: Arc<dyn Client>,
    config: RestConfig,
    scanners: Leases<String, scanners::RestScanner>,
    next_scanner: AtomicU64,
}

impl std::fmt::Debug for Rest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rest")
            .field("config", &self.config)
            .field("scanners", &self.scanners.len())
            .finish()
    }
}

/// A running REST server.
#[derive(Debug)]
pub struct RestServer {
    http: HttpServer,
    rest: Arc<Rest>,
    stop_expiry: Arc<std::sync::atomic::AtomicBool>,
    expiry: Option<std::thread::JoinHandle<()>>,
}

impl RestServer {
    /// Binds `config.bind` (port 0 picks a free one) and serves `client`.
    pub fn start(client: Arc<dyn Client>, config: RestConfig) -> std::io::Result<Self> {
        let rest = Arc::new(Rest {
            client,
            scanners: Leases::new(config.scanner_lease),
            next_scanner: AtomicU64::new(1),
            config,
        });
        let router = routes::router(Arc::clone(&rest));
        let http = HttpServer::start(
            rest.config.bind,
            "rest",
            router,
            rest.config.tls.clone(),
            rest.config.max_connections,
        )?;
        let stop_expiry = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let expiry = {
            let rest = Arc::clone(&rest);
            let stop = Arc::clone(&stop_expiry);
            std::thread::Builder::new()
                .name("rest-scanner-leases".into())
                .spawn(move || {
                    let tick = Duration::from_millis(200);
                    let mut waited = Duration::ZERO;
                    while !stop.load(std::sync::atomic::Ordering::Acquire) {
                        std::thread::sleep(tick);
                        waited += tick;
                        if waited >= Duration::from_secs(1) {
                            rest.scanners.expire();
                            waited = Duration::ZERO;
                        }
                    }
                })?
        };
        Ok(RestServer {
            http,
            rest,
            stop_expiry,
            expiry: Some(expiry),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.http.local_addr()
    }

    /// Scanners open now.
    pub fn open_scanners(&self) -> usize {
        self.rest.scanners.len()
    }

    /// Stops serving (requests in flight finish) and closes every scanner.
    pub fn shutdown(mut self) {
        self.stop_expiry
            .store(true, std::sync::atomic::Ordering::Release);
        if let Some(t) = self.expiry.take() {
            let _ = t.join();
        }
        self.rest.scanners.clear();
        self.http.shutdown();
    }
}
