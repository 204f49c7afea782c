//! The master of the embedded engine (HBase's `HMaster`, with its catalog state): the tables
//! it hosts, each a sorted run of regions, the `hbase:meta` region that records them, the
//! namespaces, the DDL lock; opening a data directory (recovery, then `boot`), and the
//! background worker that compacts and splits. Its region server is `basalt-regionserver`'s.

use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::{Clock, Error, Result, SystemClock, TableName};
use basalt_fs::{FileLock, FileSystem, FsError, MemFs};
use basalt_region::{Region, RegionConfig};
use basalt_regionserver::RegionServer;
use basalt_regionserver::flusher;
use basalt_regionserver::layout::{self, LOCK_FILE, storage};
use basalt_regionserver::wal_dirs;
use basalt_storefile::BlockCache;
use basalt_wal::{Wal, WalConfig};

use crate::janitor;
use basalt_master::janitor as background;
use basalt_master::master_service::MasterService;
use basalt_master::meta::{self, MetaStore, ServerName};
use basalt_master::servers::{LocalServer, RegionServerAdmin};
use basalt_master::{HostedTable, Master};
use basalt_regionserver::compactor;

/// The embedded engine: a master and one region server in one process, with the meta region
/// open beside them. It is a [`Master`] (it dereferences to one) whose procedures ask the
/// region server for region work through the same interface a cluster's master uses.
#[derive(Debug)]
pub struct Engine {
    master: Arc<Master>,
    /// The master's operations, as the embedded connection calls them (`Caller`).
    pub(crate) service: MasterService,
    /// The `hbase:meta` region: the catalog.
    pub meta: Arc<Region>,
    pub region_config: RegionConfig,
    /// The region server in this process: the master's procedures ask it for region work
    /// through `server`; the embedded client reads and writes its regions directly.
    pub rs: Arc<RegionServer>,
    server: Arc<dyn RegionServerAdmin>,
    /// Regions tell the background worker here when a flush leaves work for it.
    compactions: Sender<()>,
    /// The background workers and the flushers, joined when the connection closes.
    workers: Mutex<Vec<JoinHandle<()>>>,
    /// Tells the splitter to stop.
    stop_splitter: Mutex<Option<Sender<()>>>,
    /// The root's `LOCK`, held while the engine's master owns the data directory. An engine
    /// dropped without closing lets go of its region server's WAL directory first (`Drop`),
    /// so the next engine to take the root lock finds that directory free to recover.
    lock: Mutex<Option<Box<dyn FileLock>>>,
}

impl std::ops::Deref for Engine {
    type Target = Master;

    fn deref(&self) -> &Master {
        &self.master
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // Before any field, the root lock included: a background thread may still hold the
        // region server for a moment.
        self.rs.release_wal_lock();
    }
}

impl Engine {
    /// Stops the background work, flushes every region, closes the log and releases the data
    /// directory. Every handle on the engine fails afterwards.
    pub fn close(&self) -> Result<()> {
        if !self.master.mark_closed() {
            return Ok(());
        }
        // Stop the compaction worker first: once the directory is released, another engine
        // may open it, and no compaction of ours may still be changing its files.
        self.rs.stop_background();
        let _ = self.compactions.send(());
        let workers =
            std::mem::take(&mut *self.workers.lock().unwrap_or_else(PoisonError::into_inner));
        if let Some(stop) = self
            .stop_splitter
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            let _ = stop.send(());
        }
        for worker in workers {
            let _ = worker.join();
        }
        for region in self.all_regions().iter().rev() {
            region.flush()?;
        }
        if let Some(wal) = &self.region_config.wal {
            wal.close()?;
        }
        // Every edit is in a store file: the server's directory goes, as a gone server's
        // does at the next open.
        self.rs.stop()?;
        self.lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        Ok(())
    }

    /// The master, shared with the handles that administer it (`Admin`, `MasterService`).
    pub fn master(&self) -> Arc<Master> {
        Arc::clone(&self.master)
    }

    /// The region server in this process, as the master's procedures ask it for region work.
    pub fn server(&self) -> &Arc<dyn RegionServerAdmin> {
        &self.server
    }

    /// Every open region, meta's first.
    pub fn all_regions(&self) -> Vec<Arc<Region>> {
        let mut out = vec![Arc::clone(&self.meta)];
        for t in self.tables().values() {
            if !t.name.is_meta() {
                out.extend(t.regions());
            }
        }
        out
    }
}

/// What an engine's handle is made from an engine: the client's `Connection`.
pub trait FromEngine {
    fn from_engine(engine: Arc<Engine>) -> Self;
}

/// Settings of an embedded engine; `open` and `build` hand it out as a `C` (the client's
/// `Connection`, whose `ConnectionBuilder` this is).
pub struct EngineBuilder<C> {
    clock: Arc<dyn Clock>,
    region_config: RegionConfig,
    block_cache_bytes: u64,
    direct_reads: bool,
    major_compaction_interval: Duration,
    skip_corrupt_wal: bool,
    wal_config: WalConfig,
    replication: basalt_regionserver::replication::ReplicationConfig,
    fs: Arc<dyn FileSystem>,
    root: PathBuf,
    server_host_port: String,
    background: background::Settings,
    global_memstore_bytes: u64,
    memstore_block_wait: Duration,
    /// Writes a new directory as version 2 (meta rows in plain byte order) and opens a
    /// version 2 directory without upgrading it: for the upgrade's tests only.
    plain_meta: bool,
    output: PhantomData<fn() -> C>,
}

impl<C> std::fmt::Debug for EngineBuilder<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineBuilder")
            .field("root", &self.root)
            .field("server", &self.server_host_port)
            .finish_non_exhaustive()
    }
}

impl<C: FromEngine> Default for EngineBuilder<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: FromEngine> EngineBuilder<C> {
    /// The defaults: in memory, a quarter of the memory (the machine's, or its cgroup's limit)
    /// each for the block cache and the memstores, HBase's periods and limits.
    pub fn new() -> Self {
        EngineBuilder {
            clock: Arc::new(SystemClock),
            region_config: RegionConfig::default(),
            block_cache_bytes: BlockCache::default_capacity(),
            direct_reads: false,
            major_compaction_interval: Duration::from_secs(7 * 24 * 3600),
            skip_corrupt_wal: false,
            wal_config: WalConfig::default(),
            replication: Default::default(),
            fs: Arc::new(MemFs::new()),
            root: PathBuf::from("/basalt"),
            server_host_port: "localhost:16020".into(),
            background: background::Settings::default(),
            global_memstore_bytes: BlockCache::default_capacity(),
            memstore_block_wait: Duration::from_secs(60),
            plain_meta: false,
            output: PhantomData,
        }
    }

    /// Writes a new data directory in the version 2 layout (`hbase:meta`'s rows in plain
    /// byte order) and keeps a version 2 directory as it is, so tests can make one to
    /// upgrade. Not for use outside tests.
    #[doc(hidden)]
    pub fn plain_meta_for_tests(mut self) -> Self {
        self.plain_meta = true;
        self
    }

    /// Bytes all memstores of this engine may hold together (HBase's
    /// `hbase.regionserver.global.memstore.size`; default: a quarter of the memory, the
    /// machine's or its cgroup's limit). Above 95% of it the largest regions are flushed; at it, writers wait. 0 turns
    /// the budget and the background flushers off: writers then flush full memstores
    /// themselves.
    pub fn global_memstore_size(mut self, bytes: u64) -> Self {
        self.global_memstore_bytes = bytes;
        self
    }

    /// How long a writer waits for flushes to make room (the server at its memstore limit, or
    /// its region at four times its flush size) before failing with RegionTooBusy (default
    /// 60 s).
    pub fn memstore_block_wait(mut self, wait: Duration) -> Self {
        self.memstore_block_wait = wait;
        self
    }

    /// Whether regions split by themselves when they grow past their table's split size
    /// (default true; a table's SPLIT_ENABLED false turns it off for that table).
    /// Turns access control on (HBase's `hbase.security.authorization`): calls from the
    /// network are checked against the grants in `hbase:acl`; `superusers` (names or
    /// `@groups`, HBase's `hbase.superuser`) may do anything.
    pub fn authorization(mut self, superusers: Vec<String>) -> Self {
        self.region_config.access =
            Arc::new(basalt_common::acl::AccessControl::enabled(superusers));
        self
    }

    pub fn auto_split(mut self, on: bool) -> Self {
        self.background.auto_split = on;
        self
    }

    /// The `host:port` meta records as the server of every region (default `localhost:16020`).
    pub fn server_name(mut self, host_port: &str) -> Self {
        self.server_host_port = host_port.to_owned();
        self
    }

    /// The clock that assigns server timestamps and decides TTL expiry.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Bytes a store's active memstore takes before it is frozen and flattened into a sorted
    /// array in the background (HBase's in-memory flush; default 8 MiB). Flushes then read the
    /// memstore in key order. Must be above zero.
    /// The settings file (`hbase-site.xml` format) `update_config` reads again, and the live
    /// settings read from it (`basalt_common::site`).
    pub fn settings(mut self, settings: Arc<basalt_common::site::LiveSettings>) -> Self {
        self.region_config.settings = settings;
        self
    }

    pub fn in_memory_flush_size(mut self, bytes: usize) -> Self {
        self.region_config.in_memory_flush_size = bytes.max(1);
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

    /// Bytes of store file blocks kept in memory (default: a quarter of the memory, the
    /// machine's or its cgroup's limit); 0 turns the block cache off.
    pub fn block_cache_size(mut self, bytes: u64) -> Self {
        self.block_cache_bytes = bytes;
        self
    }

    /// Whether store files are read around the operating system's page cache (direct I/O),
    /// so a block is held once, in the block cache (default false: the page cache keeps
    /// what the block cache evicts, which pays where memory is plentiful; see BENCHMARKS.md).
    pub fn direct_reads(mut self, on: bool) -> Self {
        self.direct_reads = on;
        self
    }

    /// The write-ahead log's settings: segment size, how many rolled segments before regions
    /// are flushed to free them, the ASYNC_WAL interval.
    pub fn wal(mut self, config: WalConfig) -> Self {
        self.wal_config = config;
        self
    }

    /// How replication's sources read and ship (an opened data directory ships its WAL to the
    /// peers added to it).
    pub fn replication(
        mut self,
        config: basalt_regionserver::replication::ReplicationConfig,
    ) -> Self {
        self.replication = config;
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

    /// Starts the engine's background worker and hands out the connection.
    fn start(engine: Engine, wake: Receiver<()>, major_every: Duration) -> C {
        let engine = Arc::new(engine);
        let major_every = (!major_every.is_zero()).then_some(major_every);
        let (stop_splitter, splitter_stop) = channel();
        let mut workers: Vec<JoinHandle<()>> =
            compactor::start(Arc::downgrade(&engine.rs), wake, major_every)
                .into_iter()
                .chain(janitor::start(Arc::downgrade(&engine), splitter_stop))
                .collect();
        *engine
            .stop_splitter
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(stop_splitter);
        if let Some(budget) = &engine.region_config.budget {
            workers.extend(flusher::start(
                Arc::downgrade(&engine.rs),
                Arc::clone(budget),
            ));
        }
        *engine
            .workers
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = workers;
        // Coprocessors' writes to other tables go through this engine (without keeping it
        // alive: it stops when its last connection is dropped).
        let weak = Arc::downgrade(&engine);
        engine.rs.coprocessors.set_connector(Box::new(move || {
            let engine = weak
                .upgrade()
                .ok_or_else(|| basalt_common::Error::storage("the embedded engine has stopped"))?;
            Ok(Arc::new(crate::Connection::from_engine(engine)) as Arc<dyn basalt_client::Client>)
        }));
        C::from_engine(engine)
    }

    /// An engine on the root directory, with its meta region open (and, on a new directory,
    /// the built-in namespaces written) and no tables yet.
    fn engine(
        mut self,
        lock: Option<Box<dyn FileLock>>,
        compactions: Sender<()>,
        wal: Option<(Arc<Wal>, wal_dirs::OwnWals)>,
        segments: &[PathBuf],
    ) -> Result<Engine> {
        let (wal, own, start_code) = match wal {
            Some((wal, own)) => {
                let start_code = own.start_code;
                (Some(wal), Some((own.dir, own.lock)), start_code)
            }
            None => (None, None, self.clock.now_millis()),
        };
        let shared = basalt_regionserver::process::region_config(
            self.block_cache_bytes,
            self.direct_reads,
            self.global_memstore_bytes,
            self.memstore_block_wait,
            wal,
        );
        self.region_config.block_cache = shared.block_cache;
        self.region_config.budget = shared.budget;
        self.region_config.wal = shared.wal;
        self.region_config.metrics = shared.metrics;
        match layout::init_root(self.fs.as_ref(), &self.root, self.plain_meta)? {
            layout::Version::PlainMeta if self.plain_meta => {
                self.region_config.legacy_meta_rows = true;
            }
            layout::Version::PlainMeta => basalt_master::upgrade::meta_order(
                &self.fs,
                &self.root,
                segments,
                &self.clock,
                &self.region_config,
            )?,
            layout::Version::Current => {
                basalt_master::upgrade::tidy_after(self.fs.as_ref(), &self.root)?
            }
        }
        let meta_info = meta::meta_region_info()?;
        let meta_dir = layout::table_dir(&self.root, &meta_info.table).join(meta::META_ENCODED);
        let meta = Region::open(
            meta_info,
            meta::meta_descriptor()?,
            Arc::clone(&self.clock),
            self.region_config.clone(),
            Arc::clone(&self.fs),
            &meta_dir,
        )?;
        meta.set_compaction_listener(compactions.clone());
        let server = ServerName {
            host_port: self.server_host_port,
            start_code,
        };
        let rs = Arc::new(RegionServer::new(
            server,
            Arc::clone(&self.clock),
            self.region_config.clone(),
            Arc::clone(&self.fs),
            self.root.clone(),
            compactions.clone(),
            own,
        ));
        let meta = Arc::new(meta);
        rs.put_online(&meta);
        let server: Arc<dyn RegionServerAdmin> = Arc::new(LocalServer {
            rs: Arc::clone(&rs),
        });
        let master = Master::new(
            Arc::clone(&meta) as Arc<dyn MetaStore>,
            self.clock,
            self.fs,
            self.root,
            Some(Arc::clone(&rs)),
            self.background,
        );
        master.servers.add(Arc::clone(&server));
        let master = Arc::new(master);
        // The in-process callers' MasterService: never listening, so it has no address.
        let unbound = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        Ok(Engine {
            service: MasterService::new(Arc::clone(&master), unbound, None),
            master,
            meta,
            region_config: self.region_config,
            lock: Mutex::new(lock),
            server,
            rs,
            compactions,
            workers: Mutex::new(Vec::new()),
            stop_splitter: Mutex::new(None),
        })
    }

    /// A connection on the builder's file system (by default a new in-memory one) without a
    /// write-ahead log or a lock: for the in-memory default.
    pub fn build(self) -> C {
        match self.try_build() {
            Ok(c) => c,
            // Only a broken in-memory file system fails here; say so plainly.
            Err(e) => panic!("cannot start an in-memory engine: {e}"),
        }
    }

    fn try_build(self) -> Result<C> {
        let (tx, rx) = channel();
        let every = self.major_compaction_interval;
        let engine = self.engine(None, tx, None, &[])?;
        boot(&engine, &[], false)?;
        start_access_control(&engine)?;
        Ok(Self::start(engine, rx, every))
    }

    /// Opens the data directory: takes its lock (failing at once if another engine holds it),
    /// checks or writes its version file, opens `hbase:meta` and every region it lists, and
    /// replays the write-ahead log into them (see [`basalt_regionserver::recover`]).
    pub fn open(self) -> Result<C> {
        basalt_regionserver::process::check_memory(
            self.block_cache_bytes,
            self.global_memstore_bytes,
            basalt_storefile::memory_limit(),
        )?;
        let (fs, root) = (Arc::clone(&self.fs), self.root.clone());
        fs.create_dir_all(&root).map_err(storage)?;
        let lock = fs.lock(&root.join(LOCK_FILE)).map_err(|e| match e {
            FsError::Locked(_) => Error::storage(format!(
                "data directory {} is in use by another Basalt process",
                root.display()
            )),
            other => storage(other),
        })?;
        layout::init_root(fs.as_ref(), &root, self.plain_meta)?;
        let wal_root = root.join(layout::WAL_DIR);
        let own = wal_dirs::claim(
            fs.as_ref(),
            &wal_root,
            &self.server_host_port,
            self.clock.now_millis(),
        )?;
        // Servers that are gone left edits that may be in no store file yet.
        let dead = wal_dirs::dead_servers(fs.as_ref(), &wal_root, &own.dir)?;
        let left_by_last_run: Vec<PathBuf> = dead
            .iter()
            .flat_map(|d| d.segments.iter().cloned())
            .collect();
        let wal = Wal::create(
            Arc::clone(&fs),
            &own.dir,
            &root.join(layout::OLD_WAL_DIR),
            self.wal_config.clone(),
        )?;
        let (tx, rx) = channel();
        let every = self.major_compaction_interval;
        let skip_corrupt_wal = self.skip_corrupt_wal;
        let replication = self.replication.clone();
        let engine = self.engine(
            Some(lock),
            tx,
            Some((Arc::clone(&wal), own)),
            &left_by_last_run,
        )?;
        boot(&engine, &left_by_last_run, skip_corrupt_wal)?;
        wal.archive(&left_by_last_run)?;
        wal_dirs::retire(fs.as_ref(), dead)?;
        start_access_control(&engine)?;
        engine.rs.start_replication(replication);
        Ok(Self::start(engine, rx, every))
    }
}

/// With access control on, makes `hbase:acl` if needed and puts its grants in force.
fn start_access_control(engine: &Engine) -> Result<()> {
    let master = engine.master();
    if master.access.is_enabled() {
        basalt_master::acl_store::start(&master, &master.access)?;
    }
    Ok(())
}

/// Brings the catalog up: replays meta's WAL edits, writes the built-in namespaces into a new
/// catalog, opens every serving region meta lists, deletes what no catalog entry owns (the
/// leftovers of a change a crash interrupted before its meta commit), replays the other
/// regions' edits, and records in meta where the regions are served.
fn boot(engine: &Engine, segments: &[PathBuf], skip_corrupt: bool) -> Result<()> {
    let fs = engine.fs.as_ref();
    let meta = engine.meta.as_ref();
    basalt_regionserver::recover(fs, segments, &[meta], skip_corrupt)?;
    // Catalog changes continue after the newest one, even if the clock went back: a row
    // written again must not fall under an older run's delete marker.
    engine.continue_after(meta.newest_timestamp()?);
    let mut namespaces = meta::read_namespaces(meta)?;
    if namespaces.is_empty() {
        let mut batch = engine.meta_batch();
        for ns in meta::builtin_namespaces() {
            batch.namespace(&ns);
        }
        batch.commit(meta)?;
        namespaces = meta::read_namespaces(meta)?;
    }
    *engine.namespaces_mut() = namespaces
        .into_iter()
        .map(|n| (n.name.clone(), n))
        .collect();
    let states = meta::read_table_states(meta)?;
    let rows = meta::read_regions(meta)?;
    let mut tables = BTreeMap::new();
    let mut opened: Vec<Arc<Region>> = Vec::new();
    let server = engine.server();
    for (name, state) in &states {
        let dir = engine.table_dir(name);
        // A restore a crash interrupted: its schema, if its catalog commit is in.
        basalt_master::snapshots::settle_journal(fs, &dir, &rows)?;
        let descriptor = layout::read_descriptor(fs, &dir)?;
        let mut regions = Vec::new();
        for row in rows
            .iter()
            .filter(|r| &r.info.table == name && r.is_serving())
        {
            server.open_region(&row.info)?;
            let placed = engine.placed(&row.info, server);
            opened.extend(placed.region.clone());
            regions.push(placed);
        }
        let enabled = *state == meta::TableState::Enabled;
        if !enabled {
            // A disabled table's regions serve no client calls (they stay open for the
            // embedded API's refusals and for enabling again).
            for r in &regions {
                server.set_serving(&r.info, false)?;
            }
        }
        tables.insert(name.clone(), HostedTable::new(descriptor, enabled, regions));
    }
    // Directories no catalog entry owns.
    let data = engine.root.join("data");
    for ns in layout::list(fs, &data)? {
        for qualifier in layout::list(fs, &data.join(&ns))? {
            let dir = data.join(&ns).join(&qualifier);
            let Ok(name) = TableName::new(&ns, &qualifier) else {
                continue;
            };
            if name == engine.meta.info().table {
                continue;
            }
            if !states.contains_key(&name) {
                layout::delete_dir(fs, &dir)?;
                continue;
            }
            for entry in layout::list(fs, &dir)? {
                let owned = entry.starts_with('.')
                    || rows.iter().any(|r| {
                        r.info.table == name
                            && (r.info.encoded_name() == entry
                                || r.merge_parents.iter().any(|p| p.encoded_name() == entry))
                    });
                if owned {
                    continue;
                }
                // The child of a split or merge never committed holds only references; a
                // directory whose rows live elsewhere is marked (`layout::DISPOSABLE`): they
                // go. A directory with data of its own whose row is missing is kept for
                // `basalt hbck` to report (and put back): deleting it would lose its rows.
                let path = dir.join(&entry);
                let disposable = fs
                    .exists(&path.join(layout::DISPOSABLE))
                    .map_err(layout::storage)?;
                if !disposable && basalt_region::holds_own_files(fs, &path)? {
                    use std::io::Write as _;
                    let _ = writeln!(
                        std::io::stderr(),
                        "{} holds data but no row of hbase:meta names it: kept (basalt hbck \
                         reports it)",
                        path.display()
                    );
                } else {
                    layout::delete_dir(fs, &path)?;
                }
            }
        }
    }
    let regions: Vec<&Region> = opened.iter().map(AsRef::as_ref).collect();
    basalt_regionserver::recover(fs, segments, &regions, skip_corrupt)?;
    // Their coprocessors saw the replay; what they asked to write meanwhile is written now.
    for region in &opened {
        if let Some(observer) = region.observer() {
            observer.opened();
        }
    }
    let mut batch = engine.meta_batch();
    for region in &opened {
        batch
            .region(region.info(), "OPEN", server.name())
            .opened(region.info(), region.last_sequence_id());
    }
    for t in tables.values().filter(|t| !t.is_enabled()) {
        for region in t.regions() {
            batch.region_state(region.info(), "CLOSED");
        }
    }
    batch.commit(meta)?;
    let meta_table = HostedTable::new(
        meta.descriptor().clone(),
        true,
        vec![engine.placed(meta.info(), server)],
    );
    tables.insert(meta.info().table.clone(), meta_table);
    *engine.tables_mut() = tables;
    Ok(())
}
