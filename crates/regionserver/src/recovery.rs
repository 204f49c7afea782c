//! Recovery (HBase's WAL replay when a region opens after its server died): the edits of a
//! gone server's log go back into the memstores of the regions they belong to.

use basalt_common::Result;
use basalt_fs::FileSystem;
use basalt_region::Region;
use std::path::PathBuf;

/// Replays the segments an earlier run left (oldest first) into `regions`: every edit newer
/// than what a region's store files hold goes back into its memstore; edits of other regions
/// are skipped (boot replays meta first, then the regions meta lists). The regions that took
/// edits are flushed; the caller archives the segments once every region has replayed. A
/// crash at any point leaves the segments in place, and the next open replays them again:
/// edits the flush already wrote are skipped by sequence id. A segment damaged in the middle
/// stops the open with an error naming the segment and the offset; a torn final record (a
/// crash while appending) is expected and ignored. With `skip_corrupt`, such a segment is
/// replayed up to the damage, with a warning.
pub fn recover(
    fs: &dyn FileSystem,
    segments: &[PathBuf],
    regions: &[&Region],
    skip_corrupt: bool,
) -> Result<()> {
    if segments.is_empty() || regions.is_empty() {
        return Ok(());
    }
    let by_name: std::collections::HashMap<&str, &Region> =
        regions.iter().map(|r| (r.encoded_name(), *r)).collect();
    let mut replayed = std::collections::BTreeSet::new();
    for segment in segments {
        let contents = if skip_corrupt {
            let contents = basalt_wal::salvage_segment_file(fs, segment)?;
            if let basalt_wal::SegmentEnd::Corrupt { offset, reason } = &contents.end {
                // (A closed stderr must not stop recovery: a failed write is ignored.)
                use std::io::Write as _;
                let _ = writeln!(
                    std::io::stderr(),
                    "WARNING: WAL segment {} is corrupt at offset {offset} ({reason}); \
                     replaying the {} edits before it and skipping the rest",
                    segment.display(),
                    contents.edits.len()
                );
            }
            contents
        } else {
            basalt_wal::read_segment_file(fs, segment)?
        };
        for (_, edit) in &contents.edits {
            // Edits of regions that no longer exist (dropped tables, split parents) are skipped.
            if let Some(region) = by_name.get(edit.region.as_str())
                && region.replay(edit)?
            {
                replayed.insert(region.encoded_name());
            }
        }
    }
    for name in replayed {
        by_name[name].flush()?;
    }
    Ok(())
}

/// The directory, inside a region's, that holds the edits a WAL split left for it (HBase's
/// `recovered.edits`).
pub const RECOVERED_EDITS: &str = "recovered.edits";

/// Splits a dead server's log (HBase's `WALSplitter`): every edit of the segments in
/// `wal_dir` (oldest first) goes to its region's `recovered.edits/` as one WAL segment per
/// region, named after the split log and synced. The regions' new servers replay them when
/// they open the regions ([`replay_recovered_edits`]). Edits of regions whose directory is
/// gone (dropped tables, cleaned parents) are skipped. Writing the same split again (after a
/// crash of the master in the middle) replaces the files, so it is safe to repeat; the caller
/// deletes `wal_dir` afterwards. Returns how many edits were written.
pub fn split_log(
    fs: &dyn FileSystem,
    root: &std::path::Path,
    wal_dir: &std::path::Path,
    skip_corrupt: bool,
) -> Result<usize> {
    let storage = basalt_common::Error::storage_from;
    let segments = basalt_wal::segments_in(fs, wal_dir)?;
    let mut per_region: std::collections::BTreeMap<PathBuf, Vec<basalt_wal::WalEdit>> =
        std::collections::BTreeMap::new();
    for segment in &segments {
        let contents = if skip_corrupt {
            basalt_wal::salvage_segment_file(fs, segment)?
        } else {
            basalt_wal::read_segment_file(fs, segment)?
        };
        for (_, edit) in contents.edits {
            let Ok(table) = basalt_common::TableName::parse(&edit.table) else {
                continue;
            };
            let dir = crate::layout::table_dir(root, &table).join(&edit.region);
            per_region.entry(dir).or_default().push(edit);
        }
    }
    let name = wal_dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("split")
        .replace(',', "_");
    let mut written = 0;
    for (dir, edits) in per_region {
        if !fs.exists(&dir).map_err(storage)? {
            continue;
        }
        let out_dir = dir.join(RECOVERED_EDITS);
        fs.create_dir_all(&out_dir).map_err(storage)?;
        let path = out_dir.join(format!("{name}.wal"));
        let tmp = out_dir.join(format!("{name}.wal.tmp"));
        let _ = fs.delete(&tmp);
        let mut writer = basalt_wal::SegmentWriter::create(fs, &tmp)?;
        for edit in &edits {
            writer.append(edit)?;
        }
        writer.sync()?;
        drop(writer);
        fs.rename(&tmp, &path).map_err(storage)?;
        fs.sync_dir(&out_dir).map_err(storage)?;
        written += edits.len();
    }
    Ok(written)
}

/// Replays the edits a WAL split left for `region` (see [`split_log`]) into its memstore,
/// flushes them to a store file, and deletes them. Edits the store files already hold are
/// skipped by sequence id, so a crash in the middle replays them again harmlessly.
pub fn replay_recovered_edits(fs: &dyn FileSystem, region: &Region) -> Result<usize> {
    let storage = basalt_common::Error::storage_from;
    let dir = region.dir().join(RECOVERED_EDITS);
    if !fs.exists(&dir).map_err(storage)? {
        return Ok(0);
    }
    let mut files: Vec<String> = fs
        .list(&dir)
        .map_err(storage)?
        .into_iter()
        .filter(|n| n.ends_with(".wal"))
        .collect();
    files.sort();
    let mut applied = 0;
    for file in &files {
        let contents = basalt_wal::read_segment_file(fs, &dir.join(file))?;
        for (_, edit) in &contents.edits {
            if edit.region == region.encoded_name() && region.replay(edit)? {
                applied += 1;
            }
        }
    }
    if applied > 0 {
        region.flush()?;
    }
    fs.delete_dir_all(&dir).map_err(storage)?;
    Ok(applied)
}
