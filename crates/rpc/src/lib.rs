//! HBase's native RPC (the protocol HBase's own clients speak to a region server) as a
//! transport: the server (`server`) reads connections and frames and routes each call to the
//! service its connection's header names, any `basalt_proto::service::Service` (the region
//! server's ClientService and AdminService, the master's MasterService); it knows none of
//! them by name (`basalt_embedded::Connection::serve_rpc` serves all three of an embedded
//! engine). The remote client, HBase's client side, is `basalt_client::remote`. The
//! messages, framing and conversions are `basalt-proto`'s; framing: `docs/design/rpc.md`.

mod handlers;
pub mod server;

// The wire's data, kept in `basalt-proto`, under the names this crate always gave them.
pub use basalt_proto::{HBASE_VERSION, cellblock, filters, frame, pb, service};
pub use server::{RpcConfig, RpcKerberos, RpcServer, RpcTls, Services};
