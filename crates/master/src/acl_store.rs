//! `hbase:acl`, where grants are kept (one cell each: `basalt_common::acl::Permission::to_cell`),
//! and the grants in force, which the master and region servers check calls against. The
//! table is made when a master first starts with access control on. Its regions are in the
//! master's own process (standalone) or on the cluster's region servers, which the master
//! writes through their ClientService; a cluster's region servers learn the grants from
//! ZooKeeper (`crate::cluster`).

use std::sync::Arc;

use basalt_common::acl::{ACL_FAMILY, ACL_TABLE, AccessControl, Permission, Scope};
use basalt_common::{
    Bytes, ColumnFamilyDescriptor, Delete, Error, Put, Result, TableDescriptor, TableName,
};
use basalt_region::RowMutation;

use crate::master::{Master, Placed};
use crate::meta::MetaStore;
use crate::procedures;

fn acl_table() -> Result<TableName> {
    TableName::parse(ACL_TABLE)
}

/// The rows of a region of `hbase:acl`: in this process (standalone), or on the region
/// server that holds it (a cluster).
fn rows_of(placed: &Placed) -> Result<Arc<dyn MetaStore>> {
    match &placed.region {
        Some(region) => Ok(Arc::clone(region) as Arc<dyn MetaStore>),
        None => placed.server.rows(&placed.info),
    }
}

/// Makes `hbase:acl` if it is missing.
pub fn ensure_table(master: &Master) -> Result<()> {
    let name = acl_table()?;
    if master.tables().contains_key(&name) {
        return Ok(());
    }
    let family = ColumnFamilyDescriptor::new(Bytes::from_static(ACL_FAMILY)).with_max_versions(1);
    procedures::create_system_table(master, TableDescriptor::new(name).with_family(family))
}

/// Every grant stored.
pub fn load(master: &Master) -> Result<Vec<Permission>> {
    let mut grants = Vec::new();
    for placed in master.table(&acl_table()?)?.placed() {
        for row in rows_of(&placed)?.scan_family(ACL_FAMILY)? {
            for cell in &row.cells {
                grants.push(Permission::from_cell(
                    cell.row(),
                    cell.qualifier(),
                    cell.value(),
                )?);
            }
        }
    }
    Ok(grants)
}

/// Writes `mutation` to the region of `hbase:acl` holding `row`, synced.
fn write(master: &Master, row: &[u8], mutation: RowMutation) -> Result<()> {
    let placed = master.table(&acl_table()?)?.placed_for(row)?;
    rows_of(&placed)?.mutate_rows(&[mutation])
}

/// Stores `p` (replacing the grant at its scope).
pub fn store(master: &Master, p: &Permission) -> Result<()> {
    let (row, qualifier, value) = p.to_cell();
    write(
        master,
        row.as_bytes(),
        RowMutation::Put(Put::new(row.clone()).add_column(
            Bytes::from_static(ACL_FAMILY),
            qualifier,
            value,
        )),
    )
}

/// Removes the stored grant of `p`'s principal at `p`'s scope.
pub fn remove(master: &Master, p: &Permission) -> Result<()> {
    let (row, qualifier, _) = p.to_cell();
    write(
        master,
        row.as_bytes(),
        RowMutation::Delete(
            Delete::new(row.clone()).add_columns(Bytes::from_static(ACL_FAMILY), qualifier),
        ),
    )
}

/// Makes the table if needed and puts the stored grants in force.
pub fn start(master: &Master, access: &AccessControl) -> Result<()> {
    ensure_table(master)?;
    access.set_grants(load(master)?);
    Ok(())
}

/// The scope's table or namespace must exist for a grant on it.
pub fn check_scope_exists(master: &Master, scope: &Scope) -> Result<()> {
    match scope {
        Scope::Global => Ok(()),
        Scope::Namespace(ns) => {
            if master.namespaces().contains_key(ns) {
                Ok(())
            } else {
                Err(Error::NamespaceNotFound(ns.clone()))
            }
        }
        Scope::Table { table, family, .. } => {
            let t = master.table(table)?;
            if let Some(f) = family
                && t.descriptor().family(f).is_none()
            {
                return Err(Error::NoSuchColumnFamily {
                    table: table.clone(),
                    family: basalt_common::bytes_display::BinaryDisplay::new(f),
                });
            }
            Ok(())
        }
    }
}
