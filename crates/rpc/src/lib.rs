//! HBase's native RPC (the protocol HBase's own clients speak to a region server), served onto
//! Basalt's client API: framing (`frame`), ClientService (`client_service`), AdminService
//! (`admin_service`), MasterService (`master_service`), the server (`server`). Message
//! definitions: `proto/`, with HBase's field numbers. Framing: `docs/design/rpc.md`.

pub mod admin_service;
pub mod cellblock;
pub mod client;
pub mod client_service;
pub mod filters;
pub mod frame;
mod handlers;
pub mod master_service;
pub mod nonces;
pub mod remote;
pub mod server;
pub mod zk;

/// The generated protobuf messages (package `hbase.pb`).
#[allow(missing_debug_implementations, clippy::all, reason = "generated code")]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/hbase.pb.rs"));
}

pub use server::{RpcConfig, RpcServer};

/// The HBase version Basalt's native RPC reports (cluster status): the 2.x line whose
/// protocol and behaviour it follows.
pub const HBASE_VERSION: &str = "2.6.0";
