//! Issue 33's crash proof with real processes: a `basalt standalone` is killed with SIGKILL
//! while it takes a snapshot, restores one, or adopts a bulk load, at delays spread over how
//! long the change takes; a new server on the same data directory finds the state before or
//! after the change, never half of it. (`crates/client/tests/snapshot_crash.rs` does the same
//! at every step of the changes, through the fault-injecting file system.)

mod support;

use basalt_embedded::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, DataClient, Put, Scan, ServerAdmin, TableDescriptor, TableName,
};
use support::Server;

const ROUNDS: u32 = 4;

fn connect(server: &Server) -> Arc<RemoteConnection> {
    let config = RemoteConfig {
        operation_timeout: Duration::from_secs(10),
        rpc_timeout: Duration::from_secs(5),
        ..RemoteConfig::default()
    };
    Arc::new(
        RemoteConnection::connect(server.rpc.parse().expect("address"), config).expect("connect"),
    )
}

fn t() -> TableName {
    TableName::parse("t").expect("name")
}

fn rows(conn: &Arc<RemoteConnection>, table: &TableName) -> Vec<(Bytes, Vec<u8>)> {
    Arc::clone(conn)
        .scan(table, &Scan::new())
        .expect("scan")
        .map(|r| {
            let r = r.expect("row");
            let v = r.value(b"f", b"q").unwrap_or_default().to_vec();
            (r.row, v)
        })
        .collect()
}

/// Table `t` in 16 regions, each with several store files in both families; snapshot `s0`.
fn setup(conn: &Arc<RemoteConnection>) {
    let splits: Vec<Bytes> = (1..16).map(|i| Bytes::from(format!("{i:x}"))).collect();
    conn.create_table(
        TableDescriptor::named("t")
            .expect("name")
            .with_family(ColumnFamilyDescriptor::new("f"))
            .with_family(ColumnFamilyDescriptor::new("g")),
        &splits,
    )
    .expect("create");
    for batch in 0..4 {
        for i in 0..400u32 {
            let row = format!("{:x}{batch}{i:04}", i % 16);
            conn.put(
                &t(),
                &Put::new(row.clone())
                    .add_column("f", "q", format!("v{batch}"))
                    .add_column("g", "q", "g"),
            )
            .expect("put");
        }
        conn.flush(&t()).expect("flush");
    }
    conn.snapshot("s0", &t()).expect("snapshot");
}

/// Runs `change` on a thread, kills the server after `delay`, and starts a new one on the same
/// directory; returns it and whether the change had answered before the kill.
fn kill_during(
    server: Server,
    data: &std::path::Path,
    delay: Duration,
    change: impl FnOnce() -> bool + Send + 'static,
) -> (Server, bool) {
    let worker = std::thread::spawn(change);
    std::thread::sleep(delay);
    drop(server); // SIGKILL, and waits for the process to go
    let answered = worker.join().expect("the change's thread");
    (Server::start_in(data, &[]), answered)
}

#[test]
fn a_server_killed_mid_change_comes_back_before_or_after_it() {
    let deadline = Instant::now() + Duration::from_secs(240);
    let mut interrupted = 0;
    for round in 0..ROUNDS {
        // Snapshot: listed whole (a clone reads the table) or not listed.
        let dir = tempfile::tempdir().expect("dir");
        let data = dir.path().join("data");
        let server = Server::start_in(&data, &[]);
        let conn = connect(&server);
        setup(&conn);
        let before = rows(&conn, &t());
        let started = Instant::now();
        conn.snapshot("calibrate", &t()).expect("snapshot");
        let took = started.elapsed();
        let delay = took.mul_f64(f64::from(round) / f64::from(ROUNDS - 1) * 1.2);
        let c = Arc::clone(&conn);
        let (server, answered) =
            kill_during(server, &data, delay, move || c.snapshot("s1", &t()).is_ok());
        interrupted += u32::from(!answered);
        let conn = connect(&server);
        assert_eq!(rows(&conn, &t()), before, "round {round}: the table");
        let listed = conn.list_snapshots().expect("list");
        assert!(
            !answered || listed.iter().any(|s| s.name == "s1"),
            "round {round}"
        );
        if listed.iter().any(|s| s.name == "s1") {
            let c = TableName::parse("c").expect("name");
            conn.clone_snapshot("s1", &c).expect("clone");
            assert_eq!(
                rows(&conn, &c),
                before,
                "round {round}: a listed snapshot is whole"
            );
        }

        // Restore: the table as it was, or as the snapshot.
        for i in 0..100u32 {
            conn.put(
                &t(),
                &Put::new(format!("{:x}later{i}", i % 16)).add_column("f", "q", "x"),
            )
            .expect("put");
        }
        let changed = rows(&conn, &t());
        let snapshot = before.clone();
        conn.disable_table(&t()).expect("disable");
        let c = Arc::clone(&conn);
        let (server, answered) = kill_during(server, &data, delay, move || {
            c.restore_snapshot("s0").is_ok()
        });
        interrupted += u32::from(!answered);
        let conn = connect(&server);
        conn.enable_table(&t()).expect("enable");
        let got = rows(&conn, &t());
        assert!(
            got == changed || got == snapshot,
            "round {round}: {} rows, neither the {} before nor the snapshot's {}",
            got.len(),
            changed.len(),
            snapshot.len()
        );
        assert!(
            !answered || got == snapshot,
            "round {round}: an answered restore is in"
        );
        drop(server);
        if Instant::now() > deadline {
            break;
        }
    }
    eprintln!(
        "{interrupted} of {} changes were cut off by the kill",
        ROUNDS * 2
    );
}

/// A bulk load of many files into one region (two families), the server killed while it
/// adopts them: afterwards the region reads all of them or none.
#[test]
fn a_server_killed_mid_bulk_load_comes_back_before_or_after_it() {
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    let work = tempfile::tempdir().expect("dir");
    let mut server = Server::start_in(&data, &[]);
    let mut interrupted = 0;
    // Round 0 calibrates: how long a whole `bulkload` takes, not killed.
    let mut took = Duration::ZERO;
    for round in 0..=ROUNDS {
        let conn = connect(&server);
        let name = TableName::parse(&format!("b{round}")).expect("name");
        conn.create_table(
            TableDescriptor::named(&name.to_string())
                .expect("name")
                .with_family(ColumnFamilyDescriptor::new("f"))
                .with_family(ColumnFamilyDescriptor::new("g")),
            &[],
        )
        .expect("create");
        let tsv = work.path().join(format!("in{round}.tsv"));
        let lines: String = (0..8_000)
            .map(|i| format!("r{i:06}\t{}\t{}\n", "x".repeat(40), "y".repeat(40)))
            .collect();
        std::fs::write(&tsv, lines).expect("tsv");
        let out = work.path().join(format!("hfiles{round}"));
        let (ok, stdout, stderr) = support::basalt(&[
            "importtsv",
            "--connect",
            &server.rpc,
            "-Dimporttsv.columns=HBASE_ROW_KEY,f:q,g:q",
            "-Dimporttsv.buffer.mb=1",
            &format!("-Dimporttsv.bulk.output={}", out.display()),
            &name.to_string(),
            tsv.to_str().expect("path"),
        ]);
        assert!(ok, "{stdout}{stderr}");
        let rpc = server.rpc.clone();
        let table = name.to_string();
        if round == 0 {
            let started = Instant::now();
            let out = out.to_str().expect("path");
            assert!(support::basalt(&["bulkload", "--connect", &rpc, out, &table]).0);
            took = started.elapsed();
            continue;
        }
        // Spread over the second half of the load, where the server adopts the files.
        let delay = took.mul_f64(0.5 + 0.6 * f64::from(round - 1) / f64::from(ROUNDS));
        let mut load = std::process::Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args([
                "bulkload",
                "--connect",
                &rpc,
                out.to_str().expect("path"),
                &table,
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("bulkload");
        std::thread::sleep(delay);
        drop(server); // SIGKILL, and waits for the process to go
        // The tool, if still running, would retry against the dead server: it goes too.
        let answered = match load.try_wait().expect("bulkload status") {
            Some(status) => status.success(),
            None => {
                let _ = load.kill();
                let _ = load.wait();
                false
            }
        };
        let next = Server::start_in(&data, &[]);
        server = next;
        interrupted += u32::from(!answered);
        let conn = connect(&server);
        let n = Arc::clone(&conn)
            .scan(&name, &Scan::new())
            .expect("scan")
            .map(|r| r.expect("row").cells.len())
            .sum::<usize>();
        assert!(n == 0 || n == 16_000, "round {round}: {n} cells of 16000");
        assert!(
            !answered || n == 16_000,
            "round {round}: an answered load is in"
        );
    }
    eprintln!("{interrupted} of {ROUNDS} bulk loads were cut off by the kill");
}
