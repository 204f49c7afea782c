//! Admin: create, describe, list, disable, enable and delete tables.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use basalt_common::md5::md5_hex;
use basalt_common::table_name::DEFAULT_NAMESPACE;
use basalt_common::{Error, Result, TableDescriptor, TableName};
use basalt_region::Region;

use crate::catalog;
use crate::connection::{Engine, HostedTable};

/// Table administration (HBase's `Admin`).
#[derive(Debug, Clone)]
pub struct Admin {
    engine: Arc<Engine>,
}

impl Admin {
    pub(crate) fn new(engine: Arc<Engine>) -> Self {
        Admin { engine }
    }

    /// Creates a table, enabled. Fails if the descriptor is invalid or the table exists.
    pub fn create_table(&self, descriptor: TableDescriptor) -> Result<()> {
        if descriptor.name.namespace() != DEFAULT_NAMESPACE {
            return Err(Error::NamespaceNotFound(
                descriptor.name.namespace().to_owned(),
            ));
        }
        self.engine.check_open()?;
        let name = descriptor.name.clone();
        let mut tables = self.engine.tables_mut();
        if tables.contains_key(&name) {
            return Err(Error::TableExists(name));
        }
        // One region per table for now, named as HBase names regions:
        // `<table>,<start key>,<region id>.` and its MD5 for the directory.
        let region_id = self.engine.clock.now_millis();
        let encoded = md5_hex(format!("{name},,{region_id}.").as_bytes());
        let table_dir = self.engine.table_dir(&name);
        let dir = table_dir.join(encoded);
        let region = Region::open(
            descriptor.clone(),
            Arc::clone(&self.engine.clock),
            self.engine.region_config.clone(),
            Arc::clone(&self.engine.fs),
            &dir,
        )?;
        self.engine.adopt(&region);
        catalog::write_new_table(
            self.engine.fs.as_ref(),
            &table_dir,
            &dir,
            &descriptor,
            region_id,
        )?;
        tables.insert(name, HostedTable::new(region, true));
        Ok(())
    }

    /// Whether the table exists.
    pub fn table_exists(&self, name: &TableName) -> bool {
        self.engine.tables().contains_key(name)
    }

    /// Every table's name, sorted.
    pub fn list_table_names(&self) -> Vec<TableName> {
        self.engine.tables().keys().cloned().collect()
    }

    /// The table's schema.
    pub fn describe_table(&self, name: &TableName) -> Result<TableDescriptor> {
        Ok(self.engine.table(name)?.region.descriptor().clone())
    }

    pub fn is_table_enabled(&self, name: &TableName) -> Result<bool> {
        Ok(self.engine.table(name)?.is_enabled())
    }

    pub fn is_table_disabled(&self, name: &TableName) -> Result<bool> {
        Ok(!self.is_table_enabled(name)?)
    }

    /// Disables a table: it keeps its data and refuses reads and writes until enabled.
    pub fn disable_table(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, false)
    }

    pub fn enable_table(&self, name: &TableName) -> Result<()> {
        self.set_enabled(name, true)
    }

    fn set_enabled(&self, name: &TableName, enabled: bool) -> Result<()> {
        let table = self.engine.table(name)?;
        if table.enabled.swap(enabled, Ordering::AcqRel) == enabled {
            return Err(if enabled {
                Error::TableNotDisabled(name.clone())
            } else {
                Error::TableNotEnabled(name.clone())
            });
        }
        let written = catalog::write_state(
            self.engine.fs.as_ref(),
            &self.engine.table_dir(name),
            enabled,
        );
        if written.is_err() {
            table.enabled.store(!enabled, Ordering::Release);
        }
        written
    }

    /// Deletes a table and its data. As in HBase, it must be disabled first.
    pub fn delete_table(&self, name: &TableName) -> Result<()> {
        let mut tables = self.engine.tables_mut();
        let table = tables
            .get(name)
            .ok_or_else(|| Error::TableNotFound(name.clone()))?;
        if table.is_enabled() {
            return Err(Error::TableNotDisabled(name.clone()));
        }
        if let Some(table) = tables.remove(name)
            && let Some(wal) = &self.engine.region_config.wal
        {
            // The region's edits are needed by nobody now: its segments may be archived.
            wal.region_flushed(table.region.encoded_name(), u64::MAX)?;
        }
        match self.engine.fs.delete_dir_all(&self.engine.table_dir(name)) {
            Ok(()) | Err(basalt_fs::FsError::NotFound(_)) => Ok(()),
            Err(e) => Err(Error::Storage(e.to_string())),
        }
    }

    /// Writes the table's memstores to store files (HBase's `flush`).
    pub fn flush(&self, name: &TableName) -> Result<()> {
        self.engine.table(name)?.region.flush()
    }

    /// A minor compaction of the table's stores (HBase's `compact`): the exploring policy's
    /// pick of files merged, every cell kept.
    pub fn compact(&self, name: &TableName) -> Result<()> {
        self.engine.table(name)?.region.compact(false).map(|_| ())
    }

    /// A major compaction (HBase's `major_compact`): every store's files rewritten as one,
    /// without delete markers, masked, surplus or expired cells (KEEP_DELETED_CELLS and
    /// MIN_VERSIONS honoured).
    pub fn major_compact(&self, name: &TableName) -> Result<()> {
        self.engine.table(name)?.region.compact(true).map(|_| ())
    }

    /// Store files per family of the table's region, in family order.
    pub fn store_file_counts(&self, name: &TableName) -> Result<Vec<usize>> {
        Ok(self.engine.table(name)?.region.store_file_counts())
    }
}
