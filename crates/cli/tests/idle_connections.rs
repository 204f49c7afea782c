//! A real `basalt standalone` holds 10,000 idle HBase client connections (each past its
//! preamble and connection header, as HBase's client leaves one) with under 100 threads:
//! quiet connections are parked on the RPC server's poller, not given a thread each. Every
//! one of them is answered when it calls, before and after it was parked, and a client on a
//! connection of its own goes on reading and writing meanwhile.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use basalt_embedded::prelude::*;
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{ColumnFamilyDescriptor, Get, Put, TableDescriptor, TableName};
use basalt_rpc::frame::{encode_call, encode_connection_start, read_response};
use basalt_rpc::pb::{ConnectionHeader, GetRequest, UserInformation};
use support::Server;

/// Connections the test holds.
const HELD: usize = 10_000;

/// Threads of process `pid`.
fn threads(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .count()
}

/// `field` of /proc/`pid`/status, in kB.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// Makes room for `HELD` sockets here (the server raises its own limit the same way).
fn raise_open_files_limit() -> u64 {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (_, hard) = getrlimit(Resource::RLIMIT_NOFILE).unwrap();
    setrlimit(Resource::RLIMIT_NOFILE, hard, hard).unwrap();
    hard
}

/// A Get for a region no server has: any answer will do, so long as it is this call's.
fn probe(conn: &mut BufReader<TcpStream>, call_id: u32) {
    let call = encode_call(
        call_id,
        "Get",
        &GetRequest {
            region: basalt_proto::region(b"no-such-region"),
            ..GetRequest::default()
        },
    );
    conn.get_mut().write_all(&call).unwrap();
    let (header, _) = read_response(conn, 1 << 20).unwrap();
    assert_eq!(header.call_id, Some(call_id));
}

#[test]
fn ten_thousand_idle_connections_hold_no_thread_each() {
    let hard = raise_open_files_limit();
    // Both ends of every connection are on this machine: this process and the server each
    // hold one descriptor per connection, beside their own.
    assert!(
        hard >= HELD as u64 + 1000,
        "this machine allows {hard} open files per process; the test needs {}",
        HELD + 1000
    );
    let server = Server::start_with(&["--max-connections", "20000"]);
    let pid = server.pid();
    let idle_threads = threads(pid);
    let idle_rss = status_kb(pid, "VmRSS:");
    let start = encode_connection_start(&ConnectionHeader {
        user_info: Some(UserInformation {
            effective_user: Some("idle".into()),
            real_user: None,
        }),
        service_name: Some("ClientService".into()),
        cell_block_codec_class: Some("org.apache.hadoop.hbase.codec.KeyValueCodec".into()),
        ..ConnectionHeader::default()
    });
    let opened = Instant::now();
    let mut held: Vec<BufReader<TcpStream>> = (0..HELD)
        .map(|_| {
            let mut s = TcpStream::connect(&server.rpc).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            s.write_all(&start).unwrap();
            BufReader::new(s)
        })
        .collect();
    println!(
        "{HELD} connections opened in {:.1} s; RSS {} MiB before, {} MiB now",
        opened.elapsed().as_secs_f64(),
        idle_rss / 1024,
        status_kb(pid, "VmRSS:") / 1024
    );
    // Every connection is served: each one's call is answered.
    for (i, conn) in held.iter_mut().enumerate() {
        probe(conn, u32::try_from(i).unwrap());
    }
    println!(
        "{HELD} connections opened and answered in {:.1} s",
        opened.elapsed().as_secs_f64()
    );

    // Quiet now: within a bounded wait the server's threads fall back to what it had idle.
    let deadline = Instant::now() + Duration::from_secs(60);
    while threads(pid) >= 100 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    let holding = threads(pid);
    println!(
        "holding {HELD} idle connections: {holding} threads ({idle_threads} before any), \
         RSS {} MiB",
        status_kb(pid, "VmRSS:") / 1024
    );
    assert!(
        holding < 100,
        "{holding} threads while {HELD} connections are idle"
    );

    // A client of its own reads and writes meanwhile.
    let client =
        RemoteConnection::connect(server.rpc.parse().unwrap(), RemoteConfig::default()).unwrap();
    client
        .create_table(
            TableDescriptor::named("busy")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[],
        )
        .unwrap();
    let table = TableName::parse("busy").unwrap();
    for i in 0..100u32 {
        let row = format!("row{i:03}");
        client
            .put(
                &table,
                &Put::new(row.clone()).add_column("f", "q", i.to_string()),
            )
            .unwrap();
        let got = client.get(&table, &Get::new(row)).unwrap();
        assert_eq!(got.value(b"f", b"q"), Some(i.to_string().as_bytes()));
    }

    // Parked connections wake: every hundredth calls again and is answered.
    for (i, conn) in held.iter_mut().enumerate().step_by(100) {
        probe(conn, u32::try_from(HELD + i).unwrap());
    }
    // Closing them all leaves the server serving.
    held.clear();
    let got = client.get(&table, &Get::new("row042")).unwrap();
    assert_eq!(got.value(b"f", b"q"), Some(&b"42"[..]));
}
