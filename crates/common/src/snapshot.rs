//! What a snapshot is, as listings show it (the master keeps snapshots; clients list them).

use crate::TableName;

/// A snapshot as `list_snapshots` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotInfo {
    pub name: String,
    pub table: TableName,
    /// Milliseconds since the epoch.
    pub creation_time: i64,
    /// Seconds it lives after it is taken (HBase's snapshot TTL); 0: for ever.
    pub ttl_secs: i64,
}

impl SnapshotInfo {
    /// Whether its time to live has passed at `now_ms`.
    pub fn expired(&self, now_ms: i64) -> bool {
        self.ttl_secs > 0
            && self
                .creation_time
                .saturating_add(self.ttl_secs.saturating_mul(1000))
                < now_ms
    }
}
