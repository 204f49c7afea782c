//! `basalt standalone`: one process hosting the engine on a data directory and its gateways
//! (Thrift1, and HBase's native RPC when asked). Settings come from flags, or from a config
//! file of `key = value` lines with the flags' names (flags win). SIGINT or SIGTERM shuts it
//! down cleanly.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::{Context, bail};
use basalt_embedded::Connection;
use basalt_thrift::{ThriftConfig, ThriftServer};

use crate::say;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Data directory [default: ./basalt-data]
    #[arg(long)]
    data: Option<PathBuf>,
    #[command(flatten)]
    storage: crate::storage::StorageArgs,
    /// Address the gateways listen on [default: 127.0.0.1]
    #[arg(long)]
    bind: Option<IpAddr>,
    /// Thrift1 port; 0 picks a free one [default: 9090]
    #[arg(long)]
    thrift_port: Option<u16>,
    /// Thrift2 (HBase's `hbase thrift2`, THBaseService) on this port too, with the same
    /// transport and protocol; off unless given. 0 picks a free port.
    #[arg(long)]
    thrift2_port: Option<u16>,
    /// Thrift framed transport (buffered otherwise), as HBase's `--framed`
    #[arg(long)]
    framed: bool,
    /// Thrift compact protocol (binary otherwise), as HBase's `--compact`
    #[arg(long)]
    compact: bool,
    /// Largest Thrift frame or message accepted, in MiB [default: 64]
    #[arg(long)]
    thrift_max_message_mb: Option<usize>,
    /// HBase's native RPC (ClientService so far) on this port; off unless given. 0 picks a
    /// free port. HBase's own port is 16020.
    #[arg(long)]
    rpc_port: Option<u16>,
    /// MasterService on a port of its own (HBase's 16000); otherwise the RPC port serves it
    #[arg(long)]
    master_port: Option<u16>,
    /// RPC handler threads for mutations that wait while more calls are queued on their
    /// connection (HBase's hbase.regionserver.handler.count); 0 runs every call on its
    /// connection's thread [default: 30]
    #[arg(long)]
    rpc_handlers: Option<usize>,
    /// Publish the servers in this ZooKeeper (HOST:PORT) as HBase does, for native clients;
    /// implies the RPC port (16020 unless given)
    #[arg(long)]
    zookeeper: Option<String>,
    /// Seconds an idle Thrift scanner lives [default: 60]
    #[arg(long)]
    scanner_lease_secs: Option<u64>,
    /// HBase's REST gateway on this port (HBase's own is 8080); off unless given. 0 picks a
    /// free port.
    #[arg(long)]
    rest_port: Option<u16>,
    /// The info pages, /metrics and /jmx on this port (HBase's master info port is 16010);
    /// 0 picks a free port, -1 turns them off [default: 16010]
    #[arg(long, allow_negative_numbers = true)]
    info_port: Option<i32>,
    /// Allow listening on an address other than loopback although callers are not all
    /// authenticated (the Thrift and REST gateways' never are)
    #[arg(long)]
    insecure: bool,
    /// TLS on every port (RPC, Thrift, REST, info pages) with --tls-cert; client
    /// certificates on the RPC port verified against --tls-ca
    #[command(flatten)]
    tls: crate::tls::TlsArgs,
    #[command(flatten)]
    auth: crate::tls::AuthArgs,
    /// Access control on (HBase's hbase.security.authorization): calls over the native RPC
    /// are checked against the grants in hbase:acl, as the user the connection names
    #[arg(long)]
    authorization: bool,
    /// A superuser (may do anything), a name or `@group`; repeatable (HBase's hbase.superuser)
    #[arg(long = "superuser")]
    superusers: Vec<String>,
    /// The user the Thrift and REST gateways act as under --authorization (their callers are
    /// not authenticated yet) [default: basalt]
    #[arg(long)]
    gateway_user: Option<String>,
    /// Connections each listener (RPC, Thrift, REST) holds open at once [default: 1000]
    #[arg(long)]
    max_connections: Option<usize>,
    /// The largest RPC request (HBase's hbase.ipc.max.request.size) and REST body accepted,
    /// in MiB [default: 256 for RPC, 64 for REST]
    #[arg(long)]
    max_request_mb: Option<usize>,
    /// A file of `key = value` lines with the same settings (e.g. `thrift-port = 9090`)
    #[arg(long)]
    config: Option<PathBuf>,
    /// HBase's settings file (`hbase-site.xml` format); `update_config` reads it again and
    /// applies the settings that change live (docs/design/operations.md)
    #[arg(long)]
    site: Option<PathBuf>,
}

/// Every setting, resolved.
#[derive(Debug, PartialEq)]
struct Settings {
    data: PathBuf,
    object_store: Option<String>,
    bind: IpAddr,
    thrift_port: u16,
    thrift2_port: Option<u16>,
    framed: bool,
    compact: bool,
    max_message_mb: usize,
    scanner_lease_secs: u64,
    rpc_port: Option<u16>,
    master_port: Option<u16>,
    rpc_handlers: usize,
    zookeeper: Option<String>,
    rest_port: Option<u16>,
    info_port: i32,
    authorization: bool,
    superusers: Vec<String>,
    gateway_user: String,
    insecure: bool,
    tls: crate::tls::TlsArgs,
    auth: crate::tls::AuthArgs,
    max_connections: usize,
    max_request_mb: Option<usize>,
    site: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            data: PathBuf::from("./basalt-data"),
            object_store: None,
            bind: IpAddr::from([127, 0, 0, 1]),
            thrift_port: 9090,
            thrift2_port: None,
            framed: false,
            compact: false,
            max_message_mb: 64,
            scanner_lease_secs: 60,
            rpc_port: None,
            master_port: None,
            rpc_handlers: 30,
            zookeeper: None,
            rest_port: None,
            info_port: 16010,
            authorization: false,
            superusers: Vec::new(),
            gateway_user: "basalt".into(),
            insecure: false,
            tls: crate::tls::TlsArgs::default(),
            auth: crate::tls::AuthArgs::default(),
            max_connections: 1000,
            max_request_mb: None,
            site: None,
        }
    }
}

fn parse<T: std::str::FromStr>(key: &str, value: &str, line: usize) -> anyhow::Result<T> {
    value
        .parse()
        .map_err(|_| anyhow::anyhow!("config line {line}: {key} cannot be {value:?}"))
}

/// Applies a config file's lines to `s`.
fn apply_file(s: &mut Settings, text: &str) -> anyhow::Result<()> {
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            bail!("config line {n}: expected `key = value`, got {line:?}");
        };
        let (key, value) = (key.trim(), value.trim().trim_matches('"'));
        if s.tls.apply(key, value)
            || s.auth
                .apply(key, value)
                .with_context(|| format!("config line {n}"))?
        {
            continue;
        }
        match key {
            "data" => s.data = PathBuf::from(value),
            "object-store" => s.object_store = Some(value.to_owned()),
            "bind" => s.bind = parse(key, value, n)?,
            "thrift-port" => s.thrift_port = parse(key, value, n)?,
            "thrift2-port" => s.thrift2_port = Some(parse(key, value, n)?),
            "framed" => s.framed = parse(key, value, n)?,
            "compact" => s.compact = parse(key, value, n)?,
            "thrift-max-message-mb" => s.max_message_mb = parse(key, value, n)?,
            "scanner-lease-secs" => s.scanner_lease_secs = parse(key, value, n)?,
            "rpc-port" => s.rpc_port = Some(parse(key, value, n)?),
            "master-port" => s.master_port = Some(parse(key, value, n)?),
            "rpc-handlers" => s.rpc_handlers = parse(key, value, n)?,
            "max-connections" => s.max_connections = parse(key, value, n)?,
            "max-request-mb" => s.max_request_mb = Some(parse(key, value, n)?),
            "zookeeper" => s.zookeeper = Some(value.to_owned()),
            "rest-port" => s.rest_port = Some(parse(key, value, n)?),
            "info-port" => s.info_port = parse(key, value, n)?,
            "authorization" | "hbase.security.authorization" => {
                s.authorization = parse(key, value, n)?;
            }
            "gateway-user" => s.gateway_user = value.to_owned(),
            "site" => s.site = Some(PathBuf::from(value)),
            "insecure" => s.insecure = parse(key, value, n)?,
            "superuser" | "hbase.superuser" => s.superusers.extend(
                value
                    .split(',')
                    .map(|u| u.trim().to_owned())
                    .filter(|u| !u.is_empty()),
            ),
            other => bail!(
                "config line {n}: unknown setting {other:?} (known: data, object-store, bind, thrift-port, \
                 thrift2-port, framed, compact, thrift-max-message-mb, scanner-lease-secs, rpc-port, master-port, \
                 rpc-handlers, max-connections, zookeeper, rest-port, info-port, authorization, superuser, \
                 gateway-user, insecure, tls-cert, tls-key, tls-ca, tls-client-auth, \
                 tls-plaintext, tls-user-rule, simple-auth, group-mapping, user-groups, \
                 kerberos-principal, max-connections, max-request-mb, site; and HBase's names \
                 hbase.security.authorization, hbase.superuser, \
                 hbase.rpc.tls.keystore.location, hbase.rpc.tls.truststore.location, \
                 hbase.server.netty.tls.client.auth.mode, \
                 hbase.server.netty.tls.supportplaintext)"
            ),
        }
    }
    Ok(())
}

fn resolve(args: &Args) -> anyhow::Result<Settings> {
    let mut s = Settings::default();
    if let Some(path) = &args.config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read config file {}", path.display()))?;
        apply_file(&mut s, &text).with_context(|| format!("in {}", path.display()))?;
    }
    if let Some(d) = &args.data {
        s.data.clone_from(d);
    }
    if args.site.is_some() {
        s.site.clone_from(&args.site);
    }
    if let Some(url) = &args.storage.object_store {
        s.object_store = Some(url.clone());
    }
    if let Some(b) = args.bind {
        s.bind = b;
    }
    if let Some(p) = args.thrift_port {
        s.thrift_port = p;
    }
    if args.thrift2_port.is_some() {
        s.thrift2_port = args.thrift2_port;
    }
    s.framed |= args.framed;
    s.compact |= args.compact;
    if let Some(m) = args.thrift_max_message_mb {
        s.max_message_mb = m;
    }
    if let Some(l) = args.scanner_lease_secs {
        s.scanner_lease_secs = l;
    }
    if args.rpc_port.is_some() {
        s.rpc_port = args.rpc_port;
    }
    if args.master_port.is_some() {
        s.master_port = args.master_port;
    }
    if let Some(h) = args.rpc_handlers {
        s.rpc_handlers = h;
    }
    if let Some(m) = args.max_connections {
        s.max_connections = m;
    }
    if s.max_connections == 0 {
        bail!("max-connections must be at least 1");
    }
    if args.max_request_mb.is_some() {
        s.max_request_mb = args.max_request_mb;
    }
    if s.max_request_mb == Some(0) {
        bail!("max-request-mb must be at least 1");
    }
    if args.zookeeper.is_some() {
        s.zookeeper.clone_from(&args.zookeeper);
    }
    if args.rest_port.is_some() {
        s.rest_port = args.rest_port;
    }
    if let Some(p) = args.info_port {
        s.info_port = p;
    }
    s.authorization |= args.authorization;
    s.insecure |= args.insecure;
    s.tls.merge(&args.tls);
    s.auth.merge(&args.auth);
    if let Some(u) = &args.gateway_user {
        s.gateway_user.clone_from(u);
    }
    s.superusers.extend(args.superusers.iter().cloned());
    if s.authorization && s.superusers.is_empty() {
        bail!("--authorization needs at least one --superuser (who else could grant anything?)");
    }
    if s.zookeeper.is_some() && s.rpc_port.is_none() {
        s.rpc_port = Some(16020);
    }
    if s.max_message_mb == 0 {
        bail!("thrift-max-message-mb must be at least 1");
    }
    Ok(s)
}

/// What the Thrift and REST gateways serve: the engine itself, or, under access control, the
/// engine as the gateway's user.
fn gateway_client(
    conn: &Connection,
    s: &Settings,
    groups: &basalt_common::acl::GroupMapping,
) -> Arc<dyn basalt_embedded::Client> {
    let client: Arc<dyn basalt_embedded::Client> = if s.authorization {
        Arc::new(conn.as_user(basalt_common::acl::User {
            name: s.gateway_user.clone(),
            groups: groups.groups_of(&s.gateway_user),
        }))
    } else {
        Arc::new(conn.clone())
    };
    // Tables with a key layout are read and written by their logical keys (issue 34).
    Arc::new(basalt_embedded::LayoutClient::new(client))
}

/// The Thrift gateways of a standalone server: Thrift1 always, Thrift2 when asked for.
struct Thrifts {
    thrift1: ThriftServer,
    thrift2: Option<ThriftServer>,
}

impl Thrifts {
    fn shutdown(self) {
        if let Some(t) = self.thrift2 {
            t.shutdown();
        }
        self.thrift1.shutdown();
    }
}

/// Starts Thrift1, and Thrift2 on `--thrift2-port`, with the same transport and protocol.
fn start_thrift(
    conn: &Connection,
    s: &Settings,
    groups: &basalt_common::acl::GroupMapping,
    config: ThriftConfig,
) -> anyhow::Result<Thrifts> {
    let transport = |t: &ThriftServer, name: &str| {
        say!(
            "{name} listening on {} ({}, {})",
            t.local_addr(),
            if s.framed { "framed" } else { "buffered" },
            if s.compact { "compact" } else { "binary" }
        );
    };
    let thrift1 = ThriftServer::start(gateway_client(conn, s, groups), config.clone())
        .with_context(|| format!("cannot listen on {}:{}", s.bind, s.thrift_port))?;
    transport(&thrift1, "thrift");
    let Some(port) = s.thrift2_port else {
        return Ok(Thrifts {
            thrift1,
            thrift2: None,
        });
    };
    let config = ThriftConfig {
        bind: SocketAddr::new(s.bind, port),
        ..config
    };
    match ThriftServer::start_thrift2(gateway_client(conn, s, groups), config) {
        Ok(thrift2) => {
            transport(&thrift2, "thrift2");
            Ok(Thrifts {
                thrift1,
                thrift2: Some(thrift2),
            })
        }
        Err(e) => {
            thrift1.shutdown();
            Err(anyhow::anyhow!("cannot listen on {}:{port}: {e}", s.bind))
        }
    }
}

/// Opens the engine; meta names `server` (`host:port`) as every region's server, so native
/// clients that read region locations from meta come to this process's RPC port.
fn open(data: &Path, server: &str, s: &Settings) -> anyhow::Result<Connection> {
    let mut builder = Connection::builder();
    if s.authorization {
        builder = builder.authorization(s.superusers.clone());
    }
    let settings = basalt_common::site::LiveSettings::load(s.site.as_deref())?;
    builder
        .settings(Arc::new(settings))
        .file_system(crate::storage::file_system(s.object_store.as_deref())?)
        .root(data)
        .server_name(server)
        .open()
        .with_context(|| {
            format!(
                "cannot open the data directory {} (is another basalt using it?)",
                data.display()
            )
        })
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let s = resolve(args)?;
    let security = s.auth.resolve(&s.tls, s.bind, s.insecure)?;
    // Thrift always listens, and its callers are not authenticated: beyond loopback it
    // takes --insecure, however the RPC port is guarded.
    crate::connect::guard_bind(s.bind, s.insecure, false)?;
    let tls = s.tls.server()?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("cannot install the signal handlers")?;
    }
    // A free RPC port is chosen now (port 0), so meta can name it before the server starts.
    let mut s = s;
    if s.rpc_port == Some(0) {
        let probe = std::net::TcpListener::bind(SocketAddr::new(s.bind, 0))
            .context("choosing a free RPC port")?;
        s.rpc_port = Some(probe.local_addr()?.port());
    }
    let server = format!("{}:{}", s.bind, s.rpc_port.unwrap_or(16020));
    let conn = open(&s.data, &server, &s)?;
    let config = ThriftConfig {
        bind: SocketAddr::new(s.bind, s.thrift_port),
        framed: s.framed,
        compact: s.compact,
        max_message: s.max_message_mb << 20,
        scanner_lease: Duration::from_secs(s.scanner_lease_secs),
        server_host: s.bind.to_string(),
        tls: tls.clone(),
        max_connections: s.max_connections,
        ..ThriftConfig::default()
    };
    let thrift = match start_thrift(&conn, &s, &security.groups, config) {
        Ok(t) => t,
        Err(e) => {
            conn.close()?;
            return Err(e);
        }
    };
    let rpc = match start_rpc(&s, &security, &conn) {
        Ok(rpc) => rpc,
        Err(e) => {
            thrift.shutdown();
            conn.close()?;
            return Err(e);
        }
    };
    let rest = match s.rest_port {
        None => None,
        Some(port) => {
            let config = basalt_rest::RestConfig {
                bind: SocketAddr::new(s.bind, port),
                scanner_lease: Duration::from_secs(s.scanner_lease_secs),
                server_name: basalt_embedded::ServerAdmin::server_name(&conn),
                tls: tls.clone(),
                max_connections: s.max_connections,
                max_body: s
                    .max_request_mb
                    .map_or(basalt_rest::RestConfig::default().max_body, |m| m << 20),
                ..basalt_rest::RestConfig::default()
            };
            match basalt_rest::RestServer::start(
                gateway_client(&conn, &s, &security.groups),
                config,
            ) {
                Ok(r) => {
                    say!("rest listening on {}", r.local_addr());
                    Some(r)
                }
                Err(e) => {
                    thrift.shutdown();
                    rpc.shutdown();
                    conn.close()?;
                    bail!("cannot listen on {}:{port}: {e}", s.bind);
                }
            }
        }
    };
    let engine = conn.engine();
    let info = match crate::info::start(
        s.bind,
        s.info_port,
        "master and region server",
        Some(Arc::new(conn.clone())),
        Some(crate::info::MasterSource {
            master: engine.master(),
            name: basalt_embedded::ServerAdmin::server_name(&conn),
        }),
        Some(conn.region_server()),
        tls.clone(),
    ) {
        Ok(info) => info,
        Err(e) => {
            if let Some(rest) = rest {
                rest.shutdown();
            }
            thrift.shutdown();
            rpc.shutdown();
            conn.close()?;
            return Err(e);
        }
    };
    crate::info::announce(info.as_ref(), "master and region server");
    if s.authorization {
        eprintln!(
            "WARNING: the Thrift{} gateway does not authenticate its callers yet: every call \
             through it runs as user {:?}",
            if s.rest_port.is_some() {
                " and REST"
            } else {
                ""
            },
            s.gateway_user
        );
    }
    say!("data in {}; stop with Ctrl-C or SIGTERM", s.data.display());
    while !stop.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(100));
    }
    say!("shutting down: finishing calls in flight");
    if let Some(info) = info {
        info.shutdown();
    }
    if let Some(rest) = rest {
        rest.shutdown();
    }
    thrift.shutdown();
    rpc.shutdown();
    conn.close().context("closing the engine")?;
    say!("stopped");
    Ok(())
}

/// Who may call AdminService (open, close, flush regions) once callers are authenticated:
/// the superusers, and servers showing this process's own certificate. None: anyone.
fn admin_callers(s: &Settings, security: &crate::tls::RpcSecurity) -> Option<Vec<String>> {
    if security.simple_auth {
        return None;
    }
    let mut callers = s.superusers.clone();
    callers.extend(security.server_user.clone());
    Some(callers)
}

/// The native RPC servers and the ZooKeeper publication, when asked for.
#[derive(Default)]
struct Rpc {
    servers: Vec<basalt_rpc::RpcServer>,
    zookeeper: Option<basalt_coord::ZkPublisher>,
}

impl Rpc {
    fn shutdown(self) {
        // Unpublish first, so clients stop coming before the servers stop answering.
        if let Some(z) = self.zookeeper {
            z.shutdown();
        }
        for s in self.servers {
            s.shutdown();
        }
    }
}

fn start_rpc(
    s: &Settings,
    security: &crate::tls::RpcSecurity,
    conn: &Connection,
) -> anyhow::Result<Rpc> {
    let mut rpc = Rpc::default();
    let Some(port) = s.rpc_port else {
        return Ok(rpc);
    };
    let start = |port: u16,
                 what: &str,
                 region_server: Option<SocketAddr>|
     -> anyhow::Result<basalt_rpc::RpcServer> {
        let config = basalt_rpc::RpcConfig {
            bind: SocketAddr::new(s.bind, port),
            scanner_lease: Duration::from_secs(s.scanner_lease_secs),
            region_server,
            handlers: s.rpc_handlers,
            tls: security.tls.clone(),
            simple_auth: security.simple_auth,
            admin_callers: admin_callers(s, security),
            max_frame: s
                .max_request_mb
                .map_or(basalt_rpc::RpcConfig::default().max_frame, |m| m << 20),
            groups: security.groups.clone(),
            kerberos: security.kerberos.clone(),
            max_connections: s.max_connections,
            ..basalt_rpc::RpcConfig::default()
        };
        let server = conn
            .serve_rpc(config)
            .with_context(|| format!("cannot listen on {}:{port}", s.bind))?;
        say!("{what} listening on {}", server.local_addr());
        Ok(server)
    };
    let region_server = start(
        port,
        "rpc (ClientService, AdminService, MasterService)",
        None,
    )?;
    let rpc_port = region_server.local_addr().port();
    let region_server_addr = region_server.local_addr();
    rpc.servers.push(region_server);
    let mut master_port = rpc_port;
    if let Some(m) = s.master_port {
        let master = match start(m, "master (MasterService)", Some(region_server_addr)) {
            Ok(m) => m,
            Err(e) => {
                rpc.shutdown();
                return Err(e);
            }
        };
        master_port = master.local_addr().port();
        rpc.servers.push(master);
    }
    if let Some(quorum) = &s.zookeeper {
        // The same start code as meta's `info:serverstartcode` and AdminService's server name.
        let start_code = u64::try_from(conn.server_start_code()).unwrap_or(0);
        let published = basalt_coord::Published {
            host: s.bind.to_string(),
            rpc_port,
            master_port,
            start_code,
            cluster_id: conn.engine().master().cluster_id.clone(),
        };
        match basalt_coord::ZkPublisher::start(quorum, published, Duration::from_secs(15)) {
            Ok(z) => {
                say!(
                    "zookeeper: published /hbase/master and /hbase/meta-region-server to {quorum}"
                );
                rpc.zookeeper = Some(z);
            }
            Err(e) => {
                rpc.shutdown();
                return Err(e.into());
            }
        }
    }
    Ok(rpc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_file_then_flags() {
        let mut s = Settings::default();
        apply_file(
            &mut s,
            "# a comment\ndata = /tmp/x\nthrift-port = 9191\nframed = true\n\nrpc-handlers = 4\n",
        )
        .expect("valid");
        assert_eq!(s.rpc_handlers, 4);
        assert_eq!(s.data, PathBuf::from("/tmp/x"));
        assert_eq!(s.thrift_port, 9191);
        assert!(s.framed);
        let err = apply_file(&mut s, "thrift-port = lots").expect_err("bad value");
        assert!(err.to_string().contains("line 1: thrift-port"), "{err}");
        let err = apply_file(&mut s, "\nport = 1").expect_err("unknown key");
        assert!(
            err.to_string().contains("unknown setting \"port\""),
            "{err}"
        );
    }
}
