//! Bulk files on the local disk written around the page cache (`O_DIRECT`): store files,
//! which a flush or a compaction writes once, front to back, and nothing reads until they are
//! finished. A buffered `write(2)` of such a file spends most of its system time in the page
//! cache (allocating pages, the file system's per-page bookkeeping, the copy), on the same
//! CPUs that encode the file (BENCHMARKS.md, "The store file encoder"); a direct write hands
//! whole aligned chunks to the device.
//!
//! Appends fill a [`CHUNK`]-byte buffer aligned to [`ALIGN`]; a full one goes to a thread of
//! its own that writes it at its (aligned) offset while the appender fills the next, with at
//! most [`IN_FLIGHT`] chunks queued. `flush` and `sync` write the partly filled chunk padded
//! with zeros to the alignment and then cut the file back to the bytes appended, so a later
//! append rewrites that last block from the buffer, which still holds it.
//!
//! Where the file system refuses `O_DIRECT` (when it is turned on, or when a write fails with
//! `EINVAL`), the file is written through the page cache instead.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;

use crate::WritableFile;
use crate::error::{FsError, Result};

/// Offsets, lengths and buffer addresses of direct writes are multiples of this: the largest
/// logical block size in common use.
pub(crate) const ALIGN: usize = 4096;

/// Bytes per write. 1 MiB writes measured as fast as 4 MiB ones with `dd oflag=direct`.
const CHUNK: usize = 1 << 20;

/// Full chunks queued for the writing thread at most; an append that fills one more waits.
/// Eight let a flush's encoding run ahead while the device is slow for a moment: with three,
/// a 64 MiB flush took 85 ms at its median instead of 78 (BENCHMARKS.md).
const IN_FLIGHT: usize = 8;

/// A [`CHUNK`]-byte buffer starting at an [`ALIGN`]ed address (an over-allocated vector and
/// an offset into it), the bytes appended into it so far at its front.
struct Chunk {
    mem: Vec<u8>,
    start: usize,
    filled: usize,
}

impl Chunk {
    fn new() -> Chunk {
        let mem = vec![0u8; CHUNK + ALIGN];
        // For a byte pointer `align_offset` always succeeds, and is below ALIGN.
        let start = mem.as_ptr().align_offset(ALIGN).min(ALIGN);
        Chunk {
            mem,
            start,
            filled: 0,
        }
    }

    /// Copies as much of `data` as fits; returns how much that was.
    fn push(&mut self, data: &[u8]) -> usize {
        let n = data.len().min(CHUNK - self.filled);
        let at = self.start + self.filled;
        self.mem[at..at + n].copy_from_slice(&data[..n]);
        self.filled += n;
        n
    }

    fn is_full(&self) -> bool {
        self.filled == CHUNK
    }

    /// The filled bytes, zero-padded to a multiple of [`ALIGN`].
    fn padded(&mut self) -> &[u8] {
        let len = self.filled.next_multiple_of(ALIGN);
        let (from, to) = (self.start + self.filled, self.start + len);
        self.mem[from..to].fill(0);
        &self.mem[self.start..to]
    }
}

/// Writes `bytes` at `offset`; if the file system refuses the direct write, turns direct
/// I/O off for the file and writes through the page cache.
fn write_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    match file.write_all_at(bytes, offset) {
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
            crate::mapped::set_direct_io(file, false)?;
            file.write_all_at(bytes, offset)
        }
        other => other,
    }
}

/// The thread writing full chunks, and the channels to it.
struct Writer {
    submit: Option<SyncSender<(Chunk, u64)>>,
    done: Receiver<io::Result<Chunk>>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    fn spawn(file: &Arc<File>) -> io::Result<Writer> {
        let (submit, queue) = sync_channel::<(Chunk, u64)>(IN_FLIGHT);
        let (report, done) = channel();
        let file = Arc::clone(file);
        let thread = std::thread::Builder::new()
            .name("direct-write".into())
            .spawn(move || {
                for (mut chunk, offset) in queue {
                    let written = write_at(&file, chunk.padded(), offset).map(|()| chunk);
                    if report.send(written).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Writer {
            submit: Some(submit),
            done,
            thread: Some(thread),
        })
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        drop(self.submit.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A local file written with direct I/O; see the module documentation.
pub(crate) struct DirectWritable {
    path: PathBuf,
    file: Arc<File>,
    /// The chunk being filled; its first byte belongs at `chunk_at` in the file.
    chunk: Chunk,
    chunk_at: u64,
    len: u64,
    /// `len` when everything appended was last written out: a `sync` or `drop` with nothing
    /// appended since writes nothing. (Writing the padded last block again would make the
    /// file a whole block long until it is cut back, which a reader of the finished file, or
    /// one after a crash in between, would see.)
    written: u64,
    /// Started when the first chunk fills: a small file is written by `sync` alone.
    writer: Option<Writer>,
    spare: Vec<Chunk>,
    in_flight: usize,
}

impl std::fmt::Debug for DirectWritable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectWritable")
            .field("path", &self.path)
            .field("len", &self.len)
            .field("in_flight", &self.in_flight)
            .finish_non_exhaustive()
    }
}

/// Creates `path` (which must not exist) and turns direct I/O on for it. `Ok(Err(file))`
/// hands back the new, empty file when the file system has no direct I/O, for the caller to
/// write through the page cache. (The flag is set after the file is made: an `open` with
/// `O_DIRECT` that the file system refuses can leave the file created behind it.)
pub(crate) fn create(path: &Path) -> Result<std::result::Result<DirectWritable, File>> {
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| FsError::io("create", path, e))?;
    if crate::mapped::set_direct_io(&file, true).is_err() {
        return Ok(Err(file));
    }
    Ok(Ok(DirectWritable {
        path: path.to_owned(),
        file: Arc::new(file),
        chunk: Chunk::new(),
        chunk_at: 0,
        len: 0,
        written: 0,
        writer: None,
        spare: Vec::new(),
        in_flight: 0,
    }))
}

impl DirectWritable {
    fn error(&self, what: &'static str, e: io::Error) -> FsError {
        FsError::io(what, &self.path, e)
    }

    /// Waits for the writing thread to finish one chunk, and takes it back.
    fn reap(&mut self) -> Result<Chunk> {
        let gone = || io::Error::other("the writing thread is gone");
        let done = match &self.writer {
            Some(w) => w.done.recv().unwrap_or_else(|_| Err(gone())),
            None => Err(gone()),
        };
        self.in_flight -= 1;
        let mut chunk = done.map_err(|e| self.error("write", e))?;
        chunk.filled = 0;
        Ok(chunk)
    }

    /// Hands the full chunk to the writing thread (started on first use; where no thread
    /// can be started, writes it here), and starts filling another.
    fn send_full(&mut self) -> Result<()> {
        if self.writer.is_none() {
            self.writer = Writer::spawn(&self.file).ok();
        }
        let next = match self.spare.pop() {
            Some(chunk) => chunk,
            None if self.in_flight < IN_FLIGHT => Chunk::new(),
            None => self.reap()?,
        };
        let full = std::mem::replace(&mut self.chunk, next);
        let at = self.chunk_at;
        self.chunk_at += CHUNK as u64;
        let unsent = match self.writer.as_ref().and_then(|w| w.submit.as_ref()) {
            Some(submit) => match submit.send((full, at)) {
                Ok(()) => {
                    self.in_flight += 1;
                    return Ok(());
                }
                // The thread is gone (it panicked): write here.
                Err(std::sync::mpsc::SendError((chunk, _))) => chunk,
            },
            None => full,
        };
        self.write_here(unsent, at)
    }

    /// Writes `chunk` at `at` on this thread, and keeps it for reuse.
    fn write_here(&mut self, mut chunk: Chunk, at: u64) -> Result<()> {
        write_at(&self.file, chunk.padded(), at).map_err(|e| self.error("write", e))?;
        chunk.filled = 0;
        self.spare.push(chunk);
        Ok(())
    }

    /// Writes everything appended: waits for the queued chunks, then writes the partly
    /// filled one padded, and cuts the file back to the bytes appended.
    fn write_out(&mut self) -> Result<()> {
        if self.written == self.len {
            return Ok(());
        }
        while self.in_flight > 0 {
            let chunk = self.reap()?;
            self.spare.push(chunk);
        }
        if self.chunk.filled > 0 {
            let at = self.chunk_at;
            write_at(&self.file, self.chunk.padded(), at).map_err(|e| self.error("write", e))?;
            if !self.chunk.filled.is_multiple_of(ALIGN) {
                self.file
                    .set_len(self.len)
                    .map_err(|e| self.error("truncate", e))?;
            }
        }
        self.written = self.len;
        Ok(())
    }
}

impl WritableFile for DirectWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let mut rest = data;
        while !rest.is_empty() {
            let n = self.chunk.push(rest);
            rest = &rest[n..];
            if self.chunk.is_full() {
                self.send_full()?;
            }
        }
        self.len += data.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.write_out()
    }

    fn sync(&mut self) -> Result<()> {
        self.write_out()?;
        self.file.sync_data().map_err(|e| self.error("sync", e))
    }

    fn len(&self) -> u64 {
        self.len
    }
}

impl Drop for DirectWritable {
    /// Writes what was appended, as a buffered file's drop does; an error is lost, as there.
    fn drop(&mut self) {
        let _ = self.write_out();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_start_aligned() {
        for _ in 0..4 {
            let chunk = Chunk::new();
            assert_eq!((chunk.mem.as_ptr() as usize + chunk.start) % ALIGN, 0);
            assert!(chunk.mem.len() - chunk.start >= CHUNK);
        }
    }

    /// A direct write the file system refuses (here: an unaligned one) turns direct I/O off
    /// and is written through the page cache.
    #[test]
    fn a_refused_direct_write_goes_through_the_page_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        crate::mapped::set_direct_io(&file, true).unwrap();
        let refused = file.write_all_at(b"unaligned", 3).unwrap_err();
        assert_eq!(
            refused.raw_os_error(),
            Some(libc::EINVAL),
            "direct I/O is on"
        );
        write_at(&file, b"unaligned", 3).unwrap();
        drop(file);
        assert_eq!(std::fs::read(&path).unwrap(), b"\0\0\0unaligned");
    }

    /// A synced file is not written again when it is dropped: the store file writer renames
    /// it into place first, and a rewrite of its padded last block would show readers (and a
    /// crash) a block-long file with zeros where the trailer belongs.
    #[test]
    fn a_synced_file_is_left_alone_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small");
        let mut w = create(&path)
            .unwrap()
            .expect("ext4 and tmpfs take O_DIRECT");
        w.append(&[7u8; 1000]).unwrap();
        w.sync().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 1000);
        // Cut the file behind the writer's back: a drop that wrote again would restore it.
        OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(10)
            .unwrap();
        drop(w);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 10);
    }

    /// Many chunks queue for the writing thread; the file holds them in order, and the
    /// writer's buffers are reused rather than grown without bound.
    #[test]
    fn a_file_of_many_chunks_is_written_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let mut w = create(&path)
            .unwrap()
            .expect("ext4 and tmpfs take O_DIRECT");
        let piece: Vec<u8> = (0..999_983u32).map(|i| (i % 251) as u8).collect();
        for _ in 0..(3 * IN_FLIGHT) {
            w.append(&piece).unwrap();
        }
        assert!(w.in_flight + w.spare.len() <= IN_FLIGHT);
        w.sync().unwrap();
        let len = w.len();
        drop(w);
        let back = std::fs::read(&path).unwrap();
        assert_eq!(back.len() as u64, len);
        assert!(back.chunks(piece.len()).all(|c| c == &piece[..]));
    }
}
