//! The client holds no engine: nothing it depends on, directly or not, is a crate of the
//! database itself (issue 44). An application that only talks to a cluster compiles the
//! protocol, coordination, network and common crates, and no storage engine.

use std::process::Command;

/// Crates of the engine and the servers, none of which the client may pull in.
const ENGINE: &[&str] = &[
    "basalt-embedded",
    "basalt-master",
    "basalt-regionserver",
    "basalt-region",
    "basalt-storefile",
    "basalt-wal",
    "basalt-fs",
    "basalt-rpc",
    "zstd-sys",
];

#[test]
fn the_client_depends_on_no_engine_crate() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "basalt-client",
            "-e",
            "normal",
            "--prefix",
            "none",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let crates: Vec<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(crates.contains(&"basalt-proto"), "{tree}");
    for engine in ENGINE {
        assert!(
            !crates.contains(engine),
            "basalt-client depends on {engine}:\n{tree}"
        );
    }
}
