//! `hbase:quota`, where throttles are kept (HBase's rows and qualifiers,
//! `basalt_common::quota::Subject::row_and_qualifier`; values "PBUF" + Quotas). Made by the
//! first `set_quota`. Its regions are in the master's own process (standalone) or on the
//! cluster's region servers, which the master writes through their ClientService.

use std::sync::Arc;

use basalt_common::quota::{Change, QUOTA_FAMILY, QUOTA_TABLE, Quotas, Subject, USAGE_FAMILY};
use basalt_common::{
    Bytes, ColumnFamilyDescriptor, Delete, Error, Put, Result, TableDescriptor, TableName,
};
use basalt_proto::quota::{quotas_data, quotas_from_data};
use basalt_region::RowMutation;

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

/// Every subject's stored quotas (none before the first `set_quota`).
pub fn list(master: &Master) -> Result<Vec<(Subject, Quotas)>> {
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

/// Applies `change` to `subject`'s quotas (HBase's MasterService SetQuota): a throttle set,
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
    ensure_table(master)?;
    let mut quotas = list(master)?
        .into_iter()
        .find(|(s, _)| s == subject)
        .map(|(_, q)| q)
        .unwrap_or_default();
    match change {
        Change::Throttle(t) => quotas.set(*t),
        Change::Unthrottle(kinds) => quotas.remove(kinds),
        Change::BypassGlobals(on) => quotas.bypass_globals = *on,
    }
    let (row, qualifier) = subject.row_and_qualifier();
    let mutation = if quotas.is_empty() {
        RowMutation::Delete(
            Delete::new(row.clone()).add_columns(Bytes::from_static(QUOTA_FAMILY), qualifier),
        )
    } else {
        RowMutation::Put(Put::new(row.clone()).add_column(
            Bytes::from_static(QUOTA_FAMILY),
            qualifier,
            quotas_data(&quotas),
        ))
    };
    let placed = master.table(&quota_table()?)?.placed_for(row.as_bytes())?;
    rows_of(&placed)?.mutate_rows(&[mutation])
}
