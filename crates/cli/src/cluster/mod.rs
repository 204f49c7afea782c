//! A cluster's processes: `basalt master` (the active master, or a backup waiting in
//! ZooKeeper) and `basalt regionserver` (a region server on the shared data directory,
//! registered in ZooKeeper), as HBase's `hbase master start` and `hbase regionserver start`.
//! SIGINT or SIGTERM stops either cleanly; a region server whose ZooKeeper session ends, or
//! whose log a master fenced, aborts rather than serve stale data.

pub mod local;
pub mod master;
pub mod regionserver;

/// `basalt cluster ...`.
#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Start a cluster on this machine: ZooKeeper, masters and region servers as child
    /// processes; Ctrl-C stops them all.
    Start(local::Args),
}

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::Context;

/// The defaults a cluster's processes share.
pub const SESSION_TIMEOUT_MS: u64 = 6000;

/// The settings a master and a region server share.
#[derive(Debug, clap::Args)]
pub struct Common {
    /// The shared data directory (every server of the cluster reaches it)
    #[arg(long, default_value = "./basalt-data")]
    pub data: std::path::PathBuf,
    #[command(flatten)]
    pub storage: crate::storage::StorageArgs,
    /// The ZooKeeper quorum, `HOST:PORT`
    #[arg(long)]
    pub zookeeper: String,
    /// Address to listen on
    #[arg(long, default_value_t = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST))]
    pub bind: IpAddr,
    /// Allow listening on an address other than loopback although callers are not
    /// authenticated by certificates
    #[arg(long)]
    pub insecure: bool,
    /// TLS on the RPC port and to the other servers (--tls-cert, --tls-ca); the servers of a
    /// cluster show each other their certificates
    #[command(flatten)]
    pub tls: crate::tls::TlsArgs,
    #[command(flatten)]
    pub auth: crate::tls::AuthArgs,
    /// Access control (HBase's hbase.security.authorization): every call checked against
    /// the grants in hbase:acl, which the master keeps and the region servers follow
    #[arg(long)]
    pub authorization: bool,
    /// A superuser (may do anything; with TLS, may call AdminService), a name or `@group`;
    /// repeatable. The cluster's servers (their certificate's name, or `basalt` without TLS)
    /// are superusers too
    #[arg(long = "superuser")]
    pub superusers: Vec<String>,
    /// Milliseconds after which a silent server's ZooKeeper session ends (and the master
    /// recovers a region server's regions)
    #[arg(long, default_value_t = SESSION_TIMEOUT_MS)]
    pub session_timeout_ms: u64,
    /// HBase's settings file (`hbase-site.xml` format); `update_config` reads it again and
    /// applies the settings that change live (docs/design/operations.md)
    #[arg(long)]
    pub site: Option<std::path::PathBuf>,
}

impl Common {
    /// The settings read from `--site` (HBase's defaults without one).
    pub fn live_settings(
        &self,
    ) -> anyhow::Result<std::sync::Arc<basalt_common::site::LiveSettings>> {
        Ok(std::sync::Arc::new(
            basalt_common::site::LiveSettings::load(self.site.as_deref())?,
        ))
    }

    /// With `--authorization`, the superusers: those named, and the cluster's servers (the
    /// name their certificate gives, or the user their calls name without TLS).
    pub fn access(&self, security: &crate::tls::RpcSecurity) -> Option<Vec<String>> {
        self.authorization.then(|| {
            let mut superusers = self.superusers.clone();
            superusers.push(
                security
                    .server_user
                    .clone()
                    .filter(|_| security.tls.is_some())
                    .unwrap_or_else(|| basalt_embedded::remote::DEFAULT_USER.to_owned()),
            );
            superusers
        })
    }

    /// The RPC port's TLS and authentication, after checking that listening on `--bind` is
    /// allowed.
    pub fn security(&self) -> anyhow::Result<crate::tls::RpcSecurity> {
        let security = self.auth.resolve(&self.tls, self.bind, self.insecure)?;
        crate::connect::guard_bind(self.bind, self.insecure, security.authenticated())?;
        Ok(security)
    }

    /// The RPC server's settings on `addr` with `security`: AdminService is for the
    /// cluster's servers (the name their certificate gives) and superusers once callers are
    /// authenticated.
    pub fn rpc_config(
        &self,
        addr: SocketAddr,
        security: &crate::tls::RpcSecurity,
    ) -> basalt_rpc::RpcConfig {
        let admin_callers = (!security.simple_auth).then(|| {
            let mut callers = self.superusers.clone();
            callers.extend(security.server_user.clone());
            callers
        });
        basalt_rpc::RpcConfig {
            bind: addr,
            tls: security.tls.clone(),
            simple_auth: security.simple_auth,
            admin_callers,
            groups: security.groups.clone(),
            kerberos: security.kerberos.clone(),
            ..basalt_rpc::RpcConfig::default()
        }
    }
}

/// A flag set by SIGINT or SIGTERM.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("cannot install the signal handlers")?;
    }
    Ok(stop)
}

/// Binds the RPC port (0: a free one) before anything is named after it.
pub fn bind(ip: IpAddr, port: u16) -> anyhow::Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(SocketAddr::new(ip, port))
        .with_context(|| format!("cannot listen on {ip}:{port}"))?;
    let addr = listener.local_addr()?;
    Ok((listener, addr))
}

/// The session timeout flag as a duration.
pub fn session_timeout(ms: u64) -> Duration {
    Duration::from_millis(ms.max(1000))
}
