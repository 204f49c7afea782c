//! The master's background work an operator switches and runs by hand (HBase's chores).

/// One kind of the master's background work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chore {
    /// Deletes split and merge parents nothing reads any more (`catalogjanitor_*`).
    CatalogJanitor,
    /// Deletes archived WAL segments past their time to live (`cleaner_chore_*`).
    Cleaner,
    /// Splits oversized and merges undersized regions of tables that ask (`normalizer_*`).
    Normalizer,
    /// Deletes snapshots past their TTL (`snapshot_cleanup_*`).
    SnapshotCleanup,
}

impl Chore {
    /// What the shell and the logs call it.
    pub fn name(self) -> &'static str {
        match self {
            Chore::CatalogJanitor => "catalog janitor",
            Chore::Cleaner => "cleaner chore",
            Chore::Normalizer => "normalizer",
            Chore::SnapshotCleanup => "snapshot cleanup",
        }
    }
}
