//! `hbase:acl`, where grants are kept (one cell each: `basalt_common::acl::Permission::to_cell`),
//! and the grants in force, which the master's region server checks calls against. The table
//! is made when a process first starts with access control on. For now its region must be
//! in the master's own process (standalone); a cluster's region servers do not load grants yet.

use std::sync::Arc;

use basalt_common::acl::{ACL_FAMILY, ACL_TABLE, AccessControl, Permission, Scope};
use basalt_common::{
    Bytes, ColumnFamilyDescriptor, Delete, Error, Put, Result, Scan, TableDescriptor, TableName,
};
use basalt_region::Region;

use crate::master::Master;
use crate::procedures;

fn acl_table() -> Result<TableName> {
    TableName::parse(ACL_TABLE)
}

/// The region of `hbase:acl` holding `row`, which must be open in this process.
fn region_for(master: &Master, row: &[u8]) -> Result<Arc<Region>> {
    let table = master.table(&acl_table()?)?;
    table.placed_for(row)?.region.ok_or_else(|| {
        Error::Refused(
            "access control needs hbase:acl's region in the master's process (a cluster's \
             grants are not supported yet)"
                .into(),
        )
    })
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
    let region = region_for(master, b"")?;
    let mut grants = Vec::new();
    for row in region.scan(&Scan::new())? {
        let row = row?;
        for cell in &row.cells {
            grants.push(Permission::from_cell(
                cell.row(),
                cell.qualifier(),
                cell.value(),
            )?);
        }
    }
    Ok(grants)
}

/// Stores `p` (replacing the grant at its scope).
pub fn store(master: &Master, p: &Permission) -> Result<()> {
    let (row, qualifier, value) = p.to_cell();
    region_for(master, row.as_bytes())?.put(&Put::new(row.clone()).add_column(
        Bytes::from_static(ACL_FAMILY),
        qualifier,
        value,
    ))
}

/// Removes the stored grant of `p`'s principal at `p`'s scope.
pub fn remove(master: &Master, p: &Permission) -> Result<()> {
    let (row, qualifier, _) = p.to_cell();
    region_for(master, row.as_bytes())?
        .delete(&Delete::new(row.clone()).add_columns(Bytes::from_static(ACL_FAMILY), qualifier))
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
