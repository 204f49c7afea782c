//! `basalt regionserver`: one region server of a cluster.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use basalt_coord::{NodeKind, RS_DIR, ZkSession};
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_regionserver::admin_service::AdminService;
use basalt_regionserver::client_service::ClientService;
use basalt_regionserver::cluster::ClusterRole;
use basalt_regionserver::process::{RunningServer, ServerSettings};
use basalt_regionserver::replication::ReplicationConfig;
use basalt_regionserver::replication::sink::Sink;
use basalt_rpc::{RpcConfig, RpcServer, Services};

use super::{Common, bind, session_timeout, stop_flag};
use crate::say;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// RPC port (ClientService, AdminService); 0 picks a free one
    #[arg(long, default_value_t = 16020)]
    port: u16,
    /// RPC handler threads for slow mutations (HBase's hbase.regionserver.handler.count)
    #[arg(long, default_value_t = 30)]
    rpc_handlers: usize,
    /// The info pages, /metrics and /jmx on this port; 0 picks a free one, -1 turns them off
    #[arg(long, default_value_t = 16030, allow_negative_numbers = true)]
    info_port: i32,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let stop = stop_flag()?;
    let security = args.common.security()?;
    let tls = args.common.tls.client()?;
    let info_tls = args.common.tls.server()?;
    let (listener, addr) = bind(args.common.bind, args.port)?;
    let mut settings = ServerSettings::new(
        args.common.storage.file_system()?,
        args.common.data.clone(),
        addr.to_string(),
        Arc::new(basalt_common::SystemClock),
    );
    // Fenced by the master's rename: nothing is acknowledged once its log is being split.
    settings.wal.fenced_by_rename = true;
    if let Some(superusers) = args.common.access(&security) {
        settings.access = Arc::new(basalt_common::acl::AccessControl::enabled(superusers));
    }
    settings.settings = args.common.live_settings()?;
    let access = Arc::clone(&settings.access);
    let server = RunningServer::start(settings)
        .with_context(|| format!("cannot start on {}", args.common.data.display()))?;
    let name = server.name().to_string();
    // Batches peer clusters replicate here go into this cluster through its own client,
    // connected the first time one comes.
    let quorum = args.common.zookeeper.clone();
    let sink_tls = tls.clone();
    let sink = Sink::new(
        Box::new(move || {
            let config = RemoteConfig {
                tls: sink_tls.clone(),
                ..RemoteConfig::default()
            };
            let conn = RemoteConnection::through_zookeeper(&quorum, config)?;
            Ok(Arc::new(conn) as Arc<dyn basalt_embedded::Client>)
        }),
        Arc::clone(&server.rs.sink_metrics),
    );
    // Coprocessors' writes to other tables go into this cluster through its own client too,
    // connected at the first.
    let quorum = args.common.zookeeper.clone();
    let coprocessor_tls = tls.clone();
    let cluster: std::sync::OnceLock<Arc<dyn basalt_embedded::Client>> = std::sync::OnceLock::new();
    let connect_lock = std::sync::Mutex::new(());
    server.rs.coprocessors.set_connector(Box::new(move || {
        let _one = connect_lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(c) = cluster.get() {
            return Ok(Arc::clone(c));
        }
        let config = RemoteConfig {
            tls: coprocessor_tls.clone(),
            ..RemoteConfig::default()
        };
        let conn: Arc<dyn basalt_embedded::Client> =
            Arc::new(RemoteConnection::through_zookeeper(&quorum, config)?);
        Ok(Arc::clone(cluster.get_or_init(|| conn)))
    }));
    // The quotas the active master publishes in /hbase/quota, which the role follows.
    let quotas = basalt_regionserver::quotas::QuotaCache::new(addr.to_string());
    let services = Services::new()
        .with(Arc::new(
            ClientService::new(Arc::clone(&server.rs), Duration::from_secs(60))
                .with_quotas(Arc::clone(&quotas)),
        ))
        .with(Arc::new(
            AdminService::new(Arc::clone(&server.rs), addr)
                .with_sink(Arc::new(sink))
                .with_stop(Arc::clone(&stop)),
        ));
    let config = RpcConfig {
        handlers: args.rpc_handlers,
        slow_log: Some(Arc::clone(&server.rs.slow_log)),
        ..args.common.rpc_config(addr, &security)
    };
    let rpc = match RpcServer::serve(listener, services, config) {
        Ok(r) => r,
        Err(e) => {
            server.abort();
            bail!("cannot serve on {addr}: {e}");
        }
    };
    let zk = match ZkSession::connect(
        &args.common.zookeeper,
        session_timeout(args.common.session_timeout_ms),
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
            bail!(
                "cannot register in ZooKeeper at {}: {e}",
                args.common.zookeeper
            );
        }
    };
    let info = match crate::info::start(
        args.common.bind,
        args.info_port,
        "region server",
        None,
        None,
        Some(Arc::clone(&server.rs)),
        info_tls,
    ) {
        Ok(info) => info,
        Err(e) => {
            rpc.shutdown();
            server.abort();
            zk.close();
            return Err(e);
        }
    };
    // Registered in ZooKeeper first, so no live server's queues look like a gone one's.
    server.rs.start_replication(ReplicationConfig::default());
    say!(
        "regionserver {name} listening on {addr}; data in {}",
        args.common.data.display()
    );
    crate::info::announce(info.as_ref(), "region server");
    let why =
        ClusterRole::new(&args.common.zookeeper, tls, quotas).run(&server, &zk, &access, &stop);
    if let Some(info) = info {
        info.shutdown();
    }
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
