//! A region: a table's rows (today, all of them) with one store per family, an MVCC, row
//! locks and the clock. It applies mutations atomically per row and answers Gets and Scans.

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
use basalt_common::filter::Filter;
use basalt_common::metrics::{Op, ServerMetrics};
use basalt_common::ops::{Delete, FamilyMap, Get, Put, RowResult, Scan, TimeRange};
use basalt_common::{
    Bytes, Cell, CellType, Clock, Durability, LATEST_TIMESTAMP, RegionInfo, TableDescriptor,
};

use crate::matcher::{StoreQuery, read_row};
use crate::mvcc::Mvcc;
use crate::row_lock::RowLocks;
use crate::scanner::{RegionScanner, RowVerdict, finish_row, start_row};
use crate::store::{FileFilter, Store};
use basalt_fs::FileSystem;
use basalt_storefile::BlockCache;
use basalt_wal::{Wal, WalEdit};

use crate::budget::{BLOCK_MULTIPLIER, MemstoreBudget};

mod meta_rows;
mod rmw;
mod stamps;

use crate::compaction::{CompactionConfig, select_minor};
use crate::memstore::MemStore;
use crate::reference::RowRange;
pub(crate) use meta_rows::shown_if;
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
        }
    }
}

/// A region of a table.
#[derive(Debug)]
pub struct Region {
    info: RegionInfo,
    descriptor: TableDescriptor,
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
    config: RegionConfig,
    /// Reads and writes served, as HBase's region load counts them.
    requests: Arc<RequestCounts>,
    /// Whether this is `hbase:meta`'s region, whose rows are stored in meta order
    /// (`crate::meta_keys`).
    meta: bool,
}

/// A region's request counters (HBase's `readRequestsCount` and `writeRequestsCount`): a Get
/// or a row a scanner returns is one read, a mutation of a row is one write.
#[derive(Debug, Default)]
pub struct RequestCounts {
    reads: AtomicU64,
    writes: AtomicU64,
}

impl RequestCounts {
    pub(crate) fn read(&self) {
        self.reads.fetch_add(1, Ordering::Relaxed);
    }

    fn write(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
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
        let descriptor_is_meta = descriptor.name.is_system()
            && descriptor.name.qualifier() == "meta"
            && !config.legacy_meta_rows;
        Ok(Region {
            info,
            descriptor,
            closed: AtomicBool::new(false),
            stores,
            mvcc: Mvcc::new(last_seq_id),
            updates: RwLock::new(()),
            flushing: Mutex::new(()),
            compactions: RwLock::new(()),
            unflushed: AtomicUsize::new(0),
            snapshot_bytes: AtomicUsize::new(0),
            compaction_listener: Mutex::new(None),
            last_major_compaction: AtomicI64::new(clock.now_millis()),
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
            config,
            requests: Arc::default(),
            meta: descriptor_is_meta,
        })
    }

    pub fn descriptor(&self) -> &TableDescriptor {
        &self.descriptor
    }

    /// The reads and writes this region has served since it opened.
    pub fn requests(&self) -> &RequestCounts {
        &self.requests
    }

    pub(crate) fn request_counts(&self) -> Arc<RequestCounts> {
        Arc::clone(&self.requests)
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

    pub(crate) fn stores(&self) -> &[Store] {
        &self.stores
    }

    pub(crate) fn read_point(&self) -> u64 {
        self.mvcc.read_point()
    }

    pub(crate) fn now(&self) -> i64 {
        self.clock.now_millis()
    }

    /// The server's time for a write of `row`: the clock, or later where an earlier server
    /// stamp of the row ran ahead of it, so a later write never lands below an earlier one.
    fn now_for(&self, row: &[u8]) -> i64 {
        self.config
            .stamps
            .now_for(&self.table_name, row, self.now())
    }

    /// Records that the server's next stamp of `row` must be at least `floor` (the newest
    /// stamp it gave, or one past a delete marker it stamped), if that is ahead of the clock.
    /// Timestamps clients chose never come here.
    fn note_floor(&self, row: &Bytes, floor: Option<i64>) {
        if let Some(ts) = floor {
            self.config
                .stamps
                .note(&self.table_name, row, ts, self.now());
        }
    }

    /// The floor a Put stamped at `stamp` leaves: the stamp, if any cell took it.
    fn put_floor(put: &Put, stamp: i64) -> Option<i64> {
        put.cells
            .iter()
            .any(|c| c.timestamp.unwrap_or(put.timestamp) == LATEST_TIMESTAMP)
            .then_some(stamp)
    }

    /// The floor delete markers stamped at `now` leave: one past them, so a write stamped
    /// after them is not masked.
    fn delete_floor(markers: &[(usize, Bytes, i64, CellType)], now: i64) -> Option<i64> {
        markers
            .iter()
            .any(|m| m.2 == now)
            .then(|| now.saturating_add(1))
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

    /// Refuses writes to a READONLY table, as HBase's `checkReadOnly`.
    fn check_writable(&self) -> Result<()> {
        if self.descriptor.read_only {
            return Err(Error::TableReadOnly(self.descriptor.name.clone()));
        }
        Ok(())
    }

    /// Writes every cell of `put` atomically.
    pub(crate) fn put_stored(&self, put: &Put) -> Result<()> {
        self.check_writable()?;
        self.check_row(&put.row)?;
        self.check_serving(&put.row)?;
        let cells = self.put_cells(put, self.now_for(&put.row))?;
        let _lock = self.row_locks.shared(&put.row);
        self.apply(cells, put.durability)
    }

    /// Refuses a cell larger than `hbase.server.keyvalue.maxsize`.
    fn check_cell_size(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value_len: usize,
    ) -> Result<()> {
        let size = key_value_size(row.len(), family.len(), qualifier.len(), value_len);
        if size > self.config.max_cell_size {
            return Err(Error::CellTooLarge {
                row: BinaryDisplay::new(row),
                size,
                limit: self.config.max_cell_size,
            });
        }
        Ok(())
    }

    /// Validates `put` and builds its cells, with server timestamps resolved to `now`.
    fn put_cells(&self, put: &Put, now: i64) -> Result<Vec<(usize, Cell)>> {
        if put.cells.is_empty() {
            return Err(Error::InvalidArgument("No columns to insert".into()));
        }
        validate_timestamp(put.timestamp)?;
        let mut targets = Vec::with_capacity(put.cells.len());
        for c in &put.cells {
            targets.push(self.store_index(&c.family)?);
            if let Some(ts) = c.timestamp {
                validate_timestamp(ts)?;
            }
            self.check_cell_size(&put.row, &c.family, &c.qualifier, c.value.len())?;
        }
        let mut cells = Vec::with_capacity(put.cells.len());
        for (c, &store) in put.cells.iter().zip(&targets) {
            let ts = match c.timestamp.unwrap_or(put.timestamp) {
                LATEST_TIMESTAMP => now,
                ts => ts,
            };
            let cell = self.stores[store].build_cell(
                &put.row,
                &c.qualifier,
                ts,
                CellType::Put,
                &c.value,
            )?;
            cells.push((store, cell.with_ttl_ms(put.ttl_ms)));
        }
        Ok(cells)
    }

    /// Applies puts and deletes of several rows as one atomic mutation: one sequence id, one
    /// WAL record, all visible at once (HBase's `mutateRowsWithLocks`, which `hbase:meta`
    /// changes use). Deletes must name their timestamps or delete whole columns or families:
    /// a "newest version" delete would have to read first.
    pub(crate) fn mutate_rows_stored(
        &self,
        mutations: &[RowMutation],
        durability: Durability,
    ) -> Result<()> {
        self.check_writable()?;
        let mut cells = Vec::new();
        for m in mutations {
            match m {
                RowMutation::Put(put) => {
                    self.check_row(&put.row)?;
                    self.check_serving(&put.row)?;
                    cells.extend(self.put_cells(put, self.now())?);
                }
                RowMutation::Delete(delete) => {
                    self.validate_delete(delete)?;
                    self.check_serving(&delete.row)?;
                    if Self::reads_first(delete) {
                        return Err(Error::InvalidArgument(
                            "a multi-row mutation cannot delete the newest version of a column"
                                .into(),
                        ));
                    }
                    let markers = self.delete_markers(delete, self.now())?;
                    cells.extend(self.marker_cells(&delete.row, markers)?);
                }
            }
        }
        if cells.is_empty() {
            return Ok(());
        }
        self.apply(cells, durability)
    }

    /// Makes a mutation's cells visible together: one sequence id, all memstore inserts, then
    /// the read point moves past them. Building the cells (the only step that can fail) is
    /// done before, so a mutation is never applied in part.
    fn apply(&self, cells: Vec<(usize, Cell)>, durability: Durability) -> Result<()> {
        self.requests.write();
        if let Some(budget) = &self.config.budget {
            let block_at = usize::try_from(self.descriptor.memstore_flushsize)
                .unwrap_or(usize::MAX)
                .saturating_mul(BLOCK_MULTIPLIER);
            budget.wait_for_room(&self.encoded_name, || self.memstore_bytes() >= block_at)?;
        }
        let freeze_at = self.config.in_memory_flush_size;
        // Whether an active memstore reached the in-memory flush size.
        let mut any_full = false;
        {
            let _updating = self.updates.read().unwrap_or_else(PoisonError::into_inner);
            if self.closed.load(Ordering::Acquire) {
                return Err(self.not_serving());
            }
            let (seq_id, logged) = self.begin_logged(&cells, durability);
            if let Err(e) = logged {
                // Nothing was applied: the id completes empty, and the caller sees the error.
                self.mvcc.complete(seq_id);
                return Err(e);
            }
            let size: usize = cells.iter().map(|(_, c)| MemStore::accounted_size(c)).sum();
            for (store, cell) in cells {
                let store = &self.stores[store];
                let active = store.insert(cell.with_seq_id(seq_id));
                any_full |= active >= freeze_at && store.flattens_in_memory();
            }
            self.unflushed.fetch_add(size, Ordering::Relaxed);
            if let Some(budget) = &self.config.budget {
                budget.add(size);
            }
            self.mvcc.complete(seq_id);
        }
        if any_full {
            self.freeze_full_stores(freeze_at);
        }
        self.flush_if_full();
        Ok(())
    }

    /// Freezes the active memstores that hold `at` bytes or more, and has them flattened in
    /// the background. Freezing holds the updates lock exclusively, so no mutation is split
    /// between two segments.
    fn freeze_full_stores(&self, at: usize) {
        let frozen: Vec<&Store> = {
            let _no_updates = self.updates.write().unwrap_or_else(PoisonError::into_inner);
            self.stores
                .iter()
                .filter(|store| store.flattens_in_memory() && store.freeze(at))
                .collect()
        };
        for store in frozen {
            store.flatten_in_background();
        }
    }

    /// Takes the mutation's sequence id and logs its cells as durably as the mutation (else
    /// the table, else SYNC_WAL) asks. The id is taken and the record queued under one lock,
    /// so the log holds this region's edits in sequence-id order; the wait for the write or
    /// sync happens outside it. Returns the id even when logging failed.
    fn begin_logged(&self, cells: &[(usize, Cell)], durability: Durability) -> (u64, Result<()>) {
        let durability = durability_of(durability, &self.descriptor);
        let Some(wal) = self
            .config
            .wal
            .as_ref()
            .filter(|_| durability != Durability::SkipWal)
        else {
            return (self.mvcc.begin(), Ok(()));
        };
        let (seq_id, ticket) = {
            let _in_order = self
                .wal_order
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let seq_id = self.mvcc.begin();
            let ticket = wal.enqueue_cells(
                &self.encoded_name,
                &self.table_name,
                seq_id,
                self.now(),
                cells.iter().map(|(_, c)| c),
            );
            (seq_id, ticket)
        };
        let logged = ticket.and_then(|t| wal.wait_for(t, durability));
        (seq_id, logged.map_err(Error::from))
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

    /// Applies an edit read back from the WAL while the region opens, unless the store files
    /// already hold it. Cells of families the table no longer has are skipped, as HBase
    /// does. Returns whether anything was applied.
    pub fn replay(&self, edit: &WalEdit) -> Result<bool> {
        if edit.seq_id <= self.flushed_seq_id.load(Ordering::Acquire) {
            return Ok(false);
        }
        let mut size = 0;
        let mut applied = false;
        for cell in &edit.cells {
            let Ok(store) = self.store_index(cell.family()) else {
                continue;
            };
            if self
                .replay_after
                .get(store)
                .is_some_and(|&after| edit.seq_id <= after)
            {
                continue;
            }
            applied = true;
            size += MemStore::accounted_size(cell);
            self.stores[store].insert(cell.clone().with_seq_id(edit.seq_id));
        }
        self.unflushed.fetch_add(size, Ordering::Relaxed);
        if let Some(budget) = &self.config.budget {
            budget.add(size);
        }
        self.mvcc.advance_to(edit.seq_id);
        Ok(applied || edit.cells.is_empty())
    }

    /// Flushes when the memstores have reached MEMSTORE_FLUSHSIZE and no flush is running.
    /// A failed automatic flush leaves its snapshot readable, and the next flush retries it;
    /// [`Region::flush`] reports errors.
    fn flush_if_full(&self) {
        if !self.needs_flush() {
            return;
        }
        if let Some(budget) = &self.config.budget {
            budget.request_flush();
        } else if let Ok(_flushing) = self.flushing.try_lock() {
            let _ = self.flush_locked();
        }
    }

    /// Whether the memstores have reached MEMSTORE_FLUSHSIZE since the last flush.
    pub fn needs_flush(&self) -> bool {
        let limit = usize::try_from(self.descriptor.memstore_flushsize).unwrap_or(usize::MAX);
        self.unflushed.load(Ordering::Relaxed) >= limit
    }

    /// Bytes the memstores hold (active and snapshot), as the memstore budget counts them.
    pub fn memstore_bytes(&self) -> usize {
        self.unflushed.load(Ordering::Relaxed) + self.snapshot_bytes.load(Ordering::Relaxed)
    }

    /// Flushes unless a flush is running already (then returns Ok(false)): for flushers.
    pub fn try_flush(&self) -> Result<bool> {
        match self.flushing.try_lock() {
            Ok(_flushing) => self.flush_locked().map(|()| true),
            Err(_) => Ok(false),
        }
    }

    /// Writes every store's memstore to a new store file, while reads and writes go on.
    pub fn flush(&self) -> Result<()> {
        let _flushing = self.flushing.lock().unwrap_or_else(PoisonError::into_inner);
        self.flush_locked()
    }

    fn flush_locked(&self) -> Result<()> {
        let started = std::time::Instant::now();
        let _task = self.config.metrics.tasks.start(
            "flush",
            format!(
                "flushing {} ({} bytes in memstores)",
                String::from_utf8_lossy(&self.info.region_name()),
                self.memstore_bytes()
            ),
        );
        let flushed = {
            let _no_updates = self.updates.write().unwrap_or_else(PoisonError::into_inner);
            let retrying = self.stores.iter().any(Store::has_snapshot);
            for store in &self.stores {
                store.snapshot();
            }
            let taken = self.unflushed.swap(0, Ordering::Relaxed);
            self.snapshot_bytes.fetch_add(taken, Ordering::Relaxed);
            if retrying {
                // A store kept the snapshot of a failed flush and did not take a new one: its
                // active memstore still holds later ids, so this flush covers only the ids
                // of that earlier snapshot (other stores flushing more is harmless: replay
                // skips nothing it should not, and re-applying an edit is idempotent).
                self.snapshot_seq_id.load(Ordering::Acquire)
            } else {
                // No mutation is in flight under this lock: the snapshots hold every id so far.
                let seq = self.mvcc.last_assigned();
                self.snapshot_seq_id.store(seq, Ordering::Release);
                seq
            }
        };
        let now = self.now();
        for store in &self.stores {
            store.flush_snapshot(now)?;
        }
        let released = self.snapshot_bytes.swap(0, Ordering::Relaxed);
        if let Some(budget) = &self.config.budget {
            budget.release(released);
        }
        self.config.metrics.flushes.since(started);
        self.config.metrics.flushed_bytes.add(released as u64);
        self.flushed_seq_id.fetch_max(flushed, Ordering::AcqRel);
        self.record_seqid()?;
        if let Some(wal) = &self.config.wal {
            wal.region_flushed(&self.encoded_name, flushed)?;
        }
        if self.wants_compaction() {
            let listener = self
                .compaction_listener
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(tx) = listener.as_ref() {
                // A gone listener only means nobody compacts in the background any more.
                let _ = tx.send(());
            }
        }
        Ok(())
    }

    /// Writes the highest sequence id the store files account for to `.seqid`.
    fn record_seqid(&self) -> Result<()> {
        let _one_writer = self
            .recording_seqid
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let text = format!(
            "basalt-seqid 1\n{}\n",
            self.flushed_seq_id.load(Ordering::Acquire)
        );
        basalt_fs::write_atomically(
            self.fs.as_ref(),
            &self.dir.join(SEQID_FILE),
            text.as_bytes(),
        )
        .map_err(Error::storage_from)
    }

    /// Sends a message on `tx` whenever a flush leaves a minor compaction to do.
    pub fn set_compaction_listener(&self, tx: Sender<()>) {
        *self
            .compaction_listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(tx);
    }

    fn compaction_config(&self) -> CompactionConfig {
        self.compaction.clone()
    }

    /// Milliseconds since the last major compaction (or since the region opened).
    pub fn millis_since_major_compaction(&self) -> i64 {
        self.now() - self.last_major_compaction.load(Ordering::Relaxed)
    }

    /// Whether some store has files the exploring policy would merge.
    pub fn wants_compaction(&self) -> bool {
        let config = self.compaction_config();
        self.descriptor.compaction_enabled
            && self
                .stores
                .iter()
                .any(|s| s.has_references() || select_minor(&s.file_sizes(), &config).is_some())
    }

    /// Compacts every store: minor (the exploring policy's pick, every cell kept) or major
    /// (all files rewritten without deleted, surplus and expired cells). Returns how many
    /// stores compacted.
    /// A closed region does not compact (its files belong to whoever closed it).
    pub fn compact(&self, major: bool) -> Result<usize> {
        let _running = self
            .compactions
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if self.is_closed() {
            return Ok(0);
        }
        let config = self.compaction_config();
        let now = self.now();
        let mut compacted = 0;
        for store in &self.stores {
            let started = std::time::Instant::now();
            let before = store.file_sizes().iter().sum::<u64>();
            let _task = self.config.metrics.tasks.start(
                "compaction",
                format!(
                    "{} compaction of {} family {} ({before} bytes in store files)",
                    if major { "major" } else { "minor" },
                    String::from_utf8_lossy(&self.info.region_name()),
                    store.family().name_str(),
                ),
            );
            if store.compact(major, &config, now)? {
                compacted += 1;
                self.config.metrics.compactions.since(started);
                self.config.metrics.compacted_bytes.add(before);
            }
        }
        if major {
            self.last_major_compaction.store(now, Ordering::Relaxed);
        }
        self.record_seqid()?;
        Ok(compacted)
    }

    /// Store files per family, in family order.
    pub fn store_file_counts(&self) -> Vec<usize> {
        self.stores.iter().map(Store::file_count).collect()
    }

    /// Writes the delete markers of `delete` atomically. A whole-row delete writes one
    /// DeleteFamily marker per family; a single-version delete without a timestamp masks the
    /// newest version there is (or "now" when there is none), as HBase's
    /// `prepareDeleteTimestamps` does.
    pub(crate) fn delete_stored(&self, delete: &Delete) -> Result<()> {
        self.check_writable()?;
        self.validate_delete(delete)?;
        self.check_serving(&delete.row)?;
        let _shared;
        let _exclusive;
        if Self::reads_first(delete) {
            _exclusive = self.row_locks.exclusive(&delete.row);
        } else {
            _shared = self.row_locks.shared(&delete.row);
        }
        let now = self.now_for(&delete.row);
        let markers = self.delete_markers(delete, now)?;
        // A marker the server stamped masks everything up to `now`: a write the server
        // stamps after it goes one later, so it is not masked (a Put right after a Delete is
        // seen, where HBase would hide it until the clock moved on).
        self.note_floor(&delete.row, Self::delete_floor(&markers, now));
        let cells = self.marker_cells(&delete.row, markers)?;
        self.apply(cells, delete.durability)
    }

    fn validate_delete(&self, delete: &Delete) -> Result<()> {
        self.check_row(&delete.row)?;
        validate_timestamp(delete.timestamp)?;
        for e in &delete.entries {
            self.store_index(&e.family)?;
            if let Some(ts) = e.timestamp {
                validate_timestamp(ts)?;
            }
            if !e.kind.is_delete() {
                return Err(Error::InvalidArgument(format!(
                    "{} is not a delete type",
                    e.kind
                )));
            }
        }
        Ok(())
    }

    /// Whether the delete masks "the newest version" of some column, which it must read.
    fn reads_first(delete: &Delete) -> bool {
        delete.entries.iter().any(|e| {
            e.kind == CellType::Delete
                && e.timestamp.unwrap_or(delete.timestamp) == LATEST_TIMESTAMP
        })
    }

    /// The markers of a validated delete: (store, qualifier, timestamp, type).
    fn delete_markers(
        &self,
        delete: &Delete,
        now: i64,
    ) -> Result<Vec<(usize, Bytes, i64, CellType)>> {
        let resolve = |ts: i64| if ts == LATEST_TIMESTAMP { now } else { ts };
        let mut markers: Vec<(usize, Bytes, i64, CellType)> = Vec::new();
        if delete.entries.is_empty() {
            for store in 0..self.stores.len() {
                markers.push((
                    store,
                    Bytes::new(),
                    resolve(delete.timestamp),
                    CellType::DeleteFamily,
                ));
            }
        }
        for (i, e) in delete.entries.iter().enumerate() {
            let store = self.store_index(&e.family)?;
            let ts = e.timestamp.unwrap_or(delete.timestamp);
            let ts = if e.kind == CellType::Delete && ts == LATEST_TIMESTAMP {
                // The k-th such marker on one column masks its k-th newest version.
                let k = 1 + delete.entries[..i]
                    .iter()
                    .filter(|p| {
                        p.kind == CellType::Delete
                            && p.timestamp.unwrap_or(delete.timestamp) == LATEST_TIMESTAMP
                            && p.family == e.family
                            && p.qualifier == e.qualifier
                    })
                    .count();
                self.nth_newest_version(&delete.row, store, &e.qualifier, k, now)?
                    .unwrap_or(now)
            } else {
                resolve(ts)
            };
            markers.push((store, e.qualifier.clone(), ts, e.kind));
        }
        Ok(markers)
    }

    fn marker_cells(
        &self,
        row: &[u8],
        markers: Vec<(usize, Bytes, i64, CellType)>,
    ) -> Result<Vec<(usize, Cell)>> {
        let mut cells = Vec::with_capacity(markers.len());
        for (store, qualifier, timestamp, cell_type) in markers {
            let cell = self.stores[store].build_cell(row, &qualifier, timestamp, cell_type, &[])?;
            cells.push((store, cell));
        }
        Ok(cells)
    }

    /// Timestamp of the `k`-th newest visible version of a column, if it has that many.
    fn nth_newest_version(
        &self,
        row: &[u8],
        store: usize,
        qualifier: &Bytes,
        k: usize,
        now: i64,
    ) -> Result<Option<i64>> {
        let columns = BTreeSet::from([qualifier.clone()]);
        let family = self.stores[store].family();
        let versions = u32::try_from(k).unwrap_or(u32::MAX);
        let query = StoreQuery::new(family, Some(&columns), TimeRange::ALL, versions, false, now);
        let mut cells = Vec::new();
        self.read_store_row(store, row, &query, self.read_point(), None, &mut cells)?;
        Ok(cells.get(k - 1).map(|c| c.timestamp))
    }

    fn read_store_row(
        &self,
        store: usize,
        row: &[u8],
        query: &StoreQuery,
        read_point: u64,
        filter: Option<&mut (dyn Filter + 'static)>,
        out: &mut Vec<Cell>,
    ) -> Result<bool> {
        let view = self.stores[store].view();
        let guard = crossbeam_epoch::pin();
        let files = FileFilter {
            row: Some(row),
            min_timestamp: query.time_range.min,
            cache_blocks: query.cache_blocks,
        };
        let mut cursor = view.cursor(read_point, &guard, files);
        cursor.seek(&Cell::first_on_row(row))?;
        read_row(cursor.as_mut(), row, query, filter, out)
    }

    /// The queries a read makes of each store it touches, in family order.
    pub(crate) fn store_queries(
        &self,
        families: &FamilyMap,
        time_range: TimeRange,
        family_time_ranges: &std::collections::BTreeMap<Bytes, TimeRange>,
        max_versions: u32,
        raw: bool,
        now: i64,
    ) -> Result<Vec<(usize, StoreQuery)>> {
        time_range.validate()?;
        for (family, range) in family_time_ranges {
            range.validate()?;
            self.store_index(family)?;
        }
        if max_versions == 0 {
            return Err(Error::InvalidArgument(
                "max versions must be at least 1".into(),
            ));
        }
        let make = |i: usize, columns| {
            let family = self.stores[i].family();
            let range = family_time_ranges
                .get(&family.name)
                .copied()
                .unwrap_or(time_range);
            StoreQuery::new(family, columns, range, max_versions, raw, now)
        };
        if families.is_empty() {
            return Ok((0..self.stores.len()).map(|i| (i, make(i, None))).collect());
        }
        families
            .iter()
            .map(|(family, columns)| {
                let i = self.store_index(family)?;
                Ok((i, make(i, columns.as_ref())))
            })
            .collect()
    }

    /// Reads one row.
    pub(crate) fn get_stored(&self, get: &Get) -> Result<RowResult> {
        self.check_row(&get.row)?;
        self.check_serving(&get.row)?;
        self.requests.read();
        let now = self.now();
        let mut queries = self.store_queries(
            &get.families,
            get.time_range,
            &get.family_time_ranges,
            get.max_versions,
            false,
            now,
        )?;
        for (_, query) in &mut queries {
            query.cache_blocks = get.cache_blocks;
        }
        let read_point = self.read_point();
        let mut cells = Vec::new();
        // A Get is a scan of one row: the filter runs the same protocol.
        let mut filter = match &get.filter {
            Some(spec) => Some(self.build_filter(spec, false)?),
            None => None,
        };
        let skipped = filter
            .as_deref_mut()
            .is_some_and(|f| !matches!(start_row(f, &get.row, false), RowVerdict::Read));
        if !skipped {
            for (store, query) in &queries {
                let done = self.read_store_row(
                    *store,
                    &get.row,
                    query,
                    read_point,
                    filter.as_deref_mut(),
                    &mut cells,
                )?;
                if done {
                    break;
                }
            }
            if let Some(f) = filter.as_deref_mut()
                && !finish_row(f, &mut cells)
            {
                cells.clear();
            }
        }
        Ok(RowResult {
            row: get.row.clone(),
            cells,
            partial: false,
        })
    }

    /// Opens a scanner over the rows `scan` selects, at the current read point.
    pub(crate) fn scan_stored(&self, scan: &Scan) -> Result<RegionScanner> {
        scan.validate()?;
        if self.is_closed() {
            return Err(self.not_serving());
        }
        RegionScanner::new(self, scan)
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
