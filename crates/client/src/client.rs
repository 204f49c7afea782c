//! [`Client`]: one interface over an embedded connection (`basalt-embedded`) and a connection
//! to a server (`remote`), for tools (the shell, the gateways) that work the same either way.

use std::fmt;
use std::sync::Arc;

use basalt_common::ops::{Append, CheckAndMutate, CheckAndMutateResult, Increment};
pub use basalt_common::snapshot::SnapshotInfo;
use basalt_common::{Bytes, Delete, Error, Get, Put, Result, RowResult, Scan, TableName};

use crate::{BatchOp, BatchOutcome};

/// A region as a tool lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionSummary {
    /// The full region name (`table,start,id.encoded.`), its `hbase:meta` row.
    pub name: Bytes,
    /// The first row the region holds (empty: from the start of the table).
    pub start_key: Bytes,
    /// The row after the last the region holds (empty: to the end of the table).
    pub end_key: Bytes,
    /// The server holding it: `host,port,startcode` from the cluster status, or `host:port`
    /// from meta when the status does not name it (its server did not answer); None if
    /// neither knows.
    pub server: Option<String>,
}

impl RegionSummary {
    /// The 32-character encoded name at the end of the region name (empty if it has none).
    pub fn encoded_name(&self) -> &str {
        basalt_common::RegionInfo::encoded_part(&self.name)
            .and_then(|e| std::str::from_utf8(e).ok())
            .unwrap_or("")
    }

    /// The region id (creation time in ms) in the region name, between the start key and
    /// the encoded name; 0 if the name has none.
    pub fn region_id(&self) -> i64 {
        let n = self.name.len();
        let end = if self.encoded_name().is_empty() {
            n
        } else {
            n - 34
        };
        let name = &self.name[..end];
        name.iter()
            .rposition(|&b| b == b',')
            .and_then(|comma| std::str::from_utf8(&name[comma + 1..]).ok())
            .and_then(|id| id.parse().ok())
            .unwrap_or(0)
    }
}

/// How many servers and regions a cluster has (the shell's `status`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterSummary {
    /// Region servers serving.
    pub live_servers: usize,
    /// The dead servers the master knows of, `host,port,startcode`.
    pub dead: Vec<String>,
    /// Every serving region, `hbase:meta`'s included.
    pub regions: usize,
    /// The active master, `host,port,startcode`.
    pub master: String,
    /// Masters standing by.
    pub backup_masters: usize,
    /// Each live server and the regions it serves.
    pub servers: Vec<ServerSummary>,
    /// The cluster's id (HBase's `hbase.id`, a UUID).
    pub cluster_id: String,
}

impl ClusterSummary {
    /// How many servers are known dead.
    pub fn dead_servers(&self) -> usize {
        self.dead.len()
    }
}

/// One live region server, as the cluster status describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSummary {
    /// `host,port,startcode`.
    pub name: String,
    /// Its regions and their figures, as the server reported them (HBase's RegionLoad).
    pub regions: Vec<RegionLoad>,
    /// The replication queues it ships (HBase's ReplicationLoadSource).
    pub replication: Vec<basalt_common::metrics::ReplicationSourceStatus>,
    /// What peers replicated to it (HBase's ReplicationLoadSink).
    pub sink: basalt_common::metrics::ReplicationSinkStatus,
    /// The tasks it runs now (flushes, compactions, splits; HBase's ServerTask).
    pub tasks: Vec<TaskSummary>,
}

/// A task a server runs, as the cluster status describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSummary {
    /// What it does (`compaction: compacting t,,1.abc. f`).
    pub description: String,
    /// When it started, ms since the epoch.
    pub started_ms: i64,
}

/// One region's figures in the cluster status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionLoad {
    /// The full region name.
    pub name: Bytes,
    /// Column families.
    pub stores: u32,
    /// Store files over all its families.
    pub store_files: u32,
    /// Bytes (over RPC, whole MiB as the status reports them).
    pub store_file_size: u64,
    /// Bytes in its memstores.
    pub memstore_size: u64,
    /// Gets and scanned rows served since the region opened.
    pub read_requests: u64,
    /// Row mutations applied since the region opened.
    pub write_requests: u64,
}

/// The rows of a scan, one at a time, fetched as they are needed. It owns what it needs, so
/// a gateway can keep it between calls (Thrift's scanner ids).
pub struct Scanner(Box<dyn Iterator<Item = Result<RowResult>> + Send>);

impl Scanner {
    /// A scanner over `rows`, read as it is iterated.
    pub fn new(rows: impl Iterator<Item = Result<RowResult>> + Send + 'static) -> Self {
        Scanner(Box::new(rows))
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Result<RowResult>> {
        self.0.next()
    }
}

impl fmt::Debug for Scanner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Scanner")
    }
}

/// An increment of one counter by `amount`.
#[doc(hidden)]
pub fn one_counter(row: &[u8], family: &[u8], qualifier: &[u8], amount: i64) -> Increment {
    Increment::new(Bytes::copy_from_slice(row)).add_column(
        Bytes::copy_from_slice(family),
        Bytes::copy_from_slice(qualifier),
        amount,
    )
}

/// The new value of an incremented counter: the increment's one cell, 8 bytes.
#[doc(hidden)]
pub fn counter_value(result: &RowResult) -> Result<i64> {
    let counter: [u8; 8] = result
        .cells
        .first()
        .and_then(|c| c.value().try_into().ok())
        .ok_or_else(|| Error::corrupt("an increment returned no 8-byte counter"))?;
    Ok(i64::from_be_bytes(counter))
}

/// A call of a coprocessor endpoint: `service.method` with `request`, on the regions holding
/// rows in `[range.0, range.1)` (empty: unbounded).
#[derive(Debug, Clone, Copy)]
pub struct EndpointCall<'a> {
    /// The first row, and the row after the last (empty: unbounded).
    pub range: (&'a [u8], &'a [u8]),
    /// The endpoint's service.
    pub service: &'a str,
    /// Its method.
    pub method: &'a str,
    /// The request's bytes, as the method reads them.
    pub request: &'a [u8],
}

/// The calls a connection makes to region servers' AdminService and the cluster's status,
/// from one list: [`ServerAdmin`] is declared from it, and a wrapper that changes none of
/// them forwards them all with `forward_server_admin!` (the list again, one line per call).
macro_rules! server_admin_calls {
    ($then:ident $($arg:tt)*) => {
        $then! { [$($arg)*]
            /// `host,port,startcode` of the (only) server.
            fn server_name(&self) -> String;
            /// Servers, masters and regions (HBase's `ClusterMetrics`).
            fn cluster_summary(&self) -> $crate::Result<$crate::ClusterSummary>;
            /// The table's regions in key order.
            fn regions(&self, name: &$crate::TableName) -> $crate::Result<Vec<$crate::RegionSummary>>;
            /// Store file and memstore bytes of each of the table's regions, by region name (over
            /// RPC in whole MiB, as the cluster status reports them).
            fn region_sizes(&self, name: &$crate::TableName) -> $crate::Result<std::collections::HashMap<$crate::Bytes, u64>>;
            /// Writes the table's memstores to store files.
            fn flush(&self, name: &$crate::TableName) -> $crate::Result<()>;
            /// Compacts each of the table's regions, minor or major.
            fn compact(&self, name: &$crate::TableName, major: bool) -> $crate::Result<()>;
            /// Compacts one region, named by its full name.
            fn compact_region(&self, region: &[u8], major: bool) -> $crate::Result<()>;
            /// Splits the region holding `at` there, or every region at its own split point.
            fn split(&self, name: &$crate::TableName, at: Option<&[u8]>) -> $crate::Result<()>;
            /// Merges two adjacent regions of `name`, given by their full names.
            fn merge_regions(&self, name: &$crate::TableName, a: &[u8], b: &[u8]) -> $crate::Result<()>;
            /// Empties one region of `name`, given by its full name: a fresh region over the same
            /// rows takes its place (HBase 2.6's `truncate_region`).
            fn truncate_region(&self, name: &$crate::TableName, region: &[u8]) -> $crate::Result<()>;
            /// Stops a region server (`host:port` or `host,port,startcode`) cleanly: its regions are
            /// flushed and the master reassigns them (AdminService StopServer).
            fn stop_region_server(&self, server: &str) -> $crate::Result<()>;
            /// Switches compactions on or off on the servers named (`host:port` or
            /// `host,port,startcode`; none named: every live server), HBase's `compaction_switch`;
            /// returns each server's name and whether they were on (AdminService CompactionSwitch).
            fn compaction_switch(&self, on: bool, servers: &[String]) -> $crate::Result<Vec<(String, bool)>>;
            /// Drops the table's blocks from its servers' block caches (HBase's `clear_block_cache`;
            /// AdminService ClearRegionBlockCache): the blocks and bytes evicted, and the largest
            /// cache's capacity.
            fn clear_block_cache(&self, table: &$crate::TableName) -> $crate::Result<(u64, u64, u64)>;
            /// Rolls a region server's WAL (`host:port` or `host,port,startcode`; AdminService
            /// RollWALWriter).
            fn roll_wal_writer(&self, server: &str) -> $crate::Result<()>;
            /// Has a server (`host:port` or `host,port,startcode`) read its settings file again
            /// (HBase's `update_config`; AdminService UpdateConfiguration).
            fn update_config(&self, server: &str) -> $crate::Result<()>;
            /// `update_config` on every live region server and on the masters (HBase's
            /// `update_all_config`).
            fn update_all_config(&self) -> $crate::Result<()>;
            /// Runs the master's consistency check (`basalt hbck`'s report) now (HbckService
            /// RunHbckChore).
            fn run_hbck_chore(&self) -> $crate::Result<bool>;
            /// The compactions running in the table's regions now (HBase's `compaction_state`:
            /// NONE, MINOR, MAJOR or MAJOR_AND_MINOR; AdminService GetRegionInfo on each region).
            fn compaction_state(&self, table: &$crate::TableName) -> $crate::Result<String>;
            /// Clears a region server's compaction queues, `long` and/or `short` (AdminService
            /// ClearCompactionQueues).
            fn clear_compaction_queues(&self, server: &str, queues: &[String]) -> $crate::Result<()>;
            /// The slow (or, with `filter.large`, large) calls the servers named (`host:port` or
            /// `host,port,startcode`; none: every live server) keep, each with its server's name
            /// (AdminService GetLogEntries).
            fn slow_log(&self, servers: &[String], filter: &$crate::slowlog::Filter) -> $crate::Result<Vec<(String, $crate::slowlog::SlowCall)>>;
            /// Empties the servers' slow and large logs; returns how many were cleared, of how many
            /// (AdminService ClearSlowLogsResponses).
            fn clear_slow_log(&self, servers: &[String]) -> $crate::Result<(usize, usize)>;
            /// What the cluster keeps in ZooKeeper, as HBase's `zk_dump` prints it (a connection
            /// found through ZooKeeper; others have none to show).
            fn zk_dump(&self) -> $crate::Result<String>;
            /// Every subject's quotas, as `hbase:quota` keeps them (HBase's `list_quotas`).
            fn list_quotas(&self) -> $crate::Result<Vec<($crate::quota::Subject, $crate::quota::Quotas)>>;
        }
    };
}

macro_rules! declare_server_admin {
    ([] $($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty;)*) => {
        /// What a tool asks of the servers and the cluster, embedded or remote: status,
        /// regions, flushes and compactions, and the region servers' AdminService calls.
        /// The master's operations are [`basalt_ops::Caller`]'s.
        pub trait ServerAdmin: Send + Sync {
            $($(#[$doc])* fn $name(&self $(, $arg: $ty)*) -> $ret;)*
        }
    };
}

/// Every [`ServerAdmin`] call of a wrapper passed to its field `$inner` unchanged.
macro_rules! forward_server_admin {
    ([$inner:ident] $($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)* $(,)?) -> $ret:ty;)*) => {
        $(fn $name(&self $(, $arg: $ty)*) -> $ret {
            self.$inner.$name($($arg),*)
        })*
    };
}
pub(crate) use {forward_server_admin, server_admin_calls};

server_admin_calls!(declare_server_admin);

/// The data calls of a connection, embedded or remote (HBase's `Table`). Tables are named on
/// each call.
pub trait DataClient: Send + Sync {
    /// Writes the put's cells.
    fn put(&self, table: &TableName, put: &Put) -> Result<()>;
    /// Deletes what the delete names.
    fn delete(&self, table: &TableName, delete: &Delete) -> Result<()>;
    /// The row's cells as the get selects them.
    fn get(&self, table: &TableName, get: &Get) -> Result<RowResult>;
    /// Opens a scanner; it holds the connection (hence the `Arc`) while it lives.
    fn scan(self: Arc<Self>, table: &TableName, scan: &Scan) -> Result<Scanner>;
    /// Adds to counters, atomically: the new values.
    fn increment(&self, table: &TableName, inc: &Increment) -> Result<RowResult>;
    /// Appends to values, atomically: the new values.
    fn append(&self, table: &TableName, append: &Append) -> Result<RowResult>;
    /// Adds `amount` to one counter and returns its new value.
    fn increment_column_value(
        &self,
        table: &TableName,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let inc = one_counter(row, family, qualifier, amount);
        counter_value(&self.increment(table, &inc)?)
    }
    /// A mutation applied only if the condition holds, atomically.
    fn check_and_mutate(
        &self,
        table: &TableName,
        cam: &CheckAndMutate,
    ) -> Result<CheckAndMutateResult>;
    /// Operations of any kind and rows, each on its own: one outcome per operation, in order.
    fn batch(&self, table: &TableName, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>>;
    /// HBase's aggregation endpoint (AggregationClient): `what` over the numbers the scan
    /// reads (one family; its first column, or all of its cells), as `interpreter` reads them.
    /// Each region computes its part where it is served and the parts are merged here; None
    /// where no value was found. The median's values are read here and sorted
    /// (`docs/design/aggregation.md`).
    fn aggregate(
        self: Arc<Self>,
        table: &TableName,
        scan: &Scan,
        interpreter: crate::aggregate::Interpreter,
        what: crate::aggregate::Aggregation,
    ) -> Result<Option<crate::aggregate::Number>>;
    /// Makes `call` of a coprocessor endpoint on every region of `table` holding rows in its
    /// range, all at once (HBase's `Table.coprocessorService`): each region's name and
    /// response, in key order. The caller merges them.
    fn coprocessor_service(
        &self,
        table: &TableName,
        call: &EndpointCall<'_>,
    ) -> Result<Vec<(Bytes, Vec<u8>)>>;
    /// Adopts prepared store files `(family, path)` into the region of `table` holding `row`
    /// (HBase's BulkLoadHFile): all of them or none. The paths are the server's.
    fn bulk_load(
        &self,
        table: &TableName,
        row: &[u8],
        files: &[(Bytes, std::path::PathBuf)],
    ) -> Result<()>;
}

/// What a tool needs of a connection, embedded or remote: its data calls, its server calls and
/// the master's operations. Every type with all three is one.
pub trait Client: DataClient + ServerAdmin + basalt_ops::Caller + fmt::Debug {}

impl<T: DataClient + ServerAdmin + basalt_ops::Caller + fmt::Debug + ?Sized> Client for T {}
