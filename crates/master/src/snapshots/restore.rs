//! A snapshot's files back in a table: `clone_snapshot` (a new table) and `restore_snapshot`
//! (a disabled table's regions replaced by the snapshot's in one catalog commit).
//!
//! A restore writes the new regions' directories (each snapshot file linked in) and a
//! journal naming them with the snapshot's schema, then commits one `hbase:meta` mutation
//! that swaps the old regions' rows for the new ones. A crash before the commit leaves the
//! old table (the next open deletes the new directories, which no row owns, and the journal);
//! after it, the restored one (the next open writes the journal's schema and deletes the old
//! directories).

use std::path::Path;

use basalt_common::{
    Bytes, Error, RegionInfo, Result, TableDescriptor, TableName, descriptor_file,
};
use basalt_fs::FileSystem;
use basalt_layout as layout;
use basalt_proto::{pb, schema};

use super::{FILES_DIR, manifest, snapshots_dir, storage};
use crate::master::Master;
use crate::meta::{self, TableState};
use crate::procedures;

/// A restore's journal in the table's directory: the new regions' encoded names on the first
/// line, the schema to write once the catalog commit is in after it.
const JOURNAL: &str = ".restore";

/// Links one snapshot region's files (`files/<encoded>/<family>/`) into `region_dir`.
fn link_region_files(
    fs: &dyn FileSystem,
    snapshot_files: &Path,
    region: &pb::SnapshotRegionManifest,
    snapshot_region: &RegionInfo,
    region_dir: &Path,
) -> Result<()> {
    for family in &region.family_files {
        let family_name = String::from_utf8_lossy(&family.family_name).into_owned();
        let family_dir = region_dir.join(&family_name);
        fs.create_dir_all(&family_dir).map_err(storage)?;
        for file in &family.store_files {
            let from = snapshot_files
                .join(snapshot_region.encoded_name())
                .join(&family_name)
                .join(&file.name);
            fs.link(&from, &family_dir.join(&file.name))
                .map_err(storage)?;
        }
        fs.sync_dir(&family_dir).map_err(storage)?;
    }
    Ok(())
}

/// The snapshot's regions, in key order, with their `RegionInfo`s.
fn snapshot_regions(
    name: &str,
    manifest: &pb::SnapshotDataManifest,
) -> Result<Vec<(RegionInfo, pb::SnapshotRegionManifest)>> {
    let mut out = manifest
        .region_manifests
        .iter()
        .map(|r| {
            schema::region_info(&r.region_info)
                .map(|info| (info, r.clone()))
                .map_err(|e| Error::corrupt(format!("snapshot {name}: {e:?}")))
        })
        .collect::<Result<Vec<_>>>()?;
    out.sort_by(|a, b| a.0.start_key.cmp(&b.0.start_key));
    Ok(out)
}

/// Links snapshot `name`'s files into the regions of `table`, just made with the snapshot's
/// schema and region boundaries (and still empty): each snapshot region's files go to the new
/// region that starts at the same key, which then opens again to read them.
pub fn link_into(master: &Master, name: &str, table: &TableName) -> Result<()> {
    let manifest = manifest(master, name)?;
    let fs = master.fs.as_ref();
    let files_dir = snapshots_dir(master).join(name).join(FILES_DIR);
    let hosted = master.table(table)?;
    let placed = hosted.placed();
    for (info, region) in snapshot_regions(name, &manifest)? {
        let target = placed
            .iter()
            .find(|p| p.info.start_key == info.start_key)
            .ok_or_else(|| {
                Error::corrupt(format!(
                    "snapshot {name}: no region of {table} starts where {} does",
                    info.encoded_name()
                ))
            })?;
        link_region_files(
            fs,
            &files_dir,
            &region,
            &info,
            &master.region_dir(&target.info),
        )?;
    }
    // Open regions keep the file lists they opened with: each reads its new files once it
    // opens again.
    for old in &placed {
        old.server.reopen_region(&old.info)?;
        let new = master.placed(&old.info, &old.server);
        hosted.replace_regions(std::slice::from_ref(&old.info), vec![new]);
    }
    Ok(())
}

/// The table a clone of snapshot `name` makes: the snapshot's schema named `table`, and its
/// region boundaries (the split keys).
pub fn clone_plan(
    master: &Master,
    name: &str,
    table: &TableName,
) -> Result<(TableDescriptor, Vec<Bytes>)> {
    let manifest = manifest(master, name)?;
    let descriptor = snapshot_schema(name, table, &manifest)?;
    let splits = snapshot_regions(name, &manifest)?
        .into_iter()
        .map(|(info, _)| info.start_key)
        .filter(|k| !k.is_empty())
        .collect();
    Ok((descriptor, splits))
}

fn snapshot_schema(
    name: &str,
    table: &TableName,
    manifest: &pb::SnapshotDataManifest,
) -> Result<TableDescriptor> {
    schema::descriptor(table.clone(), &manifest.table_schema)
        .map_err(|e| Error::corrupt(format!("snapshot {name}: its schema: {e:?}")))
}

/// Restores `table` (disabled) to snapshot `name`, which must be of it: its schema and its
/// regions become the snapshot's, in one catalog commit. The table stays disabled.
pub fn restore(master: &Master, name: &str, table: &TableName) -> Result<()> {
    let manifest = manifest(master, name)?;
    let hosted = master.table(table)?;
    if hosted.is_enabled() {
        return Err(Error::TableNotDisabled(table.clone()));
    }
    let descriptor = snapshot_schema(name, table, &manifest)?;
    descriptor.validate()?;
    let old_rows = procedures::region_rows(master, table)?;
    let old_ids: Vec<i64> = old_rows
        .iter()
        .flat_map(|r| std::iter::once(&r.info).chain(&r.merge_parents))
        .map(|i| i.region_id)
        .collect();
    let id = procedures::next_region_id(master, &old_ids);
    let regions = snapshot_regions(name, &manifest)?;
    let new_infos: Vec<RegionInfo> = regions
        .iter()
        .map(|(info, _)| {
            RegionInfo::new(
                table.clone(),
                info.start_key.clone(),
                info.end_key.clone(),
                id,
            )
        })
        .collect();
    let fs = master.fs.as_ref();
    let table_dir = master.table_dir(table);
    let files_dir = snapshots_dir(master).join(name).join(FILES_DIR);
    let journal = table_dir.join(JOURNAL);
    // Before the commit: the new regions' directories and the journal. A failure here
    // leaves the table as it was (what was written goes now, or at the next open).
    let written = (|| {
        for ((info, region), new) in regions.iter().zip(&new_infos) {
            let dir = master.region_dir(new);
            layout::write_region_info(fs, &dir, new)?;
            layout::mark_disposable(fs, &dir)?;
            link_region_files(fs, &files_dir, region, info, &dir)?;
        }
        let names: Vec<String> = new_infos.iter().map(RegionInfo::encoded_name).collect();
        let text = format!(
            "{}\n{}",
            names.join(" "),
            descriptor_file::to_text(&descriptor)
        );
        basalt_fs::write_atomically(fs, &journal, text.as_bytes()).map_err(storage)?;
        fs.sync_dir(&table_dir).map_err(storage)
    })();
    let server = crate::rsgroup::pick(master, table)?;
    let mut batch = master.meta_batch();
    for row in &old_rows {
        batch.delete_row(row.info.region_name());
    }
    // The old regions' rows go with the commit: their directories with it, even if a crash
    // comes between.
    let written = written.and_then(|()| {
        for row in &old_rows {
            layout::mark_disposable(fs, &master.region_dir(&row.info))?;
            for parent in &row.merge_parents {
                layout::mark_disposable(fs, &master.region_dir(parent))?;
            }
        }
        Ok(())
    });
    for info in &new_infos {
        batch.region(info, "CLOSED", server.name());
    }
    batch.table_state(table, TableState::Disabled);
    let committed = written.and_then(|()| batch.commit(master.catalog().as_ref()));
    if let Err(e) = committed {
        // The commit may still have reached the log (a write whose sync failed): the next
        // open settles the journal either way. Until then the old regions stay.
        if !fs.exists(&journal).unwrap_or(true) {
            for info in &new_infos {
                let _ = layout::delete_dir(fs, &master.region_dir(info));
            }
        }
        return Err(e);
    }
    // Committed: the snapshot's regions are the table's now (after a crash too).
    for info in &new_infos {
        // Only an orphan's marker is ever read: one left by a crash here does no harm.
        let _ = fs.delete(&master.region_dir(info).join(layout::DISPOSABLE));
    }
    layout::write_descriptor(fs, &table_dir, &descriptor)?;
    hosted.set_descriptor(descriptor);
    fs.delete(&journal).map_err(storage)?;
    let old_placed = hosted.placed();
    let old: Vec<RegionInfo> = old_placed.iter().map(|p| p.info.clone()).collect();
    for p in &old_placed {
        match p.server.drop_region(&p.info) {
            // A cluster's server closed a disabled table's regions already.
            Ok(()) | Err(Error::NotServingRegion(_)) => {}
            Err(e) => return Err(e),
        }
    }
    for row in &old_rows {
        layout::delete_dir(fs, &master.region_dir(&row.info))?;
        for parent in &row.merge_parents {
            layout::delete_dir(fs, &master.region_dir(parent))?;
        }
    }
    let mut placed = Vec::new();
    let mut opened = master.meta_batch();
    for info in &new_infos {
        // The embedded engine keeps a disabled table's regions open, not serving; a
        // cluster's servers open them when the table is enabled.
        if master.local_server().is_some() {
            let seq_id = server.open_region(info)?;
            server.set_serving(info, false)?;
            opened.opened(info, seq_id);
        }
        placed.push(master.placed(info, &server));
    }
    hosted.replace_regions(&old, placed);
    // Only informational, as after a split.
    let _ = opened.commit(master.catalog().as_ref());
    Ok(())
}

/// At open, before a table's schema is read: a restore's journal left by a crash is
/// finished (its schema written) if the catalog has its regions, else dropped. The region
/// directories on the losing side go with the open's cleanup of what no row owns.
pub fn settle_journal(
    fs: &dyn FileSystem,
    table_dir: &Path,
    rows: &[meta::RegionRow],
) -> Result<()> {
    let journal = table_dir.join(JOURNAL);
    if !fs.exists(&journal).map_err(storage)? {
        return Ok(());
    }
    let bytes = basalt_fs::read_all(fs, &journal).map_err(storage)?;
    let text = String::from_utf8_lossy(&bytes);
    let (names, schema) = text.split_once('\n').unwrap_or((&text, ""));
    let committed = names.split(' ').filter(|n| !n.is_empty()).all(|n| {
        rows.iter()
            .any(|r| r.is_serving() && r.info.encoded_name() == n)
    });
    if committed {
        let descriptor = descriptor_file::from_text(schema)
            .map_err(|e| Error::corrupt(format!("{}: the schema: {e}", journal.display())))?;
        layout::write_descriptor(fs, table_dir, &descriptor)?;
    }
    fs.delete(&journal).map_err(storage)?;
    fs.sync_dir(table_dir).map_err(storage)
}
