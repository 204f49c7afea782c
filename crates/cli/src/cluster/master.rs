//! `basalt master`: a cluster's master (active, or a backup until the active one goes).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{Context, bail};
use basalt_master::cluster::{ClusterMaster, ClusterSettings};
use basalt_master::hbck_service::HbckService;
use basalt_master::master_admin::MasterAdminService;
use basalt_master::master_service::{ClientMetaService, MasterService};
use basalt_rpc::{RpcServer, Services};

use super::{Common, bind, session_timeout, stop_flag};
use crate::say;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    common: Common,
    /// MasterService port; 0 picks a free one
    #[arg(long, default_value_t = 16000)]
    port: u16,
    /// Seconds between balancer runs (HBase's hbase.balancer.period, which --site can give
    /// and update_config change) [default: 300]; it also runs when a region server joins
    #[arg(long)]
    balancer_period_secs: Option<u64>,
    /// The info pages, /metrics and /jmx on this port (once active); 0 picks a free one, -1
    /// turns them off
    #[arg(long, default_value_t = 16010, allow_negative_numbers = true)]
    info_port: i32,
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let stop = stop_flag()?;
    let security = args.common.security()?;
    let tls = args.common.tls.client()?;
    let info_tls = args.common.tls.server()?;
    let (listener, addr) = bind(args.common.bind, args.port)?;
    let clock = basalt_common::SystemClock;
    let start_code = basalt_common::Clock::now_millis(&clock);
    let live = args.common.live_settings()?;
    if let Some(secs) = args.balancer_period_secs {
        live.set(
            basalt_common::site::BALANCER_PERIOD,
            secs.max(1).saturating_mul(1000),
        )?;
    }
    let settings = ClusterSettings {
        zookeeper: args.common.zookeeper.clone(),
        session_timeout: session_timeout(args.common.session_timeout_ms),
        call_timeout: Duration::from_secs(120),
        tls: tls.clone(),
        superusers: args.common.access(&security),
        fs: args.common.storage.file_system()?,
        root: args.common.data.clone(),
        clock: Arc::new(clock),
        host_port: addr.to_string(),
        start_code,
        live: Arc::clone(&live),
    };
    say!(
        "master {addr} starting; data in {}",
        args.common.data.display()
    );
    let progress = |what: &str| say!("master {addr}: {what}");
    let Some(cm) = ClusterMaster::start(settings, &stop, &progress)
        .context("cannot become the cluster's master")?
    else {
        say!("stopped before becoming active");
        return Ok(());
    };
    let mut rpc_config = args.common.rpc_config(addr, &security);
    rpc_config.cluster_id = Some(cm.master.cluster_id.clone());
    let master_service = Arc::new(
        MasterService::new(Arc::clone(&cm.master), addr, None)
            .with_start_code(start_code)
            .with_stop(Arc::clone(&stop))
            .with_secure_authentication(rpc_config.kerberos.is_some()),
    );
    let services = Services::new()
        .with(Arc::clone(&master_service) as Arc<dyn basalt_rpc::service::Service>)
        .with(Arc::new(ClientMetaService::new(master_service)))
        .with(Arc::new(HbckService::new(Arc::clone(&cm.master))))
        .with(Arc::new(MasterAdminService::new(
            live,
            basalt_common::ServerName::new(addr.to_string(), start_code),
        )));
    let rpc = RpcServer::serve(listener, services, rpc_config)
        .with_context(|| format!("cannot serve on {addr}"))?;
    // The pages show the cluster as its clients see it, through ZooKeeper.
    let info = if args.info_port == -1 {
        None
    } else {
        let client = crate::connect::remote_with(
            None,
            Some(&args.common.zookeeper),
            None,
            &args.common.tls,
            None,
        )
        .map(|(conn, _)| Arc::new(conn) as Arc<dyn basalt_embedded::Client>);
        match client.and_then(|client| {
            crate::info::start(
                args.common.bind,
                args.info_port,
                "master",
                Some(client),
                Some(crate::info::MasterSource {
                    master: Arc::clone(&cm.master),
                    name: format!("{},{start_code}", addr.to_string().replace(':', ",")),
                }),
                None,
                info_tls,
            )
        }) {
            Ok(info) => info,
            Err(e) => {
                rpc.shutdown();
                cm.resign();
                return Err(e);
            }
        }
    };
    say!("master {addr} active: MasterService listening");
    crate::info::announce(info.as_ref(), "master");
    let failed = loop {
        if stop.load(Ordering::Acquire) {
            break None;
        }
        if let Err(e) = cm.tick() {
            if e.to_string().contains("session is lost") {
                break Some(e);
            }
            // A recovery that failed part way is tried again on the next look.
            eprintln!("WARNING: master {addr}: {e}");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    if let Some(info) = info {
        info.shutdown();
    }
    rpc.shutdown();
    cm.resign();
    if let Some(e) = failed {
        bail!("master {addr} stopped: {e}");
    }
    say!("stopped");
    Ok(())
}
