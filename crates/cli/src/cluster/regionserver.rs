//! `basalt regionserver`: one region server of a cluster.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, bail};
use basalt_coord::{NodeKind, RS_DIR, ZkSession};
use basalt_regionserver::admin_service::AdminService;
use basalt_regionserver::client_service::ClientService;
use basalt_regionserver::process::{RunningServer, ServerSettings};
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
    let access = Arc::clone(&settings.access);
    let server = RunningServer::start(settings)
        .with_context(|| format!("cannot start on {}", args.common.data.display()))?;
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
        handlers: args.rpc_handlers,
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
    say!(
        "regionserver {name} listening on {addr}; data in {}",
        args.common.data.display()
    );
    crate::info::announce(info.as_ref(), "region server");
    let mut splits = SplitRequests::new(&args.common.zookeeper, tls);
    let mut grants = GrantFollower::default();
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
        splits.tick(&server.rs);
        if access.is_enabled() {
            grants.tick(&zk, &access);
        }
        std::thread::sleep(Duration::from_millis(100));
    };
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

/// How often the server looks for regions that grew past their split size.
const SPLIT_CHECK: Duration = Duration::from_secs(2);
/// How long a region asked about waits before it is asked about again.
const SPLIT_RETRY: Duration = Duration::from_secs(10);

/// The region server's split requests (HBase's `CompactSplit.requestSplit`, which asks the
/// master): regions that grew past their table's split size go to the active master's
/// MasterService SplitRegion, which splits them through this server's AdminService.
struct SplitRequests {
    quorum: String,
    tls: Option<basalt_embedded::remote::TlsClient>,
    last_check: std::time::Instant,
    asked: std::collections::HashMap<Vec<u8>, std::time::Instant>,
}

impl SplitRequests {
    fn new(quorum: &str, tls: Option<basalt_embedded::remote::TlsClient>) -> Self {
        SplitRequests {
            quorum: quorum.to_owned(),
            tls,
            last_check: std::time::Instant::now(),
            asked: std::collections::HashMap::new(),
        }
    }

    fn tick(&mut self, rs: &basalt_regionserver::RegionServer) {
        if self.last_check.elapsed() < SPLIT_CHECK {
            return;
        }
        self.last_check = std::time::Instant::now();
        self.asked.retain(|_, at| at.elapsed() < SPLIT_RETRY);
        let grown: Vec<_> = rs
            .regions_to_split()
            .into_iter()
            .filter(|info| !self.asked.contains_key(&info.region_name()[..]))
            .collect();
        if grown.is_empty() {
            return;
        }
        // A split that cannot happen now (no master, no split point) is asked for again later.
        let Ok(master) = basalt_coord::master_server(&self.quorum, Duration::from_secs(5)) else {
            return;
        };
        let Ok(client) = basalt_embedded::remote::RpcClient::connect_with(
            master,
            "MasterService",
            basalt_embedded::remote::DEFAULT_USER,
            self.tls.as_ref(),
        ) else {
            return;
        };
        let _ = client.set_timeout(Some(Duration::from_secs(120)));
        for info in grown {
            self.asked
                .insert(info.region_name().to_vec(), std::time::Instant::now());
            let request = basalt_proto::pb::SplitTableRegionRequest {
                region_info: basalt_proto::schema::region_info_pb(&info),
                ..basalt_proto::pb::SplitTableRegionRequest::default()
            };
            let _: Result<basalt_proto::pb::ProcedureResponse, _> =
                client.call("SplitRegion", &request);
        }
    }
}

/// How often a region server looks for new grants in `/hbase/acl`.
const GRANTS_CHECK: Duration = Duration::from_millis(500);

/// Keeps a region server's grants as the active master last wrote them to `/hbase/acl`
/// (HBase's ZKPermissionWatcher): a grant or revoke is in force here within a look. Until
/// the node exists (no master has loaded `hbase:acl` yet) only superusers get anything.
#[derive(Default)]
struct GrantFollower {
    last_check: Option<std::time::Instant>,
    seen: Vec<u8>,
}

impl GrantFollower {
    fn tick(&mut self, zk: &ZkSession, access: &basalt_common::acl::AccessControl) {
        if self.last_check.is_some_and(|t| t.elapsed() < GRANTS_CHECK) {
            return;
        }
        self.last_check = Some(std::time::Instant::now());
        let Ok(Some(data)) = zk.get(basalt_coord::ACL_NODE) else {
            return;
        };
        if data == self.seen {
            return;
        }
        match basalt_coord::read_acl(&data) {
            Ok(grants) => access.set_grants(grants),
            // Kept as it was: a bad node is the master's to mend, not a reason to open up.
            Err(e) => eprintln!("WARNING: cannot read the grants in /hbase/acl: {e}"),
        }
        self.seen = data;
    }
}
