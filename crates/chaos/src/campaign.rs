//! A campaign: a cluster on hosts of their own, the register workload running throughout,
//! and faults (nemeses) one after another, each healed before the next; then the faults are
//! all healed, the cluster waited for, every register read once more, and the history checked
//! for linearizability. The run's directory gets the history, the verdict and a timeline
//! (`report`).

use basalt_client::prelude::*;
use std::io;
use std::net::Ipv4Addr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt_client::remote::{RemoteConfig, RemoteConnection};
use basalt_client::{ColumnFamilyDescriptor, TableDescriptor, TableName};

use crate::cluster::{Cluster, Settings};
use crate::driver::DriverClient;
use crate::hosts::Network;
use crate::linearizability::{Verdict, check};
use crate::models::Cells;
use crate::report::{self, Window};
use crate::workload::{self, Actor, Recorder, Rng, Shape};

/// The faults a campaign can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nemesis {
    /// A region server cut off from ZooKeeper (not from its clients or the master).
    PartitionZookeeper,
    /// A region server cut off from the master (not from ZooKeeper or clients).
    PartitionMaster,
    /// The clients cut off from one region server.
    PartitionClients,
    /// The cluster in two: the active master and a region server (a minority, which can still
    /// reach each other and the clients) cut off from ZooKeeper, the other master and the
    /// other region servers.
    PartitionHalves,
    /// The active master cut off from every other host, clients included.
    IsolateMaster,
    /// A region server paused (SIGSTOP) past its session timeout, then resumed.
    Pause,
    /// A region server killed (SIGKILL), then started again.
    Kill,
    /// The active master killed, then started again.
    KillMaster,
    /// ZooKeeper killed, then started again on its data.
    KillZookeeper,
    /// A region server's link slowed (2 Mbit/s) and lossy (3% of packets dropped each way).
    SlowLink,
    /// A region server's wall clock a minute ahead, then a minute behind.
    ClockSkew,
    /// A region server's disk stalls: each fsync and fdatasync takes 2 s longer.
    DiskStall,
    /// A region server's disk fails: each fsync and fdatasync answers EIO.
    DiskFail,
}

impl Nemesis {
    pub const ALL: [Nemesis; 13] = [
        Nemesis::PartitionZookeeper,
        Nemesis::PartitionMaster,
        Nemesis::PartitionClients,
        Nemesis::PartitionHalves,
        Nemesis::IsolateMaster,
        Nemesis::Pause,
        Nemesis::Kill,
        Nemesis::KillMaster,
        Nemesis::KillZookeeper,
        Nemesis::SlowLink,
        Nemesis::ClockSkew,
        Nemesis::DiskStall,
        Nemesis::DiskFail,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Nemesis::PartitionZookeeper => "partition-zk",
            Nemesis::PartitionMaster => "partition-master",
            Nemesis::PartitionClients => "partition-clients",
            Nemesis::PartitionHalves => "partition-halves",
            Nemesis::IsolateMaster => "isolate-master",
            Nemesis::Pause => "pause",
            Nemesis::Kill => "kill",
            Nemesis::KillMaster => "kill-master",
            Nemesis::KillZookeeper => "kill-zk",
            Nemesis::SlowLink => "slow-link",
            Nemesis::ClockSkew => "clock-skew",
            Nemesis::DiskStall => "disk-stall",
            Nemesis::DiskFail => "disk-fail",
        }
    }

    /// A nemesis by its name.
    pub fn parse(name: &str) -> Option<Nemesis> {
        Nemesis::ALL.into_iter().find(|n| n.name() == name)
    }
}

/// What a campaign runs.
#[derive(Debug, Clone)]
pub struct Plan {
    pub settings: Settings,
    /// The faults, in order (each at least once).
    pub nemeses: Vec<Nemesis>,
    /// At least this long in all: the faults are repeated until it has passed.
    pub seconds: u64,
    pub seed: u64,
    pub servers: usize,
    /// The bridge's subnet (10.231.N.0/24) and the names' tag.
    pub subnet: u8,
    pub tag: String,
}

/// What a campaign found.
#[derive(Debug)]
pub struct Outcome {
    pub verdict: Verdict,
    pub operations: usize,
    /// Operations whose outcome is unknown.
    pub unknown: usize,
    pub windows: Vec<Window>,
}

const TABLE: &str = "chaos";
/// Keys of each kind (registers, lists, counters, rows) in turn.
const KEYS: usize = 12;

/// How many clients use Basalt's own client.
const BASALT_CLIENTS: usize = 6;

/// The hosts the clients run on (each client on one of them, in turn).
const CLIENT_HOSTS: [&str; 2] = ["c1", "c2"];

/// Runs `plan`; progress on stderr.
pub fn run(plan: &Plan) -> io::Result<Outcome> {
    let mut roles = vec!["zk".to_owned(), "m1".to_owned(), "m2".to_owned()];
    roles.extend((1..=plan.servers).map(|i| format!("r{i}")));
    roles.extend(CLIENT_HOSTS.iter().map(|&c| c.to_owned()));
    let roles: Vec<&str> = roles.iter().map(String::as_str).collect();
    let net = Network::create(&plan.tag, plan.subnet, &roles)?;
    eprintln!("chaos: hosts {:?} on 10.231.{}.0/24", roles, plan.subnet);
    let mut cluster = Cluster::start(&net, plan.settings.clone())?;
    eprintln!("chaos: cluster up (ZooKeeper {})", cluster.quorum);
    // Longer than a fault lasts (the session timeout and 3 s), so that an operation caught by
    // one mostly ends when it heals instead of becoming unknown.
    let config = RemoteConfig {
        operation_timeout: plan.settings.session_timeout + Duration::from_secs(5),
        rpc_timeout: Duration::from_secs(2),
        pause: Duration::from_millis(50),
        max_pause: Duration::from_millis(500),
        ..RemoteConfig::default()
    };
    let admin = cluster.connect(config.clone()).map_err(io::Error::other)?;
    let table = TableName::parse(TABLE).map_err(io::Error::other)?;
    // Split between rows (`k003~`, not `k004`): hbase-driver 1.1.1 looks a row up in
    // hbase:meta with a reversed scan from `table,row,`, which passes over the region that
    // starts at exactly that row (HBase's own client scans from `table,row,99999999999999`),
    // so it cannot reach a row that is a split key, on HBase as on Basalt.
    let splits: Vec<basalt_client::Bytes> = (1..plan.servers)
        .map(|i| basalt_client::Bytes::from(format!("k{:03}~", i * KEYS / plan.servers - 1)))
        .collect();
    admin
        .create_table(
            TableDescriptor::new(table.clone()).with_family(ColumnFamilyDescriptor::new("f")),
            &splits,
        )
        .map_err(io::Error::other)?;
    drop(admin);

    let start = Instant::now();
    let recorder = Arc::new(Recorder::new(start));
    let stop = Arc::new(AtomicBool::new(false));
    // ZooKeeper's address does not change when it restarts.
    let quorum = cluster.quorum.clone();
    // The last client is hbase-driver's, when it is installed.
    let driver = plan.settings.driver.clone();
    let clients = BASALT_CLIENTS + usize::from(driver.is_some());
    let connect = |client: usize| -> io::Result<Actor> {
        let host = net
            .host(CLIENT_HOSTS[client % CLIENT_HOSTS.len()])
            .ok_or_else(|| io::Error::other("no client host"))?;
        net.enter(host)?;
        match &driver {
            Some(driver) if client == BASALT_CLIENTS => Ok(Actor::Driver(DriverClient::new(
                driver.clone(),
                &quorum,
                TABLE,
                config.operation_timeout,
            ))),
            _ => RemoteConnection::through_zookeeper(&quorum, config.clone())
                .map(|c| Actor::Basalt(Box::new(c)))
                .map_err(io::Error::other),
        }
    };
    let shape = Shape {
        clients,
        keys: KEYS,
        think: Duration::from_millis(15),
        seed: plan.seed,
    };
    let mut windows = Vec::new();
    std::thread::scope(|s| -> io::Result<()> {
        let clients = s.spawn(|| workload::run(&connect, &table, &recorder, &shape, &stop));
        let faults = run_faults(plan, &net, &mut cluster, &recorder, &mut windows);
        stop.store(true, Ordering::Relaxed);
        clients
            .join()
            .map_err(|_| io::Error::other("a client thread panicked"))?;
        faults
    })?;
    // Everything healed: once the cluster is whole, each key read again.
    net.heal_all()?;
    cluster.wait_for_servers(plan.servers, Duration::from_secs(90))?;
    let mut finals = Actor::Basalt(Box::new(cluster.connect(config).map_err(io::Error::other)?));
    for key in 0..KEYS {
        let _ = workload::apply(
            &mut finals,
            &table,
            &recorder,
            99,
            key,
            workload::read_of(key),
        );
    }
    let mut history = recorder.history();
    let dropped = crate::models::drop_unseen_appends(&mut history);
    if dropped > 0 {
        eprintln!("chaos: {dropped} unknown appends never seen taken out of the history");
    }
    eprintln!(
        "chaos: {} operations; checking linearizability",
        history.len()
    );
    let checking = Instant::now();
    let verdict = check(&Cells, &history, Duration::from_secs(120));
    eprintln!(
        "chaos: checked in {:.1} s",
        checking.elapsed().as_secs_f64()
    );
    let unknown = history.iter().filter(|o| o.ret == u64::MAX).count();
    let unavailable = report::unavailability(&history, &windows);
    report::write(
        &plan.settings.dir,
        &history,
        &verdict,
        &windows,
        &unavailable,
    )?;
    Ok(Outcome {
        verdict,
        operations: history.len(),
        unknown,
        windows,
    })
}

/// The addresses of the hosts whose role passes `pick`.
fn addresses(net: &Network, pick: impl Fn(&str) -> bool) -> Vec<Ipv4Addr> {
    net.hosts()
        .iter()
        .filter(|h| pick(&h.role))
        .map(|h| h.ip)
        .collect()
}

/// Makes `nemesis`'s fault on `target` (a region server), holds it for `hold`, and heals it:
/// what it was made on.
fn fault(
    nemesis: Nemesis,
    target: &str,
    net: &Network,
    cluster: &mut Cluster<'_>,
    hold: Duration,
) -> io::Result<String> {
    let host = |role: &str| {
        net.host(role)
            .cloned()
            .ok_or_else(|| io::Error::other(format!("no host {role}")))
    };
    let server = host(target)?;
    let cut_for = |host: &crate::hosts::Host, from: &[Ipv4Addr]| -> io::Result<()> {
        net.cut(host, from)?;
        std::thread::sleep(hold);
        net.heal(host)
    };
    match nemesis {
        Nemesis::PartitionZookeeper => cut_for(&server, &addresses(net, |r| r == "zk"))?,
        Nemesis::PartitionMaster => cut_for(&server, &addresses(net, |r| r.starts_with('m')))?,
        Nemesis::PartitionClients => {
            let mut clients = addresses(net, |r| r.starts_with('c'));
            clients.push(net.gateway());
            cut_for(&server, &clients)?;
        }
        Nemesis::PartitionHalves => {
            let master = cluster.active_master()?;
            let minority = [host(&master)?, server.clone()];
            let majority = addresses(net, |r| {
                (r == "zk" || r.starts_with('m') || r.starts_with('r'))
                    && r != master
                    && r != target
            });
            for h in &minority {
                net.cut(h, &majority)?;
            }
            std::thread::sleep(hold);
            for h in &minority {
                net.heal(h)?;
            }
            return Ok(format!("{master}+{target}"));
        }
        Nemesis::IsolateMaster => {
            let master = cluster.active_master()?;
            let mut everyone = addresses(net, |r| r != master);
            everyone.push(net.gateway());
            cut_for(&host(&master)?, &everyone)?;
            return Ok(master);
        }
        Nemesis::Pause => {
            cluster.pause(target)?;
            std::thread::sleep(hold);
            cluster.resume(target)?;
        }
        Nemesis::Kill => {
            cluster.kill(target)?;
            std::thread::sleep(Duration::from_secs(2));
            cluster.launch(target)?;
        }
        Nemesis::KillMaster => {
            let master = cluster.active_master()?;
            cluster.kill(&master)?;
            std::thread::sleep(Duration::from_secs(2));
            cluster.launch(&master)?;
            return Ok(master);
        }
        Nemesis::KillZookeeper => {
            cluster.kill_zookeeper()?;
            std::thread::sleep(Duration::from_secs(2));
            cluster.restart_zookeeper()?;
            return Ok("zk".to_owned());
        }
        Nemesis::SlowLink => {
            net.slow(&server, "2mbit", 0.03)?;
            std::thread::sleep(hold);
            net.heal(&server)?;
        }
        Nemesis::ClockSkew => {
            cluster.skew(target, "+60s")?;
            std::thread::sleep(hold / 2);
            cluster.skew(target, "-60s")?;
            std::thread::sleep(hold / 2);
            cluster.skew(target, "+0s")?;
        }
        Nemesis::DiskStall | Nemesis::DiskFail => {
            let inject = if nemesis == Nemesis::DiskStall {
                "delay_enter=2000000"
            } else {
                "error=EIO"
            };
            cluster.trace_disk(target, inject)?;
            std::thread::sleep(hold);
            cluster.untrace(target)?;
        }
    }
    Ok(target.to_owned())
}

/// The faults, one after another, each healed; then repeated until the campaign's time is up.
fn run_faults(
    plan: &Plan,
    net: &Network,
    cluster: &mut Cluster<'_>,
    recorder: &Recorder,
    windows: &mut Vec<Window>,
) -> io::Result<()> {
    let session = plan.settings.session_timeout;
    let hold = session + Duration::from_secs(3);
    let recover = session + Duration::from_secs(4);
    let mut rng = Rng::new(plan.seed);
    let started = Instant::now();
    std::thread::sleep(Duration::from_secs(3));
    let mut round = 0;
    loop {
        for &nemesis in &plan.nemeses {
            let servers = cluster.servers();
            let target =
                servers[usize::try_from(rng.below(servers.len() as u64)).unwrap_or(0)].clone();
            let from = recorder.now();
            eprintln!("chaos: {}", nemesis.name());
            let target = fault(nemesis, &target, net, cluster, hold)
                .map_err(|e| io::Error::other(format!("making {}: {e}", nemesis.name())))?;
            eprintln!("chaos: {} on {target} healed", nemesis.name());
            windows.push(Window {
                fault: nemesis.name().to_owned(),
                target,
                from,
                to: recorder.now(),
            });
            // Back to whole before the next fault: what aborted is started again, as a
            // supervisor (systemd, Kubernetes) would.
            std::thread::sleep(recover);
            for role in cluster.restart_exited()? {
                eprintln!("chaos: {role} had exited; started again");
            }
            cluster
                .wait_for_servers(plan.servers, Duration::from_secs(60))
                .map_err(|e| io::Error::other(format!("after {}: {e}", nemesis.name())))?;
        }
        round += 1;
        if started.elapsed().as_secs() >= plan.seconds || round >= 50 {
            return Ok(());
        }
    }
}
