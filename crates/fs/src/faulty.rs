//! A fault-injecting file system for crash and failure tests, over [`MemFs`].
//!
//! It adds what `MemFs` cannot show on its own:
//!
//! - **A process buffer.** Appended bytes stay in the writer until [`WritableFile::flush`] or
//!   [`WritableFile::sync`] hands them to the "operating system" (the `MemFs`), as with
//!   `LocalFs`'s buffered files. [`FaultyFs::kill`] is the process dying: every buffer is lost,
//!   flushed bytes survive. [`FaultyFs::crash`] is the machine losing power: buffers are lost,
//!   and only synced bytes and synced directory entries survive (`MemFs::crash`).
//! - **Injected faults.** One armed [`Fault`] fires at a chosen call: a write to the operating
//!   system fails, or is torn (a prefix of the bytes is written, then the call fails), or a sync
//!   fails after writing. [`Fault::random`] picks one from a seed.
//!
//! Handles cloned before a kill or crash belong to the dead process: every change through them
//! (creating, renaming, deleting, syncing, writing) fails, and dropping their writers writes
//! nothing, so threads the dead "process" left behind cannot touch its files. The handle that
//! called [`FaultyFs::kill`] or [`FaultyFs::crash`] lives on, as the next process.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use crate::error::{FsError, Result};
use crate::{FileLock, FileSystem, MemFs, ReadableFile, WritableFile};

/// A fault to inject, counted in calls that write to the operating system (`flush`, and
/// `sync`, which flushes first) or in `sync` calls, from when it is armed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The `n`th write to the operating system fails, writing nothing.
    FailWrite { n: u64 },
    /// The `n`th write to the operating system writes only its first `keep` bytes, then fails.
    TearWrite { n: u64, keep: usize },
    /// The `n`th sync writes its bytes to the operating system, but fails to make them durable.
    FailSync { n: u64 },
    /// The process dies at the `n`th step that changes something (a write to the operating
    /// system, a sync, a create, rename, delete or directory sync): that call fails, and so
    /// does every later change through any handle, until one of them calls
    /// [`FaultyFs::kill`] or [`FaultyFs::crash`] to become the next process.
    Die { n: u64 },
}

impl Fault {
    /// One of the three kinds at a call in `0..calls`, tearing after up to 64 bytes, chosen by
    /// `seed` (the same seed gives the same fault).
    pub fn random(seed: u64, calls: u64) -> Fault {
        let mut state = seed;
        let mut next = || {
            // splitmix64
            state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        let n = next() % calls.max(1);
        match next() % 3 {
            0 => Fault::FailWrite { n },
            1 => Fault::TearWrite {
                n,
                keep: (next() % 64) as usize,
            },
            _ => Fault::FailSync { n },
        }
    }
}

#[derive(Debug, Default)]
struct Faults {
    armed: Option<Fault>,
    writes: u64,
    syncs: u64,
    /// Changing calls since the fault was armed, for [`Fault::Die`].
    steps: u64,
    fired: u64,
    /// Every successful sync, armed or not.
    total_syncs: u64,
    /// How long each sync takes, as a disk's would.
    sync_delay: std::time::Duration,
}

/// A [`FileSystem`] over a [`MemFs`] with a process buffer, kills, crashes and injected
/// faults; see the module documentation. Clones share everything but their process.
#[derive(Debug, Default)]
pub struct FaultyFs {
    mem: MemFs,
    faults: Arc<Mutex<Faults>>,
    /// Bumped by every kill or crash.
    generation: Arc<AtomicU64>,
    /// The generation of the process this handle belongs to; dead once it is not current.
    born: AtomicU64,
}

impl Clone for FaultyFs {
    fn clone(&self) -> Self {
        FaultyFs {
            mem: self.mem.clone(),
            faults: Arc::clone(&self.faults),
            generation: Arc::clone(&self.generation),
            born: AtomicU64::new(self.born.load(Ordering::SeqCst)),
        }
    }
}

fn lock(m: &Mutex<Faults>) -> MutexGuard<'_, Faults> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the next write or sync call must do.
enum Action {
    Proceed,
    Fail,
    Tear(usize),
}

impl FaultyFs {
    pub fn new() -> Self {
        FaultyFs::default()
    }

    /// The file system underneath, as the operating system holds it.
    pub fn mem(&self) -> &MemFs {
        &self.mem
    }

    /// Arms `fault`, replacing any armed one; its call count starts now.
    pub fn arm(&self, fault: Fault) {
        let mut f = lock(&self.faults);
        f.armed = Some(fault);
        f.writes = 0;
        f.syncs = 0;
        f.steps = 0;
    }

    /// Disarms any armed fault.
    pub fn disarm(&self) {
        lock(&self.faults).armed = None;
    }

    /// Makes every sync take `delay`, as a real disk's does (for group commit tests).
    pub fn set_sync_delay(&self, delay: std::time::Duration) {
        lock(&self.faults).sync_delay = delay;
    }

    /// How many syncs have succeeded.
    pub fn sync_count(&self) -> u64 {
        lock(&self.faults).total_syncs
    }

    /// How many faults have fired.
    pub fn fired(&self) -> u64 {
        lock(&self.faults).fired
    }

    /// The process dies: bytes not yet flushed are lost; every other handle and every open
    /// writer become dead. This handle is the next process's.
    pub fn kill(&self) {
        let next = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        self.born.store(next, Ordering::SeqCst);
    }

    fn check_alive(&self, op: &'static str, path: &Path) -> Result<()> {
        if self.born.load(Ordering::SeqCst) != self.generation.load(Ordering::SeqCst) {
            return Err(killed(op, path));
        }
        if self.step() {
            return Err(killed(op, path));
        }
        Ok(())
    }

    /// Counts a changing call; true if an armed [`Fault::Die`] fires at it (the process is
    /// dead from now on).
    fn step(&self) -> bool {
        let mut f = lock(&self.faults);
        let n = f.steps;
        f.steps += 1;
        if f.armed == Some(Fault::Die { n }) {
            f.armed = None;
            f.fired += 1;
            self.generation.fetch_add(1, Ordering::SeqCst);
            return true;
        }
        false
    }

    /// The machine loses power: as [`FaultyFs::kill`], then only what was synced survives.
    pub fn crash(&self) {
        self.kill();
        self.mem.crash();
    }

    fn next_write(&self, syncing: bool) -> Action {
        if self.step() {
            return Action::Fail;
        }
        let mut f = lock(&self.faults);
        let (write_n, sync_n) = (f.writes, f.syncs);
        f.writes += 1;
        if syncing {
            f.syncs += 1;
        }
        let action = match f.armed {
            Some(Fault::FailWrite { n }) if n == write_n => Action::Fail,
            Some(Fault::TearWrite { n, keep }) if n == write_n => Action::Tear(keep),
            Some(Fault::FailSync { n }) if syncing && n == sync_n => Action::Tear(usize::MAX),
            _ => Action::Proceed,
        };
        if !matches!(action, Action::Proceed) {
            f.armed = None;
            f.fired += 1;
        }
        action
    }
}

fn killed(op: &'static str, path: &Path) -> FsError {
    FsError::Io {
        op,
        path: path.to_owned(),
        source: std::io::Error::other("the process using this file system was killed"),
    }
}

fn injected(op: &'static str, path: &Path) -> FsError {
    FsError::Io {
        op,
        path: path.to_owned(),
        source: std::io::Error::other("injected fault"),
    }
}

impl FileSystem for FaultyFs {
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.check_alive("create_dir_all", dir)?;
        self.mem.create_dir_all(dir)
    }

    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.check_alive("create", path)?;
        Ok(Box::new(FaultyWritable {
            inner: self.mem.create(path)?,
            path: path.to_owned(),
            pending: Vec::new(),
            fs: self.clone(),
            generation: self.born.load(Ordering::SeqCst),
        }))
    }

    fn open(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        self.mem.open(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.check_alive("rename", from)?;
        self.mem.rename(from, to)
    }

    fn delete(&self, path: &Path) -> Result<()> {
        self.check_alive("delete", path)?;
        self.mem.delete(path)
    }

    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        self.check_alive("link", to)?;
        self.mem.link(from, to)
    }

    fn delete_dir_all(&self, dir: &Path) -> Result<()> {
        self.check_alive("delete_dir_all", dir)?;
        self.mem.delete_dir_all(dir)
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.mem.list(dir)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        self.mem.exists(path)
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.check_alive("sync_dir", dir)?;
        self.mem.sync_dir(dir)
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.check_alive("lock", path)?;
        self.mem.lock(path)
    }
}

#[derive(Debug)]
struct FaultyWritable {
    inner: Box<dyn WritableFile>,
    path: PathBuf,
    /// Appended, not yet handed to the operating system.
    pending: Vec<u8>,
    fs: FaultyFs,
    generation: u64,
}

impl FaultyWritable {
    fn alive(&self) -> bool {
        self.generation == self.fs.generation.load(Ordering::SeqCst)
    }

    fn check_alive(&self, op: &'static str) -> Result<()> {
        if self.alive() {
            Ok(())
        } else {
            Err(FsError::Io {
                op,
                path: self.path.clone(),
                source: std::io::Error::other("the process that opened this file was killed"),
            })
        }
    }

    /// Hands the pending bytes to the operating system, unless a fault says otherwise.
    fn write_pending(&mut self, syncing: bool) -> Result<()> {
        let op = if syncing { "sync" } else { "flush" };
        self.check_alive(op)?;
        match self.fs.next_write(syncing) {
            Action::Proceed => {
                self.inner.append(&self.pending)?;
                self.pending.clear();
                Ok(())
            }
            Action::Fail => Err(injected(op, &self.path)),
            Action::Tear(keep) => {
                let keep = keep.min(self.pending.len());
                self.inner.append(&self.pending[..keep])?;
                self.pending.drain(..keep);
                // With everything written during a sync, this is a failed sync: nothing was
                // made durable.
                Err(injected(op, &self.path))
            }
        }
    }
}

impl WritableFile for FaultyWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.check_alive("append")?;
        self.pending.extend_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.write_pending(false)
    }

    fn sync(&mut self) -> Result<()> {
        self.write_pending(true)?;
        let delay = lock(&self.fs.faults).sync_delay;
        if !delay.is_zero() {
            std::thread::sleep(delay);
        }
        self.inner.sync()?;
        lock(&self.fs.faults).total_syncs += 1;
        Ok(())
    }

    fn len(&self) -> u64 {
        self.inner.len() + self.pending.len() as u64
    }
}

impl Drop for FaultyWritable {
    fn drop(&mut self) {
        // Dropping flushes (the contract), unless the process that opened the file is dead.
        if self.alive() && !self.pending.is_empty() {
            let _ = self.inner.append(&self.pending);
        }
    }
}
