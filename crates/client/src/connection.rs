//! Connections and the embedded catalog of tables they share.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use std::path::PathBuf;

use basalt_common::{Clock, Error, Result, SystemClock, TableName};
use basalt_fs::{FileSystem, MemFs};
use basalt_region::{Region, RegionConfig};

use crate::admin::Admin;
use crate::table::Table;

/// A table hosted by an embedded connection.
#[derive(Debug)]
pub(crate) struct HostedTable {
    pub(crate) region: Arc<Region>,
    pub(crate) enabled: AtomicBool,
}

impl HostedTable {
    /// A newly created table, enabled.
    pub(crate) fn new(region: Region) -> Arc<Self> {
        Arc::new(HostedTable {
            region: Arc::new(region),
            enabled: AtomicBool::new(true),
        })
    }

    pub(crate) fn is_enabled(&self) -> bool {
        self.enabled.load(Ordering::Acquire)
    }
}

/// What all handles of one embedded connection share.
#[derive(Debug)]
pub(crate) struct Engine {
    tables: RwLock<BTreeMap<TableName, Arc<HostedTable>>>,
    pub(crate) clock: Arc<dyn Clock>,
    pub(crate) region_config: RegionConfig,
    /// Where store files go, and the root directory on it (layout: DESIGN.md section 5).
    pub(crate) fs: Arc<dyn FileSystem>,
    pub(crate) root: PathBuf,
}

impl Engine {
    pub(crate) fn tables(&self) -> RwLockReadGuard<'_, BTreeMap<TableName, Arc<HostedTable>>> {
        // The map is only ever changed by single insert/remove calls; a panic cannot leave it
        // half-updated, so a poisoned lock still guards consistent data.
        self.tables.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn tables_mut(&self) -> RwLockWriteGuard<'_, BTreeMap<TableName, Arc<HostedTable>>> {
        self.tables.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// `<root>/data/<namespace>/<table>`.
    pub(crate) fn table_dir(&self, name: &TableName) -> PathBuf {
        self.root
            .join("data")
            .join(name.namespace())
            .join(name.qualifier())
    }

    pub(crate) fn table(&self, name: &TableName) -> Result<Arc<HostedTable>> {
        self.tables()
            .get(name)
            .cloned()
            .ok_or_else(|| Error::TableNotFound(name.clone()))
    }
}

/// A connection to Basalt. Cheap to clone; every clone, [`Admin`] and [`Table`] made from it
/// sees the same tables.
#[derive(Debug, Clone)]
pub struct Connection {
    engine: Arc<Engine>,
}

impl Connection {
    /// An embedded engine in this process, holding its data in memory (store files too, on
    /// an in-memory file system).
    pub fn in_memory() -> Connection {
        Connection::builder().build()
    }

    pub fn builder() -> ConnectionBuilder {
        ConnectionBuilder {
            clock: Arc::new(SystemClock),
            region_config: RegionConfig::default(),
            fs: Arc::new(MemFs::new()),
        }
    }

    /// The administrative interface: tables and their schemas.
    pub fn admin(&self) -> Admin {
        Admin::new(Arc::clone(&self.engine))
    }

    /// A handle on table `name` (`table` or `namespace:table`). Like HBase's `getTable`, it
    /// does not check that the table exists; operations on a missing table fail with
    /// [`Error::TableNotFound`].
    pub fn table(&self, name: &str) -> Result<Table> {
        Ok(Table::new(
            Arc::clone(&self.engine),
            TableName::parse(name)?,
        ))
    }
}

/// Settings of an embedded connection.
#[derive(Debug)]
pub struct ConnectionBuilder {
    clock: Arc<dyn Clock>,
    region_config: RegionConfig,
    fs: Arc<dyn FileSystem>,
}

impl ConnectionBuilder {
    /// The clock that assigns server timestamps and decides TTL expiry.
    pub fn clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Largest cell accepted, in bytes (default 10 MiB, HBase's `hbase.server.keyvalue.maxsize`).
    pub fn max_cell_size(mut self, bytes: usize) -> Self {
        self.region_config.max_cell_size = bytes;
        self
    }

    /// The file system store files are written to (default: in memory).
    pub fn file_system(mut self, fs: Arc<dyn FileSystem>) -> Self {
        self.fs = fs;
        self
    }

    pub fn build(self) -> Connection {
        Connection {
            engine: Arc::new(Engine {
                tables: RwLock::new(BTreeMap::new()),
                clock: self.clock,
                region_config: self.region_config,
                fs: self.fs,
                root: PathBuf::from("/basalt"),
            }),
        }
    }
}
