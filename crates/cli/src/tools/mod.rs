//! HBase's data-moving tools as commands: `export`, `import`, `copytable`, `rowcounter`
//! (HBase's MapReduce jobs of those names, run here as streaming clients), `snapshot export`,
//! the bulk loading pair `importtsv` and `bulkload`, and `verifyrep` (HBase's
//! VerifyReplication). Each takes HBase's options (its `-D`
//! properties and its `--name=value` flags), keeps memory flat (rows stream through in
//! batches), shows progress on a terminal and ends with a summary. Formats:
//! `docs/design/bulk.md`.

pub mod bulk;
pub mod canary;
pub mod copy;
pub mod export;
pub mod hbck;
pub mod hotspots;
pub mod regionmover;
pub mod seqfile;
pub mod snapshot;
pub mod verifyrep;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use basalt_embedded::{BatchOp, Bytes, Cell, CellType, Client, Delete, Durability, Put, TableName};

/// HBase's `-D name=value` properties, each tool taking the names it knows.
#[derive(Debug, Default)]
pub struct Properties(BTreeMap<String, String>);

impl Properties {
    /// Parses `name=value` pairs; only the `known` names are accepted.
    pub fn parse(defines: &[String], known: &[&str]) -> Result<Self> {
        let mut map = BTreeMap::new();
        for d in defines {
            let (k, v) = d
                .split_once('=')
                .with_context(|| format!("-D {d}: expected NAME=VALUE"))?;
            if !known.contains(&k) {
                bail!(
                    "-D {k}: not a property this tool knows (it knows {})",
                    known.join(", ")
                );
            }
            map.insert(k.to_owned(), v.to_owned());
        }
        Ok(Properties(map))
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    pub fn flag(&self, name: &str) -> Result<bool> {
        match self.get(name) {
            None => Ok(false),
            Some(v) => v
                .parse()
                .with_context(|| format!("-D {name}={v}: expected true or false")),
        }
    }
}

/// `a:b,c` (HBase's family lists with renames): `a` becomes `b`, `c` stays `c`.
pub fn family_renames(spec: &str) -> Result<Vec<(Bytes, Bytes)>> {
    spec.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let (from, to) = s.split_once(':').unwrap_or((s, s));
            if from.is_empty() || to.is_empty() {
                bail!("bad family rename {s:?}: expected FAMILY or OLD:NEW");
            }
            Ok((
                Bytes::copy_from_slice(from.as_bytes()),
                Bytes::copy_from_slice(to.as_bytes()),
            ))
        })
        .collect()
}

pub fn table_name(name: &str) -> Result<TableName> {
    TableName::parse(name).with_context(|| format!("bad table name {name:?}"))
}

/// A time given on the command line: milliseconds since the epoch.
pub fn millis(what: &str, v: &str) -> Result<i64> {
    v.parse()
        .with_context(|| format!("{what} {v:?}: expected milliseconds since the epoch"))
}

/// A bar (or spinner, when the total is unknown) on standard error when it is a terminal;
/// hidden otherwise, so scripts see only the summary.
pub fn progress(total: Option<u64>, what: &str) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let (bar, template) = match total {
        Some(n) => (
            indicatif::ProgressBar::new(n),
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} ({per_sec}, eta {eta})",
        ),
        None => (
            indicatif::ProgressBar::new_spinner(),
            "{spinner} {msg} [{elapsed_precise}] {pos} rows ({per_sec})",
        ),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_message(what.to_owned());
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// HBase's `--starttime` and `--endtime` (CopyTable, RowCounter): a time range in ms.
#[derive(Debug, clap::Args)]
pub struct TimeArgs {
    /// Only cells at or after this time (ms since the epoch)
    #[arg(long = "starttime")]
    start_time: Option<String>,
    /// Only cells before this time (ms since the epoch)
    #[arg(long = "endtime")]
    end_time: Option<String>,
}

impl TimeArgs {
    pub fn range(&self) -> Result<basalt_common::TimeRange> {
        let start = self
            .start_time
            .as_deref()
            .map(|t| millis("--starttime", t))
            .transpose()?;
        let end = self
            .end_time
            .as_deref()
            .map(|t| millis("--endtime", t))
            .transpose()?;
        let (start, end) = (start.unwrap_or(0), end.unwrap_or(i64::MAX));
        if start > end {
            bail!("--starttime {start} is after --endtime {end}");
        }
        Ok(basalt_common::TimeRange::new(start, end))
    }
}

/// A progress bar over the bytes of `files`.
pub fn progress_over_files(files: &[std::path::PathBuf], what: &str) -> indicatif::ProgressBar {
    let total: u64 = files
        .iter()
        .map(|f| f.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    progress(Some(total), what)
}

/// What a tool moved, for its closing line.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub rows: u64,
    pub cells: u64,
    pub bytes: u64,
}

impl Tally {
    pub fn add_row(&mut self, cells: &[Cell]) {
        self.rows += 1;
        self.cells += cells.len() as u64;
        self.bytes += cells
            .iter()
            .map(|c| c.serialized_size() as u64)
            .sum::<u64>();
    }

    /// `1000 rows, 3000 cells, 1.2 MB in 0.4 s (2500 rows/s)`.
    pub fn summary(&self, started: Instant) -> String {
        let secs = started.elapsed().as_secs_f64();
        format!(
            "{} rows, {} cells, {:.1} MB in {secs:.1} s ({:.0} rows/s)",
            self.rows,
            self.cells,
            self.bytes as f64 / 1e6,
            self.rows as f64 / secs.max(1e-9)
        )
    }
}

/// Which families a copy writes, and under which names.
pub struct Families<'a> {
    /// `old:new` renames (and plain names, renamed to themselves).
    pub renames: &'a [(Bytes, Bytes)],
    /// Whether families `renames` does not name are written as they are (HBase's Import) or
    /// left out (CopyTable's `--families`). With no renames, every family is written.
    pub keep_unlisted: bool,
}

/// The mutations that write `cells` (one row's, as a raw scan or an export holds them) into
/// another table, with `durability`: one put for the values and one delete for the markers,
/// families chosen and renamed by `families`. Timestamps are kept.
pub fn mutations(
    row: &Bytes,
    cells: &[Cell],
    families: &Families<'_>,
    durability: Durability,
) -> Vec<BatchOp> {
    let mut put = Put::new(row.clone()).with_durability(durability);
    let mut delete = Delete::new(row.clone()).with_durability(durability);
    let (mut puts, mut deletes) = (0, 0);
    for c in cells {
        let family = match families
            .renames
            .iter()
            .find(|(from, _)| &from[..] == c.family())
        {
            Some((_, to)) => to.clone(),
            None if families.keep_unlisted || families.renames.is_empty() => {
                Bytes::copy_from_slice(c.family())
            }
            None => continue,
        };
        let qualifier = Bytes::copy_from_slice(c.qualifier());
        match c.cell_type {
            CellType::Put => {
                put = put.add_column_at(family, qualifier, c.timestamp, c.value_bytes());
                puts += 1;
            }
            CellType::Delete => {
                delete = delete.add_column_at(family, qualifier, c.timestamp);
                deletes += 1;
            }
            CellType::DeleteColumn => {
                delete = delete.add_columns_at(family, qualifier, c.timestamp);
                deletes += 1;
            }
            CellType::DeleteFamily => {
                delete = delete.add_family_at(family, c.timestamp);
                deletes += 1;
            }
            CellType::DeleteFamilyVersion => {
                delete = delete.add_family_version(family, c.timestamp);
                deletes += 1;
            }
            CellType::Minimum | CellType::Maximum => {}
        }
    }
    let mut ops = Vec::new();
    if puts > 0 {
        ops.push(BatchOp::Put(put));
    }
    if deletes > 0 {
        ops.push(BatchOp::Delete(delete));
    }
    ops
}

/// Writes mutations in batches of about `BATCH_BYTES`, failing on the first refused one.
pub struct BatchWriter {
    client: Arc<dyn Client>,
    table: TableName,
    ops: Vec<BatchOp>,
    bytes: usize,
}

const BATCH_BYTES: usize = 2 << 20;
const BATCH_OPS: usize = 2000;

impl BatchWriter {
    pub fn new(client: Arc<dyn Client>, table: TableName) -> Self {
        BatchWriter {
            client,
            table,
            ops: Vec::new(),
            bytes: 0,
        }
    }

    pub fn add(&mut self, ops: Vec<BatchOp>, bytes: usize) -> Result<()> {
        self.ops.extend(ops);
        self.bytes += bytes;
        if self.bytes >= BATCH_BYTES || self.ops.len() >= BATCH_OPS {
            self.flush()?;
        }
        Ok(())
    }

    pub fn flush(&mut self) -> Result<()> {
        if self.ops.is_empty() {
            return Ok(());
        }
        let ops = std::mem::take(&mut self.ops);
        self.bytes = 0;
        for r in self.client.batch(&self.table, &ops) {
            r.with_context(|| format!("writing to {}", self.table))?;
        }
        Ok(())
    }
}
