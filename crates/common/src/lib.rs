//! Basalt's shared vocabulary: cells and their order, table and family descriptors, table
//! names, the operations clients send (Put, Delete, Get, Scan) and the results they receive,
//! errors, and the clock.
//!
//! It holds no storage and no networking; every other crate builds on it.

pub mod acl;
pub mod aggregate;
pub mod balancer_log;
pub mod bytes_display;
pub mod cell;
pub mod chore;
pub mod clock;
pub mod coprocessor;
pub mod descriptor_file;
pub mod error;
pub mod family_descriptor;
pub mod filter;
pub mod key_layout;
pub mod keys;
pub mod log;
pub mod md5;
pub mod meta_key;
pub mod metrics;
pub mod namespace;
pub mod ops;
pub mod pb;
pub mod procedure;
pub mod quota;
pub mod region_info;
pub mod replication;
pub mod rsgroup;
pub mod schema;
pub mod server_name;
pub mod site;
pub mod slowlog;
pub mod snapshot;
pub mod split;
pub mod table_descriptor;
pub mod table_name;
pub mod xml;

pub use bytes::Bytes;
pub use cell::{Cell, CellType, LATEST_TIMESTAMP};
pub use clock::{Clock, ManualClock, SystemClock};
pub use error::{Error, ErrorKind, Result};
pub use family_descriptor::ColumnFamilyDescriptor;
pub use namespace::NamespaceDescriptor;
pub use ops::{Delete, Get, Put, RowResult, Scan, TimeRange};
pub use region_info::RegionInfo;
pub use schema::{BloomType, Compression, DataBlockEncoding, Durability, KeepDeletedCells};
pub use server_name::ServerName;
pub use table_descriptor::TableDescriptor;
pub use table_name::TableName;
