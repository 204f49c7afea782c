//! HBase's native RPC (the protocol HBase's own clients speak to a region server), served onto
//! Basalt's client API: ClientService (`client_service`), AdminService (`admin_service`),
//! MasterService (`master_service`) and the server (`server`). The remote client, HBase's
//! client side, is `basalt_client::remote`. The messages, framing and conversions are `basalt-proto`'s;
//! framing: `docs/design/rpc.md`.

pub mod admin_service;
pub mod client_service;
mod handlers;
pub mod master_service;
pub mod nonces;
pub mod server;

// The wire's data, kept in `basalt-proto`, under the names this crate always gave them.
pub use basalt_proto::{HBASE_VERSION, cellblock, filters, frame, pb};
pub use server::{RpcConfig, RpcServer};
