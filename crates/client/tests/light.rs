//! The client holds no engine: nothing it depends on, directly or not, is a crate of the
//! database itself (issue 44). An application that only talks to a cluster compiles the
//! protocol, coordination, network and common crates, and no storage engine; without the
//! `tls` feature, nothing that needs a C compiler either.

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

/// The crates `cargo tree` lists for the client (with `extra` arguments), and the tree.
fn cargo_tree(extra: &[&str]) -> (Vec<String>, String) {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "-p", "basalt-client", "--prefix", "none"])
        .args(extra)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout).into_owned();
    let crates = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    (crates, tree)
}

/// Without TLS (ring's C), nothing in the build needs a C compiler: no `cc` among the build
/// dependencies, no `ring`.
#[test]
fn without_tls_the_client_needs_no_c_compiler() {
    let (crates, tree) = cargo_tree(&["--no-default-features", "-e", "normal,build"]);
    assert!(crates.iter().any(|c| c == "basalt-proto"), "{tree}");
    for c in ["cc", "ring", "rustls", "cmake"] {
        assert!(
            !crates.iter().any(|x| x == c),
            "{c} is in the build:\n{tree}"
        );
    }
    // With it (the default), TLS is there.
    let (crates, tree) = cargo_tree(&["-e", "normal"]);
    assert!(crates.iter().any(|c| c == "rustls"), "{tree}");
}

#[test]
fn the_client_depends_on_no_engine_crate() {
    let (crates, tree) = cargo_tree(&["-e", "normal"]);
    let crates: Vec<&str> = crates.iter().map(String::as_str).collect();
    assert!(crates.contains(&"basalt-proto"), "{tree}");
    for engine in ENGINE {
        assert!(
            !crates.contains(engine),
            "basalt-client depends on {engine}:\n{tree}"
        );
    }
}
