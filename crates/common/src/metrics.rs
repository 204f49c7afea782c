//! What a server counts about itself, for `/metrics`, `/jmx` and the info pages: latency
//! histograms with fixed buckets (recording is a few atomic adds, no allocation), counters,
//! the background work in progress, and the snapshots a server's status is read into.
//!
//! Each region server has one [`ServerMetrics`], shared by its regions and its WAL (through
//! `RegionConfig` and `WalConfig`); its master has one [`MasterMetrics`]. Figures that are
//! states rather than events (memstore sizes, store files, regions) are read when asked for,
//! into a [`ServerStatus`].

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Upper bounds of the latency buckets, in microseconds: 50 µs to 10 s, roughly ×2.5 apart
/// (Prometheus's `le`, in seconds, is these / 1e6). Above the last is `+Inf`.
pub const BUCKETS_MICROS: [u64; 16] = [
    50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 10_000_000,
];

/// A latency histogram: how many events fell in each bucket and their total time (two
/// relaxed atomic adds per event; the count is the buckets' sum).
#[derive(Debug, Default)]
pub struct Histogram {
    buckets: [AtomicU64; BUCKETS_MICROS.len() + 1],
    sum_micros: AtomicU64,
}

/// A histogram's figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// Events per bucket (not cumulative), the last being `+Inf`.
    pub buckets: Vec<u64>,
    pub count: u64,
    pub sum_micros: u64,
}

impl Histogram {
    pub fn record(&self, elapsed: Duration) {
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        let at = BUCKETS_MICROS.partition_point(|&b| b < micros);
        self.buckets[at].fetch_add(1, Ordering::Relaxed);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    /// Records the time since `start`.
    pub fn since(&self, start: Instant) {
        self.record(start.elapsed());
    }

    pub fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    pub fn snapshot(&self) -> HistogramSnapshot {
        let buckets: Vec<u64> = self
            .buckets
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        HistogramSnapshot {
            count: buckets.iter().sum(),
            buckets,
            sum_micros: self.sum_micros.load(Ordering::Relaxed),
        }
    }
}

impl HistogramSnapshot {
    pub fn mean_micros(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_micros as f64 / self.count as f64
        }
    }

    /// The upper bound (µs) of the bucket holding quantile `q` (0..=1); the last finite bound
    /// for events past it.
    pub fn quantile_micros(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = (q * self.count as f64).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (i, n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return BUCKETS_MICROS
                    .get(i)
                    .copied()
                    .unwrap_or(BUCKETS_MICROS[BUCKETS_MICROS.len() - 1]);
            }
        }
        BUCKETS_MICROS[BUCKETS_MICROS.len() - 1]
    }
}

/// A count of events.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    pub fn inc(&self) {
        self.add(1);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The client operations a region server times, as HBase's `sub=Server` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Get,
    Put,
    Delete,
    ScanNext,
    Multi,
    Increment,
    Append,
    CheckAndMutate,
}

impl Op {
    pub const ALL: [Op; 8] = [
        Op::Get,
        Op::Put,
        Op::Delete,
        Op::ScanNext,
        Op::Multi,
        Op::Increment,
        Op::Append,
        Op::CheckAndMutate,
    ];

    /// The Prometheus label (`op="get"`).
    pub fn label(self) -> &'static str {
        match self {
            Op::Get => "get",
            Op::Put => "put",
            Op::Delete => "delete",
            Op::ScanNext => "scan_next",
            Op::Multi => "multi",
            Op::Increment => "increment",
            Op::Append => "append",
            Op::CheckAndMutate => "check_and_mutate",
        }
    }

    /// HBase's JMX name (`Get_num_ops`, `ScanNext_mean`, ...).
    pub fn jmx(self) -> &'static str {
        match self {
            Op::Get => "Get",
            Op::Put => "Put",
            Op::Delete => "Delete",
            Op::ScanNext => "ScanNext",
            Op::Multi => "Multi",
            Op::Increment => "Increment",
            Op::Append => "Append",
            Op::CheckAndMutate => "CheckAndMutate",
        }
    }
}

/// HBase's name for the compactions running in a table or region: NONE, MINOR, MAJOR or
/// MAJOR_AND_MINOR.
pub fn compaction_state_name(minor: bool, major: bool) -> &'static str {
    match (minor, major) {
        (false, false) => "NONE",
        (true, false) => "MINOR",
        (false, true) => "MAJOR",
        (true, true) => "MAJOR_AND_MINOR",
    }
}

/// One piece of background work in progress (a flush, a compaction, a split), as the info
/// pages list them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    pub id: u64,
    /// `flush`, `compaction`, `split`, `merge`.
    pub kind: &'static str,
    pub description: String,
    /// Milliseconds since the epoch.
    pub started_ms: u64,
}

/// The running tasks of a server; a task is listed while its [`TaskGuard`] lives.
#[derive(Debug, Default)]
pub struct Tasks {
    next: AtomicU64,
    running: Mutex<Vec<Task>>,
}

/// Removes its task from the list when dropped.
#[derive(Debug)]
pub struct TaskGuard<'a> {
    tasks: &'a Tasks,
    id: u64,
}

impl Tasks {
    pub fn start(&self, kind: &'static str, description: impl Into<String>) -> TaskGuard<'_> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let started_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Task {
                id,
                kind,
                description: description.into(),
                started_ms,
            });
        TaskGuard { tasks: self, id }
    }

    pub fn running(&self) -> Vec<Task> {
        self.running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for TaskGuard<'_> {
    fn drop(&mut self) {
        self.tasks
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|t| t.id != self.id);
    }
}

/// What a region server counts: operations and their latencies, background work, the WAL.
#[derive(Debug, Default)]
pub struct ServerMetrics {
    ops: [Histogram; Op::ALL.len()],
    pub flushes: Histogram,
    pub flushed_bytes: Counter,
    pub compactions: Histogram,
    pub compacted_bytes: Counter,
    pub splits: Counter,
    pub merges: Counter,
    pub wal_appends: Counter,
    pub wal_append_bytes: Counter,
    pub wal_syncs: Histogram,
    pub tasks: Tasks,
    /// Scanners open on the server's native RPC (kept by its scanner leases).
    pub open_scanners: Arc<std::sync::atomic::AtomicUsize>,
    started: StartTime,
}

/// When the metrics began (the server's start).
#[derive(Debug)]
struct StartTime(Instant);

impl Default for StartTime {
    fn default() -> Self {
        StartTime(Instant::now())
    }
}

impl ServerMetrics {
    pub fn new() -> Arc<Self> {
        Arc::new(ServerMetrics::default())
    }

    pub fn op(&self, op: Op) -> &Histogram {
        &self.ops[op as usize]
    }

    /// Records `op` as having taken the time since `start`.
    pub fn timed(&self, op: Op, start: Instant) {
        self.op(op).since(start);
    }

    pub fn uptime(&self) -> Duration {
        self.started.0.elapsed()
    }
}

/// What a master counts.
#[derive(Debug, Default)]
pub struct MasterMetrics {
    pub balancer_runs: Counter,
    pub regions_moved: Counter,
    started: StartTime,
}

impl MasterMetrics {
    pub fn uptime(&self) -> Duration {
        self.started.0.elapsed()
    }
}

/// One region's figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionStatus {
    /// The full region name.
    pub name: String,
    pub encoded_name: String,
    pub table: String,
    pub start_key: Vec<u8>,
    pub end_key: Vec<u8>,
    pub stores: usize,
    pub store_files: usize,
    pub store_file_bytes: u64,
    pub memstore_bytes: u64,
    pub read_requests: u64,
    pub write_requests: u64,
    /// When its last major compaction finished (milliseconds), 0 when none has since it
    /// opened.
    pub last_major_compaction_ms: i64,
    /// The coprocessor modules attached to it, and whether each still runs (a fault unloads
    /// one from the region).
    pub coprocessors: Vec<CoprocessorStatus>,
}

/// A coprocessor module on a region.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoprocessorStatus {
    /// Its file name.
    pub module: String,
    /// False once a trap or an exceeded limit unloaded it from the region.
    pub loaded: bool,
}

/// A region server's figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerStatus {
    /// `host,port,startcode`.
    pub name: String,
    pub regions: Vec<RegionStatus>,
    pub block_cache_bytes: u64,
    pub block_cache_capacity: u64,
    pub block_cache_blocks: u64,
    pub block_cache_hits: u64,
    pub block_cache_misses: u64,
    pub block_cache_evictions: u64,
    /// Regions whose memstore waits for a flush, and regions waiting for a compaction.
    pub flush_queue: usize,
    pub compaction_queue: usize,
    /// Segments in the server's WAL directory (the one being written included).
    pub wal_files: usize,
    pub open_scanners: usize,
    pub tasks: Vec<Task>,
    /// Each replication queue this server ships (HBase's MetricsSource, by peer).
    pub replication_sources: Vec<ReplicationSourceStatus>,
    /// What peers replicated here (HBase's MetricsSink).
    pub replication_sink: ReplicationSinkStatus,
    /// Client calls (Get, Mutate, Scan, Multi) by user, and how many a throttle refused.
    pub users: Vec<UserStatus>,
}

/// One user's calls on a region server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserStatus {
    pub user: String,
    pub requests: u64,
    pub throttled: u64,
}

/// Counts each user's client calls and throttled calls (issue 48's per-user figures). The
/// first [`UserRequests::MAX_USERS`] users are counted by name, the rest together as
/// `(other users)`, so a flood of names cannot grow it without bound.
#[derive(Debug, Default)]
pub struct UserRequests {
    users: std::sync::RwLock<std::collections::HashMap<String, Arc<UserCounts>>>,
}

#[derive(Debug, Default)]
struct UserCounts {
    requests: AtomicU64,
    throttled: AtomicU64,
}

impl UserRequests {
    pub const MAX_USERS: usize = 1000;
    const OTHERS: &'static str = "(other users)";

    /// Counts one call of `user`, refused by a throttle or not.
    pub fn count(&self, user: &str, throttled: bool) {
        let counts = {
            let users = self
                .users
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            users.get(user).cloned()
        };
        let counts = counts.unwrap_or_else(|| {
            let mut users = self
                .users
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let key = if users.len() >= Self::MAX_USERS && !users.contains_key(user) {
                Self::OTHERS
            } else {
                user
            };
            Arc::clone(users.entry(key.to_owned()).or_default())
        });
        counts.requests.fetch_add(1, Ordering::Relaxed);
        if throttled {
            counts.throttled.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Every user's counts, by name.
    pub fn snapshot(&self) -> Vec<UserStatus> {
        let users = self
            .users
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut out: Vec<UserStatus> = users
            .iter()
            .map(|(user, c)| UserStatus {
                user: user.clone(),
                requests: c.requests.load(Ordering::Relaxed),
                throttled: c.throttled.load(Ordering::Relaxed),
            })
            .collect();
        out.sort_by(|a, b| a.user.cmp(&b.user));
        out
    }
}

/// One replication queue's figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicationSourceStatus {
    pub peer: String,
    /// `<peer>`, or `<peer>-<server>` for a queue claimed from a gone server.
    pub queue: String,
    /// Claimed from a gone server.
    pub recovered: bool,
    /// Shipping (the peer is enabled).
    pub running: bool,
    /// Milliseconds from an edit's write to its shipping, as of the last batch; 0 caught up;
    /// growing while a batch waits for the peer.
    pub age_of_last_shipped_op_ms: i64,
    /// WAL segments not yet shipped to the end.
    pub size_of_log_queue: u64,
    pub edits_read: u64,
    pub shipped_ops: u64,
    pub shipped_batches: u64,
    pub shipped_bytes: u64,
    pub failed_batches: u64,
    /// When the last batch was shipped, ms since the epoch (0: never).
    pub last_shipped_at: i64,
    /// Why the last batch failed, if one did.
    pub last_error: Option<String>,
}

/// The sink's figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplicationSinkStatus {
    pub applied_ops: u64,
    pub applied_batches: u64,
    pub failed_batches: u64,
    /// Milliseconds from the newest applied edit's write at its source to its applying here.
    pub age_of_last_applied_op_ms: i64,
    /// When the last batch was applied, ms since the epoch (0: never).
    pub last_applied_at: i64,
}

/// A master's figures at one moment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MasterStatus {
    pub name: String,
    pub live_servers: usize,
    pub dead_servers: usize,
    pub regions: usize,
    pub regions_in_transition: usize,
    pub balancer_on: bool,
    pub is_active: bool,
    /// Each table's space use against its space quota (as the observer last worked it out).
    pub space: Vec<(String, crate::quota::SpaceSnapshot)>,
}

/// Where an info server reads a region server's figures.
pub trait ServerStatusSource: Send + Sync {
    fn server_status(&self) -> ServerStatus;
    fn server_metrics(&self) -> Arc<ServerMetrics>;
}

/// Where an info server reads a master's figures.
pub trait MasterStatusSource: Send + Sync {
    fn master_status(&self) -> MasterStatus;
    fn master_metrics(&self) -> Arc<MasterMetrics>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_bucket_and_estimate() {
        let h = Histogram::default();
        for micros in [10, 60, 60, 3_000, 20_000_000] {
            h.record(Duration::from_micros(micros));
        }
        let s = h.snapshot();
        assert_eq!(s.count, 5);
        assert_eq!(s.buckets[0], 1);
        assert_eq!(s.buckets[1], 2);
        assert_eq!(s.buckets[BUCKETS_MICROS.len()], 1, "+Inf");
        assert_eq!(s.quantile_micros(0.5), 100);
        assert_eq!(s.quantile_micros(0.99), 10_000_000);
        assert!((s.mean_micros() - 4_000_626.0).abs() < 1.0);
    }

    #[test]
    fn tasks_are_listed_while_they_run() {
        let tasks = Tasks::default();
        {
            let _flush = tasks.start("flush", "t,,1.abc. cf");
            let _compact = tasks.start("compaction", "t,,1.abc. cf 3 files");
            assert_eq!(tasks.running().len(), 2);
        }
        assert!(tasks.running().is_empty());
    }
}
