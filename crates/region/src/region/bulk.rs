//! Bulk load (HBase's `HRegion.bulkLoadHFiles`): prepared store files adopted into a region's
//! stores, all of them or none, also across a crash.
//!
//! The files are first linked (or copied) into `<region>/.bulkload-staging/`, checked and synced;
//! then the journal `<region>/.bulkload` names each staged file and its store file name; then
//! each is renamed into its family directory and the stores start reading it. A crash before
//! the journal leaves the region as it was (the next open deletes the staging directory); after
//! it, the next open finishes the renames before the stores open. Format:
//! `docs/design/bulk.md`.

use std::path::{Path, PathBuf};

use basalt_common::Bytes;
use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::error::{Error, Result};
use basalt_fs::{FileSystem, FsError};
use basalt_storefile::StoreFileReader;

use super::Region;

const JOURNAL: &str = ".bulkload";
const STAGING: &str = ".bulkload-staging";

fn storage(e: FsError) -> Error {
    Error::storage_from(e)
}

/// Links `from` to `to`, or copies its bytes where a link cannot be made (another device).
fn link_or_copy(fs: &dyn FileSystem, from: &Path, to: &Path) -> Result<()> {
    if fs.link(from, to).is_ok() {
        return Ok(());
    }
    let input = fs.open(from).map_err(storage)?;
    basalt_fs::copy_file(fs, input.as_ref(), to, &mut |_| {})
        .map(|_| ())
        .map_err(storage)
}

/// Finishes or drops a bulk load a crash interrupted; called before the stores open.
pub(super) fn settle(fs: &dyn FileSystem, dir: &Path) -> Result<()> {
    let journal = dir.join(JOURNAL);
    let staging = dir.join(STAGING);
    let (has_journal, has_staging) = (
        fs.exists(&journal).map_err(storage)?,
        fs.exists(&staging).map_err(storage)?,
    );
    if !has_journal && !has_staging {
        return Ok(());
    }
    if has_journal {
        let bytes = basalt_fs::read_all(fs, &journal).map_err(storage)?;
        for (staged, target) in parse_journal(&bytes, &journal)? {
            let (from, to) = (staging.join(&staged), dir.join(&target));
            if fs.exists(&from).map_err(storage)? {
                if let Some(parent) = to.parent() {
                    fs.create_dir_all(parent).map_err(storage)?;
                }
                fs.rename(&from, &to).map_err(storage)?;
                if let Some(parent) = to.parent() {
                    fs.sync_dir(parent).map_err(storage)?;
                }
            }
        }
        fs.delete(&journal).map_err(storage)?;
    }
    if has_staging {
        fs.delete_dir_all(&staging).map_err(storage)?;
    }
    fs.sync_dir(dir).map_err(storage)
}

/// `<staged name> <family>/<store file name>` per line.
fn parse_journal(bytes: &[u8], path: &Path) -> Result<Vec<(String, String)>> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Error::corrupt(format!("{}: not UTF-8", path.display())))?;
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            l.split_once(' ')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .ok_or_else(|| Error::corrupt(format!("{}: bad line {l:?}", path.display())))
        })
        .collect()
}

impl Region {
    /// Adopts prepared store files, `(family, path)`, into this region: every file or none.
    /// Each must be a store file of a family the table has, with all its rows inside the
    /// region, and its cells must carry no sequence ids (as `basalt importtsv` writes them;
    /// the bulk load tool rewrites other files): WAL replay decides what files hold by their
    /// sequence ids. The files are linked (or copied), never moved. Returns the cells adopted.
    pub fn bulk_load(&self, files: &[(Bytes, PathBuf)]) -> Result<u64> {
        if self.is_closed() {
            return Err(Error::NotServingRegion(
                String::from_utf8_lossy(&self.info.region_name()).into_owned(),
            ));
        }
        // Every space quota policy refuses bulk loads, as HBase's do.
        self.check_writable("BulkLoad")?;
        let fs = self.fs.as_ref();
        // One bulk load (or flush) at a time per region. A compaction may run meanwhile: it
        // replaces only the files it merged, so the adopted ones stay in the store's list.
        let _one = self
            .flushing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut checked = Vec::new();
        let mut cells = 0;
        for (family, path) in files {
            let store = self.store_index(family).map_err(|_| {
                Error::InvalidArgument(format!(
                    "bulk load of {}: the table has no family {}",
                    path.display(),
                    BinaryDisplay::new(family)
                ))
            })?;
            let reader = StoreFileReader::open(fs, path).map_err(|e| {
                Error::InvalidArgument(format!(
                    "bulk load of {}: not a store file: {e}",
                    path.display()
                ))
            })?;
            let info = reader.info();
            if info.family != family[..] {
                return Err(Error::InvalidArgument(format!(
                    "bulk load of {}: its cells are of family {}, not {}",
                    path.display(),
                    BinaryDisplay::new(&info.family),
                    BinaryDisplay::new(family)
                )));
            }
            if info.max_seq_id != 0 {
                return Err(Error::InvalidArgument(format!(
                    "bulk load of {}: its cells carry sequence ids (up to {}); load files \
                     prepared by `basalt importtsv`, or through `basalt bulkload`, which \
                     rewrites them",
                    path.display(),
                    info.max_seq_id
                )));
            }
            if info.cell_count > 0 {
                let (first, last) = (info.first_key.row(), info.last_key.row());
                if !self.info.contains_row(first) || !self.info.contains_row(last) {
                    return Err(Error::InvalidArgument(format!(
                        "bulk load of {}: rows {}..{} are not all inside region {}",
                        path.display(),
                        BinaryDisplay::new(first),
                        BinaryDisplay::new(last),
                        String::from_utf8_lossy(&self.info.region_name())
                    )));
                }
            }
            cells += info.cell_count;
            checked.push((store, path));
        }
        let staging = self.dir.join(STAGING);
        let journal = self.dir.join(JOURNAL);
        let now = self.now();
        let mut moves = Vec::new();
        let staged = (|| {
            if fs.exists(&staging).map_err(storage)? {
                fs.delete_dir_all(&staging).map_err(storage)?;
            }
            fs.create_dir_all(&staging).map_err(storage)?;
            let mut lines = String::new();
            for (i, (store, path)) in checked.iter().enumerate() {
                let staged = format!("{i:06}");
                link_or_copy(fs, path, &staging.join(&staged))?;
                let target = self.stores[*store].new_file_path(now);
                let rel = target
                    .strip_prefix(&self.dir)
                    .map_err(|_| Error::storage("a store file outside its region"))?
                    .to_string_lossy()
                    .into_owned();
                lines.push_str(&format!("{staged} {rel}\n"));
                moves.push((*store, staging.join(&staged), target));
            }
            fs.sync_dir(&staging).map_err(storage)?;
            // The commit point: from here the load completes, now or at the next open.
            basalt_fs::write_atomically(fs, &journal, lines.as_bytes()).map_err(storage)
        })();
        if let Err(e) = staged {
            let _ = fs.delete_dir_all(&staging);
            return Err(e);
        }
        for (store, from, to) in &moves {
            fs.rename(from, to).map_err(storage)?;
            if let Some(parent) = to.parent() {
                fs.sync_dir(parent).map_err(storage)?;
            }
            self.stores[*store].adopt(to)?;
        }
        fs.delete(&journal).map_err(storage)?;
        let _ = fs.delete_dir_all(&staging);
        fs.sync_dir(&self.dir).map_err(storage)?;
        Ok(cells)
    }
}
