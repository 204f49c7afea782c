//! The info pages, rendered on the server as plain HTML with one small stylesheet: the
//! master's (`/master-status`, `/table.jsp?name=`) and the region server's (`/rs-status`).

use std::fmt::Write as _;

use basalt_client::metrics::{MasterStatus, Op, RegionStatus, ServerMetrics, ServerStatus};
use basalt_client::{BinaryDisplay, ClusterSummary, RegionLoad, RegionSummary};

pub use basalt_net::http::escape_markup as esc;

/// A key as HBase's pages print keys (`Bytes.toStringBinary`).
fn key(bytes: &[u8]) -> String {
    esc(&BinaryDisplay::new(bytes).to_string())
}

/// Percent-encodes a query value.
pub fn url_encode(text: &str) -> String {
    basalt_net::http::percent_encode(text)
}

pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

fn duration(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d {h}h {m}m")
    } else if h > 0 {
        format!("{h}h {m}m {s}s")
    } else {
        format!("{m}m {s}s")
    }
}

/// A whole page around `body`.
pub fn page(title: &str, nav: &[(&str, &str)], body: &str) -> String {
    let mut links = String::new();
    for (href, text) in nav {
        let _ = write!(links, "<a href=\"{href}\">{}</a>", esc(text));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"/static/basalt.css\"></head>\
         <body><header><h1>{title}</h1>{links}</header><main>{body}</main></body></html>\n",
        title = esc(title)
    )
}

fn summary_table(rows: &[(&str, String)]) -> String {
    let mut out = String::from("<table class=\"summary\">");
    for (k, v) in rows {
        let _ = write!(out, "<tr><td>{}</td><td>{v}</td></tr>", esc(k));
    }
    out.push_str("</table>");
    out
}

/// The master's front page.
pub struct MasterPage<'a> {
    pub status: &'a MasterStatus,
    pub cluster: &'a ClusterSummary,
    pub uptime_secs: u64,
    pub requests_per_second: f64,
    /// Each user table with its regions' count and bytes.
    pub tables: &'a [(String, usize, u64, bool)],
    /// Whether this info server also shows a region server (standalone).
    pub region_server_nav: bool,
}

impl MasterPage<'_> {
    pub fn render(&self) -> String {
        let c = self.cluster;
        let mut body = String::new();
        body.push_str("<h2>Cluster</h2>");
        body.push_str(&summary_table(&[
            ("HBase version", esc(basalt_client::HBASE_VERSION)),
            ("Basalt version", esc(env!("CARGO_PKG_VERSION"))),
            (
                "Master",
                format!("<code id=\"master\">{}</code>", esc(&c.master)),
            ),
            ("Uptime", duration(self.uptime_secs)),
            (
                "Region servers",
                format!("<span id=\"servers\">{}</span>", c.live_servers),
            ),
            ("Dead region servers", c.dead.len().to_string()),
            ("Backup masters", c.backup_masters.to_string()),
            (
                "Regions",
                format!("<span id=\"regions\">{}</span>", c.regions),
            ),
            (
                "Regions in transition",
                self.status.regions_in_transition.to_string(),
            ),
            (
                "Requests per second",
                format!("{:.1}", self.requests_per_second),
            ),
            (
                "Balancer",
                if self.status.balancer_on {
                    "on".into()
                } else {
                    "off".into()
                },
            ),
        ]));
        body.push_str(
            "<h2>Region servers</h2><table id=\"region-servers\"><tr><th>Server</th>\
            <th>Regions</th><th>Read requests</th><th>Write requests</th><th>Store files</th>\
            <th>Store file size</th><th>Memstore size</th></tr>",
        );
        for s in &c.servers {
            let sum = |f: fn(&RegionLoad) -> u64| s.regions.iter().map(f).sum::<u64>();
            let _ = write!(
                body,
                "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td></tr>",
                esc(&s.name),
                s.regions.len(),
                sum(|l| l.read_requests),
                sum(|l| l.write_requests),
                sum(|l| u64::from(l.store_files)),
                bytes(sum(|l| l.store_file_size)),
                bytes(sum(|l| l.memstore_size)),
            );
        }
        body.push_str("</table>");
        if !c.dead.is_empty() {
            body.push_str("<h2>Dead region servers</h2><ul>");
            for d in &c.dead {
                let _ = write!(body, "<li><code>{}</code></li>", esc(d));
            }
            body.push_str("</ul>");
        }
        body.push_str(
            "<h2>Tables</h2><table id=\"tables\"><tr><th>Table</th><th>State</th>\
            <th>Regions</th><th>Size</th></tr>",
        );
        for (name, regions, size, enabled) in self.tables {
            let _ = write!(
                body,
                "<tr><td><a href=\"/table.jsp?name={}\">{}</a></td><td>{}</td>\
                 <td class=\"num\">{regions}</td><td class=\"num\">{}</td></tr>",
                url_encode(name),
                esc(name),
                if *enabled { "enabled" } else { "disabled" },
                bytes(*size)
            );
        }
        body.push_str("</table>");
        page("Master: Basalt", &nav(true, self.region_server_nav), &body)
    }
}

/// The navigation links of a page on an info server with these roles.
pub fn nav(master: bool, region_server: bool) -> Vec<(&'static str, &'static str)> {
    let mut links = Vec::new();
    if master {
        links.push(("/master-status", "Master"));
    }
    if region_server {
        links.push(("/rs-status", "Region server"));
    }
    if master {
        links.push(("/procedures.jsp", "Procedures"));
        links.push(("/snapshot.jsp", "Snapshots"));
        links.push(("/zk.jsp", "ZooKeeper"));
        links.push(("/quotas.jsp", "Quotas"));
    }
    if region_server {
        links.push(("/slowlog.jsp", "Slow log"));
    }
    links.push(("/conf", "Configuration"));
    links.push(("/logLevel", "Log levels"));
    links.push(("/stacks", "Threads"));
    links.push(("/dump", "Dump"));
    links.push(("/metrics", "Metrics"));
    links.push(("/jmx", "JMX"));
    links
}

/// One region of a table page.
pub struct TableRegion<'a> {
    pub summary: &'a RegionSummary,
    pub server: String,
    pub load: Option<&'a RegionLoad>,
}

/// A table's page: its regions in key order with where they are and how busy.
pub fn table_page(name: &str, regions: &[TableRegion<'_>], region_server_nav: bool) -> String {
    let max = regions
        .iter()
        .filter_map(|r| r.load)
        .map(|l| l.read_requests + l.write_requests)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut body = format!(
        "<h2>Regions of <span id=\"table-name\">{}</span> ({})</h2>\
         <table id=\"regions\"><tr><th>Name</th><th>Start key</th><th>End key</th>\
         <th>Server</th><th>Store files</th><th>Size</th><th>Memstore</th>\
         <th>Read requests</th><th>Write requests</th><th>Requests</th></tr>",
        esc(name),
        regions.len()
    );
    for r in regions {
        let l = r.load.cloned().unwrap_or_default();
        let reads = l.read_requests;
        let writes = l.write_requests;
        let read_width = 100.0 * reads as f64 / max as f64;
        let write_width = 100.0 * writes as f64 / max as f64;
        let _ = write!(
            body,
            "<tr class=\"region\"><td><code>{}</code></td><td class=\"key\">{}</td>\
             <td class=\"key\">{}</td><td><code>{}</code></td><td class=\"num\">{}</td>\
             <td class=\"num\">{}</td><td class=\"num\">{}</td>\
             <td class=\"num reads\">{reads}</td><td class=\"num writes\">{writes}</td>\
             <td><div class=\"bar\" title=\"{reads} reads, {writes} writes\">\
             <span class=\"read\" style=\"width:{read_width:.1}%;float:left\"></span>\
             <span style=\"width:{write_width:.1}%;float:left\"></span></div></td></tr>",
            esc(r.summary.encoded_name()),
            key(&r.summary.start_key),
            key(&r.summary.end_key),
            esc(&r.server),
            l.store_files,
            bytes(l.store_file_size),
            bytes(l.memstore_size),
        );
    }
    body.push_str(
        "</table><p class=\"muted\">Each bar is a region's share of the busiest region's \
         requests (blue reads, orange writes), in key order: a hot spot stands out.</p>",
    );
    page(
        &format!("Table: {name}"),
        &nav(true, region_server_nav),
        &body,
    )
}

/// The region server's page.
pub fn region_server_page(s: &ServerStatus, m: &ServerMetrics, master_nav: bool) -> String {
    let memstore: u64 = s.regions.iter().map(|r| r.memstore_bytes).sum();
    let lookups = s.block_cache_hits + s.block_cache_misses;
    let mut body = String::from("<h2>Server</h2>");
    body.push_str(&summary_table(&[
        (
            "Server",
            format!("<code id=\"server-name\">{}</code>", esc(&s.name)),
        ),
        ("Uptime", duration(m.uptime().as_secs())),
        (
            "Regions",
            format!("<span id=\"region-count\">{}</span>", s.regions.len()),
        ),
        (
            "Memstore",
            format!("<span id=\"memstore\">{}</span>", bytes(memstore)),
        ),
        (
            "Store files",
            format!(
                "{} ({})",
                s.regions.iter().map(|r| r.store_files).sum::<usize>(),
                bytes(s.regions.iter().map(|r| r.store_file_bytes).sum())
            ),
        ),
        ("Open scanners", s.open_scanners.to_string()),
    ]));
    body.push_str("<h2>Block cache</h2>");
    body.push_str(&summary_table(&[
        (
            "Size",
            format!(
                "{} of {}",
                bytes(s.block_cache_bytes),
                bytes(s.block_cache_capacity)
            ),
        ),
        ("Blocks", s.block_cache_blocks.to_string()),
        (
            "Hits",
            format!("<span id=\"cache-hits\">{}</span>", s.block_cache_hits),
        ),
        ("Misses", s.block_cache_misses.to_string()),
        ("Evictions", s.block_cache_evictions.to_string()),
        (
            "Hit ratio",
            if lookups == 0 {
                "-".into()
            } else {
                format!("{:.1}%", 100.0 * s.block_cache_hits as f64 / lookups as f64)
            },
        ),
    ]));
    let syncs = m.wal_syncs.snapshot();
    body.push_str("<h2>Write-ahead log</h2>");
    body.push_str(&summary_table(&[
        ("Segments", s.wal_files.to_string()),
        (
            "Appends",
            format!("<span id=\"wal-appends\">{}</span>", m.wal_appends.get()),
        ),
        ("Bytes appended", bytes(m.wal_append_bytes.get())),
        ("Group writes", syncs.count.to_string()),
        (
            "Mean write time",
            format!("{:.3} ms", syncs.mean_micros() / 1000.0),
        ),
    ]));
    body.push_str(
        "<h2>Requests</h2><table id=\"ops\"><tr><th>Operation</th><th>Count</th>\
        <th>Mean</th><th>99th percentile (at most)</th></tr>",
    );
    for op in Op::ALL {
        let h = m.op(op).snapshot();
        let _ = write!(
            body,
            "<tr><td>{}</td><td class=\"num\" id=\"op-{}\">{}</td><td class=\"num\">{:.3} ms</td>\
             <td class=\"num\">{:.3} ms</td></tr>",
            op.jmx(),
            op.label(),
            h.count,
            h.mean_micros() / 1000.0,
            h.quantile_micros(0.99) as f64 / 1000.0
        );
    }
    body.push_str("</table>");
    body.push_str("<h2>Background work</h2>");
    body.push_str(&summary_table(&[
        ("Flush queue", s.flush_queue.to_string()),
        ("Compaction queue", s.compaction_queue.to_string()),
        ("Flushes", m.flushes.count().to_string()),
        ("Compactions", m.compactions.count().to_string()),
        ("Splits", m.splits.get().to_string()),
        ("Merges", m.merges.get().to_string()),
    ]));
    if s.tasks.is_empty() {
        body.push_str(
            "<p class=\"muted\" id=\"tasks\">No flush, compaction, split or merge is running.</p>",
        );
    } else {
        body.push_str("<table id=\"tasks\"><tr><th>Kind</th><th>What</th><th>Started (ms since the epoch)</th></tr>");
        for t in &s.tasks {
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                t.kind,
                esc(&t.description),
                t.started_ms
            );
        }
        body.push_str("</table>");
    }
    replication_section(&mut body, s);
    body.push_str(
        "<h2>Regions</h2><table id=\"rs-regions\"><tr><th>Region</th><th>Table</th>\
        <th>Start key</th><th>End key</th><th>Store files</th><th>Size</th><th>Memstore</th>\
        <th>Read requests</th><th>Write requests</th></tr>",
    );
    for r in &s.regions {
        body.push_str(&region_row(r, master_nav));
    }
    body.push_str("</table>");
    coprocessors_section(&mut body, s);
    page(
        &format!("Region server: {}", s.name),
        &nav(master_nav, true),
        &body,
    )
}

/// The coprocessor modules on this server's regions, and whether each still runs there.
fn coprocessors_section(body: &mut String, s: &ServerStatus) {
    let attached: Vec<_> = s
        .regions
        .iter()
        .flat_map(|r| r.coprocessors.iter().map(move |c| (r, c)))
        .collect();
    if attached.is_empty() {
        return;
    }
    body.push_str(
        "<h2>Coprocessors</h2><table id=\"coprocessors\"><tr><th>Region</th><th>Table</th>\
         <th>Module</th><th>State</th></tr>",
    );
    for (r, c) in attached {
        let state = if c.loaded {
            "running"
        } else {
            "unloaded (a trap or an exceeded limit; back when the region reopens)"
        };
        body.push_str(&format!(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"state\">{state}</td></tr>",
            esc(&r.encoded_name),
            esc(&r.table),
            esc(&c.module)
        ));
    }
    body.push_str("</table>");
}

/// The replication queues this server ships, and what peers replicated here.
fn replication_section(body: &mut String, s: &ServerStatus) {
    body.push_str("<h2>Replication</h2>");
    if s.replication_sources.is_empty() {
        body.push_str("<p class=\"muted\" id=\"replication-sources\">No replication peer.</p>");
    } else {
        body.push_str(
            "<table id=\"replication-sources\"><tr><th>Peer</th><th>Queue</th><th>State</th>\
             <th>Age of last shipped op</th><th>Log queue</th><th>Shipped ops</th>\
             <th>Shipped bytes</th><th>Failed batches</th><th>Last error</th></tr>",
        );
        for r in &s.replication_sources {
            let state = match (r.running, r.recovered) {
                (false, _) => "disabled",
                (true, true) => "shipping (claimed)",
                (true, false) => "shipping",
            };
            let _ = write!(
                body,
                "<tr><td>{}</td><td>{}</td><td>{state}</td><td class=\"num\">{} ms</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td>{}</td></tr>",
                esc(&r.peer),
                esc(&r.queue),
                r.age_of_last_shipped_op_ms,
                r.size_of_log_queue,
                r.shipped_ops,
                bytes(r.shipped_bytes),
                r.failed_batches,
                esc(r.last_error.as_deref().unwrap_or("")),
            );
        }
        body.push_str("</table>");
    }
    let sink = &s.replication_sink;
    body.push_str(&summary_table(&[
        ("Edits applied from peers", sink.applied_ops.to_string()),
        ("Batches applied", sink.applied_batches.to_string()),
        ("Batches failed", sink.failed_batches.to_string()),
        (
            "Age of last applied op",
            format!("{} ms", sink.age_of_last_applied_op_ms),
        ),
    ]));
}

fn region_row(r: &RegionStatus, link_tables: bool) -> String {
    let table = if link_tables {
        format!(
            "<a href=\"/table.jsp?name={}\">{}</a>",
            url_encode(&r.table),
            esc(&r.table)
        )
    } else {
        esc(&r.table)
    };
    format!(
        "<tr><td><code>{}</code></td><td>{table}</td><td class=\"key\">{}</td>\
         <td class=\"key\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
        esc(&r.encoded_name),
        key(&r.start_key),
        key(&r.end_key),
        r.store_files,
        bytes(r.store_file_bytes),
        bytes(r.memstore_bytes),
        r.read_requests,
        r.write_requests,
    )
}
