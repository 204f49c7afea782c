//! `basalt snapshot export NAME --to DIR`: HBase's ExportSnapshot, from one data directory to
//! another (or a cluster's root), file by file, with progress.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Copy a snapshot to another data directory, where `clone_snapshot` or
    /// `restore_snapshot` makes it a table (HBase's ExportSnapshot)
    Export(ExportArgs),
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The data directory holding the snapshot (read directly: a server may be running on it)
    #[arg(long, default_value = "basalt-data")]
    data: PathBuf,
    /// The data directory (or cluster root) to copy it to
    #[arg(long = "to", alias = "copy-to")]
    to: PathBuf,
    /// The snapshot's name
    name: String,
    /// The source's store files are on this object store (the copies are ordinary files)
    #[command(flatten)]
    storage: crate::storage::StorageArgs,
}

pub fn run(action: &Action) -> Result<()> {
    let Action::Export(args) = action;
    let fs = args.storage.file_system()?;
    let fs = fs.as_ref();
    let total = basalt_master::snapshots::size(fs, &args.data, &args.name)
        .with_context(|| format!("reading snapshot {} in {}", args.name, args.data.display()))?;
    let bar = super::progress(Some(total), &format!("exporting snapshot {}", args.name));
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = Instant::now();
    let copied =
        basalt_master::snapshots::export(fs, &args.data, &args.name, &args.to, &mut |n| bar.inc(n))
            .with_context(|| {
                format!("exporting snapshot {} to {}", args.name, args.to.display())
            })?;
    bar.finish_and_clear();
    let secs = started.elapsed().as_secs_f64();
    crate::say!(
        "Exported snapshot {} to {}: {} files, {:.1} MB in {secs:.1} s ({:.1} MB/s)",
        args.name,
        args.to.display(),
        copied.files,
        copied.bytes as f64 / 1e6,
        copied.bytes as f64 / 1e6 / secs.max(1e-9)
    );
    Ok(())
}
