//! A region: the rows of one key range of a table, with one store per family (a memstore and
//! store files), an MVCC, row locks and the clock. It applies mutations atomically per row
//! and answers Gets and Scans. The public calls are in `ops.rs`, each through the region's
//! layers: the engine's stored operations (`write.rs`, `read.rs` and `rmw.rs`: increments,
//! appends, check-and-mutate), with `hbase:meta`'s key order around them for meta's region
//! (`meta_order.rs`) or an observer's hooks for a region with one (`observed.rs`). Flushes are
//! in `flush.rs`, bulk loads in `bulk.rs`, the store-file set in `files.rs`, server timestamps
//! in `stamps.rs`.

mod bulk;
mod files;

pub use files::StoreFileEntry;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::cell::{DEFAULT_MAX_CELL_SIZE, key_value_size, validate_timestamp};
use basalt_common::error::{Error, Result};
use basalt_common::metrics::{Op, ServerMetrics};
use basalt_common::ops::{Delete, FamilyMap, Get, Put, RowResult, Scan, TimeRange};
use basalt_common::{
    Bytes, Cell, CellType, Clock, Durability, LATEST_TIMESTAMP, RegionInfo, TableDescriptor,
};

use crate::matcher::StoreQuery;
use crate::mvcc::Mvcc;
use crate::row_lock::RowLocks;
use crate::scanner::RegionScanner;
use crate::store::Store;
use crate::view::ReadView;
pub use crate::view::RequestCounts;
use basalt_fs::FileSystem;
use basalt_storefile::BlockCache;
use basalt_wal::{Wal, WalEdit};

use crate::budget::{BLOCK_MULTIPLIER, MemstoreBudget};

mod flush;
mod meta_order;
mod observed;
mod ops;
mod read;
mod rmw;
mod stamps;
mod write;

use crate::compaction::{CompactionConfig, select_minor};
use crate::memstore::MemStore;
use crate::reference::RowRange;
pub use stamps::RowStamps;

/// One of the mutations of [`Region::mutate_rows`].
#[derive(Debug, Clone)]
pub enum RowMutation {
    Put(Put),
    Delete(Delete),
}

/// The region file that records the highest sequence id the region has handed out.
const SEQID_FILE: &str = ".seqid";

/// The sequence id recorded in the region's `.seqid` file; 0 if there is none yet.
fn read_seqid(fs: &dyn FileSystem, dir: &Path) -> Result<u64> {
    let path = dir.join(SEQID_FILE);
    if !fs.exists(&path).map_err(Error::storage_from)? {
        return Ok(0);
    }
    let bytes = basalt_fs::read_all(fs, &path).map_err(Error::storage_from)?;
    let text = String::from_utf8_lossy(&bytes);
    match text.lines().collect::<Vec<_>>().as_slice() {
        ["basalt-seqid 1", n] => n
            .parse()
            .map_err(|_| Error::corrupt(format!("{}: bad sequence id {n:?}", path.display()))),
        _ => Err(Error::corrupt(format!(
            "{}: not a Basalt sequence id file",
            path.display()
        ))),
    }
}

/// The region file that records the newest clock time the region's server stamps were given
/// at (`stamp_floor`), so that a region opened elsewhere never stamps below it.
const CLOCK_FILE: &str = ".clock";

/// The time recorded in the region's `.clock` file; None if there is none yet.
fn read_clock(fs: &dyn FileSystem, dir: &Path) -> Result<Option<i64>> {
    let path = dir.join(CLOCK_FILE);
    if !fs.exists(&path).map_err(Error::storage_from)? {
        return Ok(None);
    }
    let bytes = basalt_fs::read_all(fs, &path).map_err(Error::storage_from)?;
    let text = String::from_utf8_lossy(&bytes);
    match text.lines().collect::<Vec<_>>().as_slice() {
        ["basalt-clock 1", n] => n
            .parse()
            .map(Some)
            .map_err(|_| Error::corrupt(format!("{}: bad clock time {n:?}", path.display()))),
        _ => Err(Error::corrupt(format!(
            "{}: not a Basalt clock file",
            path.display()
        ))),
    }
}

/// Records `floor` as the newest clock time the region in `dir` stamped at (`.clock`). A
/// split's or merge's new region gets its parents' (the newest of them).
pub fn write_clock(fs: &dyn FileSystem, dir: &Path, floor: i64) -> Result<()> {
    if floor == i64::MIN {
        return Ok(());
    }
    basalt_fs::write_atomically(
        fs,
        &dir.join(CLOCK_FILE),
        format!("basalt-clock 1\n{floor}\n").as_bytes(),
    )
    .map_err(Error::storage_from)
}

/// The durability a mutation gets: its own, else its table's, else SYNC_WAL.
fn durability_of(mutation: Durability, table: &TableDescriptor) -> Durability {
    match (mutation, table.durability) {
        (Durability::UseDefault, Durability::UseDefault) => Durability::SyncWal,
        (Durability::UseDefault, table) => table,
        (mutation, _) => mutation,
    }
}

/// The default of [`RegionConfig::in_memory_flush_size`]: 8 MiB, a sixteenth of the default
/// MEMSTORE_FLUSHSIZE, so a full memstore is a few flat segments and a small active list.
pub const DEFAULT_IN_MEMORY_FLUSH_SIZE: usize = 8 << 20;

/// Settings of a region that do not come from the table descriptor.
#[derive(Debug, Clone)]
pub struct RegionConfig {
    /// Largest cell accepted, in serialized bytes (`hbase.server.keyvalue.maxsize`).
    pub max_cell_size: usize,
    /// The server's write-ahead log; without one, writes live only in memstores until flushed.
    pub wal: Option<Arc<Wal>>,
    /// The process's block cache, if store files should read through one.
    pub block_cache: Option<Arc<BlockCache>>,
    /// The server's memstore budget. With one, flushes at MEMSTORE_FLUSHSIZE are left to the
    /// server's flushers and writers wait when memory runs short; without, the writer that
    /// fills the memstore flushes it.
    pub budget: Option<Arc<MemstoreBudget>>,
    /// Bytes a store's active memstore holds before it is frozen and flattened into a sorted
    /// array in the background (HBase's in-memory flush; `crate::flat`).
    pub in_memory_flush_size: usize,
    /// The server's rows whose timestamps ran ahead of the clock (`region/stamps.rs`).
    pub stamps: Arc<RowStamps>,
    /// Opens `hbase:meta` with its rows in plain byte order, as data directories before
    /// version 3 stored them: only the upgrade that converts them sets it.
    pub legacy_meta_rows: bool,
    /// The server's metrics: operations, flushes and compactions are counted there.
    pub metrics: Arc<ServerMetrics>,
    /// Who may do what on the server's regions (checked by its services on calls from the
    /// network; the region itself does not look).
    pub access: Arc<basalt_common::acl::AccessControl>,
    /// The server's settings that change while it runs (`update_config`): the flush size of
    /// tables that leave MEMSTORE_FLUSHSIZE at its default.
    pub settings: Arc<basalt_common::site::LiveSettings>,
}

/// Records an operation's time when dropped ([`Region::time`]).
pub(crate) struct OpTimer<'a> {
    metrics: &'a ServerMetrics,
    op: Op,
    started: std::time::Instant,
}

impl Drop for OpTimer<'_> {
    fn drop(&mut self) {
        self.metrics.timed(self.op, self.started);
    }
}

impl Default for RegionConfig {
    fn default() -> Self {
        RegionConfig {
            max_cell_size: DEFAULT_MAX_CELL_SIZE,
            wal: None,
            block_cache: None,
            budget: None,
            in_memory_flush_size: DEFAULT_IN_MEMORY_FLUSH_SIZE,
            stamps: Arc::default(),
            legacy_meta_rows: false,
            metrics: ServerMetrics::new(),
            access: Arc::default(),
            settings: Arc::default(),
        }
    }
}

/// A region of a table.
#[derive(Debug)]
pub struct Region {
    info: RegionInfo,
    descriptor: TableDescriptor,
    /// The families with a REPLICATION_SCOPE, which every edit's WAL record names.
    replicated_families: Vec<Bytes>,
    /// Set by [`Region::close`]: every later request fails with NotServingRegion, so callers
    /// look the row's region up again (it split, merged or reopened).
    closed: AtomicBool,
    /// One per family, sorted by family name.
    stores: Vec<Store>,
    mvcc: Mvcc,
    /// Writes hold it shared while they apply; a flush holds it exclusively while it takes
    /// memstore snapshots, so no snapshot misses half of a mutation (HBase's updatesLock).
    updates: RwLock<()>,
    /// One flush at a time.
    flushing: Mutex<()>,
    /// Compactions hold it shared; [`Region::close`] takes it exclusively to wait for them,
    /// so no compaction replaces files after the region closed (a split or merge is then
    /// writing references to them).
    compactions: RwLock<()>,
    /// Minor and major compactions running now (HBase's `compaction_state`).
    compacting: [std::sync::atomic::AtomicUsize; 2],
    /// Bytes written to active memstores since the last snapshot: the flush trigger, kept
    /// apart from the stores so a write does not have to visit them.
    unflushed: AtomicUsize,
    /// Bytes in the snapshots being flushed, as `unflushed` counted them.
    snapshot_bytes: AtomicUsize,
    /// Told after a flush that leaves a store with enough files for a minor compaction:
    /// whoever runs compactions in the background (the connection's worker) listens.
    compaction_listener: Mutex<Option<Sender<()>>>,
    /// When the last major compaction ran (clock milliseconds; the open time at first).
    last_major_compaction: AtomicI64,
    /// When a major compaction last finished in this process (clock milliseconds), 0 when
    /// none has since the region opened: HBase's "last major compaction timestamp".
    major_compacted_at: AtomicI64,
    /// The space quota policy in force on the region's table (HBase's
    /// SpaceViolationPolicyEnforcement), as `SpacePolicy as u8`; 0 when none is.
    space_policy: std::sync::atomic::AtomicU8,
    /// Where the region's `.seqid` file lives.
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    /// Flushes and compactions (foreground and background) both rewrite `.seqid`.
    recording_seqid: Mutex<()>,
    /// Every cell with a sequence id up to this is in the store files (or was dropped by a
    /// compaction): what `.seqid` records, and where WAL replay starts.
    flushed_seq_id: AtomicU64,
    /// Per store (in `stores`' order): the highest sequence id its files hold when the region
    /// opened; WAL replay gives each store only the edits after it.
    replay_after: Vec<u64>,
    /// Held while a mutation takes its sequence id and queues its WAL edit.
    wal_order: Mutex<()>,
    /// The highest sequence id when the snapshots being flushed were taken. A failed flush
    /// leaves its snapshots for the next one to retry, and that flush accounts for no more.
    snapshot_seq_id: AtomicU64,
    /// The region's encoded name (its directory's name), which WAL edits carry.
    encoded_name: String,
    /// The table's name as WAL edits carry it.
    table_name: String,
    /// From the table's CONFIGURATION (`hbase.hstore.compaction.*`), over HBase's defaults.
    compaction: CompactionConfig,
    row_locks: RowLocks,
    clock: Arc<dyn Clock>,
    /// The newest clock time the region's server stamps were given at (recorded in `.clock`
    /// with every flush, read when the region opens): the server never stamps below it, so a
    /// clock that jumps back, or a server whose clock is behind the one that wrote the region
    /// before, never hides a new write behind an older one (issue 45). Timestamps clients
    /// chose never move it.
    stamp_floor: AtomicI64,
    config: RegionConfig,
    /// Reads and writes served, as HBase's region load counts them.
    requests: Arc<RequestCounts>,
    /// Whether this is `hbase:meta`'s region, whose rows are stored in meta order
    /// (`crate::meta_keys`).
    meta: bool,
    /// The code run around its operations (the table's coprocessors), set once as it opens.
    observer: std::sync::OnceLock<Arc<dyn crate::RegionObserver>>,
    /// Observed writes hold it shared from their write to the end of their post hook; a flush
    /// of an observed region holds it exclusively (`flush::flush_observed`).
    observing: RwLock<()>,
}

impl Region {
    /// An empty region for `descriptor`, which is validated first.
    /// Opens the region kept under `dir` on `fs` (one directory per family, created if
    /// missing, so a new region is opened on empty directories): every family's store files.
    /// The descriptor is validated first. Sequence ids continue after the highest one found.
    pub fn open(
        info: RegionInfo,
        descriptor: TableDescriptor,
        clock: Arc<dyn Clock>,
        config: RegionConfig,
        fs: Arc<dyn FileSystem>,
        dir: &Path,
    ) -> Result<Self> {
        descriptor.validate()?;
        let compaction = CompactionConfig::from_configuration(
            &descriptor.configuration,
            descriptor.memstore_flushsize,
        )
        .map_err(|reason| Error::InvalidDescriptor {
            what: format!("table {}", descriptor.name),
            reason,
        })?;
        let mut stores = Vec::new();
        // Sequence ids never go back, even when compactions dropped the cells that held the
        // highest ones: the region records the last one its files account for (`.seqid`).
        // A bulk load a crash interrupted: finished or dropped before the stores list files.
        bulk::settle(fs.as_ref(), dir)?;
        let flushed = read_seqid(fs.as_ref(), dir)?;
        let mut last_seq_id = flushed;
        let mut replay_after = Vec::new();
        for f in descriptor.families() {
            let (store, max_seq) = Store::open(
                f.clone(),
                Arc::clone(&fs),
                dir.join(f.name_str()),
                config.block_cache.clone(),
            )?;
            last_seq_id = last_seq_id.max(max_seq);
            // A flush that died half way wrote some families' files and not others': each
            // store skips only the edits its own files hold (HBase's per-store replay).
            replay_after.push(flushed.max(max_seq));
            stores.push(store);
        }
        let table_name = descriptor.name.to_string();
        let stamp_floor = read_clock(fs.as_ref(), dir)?.unwrap_or(i64::MIN);
        let descriptor_is_meta = descriptor.name.is_system()
            && descriptor.name.qualifier() == "meta"
            && !config.legacy_meta_rows;
        let replicated_families = descriptor
            .families()
            .iter()
            .filter(|f| f.replication_scope != 0)
            .map(|f| f.name.clone())
            .collect();
        Ok(Region {
            info,
            replicated_families,
            descriptor,
            closed: AtomicBool::new(false),
            stores,
            mvcc: Mvcc::new(last_seq_id),
            updates: RwLock::new(()),
            flushing: Mutex::new(()),
            compactions: RwLock::new(()),
            compacting: Default::default(),
            unflushed: AtomicUsize::new(0),
            snapshot_bytes: AtomicUsize::new(0),
            compaction_listener: Mutex::new(None),
            last_major_compaction: AtomicI64::new(clock.now_millis()),
            major_compacted_at: AtomicI64::new(0),
            space_policy: std::sync::atomic::AtomicU8::new(0),
            fs,
            dir: dir.to_owned(),
            recording_seqid: Mutex::new(()),
            flushed_seq_id: AtomicU64::new(flushed),
            replay_after,
            wal_order: Mutex::new(()),
            snapshot_seq_id: AtomicU64::new(last_seq_id),
            table_name,
            encoded_name: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            compaction,
            row_locks: RowLocks::default(),
            clock,
            stamp_floor: AtomicI64::new(stamp_floor),
            config,
            requests: Arc::default(),
            meta: descriptor_is_meta,
            observer: std::sync::OnceLock::new(),
            observing: RwLock::new(()),
        })
    }

    /// Runs `observer` around this region's operations from now on (once; meta's region
    /// takes none). Call it before the region replays a WAL or serves.
    pub fn set_observer(&self, observer: Arc<dyn crate::RegionObserver>) -> Result<()> {
        if self.meta {
            return Err(Error::InvalidArgument(
                "hbase:meta's region runs no coprocessor".into(),
            ));
        }
        self.observer.set(observer).map_err(|_| {
            Error::InvalidArgument(format!(
                "region {} already has its coprocessors",
                self.encoded_name
            ))
        })
    }

    /// The code run around this region's operations, if any.
    pub fn observer(&self) -> Option<&Arc<dyn crate::RegionObserver>> {
        self.observer.get()
    }

    pub fn descriptor(&self) -> &TableDescriptor {
        &self.descriptor
    }

    /// Whether a family of its table has a REPLICATION_SCOPE (its edits may ship to peers).
    pub fn replicates(&self) -> bool {
        !self.replicated_families.is_empty()
    }

    /// The newest clock time the region's server stamps were given at (`.clock`).
    pub fn stamp_floor(&self) -> i64 {
        self.stamp_floor.load(Ordering::Acquire)
    }

    /// When a major compaction last finished (milliseconds), 0 when none has since the
    /// region opened (HBase reads it from its files' metadata, which Basalt's do not carry).
    pub fn last_major_compaction_ms(&self) -> i64 {
        self.major_compacted_at.load(Ordering::Relaxed)
    }

    /// The reads and writes this region has served since it opened.
    pub fn requests(&self) -> &RequestCounts {
        &self.requests
    }

    /// Which rows the region holds, and its name.
    pub fn info(&self) -> &RegionInfo {
        &self.info
    }

    /// The region's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn not_serving(&self) -> Error {
        Error::NotServingRegion(String::from_utf8_lossy(&self.info.region_name()).into_owned())
    }

    /// Fails if the region is closed or `row` is not one of its rows.
    fn check_serving(&self, row: &[u8]) -> Result<()> {
        if self.closed.load(Ordering::Acquire) || !self.info.contains_row(row) {
            return Err(self.not_serving());
        }
        Ok(())
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Stops serving: waits for the writes in flight, refuses every later request, and
    /// flushes the memstores so the region's files hold everything (its WAL edits are then
    /// needed by nobody). A failed flush reopens the region and returns the error.
    pub fn close(&self) -> Result<()> {
        {
            let _no_updates = self.updates.write().unwrap_or_else(PoisonError::into_inner);
            if self.closed.swap(true, Ordering::AcqRel) {
                return Ok(());
            }
        }
        drop(
            self.compactions
                .write()
                .unwrap_or_else(PoisonError::into_inner),
        );
        if let Err(e) = self.flush() {
            self.closed.store(false, Ordering::Release);
            return Err(e);
        }
        self.evict_blocks_on_close();
        Ok(())
    }

    /// Drops from the block cache the blocks of every family with EVICT_BLOCKS_ON_CLOSE: what
    /// closing the region does, and disabling its table (which in HBase closes it).
    pub fn evict_blocks_on_close(&self) {
        for store in self
            .stores
            .iter()
            .filter(|s| s.family().evict_blocks_on_close)
        {
            store.evict_blocks();
        }
    }

    /// Drops every block of the region's store files from the block cache (HBase's
    /// `clear_block_cache`).
    pub fn evict_all_blocks(&self) {
        for store in &self.stores {
            store.evict_blocks();
        }
    }

    /// Serves again after a [`Region::close`] that its caller could not go through with.
    pub fn reopen(&self) {
        self.closed.store(false, Ordering::Release);
    }

    /// Where HBase would split the region: the middle row of its largest store's largest
    /// file, if that row is inside the region and not its first row. None when there are no
    /// files, references remain, or all cells share one row.
    pub fn split_point(&self) -> Result<Option<Bytes>> {
        let Some(store) = self.stores.iter().max_by_key(|s| s.size()) else {
            return Ok(None);
        };
        Ok(store
            .mid_row()?
            .filter(|row| self.info.contains_row(row) && row[..] != self.info.start_key[..]))
    }

    /// Writes into `target` (a new region's directory) references to this region's files for
    /// the rows `[start, end)`: the daughter of a split, or the region a merge creates.
    pub fn write_references(&self, target: &Path, start: &Bytes, end: &Bytes) -> Result<()> {
        let range = RowRange {
            start: start.clone(),
            end: end.clone(),
        };
        for store in &self.stores {
            store.write_references(
                &target.join(store.family().name_str()),
                &range,
                &self.encoded_name,
            )?;
        }
        Ok(())
    }

    pub(crate) fn read_point(&self) -> u64 {
        self.mvcc.read_point()
    }

    pub(crate) fn now(&self) -> i64 {
        self.clock.now_millis()
    }

    fn store_index(&self, family: &[u8]) -> Result<usize> {
        self.stores
            .iter()
            .position(|s| s.family().name == family)
            .ok_or_else(|| Error::NoSuchColumnFamily {
                table: self.descriptor.name.clone(),
                family: BinaryDisplay::new(family),
            })
    }

    /// The highest sequence id handed out so far.
    /// Times one client operation on this region; the time is recorded when the returned
    /// guard drops (however the operation ends).
    /// The server's metrics this region counts into.
    pub fn metrics(&self) -> &Arc<ServerMetrics> {
        &self.config.metrics
    }

    pub(crate) fn time(&self, op: Op) -> OpTimer<'_> {
        OpTimer {
            metrics: &self.config.metrics,
            op,
            started: std::time::Instant::now(),
        }
    }

    pub fn last_sequence_id(&self) -> u64 {
        self.mvcc.last_assigned()
    }

    /// The region's encoded name, as WAL edits carry it.
    pub fn encoded_name(&self) -> &str {
        &self.encoded_name
    }
}

impl Drop for Region {
    /// A region dropped with data in memory (a failed open, a deleted table) gives its bytes
    /// back to the server's budget.
    fn drop(&mut self) {
        if let Some(budget) = &self.config.budget {
            budget.release(self.memstore_bytes());
        }
    }
}

#[cfg(test)]
mod in_memory_flush_tests;
