//! Kerberos on the native RPC against a private MIT KDC (Debian's krb5-kdc on 127.0.0.1,
//! `tests/kerberos/start.sh`): a `basalt standalone` built with `--features kerberos` accepts
//! only Kerberos (SIMPLE off); users are their tickets' principals (`alice@BASALT.TEST` is
//! `alice`), checked against grants; no ticket, or a SIMPLE connection naming a user, is
//! refused with a clear error.
//!
//! The Kerberos build is a second build of the binary (`target/kerberos`), made here: the
//! default one does not link MIT krb5, so a fresh machine builds Basalt without it.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const SERVICE: &str = "hbase/localhost@BASALT.TEST";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Kerberos build of `basalt`, built now if needed (packages installed first).
fn kerberos_basalt() -> PathBuf {
    let root = root();
    let installed = Command::new(root.join("tests/kerberos/install.sh"))
        .status()
        .unwrap();
    assert!(installed.success(), "tests/kerberos/install.sh failed");
    let target = root.join("target/kerberos");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .current_dir(&root)
        .args([
            "build",
            "--quiet",
            "-p",
            "basalt-cli",
            "--features",
            "kerberos",
        ])
        .arg("--target-dir")
        .arg(&target)
        .status()
        .unwrap();
    assert!(
        built.success(),
        "building basalt with --features kerberos failed"
    );
    target.join("debug/basalt")
}

/// Processes killed when the test ends, however it ends.
struct Killed(Vec<Child>, Option<PathBuf>);

impl Drop for Killed {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
        // The KDC runs detached from the script that started it.
        if let Some(pid) = self
            .1
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
        {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
    }
}

/// Runs a shell script against `rpc` with `env` (and `flags`): whether it succeeded, and what
/// it printed.
fn shell(
    basalt: &Path,
    rpc: &str,
    env: &[(&str, String)],
    flags: &[&str],
    script: &str,
) -> (bool, String) {
    let mut child = Command::new(basalt)
        .args(["shell", "--connect", rpc, "-n"])
        .args(flags)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(script.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn kerberos_users_are_their_tickets() {
    let basalt = kerberos_basalt();
    let dir = tempfile::tempdir().unwrap();
    let kdc = dir.path().join("kdc");
    let mut guard = Killed(Vec::new(), Some(kdc.join("kdc.pid")));
    let started = Command::new(root().join("tests/kerberos/start.sh"))
        .arg(&kdc)
        .args(["alice", "bob"])
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(started.success(), "the test KDC did not start");
    let krb5_config = ("KRB5_CONFIG", kdc.join("krb5.conf").display().to_string());
    let mut server = Command::new(&basalt)
        .args(["standalone", "--data"])
        .arg(dir.path().join("data"))
        .args(["--rpc-port", "0", "--thrift-port", "0", "--info-port", "-1"])
        .args(["--kerberos-principal", SERVICE, "--simple-auth", "false"])
        .args(["--authorization", "--superuser", "alice"])
        .env(krb5_config.0, &krb5_config.1)
        .env("KRB5_KTNAME", kdc.join("hbase.keytab"))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = server.stdout.take().unwrap();
    guard.0.push(server);
    let rpc = std::io::BufReader::new(stdout)
        .lines()
        .take(20)
        .map_while(Result::ok)
        .find_map(|line| {
            let rest = line.strip_prefix("rpc (")?;
            let at = rest.find("listening on ")? + "listening on ".len();
            rest[at..].split_whitespace().next().map(str::to_owned)
        })
        .expect("the server names its RPC address");
    let as_user = |who: &str| {
        vec![
            krb5_config.clone(),
            (
                "KRB5CCNAME",
                format!("FILE:{}", kdc.join(format!("{who}.cc")).display()),
            ),
        ]
    };
    let kerberos = ["--kerberos-principal", SERVICE];

    // alice (a superuser) makes a table and lets bob read it.
    let (ok, out) = shell(
        &basalt,
        &rpc,
        &as_user("alice"),
        &kerberos,
        "create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'\ngrant 'bob', 'R', 't'\n",
    );
    assert!(ok, "{out}");
    // bob reads, and may not write: his ticket makes him bob.
    let (ok, out) = shell(&basalt, &rpc, &as_user("bob"), &kerberos, "get 't', 'r1'\n");
    assert!(ok && out.contains("value=v1"), "{out}");
    let (ok, out) = shell(
        &basalt,
        &rpc,
        &as_user("bob"),
        &kerberos,
        "put 't', 'r2', 'f:q', 'v2'\n",
    );
    assert!(
        !ok && out.contains("AccessDeniedException") && out.contains("'bob'"),
        "{out}"
    );
    // The async client (`pe --async-client`) authenticates the same way: alice's writes go
    // in, bob's are refused as bob's.
    let pe = |who: &str| {
        let out = Command::new(&basalt)
            .args(["pe", "--rpc", &rpc, "--async-client", "--table", "kt"])
            .args(["--rows", "20", "--threads", "4", "--value-size", "10"])
            .args(kerberos)
            .arg("sequentialWrite")
            .envs(as_user(who))
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    };
    let (ok, out) = pe("alice");
    assert!(ok && out.contains("80 ops"), "{out}");
    let (ok, out) = pe("bob");
    assert!(
        !ok && out.contains("Insufficient permissions for user 'bob'"),
        "{out}"
    );
    // Whatever name a connection gives, without Kerberos it is refused.
    let (ok, out) = shell(&basalt, &rpc, &[], &["--user", "alice"], "get 't', 'r1'\n");
    assert!(
        !ok && out.contains("authentication is required") && !out.contains("value=v1"),
        "{out}"
    );
    // No ticket: the client says so before it reaches the server.
    let (ok, out) = shell(
        &basalt,
        &rpc,
        &[
            krb5_config.clone(),
            (
                "KRB5CCNAME",
                format!("FILE:{}", dir.path().join("none.cc").display()),
            ),
        ],
        &kerberos,
        "get 't', 'r1'\n",
    );
    assert!(
        !ok && out.contains("Kerberos") && !out.contains("value=v1"),
        "{out}"
    );
    // A principal the server has no key for: refused by the server, which says why.
    let (ok, out) = shell(
        &basalt,
        &rpc,
        &as_user("bob"),
        &["--kerberos-principal", "hbase/elsewhere@BASALT.TEST"],
        "get 't', 'r1'\n",
    );
    assert!(
        !ok && out.contains("Kerberos") && !out.contains("value=v1"),
        "{out}"
    );
}
