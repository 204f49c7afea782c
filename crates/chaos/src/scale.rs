//! Scale-out in CPU terms (issue 45, part 7): the same load (`basalt pe`, run on a client host
//! of its own) against a standalone server and against clusters of 1 and 3 region servers,
//! each server on a host of its own with a CPU quota (a cgroup); throughput per CPU-second the
//! servers used. A cluster that scales keeps that figure as servers are added.

use std::io;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::cluster::{Cluster, Settings};
use crate::cpu::CpuGroup;
use crate::hosts::Network;

/// What to run.
#[derive(Debug, Clone)]
pub struct ScalePlan {
    pub basalt: PathBuf,
    pub zookeeper_script: PathBuf,
    pub dir: PathBuf,
    /// Each server's quota, in CPUs.
    pub cpus: f64,
    /// `basalt pe`'s operations per thread, and threads.
    pub rows: u64,
    pub threads: u32,
    pub subnet: u8,
    pub tag: String,
}

/// One measurement.
#[derive(Debug, Clone)]
pub struct Figure {
    /// `standalone`, `1 region server`, `3 region servers`.
    pub setup: String,
    /// The pe command.
    pub command: String,
    pub ops: u64,
    pub seconds: f64,
    /// CPU time the servers used meanwhile (region servers, or the standalone process).
    pub cpu_seconds: f64,
}

impl Figure {
    pub fn ops_per_second(&self) -> f64 {
        self.ops as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }

    pub fn ops_per_cpu_second(&self) -> f64 {
        self.ops as f64 / self.cpu_seconds.max(f64::MIN_POSITIVE)
    }
}

const COMMANDS: [&str; 2] = ["sequentialWrite", "randomRead"];

/// Runs the load's commands through `pe` (a command on the client host, its target flags
/// given), reading the servers' CPU with `used`.
fn measure(
    setup: &str,
    plan: &ScalePlan,
    pe: &dyn Fn() -> std::process::Command,
    used: &dyn Fn() -> io::Result<Duration>,
) -> io::Result<Vec<Figure>> {
    let mut figures = Vec::new();
    for command in COMMANDS {
        let before = used()?;
        let out = pe()
            .args(["--rows", &plan.rows.to_string()])
            .args(["--threads", &plan.threads.to_string()])
            .args(["--value-size", "100", "--json", command])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()?;
        let cpu = used()? - before;
        let text = String::from_utf8_lossy(&out.stdout);
        let report = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|v| v.get("command").and_then(|c| c.as_str()) == Some(command))
            .ok_or_else(|| {
                io::Error::other(format!("{setup}: pe {command} reported nothing: {text}"))
            })?;
        let figure = Figure {
            setup: setup.to_owned(),
            command: command.to_owned(),
            ops: report
                .get("ops")
                .and_then(serde_json::Value::as_u64)
                .unwrap_or(0),
            seconds: report
                .get("seconds")
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(0.0),
            cpu_seconds: cpu.as_secs_f64(),
        };
        eprintln!(
            "scale: {setup}, {command}: {:.0} ops/s, {:.0} ops per server CPU-second",
            figure.ops_per_second(),
            figure.ops_per_cpu_second()
        );
        figures.push(figure);
    }
    Ok(figures)
}

/// A standalone server on a host of its own, confined; stopped when dropped.
struct Standalone {
    child: Child,
    group: Option<CpuGroup>,
}

impl Drop for Standalone {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        drop(self.group.take());
    }
}

fn standalone(plan: &ScalePlan) -> io::Result<Vec<Figure>> {
    let net = Network::create(&format!("{}s", plan.tag), plan.subnet, &["s1", "c1"])?;
    let (server, client) = match (net.host("s1"), net.host("c1")) {
        (Some(s), Some(c)) => (s.clone(), c.clone()),
        _ => return Err(io::Error::other("no hosts")),
    };
    let dir = plan.dir.join("standalone");
    std::fs::create_dir_all(&dir)?;
    let log = std::fs::File::create(dir.join("standalone.log"))?;
    let child = net
        .command(&server, &plan.basalt.display().to_string())
        .arg("standalone")
        .arg("--data")
        .arg(dir.join("data"))
        .args(["--bind", &server.ip.to_string(), "--insecure"])
        .args(["--rpc-port", "16020", "--info-port", "-1"])
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()?;
    let mut running = Standalone { child, group: None };
    let group = CpuGroup::create(
        &format!("basalt-chaos-{}-standalone", std::process::id()),
        plan.cpus,
    )?;
    group.add(running.child.id())?;
    running.group = Some(group);
    let target = format!("{}:16020", server.ip);
    // Up once it answers.
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while std::net::TcpStream::connect_timeout(
        &target.parse().map_err(io::Error::other)?,
        Duration::from_millis(200),
    )
    .is_err()
    {
        if std::time::Instant::now() > deadline {
            return Err(io::Error::other("the standalone server did not start"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let basalt = plan.basalt.display().to_string();
    let pe = || {
        let mut c = net.command(&client, &basalt);
        c.args(["pe", "--rpc", &target]);
        c
    };
    let used = || {
        running
            .group
            .as_ref()
            .map_or(Ok(Duration::ZERO), CpuGroup::used)
    };
    measure("standalone", plan, &pe, &used)
}

fn cluster(plan: &ScalePlan, servers: usize) -> io::Result<Vec<Figure>> {
    let mut roles = vec!["zk".to_owned(), "m1".to_owned()];
    roles.extend((1..=servers).map(|i| format!("r{i}")));
    roles.push("c1".to_owned());
    let roles: Vec<&str> = roles.iter().map(String::as_str).collect();
    let net = Network::create(
        &format!("{}{servers}", plan.tag),
        plan.subnet.wrapping_add(u8::try_from(servers).unwrap_or(0)),
        &roles,
    )?;
    let mut cluster = Cluster::start(
        &net,
        Settings {
            basalt: plan.basalt.clone(),
            zookeeper_script: plan.zookeeper_script.clone(),
            dir: plan.dir.join(format!("cluster{servers}")),
            session_timeout: Duration::from_secs(10),
            driver: None,
        },
    )?;
    for role in cluster.servers() {
        cluster.confine(&role, plan.cpus)?;
    }
    let client = net
        .host("c1")
        .cloned()
        .ok_or_else(|| io::Error::other("no client host"))?;
    let basalt = plan.basalt.display().to_string();
    let quorum = cluster.quorum.clone();
    // Regions spread over the servers: a few each.
    let presplit = (4 * servers).to_string();
    let pe = || {
        let mut c = net.command(&client, &basalt);
        c.args(["pe", "--zookeeper", &quorum, "--presplit", &presplit]);
        c
    };
    let setup = if servers == 1 {
        "1 region server".to_owned()
    } else {
        format!("{servers} region servers")
    };
    measure(&setup, plan, &pe, &|| cluster.cpu_used())
}

/// Standalone, then clusters of 1 and 3 region servers.
pub fn run(plan: &ScalePlan) -> io::Result<Vec<Figure>> {
    let mut figures = standalone(plan)?;
    for servers in [1, 3] {
        figures.extend(cluster(plan, servers)?);
    }
    Ok(figures)
}

/// The figures as a Markdown table.
pub fn table(figures: &[Figure], cpus: f64) -> String {
    let mut text = format!(
        "| setup ({cpus} CPU per server) | command | ops/s | server CPU-seconds | ops per server CPU-second |\n|---|---|---|---|---|\n"
    );
    for f in figures {
        text.push_str(&format!(
            "| {} | {} | {:.0} | {:.1} | {:.0} |\n",
            f.setup,
            f.command,
            f.ops_per_second(),
            f.cpu_seconds,
            f.ops_per_cpu_second()
        ));
    }
    text
}
