//! `basalt copytable` and `basalt rowcounter`: HBase's CopyTable and RowCounter, with their
//! `--name=value` options, as streaming clients.

use basalt_embedded::prelude::*;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use basalt_embedded::{Bytes, Client, Durability, Scan};

use super::{BatchWriter, Tally, family_renames, progress, table_name};
use crate::connect::ClientArgs;

#[derive(Debug, clap::Args)]
pub struct CopyTableArgs {
    #[command(flatten)]
    client: ClientArgs,
    #[command(flatten)]
    time: super::TimeArgs,
    /// Versions of each cell to copy [default: 1]
    #[arg(long)]
    versions: Option<u32>,
    /// The first row to copy
    #[arg(long = "startrow")]
    start_row: Option<String>,
    /// The row to stop before
    #[arg(long = "stoprow")]
    stop_row: Option<String>,
    /// The table to copy into [default: the source's name, on the peer]
    #[arg(long = "new.name")]
    new_name: Option<String>,
    /// Another server to copy to, its RPC `HOST:PORT` (HBase's takes a ZooKeeper quorum)
    #[arg(long = "peer.adr")]
    peer: Option<String>,
    /// Families to copy, `a,b`, or renamed on the way, `old:new,...`
    #[arg(long)]
    families: Option<String>,
    /// Copy delete markers and deleted cells too (a raw scan)
    #[arg(long = "all.cells")]
    all_cells: bool,
    /// Rows read per scan call
    #[arg(long, default_value_t = 500)]
    caching: usize,
    /// The table to copy
    table: String,
}

pub fn copy_table(args: &CopyTableArgs) -> Result<()> {
    let source = table_name(&args.table)?;
    let target = table_name(args.new_name.as_deref().unwrap_or(&args.table))?;
    if args.peer.is_none() && target == source {
        bail!("copying {source} onto itself: give --new.name or --peer.adr");
    }
    let renames = match &args.families {
        Some(spec) => family_renames(spec)?,
        None => Vec::new(),
    };
    let mut scan = Scan::new();
    scan.time_range = args.time.range()?;
    scan.max_versions = args.versions.unwrap_or(1).max(1);
    scan.raw = args.all_cells;
    scan.caching = Some(args.caching.max(1));
    scan.cache_blocks = false;
    if let Some(r) = &args.start_row {
        scan.start_row = Bytes::copy_from_slice(r.as_bytes());
    }
    if let Some(r) = &args.stop_row {
        scan.stop_row = Bytes::copy_from_slice(r.as_bytes());
    }
    for (from, _) in &renames {
        scan = scan.add_family(from.clone());
    }
    let (session, place) = args.client.open()?;
    let client = session.logical_client();
    let (peer_session, target_client): (Option<crate::connect::Session>, Arc<dyn Client>) =
        match &args.peer {
            Some(peer) => {
                let (conn, _) = crate::connect::remote_with(
                    Some(peer),
                    None,
                    args.client.user.as_deref(),
                    &args.client.tls,
                    args.client.kerberos_principal.as_deref(),
                )?;
                let s = crate::connect::Session::Remote(Arc::new(conn));
                let c = s.logical_client();
                (Some(s), c)
            }
            None => (None, Arc::clone(&client)),
        };
    if !target_client.table_exists(&target)? {
        bail!("the target table {target} does not exist: create it first");
    }
    let started = Instant::now();
    let bar = progress(None, &format!("copying {source} to {target}"));
    let mut tally = Tally::default();
    let mut writer = BatchWriter::new(target_client, target.clone());
    let rows = Arc::clone(&client)
        .scan(&source, &scan)
        .with_context(|| format!("scanning {source}"))?;
    for row in rows {
        let row = row.with_context(|| format!("scanning {source}"))?;
        let families = super::Families {
            renames: &renames,
            keep_unlisted: false,
        };
        let ops = super::mutations(&row.row, &row.cells, &families, Durability::UseDefault);
        let bytes = row.cells.iter().map(|c| c.serialized_size()).sum();
        tally.add_row(&row.cells);
        writer.add(ops, bytes)?;
        bar.inc(1);
    }
    writer.flush()?;
    bar.finish_and_clear();
    crate::say!(
        "Copied {source} on {place} to {target}{}: {}",
        args.peer
            .as_deref()
            .map(|p| format!(" on {p}"))
            .unwrap_or_default(),
        tally.summary(started)
    );
    if let Some(s) = peer_session {
        s.close()?;
    }
    session.close()
}

#[derive(Debug, clap::Args)]
pub struct RowCounterArgs {
    #[command(flatten)]
    client: ClientArgs,
    #[command(flatten)]
    time: super::TimeArgs,
    /// Row ranges to count, `[start],[stop];[start],[stop]...`
    #[arg(long)]
    range: Option<String>,
    /// The table to count
    table: String,
    /// Only rows with one of these columns, `family` or `family:qualifier`
    columns: Vec<String>,
}

/// `a,b;c,d` (HBase's `--range`): each a start row and a stop row, either empty.
fn ranges(spec: &str) -> Result<Vec<(Bytes, Bytes)>> {
    spec.split(';')
        .filter(|r| !r.is_empty())
        .map(|r| {
            let (start, stop) = r
                .split_once(',')
                .with_context(|| format!("--range {r:?}: expected START,STOP"))?;
            if !stop.is_empty() && start >= stop {
                bail!("--range {r:?}: the start row is not before the stop row");
            }
            Ok((
                Bytes::copy_from_slice(start.as_bytes()),
                Bytes::copy_from_slice(stop.as_bytes()),
            ))
        })
        .collect()
}

pub fn row_counter(args: &RowCounterArgs) -> Result<()> {
    let table = table_name(&args.table)?;
    let mut scan = Scan::new();
    scan.time_range = args.time.range()?;
    scan.caching = Some(1000);
    scan.cache_blocks = false;
    for c in &args.columns {
        scan = match c.split_once(':') {
            Some((f, q)) => scan.add_column(
                Bytes::copy_from_slice(f.as_bytes()),
                Bytes::copy_from_slice(q.as_bytes()),
            ),
            None => scan.add_family(Bytes::copy_from_slice(c.as_bytes())),
        };
    }
    if args.columns.is_empty() {
        // Only whether a row exists: its first cell, as HBase's FirstKeyOnlyFilter.
        scan = scan.with_filter(basalt_common::filter::FilterSpec::FirstKeyOnly);
    }
    let ranges = match &args.range {
        Some(spec) => ranges(spec)?,
        None => vec![(Bytes::new(), Bytes::new())],
    };
    let (session, place) = args.client.open()?;
    let client = session.logical_client();
    let started = Instant::now();
    let bar = progress(None, &format!("counting {table}"));
    let mut rows = 0u64;
    for (start, stop) in ranges {
        let mut s = scan.clone();
        s.start_row = start;
        s.stop_row = stop;
        for row in Arc::clone(&client)
            .scan(&table, &s)
            .with_context(|| format!("scanning {table}"))?
        {
            row.with_context(|| format!("scanning {table}"))?;
            rows += 1;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    crate::say!(
        "Counted {table} on {place} in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    crate::say!("ROWS={rows}");
    session.close()
}
