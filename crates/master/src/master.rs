//! The master's state (HBase's `HMaster` with its `TableStateManager` and the region states of
//! its `AssignmentManager`): the tables it knows, each a sorted run of regions placed on region
//! servers, the namespaces, the catalog it keeps them in, the region servers it can place
//! regions on, and the DDL lock. The procedures (`procedures`) change it; the embedded engine
//! (`Engine`) is a `Master` with one region server in its own process, and a cluster's master
//! (`cluster`) is one with region servers across the network.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use basalt_common::{Bytes, Clock, Error, RegionInfo, Result, TableDescriptor, TableName};
use basalt_fs::FileSystem;
use basalt_layout as layout;
use basalt_region::Region;
use basalt_regionserver::{META_REGION_NAME, RegionServer};

use crate::janitor;
use crate::meta::{MetaBatch, MetaStore, NamespaceDescriptor};
use crate::servers::RegionServerAdmin;

/// A region where the master placed it: the server that serves it, and (in the embedded engine)
/// the open region itself, which the embedded client reads and writes directly.
#[derive(Debug, Clone)]
pub struct Placed {
    pub info: RegionInfo,
    pub server: Arc<dyn RegionServerAdmin>,
    pub region: Option<Arc<Region>>,
}

/// A table the master knows: its schema, state and regions.
#[derive(Debug)]
pub struct HostedTable {
    pub name: TableName,
    descriptor: RwLock<Arc<TableDescriptor>>,
    enabled: AtomicBool,
    /// The serving regions by start key; together they cover every row.
    regions: RwLock<BTreeMap<Bytes, Placed>>,
    /// While an alter reopens the regions: how many are still to reopen, of how many.
    altering: std::sync::Mutex<Option<(u32, u32)>>,
}

fn not_serving(info: &RegionInfo) -> Error {
    Error::NotServingRegion(String::from_utf8_lossy(&info.region_name()).into_owned())
}

impl HostedTable {
    pub fn new(descriptor: TableDescriptor, enabled: bool, regions: Vec<Placed>) -> Arc<Self> {
        Arc::new(HostedTable {
            name: descriptor.name.clone(),
            descriptor: RwLock::new(Arc::new(descriptor)),
            enabled: AtomicBool::new(enabled),
            regions: RwLock::new(
                regions
                    .into_iter()
                    .map(|p| (p.info.start_key.clone(), p))
                    .collect(),
            ),
            altering: std::sync::Mutex::new(None),
        })
    }

    pub fn descriptor(&self) -> Arc<TableDescriptor> {
        Arc::clone(
            &self
                .descriptor
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    pub fn set_descriptor(&self, d: TableDescriptor) {
        *self
            .descriptor
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Arc::new(d);
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }

    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Release);
    }

    fn map(&self) -> RwLockReadGuard<'_, BTreeMap<Bytes, Placed>> {
        // Changed only by whole-entry inserts and removes: never half-updated.
        self.regions.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the placement of the region holding `row`.
    fn with_placed<T>(&self, row: &[u8], f: impl FnOnce(&Placed) -> Result<T>) -> Result<T> {
        let map = self.map();
        let p = map
            .range::<[u8], _>((Bound::Unbounded, Bound::Included(row)))
            .next_back()
            .map(|(_, p)| p)
            .ok_or_else(|| Error::TableNotFound(self.name.clone()))?;
        f(p)
    }

    /// Where the region holding `row` is placed.
    pub fn placed_for(&self, row: &[u8]) -> Result<Placed> {
        self.with_placed(row, |p| Ok(p.clone()))
    }

    /// Every region's placement, in key order.
    pub fn placed(&self) -> Vec<Placed> {
        self.map().values().cloned().collect()
    }

    /// The open region holding `row` (embedded engine; every put and get comes here, so only
    /// the region's `Arc` is cloned).
    pub fn region_for(&self, row: &[u8]) -> Result<Arc<Region>> {
        self.with_placed(row, |p| {
            p.region.clone().ok_or_else(|| not_serving(&p.info))
        })
    }

    /// The open region holding the rows just below `row` (None below the first region).
    pub fn region_before(&self, row: &[u8]) -> Option<Arc<Region>> {
        self.map()
            .range::<[u8], _>((Bound::Unbounded, Bound::Excluded(row)))
            .next_back()
            .and_then(|(_, p)| p.region.clone())
    }

    pub fn last_region(&self) -> Option<Arc<Region>> {
        self.map()
            .values()
            .next_back()
            .and_then(|p| p.region.clone())
    }

    /// An alter's progress: regions still to reopen with the new schema, of how many (none
    /// left when no alter runs).
    pub fn alter_status(&self) -> (u32, u32) {
        let total = u32::try_from(self.map().len()).unwrap_or(u32::MAX);
        self.altering
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or((0, total))
    }

    /// Records an alter's progress (`None`: it ended).
    pub fn set_altering(&self, progress: Option<(u32, u32)>) {
        *self.altering.lock().unwrap_or_else(PoisonError::into_inner) = progress;
    }

    /// The open regions in key order (embedded engine: every region).
    pub fn regions(&self) -> Vec<Arc<Region>> {
        self.map()
            .values()
            .filter_map(|p| p.region.clone())
            .collect()
    }

    /// Swaps regions in one step: readers see the old ones or the new ones. An old region
    /// goes only if it is still the one placed at its start key.
    pub fn replace_regions(&self, old: &[RegionInfo], new: Vec<Placed>) {
        let mut map = self.regions.write().unwrap_or_else(PoisonError::into_inner);
        for info in old {
            if map
                .get(&info.start_key)
                .is_some_and(|cur| cur.info == *info)
            {
                map.remove(&info.start_key);
            }
        }
        for p in new {
            map.insert(p.info.start_key.clone(), p);
        }
    }
}

/// The region servers a master places regions on, by name.
#[derive(Debug, Default)]
pub struct Servers {
    live: RwLock<BTreeMap<String, Arc<dyn RegionServerAdmin>>>,
    next: AtomicUsize,
    /// Servers taken out of service (HBase's decommissioned, or draining, servers): they
    /// serve what they hold, and get no new region, from assignment or the balancer.
    decommissioned: RwLock<std::collections::BTreeSet<String>>,
}

impl Servers {
    pub fn add(&self, server: Arc<dyn RegionServerAdmin>) {
        self.live
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(server.name().to_string(), server);
    }

    pub fn remove(&self, name: &str) -> Option<Arc<dyn RegionServerAdmin>> {
        self.live
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name)
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn RegionServerAdmin>> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// Every open region's figures as its live server reports them, by region name. A server
    /// that does not answer now is left out.
    pub fn region_loads(&self) -> std::collections::HashMap<Vec<u8>, basalt_proto::pb::RegionLoad> {
        let mut out = std::collections::HashMap::new();
        for server in self.all() {
            if let Ok(loads) = server.region_loads() {
                for load in loads {
                    out.insert(load.region_specifier.value.clone(), load);
                }
            }
        }
        out
    }

    /// The live servers, by name.
    pub fn all(&self) -> Vec<Arc<dyn RegionServerAdmin>> {
        self.live
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// Takes `name` (`host,port,startcode`) out of service, or (`on` false) back in.
    pub fn set_decommissioned(&self, name: &str, on: bool) {
        let mut set = self
            .decommissioned
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if on {
            set.insert(name.to_owned());
        } else {
            set.remove(name);
        }
    }

    /// The servers out of service, by name.
    pub fn decommissioned(&self) -> Vec<String> {
        self.decommissioned
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }

    pub fn is_decommissioned(&self, name: &str) -> bool {
        self.decommissioned
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    /// The live servers that take new regions, by name.
    pub fn in_service(&self) -> Vec<Arc<dyn RegionServerAdmin>> {
        self.all()
            .into_iter()
            .filter(|s| !self.is_decommissioned(&s.name().to_string()))
            .collect()
    }

    /// A server for a new region among the live servers in service whose name
    /// (`host,port,startcode`) `keep` accepts, in turn.
    pub fn pick_where(&self, keep: impl Fn(&str) -> bool) -> Result<Arc<dyn RegionServerAdmin>> {
        let all: Vec<_> = self
            .in_service()
            .into_iter()
            .filter(|s| keep(&s.name().to_string()))
            .collect();
        if all.is_empty() {
            return Err(Error::storage(
                "no region server in service is there to take the region",
            ));
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::clone(&all[n % all.len()]))
    }

    /// A server for a new region: the live servers in service in turn.
    pub fn pick(&self) -> Result<Arc<dyn RegionServerAdmin>> {
        let all = self.in_service();
        if all.is_empty() && !self.all().is_empty() {
            return Err(Error::storage(
                "every live region server is decommissioned: nothing can take a region",
            ));
        }
        if all.is_empty() {
            return Err(Error::storage(
                "no region server is running: nothing can serve a region",
            ));
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        Ok(Arc::clone(&all[n % all.len()]))
    }
}

/// The master's state; see the module documentation.
#[derive(Debug)]
pub struct Master {
    tables: RwLock<BTreeMap<TableName, Arc<HostedTable>>>,
    namespaces: RwLock<BTreeMap<String, NamespaceDescriptor>>,
    /// Where the catalog is read and written (it changes when meta moves).
    catalog: RwLock<Arc<dyn MetaStore>>,
    /// The timestamp of the last catalog change (they only grow).
    last_meta_ts: AtomicI64,
    pub clock: Arc<dyn Clock>,
    /// Where everything is stored, and the root directory on it (layout: DESIGN.md section 5).
    pub fs: Arc<dyn FileSystem>,
    pub root: PathBuf,
    pub servers: Servers,
    /// The region server in this process (the embedded engine), whose open regions the
    /// embedded client uses directly.
    local: Option<Arc<RegionServer>>,
    closed: AtomicBool,
    pub background: janitor::Settings,
    /// Whether the balancer runs (HBase's `balance_switch`).
    pub balancer_on: AtomicBool,
    /// Whether regions may split, and merge (HBase's `splitormerge_switch`).
    pub split_on: AtomicBool,
    pub merge_on: AtomicBool,
    /// Whether the catalog janitor (cleaning split and merge parents), the cleaner chore
    /// (archived files and logs), the normalizer and the snapshot cleanup (snapshots past
    /// their TTL) run by themselves.
    pub catalog_janitor_on: AtomicBool,
    pub cleaner_on: AtomicBool,
    pub normalizer_on: AtomicBool,
    pub snapshot_cleanup_on: AtomicBool,
    /// The settings that change live (`update_config`): its local region server's
    /// (standalone), or the cluster master's.
    pub settings: Arc<basalt_common::site::LiveSettings>,
    /// What a cluster's master knows beyond its live servers: the servers it recovered (the
    /// newest last) and the masters waiting to take over, for the cluster status.
    pub dead_servers: Mutex<Vec<basalt_common::ServerName>>,
    pub backup_masters: Mutex<Vec<basalt_common::ServerName>>,
    /// Its procedures, running and recent (`list_procedures`, `list_locks`), and the DDL
    /// lock (one catalog change at a time: DDL, splits, merges, cleanup of split parents).
    pub procedure_log: crate::procedure_log::ProcedureLog,
    /// What the balancer decided on its recent runs.
    pub balancer_log: basalt_common::balancer_log::BalancerLog,
    /// What the master counts (balancer runs, regions moved).
    pub metrics: Arc<basalt_common::metrics::MasterMetrics>,
    /// Who may do what: its local region server's (standalone), or off.
    pub access: Arc<basalt_common::acl::AccessControl>,
    /// The cluster's id (`<root>/hbase.id`), which replication carries on every edit.
    pub cluster_id: String,
    /// Tables' space use against their space quotas, as the quota observer last worked it
    /// out (`quota_store::observe_space`).
    pub space_use: Mutex<basalt_common::quota::SpaceUse>,
    /// `hbase:quota`'s settings as last read (None: to be read again); the master is their
    /// only writer (`quota_store`).
    pub quotas: Mutex<Option<Vec<(basalt_common::quota::Subject, basalt_common::quota::Quotas)>>>,
    /// The region server groups other than `default` as last read (None: to be read again;
    /// `rsgroup`).
    pub rsgroups: Mutex<Option<Vec<basalt_common::rsgroup::RsGroup>>>,
    /// Whether RPC throttles are enforced, and whether they may be exceeded (kept on the
    /// shared storage as `layout::RPC_THROTTLE_OFF` and `EXCEED_THROTTLE_ON`).
    pub rpc_throttle_on: AtomicBool,
    pub exceed_throttle_on: AtomicBool,
}

impl Master {
    pub fn new(
        catalog: Arc<dyn MetaStore>,
        clock: Arc<dyn Clock>,
        fs: Arc<dyn FileSystem>,
        root: PathBuf,
        local: Option<Arc<RegionServer>>,
        background: janitor::Settings,
    ) -> Self {
        let access = local
            .as_ref()
            .map(|rs| Arc::clone(&rs.config.access))
            .unwrap_or_default();
        let settings = local
            .as_ref()
            .map(|rs| Arc::clone(&rs.config.settings))
            .unwrap_or_default();
        // Off while the marker a switch left is on the shared storage.
        let cleaner_on = !fs.exists(&root.join(layout::CLEANER_OFF)).unwrap_or(false);
        let rpc_throttle_on = !fs
            .exists(&root.join(layout::RPC_THROTTLE_OFF))
            .unwrap_or(false);
        let exceed_throttle_on = fs
            .exists(&root.join(layout::EXCEED_THROTTLE_ON))
            .unwrap_or(false);
        let snapshot_cleanup_on = !fs
            .exists(&root.join(layout::SNAPSHOT_CLEANUP_OFF))
            .unwrap_or(false);
        // A directory that cannot take the file still gets an id for this run.
        let cluster_id =
            layout::cluster_id(fs.as_ref(), &root).unwrap_or_else(|_| layout::new_uuid());
        Master {
            tables: RwLock::new(BTreeMap::new()),
            namespaces: RwLock::new(BTreeMap::new()),
            catalog: RwLock::new(catalog),
            last_meta_ts: AtomicI64::new(0),
            clock,
            fs,
            root,
            servers: Servers::default(),
            local,
            closed: AtomicBool::new(false),
            background,
            balancer_on: AtomicBool::new(true),
            split_on: AtomicBool::new(true),
            merge_on: AtomicBool::new(true),
            catalog_janitor_on: AtomicBool::new(true),
            cleaner_on: AtomicBool::new(cleaner_on),
            normalizer_on: AtomicBool::new(true),
            snapshot_cleanup_on: AtomicBool::new(snapshot_cleanup_on),
            settings,
            dead_servers: Mutex::new(Vec::new()),
            backup_masters: Mutex::new(Vec::new()),
            metrics: Arc::default(),
            balancer_log: Default::default(),
            procedure_log: Default::default(),
            access,
            cluster_id,
            space_use: Mutex::default(),
            quotas: Mutex::default(),
            rsgroups: Mutex::default(),
            rpc_throttle_on: AtomicBool::new(rpc_throttle_on),
            exceed_throttle_on: AtomicBool::new(exceed_throttle_on),
        }
    }

    /// The master's figures now, for the info pages and `/metrics`. A region counts as in
    /// transition while the server it is placed on is not a live one (it waits to be
    /// reassigned).
    pub fn status(&self, name: &str) -> basalt_common::metrics::MasterStatus {
        let live: Vec<String> = self
            .servers
            .all()
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        let mut regions = 0;
        let mut in_transition = 0;
        for t in self.tables().values().filter(|t| t.is_enabled()) {
            for p in t.placed() {
                regions += 1;
                if !live.contains(&p.server.name().to_string()) {
                    in_transition += 1;
                }
            }
        }
        basalt_common::metrics::MasterStatus {
            name: name.to_owned(),
            live_servers: live.len(),
            dead_servers: self
                .dead_servers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .len(),
            regions,
            regions_in_transition: in_transition,
            balancer_on: self.balancer_on.load(std::sync::atomic::Ordering::Acquire),
            is_active: true,
            space: self
                .space_use
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .tables
                .iter()
                .map(|(t, s)| (t.to_string(), *s))
                .collect(),
        }
    }

    pub fn tables(&self) -> RwLockReadGuard<'_, BTreeMap<TableName, Arc<HostedTable>>> {
        // The map is only ever changed by single insert/remove calls; a panic cannot leave it
        // half-updated, so a poisoned lock still guards consistent data.
        self.tables.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn tables_mut(&self) -> RwLockWriteGuard<'_, BTreeMap<TableName, Arc<HostedTable>>> {
        self.tables.write().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn namespaces(&self) -> RwLockReadGuard<'_, BTreeMap<String, NamespaceDescriptor>> {
        self.namespaces
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub fn namespaces_mut(&self) -> RwLockWriteGuard<'_, BTreeMap<String, NamespaceDescriptor>> {
        self.namespaces
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Serializes catalog changes.
    /// The DDL lock: one catalog change at a time. The procedure this thread runs is
    /// recorded as waiting while another holds it.
    pub fn ddl(&self) -> crate::procedure_log::DdlGuard<'_> {
        self.procedure_log.ddl()
    }

    /// Where the catalog is read and written.
    pub fn catalog(&self) -> Arc<dyn MetaStore> {
        Arc::clone(&self.catalog.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// The catalog is now read and written at `catalog` (meta moved).
    pub fn set_catalog(&self, catalog: Arc<dyn MetaStore>) {
        *self.catalog.write().unwrap_or_else(PoisonError::into_inner) = catalog;
    }

    /// Catalog changes continue after `ts` (the newest one the catalog holds), even if the
    /// clock went back: a row written again must not fall under an older run's delete marker.
    pub fn continue_after(&self, ts: i64) {
        self.last_meta_ts.fetch_max(ts, Ordering::AcqRel);
    }

    /// A batch of catalog mutations at a timestamp later than every earlier one.
    pub fn meta_batch(&self) -> MetaBatch {
        let now = self.clock.now_millis();
        let prev = self
            .last_meta_ts
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |last| {
                Some(now.max(last + 1))
            })
            .unwrap_or(now);
        MetaBatch::new(now.max(prev + 1))
    }

    /// `<root>/data/<namespace>/<table>`.
    pub fn table_dir(&self, name: &TableName) -> PathBuf {
        layout::table_dir(&self.root, name)
    }

    /// `<root>/data/<namespace>/<table>/<encoded name>`.
    pub fn region_dir(&self, info: &RegionInfo) -> PathBuf {
        self.table_dir(&info.table).join(layout::encoded_name(info))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Marks the master closed: every call on it fails from now on. False if it already was.
    pub fn mark_closed(&self) -> bool {
        !self.closed.swap(true, Ordering::AcqRel)
    }

    pub fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::storage("the connection is closed"));
        }
        Ok(())
    }

    pub fn table(&self, name: &TableName) -> Result<Arc<HostedTable>> {
        self.check_open()?;
        self.tables()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::TableNotFound(name.clone()))
    }

    /// The placement of a region the master has just opened on `server`: with the open region
    /// itself when `server` is the one in this process.
    pub fn placed(&self, info: &RegionInfo, server: &Arc<dyn RegionServerAdmin>) -> Placed {
        let region = self.local.as_ref().and_then(|rs| {
            (rs.name == *server.name())
                .then(|| {
                    let encoded = layout::encoded_name(info);
                    rs.online_region(&encoded)
                        .or_else(|| rs.held_region(&encoded))
                })
                .flatten()
        });
        Placed {
            info: info.clone(),
            server: Arc::clone(server),
            region,
        }
    }

    /// A region the master placed, by its full name, its encoded name or (meta's) HBase's
    /// fixed `hbase:meta,,1`, with its table.
    pub fn find_placed(&self, name: &[u8]) -> Result<(Arc<HostedTable>, Placed)> {
        self.check_open()?;
        let encoded = RegionInfo::encoded_part(name).unwrap_or(name);
        for table in self.tables().values() {
            for p in table.placed() {
                let meta_named = p.info.table.is_meta() && name == META_REGION_NAME;
                if meta_named
                    || p.info.region_name()[..] == name[..]
                    || layout::encoded_name(&p.info).as_bytes() == encoded
                {
                    return Ok((Arc::clone(table), p));
                }
            }
        }
        Err(Error::UnknownRegion(
            String::from_utf8_lossy(name).into_owned(),
        ))
    }

    /// Every region placed on a server to serve, `hbase:meta`'s first (disabled tables'
    /// regions are not served).
    pub fn serving_regions(&self) -> Vec<RegionInfo> {
        let tables = self.tables();
        let (system, user): (Vec<_>, Vec<_>) = tables
            .values()
            .filter(|t| t.is_enabled())
            .partition(|t| t.name.is_meta());
        system
            .iter()
            .chain(user.iter())
            .flat_map(|t| t.placed())
            .map(|p| p.info)
            .collect()
    }

    /// The region server in this process, if any.
    pub fn local_server(&self) -> Option<&Arc<RegionServer>> {
        self.local.as_ref()
    }
}
