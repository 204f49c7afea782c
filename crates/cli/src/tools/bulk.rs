//! `basalt importtsv` and `basalt bulkload`: HBase's ImportTsv and LoadIncrementalHFiles
//! (`completebulkload`). ImportTsv reads delimited text into puts, or, with
//! `-Dimporttsv.bulk.output=DIR`, into store files under `DIR/<family>/`, cut at the table's
//! region boundaries and written in sorted runs so memory stays flat. Bulkload hands such a
//! directory's files to the regions they belong to, splitting any file that straddles a
//! boundary; each region adopts its files all at once.

use basalt_embedded::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use basalt_common::ColumnFamilyDescriptor;
use basalt_embedded::{Bytes, Cell, Put, RegionSummary, TableName};
use basalt_fs::LocalFs;
use basalt_storefile::{StoreFileReader, StoreFileWriter, WriterOptions};

use super::{BatchWriter, Properties, Tally, millis, progress, table_name};
use crate::connect::ClientArgs;

const IMPORTTSV_PROPERTIES: &[&str] = &[
    "importtsv.columns",
    "importtsv.separator",
    "importtsv.bulk.output",
    "importtsv.skip.bad.lines",
    "importtsv.timestamp",
    "importtsv.buffer.mb",
];

#[derive(Debug, clap::Args)]
pub struct ImportTsvArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// HBase's ImportTsv properties: importtsv.columns (required: HBASE_ROW_KEY once, then
    /// `family:qualifier`, `family`, HBASE_TS_KEY, HBASE_CELL_TTL), importtsv.separator
    /// [default: tab], importtsv.bulk.output (write store files there instead of puts),
    /// importtsv.skip.bad.lines [default: true], importtsv.timestamp (ms) [default: now],
    /// importtsv.buffer.mb (the sorted runs of a bulk output) [default: 64]
    #[arg(short = 'D', value_name = "NAME=VALUE")]
    defines: Vec<String>,
    /// The table (it must exist)
    table: String,
    /// Input files, or directories of them
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
}

/// One column of a TSV line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Column {
    RowKey,
    Timestamp,
    Ttl,
    Cell {
        family: Bytes,
        qualifier: Bytes,
    },
    /// HBASE_ATTRIBUTES_KEY and HBASE_CELL_VISIBILITY: read, not used.
    Ignored,
}

fn parse_columns(spec: &str) -> Result<Vec<Column>> {
    let columns: Vec<Column> = spec
        .split(',')
        .map(|c| match c.trim() {
            "HBASE_ROW_KEY" => Ok(Column::RowKey),
            "HBASE_TS_KEY" => Ok(Column::Timestamp),
            "HBASE_CELL_TTL" => Ok(Column::Ttl),
            "HBASE_ATTRIBUTES_KEY" | "HBASE_CELL_VISIBILITY" => Ok(Column::Ignored),
            "" => bail!("importtsv.columns has an empty column"),
            other => {
                let (f, q) = other.split_once(':').unwrap_or((other, ""));
                if f.is_empty() {
                    bail!("importtsv.columns: {other:?} has no family");
                }
                Ok(Column::Cell {
                    family: Bytes::copy_from_slice(f.as_bytes()),
                    qualifier: Bytes::copy_from_slice(q.as_bytes()),
                })
            }
        })
        .collect::<Result<_>>()?;
    let count = |k: &Column| columns.iter().filter(|c| *c == k).count();
    if count(&Column::RowKey) != 1 {
        bail!("importtsv.columns must name HBASE_ROW_KEY exactly once");
    }
    if count(&Column::Timestamp) > 1 || count(&Column::Ttl) > 1 {
        bail!("importtsv.columns names HBASE_TS_KEY or HBASE_CELL_TTL more than once");
    }
    if !columns.iter().any(|c| matches!(c, Column::Cell { .. })) {
        bail!("importtsv.columns names no family:qualifier column to import");
    }
    Ok(columns)
}

fn separator(props: &Properties) -> Result<u8> {
    match props.get("importtsv.separator") {
        None => Ok(b'\t'),
        Some(s) if s.len() == 1 => Ok(s.as_bytes()[0]),
        Some("\\t") => Ok(b'\t'),
        Some(s) => bail!("importtsv.separator={s:?}: a single byte"),
    }
}

/// One parsed line: its row, cells' (family, qualifier, value), timestamp and TTL.
struct Line {
    row: Bytes,
    cells: Vec<(Bytes, Bytes, Bytes)>,
    ts: Option<i64>,
    ttl_ms: Option<u64>,
}

fn parse_line(line: &[u8], sep: u8, columns: &[Column]) -> Result<Line, String> {
    let fields: Vec<&[u8]> = line.split(|b| *b == sep).collect();
    if fields.len() != columns.len() {
        return Err(format!(
            "{} fields where importtsv.columns names {}",
            fields.len(),
            columns.len()
        ));
    }
    let mut out = Line {
        row: Bytes::new(),
        cells: Vec::new(),
        ts: None,
        ttl_ms: None,
    };
    for (field, column) in fields.iter().zip(columns) {
        match column {
            Column::RowKey => {
                if field.is_empty() {
                    return Err("an empty row key".into());
                }
                out.row = Bytes::copy_from_slice(field);
            }
            Column::Timestamp => {
                let text = String::from_utf8_lossy(field);
                out.ts = Some(
                    text.parse()
                        .map_err(|_| format!("timestamp {text:?} is not a number"))?,
                );
            }
            Column::Ttl => {
                let text = String::from_utf8_lossy(field);
                let secs: u64 = text
                    .parse()
                    .map_err(|_| format!("TTL {text:?} is not a number"))?;
                out.ttl_ms = Some(secs.saturating_mul(1000));
            }
            Column::Cell { family, qualifier } => out.cells.push((
                family.clone(),
                qualifier.clone(),
                Bytes::copy_from_slice(field),
            )),
            Column::Ignored => {}
        }
    }
    Ok(out)
}

/// Every file of the inputs (directories' files in name order, hidden ones skipped).
fn input_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(input)
                .with_context(|| format!("reading {}", input.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.is_file()
                        && !p
                            .file_name()
                            .and_then(|n| n.to_str())
                            .is_some_and(|n| n.starts_with('.') || n.starts_with('_'))
                })
                .collect();
            files.sort();
            out.extend(files);
        } else if input.is_file() {
            out.push(input.clone());
        } else {
            bail!("no input file or directory {}", input.display());
        }
    }
    Ok(out)
}

/// Where an importtsv's rows go: puts, or sorted runs of store files.
enum Sink {
    Puts(BatchWriter),
    Files(RunWriter),
}

pub fn import_tsv(args: &ImportTsvArgs) -> Result<()> {
    let props = Properties::parse(&args.defines, IMPORTTSV_PROPERTIES)?;
    let columns = parse_columns(
        props
            .get("importtsv.columns")
            .context("-D importtsv.columns=... is required (HBASE_ROW_KEY and the columns)")?,
    )?;
    let sep = separator(&props)?;
    let skip_bad = match props.get("importtsv.skip.bad.lines") {
        None => true,
        Some(_) => props.flag("importtsv.skip.bad.lines")?,
    };
    let job_ts = match props.get("importtsv.timestamp") {
        Some(t) => millis("importtsv.timestamp", t)?,
        None => basalt_common::Clock::now_millis(&basalt_common::SystemClock),
    };
    let buffer_mb: usize = match props.get("importtsv.buffer.mb") {
        Some(v) => v
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .with_context(|| format!("importtsv.buffer.mb={v}: a positive number"))?,
        None => 64,
    };
    let table = table_name(&args.table)?;
    let files = input_files(&args.inputs)?;
    let (session, place) = args.client.open()?;
    let client = session.logical_client();
    let descriptor = client
        .describe_table(&table)
        .with_context(|| format!("reading the schema of {table}"))?;
    for c in &columns {
        if let Column::Cell { family, .. } = c
            && !descriptor.families().iter().any(|f| f.name == *family)
        {
            bail!(
                "importtsv.columns names family {} that {table} does not have",
                String::from_utf8_lossy(family)
            );
        }
    }
    let mut sink = match props.get("importtsv.bulk.output") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            super::export::new_output_dir(&dir)?;
            let regions = client.regions(&table)?;
            Sink::Files(RunWriter::new(
                dir,
                regions,
                descriptor.families().to_vec(),
                buffer_mb << 20,
                basalt_common::key_layout::KeyLayout::of(&descriptor.metadata)?,
            ))
        }
        None => Sink::Puts(BatchWriter::new(Arc::clone(&client), table.clone())),
    };
    let started = Instant::now();
    let bar = super::progress_over_files(&files, &format!("importing into {table}"));
    let (mut tally, mut bad) = (Tally::default(), 0u64);
    for path in &files {
        let file =
            std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
        let mut reader = BufReader::new(file);
        let mut line = Vec::new();
        let mut number = 0u64;
        loop {
            line.clear();
            let n = reader
                .read_until(b'\n', &mut line)
                .with_context(|| format!("reading {}", path.display()))?;
            if n == 0 {
                break;
            }
            number += 1;
            bar.inc(n as u64);
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            let parsed = match parse_line(&line, sep, &columns) {
                Ok(p) => p,
                Err(why) if skip_bad => {
                    bad += 1;
                    if bad <= 10 {
                        bar.suspend(|| {
                            eprintln!("skipped bad line {}:{number}: {why}", path.display());
                        });
                    }
                    continue;
                }
                Err(why) => bail!(
                    "bad line {}:{number}: {why} (-D importtsv.skip.bad.lines=true skips bad \
                     lines)",
                    path.display()
                ),
            };
            let ts = parsed.ts.unwrap_or(job_ts);
            let cells: Vec<Cell> = parsed
                .cells
                .iter()
                .map(|(f, q, v)| Cell::put(&parsed.row, f, q, ts, v))
                .collect();
            tally.add_row(&cells);
            match &mut sink {
                Sink::Puts(w) => {
                    let mut put = Put::new(parsed.row.clone());
                    for (f, q, v) in parsed.cells {
                        put = put.add_column_at(f, q, ts, v);
                    }
                    if let Some(ttl) = parsed.ttl_ms {
                        put = put.with_ttl_ms(ttl);
                    }
                    let bytes = cells.iter().map(Cell::serialized_size).sum();
                    w.add(vec![basalt_embedded::BatchOp::Put(put)], bytes)?;
                }
                Sink::Files(w) => {
                    if parsed.ttl_ms.is_some() {
                        bail!(
                            "HBASE_CELL_TTL with importtsv.bulk.output: store files carry no \
                             per-cell TTL; import without bulk output"
                        );
                    }
                    w.add(cells)?;
                }
            }
        }
    }
    let written = match &mut sink {
        Sink::Puts(w) => {
            w.flush()?;
            String::new()
        }
        Sink::Files(w) => {
            w.spill()?;
            format!(
                "; {} store files in {} (load them with `basalt bulkload {} {table}`)",
                w.files,
                w.dir.display(),
                w.dir.display()
            )
        }
    };
    bar.finish_and_clear();
    crate::say!(
        "Imported {} files into {table} on {place}: {}, {bad} bad lines skipped{written}",
        files.len(),
        tally.summary(started)
    );
    session.close()
}

/// Index of the region (sorted by start key) holding `row`.
fn region_of(regions: &[RegionSummary], row: &[u8]) -> usize {
    regions
        .partition_point(|r| &r.start_key[..] <= row)
        .saturating_sub(1)
}

/// Buffers cells and writes them as sorted runs: per run, one store file per family and
/// region under `<dir>/<family>/`.
struct RunWriter {
    /// The table's key layout: files hold stored keys.
    layout: Option<basalt_common::key_layout::KeyLayout>,
    dir: PathBuf,
    regions: Vec<RegionSummary>,
    families: Vec<ColumnFamilyDescriptor>,
    limit: usize,
    cells: Vec<Cell>,
    bytes: usize,
    runs: usize,
    files: usize,
}

impl RunWriter {
    fn new(
        dir: PathBuf,
        regions: Vec<RegionSummary>,
        families: Vec<ColumnFamilyDescriptor>,
        limit: usize,
        layout: Option<basalt_common::key_layout::KeyLayout>,
    ) -> Self {
        RunWriter {
            layout,
            dir,
            regions,
            families,
            limit,
            cells: Vec::new(),
            bytes: 0,
            runs: 0,
            files: 0,
        }
    }

    fn add(&mut self, cells: Vec<Cell>) -> Result<()> {
        let cells = match self.layout {
            None => cells,
            Some(layout) => cells
                .into_iter()
                .map(|c| Ok(c.with_row(&layout.physical(c.row())?)))
                .collect::<basalt_common::Result<Vec<_>>>()?,
        };
        self.bytes += cells.iter().map(Cell::serialized_size).sum::<usize>();
        self.cells.extend(cells);
        if self.bytes >= self.limit {
            self.spill()?;
        }
        Ok(())
    }

    /// Sorts the buffer and writes it out. Of cells with the same key (row, column,
    /// timestamp), the last line's is kept, as the last put would win.
    fn spill(&mut self) -> Result<()> {
        if self.cells.is_empty() {
            return Ok(());
        }
        let mut cells = std::mem::take(&mut self.cells);
        self.bytes = 0;
        // Stable: equal keys keep their line order; the last of each run of equals is kept.
        cells.sort();
        let mut kept: Vec<Cell> = Vec::with_capacity(cells.len());
        for c in cells {
            match kept.last_mut() {
                Some(last) if basalt_common::cell::compare_cells(last, &c).is_eq() => *last = c,
                _ => kept.push(c),
            }
        }
        for family in &self.families {
            let mut current: Option<(usize, StoreFileWriter)> = None;
            for c in kept.iter().filter(|c| c.family() == &family.name[..]) {
                let region = region_of(&self.regions, c.row());
                if current.as_ref().is_none_or(|(r, _)| *r != region) {
                    if let Some((_, w)) = current.take() {
                        w.finish()?;
                        self.files += 1;
                    }
                    let dir = self.dir.join(family.name_str());
                    std::fs::create_dir_all(&dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                    let path = dir.join(format!("run{:04}-region{region:05}", self.runs));
                    let w = StoreFileWriter::create(
                        Arc::new(LocalFs),
                        &path,
                        WriterOptions::for_family(family),
                    )?;
                    current = Some((region, w));
                }
                if let Some((_, w)) = &mut current {
                    w.append(c)?;
                }
            }
            if let Some((_, w)) = current.take() {
                w.finish()?;
                self.files += 1;
            }
        }
        self.runs += 1;
        Ok(())
    }
}

#[derive(Debug, clap::Args)]
pub struct BulkLoadArgs {
    #[command(flatten)]
    client: ClientArgs,
    /// A directory of `<family>/<store file>` (what `importtsv -Dimporttsv.bulk.output`
    /// writes); its paths must be readable by the server
    dir: PathBuf,
    /// The table to load into
    table: String,
}

/// A prepared file: its family, path and row range.
struct Prepared {
    family: Bytes,
    path: PathBuf,
    first: Bytes,
    last: Bytes,
    cells: u64,
    max_seq_id: u64,
}

fn prepared_files(dir: &Path) -> Result<Vec<Prepared>> {
    let mut out = Vec::new();
    let mut families: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_dir()
                && !p
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('_') || n.starts_with('.'))
        })
        .collect();
    families.sort();
    for family_dir in families {
        let family = family_dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&family_dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        for path in files {
            let reader = StoreFileReader::open(&LocalFs, &path)
                .with_context(|| format!("{} is not a store file", path.display()))?;
            let info = reader.info();
            if info.family != family.as_bytes() {
                bail!(
                    "{} holds cells of family {}, not {family}",
                    path.display(),
                    String::from_utf8_lossy(&info.family)
                );
            }
            if info.cell_count == 0 {
                continue;
            }
            out.push(Prepared {
                family: Bytes::copy_from_slice(family.as_bytes()),
                first: Bytes::copy_from_slice(info.first_key.row()),
                last: Bytes::copy_from_slice(info.last_key.row()),
                cells: info.cell_count,
                max_seq_id: info.max_seq_id,
                path: std::fs::canonicalize(&path)?,
            });
        }
    }
    if out.is_empty() {
        bail!("{} holds no store files under <family>/", dir.display());
    }
    Ok(out)
}

/// Rewrites `file` as one file per region it spans, under `tmp/`, its cells' sequence ids
/// cleared (HBase's LoadIncrementalHFiles splits such files in halves until each fits).
fn split(
    file: &Prepared,
    regions: &[RegionSummary],
    family: &ColumnFamilyDescriptor,
    tmp: &Path,
) -> Result<Vec<(usize, PathBuf)>> {
    let reader = StoreFileReader::open(&LocalFs, &file.path)?;
    let mut scanner = reader.scanner();
    scanner.seek(&Cell::first_on_row(b""))?;
    let dir = tmp.join(family.name_str());
    std::fs::create_dir_all(&dir)?;
    let stem = file
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut out = Vec::new();
    let mut current: Option<(usize, StoreFileWriter)> = None;
    while let Some(cell) = scanner.current() {
        let region = region_of(regions, cell.row());
        if current.as_ref().is_none_or(|(r, _)| *r != region) {
            if let Some((_, w)) = current.take() {
                w.finish()?;
            }
            let path = dir.join(format!("{stem}.region{region:05}"));
            let w = StoreFileWriter::create(
                Arc::new(LocalFs),
                &path,
                WriterOptions::for_family(family),
            )?;
            out.push((region, path));
            current = Some((region, w));
        }
        if let Some((_, w)) = &mut current {
            w.append(&cell.clone().with_seq_id(0))?;
        }
        scanner.advance()?;
    }
    if let Some((_, w)) = current.take() {
        w.finish()?;
    }
    Ok(out)
}

pub fn bulk_load(args: &BulkLoadArgs) -> Result<()> {
    let table: TableName = table_name(&args.table)?;
    let files = prepared_files(&args.dir)?;
    let (session, place) = args.client.open()?;
    let client = session.client();
    let descriptor = client
        .describe_table(&table)
        .with_context(|| format!("reading the schema of {table}"))?;
    let regions = client.regions(&table)?;
    let started = Instant::now();
    let tmp = args.dir.join("_tmp");
    let bar = progress(Some(files.len() as u64), &format!("loading into {table}"));
    // Each region's files, in region order.
    let mut by_region: Vec<Vec<(Bytes, PathBuf)>> = vec![Vec::new(); regions.len()];
    let (mut cells, mut splits) = (0u64, 0usize);
    for file in &files {
        let family = descriptor
            .families()
            .iter()
            .find(|f| f.name == file.family)
            .with_context(|| {
                format!(
                    "{}: {table} has no family {}",
                    file.path.display(),
                    String::from_utf8_lossy(&file.family)
                )
            })?;
        let (lo, hi) = (
            region_of(&regions, &file.first),
            region_of(&regions, &file.last),
        );
        if lo == hi && file.max_seq_id == 0 {
            by_region[lo].push((file.family.clone(), file.path.clone()));
        } else {
            // Straddles a boundary (or carries sequence ids): rewritten per region.
            splits += 1;
            for (region, path) in split(file, &regions, family, &tmp)? {
                by_region[region].push((file.family.clone(), std::fs::canonicalize(path)?));
            }
        }
        cells += file.cells;
        bar.inc(1);
    }
    let mut loaded = 0;
    for (region, files) in regions.iter().zip(&by_region) {
        if files.is_empty() {
            continue;
        }
        client
            .bulk_load(&table, &region.start_key, files)
            .with_context(|| {
                format!(
                    "loading {} files into region {}",
                    files.len(),
                    String::from_utf8_lossy(&region.name)
                )
            })?;
        loaded += 1;
    }
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).with_context(|| format!("removing {}", tmp.display()))?;
    }
    bar.finish_and_clear();
    crate::say!(
        "Loaded {} files ({cells} cells; {splits} split at region boundaries) into {loaded} \
         regions of {table} on {place} in {:.1} s",
        files.len(),
        started.elapsed().as_secs_f64()
    );
    session.close()
}
