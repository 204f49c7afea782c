//! Store file errors: corruption names the file and the offset.

use std::path::PathBuf;

use basalt_fs::FsError;

#[derive(Debug, thiserror::Error)]
pub enum StoreFileError {
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error("{path}: corrupt at offset {offset}: {reason}")]
    Corrupt {
        path: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error("{path}: {reason}")]
    InvalidWrite { path: PathBuf, reason: String },
}

pub type Result<T, E = StoreFileError> = std::result::Result<T, E>;

impl From<StoreFileError> for basalt_common::Error {
    fn from(e: StoreFileError) -> Self {
        match e {
            StoreFileError::Corrupt { .. } => basalt_common::Error::corrupt_from(e),
            _ => basalt_common::Error::storage_from(e),
        }
    }
}
