//! For tests: the example modules of `coprocessors/`, built to WebAssembly once per test
//! process (cargo's and npm's locks keep parallel builds apart).

use std::path::PathBuf;
use std::sync::OnceLock;

/// Runs `scripts/<script>` and returns what it printed (a path), or panics saying why: a
/// test that needs the modules cannot run without them.
fn built(cell: &'static OnceLock<Result<PathBuf, String>>, script: &str) -> PathBuf {
    let outcome = cell.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts").join(script))
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .output()
            .map_err(|e| format!("cannot run scripts/{script}: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "scripts/{script} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(PathBuf::from(
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        ))
    });
    match outcome {
        Ok(path) => path.clone(),
        Err(e) => panic!("{e}"),
    }
}

/// The built module of the Rust example crate `name` (its file name: `no_bad_values`, ...):
/// `scripts/build-coprocessors.sh`.
pub fn example(name: &str) -> PathBuf {
    static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    built(&DIR, "build-coprocessors.sh").join(format!("{name}.wasm"))
}

/// The AssemblyScript example (`coprocessors/assemblyscript`):
/// `scripts/build-assemblyscript-example.sh`, npm installing its compiler from the lock file.
pub fn assemblyscript_example() -> PathBuf {
    static MODULE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    built(&MODULE, "build-assemblyscript-example.sh")
}
