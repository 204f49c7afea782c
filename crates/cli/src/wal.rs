//! `basalt wal`: HBase's `hbase wal` (WALPrettyPrinter) for Basalt WAL segments.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use basalt_common::bytes_display::to_string_binary;
use basalt_fs::LocalFs;
use basalt_wal::{SegmentEnd, WalEdit, salvage_segment_file};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print cell values (HBase: -p).
    #[arg(short = 'p', long = "printvals")]
    pub values: bool,
    /// Only edits of this table (HBase: -t).
    #[arg(short = 't', long = "table")]
    pub table: Option<String>,
    /// Only edits of this region, by encoded name (HBase: -r).
    #[arg(short = 'r', long = "region")]
    pub region: Option<String>,
    /// Only the edit with this sequence id (HBase: -s).
    #[arg(short = 's', long = "sequence")]
    pub sequence: Option<u64>,
    /// Only cells of this row, as printed (HBase: -w).
    #[arg(short = 'w', long = "row")]
    pub row: Option<String>,
    /// The segment file.
    pub path: PathBuf,
}

impl Args {
    fn selects(&self, edit: &WalEdit) -> bool {
        self.table.as_ref().is_none_or(|t| *t == edit.table)
            && self.region.as_ref().is_none_or(|r| *r == edit.region)
            && self.sequence.is_none_or(|s| s == edit.seq_id)
    }
}

/// Prints every edit of one segment (those the filters select), then how the segment ends;
/// damage in the middle is an error, after the edits before it.
pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let segment = salvage_segment_file(&LocalFs, &args.path)
        .with_context(|| format!("cannot read WAL segment {}", args.path.display()))?;
    writeln!(
        out,
        "Segment format version: {}",
        basalt_wal::FORMAT_VERSION
    )?;
    let mut ends = segment.edits.iter().skip(1).map(|(at, _)| *at);
    for (_, edit) in &segment.edits {
        let end = ends.next();
        if !args.selects(edit) {
            continue;
        }
        // `hbase:meta`'s edits hold its rows as stored (docs/design/catalog.md): shown decoded.
        let meta = edit.table == "hbase:meta";
        let row_of = |c: &basalt_common::Cell| match meta
            .then(|| basalt_common::meta_key::decode(c.row()))
        {
            Some(Ok(decoded)) => to_string_binary(&decoded),
            _ => to_string_binary(c.row()),
        };
        let cells: Vec<_> = edit
            .cells
            .iter()
            .filter(|c| args.row.as_ref().is_none_or(|r| *r == row_of(c)))
            .collect();
        if cells.is_empty() {
            continue;
        }
        writeln!(
            out,
            "Sequence={} , table={} , region={} at write timestamp={}",
            edit.seq_id,
            edit.table,
            edit.region,
            utc_time(edit.write_time_ms)
        )?;
        for cell in cells {
            writeln!(
                out,
                "row={}, type={}, column={}:{}",
                row_of(cell),
                cell.cell_type,
                to_string_binary(cell.family()),
                to_string_binary(cell.qualifier())
            )?;
            if args.values {
                writeln!(out, "    value: {}", to_string_binary(cell.value()))?;
            }
        }
        match end {
            Some(at) => writeln!(out, "position: {at}")?,
            None => writeln!(out, "position: end of records")?,
        }
    }
    match &segment.end {
        SegmentEnd::Clean => writeln!(out, "{} edits", segment.edits.len())?,
        SegmentEnd::Torn { offset, reason } => writeln!(
            out,
            "{} edits, then a torn record at offset {offset} ({reason}): what a crash while \
             appending leaves; recovery ignores it",
            segment.edits.len()
        )?,
        SegmentEnd::Corrupt { offset, reason } => anyhow::bail!(
            "WAL segment {}: corrupt at offset {offset}: {reason}",
            args.path.display()
        ),
    }
    Ok(())
}

/// `2026-11-22T20:14:04.123Z` for milliseconds since the epoch.
fn utc_time(ms: i64) -> String {
    let (days, ms_of_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = basalt_common::clock::civil_from_days(days);
    let secs = ms_of_day / 1000;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        ms_of_day % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::utc_time;

    #[test]
    fn times_print_as_utc_dates() {
        assert_eq!(utc_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(utc_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(utc_time(1_795_378_444_123), "2026-11-22T20:14:04.123Z");
        assert_eq!(utc_time(-1), "1969-12-31T23:59:59.999Z");
    }
}
