//! `basalt shell` as a user runs it: `-n` on standard input and script files stop at the first
//! error with a non-zero exit, `--data` opens a directory (and refuses one a server holds), and
//! `--connect` reaches a running server.

mod support;

use support::{Server, basalt, basalt_with_input};

const SCRIPT: &str = "create 't', 'f'
put 't', 'r1', 'f:a', 'v1', 1714558272345
put 't', 'r2', 'f:a', \"\\x00\\x01\", 1714558273001
scan 't'
";

#[test]
fn non_interactive_input_runs_on_a_data_directory_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let (ok, out, err) = basalt_with_input(&["shell", "--data", data, "-n"], SCRIPT);
    assert!(ok, "{err}");
    assert!(out.contains("Created table t"), "{out}");
    assert!(
        out.contains(" r2 column=f:a, timestamp=2024-05-01T10:11:13.001, value=\\x00\\x01\n"),
        "{out}"
    );
    assert!(out.contains("2 row(s)\n"), "{out}");
    // No IRB echo when not interactive.
    assert!(!out.contains("=> "), "{out}");
    // Closed cleanly: a second session reads the rows back.
    let (ok, out, err) = basalt_with_input(&["shell", "--data", data, "-n"], "get 't', 'r1'\n");
    assert!(ok, "{err}");
    assert!(
        out.contains(" f:a timestamp=2024-05-01T10:11:12.345, value=v1\n"),
        "{out}"
    );
}

#[test]
fn the_first_error_stops_the_input_with_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let data = data.to_str().unwrap();
    let input = "create 't', 'f'\nput 't', 'r', 'nope:q', 'v'\nput 't', 'r2', 'f:q', 'v'\n";
    let (ok, out, err) = basalt_with_input(&["shell", "--data", data, "-n"], input);
    assert!(!ok, "{out}");
    assert!(
        err.contains("Unknown column family! Valid column names: f:*"),
        "{err}"
    );
    let (_, out, _) = basalt_with_input(&["shell", "--data", data, "-n"], "count 't'\n");
    assert!(
        out.contains("0 row(s)"),
        "the put after the error ran: {out}"
    );

    // A syntax error too, naming the column.
    let (ok, _, err) = basalt_with_input(&["shell", "--data", data, "-n"], "list\nget 't',, 'r'\n");
    assert!(!ok);
    assert!(err.contains("(hbase):1:9: syntax error"), "{err}");

    // A file: the same.
    let script = dir.path().join("script.hb");
    std::fs::write(&script, "list\nbogus_command 't'\nlist\n").unwrap();
    let (ok, out, err) = basalt(&["shell", "--data", data, script.to_str().unwrap()]);
    assert!(!ok);
    assert_eq!(out.matches("TABLE\n").count(), 1, "{out}");
    assert!(
        err.contains("undefined local variable or method `bogus_command'"),
        "{err}"
    );
    std::fs::write(&script, "list\nexit\nbogus_command\n").unwrap();
    let (ok, _, err) = basalt(&["shell", "--data", data, script.to_str().unwrap()]);
    assert!(ok, "exit ends the script before the bad line: {err}");
}

#[test]
fn a_data_directory_held_by_a_server_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let held = basalt_embedded::Connection::open(dir.path()).unwrap();
    let (ok, _, err) = basalt_with_input(
        &["shell", "--data", dir.path().to_str().unwrap(), "-n"],
        "list\n",
    );
    assert!(!ok);
    assert!(err.contains("opening data directory"), "{err}");
    assert!(
        err.to_lowercase().contains("lock") || err.contains("in use"),
        "{err}"
    );
    held.close().unwrap();
}

#[test]
fn connect_reaches_a_running_server() {
    let server = Server::start();
    let (ok, out, err) = basalt_with_input(&["shell", "--connect", &server.rpc, "-n"], SCRIPT);
    assert!(ok, "{err}");
    assert!(
        out.contains(" r1 column=f:a, timestamp=2024-05-01T10:11:12.345, value=v1\n"),
        "{out}"
    );
    let (ok, out, err) = basalt_with_input(
        &[
            "shell",
            "--connect",
            &server.rpc,
            "-n",
            "--epoch-timestamps",
        ],
        "get 't', 'r1'\nstatus\n",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains(" f:a timestamp=1714558272345, value=v1\n"),
        "{out}"
    );
    assert!(
        out.contains("1 active master, 0 backup masters, 1 servers, 0 dead"),
        "{out}"
    );

    // Nothing listening: a clear error, not a hang.
    let (ok, _, err) = basalt_with_input(&["shell", "--connect", "127.0.0.1:1", "-n"], "list\n");
    assert!(!ok);
    assert!(err.contains("connecting to 127.0.0.1:1"), "{err}");
}
