//! `basalt rest`: HBase's REST gateway as a process of its own, a client of a running server
//! (by address) or cluster (through ZooKeeper), as HBase's REST server is a client of its
//! cluster. `basalt standalone --rest-port` runs the same gateway on its embedded engine.
//! SIGINT or SIGTERM stops it after the requests in flight.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use basalt_embedded::ServerAdmin;
use basalt_rest::{RestConfig, RestServer};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    gateway: crate::connect::GatewayArgs,
    /// REST port; 0 picks a free one
    #[arg(long, short = 'p', default_value_t = 8080)]
    port: u16,
    /// Refuse every write with 403 (HBase's hbase.rest.readonly)
    #[arg(long)]
    readonly: bool,
    /// Seconds an idle scanner lives
    #[arg(long, default_value_t = 60)]
    scanner_lease_secs: u64,
}

pub fn run(args: &Args) -> Result<()> {
    let stop = crate::cluster::stop_flag()?;
    crate::connect::guard_bind(args.gateway.bind, args.gateway.insecure, false)?;
    let tls = args.gateway.listener_tls()?;
    let (conn, place) = args.gateway.remote()?;
    let config = RestConfig {
        tls,
        bind: SocketAddr::new(args.gateway.bind, args.port),
        read_only: args.readonly,
        scanner_lease: Duration::from_secs(args.scanner_lease_secs),
        server_name: conn.server_name(),
        max_connections: args.gateway.max_connections as usize,
        max_body: (args.gateway.max_request_mb as usize) << 20,
    };
    let rest = RestServer::start(
        Arc::new(basalt_embedded::LayoutClient::new(Arc::new(conn))),
        config,
    )
    .with_context(|| format!("cannot listen on {}:{}", args.gateway.bind, args.port))?;
    crate::say!(
        "rest listening on {}{}, serving {place}",
        rest.local_addr(),
        if args.readonly { " (read-only)" } else { "" }
    );
    crate::connect::serve_until_stopped(&stop, || rest.shutdown());
    Ok(())
}
