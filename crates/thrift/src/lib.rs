//! HBase's Thrift1 gateway (`Hbase.thrift`, service `Hbase`) onto Basalt's client API, so
//! happybase and every other Thrift1 client work unchanged.
//!
//! - [`protocol`]: the binary and compact protocols, written here (`docs/design/thrift.md`);
//! - [`handler`]: each method of the service, with HBase's semantics and quirks;
//! - [`server`]: the accept loop, buffered and framed transports, limits, leases, shutdown.

pub mod client;
pub mod handler;
pub mod protocol;
pub mod reply;
pub mod scanners;
pub mod server;

pub use client::{ClientError, ThriftClient};
pub use server::{ThriftConfig, ThriftServer};
