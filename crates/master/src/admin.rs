//! Admin: namespaces, tables and their schemas, regions (HBase's `Admin`).

use std::sync::Arc;

use basalt_common::{
    Bytes, ColumnFamilyDescriptor, Error, RegionInfo, Result, TableDescriptor, TableName,
};
use basalt_region::Region;

use crate::master::{Master, Placed};
use crate::procedures;
use basalt_common::NamespaceDescriptor;
use basalt_common::chore::Chore;

pub use basalt_common::split::SplitAlgorithm;

/// A region of a table, as [`Admin::regions`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionDescription {
    /// The region name, also its `hbase:meta` row.
    pub name: Bytes,
    pub encoded_name: String,
    pub start_key: Bytes,
    pub end_key: Bytes,
    pub region_id: i64,
    pub store_files: usize,
    /// Bytes of store files (a reference counts its whole parent file).
    pub store_file_size: u64,
    pub memstore_size: u64,
    /// Gets and scanned rows served since the region opened (HBase's readRequestsCount).
    pub read_requests: u64,
    /// Row mutations applied since the region opened (HBase's writeRequestsCount).
    pub write_requests: u64,
}

impl RegionDescription {
    /// A placed region's description; its sizes and counts where it is open in this process
    /// (zero for one on another server).
    pub(crate) fn of(placed: &Placed) -> Self {
        let info: &RegionInfo = &placed.info;
        let mut d = RegionDescription {
            name: info.region_name(),
            encoded_name: info.encoded_name(),
            start_key: info.start_key.clone(),
            end_key: info.end_key.clone(),
            region_id: info.region_id,
            store_files: 0,
            store_file_size: 0,
            memstore_size: 0,
            read_requests: 0,
            write_requests: 0,
        };
        if let Some(region) = &placed.region {
            d.encoded_name = region.encoded_name().to_owned();
            d.store_files = region.store_file_counts().iter().sum();
            d.store_file_size = region.store_files_size();
            d.memstore_size = region.memstore_bytes() as u64;
            d.read_requests = region.requests().reads();
            d.write_requests = region.requests().writes();
        }
        d
    }
}

/// Table administration (HBase's `Admin`).
#[derive(Debug, Clone)]
pub struct Admin {
    engine: Arc<Master>,
}

impl Admin {
    pub fn new(master: Arc<Master>) -> Self {
        Admin { engine: master }
    }

    // Snapshots (`crate::snapshots`).

    /// Takes snapshot `name` of `table`: each region flushed, its files linked.
    pub fn snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        self.snapshot_with_ttl(name, table, 0)
    }

    /// [`Admin::snapshot`] that lives `ttl_secs` seconds (0: for ever); past it, the
    /// snapshot cleanup deletes it and it cannot be cloned or restored.
    pub fn snapshot_with_ttl(&self, name: &str, table: &TableName, ttl_secs: i64) -> Result<()> {
        // Not while the table is being altered, dropped or split by a DDL call.
        let _ddl = self.engine.ddl();
        crate::snapshots::take(&self.engine, name, table, ttl_secs)
    }

    /// Refuses a snapshot whose time to live has passed (HBase's SnapshotTTLExpiredException).
    fn live_snapshot(&self, name: &str) -> Result<()> {
        let info = crate::snapshots::info(&self.engine, name)?;
        if info.expired(self.engine.clock.now_millis()) {
            return Err(Error::Refused(format!(
                "Snapshot TTL has expired: snapshot {name} lived {} s and cannot be cloned or \
                 restored",
                info.ttl_secs
            )));
        }
        Ok(())
    }

    /// Every snapshot, by name.
    pub fn list_snapshots(&self) -> Result<Vec<crate::snapshots::SnapshotInfo>> {
        crate::snapshots::list(&self.engine)
    }

    pub fn delete_snapshot(&self, name: &str) -> Result<()> {
        let _ddl = self.engine.ddl();
        crate::snapshots::delete(&self.engine, name)
    }

    /// Makes table `table` from snapshot `name` (HBase's `clone_snapshot`): the snapshot's
    /// schema and regions, its files linked (no copies), so the clone and the source share
    /// nothing but bytes that neither changes.
    pub fn clone_snapshot(&self, name: &str, table: &TableName) -> Result<()> {
        self.live_snapshot(name)?;
        let (descriptor, splits) = crate::snapshots::clone_plan(&self.engine, name, table)?;
        self.create_table_with_splits(descriptor, &splits)?;
        let cloned = crate::snapshots::link_into(&self.engine, name, table);
        if cloned.is_err() {
            // Not half a clone: the new table goes again.
            let _ = self.disable_table(table);
            let _ = self.delete_table(table);
        }
        cloned
    }

    /// Puts the table snapshot `name` was taken of back as it was then (HBase's
    /// `restore_snapshot`): its schema and regions become the snapshot's. The table must be
    /// disabled (it stays so); a table that no longer exists is cloned from the snapshot.
    pub fn restore_snapshot(&self, name: &str) -> Result<()> {
        self.live_snapshot(name)?;
        let info = crate::snapshots::info(&self.engine, name)?;
        if !self.table_exists(&info.table) {
            return self.clone_snapshot(name, &info.table);
        }
        let _ddl = self.engine.ddl();
        self.engine.check_open()?;
        crate::snapshots::restore(&self.engine, name, &info.table)
    }

    // Access control (HBase's AccessControlClient; in force only with authorization on).

    /// Grants `p` (replacing what its principal had at that scope, or, with `merge`, adding
    /// to it), stored in `hbase:acl`. In force at once.
    pub fn grant(&self, p: basalt_common::acl::Permission, merge: bool) -> Result<()> {
        self.require_authorization()?;
        // One change at a time: stored first, then put in force.
        let _ddl = self.engine.ddl();
        crate::acl_store::check_scope_exists(&self.engine, &p.scope)?;
        let merged = match self.engine.access.acl().held(&p.principal, &p.scope) {
            Some(held) if merge => basalt_common::acl::Permission {
                actions: held.actions.union(p.actions),
                ..p
            },
            _ => p,
        };
        crate::acl_store::store(&self.engine, &merged)?;
        self.engine.access.update(|acl| {
            acl.grant(merged, false);
        });
        Ok(())
    }

    /// Takes away what `principal` was granted at exactly `scope`.
    pub fn revoke(&self, principal: &str, scope: &basalt_common::acl::Scope) -> Result<()> {
        self.require_authorization()?;
        let _ddl = self.engine.ddl();
        let held = self.engine.access.acl().held(principal, scope).cloned();
        let Some(p) = held else {
            return Err(Error::InvalidArgument(format!(
                "{principal} has no permissions at {scope} to revoke"
            )));
        };
        crate::acl_store::remove(&self.engine, &p)?;
        self.engine.access.update(|acl| {
            acl.revoke(principal, scope);
        });
        Ok(())
    }

    /// The grants at `scope` and inside it (all of them for the global scope).
    pub fn user_permissions(
        &self,
        scope: &basalt_common::acl::Scope,
    ) -> Result<Vec<basalt_common::acl::Permission>> {
        self.require_authorization()?;
        Ok(self
            .engine
            .access
            .acl()
            .grants()
            .filter(|g| scope.covers(&g.scope))
            .cloned()
            .collect())
    }

    fn require_authorization(&self) -> Result<()> {
        if self.engine.access.is_enabled() {
            Ok(())
        } else {
            Err(Error::Refused(
                "access control is off (start the server with --authorization)".into(),
            ))
        }
    }

    // Namespaces.

    /// Creates a namespace. Names are letters, digits and `_`.
    pub fn create_namespace(&self, ns: NamespaceDescriptor) -> Result<()> {
        procedures::put_namespace(&self.engine, &ns, true)
    }

    /// Replaces a namespace's properties.
    pub fn modify_namespace(&self, ns: NamespaceDescriptor) -> Result<()> {
        procedures::put_namespace(&self.engine, &ns, false)
    }

    /// Drops an empty namespace (never `default` or `hbase`).
    pub fn delete_namespace(&self, name: &str) -> Result<()> {
        procedures::delete_namespace(&self.engine, name)
    }

    pub fn get_namespace_descriptor(&self, name: &str) -> Result<NamespaceDescriptor> {
        self.engine.check_open()?;
        self.engine
            .namespaces()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::NamespaceNotFound(name.to_owned()))
    }

    /// Every namespace, sorted by name.
    pub fn list_namespace_descriptors(&self) -> Vec<NamespaceDescriptor> {
        self.engine.namespaces().values().cloned().collect()
    }

    /// The tables of a namespace.
    pub fn list_table_names_by_namespace(&self, namespace: &str) -> Result<Vec<TableName>> {
        self.get_namespace_descriptor(namespace)?;
        Ok(self
            .engine
            .tables()
            .keys()
            .filter(|t| t.namespace() == namespace)
            .cloned()
            .collect())
    }

    // Tables.

    /// Creates a table with one region, enabled.
    pub fn create_table(&self, descriptor: TableDescriptor) -> Result<()> {
        descriptor.check_supported()?;
        descriptor.check_coprocessor_files()?;
        procedures::create_table(&self.engine, descriptor, &[])
    }

    /// Creates a table pre-split at `split_keys` (one region more than keys).
    pub fn create_table_with_splits(
        &self,
        descriptor: TableDescriptor,
        split_keys: &[Bytes],
    ) -> Result<()> {
        descriptor.check_supported()?;
        descriptor.check_coprocessor_files()?;
        procedures::create_table(&self.engine, descriptor, split_keys)
    }

    /// Creates a table of `regions` regions split by `algorithm` (shell `NUMREGIONS`,
    /// `SPLITALGO`).
    pub fn create_table_pre_split(
        &self,
        descriptor: TableDescriptor,
        regions: usize,
        algorithm: SplitAlgorithm,
    ) -> Result<()> {
        descriptor.check_supported()?;
        descriptor.check_coprocessor_files()?;
        let keys = algorithm.split_keys(regions)?;
        procedures::create_table(&self.engine, descriptor, &keys)
    }

    /// Whether the table exists.
    pub fn table_exists(&self, name: &TableName) -> bool {
        self.engine.tables().contains_key(name)
    }

    /// Every user table's name, sorted (system tables are left out, as in HBase).
    pub fn list_table_names(&self) -> Vec<TableName> {
        self.engine
            .tables()
            .keys()
            .filter(|t| !t.is_system())
            .cloned()
            .collect()
    }

    /// The tables whose whole name (`ns:table`, or `table` in `default`) matches `pattern`,
    /// a regular expression, as HBase's `listTableNames(Pattern, includeSysTables)`.
    pub fn list_table_names_matching(
        &self,
        pattern: &str,
        include_system: bool,
    ) -> Result<Vec<TableName>> {
        let re = regex::Regex::new(&format!("^(?:{pattern})$")).map_err(|e| {
            Error::InvalidArgument(format!("bad table name pattern {pattern:?}: {e}"))
        })?;
        Ok(self
            .engine
            .tables()
            .keys()
            .filter(|t| include_system || !t.is_system())
            .filter(|t| re.is_match(&t.to_string()))
            .cloned()
            .collect())
    }

    /// The table's schema.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        Ok((*self.engine.table(name)?.descriptor()).clone())
    }

    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        Ok(self.engine.table(name)?.is_enabled())
    }

    pub fn is_table_disabled(&self, name: &TableName) -> Result<bool> {
        Ok(!self.is_table_enabled(name)?)
    }

    /// Disables a table: its memstores are flushed, it keeps its data and refuses reads and
    /// writes (TableNotEnabledException) until enabled.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        procedures::set_enabled(&self.engine, name, false)
    }

    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        procedures::set_enabled(&self.engine, name, true)
    }

    /// Deletes a table and its data. As in HBase, it must be disabled first.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        procedures::delete_table(&self.engine, name)
    }

    /// Empties a disabled table: it is deleted and created again with the same schema (and
    /// the same region boundaries if `preserve_splits`), enabled.
    pub fn truncate_table(&self, name: &TableName, preserve_splits: bool) -> Result<()> {
        procedures::truncate_table(&self.engine, name, preserve_splits)
    }

    /// Replaces a table's schema, online (HBase 2's alter): each region is reopened with it.
    pub fn modify_table(&self, descriptor: TableDescriptor) -> Result<()> {
        descriptor.check_supported()?;
        descriptor.check_coprocessor_files()?;
        procedures::modify_table(&self.engine, descriptor)
    }

    /// Adds a column family.
    pub fn add_column_family(
        &self,
        name: &TableName,
        family: ColumnFamilyDescriptor,
    ) -> Result<()> {
        let mut d = self.describe_table(name)?;
        if d.family(&family.name).is_some() {
            return Err(Error::InvalidArgument(format!(
                "Column family {} already exists in table {name}",
                family.name_str()
            )));
        }
        d.add_family(family);
        self.modify_table(d)
    }

    /// Replaces a column family's settings.
    pub fn modify_column_family(
        &self,
        name: &TableName,
        family: ColumnFamilyDescriptor,
    ) -> Result<()> {
        let mut d = self.describe_table(name)?;
        if d.remove_family(&family.name).is_none() {
            return Err(Error::NoSuchColumnFamily {
                table: name.clone(),
                family: basalt_common::bytes_display::BinaryDisplay::new(&family.name),
            });
        }
        d.add_family(family);
        self.modify_table(d)
    }

    /// Removes a column family and its data (a table keeps at least one).
    pub fn delete_column_family(&self, name: &TableName, family: &[u8]) -> Result<()> {
        let mut d = self.describe_table(name)?;
        if d.remove_family(family).is_none() {
            return Err(Error::NoSuchColumnFamily {
                table: name.clone(),
                family: basalt_common::bytes_display::BinaryDisplay::new(family),
            });
        }
        self.modify_table(d)
    }

    fn regions_of(&self, name: &TableName) -> Result<Vec<Placed>> {
        Ok(self.engine.table(name)?.placed())
    }

    /// The table's open regions in this process (the embedded engine's: all of them).
    pub fn open_regions(&self, name: &TableName) -> Result<Vec<Arc<Region>>> {
        Ok(self.engine.table(name)?.regions())
    }

    /// Writes the table's memstores to store files (HBase's `flush`).
    pub fn flush(&self, name: &TableName) -> Result<()> {
        for p in self.regions_of(name)? {
            p.server.flush_region(&p.info)?;
        }
        Ok(())
    }

    /// A minor compaction of the table's stores (HBase's `compact`): the exploring policy's
    /// pick of files merged, every cell kept.
    pub fn compact(&self, name: &TableName) -> Result<()> {
        for p in self.regions_of(name)? {
            p.server.compact_region(&p.info, false)?;
        }
        Ok(())
    }

    /// A major compaction (HBase's `major_compact`): every store's files rewritten as one,
    /// without delete markers, masked, surplus or expired cells (KEEP_DELETED_CELLS and
    /// MIN_VERSIONS honoured). References to parent regions are rewritten too.
    pub fn major_compact(&self, name: &TableName) -> Result<()> {
        for p in self.regions_of(name)? {
            p.server.compact_region(&p.info, true)?;
        }
        procedures::clean_parents(&self.engine).map(|_| ())
    }

    /// Flushes one region, named by its full or encoded name.
    pub fn flush_region(&self, region: &[u8]) -> Result<()> {
        let (_, p) = self.engine.find_placed(region)?;
        p.server.flush_region(&p.info)
    }

    /// Compacts one region (major or minor), named by its full or encoded name.
    pub fn compact_region(&self, region: &[u8], major: bool) -> Result<()> {
        let (_, p) = self.engine.find_placed(region)?;
        p.server.compact_region(&p.info, major)?;
        if major {
            procedures::clean_parents(&self.engine)?;
        }
        Ok(())
    }

    /// Splits every region of the table at its split point, or, given `at`, the region that
    /// holds that row there. Regions that cannot split (too little data, references left by
    /// an earlier split) are skipped when no row is given.
    pub fn split(&self, name: &TableName, at: Option<&[u8]>) -> Result<()> {
        let table = self.engine.table(name)?;
        if let Some(row) = at {
            let placed = table.placed_for(row)?;
            return procedures::split_region(
                &self.engine,
                &table,
                &placed.info,
                Some(Bytes::copy_from_slice(row)),
            )
            .map(|_| ());
        }
        for p in table.placed() {
            match procedures::split_region(&self.engine, &table, &p.info, None) {
                Ok(_) | Err(Error::Refused(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Splits one region (named by its full or encoded name) at `at` or its split point;
    /// returns the daughters' names.
    pub fn split_region(&self, region: &[u8], at: Option<&[u8]>) -> Result<(Bytes, Bytes)> {
        let (table, p) = self.engine.find_placed(region)?;
        let (a, b) = procedures::split_region(
            &self.engine,
            &table,
            &p.info,
            at.map(Bytes::copy_from_slice),
        )?;
        Ok((a.region_name(), b.region_name()))
    }

    /// Empties a region (named by its full or encoded name): a fresh region over the same
    /// rows, under a new region id, takes its place. Returns the new region's name.
    pub fn truncate_region(&self, region: &[u8]) -> Result<Bytes> {
        let (table, p) = self.engine.find_placed(region)?;
        Ok(procedures::truncate_region(&self.engine, &table, &p.info)?.region_name())
    }

    /// Merges two adjacent regions of one table (named by full or encoded names); returns the
    /// merged region's name.
    pub fn merge_regions(&self, a: &[u8], b: &[u8]) -> Result<Bytes> {
        let (table, ra) = self.engine.find_placed(a)?;
        let (table_b, rb) = self.engine.find_placed(b)?;
        if table.name != table_b.name {
            return Err(Error::Refused(format!(
                "cannot merge regions of different tables ({} and {})",
                table.name, table_b.name
            )));
        }
        Ok(procedures::merge_regions(&self.engine, &table, &ra.info, &rb.info)?.region_name())
    }

    /// The table's serving regions in key order, with their sizes.
    pub fn regions(&self, name: &TableName) -> Result<Vec<RegionDescription>> {
        Ok(self
            .regions_of(name)?
            .iter()
            .map(RegionDescription::of)
            .collect())
    }

    /// Every region this server serves, `hbase:meta`'s first (HBase's online regions).
    pub fn online_regions(&self) -> Vec<RegionInfo> {
        self.engine.serving_regions()
    }

    /// One serving region's identity, named by its full or encoded name (`hbase:meta`'s too).
    pub fn region_info(&self, region: &[u8]) -> Result<RegionInfo> {
        Ok(self.engine.find_placed(region)?.1.info)
    }

    /// Switches the balancer on or off (HBase's `balance_switch`); returns whether it was on.
    pub fn balance_switch(&self, on: bool) -> bool {
        self.engine
            .balancer_on
            .swap(on, std::sync::atomic::Ordering::AcqRel)
    }

    pub fn is_balancer_enabled(&self) -> bool {
        self.engine
            .balancer_on
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Runs the balancer once (HBase's `balancer`): false if it is switched off.
    pub fn balance(&self) -> Result<bool> {
        Ok(crate::balancer::balance(&self.engine)?.is_some())
    }

    /// How many moves a balancer run would make now, making none.
    pub fn balance_dry_run(&self) -> Result<usize> {
        crate::balancer::dry_run(&self.engine)
    }

    /// Moves a region (full or encoded name) to the server named `to`, or to another one.
    pub fn move_region(&self, region: &[u8], to: Option<&str>) -> Result<()> {
        crate::balancer::move_region(&self.engine, region, to)
    }

    /// Takes region servers (`host,port,startcode` or `host:port`) out of service: no new
    /// region goes there, and with `offload` their regions move to the others now.
    pub fn decommission_region_servers(&self, servers: &[String], offload: bool) -> Result<()> {
        crate::balancer::decommission(&self.engine, servers, offload).map(|_| ())
    }

    /// Puts a server back in service, moving the regions named back onto it.
    pub fn recommission_region_server(&self, server: &str, regions: &[Vec<u8>]) -> Result<()> {
        crate::balancer::recommission(&self.engine, server, regions)
    }

    /// Switches splits (`split`) or merges on or off (HBase's `splitormerge_switch`);
    /// returns whether they were on. Off, a split or merge is refused, and none starts by
    /// itself.
    pub fn split_or_merge_switch(&self, split: bool, on: bool) -> bool {
        let flag = if split {
            &self.engine.split_on
        } else {
            &self.engine.merge_on
        };
        flag.swap(on, std::sync::atomic::Ordering::AcqRel)
    }

    pub fn split_or_merge_enabled(&self, split: bool) -> bool {
        let flag = if split {
            &self.engine.split_on
        } else {
            &self.engine.merge_on
        };
        flag.load(std::sync::atomic::Ordering::Acquire)
    }

    fn chore_flag(&self, chore: Chore) -> &std::sync::atomic::AtomicBool {
        match chore {
            Chore::CatalogJanitor => &self.engine.catalog_janitor_on,
            Chore::Cleaner => &self.engine.cleaner_on,
            Chore::SnapshotCleanup => &self.engine.snapshot_cleanup_on,
            Chore::Normalizer => &self.engine.normalizer_on,
        }
    }

    /// Switches one of the master's chores on or off; returns whether it was on. The
    /// cleaner's and the snapshot cleanup's switches are kept on the shared storage
    /// (`layout::CLEANER_OFF`, `layout::SNAPSHOT_CLEANUP_OFF`), where every region server
    /// and the next master look.
    pub fn chore_switch(&self, chore: Chore, on: bool) -> Result<bool> {
        let marker = match chore {
            Chore::Cleaner => Some(basalt_layout::CLEANER_OFF),
            Chore::SnapshotCleanup => Some(basalt_layout::SNAPSHOT_CLEANUP_OFF),
            Chore::CatalogJanitor | Chore::Normalizer => None,
        };
        if let Some(marker) = marker {
            let fs = self.engine.fs.as_ref();
            let marker = self.engine.root.join(marker);
            if on {
                match fs.delete(&marker) {
                    Ok(()) | Err(basalt_fs::FsError::NotFound(_)) => {}
                    Err(e) => return Err(basalt_layout::storage(e)),
                }
            } else {
                basalt_fs::write_atomically(fs, &marker, b"").map_err(basalt_layout::storage)?;
            }
        }
        Ok(self
            .chore_flag(chore)
            .swap(on, std::sync::atomic::Ordering::AcqRel))
    }

    /// Runs the cleaner chore now, switched on or not (HBase's `cleaner_chore_run`): every
    /// live region server deletes its archived WAL segments past their time to live that
    /// no replication queue needs. Returns how many went.
    pub fn run_cleaner_chore(&self) -> Result<u64> {
        let mut deleted = 0;
        for server in self.engine.servers.all() {
            deleted += server.run_log_cleaner()?;
        }
        Ok(deleted)
    }

    /// Whether one of the master's chores runs by itself.
    pub fn chore_enabled(&self, chore: Chore) -> bool {
        self.chore_flag(chore)
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Runs the normalizer now over the tables named (every table asking for it, if none):
    /// false when it is switched off (HBase's `normalize`).
    pub fn normalize(&self, tables: &[TableName]) -> Result<bool> {
        Ok(crate::normalizer::normalize(&self.engine, tables)?.is_some())
    }

    /// The servers out of service, by name.
    pub fn decommissioned_region_servers(&self) -> Vec<String> {
        self.engine.servers.decommissioned()
    }

    /// Forgets dead servers (HBase's `clear_deadservers`; all of them if none is named).
    /// Returns the names that are not dead servers it knew (a live server, a typo): those
    /// HBase reports as not cleared.
    pub fn clear_dead_servers(&self, names: &[String]) -> Vec<String> {
        let mut dead = self
            .engine
            .dead_servers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if names.is_empty() {
            dead.clear();
            return Vec::new();
        }
        let mut kept = Vec::new();
        for name in names {
            let before = dead.len();
            dead.retain(|d| d.to_string() != *name && d.host_port != *name);
            if dead.len() == before {
                kept.push(name.clone());
            }
        }
        kept
    }

    /// Opens a region (HBase's `assign`).
    pub fn assign(&self, region: &[u8]) -> Result<()> {
        crate::balancer::assign(&self.engine, region)
    }

    /// Closes a region and leaves it closed (HBase's `unassign`).
    pub fn unassign(&self, region: &[u8]) -> Result<()> {
        crate::balancer::unassign(&self.engine, region)
    }

    /// Deletes the split and merge parents no region reads any more (HBase's
    /// `runCatalogJanitor`; the background worker does this too). Returns how many went.
    pub fn run_catalog_janitor(&self) -> Result<usize> {
        procedures::clean_parents(&self.engine)
    }

    /// Store files per family, summed over the table's regions, in family order.
    pub fn store_file_counts(&self, name: &TableName) -> Result<Vec<usize>> {
        let mut counts: Vec<usize> = Vec::new();
        for r in self.open_regions(name)? {
            let c = r.store_file_counts();
            counts.resize(c.len().max(counts.len()), 0);
            for (sum, n) in counts.iter_mut().zip(c) {
                *sum += n;
            }
        }
        Ok(counts)
    }
}
