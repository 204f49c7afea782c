//! Where a table's regions may go: its region server group's servers (HBase's
//! RSGroupBasedLoadBalancer placement). The groups are kept in `<root>/rsgroups` (Basalt's
//! `RSGroupList` message), on the shared storage where any master finds them; a table's group
//! is its descriptor's `hbase.rsgroup.name`, else its namespace's, else `default`, which holds
//! every server no other group names (`docs/design/rsgroups.md`).

use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError};

use basalt_common::rsgroup::{DEFAULT_GROUP, GROUP_KEY, RsGroup};
use basalt_common::{Error, Result, TableName};
use prost::Message;

use crate::master::Master;
use crate::servers::RegionServerAdmin;

/// The file the groups are kept in, under the root.
const FILE: &str = "rsgroups";

/// The groups other than `default`, as last read or written.
pub fn groups(master: &Master) -> Result<Vec<RsGroup>> {
    let mut cached = master
        .rsgroups
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(groups) = cached.as_ref() {
        return Ok(groups.clone());
    }
    let path = master.root.join(FILE);
    let groups = match basalt_fs::read_all(master.fs.as_ref(), &path) {
        Ok(bytes) => {
            let list = basalt_proto::pb::RsGroupList::decode(&bytes[..])
                .map_err(|e| Error::corrupt(format!("{} does not decode: {e}", path.display())))?;
            let mut out = Vec::new();
            for g in &list.group {
                let info = basalt_proto::rsgroup::info_of(g)?;
                out.push(RsGroup {
                    name: info.name,
                    servers: info.servers.into_iter().collect(),
                    config: info.config,
                });
            }
            out
        }
        Err(basalt_fs::FsError::NotFound(_)) => Vec::new(),
        Err(e) => return Err(basalt_layout::storage(e)),
    };
    *cached = Some(groups.clone());
    Ok(groups)
}

/// Keeps `groups` (those other than `default`) for good.
pub fn save(master: &Master, groups: Vec<RsGroup>) -> Result<()> {
    let list = basalt_proto::pb::RsGroupList {
        group: groups
            .iter()
            .map(|g| {
                basalt_proto::rsgroup::info_pb(&basalt_common::rsgroup::RsGroupInfo {
                    name: g.name.clone(),
                    servers: g.servers.iter().cloned().collect(),
                    config: g.config.clone(),
                    ..Default::default()
                })
            })
            .collect(),
    };
    basalt_fs::write_atomically(
        master.fs.as_ref(),
        &master.root.join(FILE),
        &list.encode_to_vec(),
    )
    .map_err(basalt_layout::storage)?;
    *master
        .rsgroups
        .lock()
        .unwrap_or_else(PoisonError::into_inner) = Some(groups);
    Ok(())
}

/// The group `table` belongs to: its own, its namespace's, or `default` (also when the group
/// named is gone).
pub fn group_of_table(master: &Master, groups: &[RsGroup], table: &TableName) -> String {
    let own = master
        .table(table)
        .ok()
        .and_then(|t| t.descriptor().metadata.get(GROUP_KEY).cloned());
    group_named(master, groups, table, own)
}

/// The group of a table whose descriptor names `own` (or none).
fn group_named(
    master: &Master,
    groups: &[RsGroup],
    table: &TableName,
    own: Option<String>,
) -> String {
    let named = own.or_else(|| {
        master
            .namespaces()
            .get(table.namespace())
            .and_then(|ns| ns.configuration.get(GROUP_KEY).cloned())
    });
    match named {
        Some(g) if groups.iter().any(|x| x.name == g) => g,
        _ => DEFAULT_GROUP.to_owned(),
    }
}

/// The group a server (`host:port`) is in.
pub fn group_of_server(groups: &[RsGroup], address: &str) -> String {
    groups
        .iter()
        .find(|g| g.servers.contains(address))
        .map_or(DEFAULT_GROUP.to_owned(), |g| g.name.clone())
}

/// Whether `server` may hold regions of `table`.
pub fn fits(master: &Master, table: &TableName, server: &dyn RegionServerAdmin) -> Result<bool> {
    if table.is_meta() {
        return Ok(true);
    }
    let groups = groups(master)?;
    Ok(
        group_of_server(&groups, &server.name().host_port)
            == group_of_table(master, &groups, table),
    )
}

/// The live servers in service of group `name`.
pub fn live_servers(
    master: &Master,
    groups: &[RsGroup],
    name: &str,
) -> Vec<Arc<dyn RegionServerAdmin>> {
    master
        .servers
        .in_service()
        .into_iter()
        .filter(|s| group_of_server(groups, &s.name().host_port) == name)
        .collect()
}

/// A server for a new region of `table`: its group's live servers in service, in turn.
/// `hbase:meta` goes anywhere. A group with no live server refuses, naming it: the region
/// stays unassigned until a server of the group is there.
pub fn pick(master: &Master, table: &TableName) -> Result<Arc<dyn RegionServerAdmin>> {
    let own = master
        .table(table)
        .ok()
        .and_then(|t| t.descriptor().metadata.get(GROUP_KEY).cloned());
    pick_for(master, table, own)
}

/// [`pick`] for a table being made, whose descriptor names group `own` (or none).
pub fn pick_for(
    master: &Master,
    table: &TableName,
    own: Option<String>,
) -> Result<Arc<dyn RegionServerAdmin>> {
    if table.is_meta() {
        return master.servers.pick();
    }
    let groups = groups(master)?;
    let group = group_named(master, &groups, table, own);
    if group == DEFAULT_GROUP && groups.iter().all(|g| g.servers.is_empty()) {
        return master.servers.pick();
    }
    let members: BTreeSet<String> = live_servers(master, &groups, &group)
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    master
        .servers
        .pick_where(|name| members.contains(name))
        .map_err(|_| {
            Error::Refused(format!(
                "RSGroup {group} of table {table} has no live region server in service: its \
                 regions stay unassigned until one joins"
            ))
        })
}
