//! Changing region server groups (HBase's RSGroupAdmin): adding, removing and renaming groups,
//! moving servers, tables and namespaces between them (the regions follow at once), removing
//! servers that are gone, and each group's configuration. Where regions may go is
//! `rsgroup`'s; the balancer keeps them there (`docs/design/rsgroups.md`).

use std::collections::BTreeSet;
use std::sync::Arc;

use basalt_common::rsgroup::{
    DEFAULT_GROUP, GROUP_KEY, RsGroup, RsGroupChange, RsGroupInfo, address, check_name,
};
use basalt_common::{Error, Result, TableName};
use basalt_layout as layout;

use crate::master::{HostedTable, Master};
use crate::rsgroup;

/// Every group (`default` first), with its servers, tables and namespaces.
pub fn list(master: &Master) -> Result<Vec<RsGroupInfo>> {
    let groups = rsgroup::groups(master)?;
    let mut out = vec![RsGroupInfo {
        name: DEFAULT_GROUP.to_owned(),
        servers: master
            .servers
            .all()
            .iter()
            .map(|s| s.name().host_port.clone())
            .filter(|a| rsgroup::group_of_server(&groups, a) == DEFAULT_GROUP)
            .collect(),
        ..RsGroupInfo::default()
    }];
    let mut named = groups.clone();
    named.sort_by(|a, b| a.name.cmp(&b.name));
    out.extend(named.into_iter().map(|g| RsGroupInfo {
        name: g.name,
        servers: g.servers.into_iter().collect(),
        config: g.config,
        ..RsGroupInfo::default()
    }));
    for name in master.tables().keys() {
        let group = rsgroup::group_of_table(master, &groups, name);
        if let Some(info) = out.iter_mut().find(|g| g.name == group) {
            info.tables.push(name.clone());
        }
    }
    for ns in master.namespaces().values() {
        if let Some(group) = ns.configuration.get(GROUP_KEY)
            && let Some(info) = out.iter_mut().find(|g| g.name == *group)
        {
            info.namespaces.push(ns.name.clone());
        }
    }
    Ok(out)
}

/// The group named `name`, `default` included.
fn known(groups: &[RsGroup], name: &str) -> Result<()> {
    if name == DEFAULT_GROUP || groups.iter().any(|g| g.name == name) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "RSGroup {name} does not exist"
        )))
    }
}

/// Applies a change to the groups; regions move as it asks before it returns.
pub fn change(master: &Master, change: &RsGroupChange) -> Result<()> {
    master.check_open()?;
    match change {
        RsGroupChange::Add(name) => {
            check_name(name)?;
            let _ddl = master.ddl();
            let mut groups = rsgroup::groups(master)?;
            if name == DEFAULT_GROUP || groups.iter().any(|g| g.name == *name) {
                return Err(Error::Refused(format!("RSGroup {name} already exists")));
            }
            groups.push(RsGroup {
                name: name.clone(),
                ..RsGroup::default()
            });
            rsgroup::save(master, groups)
        }
        RsGroupChange::Remove(name) => remove(master, name),
        RsGroupChange::Rename { from, to } => rename(master, from, to),
        RsGroupChange::MoveServers { to, servers } => move_servers(master, to, servers),
        RsGroupChange::MoveTables { to, tables } => move_tables(master, to, tables),
        RsGroupChange::MoveNamespaces { to, namespaces } => move_namespaces(master, to, namespaces),
        RsGroupChange::RemoveServers(servers) => remove_servers(master, servers),
        RsGroupChange::Configure { name, config } => {
            let _ddl = master.ddl();
            let mut groups = rsgroup::groups(master)?;
            if name == DEFAULT_GROUP {
                return Err(Error::Refused(
                    "the default RSGroup has no configuration of its own: its servers' is theirs"
                        .into(),
                ));
            }
            let group = groups
                .iter_mut()
                .find(|g| g.name == *name)
                .ok_or_else(|| Error::InvalidArgument(format!("RSGroup {name} does not exist")))?;
            group.config = config.clone();
            rsgroup::save(master, groups)
        }
    }
}

fn remove(master: &Master, name: &str) -> Result<()> {
    let _ddl = master.ddl();
    let mut groups = rsgroup::groups(master)?;
    if name == DEFAULT_GROUP {
        return Err(Error::Refused(
            "the default RSGroup cannot be removed".into(),
        ));
    }
    known(&groups, name)?;
    let info = list(master)?
        .into_iter()
        .find(|g| g.name == name)
        .unwrap_or_default();
    if !info.servers.is_empty() {
        return Err(Error::Refused(format!(
            "RSGroup {name} has {} servers; you must remove these servers from the RSGroup \
             before the RSGroup can be removed.",
            info.servers.len()
        )));
    }
    if let Some(t) = info.tables.first() {
        return Err(Error::Refused(format!(
            "RSGroup {name} is referenced by table {t}; move its tables out before the RSGroup \
             can be removed."
        )));
    }
    if let Some(ns) = info.namespaces.first() {
        return Err(Error::Refused(format!(
            "RSGroup {name} is referenced by namespace {ns}; move its namespaces out before \
             the RSGroup can be removed."
        )));
    }
    groups.retain(|g| g.name != name);
    rsgroup::save(master, groups)
}

/// Renames a group, and every table and namespace that names it.
fn rename(master: &Master, from: &str, to: &str) -> Result<()> {
    check_name(to)?;
    let _ddl = master.ddl();
    let mut groups = rsgroup::groups(master)?;
    if from == DEFAULT_GROUP {
        return Err(Error::Refused(
            "the default RSGroup cannot be renamed".into(),
        ));
    }
    known(&groups, from)?;
    if to == DEFAULT_GROUP || groups.iter().any(|g| g.name == to) {
        return Err(Error::Refused(format!("RSGroup {to} already exists")));
    }
    let info = list(master)?
        .into_iter()
        .find(|g| g.name == from)
        .unwrap_or_default();
    // Under the DDL lock, as every placement: no region is placed while the names differ.
    for ns in &info.namespaces {
        set_namespace_group(master, ns, to)?;
    }
    for t in &info.tables {
        let table = master.table(t)?;
        if table
            .descriptor()
            .metadata
            .get(GROUP_KEY)
            .map(String::as_str)
            == Some(from)
        {
            set_table_group(master, &table, to)?;
        }
    }
    if let Some(g) = groups.iter_mut().find(|g| g.name == from) {
        g.name = to.to_owned();
    }
    rsgroup::save(master, groups)
}

/// The regions of `table` not on a live server of its group move onto one (none if the
/// group has no live server). Under the DDL lock.
fn move_home(master: &Master, table: &Arc<HostedTable>) -> Result<usize> {
    if table.name.is_meta() || !table.is_enabled() {
        return Ok(0);
    }
    let mut moved = 0;
    for p in table.placed() {
        // A region on a server that is not live waits for its recovery (which splits the
        // log first, then places it in its group).
        let live = master.servers.get(&p.server.name().to_string()).is_some();
        if !live || rsgroup::fits(master, &table.name, p.server.as_ref())? {
            continue;
        }
        let to = match rsgroup::pick(master, &table.name) {
            Ok(to) => to,
            Err(Error::Refused(_)) => return Ok(moved),
            Err(e) => return Err(e),
        };
        crate::balancer::move_locked(master, &p.info, &to)?;
        moved += 1;
    }
    master.metrics.regions_moved.add(moved as u64);
    Ok(moved)
}

/// Refuses to take every server out of a group that still has tables to host.
fn check_leaves_servers(master: &Master, moving: &BTreeSet<String>) -> Result<()> {
    for info in list(master)? {
        let remaining = info.servers.iter().filter(|s| !moving.contains(*s)).count();
        let leaving = info.servers.iter().any(|s| moving.contains(s));
        if leaving && remaining == 0 && !info.tables.is_empty() {
            return Err(Error::Refused(format!(
                "Cannot leave a RSGroup {} that contains tables without servers to host them.",
                info.name
            )));
        }
    }
    Ok(())
}

fn move_servers(master: &Master, to: &str, servers: &[String]) -> Result<()> {
    let addresses: BTreeSet<String> = servers.iter().map(|s| address(s)).collect::<Result<_>>()?;
    let _ddl = master.ddl();
    let mut groups = rsgroup::groups(master)?;
    known(&groups, to)?;
    let live: BTreeSet<String> = master
        .servers
        .all()
        .iter()
        .map(|s| s.name().host_port.clone())
        .collect();
    for a in &addresses {
        let listed = groups.iter().any(|g| g.servers.contains(a));
        if !live.contains(a) && !listed {
            return Err(Error::InvalidArgument(format!(
                "Server {a} is either offline or it does not exist."
            )));
        }
    }
    check_leaves_servers(master, &addresses)?;
    for g in &mut groups {
        g.servers.retain(|s| !addresses.contains(s));
        if g.name == to {
            g.servers.extend(addresses.iter().cloned());
        }
    }
    rsgroup::save(master, groups)?;
    // Regions on the moved servers of tables outside `to` go to their own groups.
    let tables: Vec<Arc<HostedTable>> = master.tables().values().cloned().collect();
    for table in &tables {
        move_home(master, table)?;
    }
    Ok(())
}

/// A table's descriptor naming group `to` (no name for `default`), written for good.
fn set_table_group(master: &Master, table: &Arc<HostedTable>, to: &str) -> Result<()> {
    let mut d = (*table.descriptor()).clone();
    if to == DEFAULT_GROUP {
        d.metadata.remove(GROUP_KEY);
    } else {
        d.metadata.insert(GROUP_KEY.to_owned(), to.to_owned());
    }
    layout::write_descriptor(master.fs.as_ref(), &master.table_dir(&table.name), &d)?;
    table.set_descriptor(d);
    Ok(())
}

fn has_live_server(master: &Master, to: &str) -> Result<()> {
    let groups = rsgroup::groups(master)?;
    known(&groups, to)?;
    if rsgroup::live_servers(master, &groups, to).is_empty() {
        return Err(Error::Refused(format!(
            "RSGroup {to} has no live region server in service to host the tables: move \
             servers into it first"
        )));
    }
    Ok(())
}

fn move_tables(master: &Master, to: &str, tables: &[TableName]) -> Result<()> {
    let _ddl = master.ddl();
    has_live_server(master, to)?;
    let found = tables
        .iter()
        .map(|t| master.table(t))
        .collect::<Result<Vec<_>>>()?;
    for table in &found {
        if table.name.is_meta() {
            return Err(Error::Refused(
                "hbase:meta stays in every RSGroup's reach".into(),
            ));
        }
    }
    for table in &found {
        set_table_group(master, table, to)?;
        move_home(master, table)?;
    }
    Ok(())
}

/// A namespace's property naming group `to` (no name for `default`), written to the catalog.
/// Under the DDL lock.
fn set_namespace_group(master: &Master, ns: &str, to: &str) -> Result<()> {
    let mut d = master
        .namespaces()
        .get(ns)
        .cloned()
        .ok_or_else(|| Error::NamespaceNotFound(ns.to_owned()))?;
    if to == DEFAULT_GROUP {
        d.configuration.remove(GROUP_KEY);
    } else {
        d.configuration.insert(GROUP_KEY.to_owned(), to.to_owned());
    }
    master
        .meta_batch()
        .namespace(&d)
        .commit(master.catalog().as_ref())?;
    master.namespaces_mut().insert(d.name.clone(), d);
    Ok(())
}

fn move_namespaces(master: &Master, to: &str, namespaces: &[String]) -> Result<()> {
    let _ddl = master.ddl();
    has_live_server(master, to)?;
    for ns in namespaces {
        if !master.namespaces().contains_key(ns) {
            return Err(Error::NamespaceNotFound(ns.clone()));
        }
    }
    for ns in namespaces {
        set_namespace_group(master, ns, to)?;
    }
    let tables: Vec<Arc<HostedTable>> = master
        .tables()
        .values()
        .filter(|t| namespaces.iter().any(|ns| ns == t.name.namespace()))
        .cloned()
        .collect();
    for table in &tables {
        move_home(master, table)?;
    }
    Ok(())
}

fn remove_servers(master: &Master, servers: &[String]) -> Result<()> {
    let addresses: BTreeSet<String> = servers.iter().map(|s| address(s)).collect::<Result<_>>()?;
    let _ddl = master.ddl();
    let mut groups = rsgroup::groups(master)?;
    for a in &addresses {
        if master
            .servers
            .all()
            .iter()
            .any(|s| s.name().host_port == *a)
        {
            return Err(Error::Refused(format!(
                "Server {a} is an online server, not allowed to remove."
            )));
        }
        if !groups.iter().any(|g| g.servers.contains(a)) {
            return Err(Error::InvalidArgument(format!(
                "Server {a} is not in any RSGroup but default, which lists live servers only"
            )));
        }
    }
    for g in &mut groups {
        g.servers.retain(|s| !addresses.contains(s));
    }
    rsgroup::save(master, groups)
}
