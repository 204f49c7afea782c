//! An in-memory file system for tests, which can simulate a machine crash.
//!
//! Each file remembers how many of its bytes were synced, and each directory's entries are
//! durable as of its last [`FileSystem::sync_dir`]. [`MemFs::crash`] then does what a power loss
//! does to a local disk: every directory goes back to its last synced listing (an unsynced
//! rename is undone, an unsynced creation vanishes, an unsynced deletion comes back), and every
//! file keeps only its synced bytes. Directories themselves, once created, always survive, and
//! deleting or renaming a directory tree is immediately durable.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use bytes::Bytes;

use crate::error::{FsError, Result};
use crate::{FileLock, FileSystem, ReadableFile, WritableFile};

#[derive(Debug, Default)]
struct FileData {
    bytes: Vec<u8>,
    /// Bytes known to be on stable storage.
    synced: usize,
}

type Shared = Arc<RwLock<FileData>>;

#[derive(Debug, Default)]
struct Tree {
    dirs: BTreeSet<PathBuf>,
    files: BTreeMap<PathBuf, Shared>,
    /// The file entries as of each directory's last `sync_dir`: what a crash leaves.
    durable: BTreeMap<PathBuf, Shared>,
    locks: BTreeSet<PathBuf>,
}

/// An in-memory [`FileSystem`]; clones share the same files.
#[derive(Debug, Default, Clone)]
pub struct MemFs {
    tree: Arc<Mutex<Tree>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves the tree consistent before it could panic.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn parent(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

impl MemFs {
    pub fn new() -> Self {
        MemFs::default()
    }

    /// Simulates power loss (see the module documentation). Locks are released: their
    /// holders died.
    pub fn crash(&self) {
        let mut tree = lock(&self.tree);
        let Tree {
            files,
            durable,
            locks,
            ..
        } = &mut *tree;
        *files = durable.clone();
        for file in files.values() {
            let mut data = file.write().unwrap_or_else(PoisonError::into_inner);
            let synced = data.synced;
            data.bytes.truncate(synced);
        }
        locks.clear();
    }

    /// Moves a directory and everything below it. Like deleting a tree, it is durable at
    /// once (a real disk needs the parent directory synced; callers do that too).
    fn rename_dir(tree: &mut Tree, from: &Path, to: &Path) -> Result<()> {
        if tree.files.contains_key(to)
            || tree.files.keys().any(|f| f.starts_with(to))
            || tree.dirs.iter().any(|d| d.starts_with(to) && d != to)
        {
            return Err(FsError::AlreadyExists(to.to_owned()));
        }
        let moved = |p: &Path| -> PathBuf {
            p.strip_prefix(from)
                .map_or_else(|_| p.to_owned(), |rest| to.join(rest))
        };
        let dirs: Vec<PathBuf> = tree
            .dirs
            .iter()
            .filter(|d| d.starts_with(from))
            .cloned()
            .collect();
        for d in dirs {
            tree.dirs.remove(&d);
            tree.dirs.insert(moved(&d));
        }
        for map in [&mut tree.files, &mut tree.durable] {
            let under: Vec<PathBuf> = map
                .keys()
                .filter(|f| f.starts_with(from))
                .cloned()
                .collect();
            for f in under {
                if let Some(data) = map.remove(&f) {
                    map.insert(moved(&f), data);
                }
            }
        }
        Ok(())
    }

    fn check_dir(tree: &Tree, dir: &Path) -> Result<()> {
        // The root always exists, as on a disk.
        if dir.as_os_str().is_empty() || dir.parent().is_none() || tree.dirs.contains(dir) {
            Ok(())
        } else {
            Err(FsError::NotFound(dir.to_owned()))
        }
    }
}

impl FileSystem for MemFs {
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        let mut tree = lock(&self.tree);
        for ancestor in dir.ancestors().filter(|a| !a.as_os_str().is_empty()) {
            tree.dirs.insert(ancestor.to_owned());
        }
        Ok(())
    }

    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let mut tree = lock(&self.tree);
        Self::check_dir(&tree, &parent(path))?;
        if tree.files.contains_key(path) || tree.dirs.contains(path) {
            return Err(FsError::AlreadyExists(path.to_owned()));
        }
        let data: Shared = Arc::default();
        tree.files.insert(path.to_owned(), Arc::clone(&data));
        Ok(Box::new(MemWritable { data, len: 0 }))
    }

    fn open(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        let tree = lock(&self.tree);
        let data = tree
            .files
            .get(path)
            .ok_or_else(|| FsError::NotFound(path.to_owned()))?;
        let len = data
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
            .len() as u64;
        Ok(Arc::new(MemReadable {
            path: path.to_owned(),
            data: Arc::clone(data),
            len,
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let mut tree = lock(&self.tree);
        Self::check_dir(&tree, &parent(to))?;
        if tree.dirs.contains(from) {
            return Self::rename_dir(&mut tree, from, to);
        }
        let data = tree
            .files
            .remove(from)
            .ok_or_else(|| FsError::NotFound(from.to_owned()))?;
        tree.files.insert(to.to_owned(), data);
        Ok(())
    }

    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        let mut tree = lock(&self.tree);
        Self::check_dir(&tree, &parent(to))?;
        if tree.files.contains_key(to) || tree.dirs.contains(to) {
            return Err(FsError::AlreadyExists(to.to_owned()));
        }
        let data = tree
            .files
            .get(from)
            .cloned()
            .ok_or_else(|| FsError::NotFound(from.to_owned()))?;
        // Both names share the bytes, as a hard link does; the new entry is durable once its
        // directory is synced, like a creation.
        tree.files.insert(to.to_owned(), data);
        Ok(())
    }

    fn delete(&self, path: &Path) -> Result<()> {
        let mut tree = lock(&self.tree);
        tree.files
            .remove(path)
            .ok_or_else(|| FsError::NotFound(path.to_owned()))?;
        Ok(())
    }

    fn delete_dir_all(&self, dir: &Path) -> Result<()> {
        let mut tree = lock(&self.tree);
        if !tree.dirs.contains(dir) {
            return Err(FsError::NotFound(dir.to_owned()));
        }
        tree.dirs.retain(|d| !d.starts_with(dir));
        tree.files.retain(|f, _| !f.starts_with(dir));
        tree.durable.retain(|f, _| !f.starts_with(dir));
        Ok(())
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let tree = lock(&self.tree);
        if !tree.dirs.contains(dir) {
            return Err(FsError::NotFound(dir.to_owned()));
        }
        let children = tree
            .dirs
            .iter()
            .chain(tree.files.keys())
            .filter(|p| p.parent() == Some(dir));
        let mut names: Vec<String> = children
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        names.sort();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        let tree = lock(&self.tree);
        Ok(tree.files.contains_key(path) || tree.dirs.contains(path))
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let mut tree = lock(&self.tree);
        Self::check_dir(&tree, dir)?;
        let Tree { files, durable, .. } = &mut *tree;
        durable.retain(|p, _| p.parent() != Some(dir));
        for (path, data) in files.iter().filter(|(p, _)| p.parent() == Some(dir)) {
            durable.insert(path.clone(), Arc::clone(data));
        }
        Ok(())
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let mut tree = lock(&self.tree);
        if !tree.locks.insert(path.to_owned()) {
            return Err(FsError::Locked(path.to_owned()));
        }
        Ok(Box::new(MemLock {
            tree: Arc::clone(&self.tree),
            path: path.to_owned(),
        }))
    }
}

#[derive(Debug)]
struct MemWritable {
    data: Shared,
    len: u64,
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.data
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .bytes
            .extend_from_slice(data);
        self.len += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        // Appends already reach the "operating system" (the shared buffer) directly.
        Ok(())
    }

    fn sync(&mut self) -> Result<()> {
        let mut data = self.data.write().unwrap_or_else(PoisonError::into_inner);
        data.synced = data.bytes.len();
        Ok(())
    }

    fn len(&self) -> u64 {
        self.len
    }
}

#[derive(Debug)]
struct MemReadable {
    path: PathBuf,
    data: Shared,
    /// The length when opened: later appends are not seen, as with a local file.
    len: u64,
}

impl ReadableFile for MemReadable {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Bytes> {
        let data = self.data.read().unwrap_or_else(PoisonError::into_inner);
        let file_len = self.len;
        let visible = data
            .bytes
            .len()
            .min(usize::try_from(self.len).unwrap_or(usize::MAX));
        let range = usize::try_from(offset)
            .ok()
            .and_then(|start| Some(start..start.checked_add(len)?))
            .filter(|r| r.end <= visible);
        match range {
            Some(r) => Ok(Bytes::copy_from_slice(&data.bytes[r])),
            None => Err(FsError::short_read(&self.path, offset, len, file_len)),
        }
    }
}

#[derive(Debug)]
struct MemLock {
    tree: Arc<Mutex<Tree>>,
    path: PathBuf,
}

impl FileLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        lock(&self.tree).locks.remove(&self.path);
    }
}
