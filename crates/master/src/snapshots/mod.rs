//! Snapshots (issue 33, first part): a table's store files at a moment, kept by hard links
//! (`FileSystem::link`) under `<root>/.hbase-snapshot/<name>/`, with HBase's manifest
//! messages. Taking one flushes each region and links its files: no data is copied, writes go
//! on into the memstores, and each region is consistent as of its flush. Compactions and drops
//! delete the table's own names as before; the snapshot's names keep the bytes until the
//! snapshot is deleted. Layout and format: `docs/design/snapshots.md`.
//!
//! In a cluster, the master asks each region's server to flush it and links the files from
//! the shared storage.

use std::path::{Path, PathBuf};

use basalt_common::{Bytes, Error, Result, TableName};
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
pub const FORMAT_VERSION: i32 = 2;
/// A region whose files change while they are linked (a compaction) is tried again.
const ATTEMPTS: usize = 5;

pub use basalt_common::snapshot::SnapshotInfo;

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

/// Takes snapshot `name` of `table` (FLUSH type: each region flushed, then its files linked),
/// to live `ttl_secs` seconds (0: for ever).
pub fn take(master: &Master, name: &str, table: &TableName, ttl_secs: i64) -> Result<()> {
    if ttl_secs < 0 {
        return Err(Error::InvalidArgument(format!(
            "snapshot {name}: TTL {ttl_secs} is negative (0 keeps it for ever)"
        )));
    }
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
        let families: Vec<Bytes> = hosted
            .descriptor()
            .families()
            .iter()
            .map(|f| f.name.clone())
            .collect();
        for placed in hosted.placed() {
            let source = match &placed.region {
                Some(region) => Source::Local(region),
                None => Source::Remote {
                    master,
                    placed: &placed,
                    families: &families,
                },
            };
            manifest
                .region_manifests
                .push(link_region(fs, &source, &tmp.join(FILES_DIR))?);
        }
        let info = pb::SnapshotDescription {
            name: name.to_owned(),
            table: Some(table.to_string()),
            creation_time: Some(master.clock.now_millis()),
            r#type: Some(pb::snapshot_description::Type::Flush as i32),
            version: Some(FORMAT_VERSION),
            owner: None,
            ttl: (ttl_secs > 0).then_some(ttl_secs),
            ..pb::SnapshotDescription::default()
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

/// Where a region's store files are read from: the open region in this process
/// (standalone), or the shared storage a cluster's region server writes them to.
enum Source<'a> {
    Local(&'a basalt_region::Region),
    Remote {
        master: &'a Master,
        placed: &'a crate::master::Placed,
        families: &'a [Bytes],
    },
}

impl Source<'_> {
    fn info(&self) -> &basalt_common::RegionInfo {
        match self {
            Source::Local(region) => region.info(),
            Source::Remote { placed, .. } => &placed.info,
        }
    }

    /// Flushes the region, and major-compacts one still reading a parent's files through
    /// references (its snapshot must not depend on the parent's files).
    fn prepare(&self) -> Result<()> {
        match self {
            Source::Local(region) => {
                region.flush()?;
                if region.has_references() {
                    region.compact(true)?;
                }
            }
            Source::Remote { master, placed, .. } => {
                placed.server.flush_region(&placed.info)?;
                let dir = master.region_dir(&placed.info);
                if !basalt_region::parents_on_disk(master.fs.as_ref(), &dir)?.is_empty() {
                    placed.server.compact_region(&placed.info, true)?;
                }
            }
        }
        Ok(())
    }

    /// Each family's store files now.
    fn store_files(&self) -> Result<Vec<(Bytes, Vec<basalt_region::StoreFileEntry>)>> {
        let (master, placed, families) = match self {
            Source::Local(region) => return Ok(region.store_files()),
            Source::Remote {
                master,
                placed,
                families,
            } => (master, placed, families),
        };
        // From the shared storage: a file being written ends in `.tmp`; a reference's name
        // has a dot (`<file>.<parent>`). A compaction's output listed beside the files it
        // replaced names them (COMPACTED_FROM), and opening a clone or restore drops those.
        let fs = master.fs.as_ref();
        let region_dir = master.region_dir(&placed.info);
        let mut out = Vec::new();
        for family in families.iter() {
            let dir = region_dir.join(String::from_utf8_lossy(family).as_ref());
            let mut files = Vec::new();
            let names = if fs.exists(&dir).map_err(storage)? {
                fs.list(&dir).map_err(storage)?
            } else {
                Vec::new()
            };
            for name in names.into_iter().filter(|n| !n.ends_with(".tmp")) {
                let path = dir.join(&name);
                let size = fs.open(&path).map_err(storage)?.len();
                files.push(basalt_region::StoreFileEntry {
                    path,
                    size,
                    reference: name.contains('.'),
                });
            }
            out.push((family.clone(), files));
        }
        Ok(out)
    }
}

/// Prepares the region and links its store files under `files/<encoded name>/<family>/`.
fn link_region(
    fs: &dyn basalt_fs::FileSystem,
    source: &Source<'_>,
    files_dir: &Path,
) -> Result<pb::SnapshotRegionManifest> {
    source.prepare()?;
    let region_dir = files_dir.join(source.info().encoded_name());
    let mut last_error = None;
    for _ in 0..ATTEMPTS {
        if fs.exists(&region_dir).map_err(storage)? {
            fs.delete_dir_all(&region_dir).map_err(storage)?;
        }
        let mut family_files = Vec::new();
        let linked = (|| {
            for (family, files) in source.store_files()? {
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
                    region_info: schema::region_info_pb(source.info()),
                    family_files,
                });
            }
            // A compaction replaced a file between the listing and the link: list again.
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.unwrap_or_else(|| Error::storage("linking the region's files failed")))
}

/// A snapshot as HBase's `SnapshotDescription` (FLUSH type).
pub fn description(info: &SnapshotInfo) -> pb::SnapshotDescription {
    pb::SnapshotDescription {
        name: info.name.clone(),
        table: Some(info.table.to_string()),
        creation_time: Some(info.creation_time),
        r#type: Some(pb::snapshot_description::Type::Flush as i32),
        version: Some(FORMAT_VERSION),
        owner: None,
        ttl: (info.ttl_secs > 0).then_some(info.ttl_secs),
        ..pb::SnapshotDescription::default()
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
        ttl_secs: info.ttl.unwrap_or(0).max(0),
    })
}

/// Deletes the snapshots whose time to live has passed (HBase's snapshot cleanup chore);
/// returns their names.
pub fn delete_expired(master: &Master) -> Result<Vec<String>> {
    let now = master.clock.now_millis();
    let mut gone = Vec::new();
    for s in list(master)?.into_iter().filter(|s| s.expired(now)) {
        delete(master, &s.name)?;
        gone.push(s.name);
    }
    Ok(gone)
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

/// What an export copied.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Copied {
    pub files: u64,
    pub bytes: u64,
}

/// Copies snapshot `name` from the data directory `from` to `to` (another Basalt data
/// directory, or a cluster's root), under `.hbase-snapshot/<name>`: its description, its
/// manifest and the bytes of every file it lists, each checked against the manifest's size.
/// It appears there whole (a rename) or not at all; `clone_snapshot` or `restore_snapshot`
/// there makes it a table. `copied` hears of each chunk's bytes as they go.
pub fn export(
    fs: &dyn basalt_fs::FileSystem,
    from: &Path,
    name: &str,
    to: &Path,
    copied: &mut dyn FnMut(u64),
) -> Result<Copied> {
    check_name(name)?;
    let source = from.join(SNAPSHOT_DIR).join(name);
    let manifest = read_manifest(fs, &source, name)?;
    let target_dir = to.join(SNAPSHOT_DIR);
    if fs.exists(&target_dir.join(name)).map_err(storage)? {
        return Err(Error::Refused(format!(
            "{} already has a snapshot named {name}",
            to.display()
        )));
    }
    let tmp = target_dir.join(TMP_DIR).join(name);
    if fs.exists(&tmp).map_err(storage)? {
        fs.delete_dir_all(&tmp).map_err(storage)?;
    }
    let mut total = Copied::default();
    let done = (|| {
        let mut copy = |from: &Path, to: &Path, expected: Option<u64>| -> Result<()> {
            let input = fs.open(from).map_err(storage)?;
            if let Some(size) = expected.filter(|&s| s != input.len()) {
                return Err(Error::corrupt(format!(
                    "{}: {} bytes where the manifest says {size}",
                    from.display(),
                    input.len()
                )));
            }
            if let Some(parent) = to.parent() {
                fs.create_dir_all(parent).map_err(storage)?;
            }
            let bytes =
                basalt_fs::copy_file(fs, input.as_ref(), to, &mut *copied).map_err(storage)?;
            total.files += 1;
            total.bytes += bytes;
            Ok(())
        };
        for region in &manifest.region_manifests {
            let info = schema::region_info(&region.region_info)
                .map_err(|e| Error::corrupt(format!("snapshot {name}: {e:?}")))?;
            for family in &region.family_files {
                let family_name = String::from_utf8_lossy(&family.family_name).into_owned();
                let rel = Path::new(FILES_DIR)
                    .join(info.encoded_name())
                    .join(&family_name);
                for file in &family.store_files {
                    copy(
                        &source.join(&rel).join(&file.name),
                        &tmp.join(&rel).join(&file.name),
                        file.file_size,
                    )?;
                }
                fs.sync_dir(&tmp.join(&rel)).map_err(storage)?;
            }
        }
        // The description and manifest last, then the rename makes it whole.
        copy(&source.join(MANIFEST_FILE), &tmp.join(MANIFEST_FILE), None)?;
        copy(&source.join(INFO_FILE), &tmp.join(INFO_FILE), None)?;
        fs.sync_dir(&tmp).map_err(storage)?;
        fs.rename(&tmp, &target_dir.join(name)).map_err(storage)?;
        fs.sync_dir(&target_dir).map_err(storage)
    })();
    if done.is_err() {
        let _ = fs.delete_dir_all(&tmp);
    }
    done.map(|()| total)
}

/// The total bytes of the files snapshot `name` in data directory `root` lists.
pub fn size(fs: &dyn basalt_fs::FileSystem, root: &Path, name: &str) -> Result<u64> {
    check_name(name)?;
    let manifest = read_manifest(fs, &root.join(SNAPSHOT_DIR).join(name), name)?;
    Ok(manifest
        .region_manifests
        .iter()
        .flat_map(|r| &r.family_files)
        .flat_map(|f| &f.store_files)
        .filter_map(|f| f.file_size)
        .sum())
}

fn read_manifest(
    fs: &dyn basalt_fs::FileSystem,
    dir: &Path,
    name: &str,
) -> Result<pb::SnapshotDataManifest> {
    let bytes = basalt_fs::read_all(fs, &dir.join(MANIFEST_FILE)).map_err(|e| match e {
        FsError::NotFound(_) => Error::InvalidArgument(format!("no snapshot named {name}")),
        other => storage(other),
    })?;
    pb::SnapshotDataManifest::decode(&bytes[..]).map_err(|e| {
        Error::corrupt(format!(
            "snapshot {name}: the manifest does not decode: {e}"
        ))
    })
}

/// The manifest of snapshot `name`.
pub fn manifest(master: &Master, name: &str) -> Result<pb::SnapshotDataManifest> {
    check_name(name)?;
    read_manifest(master.fs.as_ref(), &snapshots_dir(master).join(name), name)
}
