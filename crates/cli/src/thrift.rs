//! `basalt thrift`: the Thrift1 gateway as a process of its own, a client of a running server
//! (by address or through ZooKeeper), as HBase's Thrift server is a client of its cluster.
//! `basalt standalone` runs the same gateway on its embedded engine. SIGINT or SIGTERM stops
//! it after the calls in flight.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use basalt_embedded::Client;
use basalt_thrift::{ThriftConfig, ThriftServer};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    gateway: crate::connect::GatewayArgs,
    /// Thrift1 port; 0 picks a free one
    #[arg(long, default_value_t = 9090)]
    port: u16,
    /// Framed transport (buffered otherwise), as HBase's `--framed`
    #[arg(long)]
    framed: bool,
    /// Compact protocol (binary otherwise), as HBase's `--compact`
    #[arg(long)]
    compact: bool,
    /// Seconds an idle scanner lives
    #[arg(long, default_value_t = 60)]
    scanner_lease_secs: u64,
}

pub fn run(args: &Args) -> Result<()> {
    let stop = crate::cluster::stop_flag()?;
    crate::connect::guard_bind(args.gateway.bind, args.gateway.insecure, false)?;
    let tls = args.gateway.listener_tls()?;
    let (conn, place) = args.gateway.remote()?;
    // TRegionInfo names the region server: the one this gateway talks to.
    let server = conn.server_name();
    let mut parts = server.split(',');
    let host = parts.next().unwrap_or("localhost").to_owned();
    let port = parts.next().and_then(|p| p.parse().ok()).unwrap_or(16020);
    let config = ThriftConfig {
        tls,
        bind: SocketAddr::new(args.gateway.bind, args.port),
        framed: args.framed,
        compact: args.compact,
        max_message: (args.gateway.max_request_mb as usize) << 20,
        scanner_lease: Duration::from_secs(args.scanner_lease_secs),
        server_host: host,
        server_port: port,
        max_connections: args.gateway.max_connections as usize,
        ..ThriftConfig::default()
    };
    let thrift = ThriftServer::start(
        Arc::new(basalt_embedded::LayoutClient::new(Arc::new(conn))),
        config,
    )
    .with_context(|| format!("cannot listen on {}:{}", args.gateway.bind, args.port))?;
    crate::say!(
        "thrift listening on {} ({}, {}), serving {place}",
        thrift.local_addr(),
        if args.framed { "framed" } else { "buffered" },
        if args.compact { "compact" } else { "binary" }
    );
    crate::connect::serve_until_stopped(&stop, || thrift.shutdown());
    Ok(())
}
