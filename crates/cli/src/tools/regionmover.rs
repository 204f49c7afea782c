//! `basalt regionmover unload|load HOST:PORT` (HBase's RegionMover) and the graceful stop built
//! on it (`basalt regionserver stop --graceful`, HBase's graceful_stop.sh). Unloading moves
//! every user region of a server to the other servers in service, in turn, and writes the
//! regions' encoded names to a file; loading moves the regions the file names back onto the
//! server (by then perhaps restarted, with a new start code). With `--ack`, each move is
//! checked: the region is served where it was sent (meta says so, and a read of its first row
//! answers there). `hbase:meta` is not moved: it moves when its server stops.

use basalt_embedded::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use basalt_embedded::{Client, Get, ServerName, TableName};

use crate::connect::ClientArgs;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
    /// Check that each region serves where it was moved before moving the next
    #[arg(long)]
    ack: bool,
    /// Where the unloaded regions are listed (default: /tmp/basalt-regionmover-HOST:PORT)
    #[arg(long)]
    filename: Option<PathBuf>,
    /// `unload` or `load`
    #[arg(value_parser = ["unload", "load"])]
    operation: String,
    /// The region server, `HOST:PORT` (or `host,port,startcode`)
    server: String,
}

fn default_file(server: &str) -> PathBuf {
    std::env::temp_dir().join(format!("basalt-regionmover-{}", host_port(server)))
}

/// `host:port` of `host:port` or `host,port,startcode`.
fn host_port(server: &str) -> String {
    ServerName::host_port_of(server)
}

/// The live server at `server` (`host:port`), by its full name; None if it is not live.
pub fn live_name(client: &dyn Client, server: &str) -> Result<Option<String>> {
    let want = host_port(server);
    Ok(client
        .cluster_summary()?
        .servers
        .iter()
        .map(|s| s.name.clone())
        .find(|n| host_port(n) == want))
}

/// The user regions a server holds, as (table, full region name, encoded name).
fn regions_on(client: &dyn Client, name: &str) -> Result<Vec<(TableName, Vec<u8>, String)>> {
    let mut out = Vec::new();
    for table in client.table_names()? {
        for r in client.regions(&table)? {
            if r.server.as_deref() == Some(name) {
                out.push((table.clone(), r.name.to_vec(), r.encoded_name().to_owned()));
            }
        }
    }
    Ok(out)
}

/// Waits (30 s at most) until `region` of `table` is served by `server`: meta says so and a
/// read of its first row answers.
fn acknowledge(client: &dyn Client, table: &TableName, region: &[u8], server: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let placed = client
            .regions(table)?
            .into_iter()
            .find(|r| r.name[..] == *region);
        let seen = match &placed {
            Some(r) if r.server.as_deref() == Some(server) => {
                // The first region starts at the empty row, which no Get can name.
                let row = if r.start_key.is_empty() {
                    basalt_embedded::Bytes::from_static(b"\0")
                } else {
                    r.start_key.clone()
                };
                match client.get(table, &Get::new(row)) {
                    Ok(_) => return Ok(()),
                    Err(e) => format!("a read there failed: {e}"),
                }
            }
            Some(r) => format!(
                "meta places it on {}",
                r.server.as_deref().unwrap_or("no server")
            ),
            None => "meta does not list it".into(),
        };
        if Instant::now() >= deadline {
            bail!(
                "region {} is not serving on {server} 30 s after its move ({seen})",
                String::from_utf8_lossy(region)
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Moves every user region off `server` to the other servers in service, in turn; returns
/// the encoded names moved, also written to `file`.
pub fn unload(client: &dyn Client, server: &str, ack: bool, file: &Path) -> Result<Vec<String>> {
    let name = live_name(client, server)?
        .with_context(|| format!("{server} is not a live region server"))?;
    let out_of_service = client.decommissioned_region_servers()?;
    let targets: Vec<String> = client
        .cluster_summary()?
        .servers
        .iter()
        .map(|s| s.name.clone())
        .filter(|n| *n != name && !out_of_service.contains(n))
        .collect();
    if targets.is_empty() {
        bail!("no other region server in service to take {server}'s regions");
    }
    let regions = regions_on(client, &name)?;
    let started = Instant::now();
    let mut moved = Vec::new();
    for (i, (table, region, encoded)) in regions.iter().enumerate() {
        let to = &targets[i % targets.len()];
        client
            .move_region(region, Some(to))
            .with_context(|| format!("moving {encoded} to {to}"))?;
        if ack {
            acknowledge(client, table, region, to)?;
        }
        moved.push(encoded.clone());
    }
    std::fs::write(file, moved.join("\n") + "\n")
        .with_context(|| format!("writing {}", file.display()))?;
    crate::say!(
        "Moved {} regions off {server} in {:.1} s; listed in {}",
        moved.len(),
        started.elapsed().as_secs_f64(),
        file.display()
    );
    Ok(moved)
}

/// Moves the regions `file` lists back onto `server`.
pub fn load(client: &dyn Client, server: &str, ack: bool, file: &Path) -> Result<usize> {
    let name = live_name(client, server)?
        .with_context(|| format!("{server} is not a live region server"))?;
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let started = Instant::now();
    let mut moved = 0;
    for encoded in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match client.move_region(encoded.as_bytes(), Some(&name)) {
            Ok(()) => moved += 1,
            // Split, merged or dropped since: nothing to bring back.
            Err(e) if e.kind() == basalt_embedded::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("moving {encoded} to {name}")),
        }
        if ack {
            let table = client.table_names()?.into_iter().find(|t| {
                client
                    .regions(t)
                    .is_ok_and(|rs| rs.iter().any(|r| r.encoded_name() == encoded))
            });
            if let Some(table) = table {
                let region = client
                    .regions(&table)?
                    .into_iter()
                    .find(|r| r.encoded_name() == encoded)
                    .map(|r| r.name.to_vec())
                    .unwrap_or_default();
                acknowledge(client, &table, &region, &name)?;
            }
        }
    }
    crate::say!(
        "Moved {moved} regions onto {server} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(moved)
}

pub fn run(args: &Args) -> Result<()> {
    let (session, _) = args.client.open()?;
    let client: Arc<dyn Client> = session.logical_client();
    let file = args
        .filename
        .clone()
        .unwrap_or_else(|| default_file(&args.server));
    match args.operation.as_str() {
        "unload" => unload(client.as_ref(), &args.server, args.ack, &file).map(|_| ())?,
        _ => load(client.as_ref(), &args.server, args.ack, &file).map(|_| ())?,
    }
    session.close()
}

/// `basalt regionserver stop [--graceful] HOST:PORT`.
#[derive(Debug, clap::Args)]
pub struct StopArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// Move the server's regions to the others first (HBase's graceful_stop), with the
    /// balancer off meanwhile so it moves none back
    #[arg(long)]
    graceful: bool,
    /// With --graceful: check each moved region serves before moving the next
    #[arg(long)]
    ack: bool,
    /// With --graceful: where the moved regions are listed, for `regionmover load`
    #[arg(long)]
    filename: Option<PathBuf>,
    /// The region server, `HOST:PORT`
    server: String,
}

/// Stops a region server, after unloading it with `--graceful`; waits (60 s at most) until the
/// cluster no longer lists it. The balancer is switched off while it is unloaded and stopped,
/// and back as it was after.
pub fn stop(args: &StopArgs) -> Result<()> {
    let (session, _) = args.client.open()?;
    let client: Arc<dyn Client> = session.logical_client();
    let name = live_name(client.as_ref(), &args.server)?
        .with_context(|| format!("{} is not a live region server", args.server))?;
    let balancer_was = if args.graceful {
        let was = client.balance_switch(false)?;
        let file = args
            .filename
            .clone()
            .unwrap_or_else(|| default_file(&args.server));
        if let Err(e) = unload(client.as_ref(), &args.server, args.ack, &file) {
            client.balance_switch(was)?;
            return Err(e);
        }
        Some(was)
    } else {
        None
    };
    let stopped = client.stop_region_server(&args.server);
    let deadline = Instant::now() + Duration::from_secs(60);
    while stopped.is_ok() && live_name(client.as_ref(), &name)?.as_deref() == Some(name.as_str()) {
        if Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    if let Some(was) = balancer_was {
        client.balance_switch(was)?;
    }
    stopped.with_context(|| format!("stopping {}", args.server))?;
    crate::say!("stopped {name}");
    session.close()
}
