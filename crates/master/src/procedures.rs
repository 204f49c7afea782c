//! Catalog changes (HBase's master procedures): namespaces, table DDL, splits, merges and
//! the cleanup of split and merge parents. Each runs under the engine's DDL lock and commits
//! with one atomic `hbase:meta` mutation; files are written before it and deleted after it,
//! so a crash at any step leaves the catalog before or after the change, and opening the
//! directory again deletes what no catalog entry owns (docs/design/catalog.md).

use std::collections::BTreeSet;
use std::sync::Arc;

use basalt_common::table_name::SYSTEM_NAMESPACE;
use basalt_common::{Bytes, Error, RegionInfo, Result, ServerName, TableDescriptor, TableName};
use basalt_layout as layout;

use crate::master::{HostedTable, Master, Placed};
use crate::meta::{self, NamespaceDescriptor, TableState};
use crate::procedure_log::Resource;
use crate::servers::RegionServerAdmin;

fn refuse_system(name: &TableName) -> Result<()> {
    if name.is_system() {
        return Err(Error::Refused(format!(
            "{name} is a system table and cannot be changed this way"
        )));
    }
    Ok(())
}

fn validate_namespace_name(name: &str) -> Result<()> {
    TableName::new(name, "t").map(|_| ()).map_err(|_| {
        Error::InvalidArgument(format!(
            "Illegal namespace name {name:?}: namespaces are made of letters, digits and '_'"
        ))
    })
}

/// Writes a namespace: a new one (`create`) or new properties for an existing one.
/// A namespace's limit on its tables or regions (`hbase.namespace.quota.maxtables`,
/// `maxregions`), if it sets one; an error names a value that is not a count.
fn namespace_limit(ns: &NamespaceDescriptor, key: &str) -> Result<Option<u64>> {
    ns.configuration
        .get(key)
        .map(|v| {
            v.trim().parse::<u64>().map_err(|_| {
                Error::InvalidArgument(format!(
                    "{key} of namespace {} is {v:?}, not a whole number",
                    ns.name
                ))
            })
        })
        .transpose()
}

/// Refuses a new table (`new_table`) or `new_regions` more regions in `table`'s namespace
/// past the namespace's `hbase.namespace.quota.maxtables` or `maxregions`, with HBase's
/// QuotaExceededException (its NamespaceAuditor).
fn check_namespace_quota(
    engine: &Master,
    table: &TableName,
    new_table: bool,
    new_regions: usize,
) -> Result<()> {
    let Some(ns) = engine.namespaces().get(table.namespace()).cloned() else {
        return Ok(());
    };
    let max_tables = namespace_limit(&ns, MAX_TABLES)?;
    let max_regions = namespace_limit(&ns, MAX_REGIONS)?;
    if max_tables.is_none() && max_regions.is_none() {
        return Ok(());
    }
    let (tables, regions) = engine
        .tables()
        .values()
        .filter(|t| t.name.namespace() == ns.name)
        .fold((0u64, 0u64), |(n, r), t| {
            (n + 1, r + t.placed().len() as u64)
        });
    if let Some(max) = max_tables
        && new_table
        && tables + 1 > max
    {
        return Err(Error::QuotaExceeded(format!(
            "The table {table} cannot be created as it would exceed maximum number of tables \
             allowed in the namespace {}. The total number of tables permitted is {max}",
            ns.name
        )));
    }
    if let Some(max) = max_regions
        && regions + new_regions as u64 > max
    {
        return Err(Error::QuotaExceeded(format!(
            "The table {table} is not allowed to have {new_regions} more region(s). The total \
             number of regions permitted in namespace {} is only {max}, while current region \
             count is {regions}.",
            ns.name
        )));
    }
    Ok(())
}

/// The namespace properties that limit its tables and regions (HBase's).
pub const MAX_TABLES: &str = "hbase.namespace.quota.maxtables";
pub const MAX_REGIONS: &str = "hbase.namespace.quota.maxregions";

fn put_namespace_run(engine: &Master, ns: &NamespaceDescriptor, create: bool) -> Result<()> {
    let _ddl = engine.ddl();
    engine.check_open()?;
    validate_namespace_name(&ns.name)?;
    namespace_limit(ns, MAX_TABLES)?;
    namespace_limit(ns, MAX_REGIONS)?;
    match (create, engine.namespaces().contains_key(&ns.name)) {
        (true, true) => return Err(Error::NamespaceExists(ns.name.clone())),
        (false, false) => return Err(Error::NamespaceNotFound(ns.name.clone())),
        _ => {}
    }
    engine
        .meta_batch()
        .namespace(ns)
        .commit(engine.catalog().as_ref())?;
    engine.namespaces_mut().insert(ns.name.clone(), ns.clone());
    Ok(())
}

fn delete_namespace_run(engine: &Master, name: &str) -> Result<()> {
    let _ddl = engine.ddl();
    engine.check_open()?;
    if !engine.namespaces().contains_key(name) {
        return Err(Error::NamespaceNotFound(name.to_owned()));
    }
    if meta::builtin_namespaces().iter().any(|b| b.name == name) {
        return Err(Error::Refused(format!(
            "Reserved namespace {name} cannot be removed."
        )));
    }
    let tables = engine
        .tables()
        .keys()
        .filter(|t| t.namespace() == name)
        .count();
    if tables > 0 {
        return Err(Error::NamespaceNotEmpty {
            namespace: name.to_owned(),
            tables,
        });
    }
    engine
        .meta_batch()
        .delete_row(name.as_bytes().to_vec())
        .commit(engine.catalog().as_ref())?;
    engine.namespaces_mut().remove(name);
    layout::delete_dir(engine.fs.as_ref(), &engine.root.join("data").join(name))
}

/// Checks split keys as HBase does: none empty, none repeated; returns them sorted.
fn sorted_split_keys(keys: &[Bytes]) -> Result<Vec<Bytes>> {
    let mut sorted = keys.to_vec();
    sorted.sort();
    if sorted.first().is_some_and(|k| k.is_empty()) {
        return Err(Error::InvalidArgument(
            "Empty split key must not be passed in the split keys.".into(),
        ));
    }
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(Error::InvalidArgument(
            "All split keys must be unique, found duplicate".into(),
        ));
    }
    Ok(sorted)
}

fn create_table_run(
    engine: &Master,
    descriptor: TableDescriptor,
    split_keys: &[Bytes],
) -> Result<()> {
    let _ddl = engine.ddl();
    create_table_locked(engine, descriptor, split_keys, false)
}

/// Creates one of Basalt's own tables in the `hbase` namespace (`hbase:acl`), one region.
pub fn create_system_table(engine: &Master, descriptor: TableDescriptor) -> Result<()> {
    let _ddl = engine.ddl();
    create_table_locked(engine, descriptor, &[], true)
}

fn create_table_locked(
    engine: &Master,
    descriptor: TableDescriptor,
    split_keys: &[Bytes],
    system: bool,
) -> Result<()> {
    engine.check_open()?;
    descriptor.validate()?;
    let name = descriptor.name.clone();
    if name.namespace() == SYSTEM_NAMESPACE && !system {
        return Err(Error::Refused(format!(
            "cannot create {name}: the hbase namespace holds system tables only"
        )));
    }
    if !engine.namespaces().contains_key(name.namespace()) {
        return Err(Error::NamespaceNotFound(name.namespace().to_owned()));
    }
    if engine.tables().contains_key(&name) {
        return Err(Error::TableExists(name));
    }
    // A declared key layout pre-splits on its bucket boundaries unless splits are given.
    let layout_splits = match basalt_common::key_layout::KeyLayout::of(&descriptor.metadata)? {
        Some(layout) if split_keys.is_empty() => layout.split_keys(),
        _ => Vec::new(),
    };
    let keys = if layout_splits.is_empty() {
        sorted_split_keys(split_keys)?
    } else {
        layout_splits
    };
    check_namespace_quota(engine, &name, true, keys.len() + 1)?;
    let region_id = engine.clock.now_millis();
    let mut bounds = vec![Bytes::new()];
    bounds.extend(keys);
    bounds.push(Bytes::new());
    let infos: Vec<RegionInfo> = bounds
        .windows(2)
        .map(|w| RegionInfo::new(name.clone(), w[0].clone(), w[1].clone(), region_id))
        .collect();
    let fs = engine.fs.as_ref();
    // A directory left by a create that failed earlier in this run is written over: its
    // regions' directories have other names and go when the next open finds no owner.
    let table_dir = engine.table_dir(&name);
    let written = (|| {
        layout::write_descriptor(fs, &table_dir, &descriptor)?;
        let mut regions = Vec::new();
        for info in &infos {
            layout::write_region_info(fs, &engine.region_dir(info), info)?;
            let server = crate::rsgroup::pick_for(
                engine,
                &name,
                descriptor
                    .metadata
                    .get(basalt_common::rsgroup::GROUP_KEY)
                    .cloned(),
            )?;
            let seq_id = server.open_region(info)?;
            regions.push((engine.placed(info, &server), seq_id));
        }
        Ok(regions)
    })();
    let regions = match written {
        Ok(r) => r,
        Err(e) => {
            let _ = layout::delete_dir(fs, &table_dir);
            return Err(e);
        }
    };
    let mut batch = engine.meta_batch();
    for (placed, seq_id) in &regions {
        batch
            .region(&placed.info, "OPEN", placed.server.name())
            .opened(&placed.info, *seq_id);
    }
    batch.table_state(&name, TableState::Enabled);
    // A failed commit may still have reached the log (a write whose sync failed): the files
    // stay, and the next open keeps them if the log has the commit, deletes them if not.
    batch.commit(engine.catalog().as_ref())?;
    let regions = regions.into_iter().map(|(p, _)| p).collect();
    engine
        .tables_mut()
        .insert(name, HostedTable::new(descriptor, true, regions));
    Ok(())
}

fn set_enabled_run(engine: &Master, name: &TableName, enabled: bool) -> Result<()> {
    let _ddl = engine.ddl();
    let table = engine.table(name)?;
    refuse_system(name)?;
    if table.is_enabled() == enabled {
        return Err(if enabled {
            Error::TableNotDisabled(name.clone())
        } else {
            Error::TableNotEnabled(name.clone())
        });
    }
    let regions = table.placed();
    if !enabled {
        // Writes stop first; then the memstores go to files, so a disabled table holds
        // nothing in memory and needs nothing from the WAL.
        table.set_enabled(false);
        for r in &regions {
            if let Err(e) = r.server.flush_region(&r.info) {
                table.set_enabled(true);
                return Err(e);
            }
        }
    }
    let mut batch = engine.meta_batch();
    batch.table_state(
        name,
        if enabled {
            TableState::Enabled
        } else {
            TableState::Disabled
        },
    );
    for r in &regions {
        batch.region_state(&r.info, if enabled { "OPEN" } else { "CLOSED" });
    }
    if let Err(e) = batch.commit(engine.catalog().as_ref()) {
        table.set_enabled(!enabled);
        return Err(e);
    }
    // The region server serves an enabled table's regions and no disabled table's.
    for r in &regions {
        r.server.set_serving(&r.info, enabled)?;
    }
    table.set_enabled(enabled);
    Ok(())
}

/// Every meta row of `name`'s regions, serving or not.
pub(crate) fn region_rows(engine: &Master, name: &TableName) -> Result<Vec<meta::RegionRow>> {
    Ok(meta::read_regions(engine.catalog().as_ref())?
        .into_iter()
        .filter(|r| &r.info.table == name)
        .collect())
}

fn delete_table_run(engine: &Master, name: &TableName) -> Result<()> {
    let _ddl = engine.ddl();
    delete_table_locked(engine, name)
}

fn delete_table_locked(engine: &Master, name: &TableName) -> Result<()> {
    let table = engine.table(name)?;
    refuse_system(name)?;
    if table.is_enabled() {
        return Err(Error::TableNotDisabled(name.clone()));
    }
    let mut batch = engine.meta_batch();
    batch.delete_row(name.to_string().into_bytes());
    for row in region_rows(engine, name)? {
        batch.delete_row(row.info.region_name());
    }
    batch.commit(engine.catalog().as_ref())?;
    engine.tables_mut().remove(name);
    for r in table.placed() {
        r.server.drop_region(&r.info)?;
    }
    layout::delete_dir(engine.fs.as_ref(), &engine.table_dir(name))
}

fn truncate_table_run(engine: &Master, name: &TableName, preserve_splits: bool) -> Result<()> {
    let _ddl = engine.ddl();
    let table = engine.table(name)?;
    refuse_system(name)?;
    if table.is_enabled() {
        return Err(Error::TableNotDisabled(name.clone()));
    }
    let descriptor = (*table.descriptor()).clone();
    let splits: Vec<Bytes> = if preserve_splits {
        table
            .placed()
            .iter()
            .skip(1)
            .map(|r| r.info.start_key.clone())
            .collect()
    } else {
        Vec::new()
    };
    delete_table_locked(engine, name)?;
    create_table_locked(engine, descriptor, &splits, false)
}

/// Alters a table online: the new schema is written, then each region is closed (its
/// memstores flushed) and reopened with it. Requests to a region being reopened wait and
/// retry. Families the new schema drops are deleted from every region.
fn modify_table_run(engine: &Master, descriptor: TableDescriptor) -> Result<()> {
    let _ddl = engine.ddl();
    let name = descriptor.name.clone();
    let table = engine.table(&name)?;
    refuse_system(&name)?;
    descriptor.validate()?;
    let key = basalt_common::key_layout::METADATA_KEY;
    if table.descriptor().metadata.get(key) != descriptor.metadata.get(key) {
        return Err(Error::Refused(format!(
            "{key} of {name} cannot change: its rows are stored by it (copy the table into a \
             new one with the layout instead)"
        )));
    }
    layout::write_descriptor(engine.fs.as_ref(), &engine.table_dir(&name), &descriptor)?;
    table.set_descriptor(descriptor.clone());
    let placed = table.placed();
    let total = u32::try_from(placed.len()).unwrap_or(u32::MAX);
    table.set_altering(Some((total, total)));
    let reopened = (|| {
        for (done, old) in (1..).zip(&placed) {
            match old.server.reopen_region(&old.info) {
                Ok(_) => {
                    let new = engine.placed(&old.info, &old.server);
                    table.replace_regions(std::slice::from_ref(&old.info), vec![new]);
                }
                // A disabled table's region a cluster's server closed: it opens with the new
                // schema when the table is enabled.
                Err(Error::NotServingRegion(_)) if !table.is_enabled() => {}
                Err(e) => return Err(e),
            }
            table.set_altering(Some((total.saturating_sub(done), total)));
        }
        Ok(())
    })();
    table.set_altering(None);
    reopened
}

/// Flushes `hbase:meta`'s region: the master's own store (HBase's `flush_master_store`,
/// whose master keeps a local region; Basalt's master keeps its state in meta).
pub fn flush_meta(engine: &Master) -> Result<()> {
    let meta = engine.table(&TableName::parse("hbase:meta")?)?;
    for p in meta.placed() {
        p.server.flush_region(&p.info)?;
    }
    Ok(())
}

/// A new region id after `ids`: the time, but always larger than the parents' ids (HBase's
/// rule for daughters and merged regions).
pub(crate) fn next_region_id(engine: &Master, ids: &[i64]) -> i64 {
    let after = ids.iter().max().map_or(0, |m| m + 1);
    engine.clock.now_millis().max(after)
}

/// The start of every change to an online table's regions (split, merge, truncate): the DDL
/// lock, the master open, the table a user table. Its switch, if it has one, is the caller's
/// to check; then [`enabled`].
fn region_change<'a>(
    engine: &'a Master,
    table: &HostedTable,
) -> Result<crate::procedure_log::DdlGuard<'a>> {
    let ddl = engine.ddl();
    engine.check_open()?;
    refuse_system(&table.name)?;
    Ok(ddl)
}

/// TableNotEnabled unless the table serves.
fn enabled(table: &HostedTable) -> Result<()> {
    if table.is_enabled() {
        Ok(())
    } else {
        Err(Error::TableNotEnabled(table.name.clone()))
    }
}

/// The table's serving region that `info` names (not a region that has since split, merged
/// or been reopened away).
fn serving(table: &HostedTable, info: &RegionInfo) -> Result<Placed> {
    let current = table.placed_for(&info.start_key)?;
    if current.info != *info || current.region.as_ref().is_some_and(|r| r.is_closed()) {
        return Err(Error::NotServingRegion(
            String::from_utf8_lossy(&info.region_name()).into_owned(),
        ));
    }
    Ok(current)
}

/// Splits `parent` at `at` (or its split point) into two daughters that read its files
/// through references. The parent stops serving while the daughters are set up (a flush
/// and a few small files: no data is copied) and the meta commit makes the daughters the
/// serving regions.
fn split_region_run(
    engine: &Master,
    table: &Arc<HostedTable>,
    info: &RegionInfo,
    at: Option<Bytes>,
) -> Result<(RegionInfo, RegionInfo)> {
    let _ddl = region_change(engine, table)?;
    if !engine.split_on.load(std::sync::atomic::Ordering::Acquire) {
        return Err(Error::Refused(format!(
            "Split region {} failed due to split switch off",
            String::from_utf8_lossy(&info.region_name())
        )));
    }
    enabled(table)?;
    let parent = serving(table, info)?;
    check_namespace_quota(engine, &table.name, false, 1)?;
    if let Some(key) = &at
        && (!info.contains_row(key) || *key == info.start_key)
    {
        return Err(Error::InvalidArgument(format!(
            "split row {} is not inside region {} (or is its start row)",
            basalt_common::bytes_display::BinaryDisplay::new(key),
            String::from_utf8_lossy(&info.region_name())
        )));
    }
    let id = next_region_id(engine, &[info.region_id]);
    let server = &parent.server;
    // The region server's half: the parent closed, the daughters' files written.
    let daughters = server.split_region(info, at, id)?;
    let parents = std::slice::from_ref(info);
    // The master's half: one atomic catalog change.
    if let Err(e) = commit_split(engine, info, &daughters, server.name()) {
        // The commit may have reached the log all the same: the daughters' files stay for
        // the next open to keep or delete. Until then the parent serves what it holds.
        let _ = server.settle(parents, &[], false);
        return Err(e);
    }
    // Committed: the daughters are the table's regions now (after a crash too).
    let seq_ids = server.settle(parents, &daughters, true)?;
    serve_children(engine, table, server, parents, &daughters, &seq_ids);
    let [a, b] = daughters;
    Ok((a, b))
}

/// Puts a committed split's or merge's new regions in the table's map, replacing their
/// parents, and records the sequence ids they opened at.
fn serve_children(
    engine: &Master,
    table: &HostedTable,
    server: &Arc<dyn RegionServerAdmin>,
    parents: &[RegionInfo],
    children: &[RegionInfo],
    seq_ids: &[u64],
) {
    let opened = children.iter().map(|c| engine.placed(c, server)).collect();
    table.replace_regions(parents, opened);
    let mut batch = engine.meta_batch();
    for (info, seq_id) in children.iter().zip(seq_ids) {
        batch.opened(info, *seq_id);
    }
    // Only informational: a failure here leaves the regions serving.
    let _ = batch.commit(engine.catalog().as_ref());
}

/// Merges two adjacent regions of a table into one that reads both parents' files through
/// references.
fn merge_regions_run(
    engine: &Master,
    table: &Arc<HostedTable>,
    first: &RegionInfo,
    second: &RegionInfo,
) -> Result<RegionInfo> {
    let _ddl = region_change(engine, table)?;
    if !engine.merge_on.load(std::sync::atomic::Ordering::Acquire) {
        return Err(Error::Refused(
            "Merge of regions failed due to merge switch off".into(),
        ));
    }
    enabled(table)?;
    if !table.descriptor().merge_enabled {
        return Err(Error::Refused(format!(
            "Merge is disabled for table {} (MERGE_ENABLED false)",
            table.name
        )));
    }
    let (lo, hi) = if first.start_key <= second.start_key {
        (first, second)
    } else {
        (second, first)
    };
    serving(table, lo)?;
    serving(table, hi)?;
    if lo == hi || lo.end_key != hi.start_key {
        return Err(Error::Refused(format!(
            "Regions {} and {} are not adjacent",
            String::from_utf8_lossy(&lo.region_name()),
            String::from_utf8_lossy(&hi.region_name())
        )));
    }
    merge_checked(engine, table, lo, hi)
}

/// Empties a region of an enabled table (HBase 2.6's TruncateRegionProcedure): a fresh
/// region over the same rows, under a new id, is opened on the same server, one catalog
/// change puts it in the old one's place, and the old one is dropped with its directory. Before
/// the catalog change a crash leaves the old region serving (the fresh one's directory has no
/// owner and goes at the next open); after it, the fresh one. Writes the old region took
/// during the call may go with it.
fn truncate_region_run(
    engine: &Master,
    table: &Arc<HostedTable>,
    info: &RegionInfo,
) -> Result<RegionInfo> {
    let _ddl = region_change(engine, table)?;
    enabled(table)?;
    let old = serving(table, info)?;
    let id = next_region_id(engine, &[info.region_id]);
    let fresh = RegionInfo::new(
        info.table.clone(),
        info.start_key.clone(),
        info.end_key.clone(),
        id,
    );
    let fs = engine.fs.as_ref();
    let server = &old.server;
    let opened = layout::write_region_info(fs, &engine.region_dir(&fresh), &fresh)
        .and_then(|()| server.open_region(&fresh));
    let seq_id = match opened {
        Ok(seq_id) => seq_id,
        Err(e) => {
            let _ = layout::delete_dir(fs, &engine.region_dir(&fresh));
            return Err(e);
        }
    };
    let mut batch = engine.meta_batch();
    batch
        .delete_row(info.region_name())
        .region(&fresh, "OPEN", server.name())
        .opened(&fresh, seq_id);
    if let Err(e) = batch.commit(engine.catalog().as_ref()) {
        let _ = server.drop_region(&fresh);
        return Err(e);
    }
    table.replace_regions(
        std::slice::from_ref(info),
        vec![engine.placed(&fresh, server)],
    );
    server.drop_region(info)?;
    // Snapshots keep their files by hard link: the old files can go with their directory.
    layout::delete_dir(fs, &engine.region_dir(info))?;
    Ok(fresh)
}

/// Merges two regions of a table whose rows overlap (an inconsistency `hbck` finds) into
/// one over both ranges, which reads both parents' files through references (HBCK2's
/// `fixMeta`). The caller holds no DDL lock.
fn merge_overlapping_run(
    engine: &Master,
    table: &Arc<HostedTable>,
    first: &RegionInfo,
    second: &RegionInfo,
) -> Result<RegionInfo> {
    let _ddl = region_change(engine, table)?;
    enabled(table)?;
    let (lo, hi) = if first.start_key <= second.start_key {
        (first, second)
    } else {
        (second, first)
    };
    serving(table, lo)?;
    serving(table, hi)?;
    if lo == hi || !(lo.end_key.is_empty() || hi.start_key < lo.end_key) {
        return Err(Error::Refused(format!(
            "Regions {} and {} do not overlap",
            String::from_utf8_lossy(&lo.region_name()),
            String::from_utf8_lossy(&hi.region_name())
        )));
    }
    merge_checked(engine, table, lo, hi)
}

/// A merge of `lo` and `hi` (checked by the caller, holding the DDL lock) into one region
/// from `lo`'s start to the later of their ends.
fn merge_checked(
    engine: &Master,
    table: &Arc<HostedTable>,
    lo: &RegionInfo,
    hi: &RegionInfo,
) -> Result<RegionInfo> {
    let parents = [serving(table, lo)?, serving(table, hi)?];
    let end_key = if lo.end_key.is_empty() || hi.end_key.is_empty() {
        Bytes::new()
    } else {
        lo.end_key.clone().max(hi.end_key.clone())
    };
    let id = next_region_id(engine, &[lo.region_id, hi.region_id]);
    let merged = RegionInfo::new(lo.table.clone(), lo.start_key.clone(), end_key, id);
    let server = &parents[0].server;
    if parents[1].server.name() != server.name() {
        // As HBase's merge does: the second region moves to the first's server first.
        crate::balancer::move_locked(engine, hi, server)?;
    }
    // The region server's half: both parents closed, the merged region's files written.
    server.merge_regions(lo, hi, &merged)?;
    let infos = [lo.clone(), hi.clone()];
    // The master's half: one atomic catalog change.
    if let Err(e) = commit_merge(engine, [lo, hi], &merged, server.name()) {
        // As for a split: the merged region's files stay for the next open to judge.
        let _ = server.settle(&infos, &[], false);
        return Err(e);
    }
    let children = std::slice::from_ref(&merged);
    let seq_ids = server.settle(&infos, children, true)?;
    serve_children(engine, table, server, &infos, children, &seq_ids);
    Ok(merged)
}

/// The master's half of a split: in one `hbase:meta` mutation, the parent becomes an offline
/// split parent naming its daughters, and the daughters serving regions on the region server
/// that prepared them. Before it, a crash leaves the parent as it was (the next open deletes
/// the daughters' directories); after it, the daughters (the next open opens them).
pub fn commit_split(
    engine: &Master,
    parent: &RegionInfo,
    [a, b]: &[RegionInfo; 2],
    server: &ServerName,
) -> Result<()> {
    let mut batch = engine.meta_batch();
    batch
        .split_parent(parent, a, b)
        .region(a, "OPEN", server)
        .region(b, "OPEN", server);
    batch.commit(engine.catalog().as_ref())
}

/// The master's half of a merge, as [`commit_split`]'s: the parents' rows go and the merged
/// region's arrives, naming its parents (for the janitor), in one mutation.
pub fn commit_merge(
    engine: &Master,
    [lo, hi]: [&RegionInfo; 2],
    merged: &RegionInfo,
    server: &ServerName,
) -> Result<()> {
    let mut batch = engine.meta_batch();
    batch
        .delete_row(lo.region_name())
        .delete_row(hi.region_name())
        .region(merged, "OPEN", server)
        .merge_parents(merged, &[lo, hi]);
    batch.commit(engine.catalog().as_ref())
}

/// Deletes split and merge parents that no serving region reads any more (HBase's
/// CatalogJanitor): their directories, then their catalog entries. Returns how many went.
pub fn clean_parents(engine: &Master) -> Result<usize> {
    let _ddl = engine.ddl();
    engine.check_open()?;
    let rows = meta::read_regions(engine.catalog().as_ref())?;
    let placed: Vec<Placed> = engine
        .tables()
        .values()
        .filter(|t| !t.name.is_system())
        .flat_map(|t| t.placed())
        .collect();
    // What the serving regions read of their parents: from the open region where it is in
    // this process, else from its store files' names on the shared storage.
    let mut referenced = BTreeSet::new();
    for p in &placed {
        match &p.region {
            Some(r) => referenced.extend(r.referenced_parents()),
            None => referenced.extend(basalt_region::parents_on_disk(
                engine.fs.as_ref(),
                &engine.region_dir(&p.info),
            )?),
        }
    }
    let serving: BTreeSet<String> = placed.iter().map(|p| p.info.encoded_name()).collect();
    // A child meta lists as serving but that is not open (it failed to open) may still need
    // its parents' files: nothing is cleaned on its behalf.
    let unsure = |child: &RegionInfo| {
        let encoded = child.encoded_name();
        !serving.contains(&encoded)
            && rows
                .iter()
                .any(|r| r.info.encoded_name() == encoded && r.is_serving())
    };
    let fs = engine.fs.as_ref();
    let mut cleaned = 0;
    for row in &rows {
        if row.info.split
            && !referenced.contains(&row.info.encoded_name())
            && !row.daughters.iter().any(unsure)
        {
            layout::mark_disposable(fs, &engine.region_dir(&row.info))?;
            engine
                .meta_batch()
                .delete_row(row.info.region_name())
                .commit(engine.catalog().as_ref())?;
            layout::delete_dir(fs, &engine.region_dir(&row.info))?;
            cleaned += 1;
        }
        if !row.merge_parents.is_empty()
            && !unsure(&row.info)
            && row
                .merge_parents
                .iter()
                .all(|p| !referenced.contains(&p.encoded_name()))
        {
            for p in &row.merge_parents {
                layout::mark_disposable(fs, &engine.region_dir(p))?;
            }
            engine
                .meta_batch()
                .clear_merge_parents(&row.info, row.merge_parents.len())
                .commit(engine.catalog().as_ref())?;
            for p in &row.merge_parents {
                layout::delete_dir(fs, &engine.region_dir(p))?;
            }
            cleaned += row.merge_parents.len();
        }
    }
    Ok(cleaned)
}

/// [`put_namespace_run`] as a recorded procedure (`procedure_log`).
pub fn put_namespace(engine: &Master, ns: &NamespaceDescriptor, create: bool) -> Result<()> {
    let params = vec![("namespace".into(), ns.name.clone())];
    engine.procedure_log.track(
        "CreateNamespaceProcedure",
        Resource::Namespace(ns.name.clone()),
        params,
        || put_namespace_run(engine, ns, create),
    )
}

/// [`delete_namespace_run`] as a recorded procedure (`procedure_log`).
pub fn delete_namespace(engine: &Master, name: &str) -> Result<()> {
    let params = vec![("namespace".into(), name.to_owned())];
    engine.procedure_log.track(
        "DeleteNamespaceProcedure",
        Resource::Namespace(name.to_owned()),
        params,
        || delete_namespace_run(engine, name),
    )
}

/// [`create_table_run`] as a recorded procedure (`procedure_log`).
pub fn create_table(
    engine: &Master,
    descriptor: TableDescriptor,
    split_keys: &[Bytes],
) -> Result<()> {
    let params = vec![
        ("table".into(), descriptor.name.to_string()),
        ("regions".into(), (split_keys.len() + 1).to_string()),
    ];
    engine.procedure_log.track(
        "CreateTableProcedure",
        Resource::Table(descriptor.name.to_string()),
        params,
        || create_table_run(engine, descriptor, split_keys),
    )
}

/// [`set_enabled_run`] as a recorded procedure (`procedure_log`).
pub fn set_enabled(engine: &Master, name: &TableName, enabled: bool) -> Result<()> {
    let params = vec![("table".into(), name.to_string())];
    engine.procedure_log.track(
        if enabled {
            "EnableTableProcedure"
        } else {
            "DisableTableProcedure"
        },
        Resource::Table(name.to_string()),
        params,
        || set_enabled_run(engine, name, enabled),
    )
}

/// [`delete_table_run`] as a recorded procedure (`procedure_log`).
pub fn delete_table(engine: &Master, name: &TableName) -> Result<()> {
    let params = vec![("table".into(), name.to_string())];
    engine.procedure_log.track(
        "DeleteTableProcedure",
        Resource::Table(name.to_string()),
        params,
        || delete_table_run(engine, name),
    )
}

/// [`truncate_table_run`] as a recorded procedure (`procedure_log`).
pub fn truncate_table(engine: &Master, name: &TableName, preserve_splits: bool) -> Result<()> {
    let params = vec![
        ("table".into(), name.to_string()),
        ("preserveSplits".into(), preserve_splits.to_string()),
    ];
    engine.procedure_log.track(
        "TruncateTableProcedure",
        Resource::Table(name.to_string()),
        params,
        || truncate_table_run(engine, name, preserve_splits),
    )
}

/// [`modify_table_run`] as a recorded procedure (`procedure_log`).
pub fn modify_table(engine: &Master, descriptor: TableDescriptor) -> Result<()> {
    let params = vec![("table".into(), descriptor.name.to_string())];
    engine.procedure_log.track(
        "ModifyTableProcedure",
        Resource::Table(descriptor.name.to_string()),
        params,
        || modify_table_run(engine, descriptor),
    )
}

/// [`split_region_run`] as a recorded procedure (`procedure_log`).
pub fn split_region(
    engine: &Master,
    table: &Arc<HostedTable>,
    info: &RegionInfo,
    at: Option<Bytes>,
) -> Result<(RegionInfo, RegionInfo)> {
    let params = vec![("region".into(), info.encoded_name())];
    engine.procedure_log.track(
        "SplitTableRegionProcedure",
        Resource::Region(info.encoded_name()),
        params,
        || split_region_run(engine, table, info, at),
    )
}

/// [`truncate_region_run`] as a recorded procedure (`procedure_log`).
pub fn truncate_region(
    engine: &Master,
    table: &Arc<HostedTable>,
    info: &RegionInfo,
) -> Result<RegionInfo> {
    let params = vec![("region".into(), info.encoded_name())];
    engine.procedure_log.track(
        "TruncateRegionProcedure",
        Resource::Region(info.encoded_name()),
        params,
        || truncate_region_run(engine, table, info),
    )
}

/// [`merge_regions_run`] as a recorded procedure (`procedure_log`).
pub fn merge_regions(
    engine: &Master,
    table: &Arc<HostedTable>,
    first: &RegionInfo,
    second: &RegionInfo,
) -> Result<RegionInfo> {
    let params = vec![(
        "regions".into(),
        format!("{}, {}", first.encoded_name(), second.encoded_name()),
    )];
    engine.procedure_log.track(
        "MergeTableRegionsProcedure",
        Resource::Region(first.encoded_name()),
        params,
        || merge_regions_run(engine, table, first, second),
    )
}

/// [`merge_overlapping_run`] as a recorded procedure (`procedure_log`).
pub fn merge_overlapping(
    engine: &Master,
    table: &Arc<HostedTable>,
    first: &RegionInfo,
    second: &RegionInfo,
) -> Result<RegionInfo> {
    let params = vec![
        (
            "regions".into(),
            format!("{}, {}", first.encoded_name(), second.encoded_name()),
        ),
        ("overlapping".into(), "true".into()),
    ];
    engine.procedure_log.track(
        "MergeTableRegionsProcedure",
        Resource::Region(first.encoded_name()),
        params,
        || merge_overlapping_run(engine, table, first, second),
    )
}
