//! A Basalt cluster on the hosts of a [`Network`]: ZooKeeper on host `zk`, masters on `m*`,
//! region servers on `r*`, each a real `basalt` process in its host's namespace, bound to the
//! host's address, over one shared data directory. Processes can be killed (SIGKILL) and
//! restarted, paused (SIGSTOP) and resumed, started with a clock of their own (libfaketime,
//! through a file the test rewrites). Every process is stopped when the cluster is dropped.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use basalt_client::ServerAdmin;
use basalt_client::remote::{RemoteConfig, RemoteConnection};

use crate::hosts::{Host, Network};

/// libfaketime, as Debian installs it.
const FAKETIME: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

/// Where things are and how the servers are set.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The `basalt` binary.
    pub basalt: PathBuf,
    /// `tests/zookeeper/start.sh`.
    pub zookeeper_script: PathBuf,
    /// The run's directory: data, logs, clocks.
    pub dir: PathBuf,
    /// The servers' ZooKeeper session timeout.
    pub session_timeout: Duration,
    /// hbase-driver's client, for a share of the operations (none: Basalt's client alone).
    pub driver: Option<crate::driver::DriverSettings>,
}

/// The cluster; see the module documentation.
#[derive(Debug)]
pub struct Cluster<'n> {
    net: &'n Network,
    settings: Settings,
    /// `host:port` of ZooKeeper.
    pub quorum: String,
    zookeeper: Option<u32>,
    procs: BTreeMap<String, Child>,
    /// strace processes changing a process's disk calls, by the role traced.
    tracers: BTreeMap<String, Child>,
    /// CPU quotas, by role (dropped after the processes).
    groups: BTreeMap<String, crate::cpu::CpuGroup>,
}

const MASTER_PORT: u16 = 16000;
const SERVER_PORT: u16 = 16020;

impl<'n> Cluster<'n> {
    /// Starts ZooKeeper, then every master and region server at once, and waits (at most a
    /// minute) until the masters see every region server.
    pub fn start(net: &'n Network, settings: Settings) -> io::Result<Cluster<'n>> {
        for sub in ["logs", "clocks"] {
            std::fs::create_dir_all(settings.dir.join(sub))?;
        }
        let mut cluster = Cluster {
            net,
            quorum: String::new(),
            zookeeper: None,
            settings,
            procs: BTreeMap::new(),
            tracers: BTreeMap::new(),
            groups: BTreeMap::new(),
        };
        cluster.start_zookeeper(None)?;
        let roles: Vec<String> = net
            .hosts()
            .iter()
            .filter(|h| h.role.starts_with('m') || h.role.starts_with('r'))
            .map(|h| h.role.clone())
            .collect();
        for role in &roles {
            cluster.launch(role)?;
        }
        let servers = roles.iter().filter(|r| r.starts_with('r')).count();
        cluster.wait_for_servers(servers, Duration::from_secs(60))?;
        Ok(cluster)
    }

    /// Starts ZooKeeper on host `zk`, on `port` (again, keeping its data) or a free one.
    fn start_zookeeper(&mut self, port: Option<&str>) -> io::Result<()> {
        let zk = self.host("zk")?;
        let mut command = self.net.command(zk, "bash");
        command
            .arg(&self.settings.zookeeper_script)
            .arg(self.settings.dir.join("zookeeper"))
            .arg(zk.ip.to_string());
        if let Some(port) = port {
            command.arg(port);
        }
        let out = command.stderr(Stdio::inherit()).output()?;
        if !out.status.success() {
            return Err(io::Error::other("ZooKeeper did not start"));
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut words = text.split_whitespace();
        let port = words.next().unwrap_or_default().to_owned();
        self.zookeeper = words.next().and_then(|p| p.parse().ok());
        self.quorum = format!("{}:{port}", zk.ip);
        Ok(())
    }

    /// SIGKILL to ZooKeeper.
    pub fn kill_zookeeper(&mut self) -> io::Result<()> {
        if let Some(pid) = self.zookeeper.take() {
            Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status()?;
            // Gone once its port is free: at most a few seconds.
            for _ in 0..50 {
                if !Path::new(&format!("/proc/{pid}")).exists() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        Ok(())
    }

    /// Starts ZooKeeper again after [`Cluster::kill_zookeeper`], on the same port and data.
    pub fn restart_zookeeper(&mut self) -> io::Result<()> {
        let port = self
            .quorum
            .rsplit(':')
            .next()
            .unwrap_or_default()
            .to_owned();
        self.start_zookeeper(Some(&port))
    }

    /// The role of the active master, as the cluster status names it.
    pub fn active_master(&self) -> io::Result<String> {
        let config = RemoteConfig {
            operation_timeout: Duration::from_secs(3),
            rpc_timeout: Duration::from_secs(2),
            ..RemoteConfig::default()
        };
        let summary = self
            .connect(config)
            .and_then(|c| c.cluster_summary())
            .map_err(io::Error::other)?;
        let ip = summary.master.split(',').next().unwrap_or_default();
        self.net
            .hosts()
            .iter()
            .find(|h| h.role.starts_with('m') && h.ip.to_string() == ip)
            .map(|h| h.role.clone())
            .ok_or_else(|| io::Error::other(format!("no host is master {}", summary.master)))
    }

    /// Traces `role`'s fsync and fdatasync calls with strace, changing them as `inject` says
    /// (strace's `-e inject=` value: `delay_enter=2000000` stalls each for 2 s, `error=EIO`
    /// fails each): a disk that stalls or fails, for that process only. Undone by
    /// [`Cluster::untrace`].
    pub fn trace_disk(&mut self, role: &str, inject: &str) -> io::Result<()> {
        let pid = self.pid(role)?;
        let log = File::create(
            self.settings
                .dir
                .join("logs")
                .join(format!("{role}.strace")),
        )?;
        let tracer = Command::new("strace")
            .args(["-f", "-qq", "-p", &pid.to_string()])
            .args(["-e", "trace=fsync,fdatasync"])
            .args(["-e", &format!("inject=fsync,fdatasync:{inject}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()?;
        self.tracers.insert(role.to_owned(), tracer);
        // strace attaches each thread in turn.
        std::thread::sleep(Duration::from_millis(300));
        Ok(())
    }

    /// Gives `role`'s process a CPU quota of `cpus` (a cgroup of its own), from now on.
    pub fn confine(&mut self, role: &str, cpus: f64) -> io::Result<()> {
        let pid = self.pid(role)?;
        let name = format!("basalt-chaos-{}-{role}", std::process::id());
        let group = crate::cpu::CpuGroup::create(&name, cpus)?;
        group.add(pid)?;
        self.groups.insert(role.to_owned(), group);
        Ok(())
    }

    /// The CPU time the confined processes used so far, together.
    pub fn cpu_used(&self) -> io::Result<Duration> {
        self.groups.values().map(crate::cpu::CpuGroup::used).sum()
    }

    /// Stops tracing `role` (SIGTERM: strace detaches, the process goes on untouched).
    pub fn untrace(&mut self, role: &str) -> io::Result<()> {
        if let Some(mut tracer) = self.tracers.remove(role) {
            Command::new("kill")
                .args(["-TERM", &tracer.id().to_string()])
                .status()?;
            tracer.wait()?;
        }
        Ok(())
    }

    fn host(&self, role: &str) -> io::Result<&'n Host> {
        self.net
            .host(role)
            .ok_or_else(|| io::Error::other(format!("no host {role}")))
    }

    /// The clock file of `role`'s libfaketime (`+0s`: the real time).
    pub fn clock_file(&self, role: &str) -> PathBuf {
        self.settings.dir.join("clocks").join(role)
    }

    /// Starts (or starts again) the process of `role`: a master on `m*`, a region server on
    /// `r*`, its output appended to `logs/<role>.log`, its clock through libfaketime when
    /// that is installed.
    pub fn launch(&mut self, role: &str) -> io::Result<()> {
        let host = self.host(role)?;
        let (kind, port) = if role.starts_with('m') {
            ("master", MASTER_PORT)
        } else {
            ("regionserver", SERVER_PORT)
        };
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.settings.dir.join("logs").join(format!("{role}.log")))?;
        let clock = self.clock_file(role);
        if !clock.exists() {
            std::fs::write(&clock, "+0s\n")?;
        }
        let mut command = self
            .net
            .command(host, &self.settings.basalt.display().to_string());
        command
            .arg(kind)
            .arg("--data")
            .arg(self.settings.dir.join("data"))
            .args(["--zookeeper", &self.quorum])
            .args(["--bind", &host.ip.to_string(), "--insecure"])
            .args(["--port", &port.to_string(), "--info-port", "-1"])
            .args([
                "--session-timeout-ms",
                &self.settings.session_timeout.as_millis().to_string(),
            ])
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        if Path::new(FAKETIME).exists() {
            // The wall clock only: monotonic time (timeouts, leases) stays true.
            command
                .env("LD_PRELOAD", FAKETIME)
                .env("FAKETIME_TIMESTAMP_FILE", &clock)
                .env("FAKETIME_NO_CACHE", "1")
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env("FAKETIME_DONT_RESET", "1");
        }
        let child = command.spawn()?;
        self.procs.insert(role.to_owned(), child);
        Ok(())
    }

    fn pid(&self, role: &str) -> io::Result<u32> {
        self.procs
            .get(role)
            .map(Child::id)
            .ok_or_else(|| io::Error::other(format!("{role} is not running")))
    }

    fn signal(&self, role: &str, signal: &str) -> io::Result<()> {
        let pid = self.pid(role)?;
        let status = Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()?;
        if status.success() {
            Ok(())
        } else {
            Err(io::Error::other(format!(
                "kill {signal} {role} ({pid}) failed"
            )))
        }
    }

    /// SIGKILL, and waits for the process to be gone.
    pub fn kill(&mut self, role: &str) -> io::Result<()> {
        self.untrace(role)?;
        if let Some(mut child) = self.procs.remove(role) {
            // A paused process dies too.
            let _ = child.kill();
            child.wait()?;
        }
        Ok(())
    }

    /// SIGSTOP: the process stops answering anyone, with its sockets open.
    pub fn pause(&self, role: &str) -> io::Result<()> {
        self.signal(role, "-STOP")
    }

    /// SIGCONT.
    pub fn resume(&self, role: &str) -> io::Result<()> {
        self.signal(role, "-CONT")
    }

    /// Sets `role`'s wall clock `offset` from the real time (libfaketime's `+30s`, `-1m`).
    pub fn skew(&self, role: &str, offset: &str) -> io::Result<()> {
        std::fs::write(self.clock_file(role), format!("{offset}\n"))
    }

    /// Starts again every process that exited (a region server that found itself taken for
    /// dead aborts, as HBase's do, and its supervisor starts it again): their roles.
    pub fn restart_exited(&mut self) -> io::Result<Vec<String>> {
        let exited: Vec<String> = self
            .procs
            .iter_mut()
            .filter_map(|(role, child)| child.try_wait().ok().flatten().map(|_| role.clone()))
            .collect();
        for role in &exited {
            self.procs.remove(role);
            self.launch(role)?;
        }
        Ok(exited)
    }

    /// The roles of the region servers, running or not.
    pub fn servers(&self) -> Vec<String> {
        self.net
            .hosts()
            .iter()
            .filter(|h| h.role.starts_with('r'))
            .map(|h| h.role.clone())
            .collect()
    }

    /// A client connection through ZooKeeper, with `config`'s timeouts.
    pub fn connect(&self, config: RemoteConfig) -> basalt_client::Result<RemoteConnection> {
        RemoteConnection::through_zookeeper(&self.quorum, config)
    }

    /// Waits until the cluster status lists `servers` live region servers.
    pub fn wait_for_servers(&self, servers: usize, limit: Duration) -> io::Result<()> {
        let deadline = Instant::now() + limit;
        let config = RemoteConfig {
            operation_timeout: Duration::from_secs(3),
            rpc_timeout: Duration::from_secs(2),
            ..RemoteConfig::default()
        };
        loop {
            if let Ok(conn) = self.connect(config.clone())
                && conn
                    .cluster_summary()
                    .is_ok_and(|s| s.live_servers >= servers)
            {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(io::Error::other(format!(
                    "the cluster did not list {servers} region servers within {limit:?} (logs in {})",
                    self.settings.dir.join("logs").display()
                )));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

impl Drop for Cluster<'_> {
    fn drop(&mut self) {
        let traced: Vec<String> = self.tracers.keys().cloned().collect();
        for role in traced {
            let _ = self.untrace(&role);
        }
        let roles: Vec<String> = self.procs.keys().cloned().collect();
        for role in roles {
            let _ = self.resume(&role);
            let _ = self.kill(&role);
        }
        if let Some(pid) = self.zookeeper {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}
