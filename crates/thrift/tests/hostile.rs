//! The gateway's socket under hostile input: for a bounded count and time, connections send
//! valid calls, mutated ones (flipped bits, cut short, lengths set to extremes, bytes
//! inserted) and plain garbage. Afterwards no connection thread has panicked, the server
//! still serves every call correctly, and the connections it held are given back.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use basalt_net::hostile::{count_panics, hammer};
use basalt_thrift::ThriftConfig;
use support::{
    Arg, Backend, Client, column_descriptor, list, mutation, server_with, success, tcells,
};

/// Valid calls of many methods, over every kind of argument.
fn valid_calls(c: &mut Client) -> Vec<Vec<u8>> {
    let cols: &[&[u8]] = &[b"f:q", b"f"];
    let long = vec![b'k'; 40_000];
    let m = |w: &mut basalt_thrift::protocol::Writer, _| mutation(w, false, b"f:q", b"v");
    let scan = |w: &mut basalt_thrift::protocol::Writer| {
        w.field(1, basalt_thrift::protocol::TType::String);
        w.binary(b"a");
        w.field(3, basalt_thrift::protocol::TType::I64);
        w.i64(i64::MAX);
    };
    vec![
        c.encode("getTableNames", &[]),
        c.encode(
            "mutateRow",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(b"r")),
                (3, Arg::Structs(1, &m)),
            ],
        ),
        c.encode("getRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b"r"))]),
        c.encode("getRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(&long))]),
        c.encode(
            "scannerOpenWithPrefix",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(&long)),
                (3, Arg::Texts(cols)),
            ],
        ),
        c.encode(
            "scannerOpenWithScan",
            &[(1, Arg::Bin(b"t")), (2, Arg::Struct(&scan))],
        ),
        c.encode("scannerGetList", &[(1, Arg::I32(1)), (2, Arg::I32(1000))]),
        c.encode(
            "atomicIncrement",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(b"c")),
                (3, Arg::Bin(b"f:n")),
                (4, Arg::I64(1)),
            ],
        ),
        c.encode(
            "getVer",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(b"r")),
                (3, Arg::Bin(b"f:q")),
                (4, Arg::I32(i32::MAX)),
            ],
        ),
        c.encode("getColumnDescriptors", &[(1, Arg::Bin(b"t"))]),
        c.encode("getTableRegions", &[(1, Arg::Bin(b"t"))]),
    ]
}

fn serve_hostile_input(framed: bool, compact: bool, seed: u64, panics: &AtomicUsize) {
    let (srv, conn) = server_with(
        Backend::Embedded,
        ThriftConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            framed,
            compact,
            max_message: 1 << 20,
            stall_timeout: Duration::from_millis(200),
            ..ThriftConfig::default()
        },
    );
    let mut good = Client::connect(&srv).with(framed, compact);
    let f = |w: &mut basalt_thrift::protocol::Writer, _| column_descriptor(w, b"f:", None);
    good.call(
        "createTable",
        &[(1, Arg::Bin(b"t")), (2, Arg::Structs(1, &f))],
    );
    let calls = valid_calls(&mut good);
    hammer(
        srv.local_addr(),
        &calls,
        seed,
        Duration::from_secs(15),
        panics,
    );
    // Still serving, and correctly.
    let mut after = Client::connect(&srv).with(framed, compact);
    let m = |w: &mut basalt_thrift::protocol::Writer, _| mutation(w, false, b"f:q", b"checked");
    after.call(
        "mutateRow",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"after")),
            (3, Arg::Structs(1, &m)),
        ],
    );
    let got = after.call(
        "get",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"after")),
            (3, Arg::Bin(b"f:q")),
        ],
    );
    assert_eq!(
        tcells(success(&got)),
        [(b"checked".to_vec(), tcells(success(&got))[0].1)]
    );
    let names = after.call("getTableNames", &[]);
    assert_eq!(list(success(&names)).len(), 1);
    drop((after, good));
    // Every hostile connection was given back: the server stops promptly.
    let stopping = Instant::now();
    srv.shutdown();
    assert!(stopping.elapsed() < Duration::from_secs(10));
    drop(conn);
}

#[test]
fn random_and_mutated_calls_leave_the_gateway_serving() {
    let panics = count_panics();
    for (i, (framed, compact)) in [(false, false), (true, true)].into_iter().enumerate() {
        serve_hostile_input(framed, compact, 0x5EED + i as u64, &panics);
    }
}
