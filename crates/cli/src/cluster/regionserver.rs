//! `basalt regionserver`: one region server of a cluster.

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, bail};
use basalt_coord::{NodeKind, RS_DIR, ZkSession};
use basalt_regionserver::admin_service::AdminService;
use basalt_regionserver::client_service::ClientService;
use basalt_regionserver::process::{RunningServer, ServerSettings};
use basalt_rpc::{RpcConfig, RpcServer, Services};

use super::{SESSION_TIMEOUT_MS, bind, session_timeout, stop_flag};
use crate::say;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shared data directory (every server of the cluster reaches it)
    #[arg(long, default_value = "./basalt-data")]
    data: PathBuf,
    /// The ZooKeeper quorum, `HOST:PORT`
    #[arg(long)]
    zookeeper: String,
    /// Address to listen on
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    bind: IpAddr,
    /// RPC port (ClientService, AdminService); 0 picks a free one
    #[arg(long, default_value_t = 16020)]
    port: u16,
    /// Milliseconds after which a silent server's ZooKeeper session ends and the master
    /// recovers its regions
    #[arg(long, default_value_t = SESSION_TIMEOUT_MS)]
    session_timeout_ms: u64,
    /// RPC handler threads for slow mutations (HBase's hbase.regionserver.handler.count)
    #[arg(long, default_value_t = 30)]
    rpc_handlers: usize,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let stop = stop_flag()?;
    let (listener, addr) = bind(args.bind, args.port)?;
    let settings = ServerSettings::new(
        Arc::new(basalt_fs::LocalFs),
        args.data.clone(),
        addr.to_string(),
        Arc::new(basalt_common::SystemClock),
    );
    let server = RunningServer::start(settings)
        .with_context(|| format!("cannot start on {}", args.data.display()))?;
    let name = server.name().to_string();
    let services = Services {
        client: Some(Arc::new(ClientService::new(
            Arc::clone(&server.rs),
            Duration::from_secs(60),
        ))),
        admin: Some(AdminService::new(Arc::clone(&server.rs), addr)),
        master: None,
    };
    let config = RpcConfig {
        bind: addr,
        handlers: args.rpc_handlers,
        ..RpcConfig::default()
    };
    let rpc = match RpcServer::serve(listener, services, config) {
        Ok(r) => r,
        Err(e) => {
            server.abort();
            bail!("cannot serve on {addr}: {e}");
        }
    };
    let zk = match ZkSession::connect(
        &args.zookeeper,
        session_timeout(args.session_timeout_ms),
        Duration::from_secs(15),
    )
    .and_then(|zk| {
        zk.create(&format!("{RS_DIR}/{name}"), b"", NodeKind::Ephemeral)
            .map(|_| zk)
    }) {
        Ok(zk) => zk,
        Err(e) => {
            rpc.shutdown();
            server.abort();
            bail!("cannot register in ZooKeeper at {}: {e}", args.zookeeper);
        }
    };
    say!(
        "regionserver {name} listening on {addr}; data in {}",
        args.data.display()
    );
    let why = loop {
        if stop.load(Ordering::Acquire) {
            break None;
        }
        if zk.is_lost() {
            break Some("its ZooKeeper session ended");
        }
        if server.is_fenced() {
            break Some("a master fenced its log (it was taken for dead)");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if let Some(why) = why {
        // Serve nothing more: the master has given (or is giving) its regions to others.
        eprintln!("ABORTING regionserver {name}: {why}");
        server.abort();
        rpc.shutdown();
        zk.close();
        bail!("regionserver {name} aborted: {why}");
    }
    say!("shutting down regionserver {name}: flushing its regions");
    rpc.shutdown();
    server.stop().context("stopping cleanly")?;
    zk.close();
    say!("stopped");
    Ok(())
}
