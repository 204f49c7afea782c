//! The data directory's layout (docs/design/catalog.md; HBase's `FSUtils`,
//! `FSTableDescriptors`, `HRegionFileSystem`): where tables, regions and logs live, and the
//! files beside `hbase:meta`: `<root>/basalt.version`, `<root>/LOCK`, per table `.tabledesc`,
//! per region `.regioninfo`. Each is written whole under a temporary name, synced and renamed.
//! The region server and the master both use it; [`meta_schema`] is what every server knows
//! of `hbase:meta` without reading anything.

pub mod meta_schema;

use std::path::{Path, PathBuf};

use basalt_common::descriptor_file;
use basalt_common::{Error, RegionInfo, Result, TableDescriptor, TableName};
use basalt_fs::{FileSystem, FsError};

pub const VERSION_FILE: &str = "basalt.version";
const VERSION_TEXT: &str = "basalt-data 3\n";
/// The version before `hbase:meta`'s rows were stored in meta order.
const PLAIN_META_VERSION_TEXT: &str = "basalt-data 2\n";
pub const LOCK_FILE: &str = "LOCK";
/// In a region directory whose rows live elsewhere: a restore's new region before its catalog
/// commit (the snapshot has them), a restore's old region and a split or merge parent the
/// janitor drops (their rows are superseded or in the children). If no row of meta names such
/// a directory at the next open, it goes; a directory holding data without it is kept for
/// `basalt hbck`.
pub const DISPOSABLE: &str = ".disposable";

/// At the data directory's root while the cleaner chore is switched off (`cleaner_chore_switch
/// false`): no server deletes archived WAL segments. Kept on the shared storage so every
/// region server sees it, and a master taking over too.
pub const CLEANER_OFF: &str = "cleaner.off";

/// At the data directory's root while the snapshot cleanup is switched off
/// (`snapshot_cleanup_switch false`): snapshots past their TTL stay.
pub const SNAPSHOT_CLEANUP_OFF: &str = "snapshot-cleanup.off";

/// At the data directory's root while RPC throttles are switched off
/// (`disable_rpc_throttle`), and while exceeding them is switched on
/// (`enable_exceed_throttle_quota`).
pub const RPC_THROTTLE_OFF: &str = "rpc-throttle.off";
pub const EXCEED_THROTTLE_ON: &str = "exceed-throttle-quota.on";

/// Marks a region directory [`DISPOSABLE`] (nothing if it is gone already).
pub fn mark_disposable(fs: &dyn FileSystem, region_dir: &Path) -> Result<()> {
    if !fs.exists(region_dir).map_err(storage)? {
        return Ok(());
    }
    basalt_fs::write_atomically(fs, &region_dir.join(DISPOSABLE), b"").map_err(storage)
}
/// The meta region's encoded name (and directory), as HBase has always named it.
pub const META_ENCODED: &str = "1588230740";
/// Write-ahead log segments, one directory per server (HBase's `WALs/<server>`).
pub const WAL_DIR: &str = "WALs";
/// Segments no region needs any more (HBase's `oldWALs`).
pub const OLD_WAL_DIR: &str = "oldWALs";
/// The cluster's id (HBase's `hbase.id`): a UUID, made when the directory is first used.
pub const CLUSTER_ID_FILE: &str = "hbase.id";
const TABLEDESC: &str = ".tabledesc";
const REGIONINFO: &str = ".regioninfo";

/// A region's directory name: its encoded name (meta's fixed one for `hbase:meta`).
pub fn encoded_name(info: &RegionInfo) -> String {
    if info.table.is_meta() {
        META_ENCODED.to_owned()
    } else {
        info.encoded_name()
    }
}

pub fn storage(e: FsError) -> Error {
    Error::storage_from(e)
}

fn write_file(fs: &dyn FileSystem, path: &Path, bytes: &[u8]) -> Result<()> {
    basalt_fs::write_atomically(fs, path, bytes).map_err(storage)
}

fn read_text(fs: &dyn FileSystem, path: &Path) -> Result<String> {
    let bytes = basalt_fs::read_all(fs, path).map_err(storage)?;
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::corrupt(format!("{}: not UTF-8 text", path.display())))
}

/// What a data directory's version file says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// This version's layout (or a new directory, now written as this version).
    Current,
    /// Version 2: `hbase:meta`'s rows in plain byte order; opening it upgrades it (the
    /// client's `upgrade`).
    PlainMeta,
}

/// Creates the root directory and its version file, or checks the version file. With
/// `legacy`, a new directory is written as version 2 (for the upgrade's tests).
pub fn init_root(fs: &dyn FileSystem, root: &Path, legacy: bool) -> Result<Version> {
    fs.create_dir_all(root).map_err(storage)?;
    let version = root.join(VERSION_FILE);
    if fs.exists(&version).map_err(storage)? {
        let text = read_text(fs, &version)?;
        if text == VERSION_TEXT {
            return Ok(Version::Current);
        }
        if text == PLAIN_META_VERSION_TEXT {
            return Ok(Version::PlainMeta);
        }
        return Err(Error::corrupt(format!(
            "{}: expected {VERSION_TEXT:?}, found {text:?}: not a Basalt data directory this version can open",
            version.display()
        )));
    }
    if legacy {
        write_file(fs, &version, PLAIN_META_VERSION_TEXT.as_bytes())?;
        return Ok(Version::PlainMeta);
    }
    // The servers of a cluster may start together on one new directory: each writes the
    // same version file through a temporary file of its own, so none trips on another's.
    basalt_fs::write_atomically_shared(fs, &version, VERSION_TEXT.as_bytes()).map_err(storage)?;
    Ok(Version::Current)
}

/// Writes this version's version file.
pub fn write_version(fs: &dyn FileSystem, root: &Path) -> Result<()> {
    write_file(fs, &root.join(VERSION_FILE), VERSION_TEXT.as_bytes())
}

/// `<root>/data/<namespace>/<table>`.
pub fn table_dir(root: &Path, name: &TableName) -> PathBuf {
    root.join("data")
        .join(name.namespace())
        .join(name.qualifier())
}

pub fn read_descriptor(fs: &dyn FileSystem, table_dir: &Path) -> Result<TableDescriptor> {
    let path = table_dir.join(TABLEDESC);
    descriptor_file::from_text(&read_text(fs, &path)?)
        .map_err(|e| Error::corrupt(format!("{}: {e}", path.display())))
}

pub fn write_descriptor(
    fs: &dyn FileSystem,
    table_dir: &Path,
    descriptor: &TableDescriptor,
) -> Result<()> {
    fs.create_dir_all(table_dir).map_err(storage)?;
    write_file(
        fs,
        &table_dir.join(TABLEDESC),
        descriptor_file::to_text(descriptor).as_bytes(),
    )
}

/// Writes a region's `.regioninfo` ("PBUF" and HBase's RegionInfo message, as HBase does).
pub fn write_region_info(fs: &dyn FileSystem, region_dir: &Path, info: &RegionInfo) -> Result<()> {
    fs.create_dir_all(region_dir).map_err(storage)?;
    write_file(fs, &region_dir.join(REGIONINFO), &info.to_pb())
}

/// Deletes a directory tree if it exists.
pub fn delete_dir(fs: &dyn FileSystem, dir: &Path) -> Result<()> {
    match fs.delete_dir_all(dir) {
        Ok(()) | Err(FsError::NotFound(_)) => Ok(()),
        Err(e) => Err(storage(e)),
    }
}

/// The entries of a directory, or none if it does not exist.
pub fn list(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<String>> {
    if !fs.exists(dir).map_err(storage)? {
        return Ok(Vec::new());
    }
    fs.list(dir).map_err(storage)
}

/// The cluster's id, as `<root>/hbase.id` holds it; None until one is made.
pub fn read_cluster_id(fs: &dyn FileSystem, root: &Path) -> Result<Option<String>> {
    let path = root.join(CLUSTER_ID_FILE);
    if !fs.exists(&path).map_err(storage)? {
        return Ok(None);
    }
    let text = read_text(fs, &path)?;
    Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty()))
}

/// The cluster's id, made (a new random UUID) if the directory has none yet. Only the process
/// that owns the directory makes it: a standalone server, or a cluster's active master.
pub fn cluster_id(fs: &dyn FileSystem, root: &Path) -> Result<String> {
    if let Some(id) = read_cluster_id(fs, root)? {
        return Ok(id);
    }
    let id = new_uuid();
    write_file(fs, &root.join(CLUSTER_ID_FILE), id.as_bytes())?;
    Ok(id)
}

/// A random (version 4) UUID, from the clock, the process and a counter, mixed by MD5.
pub fn new_uuid() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let seed = format!(
        "{nanos}/{}/{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let mut bits = u128::from_be_bytes(basalt_common::md5::md5(seed.as_bytes()));
    // Version 4, variant 1, as java.util.UUID.randomUUID makes them.
    bits = (bits & !(0xf << 76)) | (0x4 << 76);
    bits = (bits & !(0x3 << 62)) | (0x2 << 62);
    basalt_common::replication::ClusterId(bits).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Servers starting together on one new directory all find it initialized: none trips on
    /// another's temporary version file (issue 45, part 8).
    #[test]
    fn many_servers_initialize_one_new_directory_at_once() {
        let base = std::env::temp_dir().join(format!("basalt-init-root-{}", std::process::id()));
        for round in 0..40 {
            let root = base.join(round.to_string());
            let fs = basalt_fs::LocalFs;
            std::thread::scope(|s| {
                let starts: Vec<_> = (0..6)
                    .map(|_| s.spawn(|| init_root(&fs, &root, false)))
                    .collect();
                for start in starts {
                    let started = start.join().unwrap_or_else(|_| panic!("a start panicked"));
                    assert_eq!(started.ok(), Some(Version::Current), "round {round}");
                }
            });
            let left: Vec<String> = list(&fs, &root)
                .unwrap_or_default()
                .into_iter()
                .filter(|n| n.contains(".tmp"))
                .collect();
            assert!(left.is_empty(), "round {round}: {left:?} left behind");
        }
        let _ = std::fs::remove_dir_all(&base);
    }
}
