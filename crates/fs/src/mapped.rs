//! Log files on the local disk written through a shared memory mapping: an append is a copy
//! into the file's pages in the page cache, with no system call, and survives the process
//! being killed as soon as it returns. Used for the WAL's segments, where a `write(2)` per
//! SYNC_WAL put was the largest single cost of an acknowledged write (BENCHMARKS.md).
//!
//! It also holds [`start_writeback`], the system call a buffered file uses to start writing
//! its pages early, [`set_direct_io`], with which `direct` turns direct I/O on and off, and
//! [`advise_random`], which turns the kernel's read-ahead off for store files.
//!
//! This is the workspace's one module with `unsafe` code: mapping a file is unsafe because
//! another handle could truncate or rewrite it under the mapping. Here the file is created
//! by this module (`create_new`), in a data directory the process holds an exclusive lock on,
//! and no other handle to it writes or truncates it while it is mapped; the blocks behind
//! the mapping are reserved up front (`posix_fallocate`), so a page fault never meets a full
//! disk (which would raise SIGBUS instead of an error).
#![allow(
    unsafe_code,
    reason = "memory-mapped log files; see the module documentation"
)]

use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use memmap2::{Advice, MmapMut, MmapOptions};

use crate::WritableFile;
use crate::error::{FsError, Result};

/// Asks the kernel to start writing `len` bytes of `file` from `from` to the device, without
/// waiting (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`; nothing elsewhere). Only
/// a hint: a write error shows at the file's next sync.
pub(crate) fn start_writeback(file: &File, from: u64, len: u64) {
    #[cfg(target_os = "linux")]
    if let (Ok(from), Ok(len)) = (i64::try_from(from), i64::try_from(len)) {
        // SAFETY: a system call on a descriptor `file` owns; no memory is passed.
        unsafe {
            libc::sync_file_range(file.as_raw_fd(), from, len, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, from, len);
}

/// Tells the kernel that `file` is read at random places (`POSIX_FADV_RANDOM`), so it reads
/// no more than each read asks for: its own read-ahead (up to the device's `read_ahead_kb`,
/// 8 MiB on some virtual disks) fills a page cache too small for the file with blocks nobody
/// reads. Only a hint; nothing elsewhere.
pub(crate) fn advise_random(file: &File) {
    #[cfg(target_os = "linux")]
    // SAFETY: a system call on a descriptor `file` owns; no memory is passed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Asks the kernel to read all of `file` into the page cache in the background
/// (`POSIX_FADV_WILLNEED`). Only a hint; nothing elsewhere.
pub(crate) fn advise_will_need(file: &File) {
    #[cfg(target_os = "linux")]
    // SAFETY: a system call on a descriptor `file` owns; no memory is passed.
    unsafe {
        libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_WILLNEED);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = file;
}

/// Turns direct I/O (`O_DIRECT`) on or off for `file`. Turning it on fails (`EINVAL`) where
/// the file system has no direct I/O; `direct` then writes through the page cache, and turns
/// it off again if a direct write is refused.
#[cfg(target_os = "linux")]
pub(crate) fn set_direct_io(file: &File, on: bool) -> std::io::Result<()> {
    let fd = file.as_raw_fd();
    // SAFETY: `fcntl` with F_GETFL / F_SETFL reads and sets a descriptor's status flags; the
    // descriptor is owned by `file` for both calls and no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let flags = if on {
        flags | libc::O_DIRECT
    } else {
        flags & !libc::O_DIRECT
    };
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Pages are made writable (`MADV_POPULATE_WRITE`) this far ahead of the last append, one
/// call per this many bytes: otherwise the first write to each 4 KiB page takes a page fault
/// (and the file system's `page_mkwrite`) on an acknowledged write's path, about one in twenty
/// small puts.
const POPULATE_AHEAD: u64 = 1 << 20;

/// A log file of `capacity` bytes reserved and mapped; appends beyond the capacity are
/// written with `pwrite(2)` instead. Dropping it unmaps the file and shortens it to the bytes
/// appended; a process that dies first leaves the file at its capacity, zeros after the last
/// append.
#[derive(Debug)]
pub(crate) struct MappedWritable {
    path: PathBuf,
    file: File,
    /// `None` only while dropping.
    map: Option<MmapMut>,
    len: u64,
    /// The mapping is populated for writing up to here; `u64::MAX` once the kernel said it
    /// cannot (before Linux 5.14), so it is not asked again.
    populated: u64,
}

/// Creates `path` (which must not exist), reserves `capacity` bytes of disk for it and maps
/// them. `Ok(Err(file))` hands back the new, empty file when the file system cannot reserve
/// or map it, so the caller can write it the ordinary way.
pub(crate) fn create(
    path: &Path,
    capacity: u64,
) -> Result<std::result::Result<MappedWritable, File>> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| FsError::io("create", path, e))?;
    let Ok(len) = libc::off_t::try_from(capacity) else {
        return Ok(Err(file));
    };
    let Ok(map_len) = usize::try_from(capacity) else {
        return Ok(Err(file));
    };
    if capacity == 0 {
        return Ok(Err(file));
    }
    // SAFETY: `posix_fallocate` only reads its integer arguments; the descriptor is open
    // and owned by `file` for the whole call.
    let reserved = unsafe { libc::posix_fallocate(file.as_raw_fd(), 0, len) };
    if reserved != 0 {
        // Not supported here, or no room: an empty, unmapped file is still a good log.
        file.set_len(0)
            .map_err(|e| FsError::io("truncate", path, e))?;
        return Ok(Err(file));
    }
    // SAFETY: the file was just created by this process (`create_new`) and is only written
    // through this mapping (and `pwrite` past its end); nothing truncates it while the
    // mapping lives (see `Drop`), and its `capacity` bytes are allocated, so every page of
    // the mapping is backed by the file.
    let map = match unsafe { MmapOptions::new().len(map_len).map_mut(&file) } {
        Ok(map) => map,
        Err(_) => {
            file.set_len(0)
                .map_err(|e| FsError::io("truncate", path, e))?;
            return Ok(Err(file));
        }
    };
    let mut mapped = MappedWritable {
        path: path.to_owned(),
        file,
        map: Some(map),
        len: 0,
        populated: 0,
    };
    mapped.populate_ahead();
    Ok(Ok(mapped))
}

impl MappedWritable {
    /// Populates the next stretch of the mapping once the appends come within
    /// [`POPULATE_AHEAD`] of the populated end. Only an optimisation: a failure is ignored.
    fn populate_ahead(&mut self) {
        let Some(map) = &self.map else { return };
        let map_len = map.len() as u64;
        if self.populated >= map_len || self.len + POPULATE_AHEAD <= self.populated {
            return;
        }
        let from = self.populated;
        let to = (from + POPULATE_AHEAD).min(map_len);
        self.populated =
            match map.advise_range(Advice::PopulateWrite, from as usize, (to - from) as usize) {
                Ok(()) => to,
                Err(_) => u64::MAX,
            };
    }
}

impl WritableFile for MappedWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let start = self.len as usize;
        let room = self
            .map
            .as_mut()
            .and_then(|map| map.get_mut(start..start + data.len()));
        match room {
            Some(room) => room.copy_from_slice(data),
            None => self
                .file
                .write_all_at(data, self.len)
                .map_err(|e| FsError::io("append", &self.path, e))?,
        }
        self.len += data.len() as u64;
        self.populate_ahead();
        Ok(())
    }

    /// Nothing to do: appended bytes are in the page cache already.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }

    /// `fdatasync(2)` writes the mapping's dirty pages as well as those written with
    /// `pwrite`.
    fn sync(&mut self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| FsError::io("sync", &self.path, e))
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl Drop for MappedWritable {
    fn drop(&mut self) {
        // Unmap first, then cut the unwritten reserve. A failure only leaves zeros after
        // the last record, which readers expect.
        drop(self.map.take());
        let _ = self.file.set_len(self.len);
    }
}
