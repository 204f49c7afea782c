//! File-system errors. Each names the operation and the path, and reads name the offset.

use std::io;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum FsError {
    #[error("{op} {path}: {source}")]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("{0}: no such file or directory")]
    NotFound(PathBuf),
    #[error("{0}: already exists")]
    AlreadyExists(PathBuf),
    #[error("{0}: locked by another holder")]
    Locked(PathBuf),
    #[error("{path}: wanted {wanted} bytes at offset {offset}, the file has {file_len}")]
    ShortRead {
        path: PathBuf,
        offset: u64,
        wanted: usize,
        file_len: u64,
    },
}

pub type Result<T, E = FsError> = std::result::Result<T, E>;

impl FsError {
    /// The error for a read of `wanted` bytes at `offset` in a file of `file_len`.
    pub(crate) fn short_read(
        path: &std::path::Path,
        offset: u64,
        wanted: usize,
        file_len: u64,
    ) -> FsError {
        FsError::ShortRead {
            path: path.to_owned(),
            offset,
            wanted,
            file_len,
        }
    }

    /// Where a read of `wanted` bytes at `offset` ends, if it is within `file_len`; the
    /// short-read error otherwise.
    pub(crate) fn read_end(
        path: &std::path::Path,
        offset: u64,
        wanted: usize,
        file_len: u64,
    ) -> Result<u64> {
        offset
            .checked_add(wanted as u64)
            .filter(|end| *end <= file_len)
            .ok_or_else(|| FsError::short_read(path, offset, wanted, file_len))
    }

    /// Wraps an I/O error, turning the common kinds into their own variants.
    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>, source: io::Error) -> FsError {
        let path = path.into();
        match source.kind() {
            io::ErrorKind::NotFound => FsError::NotFound(path),
            io::ErrorKind::AlreadyExists => FsError::AlreadyExists(path),
            _ => FsError::Io { op, path, source },
        }
    }
}
