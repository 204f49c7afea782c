//! `basalt canary`, after HBase's Canary: is every region (or every region server) answering
//! now? It reads the first row of each region of the tables named (all user tables if none),
//! or with `--regionserver` one region of each live server, or with `--write-sniffing` writes
//! a row into each region of a table of its own (`canary`) spread over the servers. Each read
//! or write gets `--timeout` milliseconds; the regions run in parallel, so a paused server
//! costs one timeout, not one per region. A line per region or server says how long it took
//! or why it failed, and the exit code is HBase's: 0 when everything answered, 4 when
//! something failed, 2 when the cluster could not be reached. `--daemon` checks every
//! `--interval` seconds and serves the latest figures on `/metrics` (Prometheus text) at
//! `--metrics-port`.

use basalt_embedded::prelude::*;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use basalt_embedded::remote::RemoteConfig;
use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Put, RegionSummary, Scan, TableDescriptor, TableName,
};

use crate::connect::ClientArgs;

/// HBase's Canary exit codes.
const INIT_ERROR_EXIT_CODE: u8 = 2;
const ERROR_EXIT_CODE: u8 = 4;

/// Regions read at once (HBase's `hbase.canary.threads.num`, 16).
const THREADS: usize = 16;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
    /// Check one region of each live region server instead of every region (HBase's
    /// -regionserver)
    #[arg(long)]
    regionserver: bool,
    /// Write a row into each region of the canary table instead of reading (HBase's
    /// -writeSniffing); the table is made, with regions on every server, if it does not exist
    #[arg(long)]
    write_sniffing: bool,
    /// The table write sniffing writes to (HBase's -writeTable; HBase's default is
    /// hbase:canary, which Basalt keeps for system tables)
    #[arg(long, default_value = "canary")]
    write_table: String,
    /// Milliseconds each read or write may take before it counts as failed (HBase's -t, which
    /// bounds the whole run; here each region gets it, and they run in parallel)
    #[arg(long, default_value_t = 10_000)]
    timeout: u64,
    /// Run again and again, `--interval` seconds apart, serving the figures on /metrics
    #[arg(long)]
    daemon: bool,
    /// Seconds between runs in daemon mode (HBase's -interval)
    #[arg(long, default_value_t = 60)]
    interval: u64,
    /// Port for /metrics in daemon mode (0 picks a free one)
    #[arg(long, default_value_t = 16050)]
    metrics_port: u16,
    /// Address /metrics listens on
    #[arg(long, default_value = "127.0.0.1")]
    metrics_bind: std::net::IpAddr,
    /// Runs in daemon mode before it stops by itself (none: until killed)
    #[arg(long)]
    runs: Option<u64>,
    /// The tables to check (default: every user table); names are regular expressions with
    /// -e, as HBase's
    #[arg(short = 'e', long = "regex")]
    regex: bool,
    tables: Vec<String>,
}

/// What one region's (or server's) check found.
#[derive(Debug, Clone)]
struct Probe {
    table: String,
    /// The region's encoded name.
    region: String,
    server: String,
    latency: Duration,
    error: Option<String>,
}

/// Reads (or writes) the first row of one region within the connection's timeout.
fn probe(
    client: &Arc<dyn Client>,
    table: &TableName,
    region: &RegionSummary,
    write: bool,
) -> Probe {
    let started = Instant::now();
    let outcome = if write {
        // A row of its own in the region: its start key (the first region's: one byte).
        let row = if region.start_key.is_empty() {
            Bytes::from_static(b"\0")
        } else {
            region.start_key.clone()
        };
        // When it was written, so a reader of the table sees when each region last took one.
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis())
            .to_string();
        client.put(table, &Put::new(row).add_column("f", "q", stamp))
    } else {
        let mut scan = Scan::new()
            .with_start_row(region.start_key.clone())
            .with_cache_blocks(false);
        if !region.end_key.is_empty() {
            scan = scan.with_stop_row(region.end_key.clone());
        }
        scan.limit = Some(1);
        scan.caching = Some(1);
        Arc::clone(client)
            .scan(table, &scan)
            .and_then(|mut rows| rows.next().transpose())
            .map(|_| ())
    };
    Probe {
        table: table.to_string(),
        region: region.encoded_name().to_owned(),
        server: region.server.clone().unwrap_or_else(|| "(none)".into()),
        latency: started.elapsed(),
        error: outcome.err().map(|e| e.to_string()),
    }
}

/// The regions to check: each of the tables', or one per live server.
fn targets(client: &dyn Client, args: &Args) -> Result<Vec<(TableName, RegionSummary)>> {
    let tables: Vec<TableName> = if args.write_sniffing {
        vec![write_table(client, args)?]
    } else {
        let all = client.table_names()?;
        if args.tables.is_empty() {
            all
        } else if args.regex {
            let res = args
                .tables
                .iter()
                .map(|t| regex::Regex::new(&format!("^(?:{t})$")))
                .collect::<Result<Vec<_>, _>>()
                .context("a table regular expression")?;
            all.into_iter()
                .filter(|t| res.iter().any(|r| r.is_match(&t.to_string())))
                .collect()
        } else {
            args.tables
                .iter()
                .map(|t| TableName::parse(t).with_context(|| format!("table {t:?}")))
                .collect::<Result<_>>()?
        }
    };
    let mut out = Vec::new();
    for t in tables {
        for r in client.regions(&t)? {
            out.push((t.clone(), r));
        }
    }
    if args.regionserver {
        // The first region found on each server.
        let mut per_server: BTreeMap<String, (TableName, RegionSummary)> = BTreeMap::new();
        for (t, r) in out {
            if let Some(s) = r.server.clone() {
                per_server.entry(s).or_insert((t, r));
            }
        }
        out = per_server.into_values().collect();
    }
    Ok(out)
}

/// The write-sniffing table, made with two regions per live server if it does not exist.
fn write_table(client: &dyn Client, args: &Args) -> Result<TableName> {
    let name = TableName::parse(&args.write_table)
        .with_context(|| format!("write table {:?}", args.write_table))?;
    if !client.table_exists(&name)? {
        let servers = client.cluster_summary()?.live_servers.max(1);
        let regions = servers * 2;
        let splits: Vec<Bytes> = (1..regions)
            .map(|i| Bytes::from(vec![u8::try_from(i * 256 / regions).unwrap_or(u8::MAX)]))
            .collect();
        client.create_table(
            TableDescriptor::named(&name.to_string())?
                .with_family(ColumnFamilyDescriptor::new("f")),
            &splits,
        )?;
        client.balancer()?;
    }
    Ok(name)
}

/// One run over every target, `THREADS` at a time.
fn run_once(client: &Arc<dyn Client>, args: &Args) -> Result<Vec<Probe>> {
    let work = targets(client.as_ref(), args)?;
    let queue = Mutex::new(work.into_iter());
    let found = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                loop {
                    let next = queue.lock().unwrap_or_else(PoisonError::into_inner).next();
                    let Some((table, region)) = next else { break };
                    let p = probe(client, &table, &region, args.write_sniffing);
                    found.lock().unwrap_or_else(PoisonError::into_inner).push(p);
                }
            });
        }
    });
    let mut found = found.into_inner().unwrap_or_else(PoisonError::into_inner);
    found.sort_by(|a, b| (&a.table, &a.region).cmp(&(&b.table, &b.region)));
    Ok(found)
}

/// Prints one line per probe and a summary; returns how many failed.
fn report(probes: &[Probe], args: &Args) -> usize {
    let verb = if args.write_sniffing {
        "Write to"
    } else {
        "Read from"
    };
    let mut failed = 0;
    for p in probes {
        let ms = p.latency.as_millis();
        match &p.error {
            None => println!(
                "{verb} table {} region {} on regionserver {} in {ms} ms",
                p.table, p.region, p.server
            ),
            Some(e) => {
                failed += 1;
                println!(
                    "{verb} table {} region {} on regionserver {} FAILED after {ms} ms: {e}",
                    p.table, p.region, p.server
                );
            }
        }
    }
    let what = if args.regionserver {
        "servers"
    } else {
        "regions"
    };
    println!("{} {what} checked, {failed} failed", probes.len());
    failed
}

/// The latest figures in Prometheus's text format.
fn metrics(
    probes: &[Probe],
    runs: u64,
    failures_total: &BTreeMap<(String, String, String), u64>,
) -> String {
    let mut out = String::new();
    let label = |p: &Probe| {
        format!(
            "table=\"{}\",region=\"{}\",server=\"{}\"",
            p.table, p.region, p.server
        )
    };
    out.push_str("# HELP basalt_canary_latency_ms How long the last check of a region took.\n");
    out.push_str("# TYPE basalt_canary_latency_ms gauge\n");
    for p in probes {
        let _ = writeln!(
            out,
            "basalt_canary_latency_ms{{{}}} {}",
            label(p),
            p.latency.as_millis()
        );
    }
    out.push_str("# HELP basalt_canary_up Whether the last check of a region answered.\n");
    out.push_str("# TYPE basalt_canary_up gauge\n");
    for p in probes {
        let _ = writeln!(
            out,
            "basalt_canary_up{{{}}} {}",
            label(p),
            u8::from(p.error.is_none())
        );
    }
    out.push_str("# HELP basalt_canary_failures_total Checks of a region that failed.\n");
    out.push_str("# TYPE basalt_canary_failures_total counter\n");
    for ((t, r, s), n) in failures_total {
        let _ = writeln!(
            out,
            "basalt_canary_failures_total{{table=\"{t}\",region=\"{r}\",server=\"{s}\"}} {n}"
        );
    }
    out.push_str("# HELP basalt_canary_runs_total Runs over every region.\n");
    out.push_str("# TYPE basalt_canary_runs_total counter\n");
    let _ = writeln!(out, "basalt_canary_runs_total {runs}");
    let failed = probes.iter().filter(|p| p.error.is_some()).count();
    out.push_str("# HELP basalt_canary_last_run_failures Regions the last run found failing.\n");
    out.push_str("# TYPE basalt_canary_last_run_failures gauge\n");
    let _ = writeln!(out, "basalt_canary_last_run_failures {failed}");
    out
}

fn serve_metrics(args: &Args, page: Arc<Mutex<String>>) -> Result<basalt_net::http::HttpServer> {
    use basalt_net::http::axum;
    let router = axum::Router::new().route(
        "/metrics",
        axum::routing::get(move || {
            let page = Arc::clone(&page);
            async move { page.lock().unwrap_or_else(PoisonError::into_inner).clone() }
        }),
    );
    let addr = SocketAddr::new(args.metrics_bind, args.metrics_port);
    let server = basalt_net::http::HttpServer::start(addr, "basalt-canary", router, None, 100)
        .with_context(|| format!("serving /metrics on {addr}"))?;
    crate::say!("canary metrics listening on {}", server.local_addr());
    Ok(server)
}

pub fn run(args: &Args) -> Result<std::process::ExitCode> {
    let timeout = Duration::from_millis(args.timeout.max(1));
    let opened = args.client.open_tuned(&|c: &mut RemoteConfig| {
        c.operation_timeout = timeout;
        c.rpc_timeout = timeout;
    });
    let (session, place) = match opened {
        Ok(s) => s,
        Err(e) => {
            eprintln!("ERROR: {e:#}");
            return Ok(std::process::ExitCode::from(INIT_ERROR_EXIT_CODE));
        }
    };
    eprintln!("canary on {place}");
    let client = session.client();
    if !args.daemon {
        let probes = run_once(&client, args)?;
        let failed = report(&probes, args);
        session.close()?;
        return Ok(if failed == 0 {
            std::process::ExitCode::SUCCESS
        } else {
            std::process::ExitCode::from(ERROR_EXIT_CODE)
        });
    }
    let page = Arc::new(Mutex::new(metrics(&[], 0, &BTreeMap::new())));
    let server = serve_metrics(args, Arc::clone(&page))?;
    let mut failures_total = BTreeMap::new();
    let mut runs = 0;
    loop {
        let started = Instant::now();
        // A run that cannot even list the regions counts as a failed run, not an exit.
        match run_once(&client, args) {
            Ok(probes) => {
                report(&probes, args);
                for p in probes.iter().filter(|p| p.error.is_some()) {
                    *failures_total
                        .entry((p.table.clone(), p.region.clone(), p.server.clone()))
                        .or_insert(0) += 1;
                }
                runs += 1;
                *page.lock().unwrap_or_else(PoisonError::into_inner) =
                    metrics(&probes, runs, &failures_total);
            }
            Err(e) => eprintln!("canary run failed: {e:#}"),
        }
        if args.runs.is_some_and(|n| runs >= n) {
            break;
        }
        std::thread::sleep(Duration::from_secs(args.interval).saturating_sub(started.elapsed()));
    }
    server.shutdown();
    session.close()?;
    Ok(std::process::ExitCode::SUCCESS)
}
