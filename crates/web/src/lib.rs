//! The info servers: what HBase serves on its master's port 16010 and its region servers'
//! 16030. Web pages (`/master-status`, `/table.jsp?name=`, `/rs-status`), Prometheus metrics
//! (`/metrics`, also at `/prometheus`) and HBase's JMX JSON (`/jmx[?qry=...]`), all rendered on
//! the server, with one stylesheet and no scripts.
//!
//! An info server shows what its process has: a master (the cluster, through a client, and the
//! master's own figures), a region server (its figures), or both (`basalt standalone`). It
//! depends on `basalt-client` only; the processes hand it their figures through
//! [`ServerStatusSource`] and [`MasterStatusSource`]. Names and pages: `docs/design/web.md`.

mod metrics;
mod pages;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use axum::extract::State;
use axum::http::Uri;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use basalt_client::metrics::{MasterStatusSource, ServerStatusSource};
use basalt_client::{Client, TableName};
use basalt_net::http::{HttpServer, axum, blocking};

pub use metrics::matches_query;

/// What an info server shows.
#[derive(Clone, Default)]
pub struct InfoSources {
    /// The cluster, as a client sees it (a master's pages).
    pub client: Option<Arc<dyn Client>>,
    pub master: Option<Arc<dyn MasterStatusSource>>,
    pub server: Option<Arc<dyn ServerStatusSource>>,
}

impl std::fmt::Debug for InfoSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InfoSources")
            .field("client", &self.client.is_some())
            .field("master", &self.master.is_some())
            .field("server", &self.server.is_some())
            .finish()
    }
}

struct Info {
    sources: InfoSources,
    /// The last (time, total requests) the master page saw, for its requests per second.
    last_requests: Mutex<Option<(Instant, u64)>>,
}

/// A running info server.
#[derive(Debug)]
pub struct InfoServer {
    http: HttpServer,
}

impl InfoServer {
    /// Binds `bind` (port 0 picks a free one) and serves the pages of `sources`, over TLS
    /// when given a configuration.
    pub fn start(
        bind: SocketAddr,
        sources: InfoSources,
        tls: Option<Arc<basalt_net::http::rustls::ServerConfig>>,
    ) -> std::io::Result<Self> {
        let info = Arc::new(Info {
            sources,
            last_requests: Mutex::new(None),
        });
        let router = axum::Router::new()
            .route("/", get(root))
            .route("/master-status", get(master_status))
            .route("/table.jsp", get(table))
            .route("/rs-status", get(rs_status))
            .route("/metrics", get(prometheus))
            .route("/prometheus", get(prometheus))
            .route("/jmx", get(jmx))
            .route("/static/basalt.css", get(stylesheet))
            .with_state(info);
        Ok(InfoServer {
            http: HttpServer::start(bind, "info", router, tls, basalt_net::http::MAX_CONNECTIONS)?,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.http.local_addr()
    }

    pub fn shutdown(self) {
        self.http.shutdown();
    }
}

type Shared = State<Arc<Info>>;

/// The first value of query parameter `name`, percent-decoded (`+` is a space).
fn query_param(uri: &Uri, name: &str) -> Option<String> {
    let raw = *basalt_net::http::query_values(uri.query()?, name).first()?;
    let decoded = basalt_net::http::percent_decode(&raw.replace('+', " ")).ok()?;
    Some(String::from_utf8_lossy(&decoded).into_owned())
}

fn html(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

fn not_found(what: String) -> Response {
    (
        StatusCode::NOT_FOUND,
        html(pages::page(
            "Not found",
            &[],
            &format!("<p>{}</p>", pages::esc(&what)),
        )),
    )
        .into_response()
}

fn failed(e: impl std::fmt::Display) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        html(pages::page(
            "Unavailable",
            &[],
            &format!("<p>{}</p>", pages::esc(&e.to_string())),
        )),
    )
        .into_response()
}

/// Runs `render` on the blocking pool (it calls the cluster).
async fn off_thread(render: impl FnOnce() -> Response + Send + 'static) -> Response {
    blocking(render).await.unwrap_or_else(failed)
}

async fn root(State(info): Shared) -> Redirect {
    if info.sources.master.is_some() {
        Redirect::to("/master-status")
    } else {
        Redirect::to("/rs-status")
    }
}

async fn stylesheet() -> Response {
    (
        [(header::CONTENT_TYPE, "text/css")],
        include_str!("basalt.css"),
    )
        .into_response()
}

async fn master_status(State(info): Shared) -> Response {
    off_thread(move || {
        let (Some(client), Some(master)) = (&info.sources.client, &info.sources.master) else {
            return not_found("this server is not a master".into());
        };
        let cluster = match client.cluster_summary() {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let status = master.master_status();
        let total: u64 = cluster
            .servers
            .iter()
            .flat_map(|s| &s.regions)
            .map(|l| l.read_requests + l.write_requests)
            .sum();
        let rate = {
            let mut last = info
                .last_requests
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            // Since the page was last shown; the first time, since the master started.
            let uptime = master.master_metrics().uptime().as_secs_f64();
            let rate = match *last {
                Some((at, before)) if now > at => {
                    total.saturating_sub(before) as f64 / (now - at).as_secs_f64()
                }
                _ if uptime > 0.0 => total as f64 / uptime,
                _ => 0.0,
            };
            *last = Some((now, total));
            rate
        };
        let sizes: std::collections::HashMap<&[u8], u64> = cluster
            .servers
            .iter()
            .flat_map(|s| &s.regions)
            .map(|l| (&l.name[..], l.store_file_size + l.memstore_size))
            .collect();
        let mut tables = Vec::new();
        for name in client.table_names().unwrap_or_default() {
            let regions = client.regions(&name).unwrap_or_default();
            let size = regions
                .iter()
                .map(|r| sizes.get(&r.name[..]).copied().unwrap_or(0))
                .sum();
            let enabled = client.is_table_enabled(&name).unwrap_or(false);
            tables.push((name.to_string(), regions.len(), size, enabled));
        }
        html(
            pages::MasterPage {
                status: &status,
                cluster: &cluster,
                uptime_secs: master.master_metrics().uptime().as_secs(),
                requests_per_second: rate,
                tables: &tables,
                region_server_nav: info.sources.server.is_some(),
            }
            .render(),
        )
    })
    .await
}

async fn table(State(info): Shared, uri: Uri) -> Response {
    let name = query_param(&uri, "name");
    off_thread(move || {
        let Some(client) = &info.sources.client else {
            return not_found("this server is not a master".into());
        };
        let Some(name) = name else {
            return not_found("no table named (table.jsp?name=...)".into());
        };
        let table = match TableName::parse(&name) {
            Ok(t) => t,
            Err(e) => return not_found(e.to_string()),
        };
        let regions = match client.regions(&table) {
            Ok(r) => r,
            Err(e) => return not_found(e.to_string()),
        };
        let cluster = match client.cluster_summary() {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let default_server = client.server_name();
        let rows: Vec<pages::TableRegion<'_>> = regions
            .iter()
            .map(|r| {
                let load = cluster
                    .servers
                    .iter()
                    .flat_map(|s| &s.regions)
                    .find(|l| l.name == r.name);
                pages::TableRegion {
                    summary: r,
                    server: r.server.clone().unwrap_or_else(|| default_server.clone()),
                    load,
                }
            })
            .collect();
        html(pages::table_page(
            &name,
            &rows,
            info.sources.server.is_some(),
        ))
    })
    .await
}

async fn rs_status(State(info): Shared) -> Response {
    off_thread(move || {
        let Some(server) = &info.sources.server else {
            return not_found("this server is not a region server".into());
        };
        html(pages::region_server_page(
            &server.server_status(),
            &server.server_metrics(),
            info.sources.master.is_some(),
        ))
    })
    .await
}

async fn prometheus(State(info): Shared) -> Response {
    off_thread(move || {
        let mut p = metrics::Prometheus::default();
        if let Some(server) = &info.sources.server {
            p.region_server(&server.server_status(), &server.server_metrics());
        }
        if let Some(master) = &info.sources.master {
            p.master(&master.master_status(), &master.master_metrics());
        }
        (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            p.finish(),
        )
            .into_response()
    })
    .await
}

async fn jmx(State(info): Shared, uri: Uri) -> Response {
    let qry = query_param(&uri, "qry");
    off_thread(move || {
        let mut beans = Vec::new();
        if let Some(server) = &info.sources.server {
            let status = server.server_status();
            beans.push(metrics::region_server_bean(
                &status,
                &server.server_metrics(),
            ));
            beans.push(metrics::replication_bean(&status));
        }
        if let Some(master) = &info.sources.master {
            beans.extend(metrics::master_beans(
                &master.master_status(),
                &master.master_metrics(),
            ));
        }
        if let Some(qry) = &qry {
            beans.retain(|b| {
                b.get("name")
                    .and_then(|n| n.as_str())
                    .is_some_and(|n| matches_query(n, qry))
            });
        }
        (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            serde_json::to_string_pretty(&serde_json::json!({ "beans": beans }))
                .unwrap_or_default(),
        )
            .into_response()
    })
    .await
}
