//! The info servers: what HBase serves on its master's port 16010 and its region servers'
//! 16030. Web pages (`/master-status`, `/table.jsp?name=`, `/rs-status`), Prometheus metrics
//! (`/metrics`, also at `/prometheus`) and HBase's JMX JSON (`/jmx[?qry=...]`), all rendered on
//! the server, with one stylesheet and no scripts.
//!
//! An info server shows what its process has: a master (the cluster, through a client, and the
//! master's own figures), a region server (its figures), or both (`basalt standalone`). It
//! depends on `basalt-client` only; the processes hand it their figures through
//! [`ServerStatusSource`] and [`MasterStatusSource`]. Names and pages: `docs/design/web.md`.

mod history;
mod metrics;
mod ops;
mod pages;

use basalt_client::prelude::*;
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
    /// The process's settings (`/conf`).
    pub settings: Option<Arc<basalt_client::site::LiveSettings>>,
    /// The region server's slow log (`/slowlog.jsp`).
    pub slow_log: Option<Arc<basalt_client::slowlog::SlowLog>>,
}

impl std::fmt::Debug for InfoSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InfoSources")
            .field("client", &self.client.is_some())
            .field("master", &self.master.is_some())
            .field("server", &self.server.is_some())
            .field("settings", &self.settings.is_some())
            .field("slow_log", &self.slow_log.is_some())
            .finish()
    }
}

struct Info {
    sources: InfoSources,
    /// The last (time, total requests) the master page saw, for its requests per second.
    last_requests: Mutex<Option<(Instant, u64)>>,
    /// The last hour of each server's figures, for the charts.
    history: history::History,
}

impl Info {
    fn nav(&self) -> Vec<(&'static str, &'static str)> {
        pages::nav(self.sources.master.is_some(), self.sources.server.is_some())
    }

    /// Each server's figures now: this region server's operations and their time, or (a
    /// master) each live server's requests from the cluster status.
    fn sample(&self) -> Vec<(String, history::Sample)> {
        let at = Instant::now();
        let mut out = Vec::new();
        if let Some(server) = &self.sources.server {
            let m = server.server_metrics();
            let (mut requests, mut micros) = (0u64, 0f64);
            for op in basalt_client::metrics::Op::ALL {
                let h = m.op(op).snapshot();
                requests += h.count;
                micros += h.sum_micros as f64;
            }
            out.push((
                server.server_status().name,
                history::Sample {
                    at,
                    requests,
                    micros: Some(micros),
                },
            ));
        } else if let Some(client) = &self.sources.client
            && let Ok(cluster) = client.cluster_summary()
        {
            for s in cluster.servers {
                let requests = s
                    .regions
                    .iter()
                    .map(|r| r.read_requests + r.write_requests)
                    .sum();
                out.push((
                    s.name,
                    history::Sample {
                        at,
                        requests,
                        micros: None,
                    },
                ));
            }
        }
        out
    }

    /// The charts of the last hour, as a page section.
    fn charts(&self) -> String {
        let now = self.sample();
        let mut html = String::from("<h2>The last hour</h2><div class=\"charts\" id=\"charts\">");
        for (i, (server, (rate, latency))) in self.history.series(&now).iter().enumerate() {
            html.push_str(&history::chart(
                &format!("chart-requests-{i}"),
                &format!("{server}: requests"),
                "per second",
                rate,
            ));
            if !latency.is_empty() || self.sources.server.is_some() {
                html.push_str(&history::chart(
                    &format!("chart-latency-{i}"),
                    &format!("{server}: mean latency"),
                    "ms",
                    latency,
                ));
            }
        }
        html.push_str("</div>");
        html
    }
}

/// Puts `section` at the end of a page's main part.
fn with_section(page: String, section: &str) -> String {
    page.replacen("</main>", &format!("{section}</main>"), 1)
}

/// A running info server.
#[derive(Debug)]
pub struct InfoServer {
    http: HttpServer,
    stop: Arc<std::sync::atomic::AtomicBool>,
    sampler: Option<std::thread::JoinHandle<()>>,
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
            history: history::History::default(),
        });
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let sampler = {
            let (info, stop) = (Arc::downgrade(&info), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("info-sampler".into())
                .spawn(move || sample_until(&info, &stop))?
        };
        let router = axum::Router::new()
            .route("/", get(root))
            .route("/master-status", get(master_status))
            .route("/table.jsp", get(table))
            .route("/rs-status", get(rs_status))
            .route("/metrics", get(prometheus))
            .route("/prometheus", get(prometheus))
            .route("/jmx", get(jmx))
            .route("/procedures.jsp", get(ops::procedures))
            .route("/snapshot.jsp", get(ops::snapshots))
            .route("/zk.jsp", get(ops::zk))
            .route("/quotas.jsp", get(ops::quotas))
            .route("/slowlog.jsp", get(ops::slowlog))
            .route("/conf", get(ops::conf))
            .route("/logLevel", get(ops::log_level))
            .route("/stacks", get(ops::stacks))
            .route("/dump", get(ops::dump))
            .route("/static/basalt.css", get(stylesheet))
            .with_state(info);
        Ok(InfoServer {
            http: HttpServer::start(bind, "info", router, tls, basalt_net::http::MAX_CONNECTIONS)?,
            stop,
            sampler: Some(sampler),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.http.local_addr()
    }

    pub fn shutdown(mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        if let Some(s) = self.sampler.take() {
            let _ = s.join();
        }
        self.http.shutdown();
    }
}

/// Samples the figures every [`history::SAMPLE_EVERY`] until told to stop (or the info
/// server is gone), looking at `stop` a few times a second.
fn sample_until(info: &std::sync::Weak<Info>, stop: &std::sync::atomic::AtomicBool) {
    let tick = std::time::Duration::from_millis(200);
    let mut next = Instant::now();
    while !stop.load(std::sync::atomic::Ordering::Acquire) {
        if Instant::now() >= next {
            let Some(info) = info.upgrade() else { return };
            for (server, sample) in info.sample() {
                info.history.record(&server, sample);
            }
            next = Instant::now() + history::SAMPLE_EVERY;
        }
        std::thread::sleep(tick);
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
        let page = pages::MasterPage {
            status: &status,
            cluster: &cluster,
            uptime_secs: master.master_metrics().uptime().as_secs(),
            requests_per_second: rate,
            tables: &tables,
            region_server_nav: info.sources.server.is_some(),
        }
        .render();
        // A standalone server's charts are on its region server page.
        if info.sources.server.is_some() {
            html(page)
        } else {
            html(with_section(page, &info.charts()))
        }
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
        let page = pages::region_server_page(
            &server.server_status(),
            &server.server_metrics(),
            info.sources.master.is_some(),
        );
        html(with_section(page, &info.charts()))
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
