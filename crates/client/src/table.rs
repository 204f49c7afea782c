//! Table: reads and writes of one table's rows.

use std::sync::Arc;

use basalt_common::{Delete, Error, Get, Put, Result, RowResult, Scan, TableName};
use basalt_region::RegionScanner;

use crate::connection::{Engine, HostedTable};

/// A handle on one table (HBase's `Table`). Cheap to clone and to share between threads.
#[derive(Debug, Clone)]
pub struct Table {
    engine: Arc<Engine>,
    name: TableName,
}

impl Table {
    pub(crate) fn new(engine: Arc<Engine>, name: TableName) -> Self {
        Table { engine, name }
    }

    pub fn name(&self) -> &TableName {
        &self.name
    }

    fn hosted(&self) -> Result<Arc<HostedTable>> {
        let table = self.engine.table(&self.name)?;
        if !table.is_enabled() {
            return Err(Error::TableNotEnabled(self.name.clone()));
        }
        Ok(table)
    }

    /// Writes one row's cells atomically.
    pub fn put(&self, put: &Put) -> Result<()> {
        self.hosted()?.region.put(put)
    }

    /// Writes several rows. Each Put is atomic on its own; the list is not. Stops at the
    /// first failure, returning it with the index of the failed Put.
    pub fn put_all(&self, puts: &[Put]) -> std::result::Result<(), (usize, Error)> {
        let table = self.hosted().map_err(|e| (0, e))?;
        for (i, put) in puts.iter().enumerate() {
            table.region.put(put).map_err(|e| (i, e))?;
        }
        Ok(())
    }

    /// Deletes from one row atomically.
    pub fn delete(&self, delete: &Delete) -> Result<()> {
        self.hosted()?.region.delete(delete)
    }

    /// Reads one row; an empty [`RowResult`] if nothing matches.
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        self.hosted()?.region.get(get)
    }

    /// Reads several rows, one result per Get in the same order.
    pub fn get_all(&self, gets: &[Get]) -> Result<Vec<RowResult>> {
        let table = self.hosted()?;
        gets.iter().map(|g| table.region.get(g)).collect()
    }

    /// Whether the Get would return any cell.
    pub fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get)?.is_empty())
    }

    /// Rows of the table, as `scan` selects them.
    pub fn scan(&self, scan: &Scan) -> Result<ResultScanner> {
        Ok(ResultScanner {
            inner: self.hosted()?.region.scan(scan)?,
        })
    }
}

/// The rows of a scan, read lazily (HBase's `ResultScanner`).
#[derive(Debug)]
pub struct ResultScanner {
    inner: RegionScanner,
}

impl Iterator for ResultScanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next()
    }
}
