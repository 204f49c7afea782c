//! Issue 45's short campaign, run with the other tests: a cluster (ZooKeeper, two masters,
//! three region servers) and its clients, each process on a host of its own (a network
//! namespace on a private bridge), the workload (registers, lists, counters, rows; Basalt's
//! client and hbase-driver) running throughout, and every nemesis once (partitions from
//! ZooKeeper, from the master, from the clients, of the cluster in two, of the active master
//! alone; a pause past the session timeout; kill -9 of a region server, of the active master and
//! of ZooKeeper; a slow, lossy link; a clock a minute ahead, then behind; a disk that stalls,
//! one that fails). The history must be linearizable, and the cluster whole again after each
//! fault.
//! The network, its namespaces and every process are torn down when the test ends, also when
//! it fails. Needs root; `tests/chaos/install.sh` installs iptables and libfaketime.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use basalt_chaos::campaign::{self, Nemesis, Plan};
use basalt_chaos::cluster::Settings;
use basalt_chaos::driver::DriverSettings;

#[test]
fn a_short_campaign_of_every_nemesis_is_linearizable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let installed = Command::new(root.join("tests/chaos/install.sh"))
        .status()
        .expect("tests/chaos/install.sh runs");
    assert!(installed.success(), "tests/chaos/install.sh failed");
    // A share of the operations through hbase-driver, from the tests' virtualenv.
    let venv = Command::new(root.join("tests/python/venv.sh"))
        .output()
        .expect("tests/python/venv.sh runs");
    assert!(venv.status.success(), "tests/python/venv.sh failed");
    let python =
        std::path::PathBuf::from(String::from_utf8_lossy(&venv.stdout).trim()).join("bin/python");
    let dir = tempfile::tempdir().expect("a run directory");
    let plan = Plan {
        settings: Settings {
            basalt: env!("CARGO_BIN_EXE_basalt").into(),
            zookeeper_script: root.join("tests/zookeeper/start.sh"),
            dir: dir.path().to_owned(),
            session_timeout: Duration::from_secs(3),
            driver: Some(DriverSettings {
                python,
                script: root.join("tests/chaos/driver_client.py"),
                log: dir.path().join("logs/driver.log"),
            }),
        },
        nemeses: Nemesis::ALL.to_vec(),
        seconds: 0,
        seed: 45,
        servers: 3,
        subnet: u8::try_from(20 + std::process::id() % 200).expect("a subnet"),
        tag: format!("t{}", std::process::id() % 10_000),
    };
    // A failed run's directory is kept, for its logs and history (`basalt-chaos --check`).
    let outcome = match campaign::run(&plan) {
        Ok(outcome) => outcome,
        Err(e) => panic!(
            "the campaign failed: {e} (logs in {})",
            dir.keep().display()
        ),
    };
    let summary = std::fs::read_to_string(dir.path().join("verdict.txt")).unwrap_or_default();
    println!(
        "{} operations, {} unknown\n{summary}",
        outcome.operations, outcome.unknown
    );
    assert_eq!(outcome.windows.len(), Nemesis::ALL.len());
    assert!(
        outcome.operations > 1000,
        "{} operations",
        outcome.operations
    );
    if !outcome.verdict.is_linearizable() {
        panic!(
            "{summary}(the run's history and timeline are in {})",
            dir.keep().display()
        );
    }
    assert!(dir.path().join("timeline.svg").exists());
}
