//! The local disk, through `std::fs`.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

#[cfg(target_os = "linux")]
use crate::direct;
use crate::error::{FsError, Result};
use crate::mapped;
use crate::{FileLock, FileSystem, ReadableFile, WritableFile};

/// Buffer size of writable files: appends smaller than this reach the OS in batches.
const WRITE_BUFFER: usize = 64 * 1024;

/// Files on the local disk; paths are used as given.
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalFs;

impl FileSystem for LocalFs {
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        fs::create_dir_all(dir).map_err(|e| FsError::io("create directory", dir, e))
    }

    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| FsError::io("create", path, e))?;
        Ok(Box::new(LocalWritable::new(path, file)))
    }

    /// Direct I/O on Linux where the file system takes it; the page cache otherwise.
    fn create_bulk(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        #[cfg(target_os = "linux")]
        return Ok(match direct::create(path)? {
            Ok(direct) => Box::new(direct),
            Err(file) => Box::new(LocalWritable::new(path, file)),
        });
        #[cfg(not(target_os = "linux"))]
        self.create(path)
    }

    fn create_log(&self, path: &Path, capacity: u64) -> Result<Box<dyn WritableFile>> {
        Ok(match mapped::create(path, capacity)? {
            Ok(mapped) => Box::new(mapped),
            Err(file) => Box::new(LocalWritable::new(path, file)),
        })
    }

    fn open(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        Ok(Arc::new(LocalReadable::open(path)?))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        fs::rename(from, to).map_err(|e| FsError::io("rename", from, e))
    }

    fn delete(&self, path: &Path) -> Result<()> {
        fs::remove_file(path).map_err(|e| FsError::io("delete", path, e))
    }

    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        fs::hard_link(from, to).map_err(|e| match e.kind() {
            // Not found names the source; existing, the new name.
            std::io::ErrorKind::AlreadyExists => FsError::AlreadyExists(to.to_owned()),
            _ => FsError::io("link", from, e),
        })
    }

    fn delete_dir_all(&self, dir: &Path) -> Result<()> {
        fs::remove_dir_all(dir).map_err(|e| FsError::io("delete directory", dir, e))
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| FsError::io("list", dir, e))? {
            let entry = entry.map_err(|e| FsError::io("list", dir, e))?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        Ok(names)
    }

    fn exists(&self, path: &Path) -> Result<bool> {
        match path.try_exists() {
            // A path through a file ("file/child") does not exist, as in MemFs.
            Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => Ok(false),
            other => other.map_err(|e| FsError::io("stat", path, e)),
        }
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| FsError::io("sync directory", dir, e))
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| FsError::io("open lock file", path, e))?;
        match file.try_lock() {
            Ok(()) => Ok(Box::new(LocalLock { _file: file })),
            Err(TryLockError::WouldBlock) => Err(FsError::Locked(path.to_owned())),
            Err(TryLockError::Error(e)) => Err(FsError::io("lock", path, e)),
        }
    }
}

/// Once this many bytes are written past the last hint, the kernel is asked to start writing
/// them to the device, so the file's final sync waits for a tail rather than the whole file.
const WRITEBACK_EVERY: u64 = 8 * 1024 * 1024;

#[derive(Debug)]
struct LocalWritable {
    path: PathBuf,
    out: BufWriter<File>,
    len: u64,
    /// Bytes whose writeback has been started.
    writeback_from: u64,
}

impl LocalWritable {
    fn new(path: &Path, file: File) -> Self {
        LocalWritable {
            path: path.to_owned(),
            out: BufWriter::with_capacity(WRITE_BUFFER, file),
            len: 0,
            writeback_from: 0,
        }
    }

    /// Starts the device write of what reached the kernel since the last call, once that is
    /// [`WRITEBACK_EVERY`] bytes. Only a hint: a failure shows at the next sync.
    fn start_writeback(&mut self) {
        let in_kernel = self.len - self.out.buffer().len() as u64;
        if in_kernel - self.writeback_from < WRITEBACK_EVERY {
            return;
        }
        crate::mapped::start_writeback(
            self.out.get_ref(),
            self.writeback_from,
            in_kernel - self.writeback_from,
        );
        self.writeback_from = in_kernel;
    }
}

impl WritableFile for LocalWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.out
            .write_all(data)
            .map_err(|e| FsError::io("append", &self.path, e))?;
        self.len += data.len() as u64;
        self.start_writeback();
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.out
            .flush()
            .map_err(|e| FsError::io("flush", &self.path, e))
    }

    fn sync(&mut self) -> Result<()> {
        self.flush()?;
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| FsError::io("sync", &self.path, e))
    }

    fn len(&self) -> u64 {
        self.len
    }
}

#[derive(Debug)]
struct LocalReadable {
    path: PathBuf,
    file: File,
    len: u64,
    /// A second descriptor with `O_DIRECT`, once [`ReadableFile::read_directly`] asked for
    /// one and the file system gave it.
    direct: std::sync::OnceLock<Option<File>>,
}

impl LocalReadable {
    fn open(path: &Path) -> Result<LocalReadable> {
        let file = File::open(path).map_err(|e| FsError::io("open", path, e))?;
        let len = file
            .metadata()
            .map_err(|e| FsError::io("stat", path, e))?
            .len();
        Ok(LocalReadable {
            path: path.to_owned(),
            file,
            len,
            direct: std::sync::OnceLock::new(),
        })
    }

    /// `len` bytes from `offset` read with direct I/O: the aligned span around them into an
    /// aligned buffer, then copied out (a copy of a block costs far less than the read, and
    /// the aligned buffer would hold up to two pages more than the block for as long as it
    /// is cached).
    fn read_direct(&self, direct: &File, offset: u64, len: usize) -> std::io::Result<Bytes> {
        const ALIGN: u64 = crate::direct::ALIGN as u64;
        let start = offset / ALIGN * ALIGN;
        let end = (offset + len as u64).div_ceil(ALIGN) * ALIGN;
        let span = (end - start) as usize;
        let mut buf = vec![0u8; span + ALIGN as usize];
        let pad = buf.as_ptr().align_offset(ALIGN as usize);
        let aligned = &mut buf[pad..pad + span];
        // The file's last page reads short: read what there is.
        let mut got = 0;
        while got < span {
            match direct.read_at(&mut aligned[got..], start + got as u64)? {
                0 => break,
                n => got += n,
            }
        }
        let from = (offset - start) as usize;
        if got < from + len {
            return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof));
        }
        Ok(Bytes::copy_from_slice(&aligned[from..from + len]))
    }
}

impl ReadableFile for LocalReadable {
    fn len(&self) -> u64 {
        self.len
    }

    fn advise_random(&self) {
        crate::mapped::advise_random(&self.file);
    }

    fn will_need(&self) {
        crate::mapped::advise_will_need(&self.file);
    }

    fn read_directly(&self) {
        self.direct.get_or_init(|| {
            let file = File::open(&self.path).ok()?;
            crate::mapped::set_direct_io(&file, true).ok()?;
            Some(file)
        });
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Bytes> {
        FsError::read_end(&self.path, offset, len, self.len)?;
        if let Some(Some(direct)) = self.direct.get() {
            // A read the file system refuses directly goes through the page cache.
            if let Ok(bytes) = self.read_direct(direct, offset, len) {
                return Ok(bytes);
            }
        }
        let mut buf = vec![0u8; len];
        self.file
            .read_exact_at(&mut buf, offset)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    FsError::short_read(&self.path, offset, len, self.len)
                }
                _ => FsError::io("read", &self.path, e),
            })?;
        Ok(Bytes::from(buf))
    }
}

#[derive(Debug)]
struct LocalLock {
    /// The lock lives as long as the open file.
    _file: File,
}

impl FileLock for LocalLock {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct reads return the same bytes as buffered ones, at any offset and length, to the
    /// file's unaligned end; on ext4 (this machine's disk) the direct descriptor is open.
    #[test]
    fn direct_reads_read_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = LocalReadable::open(&path).unwrap();
        file.read_directly();
        let on_ext4 = std::fs::read_to_string("/proc/mounts")
            .unwrap()
            .lines()
            .any(|l| l.split(' ').nth(1) == Some("/") && l.contains(" ext4 "));
        if on_ext4 && dir.path().starts_with("/tmp") {
            assert!(matches!(file.direct.get(), Some(Some(_))), "O_DIRECT is on");
        }
        for (offset, len) in [
            (0, 1),
            (1, 4095),
            (4095, 2),
            (4096, 4096),
            (100, 12_000),
            (19_990, 10),
            (0, 20_000),
        ] {
            let got = file.read_at(offset, len).unwrap();
            assert_eq!(
                &got[..],
                &bytes[offset as usize..offset as usize + len],
                "{offset}+{len}"
            );
        }
        assert!(file.read_at(19_999, 2).is_err(), "past the end");
    }

    /// A large file starts its writeback as it grows, and reads back whole.
    #[test]
    fn a_large_file_is_written_back_as_it_grows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .unwrap();
        let mut w = LocalWritable::new(&path, file);
        let piece: Vec<u8> = (0..1_000_003u32).map(|i| (i % 251) as u8).collect();
        for _ in 0..20 {
            w.append(&piece).unwrap();
        }
        assert!(
            w.writeback_from >= 2 * WRITEBACK_EVERY,
            "writeback started up to {}",
            w.writeback_from
        );
        assert!(w.writeback_from <= w.len());
        w.sync().unwrap();
        let back = std::fs::read(&path).unwrap();
        assert_eq!(back.len(), 20 * piece.len());
        assert!(back.chunks(piece.len()).all(|c| c == &piece[..]));
    }

    /// A file advised to be read at random reads as before.
    #[test]
    fn a_file_opened_for_random_reads_reads_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        let random = LocalFs.open(&path).unwrap();
        random.advise_random();
        assert_eq!(random.len(), 10);
        assert_eq!(&random.read_at(3, 4).unwrap()[..], b"3456");
        assert!(random.read_at(8, 4).is_err());
    }
}
