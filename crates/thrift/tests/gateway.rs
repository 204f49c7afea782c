//! The Thrift1 gateway over a real socket: every transport and protocol, HBase's Thrift
//! semantics method by method (the black-box checklist of HBase's own TestThriftServer, in
//! our words), and robustness against bad clients.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

on_both_backends!(
    tables_rows_and_scans_over_every_transport_and_protocol,
    the_benchmark_client_over_every_transport_and_protocol,
    hbase_thrift_semantics,
    counters_appends_and_checks,
    scanner_variants_regions_and_sorting,
    scanners_expire_after_their_lease,
    bad_clients_lose_only_their_own_connection,
    keys_longer_than_a_row_key_are_errors_not_panics,
);

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use basalt_thrift::protocol::{TType, Value};
use basalt_thrift::{ClientError, ThriftClient, ThriftConfig};
use support::{
    Answer, Arg, Backend, Client, Row, column_descriptor, exception, list, mutation, row_columns,
    server, server_with, success, tcells,
};

fn create(c: &mut Client, table: &[u8], families: &[(&[u8], Option<i32>)]) {
    let f = |w: &mut basalt_thrift::protocol::Writer, i: usize| {
        column_descriptor(w, families[i].0, families[i].1);
    };
    c.call(
        "createTable",
        &[(1, Arg::Bin(table)), (2, Arg::Structs(families.len(), &f))],
    );
}

fn put(c: &mut Client, table: &[u8], row: &[u8], column: &[u8], value: &[u8], ts: Option<i64>) {
    let m = |w: &mut basalt_thrift::protocol::Writer, _| mutation(w, false, column, value);
    let mut args = vec![
        (1, Arg::Bin(table)),
        (2, Arg::Bin(row)),
        (3, Arg::Structs(1, &m)),
    ];
    match ts {
        Some(ts) => {
            args.push((4, Arg::I64(ts)));
            c.call("mutateRowTs", &args);
        }
        None => {
            c.call("mutateRow", &args);
        }
    }
}

fn get(c: &mut Client, table: &[u8], row: &[u8], column: &[u8]) -> Vec<(Vec<u8>, i64)> {
    let r = c.call(
        "get",
        &[
            (1, Arg::Bin(table)),
            (2, Arg::Bin(row)),
            (3, Arg::Bin(column)),
        ],
    );
    tcells(success(&r))
}

fn scan_all(c: &mut Client, id: i32) -> Vec<Row> {
    let mut out = Vec::new();
    for _ in 0..1000 {
        let r = c.call("scannerGetList", &[(1, Arg::I32(id)), (2, Arg::I32(7))]);
        let rows = list(success(&r));
        if rows.is_empty() {
            break;
        }
        out.extend(rows.iter().map(row_columns));
    }
    c.call("scannerClose", &[(1, Arg::I32(id))]);
    out
}

fn tables_rows_and_scans_over_every_transport_and_protocol(backend: Backend) {
    for (framed, compact) in [(false, false), (true, false), (false, true), (true, true)] {
        let (srv, _conn) = server(backend, framed, compact);
        let mut c = Client::connect(&srv).with(framed, compact);
        let names = c.call("getTableNames", &[]);
        assert!(list(success(&names)).is_empty());
        create(&mut c, b"t", &[(b"cf1:", None), (b"cf2:", Some(2))]);
        let names = c.call("getTableNames", &[]);
        assert_eq!(list(success(&names)), [Value::Binary(b"t".to_vec())]);
        let enabled = c.call("getTableNamesWithIsTableEnabled", &[]);
        assert_eq!(
            success(&enabled),
            &Value::Map(vec![(Value::Binary(b"t".to_vec()), Value::Bool(true))])
        );
        let d = c.call("getColumnDescriptors", &[(1, Arg::Bin(b"t"))]);
        let Value::Map(families) = success(&d) else {
            panic!("map")
        };
        let versions: Vec<(Vec<u8>, i32)> = families
            .iter()
            .map(|(k, v)| {
                let Value::Binary(k) = k else { panic!() };
                (k.clone(), support::strukt(v).i32(2).unwrap())
            })
            .collect();
        assert_eq!(versions, [(b"cf1:".to_vec(), 3), (b"cf2:".to_vec(), 2)]);
        for i in 0..30u8 {
            let row = format!("row{i:02}");
            put(&mut c, b"t", row.as_bytes(), b"cf1:a", &[b'v', i], None);
        }
        assert_eq!(get(&mut c, b"t", b"row07", b"cf1:a")[0].0, [b'v', 7]);
        let r = c.call("getRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b"row03"))]);
        assert_eq!(
            row_columns(&list(success(&r))[0]),
            (b"row03".to_vec(), vec![(b"cf1:a".to_vec(), vec![b'v', 3])])
        );
        let s = |w: &mut basalt_thrift::protocol::Writer| {
            w.field(1, TType::String);
            w.binary(b"row10");
            w.field(2, TType::String);
            w.binary(b"row20");
        };
        let id = c.call(
            "scannerOpenWithScan",
            &[(1, Arg::Bin(b"t")), (2, Arg::Struct(&s))],
        );
        let Value::I32(id) = success(&id) else {
            panic!("id")
        };
        let rows = scan_all(&mut c, *id);
        assert_eq!(rows.len(), 10);
        assert_eq!(rows[0].0, b"row10");
        c.call("disableTable", &[(1, Arg::Bin(b"t"))]);
        let e = c.call("isTableEnabled", &[(1, Arg::Bin(b"t"))]);
        assert_eq!(success(&e), &Value::Bool(false));
        c.call("deleteTable", &[(1, Arg::Bin(b"t"))]);
        let names = c.call("getTableNames", &[]);
        assert!(list(success(&names)).is_empty());
        srv.shutdown();
    }
}

/// `ThriftClient` (what `basalt pe` drives the gateway with) reads replies as they stream in,
/// without building them: every transport and protocol, and the errors it reports.
fn the_benchmark_client_over_every_transport_and_protocol(backend: Backend) {
    type Cells = basalt_thrift::client::RowCells<&'static [u8], &'static [u8]>;
    for (framed, compact) in [(false, false), (true, false), (false, true), (true, true)] {
        let (srv, _conn) = server(backend, framed, compact);
        let mut c = ThriftClient::connect(srv.local_addr(), framed, compact).unwrap();
        c.create_table(b"t", &[(b"a", 3, "NONE"), (b"b", 1, "NONE")])
            .unwrap();
        assert_eq!(c.table_names().unwrap(), [b"t".to_vec()]);
        let wide: Cells = (
            b"wide",
            vec![(b"a", b"x", b"1"), (b"a", b"y", b"2"), (b"b", b"", b"3")],
        );
        let narrow: Cells = (b"narrow", vec![(b"b", b"z", b"4")]);
        c.put_rows(b"t", &[wide, narrow], true).unwrap();
        assert_eq!(c.get_row(b"t", b"wide").unwrap(), 3);
        assert_eq!(c.get_row(b"t", b"narrow").unwrap(), 1);
        assert_eq!(c.get_row(b"t", b"missing").unwrap(), 0);
        assert_eq!(c.increment(b"t", b"n", b"a:c", 5).unwrap(), 5);
        assert_eq!(c.scan(b"t", b"", 10).unwrap(), 3);
        // A declared exception (IOError) comes back as the server's message, and the
        // connection stays usable.
        match c.get_row(b"nope", b"wide") {
            Err(ClientError::Remote(m)) => assert!(m.contains("nope"), "{m}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(c.get_row(b"t", b"wide").unwrap(), 3);
        srv.shutdown();
    }
}

fn hbase_thrift_semantics(backend: Backend) {
    let (srv, _conn) = server(backend, false, false);
    let mut c = Client::connect(&srv);
    create(&mut c, b"t", &[(b"a:", None), (b"b:", Some(2))]);
    // Read timestamps are exclusive upper bounds.
    put(&mut c, b"t", b"r", b"a:x", b"old", Some(10));
    put(&mut c, b"t", b"r", b"a:x", b"new", Some(20));
    let ver_ts = |c: &mut Client, ts: i64| {
        let r = c.call(
            "getVerTs",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(b"r")),
                (3, Arg::Bin(b"a:x")),
                (4, Arg::I64(ts)),
                (5, Arg::I32(10)),
            ],
        );
        tcells(success(&r))
    };
    assert!(ver_ts(&mut c, 10).is_empty());
    assert_eq!(ver_ts(&mut c, 11), [(b"old".to_vec(), 10)]);
    assert_eq!(ver_ts(&mut c, 21).len(), 2);
    let r = c.call(
        "getRowTs",
        &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b"r")), (3, Arg::I64(20))],
    );
    assert_eq!(row_columns(&list(success(&r))[0]).1[0].1, b"old");
    // mutateRows applies puts before deletes: a put and a delete of one cell at one
    // timestamp leave it deleted.
    let batch = |w: &mut basalt_thrift::protocol::Writer, _| {
        w.field(1, TType::String);
        w.binary(b"r2");
        w.field(2, TType::List);
        w.list_begin(TType::Struct, 2);
        w.struct_begin();
        mutation(w, true, b"a:y", b"");
        w.struct_end();
        w.struct_begin();
        mutation(w, false, b"a:y", b"v");
        w.struct_end();
    };
    c.call(
        "mutateRowsTs",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Structs(1, &batch)),
            (3, Arg::I64(5)),
        ],
    );
    assert!(get(&mut c, b"t", b"r2", b"a:y").is_empty());
    // `a:` is the empty qualifier; `a` the whole family.
    put(&mut c, b"t", b"r3", b"a:", b"empty", None);
    put(&mut c, b"t", b"r3", b"a:q", b"q", None);
    put(&mut c, b"t", b"r3", b"b:q", b"bq", None);
    assert_eq!(get(&mut c, b"t", b"r3", b"a:")[0].0, b"empty");
    assert_eq!(get(&mut c, b"t", b"r3", b"a").len(), 2);
    c.call(
        "deleteAll",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"r3")),
            (3, Arg::Bin(b"a")),
        ],
    );
    assert!(get(&mut c, b"t", b"r3", b"a").is_empty());
    assert_eq!(get(&mut c, b"t", b"r3", b"b:q").len(), 1);
    // deleteAllTs removes versions up to the timestamp only.
    c.call(
        "deleteAllTs",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"r")),
            (3, Arg::Bin(b"a:x")),
            (4, Arg::I64(10)),
        ],
    );
    assert_eq!(ver_ts(&mut c, 100), [(b"new".to_vec(), 20)]);
    c.call("deleteAllRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b"r"))]);
    let r = c.call("getRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b"r"))]);
    assert!(list(success(&r)).is_empty());
    // Errors land in the fields the IDL declares.
    let m = |w: &mut basalt_thrift::protocol::Writer, _| mutation(w, false, b"a", b"v");
    let r = c.call(
        "mutateRow",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"r")),
            (3, Arg::Structs(1, &m)),
        ],
    );
    assert!(exception(&r, 2).contains("No column qualifier"));
    let f = |w: &mut basalt_thrift::protocol::Writer, _| column_descriptor(w, b"a:", None);
    let r = c.call(
        "createTable",
        &[(1, Arg::Bin(b"t")), (2, Arg::Structs(1, &f))],
    );
    assert!(exception(&r, 3).contains("already exists"), "{r:?}");
    let r = c.call("deleteTable", &[(1, Arg::Bin(b"nope"))]);
    assert!(exception(&r, 1).contains("does not exist"));
    let r = c.call("scannerGet", &[(1, Arg::I32(12345))]);
    assert_eq!(exception(&r, 2), "scanner ID is invalid");
    let r = c.call(
        "get",
        &[
            (1, Arg::Bin(b"nope")),
            (2, Arg::Bin(b"r")),
            (3, Arg::Bin(b"a:x")),
        ],
    );
    assert!(exception(&r, 1).contains("TableNotFoundException"));
    let r = c.call(
        "getRow",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"r")),
            (3, Arg::Bin(b"x")),
        ],
    );
    assert!(
        r.get(0).is_some(),
        "a wrongly typed attributes field is skipped"
    );
    srv.shutdown();
}

fn counters_appends_and_checks(backend: Backend) {
    let (srv, _conn) = server(backend, false, false);
    let mut c = Client::connect(&srv);
    create(&mut c, b"t", &[(b"f:", None)]);
    let inc = |c: &mut Client, by: i64| {
        let r = c.call(
            "atomicIncrement",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(b"r")),
                (3, Arg::Bin(b"f:n")),
                (4, Arg::I64(by)),
            ],
        );
        match success(&r) {
            Value::I64(v) => *v,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(inc(&mut c, 0), 0);
    assert_eq!(inc(&mut c, 100), 100);
    assert_eq!(inc(&mut c, -3), 97);
    let ti = |w: &mut basalt_thrift::protocol::Writer, i: usize| {
        w.field(1, TType::String);
        w.binary(b"t");
        w.field(2, TType::String);
        w.binary(b"r");
        w.field(3, TType::String);
        w.binary(b"f:n");
        w.field(4, TType::I64);
        w.i64(i as i64 + 1);
    };
    c.call("incrementRows", &[(1, Arg::Structs(3, &ti))]);
    c.call("increment", &[(1, Arg::Struct(&|w| ti(w, 9)))]);
    assert_eq!(inc(&mut c, 0), 97 + 1 + 2 + 3 + 10);
    // A cell that is not 8 bytes is an IOError.
    put(&mut c, b"t", b"r", b"f:s", b"abc", None);
    let r = c.call(
        "atomicIncrement",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"r")),
            (3, Arg::Bin(b"f:s")),
            (4, Arg::I64(1)),
        ],
    );
    assert!(r.get(1).is_some() || r.get(2).is_some(), "{r:?}");
    let ap = |w: &mut basalt_thrift::protocol::Writer| {
        w.field(1, TType::String);
        w.binary(b"t");
        w.field(2, TType::String);
        w.binary(b"r");
        w.field(3, TType::List);
        w.list_begin(TType::String, 1);
        w.binary(b"f:s");
        w.field(4, TType::List);
        w.list_begin(TType::String, 1);
        w.binary(b"def");
    };
    let r = c.call("append", &[(1, Arg::Struct(&ap))]);
    assert_eq!(tcells(success(&r))[0].0, b"abcdef");
    let check = |c: &mut Client, expected: Option<&[u8]>| {
        let m = |w: &mut basalt_thrift::protocol::Writer| mutation(w, false, b"f:c", b"set");
        let mut args = vec![
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"r")),
            (3, Arg::Bin(b"f:c")),
            (6, Arg::Struct(&m)),
        ];
        if let Some(e) = expected {
            args.push((5, Arg::Bin(e)));
        }
        let r = c.call("checkAndPut", &args);
        success(&r) == &Value::Bool(true)
    };
    assert!(!check(&mut c, Some(b"set")), "the cell is missing");
    assert!(check(&mut c, None), "absent: the put applies");
    assert!(check(&mut c, Some(b"set")));
    assert_eq!(get(&mut c, b"t", b"r", b"f:c")[0].0, b"set");
    srv.shutdown();
}

fn scanner_variants_regions_and_sorting(backend: Backend) {
    let (srv, conn) = server(backend, false, false);
    let mut c = Client::connect(&srv);
    create(&mut c, b"t", &[(b"f:", None)]);
    for r in ["a1", "a2", "b1", "b2", "c1"] {
        put(&mut c, b"t", r.as_bytes(), b"f:q", b"v", Some(100));
    }
    let open = |c: &mut Client, method: &str, args: &[(i16, Arg<'_>)]| {
        let r = c.call(method, args);
        let Value::I32(id) = success(&r) else {
            panic!("{r:?}")
        };
        *id
    };
    let keys = |rows: Vec<Row>| {
        rows.into_iter()
            .map(|r| String::from_utf8(r.0).unwrap())
            .collect::<Vec<_>>()
    };
    let cols: &[&[u8]] = &[b"f"];
    let id = open(
        &mut c,
        "scannerOpenWithPrefix",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"b")),
            (3, Arg::Texts(cols)),
        ],
    );
    assert_eq!(keys(scan_all(&mut c, id)), ["b1", "b2"]);
    let id = open(
        &mut c,
        "scannerOpenWithStop",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"a2")),
            (3, Arg::Bin(b"c1")),
            (4, Arg::Texts(cols)),
        ],
    );
    assert_eq!(keys(scan_all(&mut c, id)), ["a2", "b1", "b2"]);
    let id = open(
        &mut c,
        "scannerOpenTs",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"")),
            (3, Arg::Texts(cols)),
            (4, Arg::I64(100)),
        ],
    );
    assert!(scan_all(&mut c, id).is_empty(), "ts is exclusive");
    // Filters, reversal and sorted columns through TScan.
    for q in (0..20).rev() {
        put(
            &mut c,
            b"t",
            b"wide",
            format!("f:{q}").as_bytes(),
            b"x",
            None,
        );
    }
    let s = |w: &mut basalt_thrift::protocol::Writer| {
        w.field(6, TType::String);
        w.binary(b"PrefixFilter('wide')");
        w.field_bool(8, true);
    };
    let id = open(
        &mut c,
        "scannerOpenWithScan",
        &[(1, Arg::Bin(b"t")), (2, Arg::Struct(&s))],
    );
    let rows = scan_all(&mut c, id);
    let columns: Vec<Vec<u8>> = rows[0].1.iter().map(|(k, _)| k.clone()).collect();
    let mut sorted = columns.clone();
    sorted.sort();
    assert_eq!(columns.len(), 20);
    assert_eq!(columns, sorted, "sortedColumns come byte-ordered");
    let s = |w: &mut basalt_thrift::protocol::Writer| {
        w.field(1, TType::String);
        w.binary(b"b2");
        w.field(2, TType::String);
        w.binary(b"a1");
        w.field_bool(9, true);
    };
    let id = open(
        &mut c,
        "scannerOpenWithScan",
        &[(1, Arg::Bin(b"t")), (2, Arg::Struct(&s))],
    );
    assert_eq!(keys(scan_all(&mut c, id)), ["b2", "b1", "a2"]);
    let s = |w: &mut basalt_thrift::protocol::Writer| {
        w.field(6, TType::String);
        w.binary(b"PrefixFilter(");
    };
    let r = c.call(
        "scannerOpenWithScan",
        &[(1, Arg::Bin(b"t")), (2, Arg::Struct(&s))],
    );
    assert!(
        exception(&r, 1).contains("Incorrect Filter String"),
        "{r:?}"
    );
    // Regions, and a row's region.
    let r = c.call("getTableRegions", &[(1, Arg::Bin(b"t"))]);
    assert_eq!(list(success(&r)).len(), 1);
    conn.admin()
        .split(&basalt_embedded::TableName::parse("t").unwrap(), Some(b"b"))
        .unwrap();
    let r = c.call("getTableRegions", &[(1, Arg::Bin(b"t"))]);
    assert_eq!(list(success(&r)).len(), 2);
    let r = c.call("getRegionInfo", &[(1, Arg::Bin(b"t,b5,99999999999999"))]);
    let info = support::strukt(success(&r));
    assert_eq!(info.binary(1).unwrap(), b"b");
    assert!(info.binary(4).unwrap().starts_with(b"t,b,"));
    let r = c.call("getTableRegions", &[(1, Arg::Bin(b"missing"))]);
    assert!(list(success(&r)).is_empty());
    let r = c.call(
        "getRowOrBefore",
        &[
            (1, Arg::Bin(b"t")),
            (2, Arg::Bin(b"b15")),
            (3, Arg::Bin(b"f")),
        ],
    );
    assert_eq!(tcells(success(&r)).len(), 1);
    c.call("compact", &[(1, Arg::Bin(b"t"))]);
    c.call("majorCompact", &[(1, Arg::Bin(b"t"))]);
    srv.shutdown();
}

fn scanners_expire_after_their_lease(backend: Backend) {
    let (srv, _conn) = server_with(
        backend,
        ThriftConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            scanner_lease: Duration::from_millis(200),
            ..ThriftConfig::default()
        },
    );
    let mut c = Client::connect(&srv);
    create(&mut c, b"t", &[(b"f:", None)]);
    put(&mut c, b"t", b"r", b"f:q", b"v", None);
    let r = c.call("scannerOpen", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b""))]);
    let Value::I32(id) = *success(&r) else {
        panic!()
    };
    assert_eq!(srv.open_scanners(), 1);
    let deadline = Instant::now() + Duration::from_secs(10);
    while srv.open_scanners() > 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(srv.open_scanners(), 0);
    let r = c.call("scannerGet", &[(1, Arg::I32(id))]);
    assert_eq!(exception(&r, 2), "scanner ID is invalid");
    srv.shutdown();
}

/// Reads until the server closes the connection (or 10 s pass).
fn closed_by_server(stream: &mut TcpStream) -> bool {
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

fn bad_clients_lose_only_their_own_connection(backend: Backend) {
    let (srv, _conn) = server_with(
        backend,
        ThriftConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            max_message: 64 * 1024,
            stall_timeout: Duration::from_millis(500),
            ..ThriftConfig::default()
        },
    );
    let mut good = Client::connect(&srv);
    create(&mut good, b"t", &[(b"f:", None)]);
    // Garbage.
    let mut s = TcpStream::connect(srv.local_addr()).unwrap();
    std::io::Write::write_all(&mut s, b"GET / HTTP/1.1\r\n\r\n").unwrap();
    assert!(closed_by_server(&mut s));
    // An unknown method: an application exception, and the connection stays usable.
    let mut c = Client::connect(&srv);
    let bytes = c.encode("noSuchMethod", &[]);
    c.send_raw(&bytes);
    match c.read_answer() {
        Answer::AppError(m, t) => {
            assert_eq!(t, 1);
            assert!(m.contains("noSuchMethod"));
        }
        other => panic!("{other:?}"),
    }
    c.call("getTableNames", &[]);
    // Over the size limit: an error, then the connection closes.
    let big = vec![b'x'; 100 * 1024];
    let bytes = c.encode("get", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(&big))]);
    c.send_raw(&bytes);
    match c.read_answer() {
        Answer::AppError(m, _) => assert!(m.contains("limit"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Truncated mid-call, then silence: dropped after the stall timeout.
    let mut t = Client::connect(&srv);
    let bytes = t.encode("getTableNames", &[]);
    t.send_raw(&bytes[..bytes.len() - 3]);
    // Disconnect in the middle of a call.
    let mut d = Client::connect(&srv);
    let bytes = d.encode("getRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(b"r"))]);
    d.send_raw(&bytes[..5]);
    drop(d);
    // Framed garbage length on a buffered server is just garbage.
    let mut s = TcpStream::connect(srv.local_addr()).unwrap();
    std::io::Write::write_all(&mut s, &[0xff, 0xff, 0xff, 0xff, 1, 2, 3]).unwrap();
    assert!(closed_by_server(&mut s));
    // Everyone else is still served, by as many connections as they open.
    let mut many: Vec<Client> = (0..40).map(|_| Client::connect(&srv)).collect();
    for m in &mut many {
        put(m, b"t", b"r", b"f:q", b"v", None);
    }
    assert_eq!(get(&mut good, b"t", b"r", b"f:q").len(), 1);
    let started = Instant::now();
    srv.shutdown();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "shutdown waits out idle connections quickly"
    );
}

/// Keys longer than a row key may be (32,767 bytes) are refused by name wherever a client
/// can send one, and the connection goes on serving.
fn keys_longer_than_a_row_key_are_errors_not_panics(backend: Backend) {
    let (srv, _conn) = server(backend, false, false);
    let mut c = Client::connect(&srv);
    create(&mut c, b"t", &[(b"f:", None)]);
    let cols: &[&[u8]] = &[b"f"];
    for len in [32_768usize, 40_000, 70_000] {
        let long = vec![b'k'; len];
        let scans: [(&str, Vec<(i16, Arg<'_>)>); 3] = [
            (
                "scannerOpenWithPrefix",
                vec![
                    (1, Arg::Bin(b"t")),
                    (2, Arg::Bin(&long)),
                    (3, Arg::Texts(cols)),
                ],
            ),
            (
                "scannerOpen",
                vec![
                    (1, Arg::Bin(b"t")),
                    (2, Arg::Bin(&long)),
                    (3, Arg::Texts(cols)),
                ],
            ),
            (
                "scannerOpenWithStop",
                vec![
                    (1, Arg::Bin(b"t")),
                    (2, Arg::Bin(b"a")),
                    (3, Arg::Bin(&long)),
                    (4, Arg::Texts(cols)),
                ],
            ),
        ];
        for (method, args) in &scans {
            let r = c.call(method, args);
            let m = exception(&r, 1);
            assert!(m.contains("length"), "{method} with {len} bytes: {m}");
        }
        let r = c.call("getRow", &[(1, Arg::Bin(b"t")), (2, Arg::Bin(&long))]);
        assert!(exception(&r, 1).contains("Row length"), "getRow {len}");
        let m = |w: &mut basalt_thrift::protocol::Writer, _| mutation(w, false, b"f:q", b"v");
        let r = c.call(
            "mutateRow",
            &[
                (1, Arg::Bin(b"t")),
                (2, Arg::Bin(&long)),
                (3, Arg::Structs(1, &m)),
            ],
        );
        assert!(
            r.strukt(1).is_some() || r.strukt(2).is_some(),
            "mutateRow {len}: {r:?}"
        );
    }
    put(&mut c, b"t", b"r", b"f:q", b"v", None);
    assert_eq!(get(&mut c, b"t", b"r", b"f:q").len(), 1);
}
