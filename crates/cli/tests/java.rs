//! HBase's own Java client against Basalt (issue 62): the JUnit suites of `tests/java`, run
//! by `tests/java/run.sh` with the client jars Maven Central serves, each version against a
//! `basalt standalone` of its own that publishes itself to a private ZooKeeper, as an HBase
//! cluster does. The only setting the suites give the client is `hbase.zookeeper.quorum`.

mod support;

use std::path::Path;
use std::process::Command;

use support::{Server, ZooKeeper};

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
