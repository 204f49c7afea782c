//! Scripts of shell commands with the output HBase's shell prints for them, run in both modes:
//! on an embedded engine and on a server reached over the native RPC. Each `scripts/NAME.hb`
//! has its transcript in `scripts/NAME.out`: every input line after `hbase> `, then what it
//! printed, with what changes from run to run masked (times, "now" timestamps, server start
//! codes, region ids). `BLESS=1 cargo test -p basalt-shell --test transcripts` rewrites the
//! transcripts from the embedded run; review the diff before committing it.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::PathBuf;
use std::sync::Arc;

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Client, Connection};
use basalt_rpc::RpcConfig;
use basalt_shell::{Failure, Options, Shell};
use regex::Regex;

fn scripts() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scripts")
}

/// Runs the script one statement at a time (a statement may span lines), echoing its input.
/// `%SERVER%` in the script is the server's `host:port`.
/// `%COPROCESSORS%` is the directory of the built example modules (and is put back in the
/// output, so transcripts do not depend on where the tree is).
fn transcript(client: Arc<dyn Client>, script: &str, server: &str) -> String {
    let modules = script.contains("%COPROCESSORS%").then(|| {
        let module = basalt_coprocessor::testing::example("no_bad_values");
        module.parent().unwrap().display().to_string()
    });
    let script = script.replace("%SERVER%", server);
    let script = match &modules {
        Some(dir) => script.replace("%COPROCESSORS%", dir),
        None => script,
    };
    // As `basalt shell` runs it: tables with a key layout by their logical keys.
    let client = Arc::new(basalt_embedded::LayoutClient::new(client));
    let mut shell = Shell::new(client, Options::default());
    let mut out: Vec<u8> = Vec::new();
    let mut pending = String::new();
    // A command asked a question: the next line is its answer, echoed as typed.
    let mut asked = false;
    for line in script.lines() {
        if asked {
            out.extend_from_slice(format!("{line}\n").as_bytes());
            shell.answer(line.trim());
            asked = false;
            match shell.run(&pending, &mut out) {
                Err(Failure::Confirm) => asked = true,
                Err(Failure::Io(e)) => panic!("{e}"),
                _ => pending.clear(),
            }
            continue;
        }
        if pending.is_empty() {
            out.extend_from_slice(format!("hbase> {line}\n").as_bytes());
        } else {
            out.extend_from_slice(format!("hbase* {line}\n").as_bytes());
        }
        pending.push_str(line);
        pending.push('\n');
        match shell.run(&pending, &mut out) {
            Err(Failure::Incomplete) => continue,
            Err(Failure::Confirm) => {
                asked = true;
                continue;
            }
            Err(Failure::Io(e)) => panic!("{e}"),
            Ok(()) | Err(_) => pending.clear(),
        }
    }
    assert!(pending.is_empty(), "the script ends inside a statement");
    let out = String::from_utf8(out).unwrap();
    mask(&match &modules {
        Some(dir) => out.replace(dir, "%COPROCESSORS%"),
        None => out,
    })
}

fn mask(text: &str) -> String {
    let rules = [
        (r"Took \d+\.\d{4} seconds", "Took 0.0000 seconds"),
        // Cells written at "now" (the scripts give 2024 timestamps when they print cells).
        (
            r"timestamp=20(2[5-9]|[3-9]\d)-[0-9T:.\-]+",
            "timestamp=<now>",
        ),
        (r"(localhost|127\.0\.0\.1),\d+,\d+", "<server>"),
        (r"(localhost|127\.0\.0\.1):\d+ \d+", "<server>"),
        (r"(localhost|127\.0\.0\.1):\d+ \{", "<server> {"),
        (r"(localhost|127\.0\.0\.1):\d+'", "<server>'"),
        // The block cache's size is a share of the machine's memory.
        (r"maxCacheSize=\d+", "maxCacheSize=<n>"),
        (r"tasks as of: [0-9: -]+", "tasks as of: <now>"),
        (r",\d{13}\.[0-9a-f]{32}\.", ",<id>.<encoded>."),
        (r"\b[0-9a-f]{32}\b", "<encoded>"),
        // A snapshot's creation time, as Ruby's Time#to_s prints it.
        (r"\(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000\)", "(<time>)"),
        // A procedure's times, as list_procedures prints them.
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000", "<time>"),
    ];
    let mut s = text.to_owned();
    for (pattern, with) in rules {
        s = Regex::new(pattern)
            .unwrap()
            .replace_all(&s, with)
            .into_owned();
    }
    s
}

fn embedded() -> Arc<dyn Client> {
    Arc::new(Connection::in_memory())
}

/// A fresh in-memory engine served over the native RPC on loopback, and a client of it.
fn served() -> (basalt_rpc::RpcServer, RemoteConnection) {
    let server = Connection::in_memory()
        .serve_rpc(RpcConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            ..RpcConfig::default()
        })
        .unwrap();
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    (server, remote)
}

fn check(name: &str) {
    let script = std::fs::read_to_string(scripts().join(format!("{name}.hb"))).unwrap();
    let expected_path = scripts().join(format!("{name}.out"));
    let local = transcript(embedded(), &script, "127.0.0.1:16020");
    if std::env::var_os("BLESS").is_some() {
        std::fs::write(&expected_path, &local).unwrap();
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap();
    assert_eq!(local, expected, "embedded transcript of {name}");

    let (server, remote) = served();
    let over_rpc = transcript(Arc::new(remote), &script, &server.local_addr().to_string());
    server.shutdown();
    if over_rpc != expected {
        let path = std::env::temp_dir().join(format!("{name}.remote.out"));
        std::fs::write(&path, &over_rpc).unwrap();
        panic!(
            "the remote transcript of {name} differs: diff {} {}",
            expected_path.display(),
            path.display()
        );
    }
}

#[test]
fn seeds() {
    check("seeds");
}

#[test]
fn ddl() {
    check("ddl");
}

#[test]
fn namespaces() {
    check("namespaces");
}

#[test]
fn dml() {
    check("dml");
}

#[test]
fn tools() {
    check("tools");
}

#[test]
fn general() {
    check("general");
}

#[test]
fn snapshots() {
    check("snapshots");
}

#[test]
fn bad_input() {
    check("bad_input");
}

#[test]
fn key_layouts() {
    check("key_layouts");
}

/// The worked examples of docs/guide/row-keys.md.
#[test]
fn guide() {
    check("guide");
}

#[test]
fn replication() {
    check("replication");
}

#[test]
fn servers() {
    check("servers");
}

#[test]
fn chores() {
    check("chores");
}

#[test]
fn procedures() {
    check("procedures");
}

#[test]
fn quotas() {
    check("quotas");
}

#[test]
fn rsgroups() {
    check("rsgroups");
}

#[test]
fn coprocessor() {
    check("coprocessor")
}

#[test]
fn aggregate() {
    check("aggregate");
}

/// `truncate_region` by encoded name (which changes from run to run, so no transcript):
/// embedded and over the native RPC, the named region's rows go and its neighbours' stay.
#[test]
fn truncate_region_empties_the_region_named() {
    let (server, remote) = served();
    let clients: [(&str, Arc<dyn Client>); 2] =
        [("embedded", embedded()), ("remote", Arc::new(remote))];
    for (mode, client) in clients {
        let mut shell = Shell::new(Arc::clone(&client), Options::default());
        let mut out: Vec<u8> = Vec::new();
        let run = |shell: &mut Shell, out: &mut Vec<u8>, line: &str| {
            out.clear();
            shell
                .run(line, out)
                .unwrap_or_else(|e| panic!("{mode}: {line}: {e:?}"));
        };
        run(&mut shell, &mut out, "create 'tr', 'f', SPLITS => ['m']");
        for row in ["a", "b", "n", "z"] {
            run(
                &mut shell,
                &mut out,
                &format!("put 'tr', '{row}', 'f:q', 'v'"),
            );
        }
        let table = basalt_embedded::TableName::parse("tr").unwrap();
        let regions = client.regions(&table).unwrap();
        assert_eq!(regions.len(), 2, "{mode}");
        let encoded = regions[0].encoded_name();
        run(
            &mut shell,
            &mut out,
            &format!("truncate_region '{encoded}'"),
        );
        run(&mut shell, &mut out, "scan 'tr'");
        let text = String::from_utf8_lossy(&out).into_owned();
        assert!(
            text.contains(" n ") && text.contains(" z ") && text.contains("2 row(s)"),
            "{mode}: {text}"
        );
        assert!(
            !text.contains(" a ") && !text.contains(" b "),
            "{mode}: {text}"
        );
        let after = client.regions(&table).unwrap();
        assert_eq!(after.len(), 2, "{mode}");
        assert_ne!(after[0].name, regions[0].name, "{mode}: a fresh region");
        assert_eq!(after[1].name, regions[1].name, "{mode}: the neighbour kept");
        out.clear();
        match shell.run("truncate_region 'nosuchregion'", &mut out) {
            Err(Failure::Command { message, .. }) => assert!(
                message.contains("Unknown table or region nosuchregion"),
                "{mode}: {message}"
            ),
            other => panic!("{mode}: an unknown region should fail the command: {other:?}"),
        }
    }
    server.shutdown();
}
