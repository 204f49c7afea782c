//! `hbase:quota`, where quotas are kept (HBase's rows and qualifiers,
//! `basalt_common::quota::Subject::row_and_qualifier`; values "PBUF" + Quotas; tables' and
//! namespaces' space snapshots in `u:p`). Made when the first quota is set. Its regions are in
//! the master's own process (standalone) or on the cluster's region servers, which the
//! master writes through their ClientService. Also the quota switches (marker files on the
//! shared storage) and the space quota observer (HBase's QuotaObserverChore).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, PoisonError};

use basalt_common::quota::{
    Change, QUOTA_FAMILY, QUOTA_TABLE, QuotaState, Quotas, SpacePolicy, SpaceSnapshot, SpaceUse,
    Subject, USAGE_FAMILY,
};
use basalt_common::{
    Bytes, ColumnFamilyDescriptor, Delete, Error, Put, Result, TableDescriptor, TableName,
};
use basalt_layout::{EXCEED_THROTTLE_ON, RPC_THROTTLE_OFF};
use basalt_proto::quota::{quotas_data, quotas_from_data, snapshot_of, snapshot_pb};
use basalt_region::RowMutation;
use prost::Message;
use std::sync::atomic::Ordering;

use crate::master::{Master, Placed};
use crate::meta::MetaStore;
use crate::procedures;

fn quota_table() -> Result<TableName> {
    TableName::parse(QUOTA_TABLE)
}

fn rows_of(placed: &Placed) -> Result<Arc<dyn MetaStore>> {
    match &placed.region {
        Some(region) => Ok(Arc::clone(region) as Arc<dyn MetaStore>),
        None => placed.server.rows(&placed.info),
    }
}

/// Makes `hbase:quota` (families `q`, settings, and `u`, usage) if it is missing.
pub fn ensure_table(master: &Master) -> Result<()> {
    let name = quota_table()?;
    if master.tables().contains_key(&name) {
        return Ok(());
    }
    let descriptor = TableDescriptor::new(name)
        .with_family(
            ColumnFamilyDescriptor::new(Bytes::from_static(QUOTA_FAMILY)).with_max_versions(1),
        )
        .with_family(
            ColumnFamilyDescriptor::new(Bytes::from_static(USAGE_FAMILY)).with_max_versions(1),
        );
    procedures::create_system_table(master, descriptor)
}

/// Every subject's stored quotas (none before the first is set), as last read: the
/// table is read again only after a change.
pub fn list(master: &Master) -> Result<Vec<(Subject, Quotas)>> {
    if let Some(known) = master
        .quotas
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
    {
        return Ok(known);
    }
    let read = read_all(master)?;
    *master.quotas.lock().unwrap_or_else(PoisonError::into_inner) = Some(read.clone());
    Ok(read)
}

/// Every subject's quotas as `hbase:quota` holds them now.
fn read_all(master: &Master) -> Result<Vec<(Subject, Quotas)>> {
    let Ok(table) = master.table(&quota_table()?) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for placed in table.placed() {
        for row in rows_of(&placed)?.scan_family(QUOTA_FAMILY)? {
            for cell in &row.cells {
                let (r, q) = (
                    String::from_utf8_lossy(cell.row()),
                    String::from_utf8_lossy(cell.qualifier()),
                );
                if let Some(subject) = Subject::from_row_and_qualifier(&r, &q) {
                    out.push((subject, quotas_from_data(cell.value())?));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Applies `change` to `subject`'s quotas (the master's quota call): a throttle set,
/// removed, or the bypass of global quotas switched. A subject left with nothing has its cell
/// deleted. The table or namespace named must exist.
pub fn set(master: &Master, subject: &Subject, change: &Change) -> Result<()> {
    match subject {
        Subject::Table(t) | Subject::UserOnTable(_, t) => {
            master.table(t)?;
        }
        Subject::Namespace(ns) | Subject::UserOnNamespace(_, ns) => {
            if !master.namespaces().contains_key(ns) {
                return Err(Error::NamespaceNotFound(ns.clone()));
            }
        }
        Subject::User(_) | Subject::RegionServer(_) => {}
    }
    if let Change::BypassGlobals(_) = change
        && !matches!(subject, Subject::User(_))
    {
        return Err(Error::InvalidArgument(
            "GLOBAL_BYPASS is for a USER alone".into(),
        ));
    }
    if let Change::Space(_) | Change::Unspace = change
        && !matches!(subject, Subject::Table(_) | Subject::Namespace(_))
    {
        return Err(Error::InvalidArgument(
            "a space quota is for a TABLE or a NAMESPACE".into(),
        ));
    }
    ensure_table(master)?;
    let mut quotas = read_all(master)?
        .into_iter()
        .find(|(s, _)| s == subject)
        .map(|(_, q)| q)
        .unwrap_or_default();
    match change {
        Change::Throttle(t) => quotas.set(*t),
        Change::Unthrottle(kinds) => quotas.remove(kinds),
        Change::BypassGlobals(on) => quotas.bypass_globals = *on,
        Change::Space(q) => quotas.space = Some(*q),
        Change::Unspace => quotas.space = None,
    }
    let (row, qualifier) = subject.row_and_qualifier();
    let placed = master.table(&quota_table()?)?.placed_for(row.as_bytes())?;
    let rows = rows_of(&placed)?;
    // Stamped past every cell and marker there, as meta's changes are: a quota set again in
    // the millisecond its removal was written is not hidden by the removal's marker.
    let stamp = master.clock.now_millis().max(rows.newest_timestamp()? + 1);
    let mutation = if quotas.is_empty() {
        RowMutation::Delete(Delete::new(row.clone()).add_columns_at(
            Bytes::from_static(QUOTA_FAMILY),
            qualifier,
            stamp,
        ))
    } else {
        RowMutation::Put(Put::new(row.clone()).add_column_at(
            Bytes::from_static(QUOTA_FAMILY),
            qualifier,
            stamp,
            quotas_data(&quotas),
        ))
    };
    let written = rows.mutate_rows(&[mutation]);
    // Read again on next use, whether the write went through or not.
    *master.quotas.lock().unwrap_or_else(PoisonError::into_inner) = None;
    written
}

/// Writes a switch's marker file (present or not) on the shared storage, where every
/// master looks when it starts.
fn set_marker(master: &Master, name: &str, present: bool) -> Result<()> {
    let path = master.root.join(name);
    if present {
        basalt_fs::write_atomically(master.fs.as_ref(), &path, b"").map_err(basalt_layout::storage)
    } else {
        match master.fs.delete(&path) {
            Ok(()) | Err(basalt_fs::FsError::NotFound(_)) => Ok(()),
            Err(e) => Err(basalt_layout::storage(e)),
        }
    }
}

/// Whether RPC throttles are enforced (HBase's `rpc_throttle_enabled`).
pub fn rpc_throttle_enabled(master: &Master) -> bool {
    master.rpc_throttle_on.load(Ordering::Acquire)
}

/// Switches RPC throttles on or off (`enable_rpc_throttle`); returns whether they were on.
pub fn switch_rpc_throttle(master: &Master, on: bool) -> Result<bool> {
    set_marker(master, RPC_THROTTLE_OFF, !on)?;
    Ok(master.rpc_throttle_on.swap(on, Ordering::AcqRel))
}

/// Whether a REGIONSERVER throttle exists to bound the throttles exceeded.
pub fn bounded(master: &Master) -> Result<bool> {
    Ok(list(master)?
        .iter()
        .any(|(s, q)| matches!(s, Subject::RegionServer(_)) && !q.throttles.is_empty()))
}

/// Whether user, table and namespace throttles may be exceeded while the region server's own
/// throttle has room (HBase's exceed throttle quota).
pub fn exceed_throttle_enabled(master: &Master) -> bool {
    master.exceed_throttle_on.load(Ordering::Acquire)
}

/// Switches exceeding throttles on or off (`enable_exceed_throttle_quota`); returns whether
/// it was on. The caller checks that a REGIONSERVER throttle bounds it ([`bounded`]).
pub fn switch_exceed_throttle(master: &Master, on: bool) -> Result<bool> {
    set_marker(master, EXCEED_THROTTLE_ON, on)?;
    Ok(master.exceed_throttle_on.swap(on, Ordering::AcqRel))
}

/// What every server needs to enforce quotas now.
pub fn state(master: &Master) -> Result<QuotaState> {
    let violations = master
        .space_use
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .violations();
    Ok(QuotaState {
        quotas: list(master)?,
        rpc_throttle: rpc_throttle_enabled(master),
        exceed_throttle: exceed_throttle_enabled(master),
        violations,
    })
}

/// Every open region's store file bytes, by region name, as the live servers report them (a
/// server that does not answer now leaves its tables' sizes as they were).
fn region_bytes(master: &Master) -> HashMap<Vec<u8>, u64> {
    master
        .servers
        .region_loads()
        .into_iter()
        .map(|(name, load)| {
            let bytes = load
                .store_file_bytes
                .unwrap_or(u64::from(load.storefile_size_mb.unwrap_or(0)) << 20);
            (name, bytes)
        })
        .collect()
}

/// Each user table's store file bytes (HBase's `list_quota_table_sizes`). A table with a
/// region no live server reports (disabled, or in transition) keeps the size in `before`,
/// if there is one.
pub fn table_sizes(master: &Master, before: &BTreeMap<TableName, u64>) -> BTreeMap<TableName, u64> {
    let reported = region_bytes(master);
    let mut out = BTreeMap::new();
    for (name, table) in master.tables().iter() {
        if name.namespace() == basalt_common::table_name::SYSTEM_NAMESPACE {
            continue;
        }
        let mut total = 0;
        let mut complete = true;
        for placed in table.placed() {
            match reported.get(&placed.info.region_name()[..]) {
                Some(bytes) => total += bytes,
                None => complete = false,
            }
        }
        let size = match (complete, before.get(name)) {
            (false, Some(old)) => *old,
            _ => total,
        };
        out.insert(name.clone(), size);
    }
    out
}

/// The space snapshots stored in `hbase:quota` (`u:p`), by row key.
fn stored_snapshots(master: &Master) -> Result<BTreeMap<String, SpaceSnapshot>> {
    let Ok(table) = master.table(&quota_table()?) else {
        return Ok(BTreeMap::new());
    };
    let mut out = BTreeMap::new();
    for placed in table.placed() {
        for row in rows_of(&placed)?.scan_family(USAGE_FAMILY)? {
            for cell in row.cells.iter().filter(|c| c.qualifier() == b"p") {
                let message =
                    basalt_proto::pb::SpaceQuotaSnapshot::decode(cell.value()).map_err(|e| {
                        Error::corrupt(format!("a space snapshot does not decode: {e}"))
                    })?;
                out.insert(
                    String::from_utf8_lossy(cell.row()).into_owned(),
                    snapshot_of(&message)?,
                );
            }
        }
    }
    Ok(out)
}

/// Works out every table's and namespace's space use against the space quotas (HBase's
/// QuotaObserverChore), keeps it for [`state`], stores changed snapshots in `hbase:quota`,
/// and disables (or enables again) the tables a DISABLE policy names. The first run after a
/// master starts reads the stored snapshots, so a table the policy disabled stays so.
pub fn observe_space(master: &Master) -> Result<()> {
    let quotas = list(master)?;
    let before = master
        .space_use
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let any_space = quotas.iter().any(|(_, q)| q.space.is_some());
    if !any_space && before.tables.is_empty() && before.namespaces.is_empty() {
        return Ok(());
    }
    let mut previous = before.tables.clone();
    let mut sizes_before = before.sizes.clone();
    if before == SpaceUse::default() {
        for (row, snapshot) in stored_snapshots(master)? {
            if let Some(t) = row
                .strip_prefix("t.")
                .and_then(|t| TableName::parse(t).ok())
            {
                sizes_before.insert(t.clone(), snapshot.usage);
                previous.insert(t, snapshot);
            }
        }
    }
    let sizes = table_sizes(master, &sizes_before);
    let now = SpaceUse::observe(sizes, &quotas);
    // A DISABLE policy disables the table; it is enabled again once it is no longer over.
    for (table, snapshot) in &now.tables {
        if snapshot.in_violation
            && snapshot.policy == SpacePolicy::Disable
            && master.table(table).is_ok_and(|t| t.is_enabled())
        {
            crate::procedures::set_enabled(master, table, false)?;
        }
    }
    for (table, old) in &previous {
        let lifted = now.tables.get(table).is_none_or(|s| !s.in_violation);
        if old.in_violation
            && old.policy == SpacePolicy::Disable
            && lifted
            && master.table(table).is_ok_and(|t| !t.is_enabled())
        {
            crate::procedures::set_enabled(master, table, true)?;
        }
    }
    store_snapshots(master, &before, &previous, &now)?;
    *master
        .space_use
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = now;
    Ok(())
}

/// Writes the snapshots that changed to `u:p`, and deletes those of tables and namespaces no
/// longer under a space quota.
fn store_snapshots(
    master: &Master,
    before: &SpaceUse,
    previous: &BTreeMap<TableName, SpaceSnapshot>,
    now: &SpaceUse,
) -> Result<()> {
    let Ok(table) = master.table(&quota_table()?) else {
        return Ok(());
    };
    let usage = || Bytes::from_static(USAGE_FAMILY);
    let mut mutations = Vec::new();
    let mut write =
        |row: String, old: Option<&SpaceSnapshot>, new: Option<&SpaceSnapshot>| match (old, new) {
            (Some(o), Some(n)) if o == n => {}
            (_, Some(n)) => mutations.push(RowMutation::Put(Put::new(row).add_column(
                usage(),
                Bytes::from_static(b"p"),
                snapshot_pb(n).encode_to_vec(),
            ))),
            (Some(_), None) => mutations.push(RowMutation::Delete(
                Delete::new(row).add_columns(usage(), Bytes::from_static(b"p")),
            )),
            (None, None) => {}
        };
    let tables: std::collections::BTreeSet<_> = previous.keys().chain(now.tables.keys()).collect();
    for name in tables {
        write(
            format!("t.{name}"),
            previous.get(name),
            now.tables.get(name),
        );
    }
    let namespaces: std::collections::BTreeSet<_> = before
        .namespaces
        .keys()
        .chain(now.namespaces.keys())
        .collect();
    for name in namespaces {
        write(
            format!("n.{name}"),
            before.namespaces.get(name),
            now.namespaces.get(name),
        );
    }
    for m in mutations {
        let row = match &m {
            RowMutation::Put(p) => p.row.clone(),
            RowMutation::Delete(d) => d.row.clone(),
        };
        rows_of(&table.placed_for(&row)?)?.mutate_rows(&[m])?;
    }
    Ok(())
}
