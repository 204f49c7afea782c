//! WAL errors: corruption names the segment and the offset of the damaged record.

use basalt_fs::FsError;

#[derive(Debug, thiserror::Error)]
pub enum WalError {
    #[error(transparent)]
    Fs(#[from] FsError),
    #[error("WAL segment {segment}: corrupt at offset {offset}: {reason}")]
    Corrupt {
        segment: String,
        offset: u64,
        reason: String,
    },
    /// An earlier write or sync failed: the log refuses appends from then on.
    #[error("the WAL refuses writes after an earlier failure: {0}")]
    Failed(String),
    /// An edit the format cannot hold (a name or an edit past its length fields).
    #[error("cannot log {0}")]
    Unloggable(String),
}

pub type Result<T, E = WalError> = std::result::Result<T, E>;

impl From<WalError> for basalt_common::Error {
    fn from(e: WalError) -> Self {
        match e {
            WalError::Corrupt { .. } => basalt_common::Error::corrupt_from(e),
            WalError::Unloggable(_) => basalt_common::Error::InvalidArgument(e.to_string()),
            WalError::Fs(_) | WalError::Failed(_) => basalt_common::Error::storage_from(e),
        }
    }
}
