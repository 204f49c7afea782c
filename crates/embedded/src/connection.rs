//! Connections: handles on an embedded engine (its master and region server, in
//! `basalt-master` and `basalt-regionserver`), from which tables and the admin are made.

use std::path::Path;
use std::sync::Arc;

use crate::engine::{Engine, EngineBuilder, FromEngine};
use basalt_common::{Result, TableName};
use basalt_fs::LocalFs;
use basalt_regionserver::RegionServer;
use basalt_storefile::BlockCacheStats;

use crate::table::Table;
use basalt_master::Admin;

/// Settings of an embedded connection ([`Connection::builder`]).
pub type ConnectionBuilder = EngineBuilder<Connection>;

/// A connection to Basalt. Cheap to clone; every clone, [`Admin`] and [`Table`] made from it
/// sees the same tables.
#[derive(Debug, Clone)]
pub struct Connection {
    pub(crate) engine: Arc<Engine>,
}

impl Connection {
    /// An embedded engine in this process, holding its data in memory (store files too, on
    /// an in-memory file system). Nothing outlives the process.
    pub fn in_memory() -> Connection {
        Connection::builder().build()
    }

    /// An embedded engine on the data directory `dir` (created if missing): `hbase:meta` and
    /// every region it lists are opened, and what the write-ahead log holds beyond their
    /// store files is replayed. Only one engine may hold a directory at a time.
    pub fn open(dir: impl AsRef<Path>) -> Result<Connection> {
        Connection::builder()
            .file_system(Arc::new(LocalFs))
            .root(dir)
            .open()
    }

    pub fn builder() -> ConnectionBuilder {
        ConnectionBuilder::new()
    }

    /// The administrative interface: tables and their schemas.
    pub fn admin(&self) -> Admin {
        Admin::new(self.engine.master())
    }

    /// A handle on table `name` (`table` or `namespace:table`). Like HBase's `getTable`, it
    /// does not check that the table exists; operations on a missing table fail with
    /// [`Error::TableNotFound`].
    pub fn table(&self, name: &str) -> Result<Table> {
        Ok(self.table_named(TableName::parse(name)?))
    }

    /// Buffered puts and deletes to `name` (HBase's `getBufferedMutator`), with HBase's 2 MiB
    /// write buffer; [`BufferedMutator::new`] takes other parameters.
    pub fn buffered_mutator(&self, name: &str) -> Result<crate::BufferedMutator> {
        crate::BufferedMutator::new(
            Arc::new(self.clone()),
            TableName::parse(name)?,
            crate::BufferedMutatorParams::default(),
        )
    }

    /// [`Connection::table`] for a name already parsed (a gateway parses the name a request
    /// carries once, to check it).
    pub fn table_named(&self, name: TableName) -> Table {
        Table::new(Arc::clone(&self.engine), name)
    }

    /// The engine itself (its master and region server), for the servers that serve it over
    /// the native RPC.
    pub fn engine(&self) -> Arc<Engine> {
        Arc::clone(&self.engine)
    }

    /// The region server of this embedded engine: what a native RPC server in front of it
    /// serves ClientService from.
    pub fn region_server(&self) -> Arc<RegionServer> {
        Arc::clone(&self.engine.rs)
    }

    /// When this server started, in milliseconds since the epoch: the start code of its
    /// server name (`host,port,startcode`), as `hbase:meta`'s `info:serverstartcode` holds it.
    pub fn server_start_code(&self) -> i64 {
        self.engine.rs.name.start_code
    }

    /// The block cache's counters (all zero when it is off).
    pub fn block_cache_stats(&self) -> BlockCacheStats {
        self.engine
            .region_config
            .block_cache
            .as_ref()
            .map(|c| c.stats())
            .unwrap_or_default()
    }

    /// Flushes every region, then releases the data directory. Every handle of this connection
    /// fails afterwards.
    pub fn close(&self) -> Result<()> {
        self.engine.close()
    }
}

impl FromEngine for Connection {
    fn from_engine(engine: Arc<Engine>) -> Self {
        Connection { engine }
    }
}
