//! Running the `basalt` binary from tests.

use std::process::Command;

/// Runs `basalt` with `args`: whether it succeeded, its stdout and its stderr.
pub fn basalt(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .output()
        .expect("run basalt");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
