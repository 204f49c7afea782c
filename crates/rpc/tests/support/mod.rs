//! What the RPC tests share: a server on a free loopback port, and calls whose failure is
//! the server's exception class.
#![allow(dead_code, reason = "each test binary uses some of these")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_embedded::Connection;
use basalt_embedded::remote::{RpcClient, RpcError};
use basalt_rpc::{RpcConfig, RpcServer};
use prost::Message;

/// An in-memory engine holding table `t` with one family, `f`.
pub fn engine_with_table_t() -> Connection {
    let conn = Connection::in_memory();
    conn.admin()
        .create_table(
            basalt_embedded::TableDescriptor::named("t")
                .unwrap()
                .with_family(basalt_embedded::ColumnFamilyDescriptor::new("f")),
        )
        .unwrap();
    conn
}

/// The server's defaults, bound to a free port of 127.0.0.1.
pub fn loopback() -> RpcConfig {
    RpcConfig {
        bind: ([127, 0, 0, 1], 0).into(),
        ..RpcConfig::default()
    }
}

/// A server for `conn` with [`loopback`]'s configuration.
pub fn serve(conn: &Connection) -> RpcServer {
    conn.serve_rpc(loopback()).unwrap()
}

/// As [`call`], with the exception's message after its class (`class: message`).
#[allow(
    dead_code,
    reason = "not every test binary that shares this module uses it"
)]
pub fn call_explained<Q: Message, R: Message + Default>(
    c: &RpcClient,
    method: &str,
    request: &Q,
) -> Result<R, String> {
    c.call(method, request).map_err(|e| match e {
        RpcError::Remote { class, message, .. } => format!("{class}: {message}"),
        other => panic!("{method}: {other}"),
    })
}

/// Calls `method`; a failure is the Java class of the server's exception (any other failure
/// fails the test).
pub fn call<Q: Message, R: Message + Default>(
    c: &RpcClient,
    method: &str,
    request: &Q,
) -> Result<R, String> {
    c.call(method, request).map_err(|e| match e {
        RpcError::Remote { class, .. } => class,
        other => panic!("{method}: {other}"),
    })
}
