//! `basalt thrift` and `basalt thrift2`: the Thrift1 and Thrift2 gateways as processes of
//! their own, clients of a running server (by address or through ZooKeeper), as HBase's
//! Thrift servers are clients of their cluster. `basalt standalone` runs the same gateways on
//! its embedded engine. SIGINT or SIGTERM stops one after the calls in flight.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use basalt_embedded::ServerAdmin;
use basalt_thrift::{ThriftConfig, ThriftServer};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    gateway: crate::connect::GatewayArgs,
    /// The port; 0 picks a free one
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

/// Which service a gateway serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    /// `Hbase.thrift` (HBase's `hbase thrift`).
    Thrift1,
    /// THBaseService (HBase's `hbase thrift2`).
    Thrift2,
}

pub fn run(args: &Args, service: Service) -> Result<()> {
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
    let conn = Arc::new(basalt_embedded::LayoutClient::new(Arc::new(conn)));
    let (thrift, name) = match service {
        Service::Thrift1 => (ThriftServer::start(conn, config), "thrift"),
        Service::Thrift2 => (ThriftServer::start_thrift2(conn, config), "thrift2"),
    };
    let thrift =
        thrift.with_context(|| format!("cannot listen on {}:{}", args.gateway.bind, args.port))?;
    crate::say!(
        "{name} listening on {} ({}, {}), serving {place}",
        thrift.local_addr(),
        if args.framed { "framed" } else { "buffered" },
        if args.compact { "compact" } else { "binary" }
    );
    crate::connect::serve_until_stopped(&stop, || thrift.shutdown());
    Ok(())
}
