//! For tests: the example modules of `coprocessors/`, built to WebAssembly once per test
//! process (`scripts/build-coprocessors.sh`; cargo's lock keeps parallel builds apart).

use std::path::PathBuf;
use std::sync::OnceLock;

/// The built module of the example crate `name` (its file name: `no_bad_values`, ...).
/// Panics, saying why, if the modules cannot be built: a test that needs them cannot run.
pub fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let dir = BUILT.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts/build-coprocessors.sh"))
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .map_err(|e| format!("cannot run scripts/build-coprocessors.sh: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "scripts/build-coprocessors.sh failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        ))
    });
    match dir {
        Ok(dir) => dir.join(format!("{name}.wasm")),
        Err(e) => panic!("{e}"),
    }
}
