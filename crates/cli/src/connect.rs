//! Reaching a running server over the native RPC, for the tools that are its clients
//! (`basalt shell`, `basalt thrift`): by address, or through ZooKeeper as HBase's clients do.

use std::net::{SocketAddr, ToSocketAddrs};

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Client, Connection};

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
    /// Allow listening on an address other than loopback although the gateway's callers are
    /// not authenticated
    #[arg(long)]
    pub insecure: bool,
    /// The user this gateway names to its server (SIMPLE authentication; a client
    /// certificate, when the server asks for one, names it instead) [default: basalt]
    #[arg(long)]
    pub user: Option<String>,
    /// Connections held open at once; more wait until one closes
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// The largest request accepted, in MiB (REST: a body; Thrift: a message)
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_request_mb: u32,
    /// Serve over TLS with this PEM certificate chain; the key comes from --tls-key or from
    /// this file (HBase's --ssl)
    #[arg(long)]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --tls-cert
    #[arg(long, requires = "tls_cert")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Call the server over TLS, trusting these PEM authorities' certificates
    #[arg(long)]
    pub rpc_tls_ca: Option<std::path::PathBuf>,
    /// The certificate shown to the server (which then names the gateway's user), PEM; the
    /// key comes from --rpc-tls-key or from this file
    #[arg(long, requires = "rpc_tls_ca")]
    pub rpc_tls_cert: Option<std::path::PathBuf>,
    /// The PEM private key of --rpc-tls-cert
    #[arg(long, requires = "rpc_tls_cert")]
    pub rpc_tls_key: Option<std::path::PathBuf>,
    /// Authenticate to the server with Kerberos: its principal (`hbase/host@REALM`); the
    /// ticket comes from the credential cache (kinit, KRB5CCNAME)
    #[arg(long)]
    pub kerberos_principal: Option<String>,
}

/// Refuses to listen on `ip` unless it is loopback, or every caller is `authenticated`
/// (TLS with client certificates), or the operator said `--insecure` (then warns).
pub fn guard_bind(ip: std::net::IpAddr, insecure: bool, authenticated: bool) -> Result<()> {
    if ip.is_loopback() || authenticated {
        return Ok(());
    }
    if !insecure {
        anyhow::bail!(
            "refusing to listen on {ip}: its callers would be neither encrypted nor \
             authenticated, so anyone who reaches it could act as anyone; serve TLS with client \
             certificates (--tls-cert, --tls-ca, --simple-auth false), bind 127.0.0.1, or pass \
             --insecure to accept that"
        );
    }
    eprintln!(
        "WARNING: listening on {ip} with callers that are not authenticated (--insecure): \
         anyone who reaches it can act as anyone"
    );
    Ok(())
}

impl GatewayArgs {
    /// Its listener's TLS (`--tls-cert`), as the server side of [`crate::tls::TlsArgs`].
    pub fn listener_tls(
        &self,
    ) -> Result<Option<std::sync::Arc<basalt_net::tls::rustls::ServerConfig>>> {
        crate::tls::TlsArgs {
            tls_cert: self.tls_cert.clone(),
            tls_key: self.tls_key.clone(),
            tls_ca: None,
        }
        .server()
    }

    /// Connects as [`remote_with`] does, as `--user`, over TLS with `--rpc-tls-ca`.
    pub fn remote(&self) -> Result<(RemoteConnection, String)> {
        let rpc_tls = crate::tls::TlsArgs {
            tls_cert: self.rpc_tls_cert.clone(),
            tls_key: self.rpc_tls_key.clone(),
            tls_ca: self.rpc_tls_ca.clone(),
        };
        remote_with(
            self.connect.as_deref(),
            self.zookeeper.as_deref(),
            self.user.as_deref(),
            &rpc_tls,
            self.kerberos_principal.as_deref(),
        )
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
/// at `zookeeper` names, and says which, for the operator. Names `user` (default: `basalt`)
/// to the server, which believes it when it allows SIMPLE authentication; over TLS when `tls`
/// trusts some authority (showing its certificate, which then names the user).
pub fn remote_with(
    connect: Option<&str>,
    zookeeper: Option<&str>,
    user: Option<&str>,
    tls: &crate::tls::TlsArgs,
    kerberos: Option<&str>,
) -> Result<(RemoteConnection, String)> {
    remote_tuned(connect, zookeeper, user, tls, kerberos, &|_| {})
}

/// [`remote_with`], the connection's settings changed by `tune` (timeouts, say).
pub fn remote_tuned(
    connect: Option<&str>,
    zookeeper: Option<&str>,
    user: Option<&str>,
    tls: &crate::tls::TlsArgs,
    kerberos: Option<&str>,
    tune: &dyn Fn(&mut RemoteConfig),
) -> Result<(RemoteConnection, String)> {
    let mut config = RemoteConfig {
        tls: tls.client()?,
        kerberos: kerberos.map(str::to_owned),
        ..RemoteConfig::default()
    };
    if let Some(u) = user {
        config.user = u.to_owned();
    }
    tune(&mut config);
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

/// Where a client tool (`basalt shell`, `export`, `import`, `copytable`, `rowcounter`,
/// `bulkload`) works: a data directory opened directly, or a running server or cluster.
#[derive(Debug, Clone, clap::Args)]
pub struct ClientArgs {
    /// Open this data directory directly (embedded mode) instead of connecting to a server.
    /// Fails if a server holds it.
    #[arg(long, conflicts_with_all = ["connect", "zookeeper"])]
    pub data: Option<PathBuf>,
    /// The server's RPC address, `HOST:PORT` (default 127.0.0.1:16020).
    #[arg(long, conflicts_with = "zookeeper")]
    pub connect: Option<String>,
    /// Find the server through ZooKeeper, `HOST:PORT` of the quorum.
    #[arg(long)]
    pub zookeeper: Option<String>,
    /// The user to connect as (HBase's SIMPLE authentication; a client certificate, when the
    /// server asks for one, names the user instead) [default: basalt]
    #[arg(long, conflicts_with = "data")]
    pub user: Option<String>,
    /// TLS to the server with --tls-ca, showing --tls-cert if given
    #[command(flatten)]
    pub tls: crate::tls::TlsArgs,
    /// Authenticate with Kerberos to the server whose principal this is (`hbase/host@REALM`),
    /// with the ticket kinit left in the credential cache (KRB5CCNAME)
    #[arg(long, conflicts_with = "data")]
    pub kerberos_principal: Option<String>,
}

/// A client tool's connection: the embedded one is closed (flushing) at the end.
pub enum Session {
    Embedded(Arc<Connection>),
    Remote(Arc<RemoteConnection>),
}

impl Session {
    pub fn client(&self) -> Arc<dyn Client> {
        match self {
            Session::Embedded(c) => Arc::clone(c) as Arc<dyn Client>,
            Session::Remote(c) => Arc::clone(c) as Arc<dyn Client>,
        }
    }

    /// The client by logical row keys: tables with a key layout (issue 34) are read and written
    /// as if their keys were plain.
    pub fn logical_client(&self) -> Arc<dyn Client> {
        self.layout_client()
    }

    /// [`Session::logical_client`], as itself (to ask a table's layout).
    pub fn layout_client(&self) -> Arc<basalt_embedded::LayoutClient> {
        Arc::new(basalt_embedded::LayoutClient::new(self.client()))
    }

    /// Closes an embedded data directory (a remote connection just goes).
    pub fn close(&self) -> Result<()> {
        if let Session::Embedded(conn) = self {
            conn.close().context("closing the data directory")?;
        }
        Ok(())
    }
}

impl ClientArgs {
    /// Opens the data directory or connects; also says where, for the operator.
    pub fn open(&self) -> Result<(Session, String)> {
        self.open_tuned(&|_| {})
    }

    /// [`ClientArgs::open`], a remote connection's settings changed by `tune`.
    pub fn open_tuned(&self, tune: &dyn Fn(&mut RemoteConfig)) -> Result<(Session, String)> {
        if let Some(dir) = &self.data {
            let conn = Connection::open(dir)
                .with_context(|| format!("opening data directory {}", dir.display()))?;
            return Ok((
                Session::Embedded(Arc::new(conn)),
                format!("data directory {}", dir.display()),
            ));
        }
        let (conn, place) = remote_tuned(
            self.connect.as_deref(),
            self.zookeeper.as_deref(),
            self.user.as_deref(),
            &self.tls,
            self.kerberos_principal.as_deref(),
            tune,
        )
        .map_err(|e| {
            if self.connect.is_none() && self.zookeeper.is_none() {
                e.context("no server (or use --data DIR)")
            } else {
                e
            }
        })?;
        Ok((Session::Remote(Arc::new(conn)), place))
    }
}
