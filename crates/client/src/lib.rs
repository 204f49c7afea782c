//! Basalt's client API: [`Connection`], [`Admin`] and [`Table`], with the operation types of
//! `basalt-common` ([`Put`], [`Delete`], [`Get`], [`Scan`], [`RowResult`]).
//!
//! A [`Connection`] is embedded: the engine runs inside the calling process. `basalt-rpc`'s
//! remote connection reaches a `basalt standalone` server with the same operation types, and
//! both implement [`Client`], the interface tools such as the shell use to work either way.
//!
//! ```
//! use basalt_client::{Connection, ColumnFamilyDescriptor, TableDescriptor, Put, Get};
//!
//! let conn = Connection::in_memory();
//! let desc = TableDescriptor::named("t")?.with_family(ColumnFamilyDescriptor::new("cf"));
//! conn.admin().create_table(desc)?;
//! let table = conn.table("t")?;
//! table.put(&Put::new("row1").add_column("cf", "q", "value1"))?;
//! let row = table.get(&Get::new("row1"))?;
//! assert_eq!(row.value(b"cf", b"q").map(|v| &v[..]), Some(&b"value1"[..]));
//! # Ok::<(), basalt_client::Error>(())
//! ```

mod as_user;
mod buffered;
mod client;
mod connection;
pub mod hotspots;
pub mod layout;
pub mod remote;
#[cfg(test)]
mod split_halves_tests;
mod table;

pub use as_user::AsUser;
pub use basalt_common::{acl, metrics};
pub use basalt_master::{Admin, RegionDescription, SplitAlgorithm};
pub use basalt_proto::HBASE_VERSION;
pub use buffered::{BufferedMutator, BufferedMutatorParams, DEFAULT_WRITE_BUFFER_SIZE};
pub use client::{
    Client, ClusterSummary, RegionLoad, RegionSummary, Scanner, ServerSummary, SnapshotInfo,
};
pub use connection::{Connection, ConnectionBuilder};
pub use layout::LayoutClient;
pub use table::{BatchOp, BatchOutcome, ResultScanner, Table};

pub use basalt_storefile::BlockCacheStats;
pub use basalt_wal::WalConfig;

pub use basalt_common::bytes_display::BinaryDisplay;
pub use basalt_common::filter::{BitOp, Comparator, FilterSpec, RowRange, parse_filter};
pub use basalt_common::ops::{
    Append, Check, CheckAction, CheckAndMutate, CheckAndMutateResult, CompareOperator, Condition,
    DeleteEntry, FamilyMap, Increment, Mutation, PutCell, RowMutations, RowOp,
};
pub use basalt_common::{
    BloomType, Bytes, Cell, CellType, Clock, ColumnFamilyDescriptor, Compression,
    DataBlockEncoding, Delete, Durability, Error, ErrorKind, Get, KeepDeletedCells,
    LATEST_TIMESTAMP, ManualClock, NamespaceDescriptor, Put, RegionInfo, Result, RowResult, Scan,
    ServerName, SystemClock, TableDescriptor, TableName, TimeRange,
};
