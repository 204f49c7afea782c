//! HBase's Thrift gateways onto Basalt's client API: Thrift1 (`Hbase.thrift`, service
//! `Hbase`), so happybase and every other Thrift1 client work unchanged, and Thrift2
//! (thrift2's `hbase.thrift`, service `THBaseService`).
//!
//! - [`protocol`]: the binary and compact protocols, written here (`docs/design/thrift.md`);
//! - [`handler`]: each method of the service, with HBase's semantics and quirks;
//! - [`thrift2`]: each method of THBaseService;
//! - [`server`]: the accept loop, buffered and framed transports, limits, leases, shutdown.

pub mod client;
pub mod handler;
pub mod protocol;
pub mod reply;
pub mod scanners;
pub mod server;
pub mod thrift2;

pub use client::{ClientError, ThriftClient};
pub use server::{ThriftConfig, ThriftServer};
