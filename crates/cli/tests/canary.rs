//! `basalt canary` (issue 47) on a cluster: every region answers; with one region server
//! paused (SIGSTOP), the canary names each of its regions as failed within its timeout and
//! exits non-zero, and in daemon mode its /metrics says so.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, DataClient, Put, ServerAdmin, TableDescriptor, TableName,
};
use support::cluster::Cluster;
use support::http_get;

/// Resumes a stopped process when dropped, so a failing test leaves nothing paused.
struct Paused(u32);

impl Paused {
    fn pause(pid: u32) -> Paused {
        assert!(
            Command::new("kill")
                .args(["-STOP", &pid.to_string()])
                .status()
                .unwrap()
                .success()
        );
        Paused(pid)
    }
}

impl Drop for Paused {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.0.to_string()])
            .status();
    }
}

fn canary(quorum: &str, args: &[&str]) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["canary", "--zookeeper", quorum])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        started.elapsed(),
    )
}

#[test]
fn the_canary_flags_the_regions_of_a_paused_server_within_its_timeout() {
    // Sessions outlive the pause: the server stays "live" and its regions stay on it.
    let cluster = Cluster::start_with(2, 1, &["--session-timeout-ms", "60000"]);
    let conn = cluster.connect();
    let t = TableName::parse("t").unwrap();
    let keys: Vec<Bytes> = (1..8).map(|i| Bytes::from(format!("r{i}"))).collect();
    conn.create_table(
        TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &keys,
    )
    .unwrap();
    for i in 0..8 {
        conn.put(&t, &Put::new(format!("r{i}x")).add_column("f", "q", "v"))
            .unwrap();
    }
    conn.balancer().unwrap();

    let (code, out, _) = canary(&cluster.quorum, &["t"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("8 regions checked, 0 failed"), "{out}");
    let (code, out, _) = canary(&cluster.quorum, &["-regionserver"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("2 servers checked, 0 failed"), "{out}");
    let (code, out, _) = canary(&cluster.quorum, &["-writeSniffing"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("Write to table canary region"), "{out}");

    // The server without hbase:meta is paused.
    let summary = conn.cluster_summary().unwrap();
    let victim = summary
        .servers
        .iter()
        .find(|s| !s.regions.iter().any(|r| r.name.starts_with(b"hbase:meta")))
        .unwrap();
    let held: Vec<String> = victim
        .regions
        .iter()
        .filter(|r| r.name.starts_with(b"t,"))
        .map(|r| String::from_utf8_lossy(&r.name).into_owned())
        .collect();
    assert!(!held.is_empty(), "{summary:?}");
    let host_port = basalt_embedded::ServerName::host_port_of(&victim.name);
    let pid = cluster.servers[&host_port];
    let _paused = Paused::pause(pid);

    let (code, out, took) = canary(&cluster.quorum, &["-t", "2000", "t"]);
    assert_eq!(code, Some(4), "{out}");
    assert!(
        out.contains(&format!("8 regions checked, {} failed", held.len())),
        "{held:?}\n{out}"
    );
    for name in &held {
        let encoded = basalt_embedded::RegionInfo::encoded_part(name.as_bytes()).unwrap();
        let line = out
            .lines()
            .find(|l| l.contains(std::str::from_utf8(encoded).unwrap()))
            .unwrap();
        assert!(
            line.contains("FAILED") && line.contains(&host_port),
            "{line}"
        );
    }
    // The regions run in parallel: one timeout, not one per region.
    assert!(took < Duration::from_secs(30), "took {took:?}");

    // The daemon's /metrics says which regions are down.
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args([
            "canary",
            "--zookeeper",
            &cluster.quorum,
            "--daemon",
            "--interval",
            "1",
        ])
        .args(["--metrics-port", "0", "--timeout", "2000", "t"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(daemon.stdout.take().unwrap()).lines();
    let addr = loop {
        let line = lines.next().unwrap().unwrap();
        if let Some(a) = line.strip_prefix("canary metrics listening on ") {
            break a.to_owned();
        }
    };
    // Drained so the daemon never blocks on its output.
    std::thread::spawn(move || lines.for_each(drop));
    let deadline = Instant::now() + Duration::from_secs(30);
    let page = loop {
        let (status, body) = http_get(&addr, "/metrics");
        assert_eq!(status, 200);
        if body.contains("basalt_canary_runs_total 1")
            || body.contains("basalt_canary_runs_total 2")
        {
            break body;
        }
        assert!(Instant::now() < deadline, "no run in 30 s: {body}");
        std::thread::sleep(Duration::from_millis(200));
    };
    let _ = daemon.kill();
    let _ = daemon.wait();
    let down = page
        .lines()
        .filter(|l| l.starts_with("basalt_canary_up{") && l.ends_with(" 0"))
        .count();
    assert_eq!(down, held.len(), "{page}");
    assert!(
        page.contains(&format!("basalt_canary_last_run_failures {}", held.len())),
        "{page}"
    );
}
