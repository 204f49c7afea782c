//! The Python integration tests (`tests/python`): happybase 1.3.0 driving a real
//! `basalt standalone` over buffered and framed transports. `tests/python/run.sh` installs
//! the clients into a virtualenv under `target/` and runs pytest; this test runs it with the
//! binary cargo just built, so `cargo test` covers them.

use std::path::Path;
use std::process::Command;

#[test]
fn happybase_suite_passes_against_basalt_standalone() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("tests/python/run.sh"))
        .env("BASALT_BIN", env!("CARGO_BIN_EXE_basalt"))
        .output()
        .expect("tests/python/run.sh could not start (is bash installed?)");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    println!("{report}");
    assert!(
        output.status.success(),
        "the Python integration tests failed:\n{report}"
    );
}
