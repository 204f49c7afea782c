//! `basalt pe`: every command runs and reports, reads find what writes wrote (also in a later
//! run on the same data directory), and bad options fail with a message naming them.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use support::{Server, basalt};

/// The value of `"key":<number>` in a JSON line.
fn field(line: &str, key: &str) -> f64 {
    let at = line.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    let rest = &line[at..];
    let end = rest.find([',', '}']).unwrap();
    rest[..end].parse().unwrap()
}

#[test]
fn commands_report_throughput_and_latency_and_reads_find_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("pe");
    let data = data.to_str().unwrap();
    let common = [
        "pe",
        "--dir",
        data,
        "--rows",
        "300",
        "--threads",
        "2",
        "--value-size",
        "50",
        "--presplit",
        "3",
        "--columns",
        "2",
        "--json",
    ];
    let mut args = common.to_vec();
    args.extend([
        "sequentialWrite",
        "sequentialRead",
        "randomRead",
        "scanRange10",
        "randomWrite",
    ]);
    let (ok, out, err) = basalt(&args);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    for (line, command) in lines.iter().zip([
        "sequentialWrite",
        "sequentialRead",
        "randomRead",
        "scanRange10",
        "randomWrite",
    ]) {
        assert!(
            line.contains(&format!("\"command\":\"{command}\"")),
            "{line}"
        );
        assert_eq!(field(line, "ops"), 600.0, "{line}");
        assert!(field(line, "ops_per_second") > 0.0, "{line}");
        let (p50, p99, max) = (field(line, "p50"), field(line, "p99"), field(line, "max"));
        assert!(p50 >= 1.0 && p50 <= p99 && p99 <= max, "{line}");
    }
    // Two columns per row: every read finds both.
    assert_eq!(field(lines[1], "found"), 1200.0);
    assert_eq!(field(lines[2], "found"), 1200.0);
    // 600 scans of up to 10 rows over 600 rows: most see 10.
    assert!(field(lines[3], "found") > 3000.0, "{}", lines[3]);

    // A later run on the same directory reads what this one wrote.
    let mut args = common.to_vec();
    args.push("randomRead");
    let (ok, out, err) = basalt(&args);
    assert!(ok, "{err}");
    assert_eq!(field(out.trim(), "found"), 1200.0, "{out}");

    // The text report names the percentiles.
    let (ok, out, err) = basalt(&["pe", "--in-memory", "--rows", "50", "sequentialWrite"]);
    assert!(ok, "{err}");
    assert!(
        out.starts_with("sequentialWrite: 50 ops in") && out.contains("p99.9"),
        "{out}"
    );
}

#[test]
fn bad_options_are_named() {
    let (ok, _, err) = basalt(&[
        "pe",
        "--in-memory",
        "--durability",
        "NOPE",
        "sequentialWrite",
    ]);
    assert!(!ok);
    assert!(err.contains("--durability NOPE"), "{err}");
    let (ok, _, err) = basalt(&["pe", "--in-memory", "--rows", "0", "sequentialWrite"]);
    assert!(!ok);
    assert!(err.contains("--rows"), "{err}");
    let (ok, _, err) = basalt(&["pe", "--in-memory", "fastWrite"]);
    assert!(!ok);
    assert!(err.contains("fastWrite"), "{err}");
    let (ok, _, err) = basalt(&[
        "pe",
        "--in-memory",
        "--ipc-pool-size",
        "2",
        "sequentialWrite",
    ]);
    assert!(
        !ok && err.contains("--ipc-pool-size") && err.contains("--rpc"),
        "{err}"
    );
    let (ok, _, err) = basalt(&["pe", "--ipc-pool-size", "0", "sequentialWrite"]);
    assert!(!ok && err.contains("--ipc-pool-size"), "{err}");
}

#[test]
fn ycsb_workloads_load_then_run() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("ycsb");
    let data = data.to_str().unwrap();
    let base = [
        "pe",
        "ycsb",
        "--dir",
        data,
        "--records",
        "500",
        "--operations",
        "400",
        "--threads",
        "2",
        "--json",
    ];
    let mut args = base.to_vec();
    args.extend(["--workload", "a"]);
    let (ok, out, err) = basalt(&args);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].contains("\"phase\":\"load\"") && lines[0].contains("\"INSERT\""));
    assert_eq!(field(lines[0], "ops"), 500.0);
    assert!(lines[1].contains("\"phase\":\"run\""), "{}", lines[1]);
    assert_eq!(field(lines[1], "ops"), 400.0);
    assert!(lines[1].contains("\"READ\"") && lines[1].contains("\"UPDATE\""));
    // The other workloads run on the loaded records.
    for (w, ops) in [
        ("c", ["READ"].as_slice()),
        ("e", &["SCAN", "INSERT"]),
        ("f", &["READ-MODIFY-WRITE"]),
    ] {
        let mut args = base.to_vec();
        args.extend(["--workload", w, "--skip-load"]);
        let (ok, out, err) = basalt(&args);
        assert!(ok, "{err}");
        assert_eq!(out.lines().count(), 1, "{out}");
        for op in ops {
            assert!(
                out.contains(&format!("\"op\":\"{op}\"")),
                "workload {w}: {out}"
            );
        }
    }
    let (ok, _, err) = basalt(&["pe", "ycsb", "--in-memory", "--workload", "z"]);
    assert!(!ok && err.contains("unknown YCSB workload"), "{err}");
    let (ok, _, err) = basalt(&["pe", "--in-memory", "ycsb", "sequentialWrite"]);
    assert!(!ok && err.contains("ycsb runs alone"), "{err}");
}

#[test]
fn increments_run_from_several_threads() {
    let (ok, out, err) = basalt(&[
        "pe",
        "--in-memory",
        "--rows",
        "200",
        "--threads",
        "3",
        "--json",
        "increment",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("\"command\":\"increment\""), "{out}");
    assert_eq!(field(out.trim(), "ops"), 600.0);
    assert_eq!(field(out.trim(), "found"), 600.0);
}

#[test]
fn remote_modes_drive_a_running_server() {
    let server = Server::start();
    for (flag, address, table, one_con) in [
        ("--rpc", server.rpc.as_str(), "over_rpc", false),
        // The threads' calls multiplexed on one shared connection.
        ("--rpc", server.rpc.as_str(), "over_one_rpc", true),
        // Puts written 16 at a time: Multi calls, split by region.
        ("--rpc", server.rpc.as_str(), "over_rpc_batched", false),
        // Puts through a buffered mutator per thread (`--auto-flush false`).
        ("--rpc", server.rpc.as_str(), "over_rpc_buffered", false),
        ("--thrift", server.thrift.as_str(), "over_thrift", false),
    ] {
        let mut args = vec![
            "pe",
            flag,
            address,
            "--table",
            table,
            "--rows",
            "200",
            "--threads",
            "2",
            "--json",
        ];
        if flag == "--rpc" {
            // Pre-split: rows and scans cross regions.
            args.extend(["--presplit", "3"]);
        }
        if one_con {
            // Over a pool of two connections, the threads dealt to them.
            args.extend(["--one-con", "--ipc-pool-size", "2"]);
        }
        if table == "over_rpc_batched" {
            args.extend(["--batch", "16"]);
        }
        if table == "over_rpc_buffered" {
            args.extend(["--auto-flush", "false"]);
        }
        args.extend(["sequentialWrite", "randomRead", "scanRange10", "increment"]);
        let (ok, out, err) = basalt(&args);
        assert!(ok, "{flag}: {err}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{flag}: {out}");
        assert_eq!(field(lines[1], "found"), 400.0, "{flag}: {}", lines[1]);
        assert!(field(lines[2], "found") > 3000.0, "{flag}: {}", lines[2]);
        assert_eq!(field(lines[3], "ops"), 400.0, "{flag}: {}", lines[3]);
    }
    // A table written over one protocol reads back over the other.
    let run = |flag: &str, address: &str, command: &str| {
        let (ok, out, err) = basalt(&[
            "pe",
            flag,
            address,
            "--table",
            "cross",
            "--rows",
            "200",
            "--threads",
            "2",
            "--json",
            command,
        ]);
        assert!(ok, "{flag} {command}: {err}");
        field(out.trim(), "found")
    };
    run("--rpc", &server.rpc, "sequentialWrite");
    assert_eq!(run("--thrift", &server.thrift, "sequentialRead"), 400.0);
    // Thrift1 has no buffered mutator.
    let (ok, _, err) = basalt(&[
        "pe",
        "--thrift",
        &server.thrift,
        "--table",
        "unbuffered",
        "--rows",
        "10",
        "--auto-flush",
        "false",
        "sequentialWrite",
    ]);
    assert!(!ok && err.contains("--auto-flush false needs"), "{err}");
}

#[test]
fn buffered_writes_on_the_embedded_engine_are_all_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("pe");
    let (ok, out, err) = basalt(&[
        "pe",
        "--dir",
        data.to_str().unwrap(),
        "--rows",
        "500",
        "--threads",
        "2",
        "--presplit",
        "2",
        "--auto-flush",
        "false",
        "--json",
        "sequentialWrite",
        "sequentialRead",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(field(lines[0], "ops"), 1000.0, "{out}");
    assert_eq!(field(lines[1], "found"), 1000.0, "{out}");
}
