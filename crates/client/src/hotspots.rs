//! The hot-spot report (issue 34): each region of a table with its share of recent reads and
//! writes, in key order, the skew (busiest region against the mean), and, when one region
//! takes most of the writes, what that says about the row keys and which key layouts
//! (`basalt_common::key_layout`) would spread them. `basalt hotspots` and the shell's
//! `hotspots` print it.

use basalt_ops::prelude::TableAdmin;
use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::key_layout::KeyLayout;
use basalt_common::{Bytes, Result, TableName};

use crate::Client;

/// Fewer writes than this say nothing about where writes go.
pub const MIN_WRITES: u64 = 100;

/// One region's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionHeat {
    /// The first row the region holds.
    pub start_key: Bytes,
    /// The server that holds it.
    pub server: String,
    /// Reads it served.
    pub reads: u64,
    /// Writes it took.
    pub writes: u64,
}

/// A table's regions and their recent requests.
#[derive(Debug, Clone)]
pub struct HotspotReport {
    /// The table.
    pub table: TableName,
    /// Its key layout, if it has one.
    pub layout: Option<KeyLayout>,
    /// How long the counts cover; `None`: since each region opened.
    pub over: Option<Duration>,
    /// Its regions, in key order.
    pub regions: Vec<RegionHeat>,
}

/// Each of the table's regions' (reads, writes) counters now, by encoded region name (the
/// status may print a region name's key escaped; its encoded name is plain).
fn counters(
    client: &dyn Client,
    table: &TableName,
) -> Result<HashMap<Vec<u8>, (u64, u64, String)>> {
    let summary = client.cluster_summary()?;
    let prefix = format!("{table},");
    let mut out = HashMap::new();
    for server in summary.servers {
        for r in server.regions {
            if r.name.starts_with(prefix.as_bytes())
                && let Some(encoded) = basalt_common::RegionInfo::encoded_part(&r.name)
            {
                out.insert(
                    encoded.to_vec(),
                    (r.read_requests, r.write_requests, server.name.clone()),
                );
            }
        }
    }
    Ok(out)
}

impl HotspotReport {
    /// Samples the table's request counters twice, `over` apart (or once, for the counts
    /// since each region opened, when `over` is zero).
    pub fn take(client: &dyn Client, table: &TableName, over: Duration) -> Result<Self> {
        let layout = client
            .describe_table(table)
            .ok()
            .and_then(|d| KeyLayout::of(&d.metadata).ok().flatten());
        let before = if over.is_zero() {
            HashMap::new()
        } else {
            let b = counters(client, table)?;
            std::thread::sleep(over);
            b
        };
        let after = counters(client, table)?;
        let regions = client
            .regions(table)?
            .into_iter()
            .map(|r| {
                let encoded = r.encoded_name().as_bytes().to_vec();
                let (reads, writes, server) = after.get(&encoded).cloned().unwrap_or_default();
                let (r0, w0, _) = before.get(&encoded).cloned().unwrap_or_default();
                RegionHeat {
                    start_key: r.start_key,
                    server: r.server.unwrap_or(server),
                    reads: reads.saturating_sub(r0),
                    writes: writes.saturating_sub(w0),
                }
            })
            .collect();
        Ok(HotspotReport {
            table: table.clone(),
            layout,
            over: (!over.is_zero()).then_some(over),
            regions,
        })
    }

    /// The busiest region's share of all, and the skew (busiest against the mean), of
    /// `count` (reads or writes); `None` when there were none.
    pub fn skew(&self, count: impl Fn(&RegionHeat) -> u64) -> Option<(usize, f64, f64)> {
        let total: u64 = self.regions.iter().map(&count).sum();
        if total == 0 {
            return None;
        }
        let (i, max) = self
            .regions
            .iter()
            .map(&count)
            .enumerate()
            .max_by_key(|(_, c)| *c)?;
        let share = max as f64 / total as f64;
        let mean = total as f64 / self.regions.len() as f64;
        Some((i, share, max as f64 / mean))
    }

    /// What the numbers say, in a sentence or two.
    pub fn diagnosis(&self) -> String {
        let Some((busiest, share, _)) = self.skew(|r| r.writes) else {
            return "No writes in this interval: nothing to judge.".into();
        };
        let writes: u64 = self.regions.iter().map(|r| r.writes).sum();
        if writes < MIN_WRITES {
            return format!(
                "Only {writes} writes: too few to judge (at least {MIN_WRITES}; watch longer, \
                 `--interval`, or under load)."
            );
        }
        if self.regions.len() == 1 {
            return "The table is one region, so one server takes every write. Pre-split it \
                    (SPLITS, NUMREGIONS) or declare a key layout (SALT => {BUCKETS => N}), \
                    which pre-splits on its buckets."
                .into();
        }
        if share < 0.5 {
            return format!(
                "Writes are spread: the busiest region takes {:.0}%.",
                share * 100.0
            );
        }
        let last = busiest + 1 == self.regions.len();
        let mut out = format!(
            "Hot spot: one region takes {:.0}% of the writes{}.",
            share * 100.0,
            if last { ", the last one" } else { "" }
        );
        if last {
            out.push_str(
                " Row keys that only increase (timestamps, sequence numbers) send every new \
                 row to the region holding the largest keys.",
            );
        }
        match self.layout {
            Some(l) => out.push_str(&format!(
                " The table already has the layout {l}: the hot keys share a bucket (a time \
                 bucket's rows, or one hot logical key)."
            )),
            None => out.push_str(
                " Key layouts that spread them: SALT => {BUCKETS => N} (scans stay in key \
                 order, merged from N buckets), HASH_PREFIX => {ALGORITHM => 'MD5', BYTES => 4} \
                 (point reads; range scans read everything), or, for time-series keys that \
                 start with a timestamp, TIME_BUCKETS => {BUCKETS => N}.",
            ),
        }
        out
    }
}

impl fmt::Display for HotspotReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let over = match self.over {
            Some(d) => format!("over {:.1} s", d.as_secs_f64()),
            None => "since each region opened".into(),
        };
        let servers: std::collections::BTreeSet<&str> =
            self.regions.iter().map(|r| r.server.as_str()).collect();
        writeln!(
            f,
            "Requests to {} {over}: {} regions on {} server{}{}",
            self.table,
            self.regions.len(),
            servers.len(),
            if servers.len() == 1 { "" } else { "s" },
            self.layout
                .map(|l| format!(", key layout {l}"))
                .unwrap_or_default()
        )?;
        let (reads, writes): (u64, u64) = self
            .regions
            .iter()
            .fold((0, 0), |(r, w), x| (r + x.reads, w + x.writes));
        let pct = |n: u64, of: u64| {
            if of == 0 {
                0.0
            } else {
                n as f64 * 100.0 / of as f64
            }
        };
        writeln!(
            f,
            "{:<24} {:<24} {:>10} {:>7} {:>10} {:>7}",
            "START KEY", "SERVER", "WRITES", "SHARE", "READS", "SHARE"
        )?;
        for r in &self.regions {
            let key = if r.start_key.is_empty() {
                "(first)".to_owned()
            } else {
                BinaryDisplay::new(&r.start_key).to_string()
            };
            let bar = "#".repeat((pct(r.writes, writes) / 5.0).round() as usize);
            writeln!(
                f,
                "{key:<24} {:<24} {:>10} {:>6.1}% {:>10} {:>6.1}% {bar}",
                r.server,
                r.writes,
                pct(r.writes, writes),
                r.reads,
                pct(r.reads, reads)
            )?;
        }
        for (what, total, skew) in [
            ("writes", writes, self.skew(|r| r.writes)),
            ("reads", reads, self.skew(|r| r.reads)),
        ] {
            match skew {
                Some((_, share, skew)) => writeln!(
                    f,
                    "{what}: {total}, the busiest region {:.1}%, {skew:.1}x the mean",
                    share * 100.0
                )?,
                None => writeln!(f, "{what}: none")?,
            }
        }
        write!(f, "{}", self.diagnosis())
    }
}
