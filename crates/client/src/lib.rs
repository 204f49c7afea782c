#![warn(missing_docs)]
//! Basalt's client: [`Client`], the interface every kind of connection implements (the
//! shell, the gateways and tools are written against it), and [`remote`], a connection to a
//! Basalt (or HBase) cluster over HBase's native RPC. The operation types are
//! `basalt-common`'s ([`Put`], [`Delete`], [`Get`], [`Scan`], [`RowResult`]).
//!
//! This crate holds no engine: the engine inside the calling process is `basalt-embedded`,
//! whose `Connection` implements [`Client`] too.

mod batch;
mod buffered;
mod client;
pub mod hotspots;
pub mod layout;
pub mod remote;

pub use basalt_common::{acl, metrics};
pub use basalt_proto::HBASE_VERSION;
pub use batch::{BatchOp, BatchOutcome};
pub use buffered::{BufferedMutator, BufferedMutatorParams, DEFAULT_WRITE_BUFFER_SIZE};
pub use client::{
    Client, ClusterSummary, RegionLoad, RegionSummary, Scanner, ServerSummary, SnapshotInfo,
    counter_value, one_counter,
};
pub use layout::LayoutClient;

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
