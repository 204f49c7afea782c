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
