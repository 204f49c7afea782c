#![warn(missing_docs)]
//! Basalt's client: [`Client`], the interface every kind of connection implements (the
//! shell, the gateways and tools are written against it), and [`remote`], a connection to a
//! Basalt (or HBase) cluster over HBase's native RPC. The operation types are
//! `basalt-common`'s ([`Put`], [`Delete`], [`Get`], [`Scan`], [`RowResult`]).
//!
//! This crate holds no engine: the engine inside the calling process is `basalt-embedded`,
//! whose `Connection` implements [`Client`] too.
//!
//! Blocking, from any number of threads sharing one connection:
//!
//! ```no_run
//! use basalt_client::remote::{RemoteConfig, RemoteConnection};
//! use basalt_client::{Get, Put, Scan};
//!
//! # fn main() -> basalt_client::Result<()> {
//! let conn = RemoteConnection::through_zookeeper("127.0.0.1:2181", RemoteConfig::default())?;
//! let t = conn.table("webtable")?;
//! t.put(&Put::new("com.cnn.www").add_column("anchor", "cnnsi.com", "CNN"))?;
//! let row = t.get(&Get::new("com.cnn.www"))?;
//! assert_eq!(row.value(b"anchor", b"cnnsi.com"), Some(&b"CNN"[..]));
//! for row in t.scanner(&Scan::new().with_start_row("com.").with_caching(100))? {
//!     println!("{:?}", row?.row);
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Async, on tokio: [`remote::AsyncConnection`], the same calls as `async fn`s, any number
//! of them in flight on one socket per server (`docs/design/client.md`). Without the `tls`
//! feature (on by default) the crate builds from Rust alone.

pub mod aggregate;
mod batch;
mod buffered;
mod client;
pub mod hotspots;
pub mod layout;
pub mod remote;

pub use basalt_common::{
    acl, balancer_log, chore, clock, log, metrics, procedure, quota, replication, rsgroup, site,
    slowlog,
};
pub use basalt_proto::HBASE_VERSION;
pub use batch::{BatchOp, BatchOutcome};
pub use buffered::{BufferedMutator, BufferedMutatorParams, DEFAULT_WRITE_BUFFER_SIZE};
pub use client::{
    Client, ClusterSummary, DataClient, EndpointCall, RegionLoad, RegionSummary, Scanner,
    ServerAdmin, ServerSummary, SnapshotInfo, TaskSummary, counter_value, one_counter,
};
pub use layout::LayoutClient;

/// The typed administration calls (`create_table`, `delete_namespace`, ...) on every connection, and
/// [`Client`]: `use basalt_client::prelude::*`.
pub mod prelude {
    pub use crate::{Client, DataClient, ServerAdmin};
    pub use basalt_ops::prelude::*;
}
pub use basalt_ops::{AsyncCaller, Caller, Changed};

pub use basalt_common::bytes_display::BinaryDisplay;
pub use basalt_common::filter::{BitOp, Comparator, FilterSpec, RowRange, parse_filter};
pub use basalt_common::ops::{
    Append, Check, CheckAction, CheckAndMutate, CheckAndMutateResult, CompareOperator, Condition,
    DeleteEntry, FamilyMap, Increment, Mutation, PutCell, RowMutations, RowOp,
};
pub use basalt_common::split::SplitAlgorithm;
pub use basalt_common::{
    BloomType, Bytes, Cell, CellType, Clock, ColumnFamilyDescriptor, Compression,
    DataBlockEncoding, Delete, Durability, Error, ErrorKind, Get, KeepDeletedCells,
    LATEST_TIMESTAMP, ManualClock, NamespaceDescriptor, Put, RegionInfo, Result, RowResult, Scan,
    ServerName, SystemClock, TableDescriptor, TableName, TimeRange,
};
