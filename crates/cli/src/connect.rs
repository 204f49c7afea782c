//! Reaching a running server over the native RPC, for the tools that are its clients
//! (`basalt shell`, `basalt thrift`): by address, or through ZooKeeper as HBase's clients do.

use std::net::{SocketAddr, ToSocketAddrs};

use anyhow::{Context, Result};
use basalt_client::remote::{RemoteConfig, RemoteConnection};

/// HBase's region server port, where a server is looked for when no address is given.
pub const DEFAULT_SERVER: &str = "127.0.0.1:16020";

fn resolve(addr: &str) -> Result<SocketAddr> {
    addr.to_socket_addrs()
        .with_context(|| format!("bad server address {addr}"))?
        .next()
        .with_context(|| format!("{addr} resolves to no address"))
}

/// Where a gateway finds its server or cluster, and where it listens (`basalt thrift`,
/// `basalt rest`).
#[derive(Debug, clap::Args)]
pub struct GatewayArgs {
    /// The server's RPC address, `HOST:PORT` (default 127.0.0.1:16020)
    #[arg(long, conflicts_with = "zookeeper")]
    pub connect: Option<String>,
    /// Find the server or cluster through ZooKeeper, `HOST:PORT` of the quorum
    #[arg(long)]
    pub zookeeper: Option<String>,
    /// Address the gateway listens on
    #[arg(long, default_value_t = std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))]
    pub bind: std::net::IpAddr,
    /// Allow listening on an address other than loopback without TLS and authentication
    #[arg(long)]
    pub insecure: bool,
    /// Serve over TLS with this PEM certificate chain (with --tls-key; HBase's --ssl)
    #[arg(long, requires = "tls_key")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --tls-cert
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
}

/// Refuses to listen on `ip` unless it is loopback or the operator said `--insecure`: nothing
/// Basalt serves is encrypted or authenticated yet (issue 32). With `--insecure`, warns.
pub fn guard_bind(ip: std::net::IpAddr, insecure: bool) -> Result<()> {
    if ip.is_loopback() {
        return Ok(());
    }
    if !insecure {
        anyhow::bail!(
            "refusing to listen on {ip}: connections are neither encrypted nor authenticated \
             (no TLS yet), so anyone who reaches it could read and change everything; bind \
             127.0.0.1, or pass --insecure to accept that"
        );
    }
    eprintln!(
        "WARNING: listening on {ip} without TLS or authentication (--insecure): anyone who \
         reaches it can read and change everything"
    );
    Ok(())
}

/// The TLS configuration of `--tls-cert` and `--tls-key`, when given.
pub fn tls(
    cert: Option<&std::path::Path>,
    key: Option<&std::path::Path>,
) -> Result<Option<std::sync::Arc<basalt_net::http::rustls::ServerConfig>>> {
    match (cert, key) {
        (Some(cert), Some(key)) => Ok(Some(
            basalt_net::http::tls_config(cert, key).context("loading the TLS certificate")?,
        )),
        (None, None) => Ok(None),
        _ => anyhow::bail!("--tls-cert and --tls-key go together"),
    }
}

impl GatewayArgs {
    /// The TLS configuration its flags name, if any.
    pub fn tls(&self) -> Result<Option<std::sync::Arc<basalt_net::http::rustls::ServerConfig>>> {
        tls(self.tls_cert.as_deref(), self.tls_key.as_deref())
    }

    /// Connects as [`remote`] does.
    pub fn remote(&self) -> Result<(RemoteConnection, String)> {
        remote(self.connect.as_deref(), self.zookeeper.as_deref())
    }
}

/// Waits for SIGINT or SIGTERM (`stop`), then stops a gateway with `shutdown`, saying so.
pub fn serve_until_stopped(stop: &std::sync::atomic::AtomicBool, shutdown: impl FnOnce()) {
    while !stop.load(std::sync::atomic::Ordering::Acquire) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    crate::say!("shutting down: finishing calls in flight");
    shutdown();
    crate::say!("stopped");
}

/// Connects to the server at `connect` (default [`DEFAULT_SERVER`]), or to the one ZooKeeper
/// at `zookeeper` names; also says which, for the operator.
pub fn remote(
    connect: Option<&str>,
    zookeeper: Option<&str>,
) -> Result<(RemoteConnection, String)> {
    remote_as(connect, zookeeper, None)
}

/// [`remote`], naming `user` (default: `basalt`) to the server, which believes it when its
/// access control allows SIMPLE authentication.
pub fn remote_as(
    connect: Option<&str>,
    zookeeper: Option<&str>,
    user: Option<&str>,
) -> Result<(RemoteConnection, String)> {
    let mut config = RemoteConfig::default();
    if let Some(u) = user {
        config.user = u.to_owned();
    }
    if let Some(quorum) = zookeeper {
        let conn = RemoteConnection::through_zookeeper(quorum, config)
            .with_context(|| format!("connecting through ZooKeeper at {quorum}"))?;
        return Ok((conn, format!("server found through ZooKeeper {quorum}")));
    }
    let target = connect.unwrap_or(DEFAULT_SERVER);
    let conn = RemoteConnection::connect(resolve(target)?, config).with_context(|| {
        format!("connecting to {target} (start one with `basalt standalone --rpc-port 16020`)")
    })?;
    Ok((conn, format!("server {target}")))
}
