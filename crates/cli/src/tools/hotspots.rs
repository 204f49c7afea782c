//! `basalt hotspots TABLE`: each region's share of recent reads and writes, the skew, and
//! what a hot spot says about the row keys (issue 34; `basalt_embedded::hotspots`).

use std::time::Duration;

use anyhow::{Context, Result};
use basalt_embedded::hotspots::HotspotReport;

use crate::connect::ClientArgs;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
    /// Seconds to watch the requests over; 0 counts since each region opened
    #[arg(long, default_value_t = 5.0)]
    interval: f64,
    /// The table
    table: String,
}

pub fn run(args: &Args) -> Result<()> {
    let table = super::table_name(&args.table)?;
    let over = Duration::try_from_secs_f64(args.interval)
        .with_context(|| format!("--interval {}: a number of seconds", args.interval))?;
    let (session, _) = args.client.open()?;
    let report = HotspotReport::take(session.client().as_ref(), &table, over)
        .with_context(|| format!("reading the requests to {table}"))?;
    crate::say!("{report}");
    session.close()
}
