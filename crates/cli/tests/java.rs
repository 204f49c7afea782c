//! HBase's own Java client against Basalt (issue 62): the JUnit suites of `tests/java`, run
//! by `tests/java/run.sh` with the client jars Maven Central serves, each version against a
//! `basalt standalone` of its own that publishes itself to a private ZooKeeper, as an HBase
//! cluster does. The only setting the suites give the client is `hbase.zookeeper.quorum`.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use basalt_embedded::prelude::*;
use basalt_embedded::{ServerAdmin, TableName};
use support::cluster::Cluster;
use support::{Server, ZooKeeper};

/// One Maven run at a time: concurrent runs on a machine's first day would fetch the same
/// artifacts into the same local repository at once.
static MAVEN: Mutex<()> = Mutex::new(());

/// The client versions tested: the newest 2.6 and 2.5 Maven Central serves (the shaded
/// client applications depend on), and HBase 1.x's last (long-lived applications still run
/// it; HBase 2 servers serve it).
const VERSIONS: [(&str, &str); 3] = [
    ("hbase2", "2.6.4"),
    ("hbase2", "2.5.10"),
    ("hbase1", "1.7.2"),
];

#[test]
fn hbase_java_clients_pass_their_suites_against_basalt_standalone() {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut failures = Vec::new();
    for (module, version) in VERSIONS {
        let zookeeper = ZooKeeper::start();
        let server = Server::start_with(&["--zookeeper", &zookeeper.quorum]);
        let output = Command::new("bash")
            .arg(root.join("tests/java/run.sh"))
            .args([module, version])
            .env("BASALT_ZK", &zookeeper.quorum)
            // For the suites that bootstrap from a server instead (RpcConnectionRegistry).
            .env("BASALT_RPC", &server.rpc)
            .output()
            .expect("tests/java/run.sh could not start (is bash installed?)");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        // The counts line, then what Maven printed of failures (its quiet mode prints only
        // those).
        // (Maven's colour codes may lead the line.)
        let summary = stdout
            .lines()
            .rev()
            .find_map(|l| l.find("java hbase").map(|at| &l[at..]))
            .unwrap_or("no summary line");
        println!("{summary}");
        // "java MODULE VERSION: N tests, F failed": a run of no tests is a failure too.
        let ran: u32 = summary
            .split(": ")
            .nth(1)
            .and_then(|counts| counts.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if !output.status.success() || ran == 0 {
            failures.push(format!("{summary}\n{stdout}{stderr}"));
        }
    }
    assert!(
        failures.is_empty(),
        "the Java suites failed:\n{}",
        failures.join("\n")
    );
}

/// `host:port` of a server named `host,port,startcode`.
fn addr_of(server: &str) -> String {
    basalt_embedded::ServerName::parse(server)
        .map(|n| n.host_port)
        .unwrap_or_else(|| server.to_owned())
}

/// The Java client on a cluster of three region servers keeps writing and reading while a
/// region of its table moves, one splits, and a region server holding one is killed with
/// SIGKILL: with no setting changed, every acknowledged write reads back (FaultLoadTest).
#[test]
fn the_java_client_follows_regions_through_a_move_a_split_and_a_crash() {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cluster = Cluster::start(3, 1);
    let table = "jfault";
    let mut java = Command::new("bash")
        .arg(root.join("tests/java/run.sh"))
        .args(["hbase2", "2.6.4", "-Dtest=FaultLoadTest"])
        .env("BASALT_ZK", &cluster.quorum)
        .env("BASALT_FAULT_TABLE", table)
        .env("BASALT_FAULT_SECONDS", "40")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tests/java/run.sh could not start");
    // Killed if the test fails before it ends.
    struct Reap(u32);
    impl Drop for Reap {
        fn drop(&mut self) {
            let _ = Command::new("pkill")
                .args(["-KILL", "-P", &self.0.to_string()])
                .status();
        }
    }
    let _reap = Reap(java.id());
    let conn = cluster.connect();
    let name: TableName = table.parse().unwrap();
    // The client creates its table (three regions) once its JVM is up: bounded wait.
    let deadline = Instant::now() + Duration::from_secs(240);
    while conn.regions(&name).map_or(true, |r| r.len() < 3) {
        assert!(
            Instant::now() < deadline,
            "the Java client made no table within 240 s"
        );
        assert!(
            java.try_wait().unwrap().is_none(),
            "the Java client ended before its table"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(4));
    // A move: the first region to another server.
    let regions = conn.regions(&name).unwrap();
    let first = &regions[0];
    let other = cluster
        .servers
        .keys()
        .find(|addr| {
            first
                .server
                .as_deref()
                .is_none_or(|s| !s.contains(addr.as_str()))
        })
        .unwrap()
        .clone();
    conn.move_region(first.encoded_name().as_bytes(), Some(&other))
        .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    // A split, in the middle of the writes.
    conn.split(&name, Some(b"r5")).unwrap();
    std::thread::sleep(Duration::from_secs(4));
    // A crash: the server holding the last region.
    let regions = conn.regions(&name).unwrap();
    let victim = regions
        .last()
        .and_then(|r| r.server.as_deref())
        .map(addr_of)
        .expect("the last region is served");
    let pid = *cluster
        .servers
        .get(&victim)
        .expect("the victim is one of the cluster's servers");
    let addr = victim;
    Cluster::kill(pid);
    println!("killed region server {addr} (pid {pid})");
    let output = java.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let load = stdout
        .lines()
        .find_map(|l| l.find("fault load:").map(|at| &l[at..]))
        .unwrap_or("no fault load line");
    println!("{load}");
    assert!(
        output.status.success() && load.contains(" 0 missing"),
        "the Java client lost writes or failed through the faults:\n{stdout}{stderr}"
    );
    assert!(
        conn.regions(&name).unwrap().len() >= 4,
        "the split took: four regions"
    );
}
