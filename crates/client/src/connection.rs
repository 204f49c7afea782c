//! Connections and the embedded catalog of tables they share.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::{Clock, Error, Result, SystemClock, TableName};
use basalt_fs::{FileLock, FileSystem, FsError, LocalFs, MemFs};
use basalt_region::{Region, RegionConfig};
use basalt_storefile::{BlockCache, BlockCacheStats};
use basalt_wal::{Wal, WalConfig};

use crate::admin::Admin;
use crate::catalog::{self, LOCK_FILE, storage};
use crate::compactor;
use crate::table::Table;

/// A table hosted by an embedded connection.
#[derive(Debug)]
pub(crate) struct HostedTable {
    pub(crate) region: Arc<Region>,
    pub(crate) enabled: AtomicBool,
}

impl HostedTable {
    pub(crate) fn new(region: Region, enabled: bool) -> Arc<Self> {
        Arc::new(HostedTable {
            region: Arc::new(region),
            enabled: AtomicBool::new(enabled),
        })
    }

    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }
}

/// What all handles of one embedded connection share.
#[derive(Debug)]
pub(crate) struct Engine {
    tables: RwLock<BTreeMap<TableName, Arc<HostedTable>>>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) region_config: RegionConfig,
    /// Where everything is stored, and the root directory on it (layout: DESIGN.md section 5).
    pub(crate) fs: Arc<dyn FileSystem>,
    pub(crate) root: PathBuf,
    /// Held while the engine owns the data directory.
    lock: Mutex<Option<Box<dyn FileLock>>>,
    closed: AtomicBool,
    /// Regions tell the compaction worker here when a flush leaves work for it.
    compactions: Sender<()>,
    /// The compaction worker, joined when the connection closes.
    worker: Mutex<Option<JoinHandle<()>>>,
}

impl Engine {
    pub(crate) fn tables(&self) -> RwLockReadGuard<'_, BTreeMap<TableName, Arc<HostedTable>>> {
        // The map is only ever changed by single insert/remove calls; a panic cannot leave it
        // half-updated, so a poisoned lock still guards consistent data.
        self.tables.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn tables_mut(&self) -> RwLockWriteGuard<'_, BTreeMap<TableName, Arc<HostedTable>>> {
        self.tables.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// `<root>/data/<namespace>/<table>`.
    pub(crate) fn table_dir(&self, name: &TableName) -> PathBuf {
        self.root
            .join("data")
            .join(name.namespace())
            .join(name.qualifier())
    }

    pub(crate) fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Storage("the connection is closed".into()));
        }
        Ok(())
    }

    /// Hooks a newly opened region up to the compaction worker.
    pub(crate) fn adopt(&self, region: &Region) {
        region.set_compaction_listener(self.compactions.clone());
    }

    pub(crate) fn table(&self, name: &TableName) -> Result<Arc<HostedTable>> {
        self.check_open()?;
        self.tables()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::TableNotFound(name.clone()))
    }
}

/// A connection to Basalt. Cheap to clone; every clone, [`Admin`] and [`Table`] made from it
/// sees the same tables.
#[derive(Debug, Clone)]
pub struct Connection {
    engine: Arc<Engine>,
}

impl Connection {
    /// An embedded engine in this process, holding its data in memory (store files too, on
    /// an in-memory file system). Nothing outlives the process.
    pub fn in_memory() -> Connection {
        Connection::builder().build()
    }

    /// An embedded engine on the data directory `dir` (created if missing): every table
    /// stored there is opened. Only one engine may hold a directory at a time.
    ///
    /// Until the write-ahead log arrives, writes reach the directory when memstores flush:
    /// at MEMSTORE_FLUSHSIZE, on [`Admin::flush`], and on [`Connection::close`]. Writes not
    /// flushed when the process dies are lost.
    pub fn open(dir: impl AsRef<Path>) -> Result<Connection> {
        Connection::builder()
            .file_system(Arc::new(LocalFs))
            .root(dir)
            .open()
    }

    pub fn builder() -> ConnectionBuilder {
        ConnectionBuilder {
            clock: Arc::new(SystemClock),
            region_config: RegionConfig::default(),
            block_cache_bytes: BlockCache::default_capacity(),
            major_compaction_interval: Duration::from_secs(7 * 24 * 3600),
            skip_corrupt_wal: false,
            wal_config: WalConfig::default(),
            fs: Arc::new(MemFs::new()),
            root: PathBuf::from("/basalt"),
        }
    }

    /// The administrative interface: tables and their schemas.
    pub fn admin(&self) -> Admin {
        Admin::new(Arc::clone(&self.engine))
    }

    /// A handle on table `name` (`table` or `namespace:table`). Like HBase's `getTable`, it
    /// does not check that the table exists; operations on a missing table fail with
    /// [`Error::TableNotFound`].
    pub fn table(&self, name: &str) -> Result<Table> {
        Ok(Table::new(
            Arc::clone(&self.engine),
            TableName::parse(name)?,
        ))
    }

    /// The block cache's counters (all zero when it is off).
    pub fn block_cache_stats(&self) -> BlockCacheStats {
        self.engine
            .region_config
            .block_cache
            .as_ref()
            .map(|c| c.stats())
            .unwrap_or_default()
    }

    /// Flushes every table, then releases the data directory. Every handle of this connection
    /// fails afterwards.
    pub fn close(&self) -> Result<()> {
        if self.engine.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        // Stop the compaction worker first: once the directory is released, another engine
        // may open it, and no compaction of ours may still be changing its files.
        let _ = self.engine.compactions.send(());
        let worker = self
            .engine
            .worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(worker) = worker {
            let _ = worker.join();
        }
        for table in self.engine.tables().values() {
            table.region.flush()?;
        }
        if let Some(wal) = &self.engine.region_config.wal {
            wal.close()?;
        }
        self.engine
            .lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        Ok(())
    }
}

/// Settings of an embedded connection.
#[derive(Debug)]
pub struct ConnectionBuilder {
    clock: Arc<dyn Clock>,
    region_config: RegionConfig,
    block_cache_bytes: u64,
    major_compaction_interval: Duration,
    skip_corrupt_wal: bool,
    wal_config: WalConfig,
    fs: Arc<dyn FileSystem>,
    root: PathBuf,
}

impl ConnectionBuilder {
    /// The clock that assigns server timestamps and decides TTL expiry.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Largest cell accepted, in bytes (default 10 MiB, HBase's `hbase.server.keyvalue.maxsize`).
    pub fn max_cell_size(mut self, bytes: usize) -> Self {
        self.region_config.max_cell_size = bytes;
        self
    }

    /// How often every region is major-compacted in the background (default 7 days, as
    /// HBase's `hbase.hregion.majorcompaction`); zero turns periodic major compactions off.
    pub fn major_compaction_interval(mut self, every: Duration) -> Self {
        self.major_compaction_interval = every;
        self
    }

    /// Bytes of decoded store file blocks kept in memory (default: a quarter of the machine's
    /// memory); 0 turns the block cache off.
    pub fn block_cache_size(mut self, bytes: u64) -> Self {
        self.block_cache_bytes = bytes;
        self
    }

    /// The write-ahead log's settings: segment size, how many rolled segments before regions
    /// are flushed to free them, the ASYNC_WAL interval.
    pub fn wal(mut self, config: WalConfig) -> Self {
        self.wal_config = config;
        self
    }

    /// Whether opening replays a WAL segment damaged in the middle up to the damage and goes
    /// on, with a warning on stderr (HBase's `hbase.hregion.edits.replay.skip.errors`),
    /// rather than refusing to open. Off by default: the edits after the damage are lost.
    pub fn skip_corrupt_wal(mut self, skip: bool) -> Self {
        self.skip_corrupt_wal = skip;
        self
    }

    /// The file system everything is stored on (default: a new in-memory one).
    pub fn file_system(mut self, fs: Arc<dyn FileSystem>) -> Self {
        self.fs = fs;
        self
    }

    /// The data directory on that file system.
    pub fn root(mut self, root: impl AsRef<Path>) -> Self {
        self.root = root.as_ref().to_owned();
        self
    }

    /// Starts the engine's compaction worker and hands out the connection.
    fn start(engine: Engine, wake: Receiver<()>, major_every: Duration) -> Connection {
        let engine = Arc::new(engine);
        let major_every = (!major_every.is_zero()).then_some(major_every);
        let worker = compactor::start(Arc::downgrade(&engine), wake, major_every);
        *engine.worker.lock().unwrap_or_else(PoisonError::into_inner) = worker;
        Connection { engine }
    }

    fn engine(mut self, lock: Option<Box<dyn FileLock>>, compactions: Sender<()>) -> Engine {
        if self.block_cache_bytes > 0 {
            self.region_config.block_cache =
                Some(Arc::new(BlockCache::new(self.block_cache_bytes)));
        }
        Engine {
            tables: RwLock::new(BTreeMap::new()),
            clock: self.clock,
            region_config: self.region_config,
            fs: self.fs,
            root: self.root,
            lock: Mutex::new(lock),
            closed: AtomicBool::new(false),
            compactions,
            worker: Mutex::new(None),
        }
    }

    /// A connection that starts with no tables, without looking at the data directory: for
    /// the in-memory default.
    pub fn build(self) -> Connection {
        let (tx, rx) = channel();
        let every = self.major_compaction_interval;
        ConnectionBuilder::start(self.engine(None, tx), rx, every)
    }

    /// Opens the data directory: takes its lock (failing at once if another engine holds it),
    /// checks or writes its version file, opens every table stored there, and replays the
    /// write-ahead log into them (see [`recover`]).
    pub fn open(mut self) -> Result<Connection> {
        let (fs, root) = (Arc::clone(&self.fs), self.root.clone());
        fs.create_dir_all(&root).map_err(storage)?;
        let lock = fs.lock(&root.join(LOCK_FILE)).map_err(|e| match e {
            FsError::Locked(_) => Error::Storage(format!(
                "data directory {} is in use by another Basalt process",
                root.display()
            )),
            other => storage(other),
        })?;
        catalog::init_root(fs.as_ref(), &root)?;
        let wal_dir = root.join(catalog::WAL_DIR).join(catalog::SERVER_NAME);
        let left_by_last_run = basalt_wal::segments_in(fs.as_ref(), &wal_dir)?;
        let wal = Wal::create(
            Arc::clone(&fs),
            &wal_dir,
            &root.join(catalog::OLD_WAL_DIR),
            self.wal_config.clone(),
        )?;
        self.region_config.wal = Some(Arc::clone(&wal));
        let (tx, rx) = channel();
        let every = self.major_compaction_interval;
        let skip_corrupt_wal = self.skip_corrupt_wal;
        let engine = self.engine(Some(lock), tx);
        {
            let mut tables = engine.tables_mut();
            for stored in catalog::load_tables(fs.as_ref(), &root)? {
                let name = stored.descriptor.name.clone();
                let region = Region::open(
                    stored.descriptor,
                    Arc::clone(&engine.clock),
                    engine.region_config.clone(),
                    Arc::clone(&fs),
                    &stored.region_dir,
                )?;
                engine.adopt(&region);
                tables.insert(name, HostedTable::new(region, stored.enabled));
            }
            let regions: Vec<&Region> = tables.values().map(|t| t.region.as_ref()).collect();
            recover(
                fs.as_ref(),
                &wal,
                &left_by_last_run,
                &regions,
                skip_corrupt_wal,
            )?;
        }
        Ok(ConnectionBuilder::start(engine, rx, every))
    }
}

/// Replays the segments an earlier run left (oldest first) into the regions they belong to:
/// every edit newer than what a region's store files hold goes back into its memstore. The
/// regions that took edits are flushed, then the segments are archived. A crash at any point
/// leaves the segments in place, and the next open replays them again: edits the flush already
/// wrote are skipped by sequence id. A segment damaged in the middle stops the open with an
/// error naming the segment and the offset; a torn final record (a crash while appending) is
/// expected and ignored. With `skip_corrupt`, such a segment is replayed up to the damage,
/// with a warning, and archived with the others.
fn recover(
    fs: &dyn FileSystem,
    wal: &Wal,
    segments: &[PathBuf],
    regions: &[&Region],
    skip_corrupt: bool,
) -> Result<()> {
    if segments.is_empty() {
        return Ok(());
    }
    let by_name: std::collections::HashMap<&str, &Region> =
        regions.iter().map(|r| (r.encoded_name(), *r)).collect();
    let mut replayed = std::collections::BTreeSet::new();
    for segment in segments {
        let contents = if skip_corrupt {
            let contents = basalt_wal::salvage_segment_file(fs, segment)?;
            if let basalt_wal::SegmentEnd::Corrupt { offset, reason } = &contents.end {
                eprintln!(
                    "WARNING: WAL segment {} is corrupt at offset {offset} ({reason}); \
                     replaying the {} edits before it and skipping the rest",
                    segment.display(),
                    contents.edits.len()
                );
            }
            contents
        } else {
            basalt_wal::read_segment_file(fs, segment)?
        };
        for (_, edit) in &contents.edits {
            // Edits of regions that no longer exist (dropped tables) are skipped.
            if let Some(region) = by_name.get(edit.region.as_str())
                && region.replay(edit)?
            {
                replayed.insert(region.encoded_name());
            }
        }
    }
    for name in replayed {
        by_name[name].flush()?;
    }
    wal.archive(segments)?;
    Ok(())
}
