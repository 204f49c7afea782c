//! ClientService over a real socket, spoken the way HBase's clients speak it: the preamble and
//! connection header, then Get / Mutate / Scan calls naming a region, and errors as HBase's
//! exception classes.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use basalt_embedded::{Bytes, ColumnFamilyDescriptor, Connection, TableDescriptor, TableName};
use basalt_rpc::RpcConfig;
use basalt_rpc::cellblock::{self, KeyValue};
use basalt_rpc::pb::{
    self, BinaryComparator, ByteArrayComparable, Column, Comparator, CompareType, Condition,
    ConnectionHeader, Get, GetRequest, GetResponse, MutateRequest, MutateResponse, MutationProto,
    RegionSpecifier, Scan, ScanRequest, ScanResponse, mutation_proto,
    region_specifier::RegionSpecifierType,
};
use prost::Message;

mod common;

use common::{Client, counted, get_row, put, region, setup, support, values};

#[test]
fn get_mutate_and_scan_by_region() {
    let (server, _conn, regions) = setup();
    let (low, high) = (&regions[0], &regions[1]);
    let mut c = Client::connect(&server, "ClientService");
    for (r, row) in [(low, &b"a"[..]), (low, b"b"), (high, b"n"), (high, b"z")] {
        let resp: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(r),
                mutation: put(row, b"q", row),
                ..MutateRequest::default()
            },
        );
        assert!(resp.result.is_none());
        // As HBase: an applied Put says it was processed.
        assert_eq!(resp.processed, Some(true));
    }
    let got: GetResponse = c.ok(
        "Get",
        &GetRequest {
            region: region(high),
            get: Get {
                row: b"n".to_vec(),
                column: vec![Column {
                    family: b"f".to_vec(),
                    qualifier: vec![],
                }],
                ..Get::default()
            },
        },
    );
    assert_eq!(
        values(&got.result.unwrap()),
        [(b"n".to_vec(), b"n".to_vec())]
    );
    // The region named by its encoded name, as HBase's clients may name it.
    let encoded = &high[high.len() - 33..high.len() - 1];
    let by_encoded: GetResponse = c.ok(
        "Get",
        &GetRequest {
            region: RegionSpecifier {
                r#type: RegionSpecifierType::EncodedRegionName as i32,
                value: encoded.to_vec(),
            },
            get: Get {
                row: b"z".to_vec(),
                ..Get::default()
            },
        },
    );
    assert_eq!(
        values(&by_encoded.result.unwrap()),
        [(b"z".to_vec(), b"z".to_vec())]
    );
    // A scan stays inside its region.
    let opened: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            region: Some(region(low)),
            scan: Some(Scan::default()),
            number_of_rows: Some(1),
            ..ScanRequest::default()
        },
    );
    let id = opened.scanner_id.unwrap();
    assert_eq!(opened.results.len(), 1);
    assert_eq!(opened.more_results_in_region, Some(true));
    let next: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            scanner_id: Some(id),
            number_of_rows: Some(10),
            ..ScanRequest::default()
        },
    );
    assert_eq!(values(&next.results[0]), [(b"b".to_vec(), b"b".to_vec())]);
    assert_eq!(next.more_results_in_region, Some(false));
    // The region is done, the scan is not: a later region exists.
    assert_eq!(next.more_results, Some(true));
    assert_eq!(server.open_scanners(), 0);
    // One more "next" on a finished scanner is answered empty (hbase-driver sends one); an id
    // never handed out is an UnknownScannerException.
    let again: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            scanner_id: Some(id),
            ..ScanRequest::default()
        },
    );
    assert!(again.results.is_empty() && again.more_results == Some(false));
    let e = c.err(
        "Scan",
        &ScanRequest {
            scanner_id: Some(987_654),
            ..ScanRequest::default()
        },
    );
    assert!(
        e.starts_with("org.apache.hadoop.hbase.UnknownScannerException"),
        "{e}"
    );
    // Increment returns the new value; check-and-put with a BinaryComparator.
    let mut inc = put(b"c", b"n", &5i64.to_be_bytes());
    inc.mutate_type = Some(mutation_proto::MutationType::Increment as i32);
    let r: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: inc,
            ..MutateRequest::default()
        },
    );
    assert_eq!(r.processed, None, "an increment answers with its cells");
    assert_eq!(values(&r.result.unwrap())[0].1, 5i64.to_be_bytes());
    let cas = |expected: &[u8]| MutateRequest {
        region: region(low),
        mutation: put(b"a", b"q", b"swapped"),
        condition: Some(Condition {
            row: b"a".to_vec(),
            family: Some(b"f".to_vec()),
            qualifier: Some(b"q".to_vec()),
            compare_type: Some(CompareType::Equal as i32),
            comparator: Some(Comparator {
                name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
                serialized_comparator: Some(
                    BinaryComparator {
                        comparable: ByteArrayComparable {
                            value: Some(expected.to_vec()),
                        },
                    }
                    .encode_to_vec(),
                ),
            }),
            ..Condition::default()
        }),
        ..MutateRequest::default()
    };
    let r: MutateResponse = c.ok("Mutate", &cas(b"nope"));
    assert_eq!(r.processed, Some(false));
    let r: MutateResponse = c.ok("Mutate", &cas(b"a"));
    assert_eq!(r.processed, Some(true));
    // A condition on a filter (HBase 2.4's ifMatches): the row read through a ValueFilter must
    // have a cell.
    let value_is = |expected: &[u8]| pb::Filter {
        name: "org.apache.hadoop.hbase.filter.ValueFilter".into(),
        serialized_filter: Some(
            pb::CompareFilterHolder {
                compare_filter: pb::CompareFilter {
                    compare_op: CompareType::Equal as i32,
                    comparator: Some(Comparator {
                        name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
                        serialized_comparator: Some(
                            BinaryComparator {
                                comparable: ByteArrayComparable {
                                    value: Some(expected.to_vec()),
                                },
                            }
                            .encode_to_vec(),
                        ),
                    }),
                },
            }
            .encode_to_vec(),
        ),
    };
    // (Filters see older versions too, as in HBase, so the row starts with one.)
    let _: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: put(b"fa", b"q", b"first"),
            ..MutateRequest::default()
        },
    );
    let if_filter = |expected: &[u8], new: &[u8]| MutateRequest {
        region: region(low),
        mutation: put(b"fa", b"q", new),
        condition: Some(Condition {
            row: b"fa".to_vec(),
            filter: Some(value_is(expected)),
            ..Condition::default()
        }),
        ..MutateRequest::default()
    };
    let r: MutateResponse = c.ok("Mutate", &if_filter(b"second", b"never"));
    assert_eq!(r.processed, Some(false));
    let r: MutateResponse = c.ok("Mutate", &if_filter(b"first", b"filtered"));
    assert_eq!(r.processed, Some(true));
    let got: GetResponse = c.ok("Get", &get_row(low, b"fa"));
    assert_eq!(
        got.result.unwrap().cell[0].value.as_deref(),
        Some(&b"filtered"[..])
    );
    // hbase-driver sends "no timestamp" as Long.MAX_VALUE: a one-version delete then removes
    // the newest version only.
    for ts in [1u64, 2] {
        let mut m = put(b"v", b"q", &ts.to_be_bytes());
        m.column_value[0].qualifier_value[0].timestamp = Some(ts);
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(high),
                mutation: m,
                ..MutateRequest::default()
            },
        );
    }
    let mut one = put(b"v", b"q", b"");
    one.mutate_type = Some(mutation_proto::MutationType::Delete as i32);
    one.timestamp = Some(i64::MAX as u64);
    one.column_value[0].qualifier_value[0].timestamp = Some(i64::MAX as u64);
    one.column_value[0].qualifier_value[0].delete_type =
        Some(mutation_proto::DeleteType::DeleteOneVersion as i32);
    let _: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(high),
            mutation: one,
            ..MutateRequest::default()
        },
    );
    let got: GetResponse = c.ok("Get", &get_row(high, b"v"));
    assert_eq!(values(&got.result.unwrap())[0].1, 1u64.to_be_bytes());
    // A whole-row delete.
    let del = MutationProto {
        row: Some(b"a".to_vec()),
        mutate_type: Some(mutation_proto::MutationType::Delete as i32),
        ..MutationProto::default()
    };
    let _: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: del,
            ..MutateRequest::default()
        },
    );
    let got: GetResponse = c.ok("Get", &get_row(low, b"a"));
    assert!(got.result.unwrap().cell.is_empty());
    server.shutdown();
}

#[test]
fn errors_are_hbase_exceptions_and_bad_connections_close() {
    let (server, _conn, regions) = setup();
    let mut c = Client::connect(&server, "ClientService");
    // A region this server does not hold, of a table that does not exist or of one that
    // does, and a row outside the region named: the client must look the region up again.
    let e = c.err("Get", &get_row(b"nope,,1.abc.", b"a"));
    assert!(
        e.starts_with("org.apache.hadoop.hbase.NotServingRegionException"),
        "{e}"
    );
    let e = c.err("Get", &get_row(&regions[0], b"zz"));
    assert!(
        e.starts_with("org.apache.hadoop.hbase.NotServingRegionException") && e.contains("zz"),
        "{e}"
    );
    let e = c.err("Get", &get_row(b"t,zz,1.abc.", b"a"));
    assert!(
        e.starts_with("org.apache.hadoop.hbase.NotServingRegionException"),
        "{e}"
    );
    let e = c.err(
        "Get",
        &GetRequest {
            region: region(&regions[0]),
            get: Get {
                row: b"a".to_vec(),
                column: vec![Column {
                    family: b"nofamily".to_vec(),
                    qualifier: vec![],
                }],
                ..Get::default()
            },
        },
    );
    assert!(e.contains("NoSuchColumnFamilyException"), "{e}");
    let e = c.err("Frobnicate", &GetRequest::default());
    assert!(e.contains("UnknownProtocolException"), "{e}");
    // Another service on this port is unknown; the connection stays usable.
    let mut m = Client::connect(&server, "RegionServerStatusService");
    let e = m.err("RegionServerReport", &GetRequest::default());
    assert!(
        e.contains("RegionServerStatusService.RegionServerReport"),
        "{e}"
    );
    // Garbage and oversized frames close the connection.
    for bad in [
        &b"GET / HTTP/1.1\r\n\r\n"[..],
        b"HBas\x00\x50\x7f\xff\xff\xff",
    ] {
        let mut s = TcpStream::connect(server.local_addr()).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(bad).unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(s.read(&mut buf).unwrap_or(0), 0);
    }
    // The good connection is still served.
    let got: GetResponse = c.ok("Get", &get_row(&regions[0], b"a"));
    assert!(got.result.is_some());
    server.shutdown();
}

#[test]
fn multi_runs_actions_and_atomic_row_mutations() {
    use basalt_rpc::pb::{Action, MultiRequest, MultiResponse, RegionAction};
    let (server, _conn, regions) = setup();
    let mut c = Client::connect(&server, "ClientService");
    let low = &regions[0];
    let get = |row: &[u8]| Get {
        row: row.to_vec(),
        ..Get::default()
    };
    // Non-atomic: two puts, a get, a put to a missing family and a put of a row the region
    // does not hold (each its own exception).
    let mut bad = put(b"c", b"q", b"v");
    bad.column_value[0].family = b"nofamily".to_vec();
    let resp: MultiResponse = c.ok(
        "Multi",
        &MultiRequest {
            region_action: vec![RegionAction {
                region: region(low),
                atomic: None,
                action: vec![
                    Action {
                        index: Some(0),
                        mutation: Some(put(b"a", b"q", b"1")),
                        get: None,
                        service_call: None,
                    },
                    Action {
                        index: Some(1),
                        mutation: Some(bad),
                        get: None,
                        service_call: None,
                    },
                    Action {
                        index: Some(2),
                        mutation: None,
                        get: Some(get(b"a")),
                        service_call: None,
                    },
                    Action {
                        index: Some(3),
                        mutation: Some(put(b"z", b"q", b"elsewhere")),
                        get: None,
                        service_call: None,
                    },
                ],
                condition: None,
            }],
            ..MultiRequest::default()
        },
    );
    let results = &resp.region_action_result[0].result_or_exception;
    assert_eq!(results.len(), 4);
    assert!(
        results[3]
            .exception
            .as_ref()
            .unwrap()
            .name
            .ends_with("NotServingRegionException")
    );
    assert!(results[0].exception.is_none());
    assert!(
        results[1]
            .exception
            .as_ref()
            .unwrap()
            .name
            .ends_with("NoSuchColumnFamilyException")
    );
    assert_eq!(values(results[2].result.as_ref().unwrap())[0].1, b"1");
    // Atomic with a condition that fails: nothing applies.
    let cond = Condition {
        row: b"a".to_vec(),
        family: Some(b"f".to_vec()),
        qualifier: Some(b"q".to_vec()),
        compare_type: Some(CompareType::Equal as i32),
        comparator: Some(Comparator {
            name: "org.apache.hadoop.hbase.filter.BinaryComparator".into(),
            serialized_comparator: Some(
                BinaryComparator {
                    comparable: ByteArrayComparable {
                        value: Some(b"2".to_vec()),
                    },
                }
                .encode_to_vec(),
            ),
        }),
        ..Condition::default()
    };
    // The condition where an older client put it (the request) or HBase 2.4's (the region
    // action).
    let atomic = |condition: Option<Condition>, in_action: bool| MultiRequest {
        region_action: vec![RegionAction {
            region: region(low),
            atomic: Some(true),
            action: vec![
                Action {
                    index: Some(0),
                    mutation: Some(put(b"a", b"r", b"new")),
                    get: None,
                    service_call: None,
                },
                Action {
                    index: Some(1),
                    mutation: Some(put(b"a", b"s", b"new")),
                    get: None,
                    service_call: None,
                },
            ],
            condition: condition.clone().filter(|_| in_action),
        }],
        condition: condition.filter(|_| !in_action),
        ..MultiRequest::default()
    };
    for in_action in [false, true] {
        let resp: MultiResponse = c.ok("Multi", &atomic(Some(cond.clone()), in_action));
        assert_eq!(resp.processed, Some(false));
        assert_eq!(resp.region_action_result[0].processed, Some(false));
    }
    let resp: MultiResponse = c.ok("Multi", &atomic(None, false));
    assert!(resp.region_action_result[0].exception.is_none());
    // An applied row mutation says so where HBase 2.4+ clients look (hbase-driver's
    // `mutate_row` returns it), and where older ones did.
    assert_eq!(resp.region_action_result[0].processed, Some(true));
    assert_eq!(resp.processed, Some(true));
    let got: GetResponse = c.ok(
        "Get",
        &GetRequest {
            region: region(low),
            get: get(b"a"),
        },
    );
    assert_eq!(got.result.unwrap().cell.len(), 3);
    server.shutdown();
}

#[test]
fn meta_is_served_under_hbase_meta_region_name() {
    let (server, _conn, regions) = setup();
    let mut c = Client::connect(&server, "ClientService");
    let opened: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            region: Some(region(b"hbase:meta,,1")),
            scan: Some(Scan {
                start_row: Some(b"t,".to_vec()),
                stop_row: Some(b"t-".to_vec()),
                ..Scan::default()
            }),
            number_of_rows: Some(100),
            close_scanner: None,
            ..ScanRequest::default()
        },
    );
    let rows: Vec<Vec<u8>> = opened
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().unwrap())
        .collect();
    assert_eq!(rows, regions, "meta lists the table's regions by name");
    let has = |q: &[u8]| {
        opened.results[0]
            .cell
            .iter()
            .any(|c| c.family.as_deref() == Some(&b"info"[..]) && c.qualifier.as_deref() == Some(q))
    };
    assert!(has(b"regioninfo") && has(b"server") && has(b"state"));
    let regioninfo = opened.results[0]
        .cell
        .iter()
        .find(|c| c.qualifier.as_deref() == Some(&b"regioninfo"[..]))
        .unwrap();
    assert!(regioninfo.value.as_ref().unwrap().starts_with(b"PBUF"));
    server.shutdown();
}

#[test]
fn filters_arrive_in_protobuf_form() {
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let mut c = Client::connect(&server, "ClientService");
    for row in [&b"apple"[..], b"apricot", b"banana"] {
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: put(row, b"q", row),
                ..MutateRequest::default()
            },
        );
    }
    let prefix = pb::Filter {
        name: "org.apache.hadoop.hbase.filter.PrefixFilter".into(),
        serialized_filter: Some(
            pb::PrefixFilter {
                prefix: Some(b"ap".to_vec()),
            }
            .encode_to_vec(),
        ),
    };
    let opened: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            region: Some(region(low)),
            scan: Some(Scan {
                filter: Some(prefix),
                ..Scan::default()
            }),
            number_of_rows: Some(10),
            ..ScanRequest::default()
        },
    );
    let rows: Vec<Vec<u8>> = opened
        .results
        .iter()
        .map(|r| r.cell[0].row.clone().unwrap())
        .collect();
    assert_eq!(rows, [b"apple".to_vec(), b"apricot".to_vec()]);
    let unknown = pb::Filter {
        name: "com.example.CustomFilter".into(),
        serialized_filter: None,
    };
    let e = c.err(
        "Get",
        &GetRequest {
            region: region(low),
            get: Get {
                row: b"apple".to_vec(),
                filter: Some(unknown),
                ..Get::default()
            },
        },
    );
    assert!(e.contains("CustomFilter is not supported"), "{e}");
    server.shutdown();
}

#[test]
fn renewals_keep_a_scanner_past_its_lease() {
    let conn = Connection::in_memory();
    conn.admin()
        .create_table(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
        )
        .unwrap();
    let name = conn
        .admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()[0]
        .name
        .to_vec();
    let server = conn
        .serve_rpc(RpcConfig {
            scanner_lease: Duration::from_millis(400),
            ..support::loopback()
        })
        .unwrap();
    let mut c = Client::connect(&server, "ClientService");
    for row in [&b"a"[..], b"b"] {
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(&name),
                mutation: put(row, b"q", row),
                ..MutateRequest::default()
            },
        );
    }
    let opened: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            region: Some(region(&name)),
            scan: Some(Scan::default()),
            number_of_rows: Some(1),
            ..ScanRequest::default()
        },
    );
    let id = opened.scanner_id.unwrap();
    // Renew every 100 ms for a second: the scanner outlives its 400 ms lease.
    for _ in 0..10 {
        std::thread::sleep(Duration::from_millis(100));
        let renewed: ScanResponse = c.ok(
            "Scan",
            &ScanRequest {
                scanner_id: Some(id),
                renew: Some(true),
                ..ScanRequest::default()
            },
        );
        assert!(renewed.results.is_empty());
    }
    let next: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            scanner_id: Some(id),
            number_of_rows: Some(5),
            ..ScanRequest::default()
        },
    );
    assert_eq!(values(&next.results[0]), [(b"b".to_vec(), b"b".to_vec())]);
    // Left alone, it expires.
    let opened: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            region: Some(region(&name)),
            scan: Some(Scan::default()),
            number_of_rows: Some(1),
            ..ScanRequest::default()
        },
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while server.open_scanners() > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let e = c.err(
        "Scan",
        &ScanRequest {
            scanner_id: opened.scanner_id,
            number_of_rows: Some(5),
            ..ScanRequest::default()
        },
    );
    assert!(e.contains("UnknownScannerException"), "{e}");
    server.shutdown();
}

#[test]
fn the_client_finds_regions_in_meta_and_routes_rows() {
    use basalt_embedded::remote::{RpcClient, locate};
    let (server, _conn, regions) = setup();
    let c = RpcClient::connect(server.local_addr(), "ClientService").unwrap();
    let found = c.regions("t").unwrap();
    assert_eq!(
        found.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
        regions
    );
    assert_eq!(locate(&found, b"a").unwrap().name, regions[0]);
    assert_eq!(locate(&found, b"m").unwrap().name, regions[1]);
    assert_eq!(locate(&found, b"zzz").unwrap().name, regions[1]);
    assert!(c.regions("missing").unwrap().is_empty());
    let r: GetResponse = c.call("Get", &get_row(&regions[0], b"a")).unwrap();
    assert!(r.result.unwrap().cell.is_empty());
    server.shutdown();
}

fn kv(row: &[u8], q: &[u8], ts: i64, kind: u8, value: &[u8]) -> KeyValue {
    KeyValue {
        row: Bytes::copy_from_slice(row),
        family: Bytes::from_static(b"f"),
        qualifier: Bytes::copy_from_slice(q),
        timestamp: ts,
        kind,
        value: Bytes::copy_from_slice(value),
    }
}

fn versions(c: &mut Client, region_name: &[u8], row: &[u8]) -> Vec<(Vec<u8>, i64, Vec<u8>)> {
    let got: GetResponse = c.ok(
        "Get",
        &GetRequest {
            region: region(region_name),
            get: Get {
                row: row.to_vec(),
                max_versions: Some(10),
                ..Get::default()
            },
        },
    );
    got.result
        .unwrap_or_default()
        .cell
        .into_iter()
        .map(|c| {
            (
                c.qualifier.unwrap_or_default(),
                i64::try_from(c.timestamp.unwrap_or_default()).unwrap(),
                c.value.unwrap_or_default(),
            )
        })
        .collect()
}

#[test]
fn mutations_carry_their_cells_in_a_cell_block() {
    use mutation_proto::MutationType as T;
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let mut c = Client::connect(&server, "ClientService");
    // Mutate: a put of two cells, one at server time (HBase's LATEST_TIMESTAMP).
    c.cells = cellblock::encode(&[
        kv(b"a", b"x", 5, 4, b"x5"),
        kv(b"a", b"y", i64::MAX, 4, b"y"),
    ]);
    let _: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: counted(b"a", T::Put, 2),
            ..MutateRequest::default()
        },
    );
    let got = versions(&mut c, low, b"a");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0], (b"x".to_vec(), 5, b"x5".to_vec()));
    assert_eq!((&got[1].0, &got[1].2), (&b"y".to_vec(), &b"y".to_vec()));
    assert!(got[1].1 > 1_000_000_000_000, "server time, not Long.MAX");

    // Multi: a put of another version, a delete of one version and a delete of a column,
    // their cells in action order.
    c.cells = cellblock::encode(&[
        kv(b"a", b"x", 6, 4, b"x6"),
        kv(b"a", b"x", 5, 8, b""),
        kv(b"a", b"y", i64::MAX, 12, b""),
    ]);
    let action = |index, m| pb::Action {
        index: Some(index),
        mutation: Some(m),
        ..pb::Action::default()
    };
    let multi: pb::MultiResponse = c.ok(
        "Multi",
        &pb::MultiRequest {
            region_action: vec![pb::RegionAction {
                region: region(low),
                action: vec![
                    action(0, counted(b"a", T::Put, 1)),
                    action(1, counted(b"a", T::Delete, 1)),
                    action(2, counted(b"a", T::Delete, 1)),
                ],
                ..pb::RegionAction::default()
            }],
            ..pb::MultiRequest::default()
        },
    );
    let outcomes = &multi.region_action_result[0].result_or_exception;
    assert!(
        outcomes.iter().all(|r| r.exception.is_none()),
        "{outcomes:?}"
    );
    assert_eq!(
        versions(&mut c, low, b"a"),
        [(b"x".to_vec(), 6, b"x6".to_vec())]
    );

    // An increment's amount is the cell's 8-byte value.
    for _ in 0..2 {
        c.cells = cellblock::encode(&[kv(b"k", b"count", i64::MAX, 4, &7i64.to_be_bytes())]);
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: counted(b"k", T::Increment, 1),
                ..MutateRequest::default()
            },
        );
    }
    assert_eq!(versions(&mut c, low, b"k")[0].2, 14i64.to_be_bytes());

    // Counts that do not match the block, cells of another row, and a cell block on a Get
    // are refused; nothing is written.
    let refused = |c: &mut Client, block: Vec<u8>, cells: i32| {
        c.cells = block;
        c.err(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: counted(b"b", T::Put, cells),
                ..MutateRequest::default()
            },
        )
    };
    let one = || cellblock::encode(&[kv(b"b", b"x", 1, 4, b"v")]);
    let e = refused(&mut c, one(), 2);
    assert!(e.contains("counts more cells"), "{e}");
    let two = cellblock::encode(&[kv(b"b", b"x", 1, 4, b"v"), kv(b"b", b"y", 1, 4, b"v")]);
    let e = refused(&mut c, two, 1);
    assert!(e.contains("left over"), "{e}");
    let e = refused(&mut c, cellblock::encode(&[kv(b"c", b"x", 1, 4, b"v")]), 1);
    assert!(e.contains("row"), "{e}");
    // A truncated block is refused too, and the connection goes on.
    let mut block = cellblock::encode(&[kv(b"b", b"x", 1, 4, b"value")]);
    block.truncate(block.len() - 2);
    let e = refused(&mut c, block, 1);
    assert!(e.contains("DoNotRetryIOException"), "{e}");
    // A mutation that counts cells in a call with no block at all.
    let e = refused(&mut c, Vec::new(), 1);
    assert!(e.contains("without a cell block"), "{e}");
    c.cells = one();
    let e = c.err("Get", &get_row(low, b"b"));
    assert!(e.contains("cell block"), "{e}");
    assert!(versions(&mut c, low, b"b").is_empty());

    // Without a codec, or with a compressor, a cell block is refused with the reason.
    for (codec, compressor, reason) in [
        (None, None, "named no codec"),
        (
            Some("org.example.OtherCodec"),
            None,
            "org.example.OtherCodec",
        ),
        (
            Some("org.apache.hadoop.hbase.codec.KeyValueCodec"),
            Some("org.apache.hadoop.io.compress.GzipCodec"),
            "compressor",
        ),
    ] {
        let mut other = Client::connect_with(
            &server,
            ConnectionHeader {
                service_name: Some("ClientService".into()),
                cell_block_codec_class: codec.map(Into::into),
                cell_block_compressor_class: compressor.map(Into::into),
                ..ConnectionHeader::default()
            },
        );
        other.cells = cellblock::encode(&[kv(b"b", b"x", 1, 4, b"v")]);
        let e = other.err(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: counted(b"b", T::Put, 1),
                ..MutateRequest::default()
            },
        );
        assert!(e.contains(reason), "{e}");
    }
    assert!(versions(&mut c, low, b"b").is_empty());
    server.shutdown();
}

/// Scan options a client leaves to the server: the rows it still wants in the region
/// (`limit_of_rows`), bytes per answer (`max_result_size`); and a mutation's `_ttl`.
#[test]
fn scan_limits_result_sizes_and_cell_ttls_are_the_servers_to_apply() {
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let mut c = Client::connect(&server, "ClientService");
    for row in [&b"a"[..], b"b", b"c", b"d"] {
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: put(row, b"q", &[b'x'; 100]),
                ..MutateRequest::default()
            },
        );
    }
    let open = |scan: Scan, limit: Option<u32>| ScanRequest {
        region: Some(region(low)),
        scan: Some(scan),
        number_of_rows: Some(100),
        limit_of_rows: limit,
        ..ScanRequest::default()
    };
    let limited: ScanResponse = c.ok("Scan", &open(Scan::default(), Some(2)));
    assert_eq!(limited.results.len(), 2, "limit_of_rows");
    assert_eq!(limited.more_results_in_region, Some(false));
    // About 250 bytes an answer: three rows of ~120 bytes (the last one crosses the size).
    let sized: ScanResponse = c.ok(
        "Scan",
        &open(
            Scan {
                max_result_size: Some(250),
                ..Scan::default()
            },
            None,
        ),
    );
    assert_eq!(sized.results.len(), 3, "max_result_size");
    assert_eq!(sized.more_results_in_region, Some(true));
    let rest: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            scanner_id: sized.scanner_id,
            number_of_rows: Some(100),
            ..ScanRequest::default()
        },
    );
    assert_eq!(rest.results.len(), 1);
    // A cell TTL: 1 ms on a cell written at timestamp 1 is long gone.
    let mut expiring = put(b"e", b"q", b"v");
    expiring.column_value[0].qualifier_value[0].timestamp = Some(1);
    expiring.attribute = vec![pb::NameBytesPair {
        name: "_ttl".into(),
        value: Some(1i64.to_be_bytes().to_vec()),
    }];
    let _: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: expiring.clone(),
            ..MutateRequest::default()
        },
    );
    let got: GetResponse = c.ok("Get", &get_row(low, b"e"));
    assert!(got.result.unwrap().cell.is_empty(), "expired by its TTL");
    expiring.attribute[0].value = Some(vec![1, 2, 3]);
    let e = c.err(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: expiring,
            ..MutateRequest::default()
        },
    );
    assert!(e.contains("_ttl"), "{e}");
    server.shutdown();
}

/// A repeated increment or append (the same nonce: a client's retry after its answer was lost)
/// is not applied again, and is answered with the first attempt's own cells even when another
/// operation changed the cell in between (HBase answers with the row as it is now, which
/// would hand the retrying client another's result as its own).
#[test]
fn a_retry_is_answered_with_its_first_attempts_cells() {
    let (server, _conn, regions) = setup();
    let mut c = Client::connect(&server, "ClientService");
    let request = |kind: mutation_proto::MutationType, q: &[u8], v: &[u8], nonce: u64| {
        let mut m = put(b"c", q, v);
        m.mutate_type = Some(kind as i32);
        m.nonce = Some(nonce);
        MutateRequest {
            region: region(&regions[0]),
            mutation: m,
            nonce_group: Some(9),
            ..MutateRequest::default()
        }
    };
    let append = |v: &[u8], nonce| request(mutation_proto::MutationType::Append, b"l", v, nonce);
    let increment = |by: i64, nonce| {
        request(
            mutation_proto::MutationType::Increment,
            b"n",
            &by.to_be_bytes(),
            nonce,
        )
    };
    let mut value = |req: &MutateRequest| {
        let r: MutateResponse = c.ok("Mutate", req);
        values(&r.result.unwrap())[0].1.clone()
    };
    assert_eq!(value(&append(b"a", 1)), b"a");
    assert_eq!(value(&append(b"b", 2)), b"ab");
    assert_eq!(value(&append(b"a", 1)), b"a", "the retry's own answer");
    assert_eq!(value(&increment(5, 3)), 5i64.to_be_bytes());
    assert_eq!(value(&increment(1, 4)), 6i64.to_be_bytes());
    assert_eq!(
        value(&increment(5, 3)),
        5i64.to_be_bytes(),
        "the retry's own answer"
    );
    // Applied once each.
    let r: GetResponse = c.ok("Get", &get_row(&regions[0], b"c"));
    let mut got = values(&r.result.unwrap());
    got.sort();
    assert_eq!(got.len(), 2);
    assert!(got.contains(&(b"c".to_vec(), b"ab".to_vec())), "{got:?}");
    assert!(
        got.contains(&(b"c".to_vec(), 6i64.to_be_bytes().to_vec())),
        "{got:?}"
    );
}
