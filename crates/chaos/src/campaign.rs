//! A campaign: a cluster on hosts of their own, the register workload running throughout,
//! and faults (nemeses) one after another, each healed before the next; then the faults are
//! all healed, the cluster waited for, every register read once more, and the history checked
//! for linearizability. The run's directory gets the history, the verdict and a timeline
//! (`report`).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use basalt_client::remote::RemoteConfig;
use basalt_client::{Client, ColumnFamilyDescriptor, TableDescriptor, TableName};

use crate::cluster::{Cluster, Settings};
use crate::hosts::Network;
use crate::linearizability::{Verdict, check};
use crate::models::{RegisterOp, Registers};
use crate::report::{self, Window};
use crate::workload::{self, Recorder, Rng, Shape};

/// The faults a campaign can make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nemesis {
    /// A region server cut off from ZooKeeper (not from its clients or the master).
    PartitionZookeeper,
    /// A region server cut off from the master (not from ZooKeeper or clients).
    PartitionMaster,
    /// The clients cut off from one region server.
    PartitionClients,
    /// A region server paused (SIGSTOP) past its session timeout, then resumed.
    Pause,
    /// A region server killed (SIGKILL), then started again.
    Kill,
    /// The master killed, then started again.
    KillMaster,
    /// A region server's link slowed (2 Mbit/s) and lossy (3% of packets dropped each way).
    SlowLink,
    /// A region server's wall clock a minute ahead, then a minute behind.
    ClockSkew,
}

impl Nemesis {
    pub const ALL: [Nemesis; 8] = [
        Nemesis::PartitionZookeeper,
        Nemesis::PartitionMaster,
        Nemesis::PartitionClients,
        Nemesis::Pause,
        Nemesis::Kill,
        Nemesis::KillMaster,
        Nemesis::SlowLink,
        Nemesis::ClockSkew,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Nemesis::PartitionZookeeper => "partition-zk",
            Nemesis::PartitionMaster => "partition-master",
            Nemesis::PartitionClients => "partition-clients",
            Nemesis::Pause => "pause",
            Nemesis::Kill => "kill",
            Nemesis::KillMaster => "kill-master",
            Nemesis::SlowLink => "slow-link",
            Nemesis::ClockSkew => "clock-skew",
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
    /// Writes and check-and-puts whose outcome is unknown.
    pub unknown: usize,
    pub windows: Vec<Window>,
    /// The longest stretch after each heal with no operation succeeding, by fault.
    pub unavailable: Vec<(String, Duration)>,
    pub dir: PathBuf,
}

const TABLE: &str = "chaos";
const KEYS: usize = 6;

/// Runs `plan`; progress on stderr.
pub fn run(plan: &Plan) -> io::Result<Outcome> {
    let mut roles = vec!["zk".to_owned(), "m1".to_owned()];
    roles.extend((1..=plan.servers).map(|i| format!("r{i}")));
    let roles: Vec<&str> = roles.iter().map(String::as_str).collect();
    let net = Network::create(&plan.tag, plan.subnet, &roles)?;
    eprintln!("chaos: hosts {:?} on 10.231.{}.0/24", roles, plan.subnet);
    let mut cluster = Cluster::start(&net, plan.settings.clone())?;
    eprintln!("chaos: cluster up (ZooKeeper {})", cluster.quorum);
    let config = RemoteConfig {
        operation_timeout: Duration::from_secs(4),
        rpc_timeout: Duration::from_secs(2),
        pause: Duration::from_millis(50),
        max_pause: Duration::from_millis(500),
        ..RemoteConfig::default()
    };
    let conn = Arc::new(cluster.connect(config.clone()).map_err(io::Error::other)?);
    let table = TableName::parse(TABLE).map_err(io::Error::other)?;
    let splits: Vec<basalt_client::Bytes> = (1..plan.servers)
        .map(|i| workload::row(i * KEYS / plan.servers))
        .collect();
    conn.create_table(
        TableDescriptor::new(table.clone()).with_family(ColumnFamilyDescriptor::new("f")),
        &splits,
    )
    .map_err(io::Error::other)?;

    let start = Instant::now();
    let recorder = Arc::new(Recorder::new(start));
    let stop = Arc::new(AtomicBool::new(false));
    let shape = Shape {
        clients: 5,
        keys: KEYS,
        think: Duration::from_millis(15),
        seed: plan.seed,
    };
    let mut windows = Vec::new();
    std::thread::scope(|s| -> io::Result<()> {
        let clients = s.spawn(|| workload::run(&conn, &table, &recorder, &shape, &stop));
        let faults = run_faults(plan, &net, &mut cluster, &recorder, &mut windows);
        stop.store(true, Ordering::Relaxed);
        clients
            .join()
            .map_err(|_| io::Error::other("a client thread panicked"))?;
        faults
    })?;
    // Everything healed: once the cluster is whole, each register read again.
    net.heal_all()?;
    cluster.wait_for_servers(plan.servers, Duration::from_secs(90))?;
    let finals = Arc::new(cluster.connect(config).map_err(io::Error::other)?);
    for key in 0..KEYS {
        let _ = workload::apply(&finals, &table, &recorder, 99, key, RegisterOp::Read);
    }
    let history = recorder.history();
    eprintln!(
        "chaos: {} operations; checking linearizability",
        history.len()
    );
    let verdict = check(&Registers, &history, Duration::from_secs(120));
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
        unavailable,
        dir: plan.settings.dir.clone(),
    })
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
            let host = net
                .host(&target)
                .ok_or_else(|| io::Error::other("no such host"))?
                .clone();
            let from = recorder.now();
            let shown = if nemesis == Nemesis::KillMaster {
                "m1"
            } else {
                &target
            };
            eprintln!("chaos: {} on {shown}", nemesis.name());
            let target = match nemesis {
                Nemesis::PartitionZookeeper => {
                    let zk = net.host("zk").map(|h| h.ip).into_iter().collect::<Vec<_>>();
                    net.cut(&host, &zk)?;
                    std::thread::sleep(hold);
                    net.heal(&host)?;
                    target
                }
                Nemesis::PartitionMaster => {
                    let masters: Vec<_> = net
                        .hosts()
                        .iter()
                        .filter(|h| h.role.starts_with('m'))
                        .map(|h| h.ip)
                        .collect();
                    net.cut(&host, &masters)?;
                    std::thread::sleep(hold);
                    net.heal(&host)?;
                    target
                }
                Nemesis::PartitionClients => {
                    net.cut(&host, &[net.gateway()])?;
                    std::thread::sleep(hold);
                    net.heal(&host)?;
                    target
                }
                Nemesis::Pause => {
                    cluster.pause(&target)?;
                    std::thread::sleep(hold);
                    cluster.resume(&target)?;
                    target
                }
                Nemesis::Kill => {
                    cluster.kill(&target)?;
                    std::thread::sleep(Duration::from_secs(2));
                    cluster.launch(&target)?;
                    target
                }
                Nemesis::KillMaster => {
                    cluster.kill("m1")?;
                    std::thread::sleep(Duration::from_secs(2));
                    cluster.launch("m1")?;
                    "m1".to_owned()
                }
                Nemesis::SlowLink => {
                    net.slow(&host, "2mbit", 0.03)?;
                    std::thread::sleep(hold);
                    net.heal(&host)?;
                    target
                }
                Nemesis::ClockSkew => {
                    cluster.skew(&target, "+60s")?;
                    std::thread::sleep(hold / 2);
                    cluster.skew(&target, "-60s")?;
                    std::thread::sleep(hold / 2);
                    cluster.skew(&target, "+0s")?;
                    target
                }
            };
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
