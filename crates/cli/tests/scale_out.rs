//! Issue 45's scale-out measurement, run small with the other tests: `basalt pe` from a client
//! host against a standalone server and clusters of 1 and 3 region servers, each server on a
//! host of its own (a network namespace) with a CPU quota (a cgroup). Every command must do all
//! its operations and the servers' CPU time must be read. The figures themselves are in
//! `docs/design/chaos.md` (release build, `basalt-chaos --scale-out`). Needs root.

use std::path::Path;
use std::process::Command;

use basalt_chaos::scale::{self, ScalePlan};

#[test]
fn scale_out_measures_work_per_server_cpu_second() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let installed = Command::new(root.join("tests/chaos/install.sh"))
        .status()
        .expect("tests/chaos/install.sh runs");
    assert!(installed.success(), "tests/chaos/install.sh failed");
    let dir = tempfile::tempdir().expect("a run directory");
    let plan = ScalePlan {
        basalt: env!("CARGO_BIN_EXE_basalt").into(),
        zookeeper_script: root.join("tests/zookeeper/start.sh"),
        dir: dir.path().to_owned(),
        cpus: 0.5,
        rows: 300,
        threads: 4,
        subnet: u8::try_from(20 + (std::process::id() + 100) % 200).expect("a subnet"),
        tag: format!("x{}", std::process::id() % 10_000),
    };
    let figures = scale::run(&plan).expect("the measurement runs");
    println!("{}", scale::table(&figures, plan.cpus));
    let setups: Vec<&str> = figures.iter().map(|f| f.setup.as_str()).collect();
    assert_eq!(
        setups,
        [
            "standalone",
            "standalone",
            "1 region server",
            "1 region server",
            "3 region servers",
            "3 region servers"
        ]
    );
    for f in &figures {
        assert_eq!(f.ops, 1200, "{f:?}");
        assert!(f.seconds > 0.0 && f.cpu_seconds > 0.0, "{f:?}");
    }
}
