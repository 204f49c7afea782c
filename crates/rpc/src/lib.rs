//! HBase's native RPC (the protocol HBase's own clients speak to a region server), served onto
//! Basalt's client API: the server (`server`) carrying the region server's ClientService
//! and AdminService (`basalt_regionserver`) and MasterService (`master_service`). The remote client, HBase's
//! client side, is `basalt_embedded::remote`. The messages, framing and conversions are `basalt-proto`'s;
//! framing: `docs/design/rpc.md`.

mod handlers;
pub mod server;

// The wire's data, kept in `basalt-proto`, under the names this crate always gave them.
pub use basalt_proto::{HBASE_VERSION, cellblock, filters, frame, pb};
pub use server::{RpcConfig, RpcKerberos, RpcServer, RpcTls, Services};
