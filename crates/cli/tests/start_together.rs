//! Issue 45, part 8: a master and two region servers started in the same instant on one data
//! directory, as systemd or Kubernetes starts them, all come up: on a new directory (where
//! each may race to write the version file, which once refused one region server in five
//! rounds) and on the existing one again. Each round is bounded; every process is killed
//! when the test ends, however it ends.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_embedded::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{DataClient, ServerAdmin};

/// Processes killed when dropped.
struct Procs(Vec<Child>, Option<u32>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
        if let Some(pid) = self.1 {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
}

fn zookeeper(dir: &Path) -> (String, u32) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/zookeeper/start.sh");
    let out = Command::new("bash").arg(script).arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "ZooKeeper did not start: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut parts = text.split_whitespace();
    let port: u16 = parts.next().unwrap().parse().unwrap();
    let pid = parts.next().unwrap().parse().unwrap();
    (format!("127.0.0.1:{port}"), pid)
}

/// Starts the three at once; every line they print comes to the returned channel.
fn start_all(data: &Path, quorum: &str, procs: &mut Procs) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let children: Vec<Child> = ["master", "regionserver", "regionserver"]
        .iter()
        .map(|role| {
            Command::new(env!("CARGO_BIN_EXE_basalt"))
                .arg(role)
                .arg("--data")
                .arg(data)
                .args(["--zookeeper", quorum, "--port", "0", "--info-port", "0"])
                .args(["--session-timeout-ms", "4000"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, mut child) in children.into_iter().enumerate() {
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(format!("[{i}] {line}"));
                }
            });
        }
        procs.0.push(child);
    }
    rx
}

/// Waits (at most a minute) until the cluster serves: two live region servers, and a table
/// can be made and written.
fn serves(quorum: &str, round: usize, lines: &mpsc::Receiver<String>, procs: &mut Procs) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    loop {
        seen.extend(lines.try_iter());
        for (i, child) in procs.0.iter_mut().enumerate() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!(
                    "round {round}: process {i} exited ({status}):\n{}",
                    seen.join("\n")
                );
            }
        }
        let config = RemoteConfig {
            operation_timeout: Duration::from_secs(5),
            rpc_timeout: Duration::from_secs(5),
            ..RemoteConfig::default()
        };
        if let Ok(conn) = RemoteConnection::through_zookeeper(quorum, config)
            && conn.cluster_summary().is_ok_and(|s| s.live_servers == 2)
        {
            let name = format!("t{round}");
            let made = conn.create_table(
                basalt_embedded::TableDescriptor::named(&name)
                    .unwrap()
                    .with_family(basalt_embedded::ColumnFamilyDescriptor::new("f")),
                &[],
            );
            if made.is_ok()
                && conn
                    .put(
                        &basalt_embedded::TableName::parse(&name).unwrap(),
                        &basalt_embedded::Put::new("r").add_column("f", "q", "v"),
                    )
                    .is_ok()
            {
                return;
            }
        }
        assert!(
            Instant::now() < deadline,
            "round {round}: the cluster did not serve within 60 s:\n{}",
            seen.join("\n")
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn processes_started_together_all_come_up() {
    let dir = tempfile::tempdir().unwrap();
    for round in 0..5 {
        // A new directory and a new ZooKeeper each round, but the last: that one starts on
        // the directory and ZooKeeper the round before left.
        let fresh = round < 4;
        let data = dir.path().join(format!("data{}", round.min(3)));
        let zk_dir = dir.path().join(format!("zk{}", round.min(3)));
        std::fs::create_dir_all(&zk_dir).unwrap();
        let (quorum, zk_pid) = zookeeper(&zk_dir);
        let mut procs = Procs(Vec::new(), Some(zk_pid));
        let lines = start_all(&data, &quorum, &mut procs);
        serves(&quorum, round, &lines, &mut procs);
        assert!(!fresh || data.join("basalt.version").exists());
        drop(procs);
    }
}
