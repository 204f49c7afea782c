//! Snapshots (issue 33, first part): a table's store files at a moment, kept by hard links
//! (`FileSystem::link`) under `<root>/.hbase-snapshot/<name>/`, with HBase's manifest
//! messages. Taking one flushes each region and links its files: no data is copied, writes go
//! on into the memstores, and each region is consistent as of its flush. Compactions and drops
//! delete the table's own names as before; the snapshot's names keep the bytes until the
//! snapshot is deleted. Layout and format: `docs/design/snapshots.md`.
//!
//! Taken in the master's own process (standalone) for now: a cluster's regions are on other
//! servers.

use std::path::{Path, PathBuf};

use basalt_common::{Error, Result, TableName};
use basalt_fs::FsError;
use basalt_proto::pb;
use basalt_proto::schema;
use prost::Message;

use crate::master::Master;

mod restore;
pub use restore::{clone_plan, link_into, restore, settle_journal};

/// The snapshots' directory under the root (HBase's `.hbase-snapshot`).
pub const SNAPSHOT_DIR: &str = ".hbase-snapshot";
/// Snapshots being taken; a crash leaves them here, and the next snapshot of that name (or
/// a restart's cleanup) removes them.
const TMP_DIR: &str = ".tmp";
const INFO_FILE: &str = ".snapshotinfo";
const MANIFEST_FILE: &str = "data.manifest";
const FILES_DIR: &str = "files";
/// HBase's snapshot format version with a single data manifest.
const FORMAT_VERSION: i32 = 2;
/// A region whose files change while they are linked (a compaction) is tried again.
const ATTEMPTS: usize = 5;

/// A snapshot as `list_snapshots` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    pub name: String,
    pub table: TableName,
    /// Milliseconds since the epoch.
    pub creation_time: i64,
}

fn storage(e: FsError) -> Error {
    Error::storage_from(e)
}

fn snapshots_dir(master: &Master) -> PathBuf {
    master.root().join(SNAPSHOT_DIR)
}

/// HBase's rule for snapshot names: letters, digits, `_`, `-` and `.`, not starting with `.`.
fn check_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "bad snapshot name {name:?}: letters, digits, '_', '-' and '.', not starting with '.'"
        )))
    }
}

/// Takes snapshot `name` of `table` (FLUSH type: each region flushed, then its files linked).
pub fn take(master: &Master, name: &str, table: &TableName) -> Result<()> {
    check_name(name)?;
    let fs = master.fs.as_ref();
    let dir = snapshots_dir(master);
    let done = dir.join(name);
    if fs.exists(&done).map_err(storage)? {
        return Err(Error::Refused(format!("snapshot {name} already exists")));
    }
    let hosted = master.table(table)?;
    let tmp = dir.join(TMP_DIR).join(name);
    if fs.exists(&tmp).map_err(storage)? {
        fs.delete_dir_all(&tmp).map_err(storage)?;
    }
    fs.create_dir_all(&tmp).map_err(storage)?;
    let taken = (|| {
        let mut manifest = pb::SnapshotDataManifest {
            table_schema: schema::schema(&hosted.descriptor()),
            region_manifests: Vec::new(),
        };
        for placed in hosted.placed() {
            let region = placed.region.ok_or_else(|| {
                Error::Refused(format!(
                    "snapshot of {table}: its regions are on other servers (snapshots of a \
                     cluster's tables are not supported yet)"
                ))
            })?;
            manifest
                .region_manifests
                .push(link_region(fs, &region, &tmp.join(FILES_DIR))?);
        }
        let info = pb::SnapshotDescription {
            name: name.to_owned(),
            table: Some(table.to_string()),
            creation_time: Some(master.clock.now_millis()),
            r#type: Some(pb::snapshot_description::Type::Flush as i32),
            version: Some(FORMAT_VERSION),
            owner: None,
            ttl: None,
        };
        basalt_fs::write_atomically(fs, &tmp.join(INFO_FILE), &info.encode_to_vec())
            .map_err(storage)?;
        basalt_fs::write_atomically(fs, &tmp.join(MANIFEST_FILE), &manifest.encode_to_vec())
            .map_err(storage)?;
        fs.sync_dir(&tmp).map_err(storage)?;
        // The rename makes it whole at once: a crash before leaves only the temporary one.
        fs.rename(&tmp, &done).map_err(storage)?;
        fs.sync_dir(&dir).map_err(storage)
    })();
    if taken.is_err() {
        let _ = fs.delete_dir_all(&tmp);
    }
    taken
}

/// Flushes `region` and links its store files under `files/<encoded name>/<family>/`; a
/// region still reading a parent's files through references is major-compacted first (its
/// snapshot must not depend on the parent's files).
fn link_region(
    fs: &dyn basalt_fs::FileSystem,
    region: &basalt_region::Region,
    files_dir: &Path,
) -> Result<pb::SnapshotRegionManifest> {
    region.flush()?;
    if region.has_references() {
        region.compact(true)?;
    }
    let region_dir = files_dir.join(region.encoded_name());
    let mut last_error = None;
    for _ in 0..ATTEMPTS {
        if fs.exists(&region_dir).map_err(storage)? {
            fs.delete_dir_all(&region_dir).map_err(storage)?;
        }
        let mut family_files = Vec::new();
        let linked = (|| {
            for (family, files) in region.store_files() {
                let family_dir = region_dir.join(String::from_utf8_lossy(&family).as_ref());
                fs.create_dir_all(&family_dir).map_err(storage)?;
                let mut store_files = Vec::new();
                for basalt_region::StoreFileEntry {
                    path,
                    size,
                    reference,
                } in files
                {
                    if reference {
                        return Err(Error::Refused(
                            "a region gained references while it was linked".into(),
                        ));
                    }
                    let file_name = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    fs.link(&path, &family_dir.join(&file_name))
                        .map_err(storage)?;
                    store_files.push(pb::snapshot_region_manifest::StoreFile {
                        name: file_name,
                        file_size: Some(size),
                    });
                }
                fs.sync_dir(&family_dir).map_err(storage)?;
                family_files.push(pb::snapshot_region_manifest::FamilyFiles {
                    family_name: family.to_vec(),
                    store_files,
                });
            }
            Ok(())
        })();
        match linked {
            Ok(()) => {
                return Ok(pb::SnapshotRegionManifest {
                    version: Some(FORMAT_VERSION),
                    region_info: schema::region_info_pb(region.info()),
                    family_files,
                });
            }
            // A compaction replaced a file between the listing and the link: list again.
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| Error::storage("linking the region's files failed")))
}

impl SnapshotInfo {
    /// As HBase's `SnapshotDescription` (FLUSH type).
    pub fn description(&self) -> pb::SnapshotDescription {
        pb::SnapshotDescription {
            name: self.name.clone(),
            table: Some(self.table.to_string()),
            creation_time: Some(self.creation_time),
            r#type: Some(pb::snapshot_description::Type::Flush as i32),
            version: Some(FORMAT_VERSION),
            owner: None,
            ttl: None,
        }
    }
}

/// Snapshot `name`'s description.
pub fn info(master: &Master, name: &str) -> Result<SnapshotInfo> {
    check_name(name)?;
    read_info(master.fs.as_ref(), &snapshots_dir(master).join(name), name)
}

fn read_info(fs: &dyn basalt_fs::FileSystem, dir: &Path, name: &str) -> Result<SnapshotInfo> {
    let bytes = basalt_fs::read_all(fs, &dir.join(INFO_FILE)).map_err(|e| match e {
        FsError::NotFound(_) => Error::InvalidArgument(format!("no snapshot named {name}")),
        other => storage(other),
    })?;
    let info = pb::SnapshotDescription::decode(&bytes[..]).map_err(|e| {
        Error::corrupt(format!(
            "snapshot {name}: its {INFO_FILE} does not decode: {e}"
        ))
    })?;
    Ok(SnapshotInfo {
        name: info.name,
        table: TableName::parse(info.table.as_deref().unwrap_or_default())?,
        creation_time: info.creation_time.unwrap_or(0),
    })
}

/// Every snapshot taken, by name.
pub fn list(master: &Master) -> Result<Vec<SnapshotInfo>> {
    let fs = master.fs.as_ref();
    let dir = snapshots_dir(master);
    if !fs.exists(&dir).map_err(storage)? {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for name in fs.list(&dir).map_err(storage)? {
        if name == TMP_DIR {
            continue;
        }
        out.push(read_info(fs, &dir.join(&name), &name)?);
    }
    Ok(out)
}

/// Deletes snapshot `name`: its links go, and with the last name of a file, its bytes.
pub fn delete(master: &Master, name: &str) -> Result<()> {
    check_name(name)?;
    let fs = master.fs.as_ref();
    let dir = snapshots_dir(master).join(name);
    if !fs.exists(&dir).map_err(storage)? {
        return Err(Error::InvalidArgument(format!("no snapshot named {name}")));
    }
    fs.delete_dir_all(&dir).map_err(storage)?;
    fs.sync_dir(&snapshots_dir(master)).map_err(storage)
}

/// The manifest of snapshot `name`.
pub fn manifest(master: &Master, name: &str) -> Result<pb::SnapshotDataManifest> {
    check_name(name)?;
    let path = snapshots_dir(master).join(name).join(MANIFEST_FILE);
    let bytes = basalt_fs::read_all(master.fs.as_ref(), &path).map_err(|e| match e {
        FsError::NotFound(_) => Error::InvalidArgument(format!("no snapshot named {name}")),
        other => storage(other),
    })?;
    pb::SnapshotDataManifest::decode(&bytes[..]).map_err(|e| {
        Error::corrupt(format!(
            "snapshot {name}: the manifest does not decode: {e}"
        ))
    })
}
