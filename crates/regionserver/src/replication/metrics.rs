//! What a replication source counts (HBase's `MetricsSource`, per queue), for `/metrics`,
//! `/jmx`, the region server's page and `status 'replication'`.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64};

#[derive(Debug, Default)]
pub struct SourceMetrics {
    /// Shipping (the peer is enabled and the source's thread runs).
    pub running: AtomicBool,
    /// A serial peer's source waiting for another queue to ship a region's earlier edits.
    pub waiting: AtomicBool,
    /// Milliseconds between an edit's write and its shipping, as of the last batch; 0 when
    /// caught up; growing while a batch waits for the peer (HBase's ageOfLastShippedOp).
    pub age_ms: AtomicI64,
    /// The source server's segments from the queue's position on (HBase's sizeOfLogQueue).
    pub log_queue: AtomicU64,
    /// Edits read from the WAL, shipped or filtered out (HBase's logEditsRead).
    pub edits_read: AtomicU64,
    /// Edits shipped (HBase's shippedOps), in batches, as cell-block bytes (shippedBytes).
    pub shipped_ops: AtomicU64,
    pub shipped_batches: AtomicU64,
    pub shipped_bytes: AtomicU64,
    /// Batches the peer did not take (each is sent again).
    pub failed_batches: AtomicU64,
    /// The write time of the newest edit shipped, and when the last batch was shipped
    /// (milliseconds since the epoch).
    pub last_shipped_write_time: AtomicI64,
    pub last_shipped_at: AtomicI64,
    /// Time spent in ReplicateWALEntry calls that succeeded.
    pub ship_micros: AtomicU64,
    /// Why the last batch failed.
    pub last_error: Mutex<Option<String>>,
}
