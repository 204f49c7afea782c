//! `basalt export` and `basalt import`: HBase's Export and Import. Export scans a table region
//! by region into `part-m-NNNNN` files (one per region, Hadoop SequenceFiles of HBase's
//! `Result`s, as HBase's Export writes); Import reads such a directory back into a table,
//! values as puts and (from a raw export) delete markers as deletes, timestamps kept.

use basalt_embedded::prelude::*;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use basalt_embedded::{Bytes, Durability, Scan};

use super::{
    BatchWriter, Properties, Tally, family_renames, millis, progress, seqfile, table_name,
};
use crate::connect::ClientArgs;

/// HBase's Export properties this command takes.
const EXPORT_PROPERTIES: &[&str] = &[
    "hbase.mapreduce.scan.row.start",
    "hbase.mapreduce.scan.row.stop",
    "hbase.mapreduce.scan.column.family",
    "hbase.mapreduce.include.deleted.rows",
    "hbase.client.scanner.caching",
];

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// HBase's Export properties: hbase.mapreduce.scan.row.start, .row.stop,
    /// .scan.column.family (comma-separated), hbase.mapreduce.include.deleted.rows (a raw
    /// export: delete markers too), hbase.client.scanner.caching
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    defines: Vec<String>,
    /// The table to export
    table: String,
    /// A new directory for the export's files
    output: PathBuf,
    /// Versions of each cell to export [default: 1]
    versions: Option<u32>,
    /// Only cells at or after this time (ms)
    start_time: Option<String>,
    /// Only cells before this time (ms)
    end_time: Option<String>,
}

/// The scan an export runs, from its properties and positional options.
fn export_scan(args: &ExportArgs, props: &Properties) -> Result<Scan> {
    let mut scan = Scan::new();
    scan.max_versions = args.versions.unwrap_or(1).max(1);
    let start = match &args.start_time {
        Some(t) => millis("start time", t)?,
        None => 0,
    };
    let end = match &args.end_time {
        Some(t) => millis("end time", t)?,
        None => i64::MAX,
    };
    if start > end {
        bail!("the start time {start} is after the end time {end}");
    }
    scan.time_range = basalt_common::TimeRange::new(start, end);
    if let Some(r) = props.get("hbase.mapreduce.scan.row.start") {
        scan.start_row = Bytes::copy_from_slice(r.as_bytes());
    }
    if let Some(r) = props.get("hbase.mapreduce.scan.row.stop") {
        scan.stop_row = Bytes::copy_from_slice(r.as_bytes());
    }
    if let Some(families) = props.get("hbase.mapreduce.scan.column.family") {
        for f in families.split(',').filter(|f| !f.is_empty()) {
            scan = scan.add_family(Bytes::copy_from_slice(f.as_bytes()));
        }
    }
    scan.raw = props.flag("hbase.mapreduce.include.deleted.rows")?;
    scan.caching = Some(match props.get("hbase.client.scanner.caching") {
        Some(c) => c
            .parse()
            .with_context(|| format!("hbase.client.scanner.caching={c}: expected a count"))?,
        None => 500,
    });
    scan.cache_blocks = false;
    Ok(scan)
}

pub fn new_output_dir(dir: &Path) -> Result<()> {
    if dir.exists()
        && std::fs::read_dir(dir)
            .with_context(|| format!("reading {}", dir.display()))?
            .next()
            .is_some()
    {
        bail!(
            "the output directory {} exists and is not empty",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

pub fn export(args: &ExportArgs) -> Result<()> {
    let props = Properties::parse(&args.defines, EXPORT_PROPERTIES)?;
    let table = table_name(&args.table)?;
    let scan = export_scan(args, &props)?;
    let (session, place) = args.client.open()?;
    let layouts = session.layout_client();
    let client: std::sync::Arc<dyn basalt_embedded::Client> = layouts.clone();
    // One file per region; a table with a key layout is read by its logical keys in one
    // merged scan, so into one file (its regions' ranges are of stored keys).
    let laid = layouts.layout(&table).is_some();
    let regions = if laid {
        vec![basalt_embedded::RegionSummary {
            name: Bytes::new(),
            start_key: Bytes::new(),
            end_key: Bytes::new(),
            server: None,
        }]
    } else {
        client
            .regions(&table)
            .with_context(|| format!("listing the regions of {table}"))?
    };
    new_output_dir(&args.output)?;
    let started = Instant::now();
    let bar = progress(Some(regions.len() as u64), &format!("exporting {table}"));
    let mut tally = Tally::default();
    let mut files = 0;
    // One file per region, as HBase's one map task per region writes one part file each.
    for (i, region) in regions.iter().enumerate() {
        let mut region_scan = scan.clone();
        if region.start_key > region_scan.start_row {
            region_scan.start_row = region.start_key.clone();
        }
        if !region.end_key.is_empty()
            && (region_scan.stop_row.is_empty() || region.end_key < region_scan.stop_row)
        {
            region_scan.stop_row = region.end_key.clone();
        }
        if !region_scan.stop_row.is_empty() && region_scan.start_row >= region_scan.stop_row {
            bar.inc(1);
            continue;
        }
        let path = args.output.join(format!("part-m-{i:05}"));
        let file =
            std::fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        let sync: [u8; 16] = basalt_common::md5::md5(path.to_string_lossy().as_bytes());
        let mut out = seqfile::Writer::new(BufWriter::new(file), sync)?;
        let rows = std::sync::Arc::clone(&client)
            .scan(&table, &region_scan)
            .with_context(|| format!("scanning {table}"))?;
        for row in rows {
            let row = row.with_context(|| format!("scanning {table}"))?;
            out.append(&row.row, &row.cells)
                .with_context(|| format!("writing {}", path.display()))?;
            tally.add_row(&row.cells);
        }
        let file = out.finish()?.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        files += 1;
        bar.inc(1);
        bar.set_message(format!("exporting {table}: {} rows", tally.rows));
    }
    bar.finish_and_clear();
    crate::say!(
        "Exported {table} from {place} to {} ({files} files): {}",
        args.output.display(),
        tally.summary(started)
    );
    session.close()
}

/// HBase's Import properties this command takes.
const IMPORT_PROPERTIES: &[&str] = &["HBASE_IMPORTER_RENAME_CFS", "import.wal.durability"];

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// HBase's Import properties: HBASE_IMPORTER_RENAME_CFS (OLD:NEW,... families renamed on
    /// the way in), import.wal.durability (SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL)
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    defines: Vec<String>,
    /// The table to write into (it must exist, with the families the export has)
    table: String,
    /// A directory `basalt export` (or HBase's Export) wrote
    input: PathBuf,
}

fn durability(name: &str) -> Result<Durability> {
    Ok(match name {
        "SKIP_WAL" => Durability::SkipWal,
        "ASYNC_WAL" => Durability::AsyncWal,
        "SYNC_WAL" => Durability::SyncWal,
        "FSYNC_WAL" => Durability::FsyncWal,
        "USE_DEFAULT" => Durability::UseDefault,
        other => bail!(
            "import.wal.durability={other}: expected SKIP_WAL, ASYNC_WAL, SYNC_WAL, FSYNC_WAL \
             or USE_DEFAULT"
        ),
    })
}

/// The export's part files, in name order.
fn part_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("part-"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!("{} holds no part-* files of an export", dir.display());
    }
    Ok(files)
}

pub fn import(args: &ImportArgs) -> Result<()> {
    let props = Properties::parse(&args.defines, IMPORT_PROPERTIES)?;
    let renames = match props.get("HBASE_IMPORTER_RENAME_CFS") {
        Some(spec) => family_renames(spec)?,
        None => Vec::new(),
    };
    let durability = props
        .get("import.wal.durability")
        .map(durability)
        .transpose()?
        .unwrap_or(Durability::UseDefault);
    let table = table_name(&args.table)?;
    let files = part_files(&args.input)?;
    let (session, place) = args.client.open()?;
    let client = session.logical_client();
    if !client.table_exists(&table)? {
        bail!("table {table} does not exist: create it first (with the export's families)");
    }
    let started = Instant::now();
    let bar = super::progress_over_files(&files, &format!("importing into {table}"));
    let mut tally = Tally::default();
    let mut writer = BatchWriter::new(client, table.clone());
    for path in &files {
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let size = file.metadata()?.len();
        let mut rows = seqfile::Reader::new(BufReader::new(file))
            .with_context(|| format!("reading {}", path.display()))?;
        while let Some((row, cells)) = rows
            .next_row()
            .with_context(|| format!("reading {}", path.display()))?
        {
            // Renamed families go under their new names; the others as they are (HBase).
            let families = super::Families {
                renames: &renames,
                keep_unlisted: true,
            };
            let ops = super::mutations(&row, &cells, &families, durability);
            let bytes = cells.iter().map(|c| c.serialized_size()).sum();
            tally.add_row(&cells);
            writer.add(ops, bytes)?;
        }
        bar.inc(size);
    }
    writer.flush()?;
    bar.finish_and_clear();
    crate::say!(
        "Imported {} ({} files) into {table} on {place}: {}",
        args.input.display(),
        files.len(),
        tally.summary(started)
    );
    session.close()
}
