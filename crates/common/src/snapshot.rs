//! What a snapshot is, as listings show it (the master keeps snapshots; clients list them).

use crate::TableName;

/// A snapshot as `list_snapshots` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    pub name: String,
    pub table: TableName,
    /// Milliseconds since the epoch.
    pub creation_time: i64,
}
