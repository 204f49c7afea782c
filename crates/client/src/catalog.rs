//! The embedded engine's catalog files, beside the store files (docs/design/catalog-files.md):
//! `<root>/basalt.version`, `<root>/LOCK`, and per table `.tabledesc` and `.tablestate`, per
//! region `.regioninfo`. Each is written whole under a temporary name, synced and renamed.

use std::path::{Path, PathBuf};

use basalt_common::descriptor_file;
use basalt_common::{Error, Result, TableDescriptor};
use basalt_fs::{FileSystem, FsError};

pub(crate) const VERSION_FILE: &str = "basalt.version";
const VERSION_TEXT: &str = "basalt-data 1\n";
pub(crate) const LOCK_FILE: &str = "LOCK";
/// Write-ahead log segments, one directory per server (HBase's `WALs/<server>`).
pub(crate) const WAL_DIR: &str = "WALs";
/// The embedded engine's server directory under [`WAL_DIR`].
pub(crate) const SERVER_NAME: &str = "embedded";
/// Segments no region needs any more (HBase's `oldWALs`).
pub(crate) const OLD_WAL_DIR: &str = "oldWALs";
const TABLEDESC: &str = ".tabledesc";
const TABLESTATE: &str = ".tablestate";
const REGIONINFO: &str = ".regioninfo";

pub(crate) fn storage(e: FsError) -> Error {
    Error::Storage(e.to_string())
}

fn write_file(fs: &dyn FileSystem, path: &Path, bytes: &[u8]) -> Result<()> {
    basalt_fs::write_atomically(fs, path, bytes).map_err(storage)
}

fn read_text(fs: &dyn FileSystem, path: &Path) -> Result<String> {
    let bytes = basalt_fs::read_all(fs, path).map_err(storage)?;
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::Corrupt(format!("{}: not UTF-8 text", path.display())))
}

/// Creates the root directory and its version file, or checks the version file.
pub(crate) fn init_root(fs: &dyn FileSystem, root: &Path) -> Result<()> {
    fs.create_dir_all(root).map_err(storage)?;
    let version = root.join(VERSION_FILE);
    if fs.exists(&version).map_err(storage)? {
        let text = read_text(fs, &version)?;
        if text != VERSION_TEXT {
            return Err(Error::Corrupt(format!(
                "{}: expected {VERSION_TEXT:?}, found {text:?}: not a Basalt data directory this version can open",
                version.display()
            )));
        }
        return Ok(());
    }
    write_file(fs, &version, VERSION_TEXT.as_bytes())
}

/// A table found on disk.
pub(crate) struct StoredTable {
    pub descriptor: TableDescriptor,
    pub enabled: bool,
    pub region_dir: PathBuf,
}

/// Every complete table under `<root>/data`. A table directory without `.tabledesc` is a
/// create that did not finish (the descriptor is written last) and is removed.
pub(crate) fn load_tables(fs: &dyn FileSystem, root: &Path) -> Result<Vec<StoredTable>> {
    let data = root.join("data");
    if !fs.exists(&data).map_err(storage)? {
        return Ok(Vec::new());
    }
    let mut tables = Vec::new();
    for ns in fs.list(&data).map_err(storage)? {
        for table in fs.list(&data.join(&ns)).map_err(storage)? {
            let dir = data.join(&ns).join(&table);
            if !fs.exists(&dir.join(TABLEDESC)).map_err(storage)? {
                fs.delete_dir_all(&dir).map_err(storage)?;
                continue;
            }
            let descriptor = descriptor_file::from_text(&read_text(fs, &dir.join(TABLEDESC))?)
                .map_err(|e| Error::Corrupt(format!("{}: {e}", dir.join(TABLEDESC).display())))?;
            let enabled = read_text(fs, &dir.join(TABLESTATE))?.trim() == "ENABLED";
            let mut regions = Vec::new();
            for entry in fs.list(&dir).map_err(storage)? {
                // Dot-files are the table's own catalog files; region directories are not.
                let region = dir.join(&entry);
                if !entry.starts_with('.')
                    && fs.exists(&region.join(REGIONINFO)).map_err(storage)?
                {
                    regions.push(region);
                }
            }
            let [region_dir] = <[PathBuf; 1]>::try_from(regions).map_err(|found| {
                Error::Corrupt(format!(
                    "{}: expected one region, found {}",
                    dir.display(),
                    found.len()
                ))
            })?;
            tables.push(StoredTable {
                descriptor,
                enabled,
                region_dir,
            });
        }
    }
    Ok(tables)
}

/// Records a new table: its region's `.regioninfo`, its state, and last its descriptor.
pub(crate) fn write_new_table(
    fs: &dyn FileSystem,
    table_dir: &Path,
    region_dir: &Path,
    descriptor: &TableDescriptor,
    region_id: i64,
) -> Result<()> {
    let info = format!(
        "basalt-regioninfo 1\ntable {}\nid {region_id}\nstart \nend \n",
        descriptor.name
    );
    write_file(fs, &region_dir.join(REGIONINFO), info.as_bytes())?;
    write_state(fs, table_dir, true)?;
    write_file(
        fs,
        &table_dir.join(TABLEDESC),
        descriptor_file::to_text(descriptor).as_bytes(),
    )
}

/// Records whether a table is enabled.
pub(crate) fn write_state(fs: &dyn FileSystem, table_dir: &Path, enabled: bool) -> Result<()> {
    let state: &[u8] = if enabled { b"ENABLED\n" } else { b"DISABLED\n" };
    write_file(fs, &table_dir.join(TABLESTATE), state)
}
