//! Converts a version 2 data directory, whose `hbase:meta` rows are stored in plain byte
//! order, to version 3, whose meta rows are stored in meta order (`basalt_region::meta_keys`).
//! It runs by itself when such a directory is opened (docs/design/catalog.md, "Upgrades").
//!
//! Steps, each safe to interrupt:
//! 1. The old meta region is opened as it was written, its edits still in the write-ahead
//!    log replayed, and every cell read (delete markers and all retained versions).
//! 2. A new meta region is written beside it, `<meta>.upgrade`, holding the same cells under
//!    their stored keys and a sequence id at least the old one's (so the log's old meta
//!    edits are never replayed into it); then the marker `UPGRADED` is written into it.
//! 3. The old region is renamed `<meta>.v2`, the new one takes its place, the version file
//!    says 3, and the marker and `<meta>.v2` are deleted.
//!
//! A crash before the marker leaves the old region untouched (the half-written new one is
//! deleted and step 1 runs again); a crash after it resumes step 3 where it stopped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::{Cell, Clock, Result, Scan};
use basalt_fs::FileSystem;
use basalt_layout::{self as layout, storage};
use basalt_region::{Region, RegionConfig, meta_keys};
use basalt_wal::WalEdit;

use crate::meta;

/// Left in the new meta region once it holds every cell: from then on the upgrade finishes.
const MARKER: &str = "UPGRADED";

struct Dirs {
    meta: PathBuf,
    upgrade: PathBuf,
    old: PathBuf,
}

impl Dirs {
    fn of(root: &Path) -> Result<Dirs> {
        let table = layout::table_dir(root, &meta::meta_region_info()?.table);
        Ok(Dirs {
            meta: table.join(meta::META_ENCODED),
            upgrade: table.join(format!("{}.upgrade", meta::META_ENCODED)),
            old: table.join(format!("{}.v2", meta::META_ENCODED)),
        })
    }
}

/// Brings a version 2 directory to version 3. `segments` are the write-ahead log segments
/// the last run left (meta's edits among them); `config` is the engine's region settings.
pub fn meta_order(
    fs: &Arc<dyn FileSystem>,
    root: &Path,
    segments: &[PathBuf],
    clock: &Arc<dyn Clock>,
    config: &RegionConfig,
) -> Result<()> {
    let dirs = Dirs::of(root)?;
    let marked = |dir: &Path| fs.exists(&dir.join(MARKER)).map_err(storage);
    if !marked(&dirs.upgrade)? && !marked(&dirs.meta)? {
        layout::delete_dir(fs.as_ref(), &dirs.upgrade)?;
        convert(fs, &dirs, segments, clock, config)?;
    }
    finish(fs.as_ref(), root, &dirs)
}

/// Step 3, from wherever an interrupted run left it; also tidies after a finished one.
fn finish(fs: &dyn FileSystem, root: &Path, dirs: &Dirs) -> Result<()> {
    if fs.exists(&dirs.upgrade.join(MARKER)).map_err(storage)? {
        if fs.exists(&dirs.meta).map_err(storage)? {
            fs.rename(&dirs.meta, &dirs.old).map_err(storage)?;
        }
        fs.rename(&dirs.upgrade, &dirs.meta).map_err(storage)?;
        if let Some(parent) = dirs.meta.parent() {
            fs.sync_dir(parent).map_err(storage)?;
        }
    }
    layout::write_version(fs, root)?;
    tidy(fs, dirs)
}

/// Deletes what a finished upgrade leaves: the marker and the old region.
fn tidy(fs: &dyn FileSystem, dirs: &Dirs) -> Result<()> {
    let marker = dirs.meta.join(MARKER);
    if fs.exists(&marker).map_err(storage)? {
        fs.delete(&marker).map_err(storage)?;
    }
    layout::delete_dir(fs, &dirs.old)
}

/// After a version 3 directory opened: the leftovers of an upgrade that stopped just after
/// writing the version file.
pub fn tidy_after(fs: &dyn FileSystem, root: &Path) -> Result<()> {
    tidy(fs, &Dirs::of(root)?)
}

/// Steps 1 and 2.
fn convert(
    fs: &Arc<dyn FileSystem>,
    dirs: &Dirs,
    segments: &[PathBuf],
    clock: &Arc<dyn Clock>,
    config: &RegionConfig,
) -> Result<()> {
    // The engine's WAL and memstore budget stay out of it: the old region's edits come back
    // from the segments, and the new region writes straight to store files.
    let plain = RegionConfig {
        wal: None,
        budget: None,
        legacy_meta_rows: true,
        ..config.clone()
    };
    let old = Region::open(
        meta::meta_region_info()?,
        meta::meta_descriptor()?,
        Arc::clone(clock),
        plain,
        Arc::clone(fs),
        &dirs.meta,
    )?;
    basalt_regionserver::recover(fs.as_ref(), segments, &[&old], false)?;
    let last_seq_id = old.last_sequence_id();
    let mut by_seq: BTreeMap<u64, Vec<Cell>> = BTreeMap::new();
    let everything = Scan::new().raw(true).read_versions(u32::MAX);
    for row in old.scan(&everything)? {
        for cell in row?.cells {
            let key = meta_keys::encode(cell.row());
            let stored = Cell::new(
                &key,
                cell.family(),
                cell.qualifier(),
                cell.timestamp,
                cell.cell_type,
                cell.value(),
            )
            .with_ttl_ms(cell.ttl_ms);
            by_seq.entry(cell.seq_id.max(1)).or_default().push(stored);
        }
    }
    drop(old);
    let new = Region::open(
        meta::meta_region_info()?,
        meta::meta_descriptor()?,
        Arc::clone(clock),
        RegionConfig {
            wal: None,
            budget: None,
            ..config.clone()
        },
        Arc::clone(fs),
        &dirs.upgrade,
    )?;
    let edit = |seq_id: u64, cells: Vec<Cell>| WalEdit {
        region: meta::META_ENCODED.to_owned(),
        table: new.descriptor().name.to_string(),
        seq_id,
        write_time_ms: clock.now_millis(),
        origin: Default::default(),
        cells,
    };
    for (seq_id, cells) in by_seq {
        new.replay(&edit(seq_id, cells))?;
    }
    // No sequence id goes back: the log's meta edits up to the old region's last one must be
    // skipped when the new region replays the log.
    new.replay(&edit(last_seq_id.max(1), Vec::new()))?;
    new.flush()?;
    if new.last_sequence_id() < last_seq_id {
        return Err(basalt_common::Error::storage(format!(
            "upgrading hbase:meta: the new region's sequence id {} is below the old one's {last_seq_id}",
            new.last_sequence_id()
        )));
    }
    drop(new);
    basalt_fs::write_atomically(fs.as_ref(), &dirs.upgrade.join(MARKER), b"").map_err(storage)
}
