//! `basalt thrift`: the gateway alone, a client of a running server. With no server there it
//! fails at once, naming the address; with one, it serves Thrift calls from that server's
//! data. (happybase's whole suite also runs through it: `tests/python`.)

mod support;

use std::io::BufRead;
use std::process::{Command, Stdio};

use basalt_thrift::ThriftClient;
use support::{Server, basalt};

#[test]
fn without_a_server_it_fails_naming_the_address() {
    // A port nothing listens on: one just freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let target = format!("127.0.0.1:{port}");
    let (ok, _, err) = basalt(&["thrift", "--connect", &target, "--port", "0"]);
    assert!(!ok);
    assert!(err.contains(&format!("connecting to {target}")), "{err}");
}

#[test]
fn it_serves_the_servers_tables() {
    let server = Server::start();
    let mut gateway = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(["thrift", "--connect", &server.rpc, "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(gateway.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let addr = line
        .strip_prefix("thrift listening on ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_owned();
    assert!(
        line.contains(&format!("serving server {}", server.rpc)),
        "{line}"
    );
    let outcome = std::panic::catch_unwind(|| {
        let mut c = ThriftClient::connect(addr.parse().unwrap(), false, false).unwrap();
        c.create_table(b"t", &[(b"f", 3, "NONE")]).unwrap();
        let rows: Vec<basalt_thrift::client::RowCells<&[u8], &[u8]>> =
            vec![(b"r1", vec![(b"f", b"a", b"1"), (b"f", b"b", b"2")])];
        c.put_rows(b"t", &rows, true).unwrap();
        assert_eq!(c.get_row(b"t", b"r1").unwrap(), 2, "two columns");
        assert_eq!(c.get_row(b"t", b"nope").unwrap(), 0);
        assert_eq!(c.table_names().unwrap(), [b"t".to_vec()]);
    });
    let _ = gateway.kill();
    let _ = gateway.wait();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}
