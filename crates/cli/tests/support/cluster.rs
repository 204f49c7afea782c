//! A real cluster on this machine for tests: `basalt cluster start` (Debian's ZooKeeper,
//! masters and region servers as processes) in a process group of its own, killed whole when
//! the test ends.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use basalt_embedded::ServerAdmin;
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};

/// A cluster started by `basalt cluster start` in a process group of its own.
pub struct Cluster {
    pub child: Child,
    pub quorum: String,
    /// Region servers and masters: pid by address.
    pub servers: BTreeMap<String, u32>,
    pub masters: BTreeMap<String, u32>,
    output: Arc<Mutex<Vec<String>>>,
    pub dir: tempfile::TempDir,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // The whole group: the cluster process and every server and ZooKeeper it started
        // (the group is the cluster process's own: `process_group(0)`).
        let _ = Command::new("kill")
            .args(["-s", "KILL", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

pub fn word_after<'a>(line: &'a str, marker: &str) -> Option<&'a str> {
    line.split(marker)
        .nth(1)?
        .split([' ', ';'])
        .find(|w| !w.is_empty())
}

impl Cluster {
    pub fn start(servers: usize, masters: usize) -> Cluster {
        Self::start_with(servers, masters, &[])
    }

    /// A cluster whose processes get `flags` too.
    pub fn start_with(servers: usize, masters: usize, flags: &[&str]) -> Cluster {
        Self::start_with_env(servers, masters, flags, &[])
    }

    /// [`Cluster::start_with`], the processes given these environment variables.
    pub fn start_with_env(
        servers: usize,
        masters: usize,
        flags: &[&str],
        env: &[(&str, &str)],
    ) -> Cluster {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args(["cluster", "start", "--data"])
            .arg(dir.path().join("data"))
            .args(["--servers", &servers.to_string()])
            .args(["--masters", &masters.to_string()])
            .args(
                (!flags.contains(&"--session-timeout-ms"))
                    .then_some(["--session-timeout-ms", "3000"])
                    .into_iter()
                    .flatten(),
            )
            .args(flags)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .unwrap();
        let output = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        let kept = Arc::clone(&output);
        // Drained for the cluster's whole life, so its output never blocks it.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line.clone());
                let _ = tx.send(line);
            }
        });
        let mut cluster = Cluster {
            child,
            quorum: String::new(),
            servers: BTreeMap::new(),
            masters: BTreeMap::new(),
            output,
            dir,
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        // By the master's label (`master1`, ...): its pid, and its address.
        let mut master_pids: BTreeMap<String, u32> = BTreeMap::new();
        let mut master_addrs: BTreeMap<String, String> = BTreeMap::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no cluster within 120 s: {:?}", cluster.lines()));
            if let Some(q) = line.strip_prefix("zookeeper ") {
                cluster.quorum = q.split_whitespace().next().unwrap().to_owned();
            } else if line.starts_with("master") && line.contains(" pid ") {
                let label = line.split_whitespace().next().unwrap().to_owned();
                let pid = word_after(&line, " pid ").unwrap().parse().unwrap();
                master_pids.insert(label, pid);
            } else if line.starts_with("[master") && line.contains(" starting;") {
                let label = line[1..line.find(']').unwrap()].to_owned();
                master_addrs.insert(label, word_after(&line, "] master ").unwrap().to_owned());
            } else if line.starts_with("rs") && line.contains(" pid ") {
                let pid = word_after(&line, " pid ").unwrap().parse().unwrap();
                let addr = word_after(&line, "listening on ").unwrap().to_owned();
                cluster.servers.insert(addr, pid);
            } else if line.starts_with("cluster ready") {
                break;
            }
        }
        // Matched by label: the masters' own lines and the cluster's come in any order.
        cluster.masters = master_addrs
            .into_iter()
            .map(|(label, addr)| (addr, master_pids[&label]))
            .collect();
        cluster
    }

    pub fn lines(&self) -> Vec<String> {
        self.output.lock().unwrap().clone()
    }

    pub fn kill(pid: u32) {
        let status = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
        assert!(status.unwrap().success());
    }

    /// A client, once the master has taken on every region server.
    pub fn connect(&self) -> Arc<RemoteConnection> {
        self.connect_with(RemoteConfig::default())
    }

    /// [`Cluster::connect`] with `config` (its timeouts set here).
    pub fn connect_with(&self, config: RemoteConfig) -> Arc<RemoteConnection> {
        let config = RemoteConfig {
            operation_timeout: Duration::from_secs(60),
            rpc_timeout: Duration::from_secs(20),
            ..config
        };
        let conn = Arc::new(
            RemoteConnection::through_zookeeper(&self.quorum, config)
                .unwrap_or_else(|e| panic!("{e}: {:?}", self.lines())),
        );
        let deadline = Instant::now() + Duration::from_secs(60);
        while conn.cluster_summary().map(|s| s.live_servers).unwrap_or(0) < self.servers.len() {
            assert!(
                Instant::now() < deadline,
                "the master did not see every server: {:?}",
                self.lines()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        conn
    }
}
