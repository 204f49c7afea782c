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
