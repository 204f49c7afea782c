//! The region server (HBase's `HRegionServer`): the regions it has online, by encoded name,
//! and what they share — its write-ahead log in its own directory (`WALs/<server>/`), the
//! block cache and the memstore budget (in its [`RegionConfig`]) — and the region half of
//! splits and merges: flushing and closing the parents, writing the new regions' files, and
//! opening them once the master has committed the change to `hbase:meta`
//! (`basalt-master`'s `procedures` is the master's half). The embedded engine runs one, next
//! to its master.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use basalt_common::{Bytes, Clock, RegionInfo, Result, ServerName, TableDescriptor};
use basalt_fs::{FileLock, FileSystem};
use basalt_region::{Region, RegionConfig};

use crate::layout::{self, storage};

/// The name HBase's clients give meta's region.
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";

/// One region server; see the module documentation.
#[derive(Debug)]
pub struct RegionServer {
    pub name: ServerName,
    pub clock: Arc<dyn Clock>,
    pub config: RegionConfig,
    pub fs: Arc<dyn FileSystem>,
    pub root: PathBuf,
    /// The open regions by encoded name (`hbase:meta`'s included): what calls naming a region
    /// are served from.
    online: RwLock<HashMap<String, Arc<Region>>>,
    /// Regions open here but not serving, by encoded name: the parents of a split or merge
    /// waiting for the master's verdict, and (in the embedded engine) disabled tables' regions.
    pub(crate) held: Mutex<HashMap<String, Arc<Region>>>,
    /// Regions tell the background worker here when a flush leaves work for it.
    compactions: Sender<()>,
    /// This server's WAL directory (None in memory), and its lock, held while it lives.
    wal_dir: Option<PathBuf>,
    lock: Mutex<Option<Box<dyn FileLock>>>,
    /// Set when the server stops: its background threads end.
    stopping: AtomicBool,
    /// In a cluster, its lease on serving (`standing`): ClientService serves only while it
    /// holds.
    pub standing: crate::standing::Standing,
    /// Its replication to peer clusters, once started (a server with a WAL directory).
    replication: std::sync::OnceLock<Arc<crate::replication::Replication>>,
    /// What the sink of its AdminService applied.
    pub sink_metrics: Arc<crate::replication::sink::SinkMetrics>,
    /// Whether compactions run here (HBase's `compaction_switch`).
    compactions_on: AtomicBool,
    /// Its calls slower or larger than its thresholds, which its RPC server records.
    pub slow_log: Arc<basalt_common::slowlog::SlowLog>,
    /// The space quota policies in force, by table (as the master last said): every region
    /// of those tables opened here enforces its table's.
    space_policies: RwLock<HashMap<basalt_common::TableName, basalt_common::quota::SpacePolicy>>,
    /// Client calls by user, and throttled ones (ClientService counts them).
    pub user_requests: basalt_common::metrics::UserRequests,
    /// The tables' coprocessors: what runs them on the regions opened here.
    pub coprocessors: Arc<basalt_coprocessor::Env>,
}

/// A split the region server has prepared: the parent closed, the daughters' directories
/// written (their `.regioninfo` and references to the parent's files), nothing committed.
#[derive(Debug)]
pub struct PreparedSplit {
    pub daughters: [RegionInfo; 2],
}

impl RegionServer {
    pub fn new(
        name: ServerName,
        clock: Arc<dyn Clock>,
        config: RegionConfig,
        fs: Arc<dyn FileSystem>,
        root: PathBuf,
        compactions: Sender<()>,
        wal: Option<(PathBuf, Box<dyn FileLock>)>,
    ) -> Self {
        let (wal_dir, lock) = match wal {
            Some((dir, lock)) => (Some(dir), Some(lock)),
            None => (None, None),
        };
        let slow_log = Arc::new(basalt_common::slowlog::SlowLog::new(Arc::clone(
            &config.settings,
        )));
        RegionServer {
            slow_log,
            name,
            clock,
            config,
            fs,
            root,
            online: RwLock::new(HashMap::new()),
            held: Mutex::new(HashMap::new()),
            compactions,
            wal_dir,
            lock: Mutex::new(lock),
            stopping: AtomicBool::new(false),
            standing: crate::standing::Standing::default(),
            replication: std::sync::OnceLock::new(),
            sink_metrics: Arc::default(),
            compactions_on: AtomicBool::new(true),
            space_policies: RwLock::default(),
            user_requests: basalt_common::metrics::UserRequests::default(),
            coprocessors: basalt_coprocessor::Env::new(),
        }
    }

    /// Puts the space quota policies of `violations` in force on this server's regions of
    /// those tables (and on any opened later), lifting them from every other table's.
    pub fn set_space_policies(
        &self,
        violations: &[(basalt_common::TableName, basalt_common::quota::SpacePolicy)],
    ) {
        let next: HashMap<_, _> = violations.iter().cloned().collect();
        let mut policies = self
            .space_policies
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        // Set on every call, not only on a change: a region put online while the last one
        // ran may have read the map before it changed.
        *policies = next;
        for region in self.online_regions() {
            region.set_space_policy(policies.get(&region.info().table).copied());
        }
    }

    /// Switches this server's compactions on or off (HBase's `compaction_switch`); returns
    /// whether they were on. Off, none starts by itself and a requested one is refused.
    pub fn switch_compactions(&self, on: bool) -> bool {
        self.compactions_on.swap(on, Ordering::AcqRel)
    }

    pub fn compactions_on(&self) -> bool {
        self.compactions_on.load(Ordering::Acquire)
    }

    /// Refuses a requested compaction while compactions are switched off.
    pub fn check_compactions(&self) -> Result<()> {
        if self.compactions_on() {
            Ok(())
        } else {
            Err(basalt_common::Error::Refused(format!(
                "compactions are switched off on {} (compaction_switch)",
                self.name
            )))
        }
    }

    /// Starts shipping this server's WAL to the cluster's replication peers (nothing for a
    /// server without a WAL directory). Started once; later calls return the same.
    pub fn start_replication(
        &self,
        config: crate::replication::ReplicationConfig,
    ) -> Option<Arc<crate::replication::Replication>> {
        let dir = self.wal_dir.as_ref()?;
        let name = dir.file_name()?.to_string_lossy().into_owned();
        Some(Arc::clone(self.replication.get_or_init(|| {
            crate::replication::Replication::start(Arc::clone(&self.fs), &self.root, &name, config)
        })))
    }

    /// Its replication, if started.
    pub fn replication(&self) -> Option<&Arc<crate::replication::Replication>> {
        self.replication.get()
    }

    /// `<root>/data/<namespace>/<table>/<encoded name>`.
    pub fn region_dir(&self, info: &RegionInfo) -> PathBuf {
        layout::table_dir(&self.root, &info.table).join(layout::encoded_name(info))
    }

    /// Opens (or creates) the region `info` of a table with schema `descriptor`, hooked up to
    /// the background worker, and puts it online.
    pub fn open_region(
        &self,
        info: RegionInfo,
        descriptor: &TableDescriptor,
    ) -> Result<Arc<Region>> {
        self.open_region_from(info, descriptor, &[])
    }

    /// [`RegionServer::open_region`] for a new region of a split or merge of `parents`
    /// (encoded names), whose replication barriers it takes over.
    fn open_region_from(
        &self,
        info: RegionInfo,
        descriptor: &TableDescriptor,
        parents: &[&str],
    ) -> Result<Arc<Region>> {
        let region = self.open_region_offline(info, descriptor, parents)?;
        self.put_online(&region);
        Ok(region)
    }

    /// [`RegionServer::open_region_from`] without putting the region online: the caller does,
    /// once it may serve (after a dead server's edits are replayed into it).
    pub(crate) fn open_region_offline(
        &self,
        info: RegionInfo,
        descriptor: &TableDescriptor,
        parents: &[&str],
    ) -> Result<Arc<Region>> {
        let dir = self.region_dir(&info);
        let region = Arc::new(Region::open(
            info,
            descriptor.clone(),
            Arc::clone(&self.clock),
            self.config.clone(),
            Arc::clone(&self.fs),
            &dir,
        )?);
        region.set_compaction_listener(self.compactions.clone());
        // A module that cannot be loaded is logged, and the region opens without it.
        let _left_out = self.coprocessors.attach(&region)?;
        if let Err(e) = self.note_open(&region, parents) {
            let _ = region.close();
            return Err(e);
        }
        Ok(region)
    }

    /// Adopts prepared store files into `region` ([`Region::bulk_load`]); for a replicated
    /// table, unless the caller says not to `replicate` (BulkLoadHFileRequest.replicate), the
    /// files are kept and a marker logged, so peers that take bulk loads get them
    /// (`replication::bulk`). Returns the cells adopted.
    pub fn bulk_load(
        &self,
        region: &Region,
        files: &[(Bytes, PathBuf)],
        replicate: bool,
    ) -> Result<u64> {
        let (Some(server), Some(wal)) = (
            self.wal_name().filter(|_| replicate && region.replicates()),
            self.config.wal.as_ref(),
        ) else {
            return region.bulk_load(files);
        };
        let fs = self.fs.as_ref();
        let seq = region.last_sequence_id();
        let (dir, marker) = crate::replication::bulk::keep(
            fs,
            &self.root,
            &server,
            &region.info().table,
            region.encoded_name(),
            seq,
            files,
        )?;
        let loaded = region.bulk_load(files);
        if loaded.is_err() {
            let _ = fs.delete_dir_all(&dir);
            return loaded;
        }
        let ticket = wal.enqueue_cells(
            region.encoded_name(),
            &region.info().table.to_string(),
            seq,
            marker.timestamp,
            (
                &[],
                &[Bytes::from_static(crate::replication::bulk::METAFAMILY)],
            ),
            std::iter::once(&marker),
        )?;
        wal.wait_for(ticket, basalt_common::Durability::SyncWal)?;
        let (segment, _) = wal.position()?;
        let segment = segment
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        crate::replication::bulk::mark_through(fs, &dir, &segment)?;
        loaded
    }

    /// Drops the blocks of `regions` from the block cache; returns the blocks and bytes the
    /// cache held fewer after (others' reads may fill it meanwhile) and its capacity.
    pub fn clear_block_cache(&self, regions: &[Arc<Region>]) -> (u64, u64, u64) {
        let Some(cache) = &self.config.block_cache else {
            return (0, 0, 0);
        };
        let before = cache.stats();
        for r in regions {
            r.evict_all_blocks();
        }
        let after = cache.stats();
        (
            before.blocks.saturating_sub(after.blocks),
            before.bytes.saturating_sub(after.bytes),
            after.capacity,
        )
    }

    /// Deletes this server's archived WAL segments past their time to live that no
    /// replication queue needs (HBase's log cleaner); none while the cleaner chore is
    /// switched off, unless `forced` (`cleaner_chore_run`). Returns how many went.
    pub fn clean_wal_archive(&self, forced: bool) -> Result<usize> {
        let Some(wal) = &self.config.wal else {
            return Ok(0);
        };
        let off = self
            .fs
            .exists(&self.root.join(crate::layout::CLEANER_OFF))
            .map_err(crate::layout::storage)?;
        if off && !forced {
            return Ok(0);
        }
        let needed = crate::replication::queues::needed(self.fs.as_ref(), &self.root)?;
        Ok(wal.clean_archive_keeping(&|p| crate::replication::queues::is_needed(&needed, p))?)
    }

    /// Rolls this server's WAL now (HBase's `wal_roll`); refused for a server without one.
    pub fn roll_wal(&self) -> Result<()> {
        let wal = self
            .config
            .wal
            .as_ref()
            .ok_or_else(|| basalt_common::Error::Refused("this server has no WAL".into()))?;
        wal.roll_now()?;
        Ok(())
    }

    /// This server's name as its WAL directory is named (none without a WAL).
    fn wal_name(&self) -> Option<String> {
        Some(
            self.wal_dir
                .as_ref()?
                .file_name()?
                .to_string_lossy()
                .into_owned(),
        )
    }

    /// Records where a region of a replicated table opened, for serial peers
    /// (`replication::barriers`).
    fn note_open(&self, region: &Region, parents: &[&str]) -> Result<()> {
        let Some(server) = self.wal_name().filter(|_| region.replicates()) else {
            return Ok(());
        };
        crate::replication::barriers::record_open(
            self.fs.as_ref(),
            &self.root,
            region.encoded_name(),
            &server,
            region.last_sequence_id() + 1,
            parents,
        )
    }

    /// Records where this server's WAL ended when a region of a replicated table closed.
    fn note_close(&self, region: &Region) -> Result<()> {
        let (Some(server), Some(wal)) = (
            self.wal_name().filter(|_| region.replicates()),
            self.config.wal.as_ref(),
        ) else {
            return Ok(());
        };
        let (segment, offset) = wal.position().map_err(basalt_common::Error::from)?;
        let name = segment
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        crate::replication::barriers::record_close(
            self.fs.as_ref(),
            &self.root,
            region.encoded_name(),
            &server,
            (name, offset),
        )
    }

    /// Puts an open region online (meta's region, opened before the server is).
    pub fn put_online(&self, region: &Arc<Region>) {
        region.set_space_policy(
            self.space_policies
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&region.info().table)
                .copied(),
        );
        self.online
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(region.encoded_name().to_owned(), Arc::clone(region));
        if let Some(observer) = region.observer() {
            observer.opened();
        }
    }

    /// Flushes and closes a region and takes it offline.
    pub fn close_region(&self, region: &Arc<Region>) -> Result<()> {
        region.close()?;
        self.take_offline(region);
        // The region is closed whatever: without the record, serial peers wait for this
        // server to be gone and its queue shipped (a failed WAL aborts the server anyway).
        if let Err(e) = self.note_close(region) {
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "replication: recording where {} closed: {e}",
                region.encoded_name()
            );
        }
        Ok(())
    }

    /// Serves a region closed by an operation that then failed, as before it.
    pub fn reopen_region(&self, region: &Arc<Region>) {
        region.reopen();
        self.put_online(region);
    }

    /// Takes a region offline (only that region: one reopened under the same name since
    /// stays).
    pub fn take_offline(&self, region: &Arc<Region>) {
        let mut online = self.online.write().unwrap_or_else(PoisonError::into_inner);
        if online
            .get(region.encoded_name())
            .is_some_and(|r| Arc::ptr_eq(r, region))
        {
            online.remove(region.encoded_name());
        }
    }

    /// The online region with this encoded name.
    pub fn online_region(&self, encoded: &str) -> Option<Arc<Region>> {
        self.online
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(encoded)
            .cloned()
    }

    /// The online region a client names: by its full name (`table,start,id.<encoded>.`), its
    /// encoded name, or HBase's fixed name for meta's region (`hbase:meta,,1`).
    pub fn region_named(&self, name: &[u8]) -> Option<Arc<Region>> {
        if name == META_REGION_NAME {
            return self.online_region(layout::META_ENCODED);
        }
        // (This runs on every native RPC call: nothing is hashed.)
        let encoded = RegionInfo::encoded_part(name).unwrap_or(name);
        std::str::from_utf8(encoded)
            .ok()
            .and_then(|e| self.online_region(e))
    }

    /// Every online region.
    pub fn online_regions(&self) -> Vec<Arc<Region>> {
        self.online
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// This server's WAL directory (None in memory).
    pub fn wal_dir(&self) -> Option<&std::path::Path> {
        self.wal_dir.as_deref()
    }

    /// Tells the background worker to look for work now (after a split or merge, whose new
    /// regions want their references compacted).
    pub fn wake_background(&self) {
        let _ = self.compactions.send(());
    }

    /// Tells the log that nothing needs a region's edits any more (a dropped table's region, a
    /// split or merge parent), so its segments may be archived.
    pub fn forget_edits(&self, region: &Region) -> Result<()> {
        if let Some(wal) = &self.config.wal {
            wal.region_flushed(region.encoded_name(), u64::MAX)?;
        }
        Ok(())
    }

    /// The region server's half of a split of `parent` at `split_key` into daughters with
    /// region id `id`: the parent is flushed and closed, and each daughter's directory gets
    /// its `.regioninfo` and references to the parent's files. On failure the daughters'
    /// files are deleted and the parent serves again. Until the master commits the split,
    /// the next open deletes the daughters' directories (no catalog entry owns them); after
    /// it, they are the table's regions.
    pub fn prepare_split(
        &self,
        parent: &Arc<Region>,
        split_key: Bytes,
        id: i64,
    ) -> Result<PreparedSplit> {
        let info = parent.info();
        let daughters = [
            RegionInfo::new(
                info.table.clone(),
                info.start_key.clone(),
                split_key.clone(),
                id,
            ),
            RegionInfo::new(info.table.clone(), split_key, info.end_key.clone(), id),
        ];
        self.close_region(parent)?;
        let written = daughters
            .iter()
            .try_for_each(|d| self.write_child(d, &[parent]));
        if let Err(e) = written {
            self.abort_children(&[parent], &daughters);
            return Err(e);
        }
        Ok(PreparedSplit { daughters })
    }

    /// The region server's half of a merge of two adjacent regions (`lo` before `hi`) into
    /// `merged`: both closed, the merged region's directory written with references to both
    /// parents' files. On failure the merged region's files go and the parents serve again.
    pub fn prepare_merge(
        &self,
        lo: &Arc<Region>,
        hi: &Arc<Region>,
        merged: &RegionInfo,
    ) -> Result<()> {
        self.close_region(lo)?;
        if let Err(e) = self.close_region(hi) {
            self.reopen_region(lo);
            return Err(e);
        }
        if let Err(e) = self.write_child(merged, &[lo, hi]) {
            self.abort_children(&[lo, hi], std::slice::from_ref(merged));
            return Err(e);
        }
        Ok(())
    }

    /// A new region's directory: its `.regioninfo`, and references to the part of each
    /// parent's files inside its key range.
    fn write_child(&self, child: &RegionInfo, parents: &[&Arc<Region>]) -> Result<()> {
        let dir = self.region_dir(child);
        layout::write_region_info(self.fs.as_ref(), &dir, child)?;
        for parent in parents {
            let p = parent.info();
            let start = child.start_key.clone().max(p.start_key.clone());
            let end = match (child.end_key.is_empty(), p.end_key.is_empty()) {
                (true, _) => p.end_key.clone(),
                (_, true) => child.end_key.clone(),
                _ => child.end_key.clone().min(p.end_key.clone()),
            };
            parent.write_references(&dir, &start, &end)?;
        }
        // Its stamps start no lower than its parents' did (issue 45, `.clock`).
        let floor = parents.iter().map(|p| p.stamp_floor()).max();
        basalt_region::write_clock(self.fs.as_ref(), &dir, floor.unwrap_or(i64::MIN))
    }

    /// Undoes a prepared split or merge the master did not commit: the new regions' files
    /// go, and the parents serve again.
    pub fn abort_children(&self, parents: &[&Arc<Region>], children: &[RegionInfo]) {
        for child in children {
            let _ = layout::delete_dir(self.fs.as_ref(), &self.region_dir(child));
        }
        for parent in parents {
            self.reopen_region(parent);
        }
    }

    /// Opens the regions a committed split or merge made, and lets the log forget the
    /// parents' edits (the parents' files hold all of them). Once they serve, the caller
    /// wakes the background worker to compact their references away.
    pub fn open_children(
        &self,
        parents: &[&Arc<Region>],
        children: &[RegionInfo],
        descriptor: &TableDescriptor,
    ) -> Result<Vec<Arc<Region>>> {
        for parent in parents {
            self.note_close(parent)?;
        }
        let names: Vec<&str> = parents.iter().map(|p| p.encoded_name()).collect();
        let opened = children
            .iter()
            .map(|c| self.open_region_from(c.clone(), descriptor, &names))
            .collect::<Result<Vec<_>>>()?;
        for parent in parents {
            self.forget_edits(parent)?;
        }
        Ok(opened)
    }

    /// Tells the server's background threads (the flushers) to end.
    pub fn stop_background(&self) {
        self.stopping.store(true, Ordering::Release);
        if let Some(budget) = &self.config.budget {
            budget.stop();
        }
        if let Some(r) = self.replication.get() {
            r.stop();
        }
    }

    pub fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// At a clean stop, after every region is flushed and the log closed: the server's own
    /// WAL directory is archived and deleted (nothing in it is needed), and its lock let go.
    pub fn stop(&self) -> Result<()> {
        if let (Some(wal), Some(dir)) = (&self.config.wal, &self.wal_dir) {
            let fs = self.fs.as_ref();
            wal.archive(&basalt_wal::segments_in(fs, dir)?)?;
            fs.delete_dir_all(dir).map_err(storage)?;
        }
        self.release_wal_lock();
        Ok(())
    }

    /// Lets go of the WAL directory's lock: the directory is then free for recovery by the
    /// next server (at a clean stop, after the directory is archived; when the engine holding
    /// this server goes away without stopping, before its master's lock goes, even while a
    /// background thread still holds the server).
    pub fn release_wal_lock(&self) {
        self.lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}
