//! `basalt verifyrep PEER TABLE` (HBase's VerifyReplication, run as a streaming client): scans
//! the table here and at the replication peer side by side, in row order, and compares each
//! row's cells in the families that replicate to that peer. Prints HBase's counters: GOODROWS,
//! BADROWS, and of the bad ones, ONLY_IN_SOURCE_TABLE_ROWS, ONLY_IN_PEER_TABLE_ROWS and
//! CONTENT_DIFFERENT_ROWS; `--verbose` names each bad row.

use basalt_embedded::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Bytes, Client, RowResult, Scan};

use super::{TimeArgs, progress};
use crate::connect::ClientArgs;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
    #[command(flatten)]
    time: TimeArgs,
    /// Only these families, comma-separated (default: every family that replicates to the
    /// peer)
    #[arg(long)]
    families: Option<String>,
    /// Compare this many versions of each column (HBase's --versions; default the newest)
    #[arg(long, default_value_t = 1)]
    versions: u32,
    /// Only rows from this one on
    #[arg(long)]
    startrow: Option<String>,
    /// Only rows before this one
    #[arg(long)]
    stoprow: Option<String>,
    /// Print each bad row
    #[arg(long)]
    verbose: bool,
    /// The replication peer's id (`list_peers`)
    peer: String,
    /// The table to compare
    table: String,
}

/// A row's cells as compared: family, qualifier, timestamp, type, value.
type Compared = Vec<(Bytes, Bytes, i64, u8, Bytes)>;

fn compared(row: &RowResult, families: &BTreeSet<Bytes>) -> Compared {
    row.cells
        .iter()
        .filter(|c| families.contains(c.family()))
        .map(|c| {
            (
                Bytes::copy_from_slice(c.family()),
                Bytes::copy_from_slice(c.qualifier()),
                c.timestamp,
                c.cell_type.code(),
                Bytes::copy_from_slice(c.value()),
            )
        })
        .collect()
}

#[derive(Debug, Default)]
struct Counters {
    good: u64,
    only_source: u64,
    only_peer: u64,
    different: u64,
}

pub fn run(args: &Args) -> Result<()> {
    let table = super::table_name(&args.table)?;
    let (session, place) = args.client.open()?;
    let here = session.logical_client();
    let peer = here
        .peer(&args.peer)
        .with_context(|| format!("replication peer {}", args.peer))?;
    let descriptor = here
        .describe_table(&table)
        .with_context(|| format!("table {table}"))?;
    let families: BTreeSet<Bytes> = match &args.families {
        Some(list) => list
            .split(',')
            .map(|f| Bytes::copy_from_slice(f.trim().as_bytes()))
            .collect(),
        None => descriptor
            .families()
            .iter()
            .filter(|f| f.replication_scope != 0 && peer.config.replicates(&table, &f.name))
            .map(|f| f.name.clone())
            .collect(),
    };
    if families.is_empty() {
        bail!(
            "no family of {table} replicates to peer {} (REPLICATION_SCOPE 1, and the peer's \
             table-cfs); name some with --families",
            args.peer
        );
    }
    for f in &families {
        if descriptor.family(f).is_none() {
            bail!("{table} has no family {}", String::from_utf8_lossy(f));
        }
    }
    let there: Arc<dyn Client> = Arc::new(
        RemoteConnection::to_cluster_key(&peer.config.cluster_key, RemoteConfig::default())
            .with_context(|| {
                format!(
                    "connecting to peer {} at {}",
                    peer.id, peer.config.cluster_key
                )
            })?,
    );
    let mut scan = Scan::new();
    for f in &families {
        scan = scan.add_family(f.clone());
    }
    scan.time_range = args.time.range()?;
    scan.max_versions = args.versions.max(1);
    scan.caching = Some(1000);
    scan.cache_blocks = false;
    if let Some(start) = &args.startrow {
        scan = scan.with_start_row(Bytes::copy_from_slice(start.as_bytes()));
    }
    if let Some(stop) = &args.stoprow {
        scan.stop_row = Bytes::copy_from_slice(stop.as_bytes());
    }
    let started = Instant::now();
    let bar = progress(None, &format!("comparing {table} with peer {}", peer.id));
    let mut source = Arc::clone(&here)
        .scan(&table, &scan)
        .with_context(|| format!("scanning {table} here"))?;
    let mut target = Arc::clone(&there)
        .scan(&table, &scan)
        .with_context(|| format!("scanning {table} at peer {}", peer.id))?;
    let next = |rows: &mut basalt_embedded::Scanner, side: &str| -> Result<Option<RowResult>> {
        rows.next()
            .transpose()
            .with_context(|| format!("scanning {table} {side}"))
    };
    let mut counters = Counters::default();
    let mut a = next(&mut source, "here")?;
    let mut b = next(&mut target, "at the peer")?;
    let bad = |what: &str, row: &[u8]| {
        if args.verbose {
            println!("{what}: {}", basalt_embedded::BinaryDisplay::new(row));
        }
    };
    loop {
        let order = match (&a, &b) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(x), Some(y)) => x.row.cmp(&y.row),
        };
        match order {
            Ordering::Less => {
                counters.only_source += 1;
                bad(
                    "ONLY_IN_SOURCE_TABLE_ROWS",
                    &a.as_ref().map(|r| r.row.clone()).unwrap_or_default(),
                );
                a = next(&mut source, "here")?;
            }
            Ordering::Greater => {
                counters.only_peer += 1;
                bad(
                    "ONLY_IN_PEER_TABLE_ROWS",
                    &b.as_ref().map(|r| r.row.clone()).unwrap_or_default(),
                );
                b = next(&mut target, "at the peer")?;
            }
            Ordering::Equal => {
                let (x, y) = (a.take().unwrap_or_default(), b.take().unwrap_or_default());
                if compared(&x, &families) == compared(&y, &families) {
                    counters.good += 1;
                } else {
                    counters.different += 1;
                    bad("CONTENT_DIFFERENT_ROWS", &x.row);
                }
                a = next(&mut source, "here")?;
                b = next(&mut target, "at the peer")?;
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    crate::say!(
        "Compared {table} on {place} with peer {} ({}) in {:.1} s",
        peer.id,
        peer.config.cluster_key,
        started.elapsed().as_secs_f64()
    );
    let c = &counters;
    crate::say!(
        "\torg.apache.hadoop.hbase.mapreduce.replication.VerifyReplication$Verifier$Counters"
    );
    crate::say!("\t\tBADROWS={}", c.only_source + c.only_peer + c.different);
    crate::say!("\t\tCONTENT_DIFFERENT_ROWS={}", c.different);
    crate::say!("\t\tGOODROWS={}", c.good);
    crate::say!("\t\tONLY_IN_PEER_TABLE_ROWS={}", c.only_peer);
    crate::say!("\t\tONLY_IN_SOURCE_TABLE_ROWS={}", c.only_source);
    session.close()
}
