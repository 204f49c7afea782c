//! Basalt's file-system seam. Every byte the engine stores goes through [`FileSystem`], so
//! tests can run on an in-memory file system that simulates crashes ([`MemFs`]) and injects
//! faults ([`FaultyFs`]), and store files can live on an object store (`ObjectFs`, cargo
//! feature `object-store`) without touching the engine.
//!
//! It is not a general-purpose VFS: it offers exactly what an LSM store needs (write-once files
//! built by appends, positional reads, atomic renames, listings, deletes, an exclusive lock on a
//! data directory) and nothing else.
//!
//! # Contract
//!
//! - [`FileSystem::create`] makes a new, empty file and fails if the path exists; parent
//!   directories must exist ([`FileSystem::create_dir_all`]).
//! - [`WritableFile::append`] adds bytes at the end. Appended bytes may sit in a buffer until
//!   [`WritableFile::flush`] (after which they survive the process being killed) or
//!   [`WritableFile::sync`] (after which they survive the machine losing power). Dropping a
//!   writable file flushes it, but only an explicit `sync` is a durability point.
//! - [`FileSystem::create_log`] makes a file for a log that grows to about a known size. Its
//!   appends survive the process being killed as soon as they return, with or without
//!   `flush` (where the file system allows, [`LocalFs`] writes through a memory mapping of
//!   reserved disk). Until the writer is dropped, and after a crash, the file may be longer
//!   than what was appended, with zeros after the last append.
//! - [`FileSystem::create_bulk`] makes a file like `create` does, for files written once and
//!   not read before they are synced (store files). [`LocalFs`] writes them with direct I/O,
//!   around the page cache, where the file system allows; `ObjectFs` uploads them, and its
//!   bulk files appear at `sync` or not at all (`flush` does nothing, and nothing may be
//!   appended after the `sync`).
//! - [`FileSystem::open`] fixes a readable file's length: bytes appended later are not seen.
//!   [`ReadableFile::read_at`] returns exactly the bytes asked for, or an error naming the file
//!   and offset when the file is shorter; it never returns fewer bytes silently.
//! - [`FileSystem::rename`] atomically replaces the target; [`FileSystem::sync_dir`] makes
//!   renames, creations and deletions in a directory durable.
//! - [`FileSystem::list`] returns the names (not paths) of a directory's entries, sorted.
//! - Deleting a file removes its name; handles already opened keep reading it (POSIX
//!   semantics), so a compaction can delete files that running scans still read.
//! - [`FileSystem::lock`] takes an exclusive lock on a path, failing at once with
//!   [`FsError::Locked`] if another holder has it (in this or another process, for [`LocalFs`]);
//!   dropping the returned guard releases it.

#[cfg(target_os = "linux")]
mod direct;
mod error;
mod faulty;
mod local;
mod mapped;
mod memory;
#[cfg(feature = "object-store")]
mod object;
#[cfg(feature = "object-store")]
mod s3_test_server;

use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

pub use error::{FsError, Result};
pub use faulty::{Fault, FaultyFs};
pub use local::LocalFs;
pub use memory::MemFs;
#[cfg(feature = "object-store")]
pub use object::{ObjectFs, ObjectStats, ObjectStoreConfig};
#[cfg(feature = "object-store")]
pub use s3_test_server::S3TestServer;

/// The object store at `url` (`s3://BUCKET[/PREFIX][?endpoint=...]`), connected; the error
/// names the store and what went wrong (without the cargo feature `object-store` there is
/// none to connect to, and it says so).
pub fn open_object_store(url: &str) -> std::result::Result<Arc<dyn FileSystem>, String> {
    #[cfg(feature = "object-store")]
    {
        let config = ObjectStoreConfig::parse(url)?;
        Ok(Arc::new(
            ObjectFs::connect(config).map_err(|e| e.to_string())?,
        ))
    }
    #[cfg(not(feature = "object-store"))]
    {
        Err(format!(
            "object store {url:?}: this basalt was built without object-store support (the \
             cargo feature `object-store`)"
        ))
    }
}

/// Where files live. See the crate documentation for the contract.
pub trait FileSystem: Send + Sync + Debug {
    fn create_dir_all(&self, dir: &Path) -> Result<()>;

    /// A new, empty file open for appending; fails if `path` exists.
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>>;

    /// A new, empty file for a log expected to grow to about `capacity` bytes (more is
    /// allowed); fails if `path` exists. See the crate documentation for what differs from
    /// [`FileSystem::create`]; by default it is `create`.
    fn create_log(&self, path: &Path, capacity: u64) -> Result<Box<dyn WritableFile>> {
        let _ = capacity;
        self.create(path)
    }

    /// A new, empty file that is written once, front to back, mostly in large appends, and
    /// read only once it is synced (a store file); fails if `path` exists. It keeps the
    /// contract of [`FileSystem::create`]; an implementation may write it around its cache
    /// ([`LocalFs`] uses direct I/O). By default it is `create`.
    fn create_bulk(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.create(path)
    }

    /// An existing file, for positional reads.
    fn open(&self, path: &Path) -> Result<Arc<dyn ReadableFile>>;

    /// Atomically renames `from` to `to`, replacing `to` if it exists.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;

    /// Makes `to` a second name of the file `from` (a hard link): the same bytes, kept while
    /// either name is, without a copy; fails if `to` exists. Snapshots keep store files this
    /// way. By default (a store without links) it copies `from` to `to` and syncs the copy.
    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        let source = self.open(from)?;
        copy_file(self, source.as_ref(), to, &mut |_| {}).map(|_| ())
    }

    fn delete(&self, path: &Path) -> Result<()>;

    /// Deletes a directory and everything below it.
    fn delete_dir_all(&self, dir: &Path) -> Result<()>;

    /// The names of a directory's entries, sorted.
    fn list(&self, dir: &Path) -> Result<Vec<String>>;

    fn exists(&self, path: &Path) -> Result<bool>;

    /// Makes the directory's entries (creations, renames, deletions) durable.
    fn sync_dir(&self, dir: &Path) -> Result<()>;

    /// An exclusive lock on `path` (created if missing), held until the guard is dropped.
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>>;
}

/// A file being written, by appends.
pub trait WritableFile: Send + Debug {
    fn append(&mut self, data: &[u8]) -> Result<()>;

    /// Hands buffered bytes to the operating system: they survive the process being killed.
    fn flush(&mut self) -> Result<()>;

    /// Flushes, then forces the bytes to stable storage: they survive power loss.
    fn sync(&mut self) -> Result<()>;

    /// Bytes appended so far.
    fn len(&self) -> u64;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A file read at arbitrary offsets, shareable between threads.
pub trait ReadableFile: Send + Sync + Debug {
    fn len(&self) -> u64;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Exactly `len` bytes from `offset`, or [`FsError::ShortRead`].
    fn read_at(&self, offset: u64, len: usize) -> Result<Bytes>;

    /// Tells the store that the file is read at random places (a large store file's
    /// blocks): it should read no more than each read asks for (the reader reads ahead
    /// itself where it scans). Only a hint; by default nothing.
    fn advise_random(&self) {}

    /// Reads from now on go around the operating system's page cache (`O_DIRECT` on a local
    /// disk): for a caller that caches what it reads itself, so the bytes are not held
    /// twice. Only a hint, kept where the file system cannot read directly; by default
    /// nothing.
    fn read_directly(&self) {}

    /// The whole file will be read soon: the store may bring it into memory in the
    /// background (`POSIX_FADV_WILLNEED` on a local disk). Only a hint; by default nothing.
    fn will_need(&self) {}
}

/// Proof of an exclusive lock; dropping it releases the lock.
pub trait FileLock: Send + Debug {}

/// Replaces `path` with `bytes`, atomically and durably: written to `<path>.tmp`, synced,
/// renamed over `path`, then the directory is synced.
pub fn write_atomically(fs: &dyn FileSystem, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp_name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    if fs.exists(&tmp)? {
        fs.delete(&tmp)?;
    }
    replace_through(fs, &tmp, path, bytes)
}

/// Writes `bytes` to `tmp`, syncs it, renames it over `path`, then syncs the directory.
fn replace_through(fs: &dyn FileSystem, tmp: &Path, path: &Path, bytes: &[u8]) -> Result<()> {
    let mut w = fs.create(tmp)?;
    w.append(bytes)?;
    w.sync()?;
    drop(w);
    fs.rename(tmp, path)?;
    match path.parent() {
        Some(dir) => fs.sync_dir(dir),
        None => Ok(()),
    }
}

/// [`write_atomically`] for a file that several processes may write at the same instant with
/// the same bytes (a new data directory's version file, when a cluster's servers start
/// together): each writes its own temporary file (`<path>.tmp.<pid>.<n>`) and renames it
/// over `path`, so no writer deletes or renames another's, and whichever rename is last
/// leaves the same file.
pub fn write_atomically_shared(fs: &dyn FileSystem, path: &Path, bytes: &[u8]) -> Result<()> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut tmp_name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    tmp_name.push(format!(
        ".tmp.{}.{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let tmp = path.with_file_name(tmp_name);
    let written = replace_through(fs, &tmp, path, bytes);
    if written.is_err() && fs.exists(&tmp).unwrap_or(false) {
        let _ = fs.delete(&tmp);
    }
    written
}

/// Copies `source` into a new file `to` in 4 MiB chunks, syncs it, and returns the bytes
/// copied; `progress` hears of each chunk's size.
pub fn copy_file<F: FileSystem + ?Sized>(
    fs: &F,
    source: &dyn ReadableFile,
    to: &Path,
    progress: &mut dyn FnMut(u64),
) -> Result<u64> {
    const CHUNK: u64 = 4 << 20;
    let mut out = fs.create(to)?;
    let mut at = 0;
    while at < source.len() {
        let n = usize::try_from((source.len() - at).min(CHUNK)).unwrap_or(1 << 20);
        let bytes = source.read_at(at, n)?;
        out.append(&bytes)?;
        at += bytes.len() as u64;
        progress(bytes.len() as u64);
    }
    out.sync()?;
    Ok(at)
}

/// The whole content of a file.
pub fn read_all(fs: &dyn FileSystem, path: &Path) -> Result<Bytes> {
    let f = fs.open(path)?;
    f.read_at(0, usize::try_from(f.len()).unwrap_or(usize::MAX))
}
