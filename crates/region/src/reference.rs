//! Reference files: how a region reads another region's store file without copying it. A
//! split daughter (or a merged region) starts with one reference per parent file, named
//! `<parent file>.<parent encoded name>` in the same family's directory, holding the row range
//! of the parent file it reads. Compaction rewrites references into real files; then the
//! parent's directory can go. Format (docs/design/regions.md):
//!
//! ```text
//! "BREF" | u32 version = 1 | u32 n | start row (n bytes) | u32 m | end row (m bytes, empty =
//! to the end) | u32 CRC32C of everything before
//! ```

use std::path::{Path, PathBuf};

use basalt_common::{Bytes, Error, Result};
use basalt_fs::FileSystem;

const MAGIC: &[u8; 4] = b"BREF";
const VERSION: u32 = 1;

/// The rows `[start, end)` of a parent's store file that a reference reads (`end` empty: to
/// the end of the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    pub start: Bytes,
    pub end: Bytes,
}

impl RowRange {
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= &self.start[..] && (self.end.is_empty() || row < &self.end[..])
    }

    /// Whether some row in `[first, last]` is in the range.
    pub fn overlaps(&self, first: &[u8], last: &[u8]) -> bool {
        last >= &self.start[..] && (self.end.is_empty() || first < &self.end[..])
    }
}

/// A reference file's name: `<parent file>.<parent region>`.
pub fn reference_name(file: &str, parent_region: &str) -> String {
    format!("{file}.{parent_region}")
}

/// The parent file a reference named `name` in store directory `store_dir` points at, if
/// `name` is a reference's name.
pub fn referenced_path(store_dir: &Path, name: &str) -> Option<(PathBuf, String)> {
    let (file, parent) = name.split_once('.')?;
    if file.is_empty() || parent.is_empty() || parent.contains('.') {
        return None;
    }
    let family = store_dir.file_name()?;
    let table_dir = store_dir.parent()?.parent()?;
    Some((
        table_dir.join(parent).join(family).join(file),
        parent.to_owned(),
    ))
}

/// The encoded names of the regions whose files the region in `region_dir` reads through
/// references, from its store directories' file names (HBase's
/// `HRegionFileSystem.hasReferences`): what a master on shared storage learns without the
/// region open.
pub fn parents_on_disk(
    fs: &dyn FileSystem,
    region_dir: &Path,
) -> Result<std::collections::BTreeSet<String>> {
    let mut out = std::collections::BTreeSet::new();
    let storage = |e| Error::storage_from(e);
    if !fs.exists(region_dir).map_err(storage)? {
        return Ok(out);
    }
    for family in fs.list(region_dir).map_err(storage)? {
        // `.regioninfo` and the like, and recovered edits, are not stores.
        if family.starts_with('.') || family == "recovered.edits" {
            continue;
        }
        let store_dir = region_dir.join(&family);
        for name in fs.list(&store_dir).map_err(storage)? {
            if let Some((_, parent)) = referenced_path(&store_dir, &name) {
                out.insert(parent);
            }
        }
    }
    Ok(out)
}

/// Whether a region directory holds data of its own: a store file that is not a reference,
/// or recovered edits. A directory with only references (the child of a split or merge that
/// was never committed) holds nothing its parents do not.
pub fn holds_own_files(fs: &dyn FileSystem, region_dir: &Path) -> Result<bool> {
    let storage = |e| Error::storage_from(e);
    if !fs.exists(region_dir).map_err(storage)? {
        return Ok(false);
    }
    for family in fs.list(region_dir).map_err(storage)? {
        if family.starts_with('.') {
            continue;
        }
        let dir = region_dir.join(&family);
        for name in fs.list(&dir).map_err(storage)? {
            // Files being written (`.tmp`) are not data yet.
            let written = !name.starts_with('.') && !name.ends_with(".tmp");
            if family == "recovered.edits" || (written && referenced_path(&dir, &name).is_none()) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

pub(crate) fn encode(range: &RowRange) -> Vec<u8> {
    let mut b = Vec::with_capacity(20 + range.start.len() + range.end.len());
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_be_bytes());
    for part in [&range.start, &range.end] {
        b.extend_from_slice(&(part.len() as u32).to_be_bytes());
        b.extend_from_slice(part);
    }
    let crc = crc32c::crc32c(&b);
    b.extend_from_slice(&crc.to_be_bytes());
    b
}

pub(crate) fn decode(b: &[u8]) -> std::result::Result<RowRange, String> {
    let body_len = b.len().checked_sub(4).ok_or("shorter than its checksum")?;
    let (body, crc) = b.split_at(body_len);
    let crc = u32::from_be_bytes(crc.try_into().map_err(|_| "checksum")?);
    if crc32c::crc32c(body) != crc {
        return Err("checksum mismatch".into());
    }
    let rest = body.strip_prefix(MAGIC).ok_or("bad magic")?;
    let u32_at = |b: &[u8], at: usize| -> std::result::Result<u32, String> {
        b.get(at..at + 4)
            .and_then(|s| s.try_into().ok())
            .map(u32::from_be_bytes)
            .ok_or_else(|| format!("truncated at byte {}", at + 4))
    };
    if u32_at(rest, 0)? != VERSION {
        return Err(format!("unknown version {}", u32_at(rest, 0)?));
    }
    let mut at = 4;
    let mut parts = Vec::new();
    for _ in 0..2 {
        let n = u32_at(rest, at)? as usize;
        at += 4;
        let part = rest.get(at..at + n).ok_or("truncated row")?;
        parts.push(Bytes::copy_from_slice(part));
        at += n;
    }
    if at != rest.len() {
        return Err("trailing bytes".into());
    }
    let end = parts.pop().unwrap_or_default();
    let start = parts.pop().unwrap_or_default();
    Ok(RowRange { start, end })
}

/// Writes a reference (temporary name, synced, renamed).
pub fn write_reference(fs: &dyn FileSystem, path: &Path, range: &RowRange) -> Result<()> {
    basalt_fs::write_atomically(fs, path, &encode(range)).map_err(Error::storage_from)
}

/// Reads a reference, with an error naming the file if it is damaged.
pub fn read_reference(fs: &dyn FileSystem, path: &Path) -> Result<RowRange> {
    let bytes = basalt_fs::read_all(fs, path).map_err(Error::storage_from)?;
    decode(&bytes)
        .map_err(|reason| Error::corrupt(format!("reference file {}: {reason}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_damage() {
        let r = RowRange {
            start: Bytes::from_static(b"m"),
            end: Bytes::new(),
        };
        let b = encode(&r);
        assert_eq!(decode(&b), Ok(r.clone()));
        for i in 0..b.len() {
            let mut bad = b.clone();
            bad[i] ^= 1;
            assert!(decode(&bad).is_err(), "flip at {i} went unnoticed");
        }
        assert!(decode(&b[..b.len() - 1]).is_err());
        assert!(r.contains(b"m") && r.contains(b"zz") && !r.contains(b"a"));
        assert!(r.overlaps(b"a", b"m") && !r.overlaps(b"a", b"l"));
    }

    #[test]
    fn names() {
        let dir = Path::new("/d/data/default/t/daughter/cf");
        assert_eq!(
            referenced_path(dir, "00ab.parent"),
            Some((
                PathBuf::from("/d/data/default/t/parent/cf/00ab"),
                "parent".into()
            ))
        );
        assert_eq!(referenced_path(dir, "00ab"), None);
        assert_eq!(reference_name("00ab", "p"), "00ab.p");
    }
}
