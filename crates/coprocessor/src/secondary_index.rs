//! Reads through the index the secondary-index coprocessor keeps
//! (`coprocessors/examples/secondary-index`, key layout in `basalt_coprocessor_sdk::index`).
//! The index may hold rows whose base row has since changed (a write that failed after its
//! index write, or one a crash cut short); every base row is read back and checked, so a
//! lookup answers exactly the rows whose column holds the value when each is read.

use std::sync::Arc;

use basalt_common::error::Result;
use basalt_common::ops::{Get, RowResult, Scan};
use basalt_common::{Bytes, TableName};
use basalt_coprocessor_sdk::index;

use basalt_client::Client;

/// An index of `family:qualifier` of `table`, kept in the table `index`.
#[derive(Debug, Clone)]
pub struct SecondaryIndex {
    /// The base table.
    pub table: TableName,
    /// The table the coprocessor keeps the index in.
    pub index: TableName,
    /// The indexed column's family.
    pub family: Bytes,
    /// The indexed column's qualifier.
    pub qualifier: Bytes,
}

impl SecondaryIndex {
    /// The base rows the index lists under `value`, unchecked, in row order.
    pub fn listed(&self, client: &Arc<dyn Client>, value: &[u8]) -> Result<Vec<Bytes>> {
        let prefix = index::value_prefix(value);
        let scan = Scan::new().with_row_prefix(Bytes::from(prefix.clone()));
        let mut rows = Vec::new();
        for r in Arc::clone(client).scan(&self.index, &scan)? {
            let r = r?;
            rows.push(r.row.slice(prefix.len()..));
        }
        Ok(rows)
    }

    /// The rows of the base table whose column holds `value` now, found through the index
    /// and each checked against the base table, in row order.
    pub fn lookup(&self, client: &Arc<dyn Client>, value: &[u8]) -> Result<Vec<RowResult>> {
        let mut found = Vec::new();
        for row in self.listed(client, value)? {
            let current = client.get(&self.table, &Get::new(row))?;
            let holds = current
                .cells
                .iter()
                .find(|c| c.family() == self.family && c.qualifier() == self.qualifier)
                .is_some_and(|c| c.value() == value);
            if holds {
                found.push(current);
            }
        }
        Ok(found)
    }
}
