//! HBase's aggregation endpoint, built in (issue 50): AggregationClient's calls (ExecService
//! of `hbase.pb.AggregateService` on each region, HBase's AggregateRequest and
//! AggregateResponse), over a table split into three regions, merged as AggregationClient
//! merges them, give what a scan computed on the client gives: with a column, with a filter,
//! over an empty range, with long and double interpreters.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_common::aggregate::{
    Aggregation, DOUBLE_INTERPRETER, Interpreter, LONG_INTERPRETER, Number, Partial,
};
use basalt_embedded::remote::RpcClient;
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, FilterSpec, Put, TableDescriptor, TableName,
};
use basalt_rpc::pb;
use prost::Message;

#[path = "../../rpc/tests/support/mod.rs"]
mod support;

/// Rows `k00`..`k29`: `f:v` a long (i * 7 - 50), `f:d` a double (i / 4), `f:w` a weight
/// (1 + i % 3); every fifth row's `f:v` is text, which the interpreters skip.
fn table(conn: &Connection) -> Vec<(Bytes, Option<i64>, f64, i64)> {
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin()
        .create_table_with_splits(desc, &["k10".into(), "k20".into()])
        .unwrap();
    let t = conn.table("t").unwrap();
    let mut rows = Vec::new();
    for i in 0..30i64 {
        let row = Bytes::from(format!("k{i:02}"));
        let v = (i % 5 != 3).then_some(i * 7 - 50);
        let d = i as f64 / 4.0;
        let w = 1 + i % 3;
        let value: Vec<u8> = match v {
            Some(v) => v.to_be_bytes().to_vec(),
            None => b"text".to_vec(),
        };
        t.put(
            &Put::new(row.clone())
                .add_column("f", "v", value)
                .add_column("f", "d", d.to_be_bytes().to_vec())
                .add_column("f", "w", w.to_be_bytes().to_vec()),
        )
        .unwrap();
        rows.push((row, v, d, w));
    }
    rows
}

fn column_scan(q: &str, start: &[u8], stop: &[u8], filter: Option<&FilterSpec>) -> pb::Scan {
    pb::Scan {
        column: vec![pb::Column {
            family: b"f".to_vec(),
            qualifier: vec![q.as_bytes().to_vec()],
        }],
        start_row: Some(start.to_vec()),
        stop_row: Some(stop.to_vec()),
        filter: filter.map(basalt_proto::filters::filter_pb),
        ..pb::Scan::default()
    }
}

/// One region's part of `what` (an ExecService call on it).
fn region_part(c: &RpcClient, name: &[u8], what: Aggregation, scan: &pb::Scan) -> Partial {
    region_part_with(c, name, LONG_INTERPRETER, what, scan)
}

fn region_part_with(
    c: &RpcClient,
    name: &[u8],
    interpreter: &str,
    what: Aggregation,
    scan: &pb::Scan,
) -> Partial {
    let request = pb::AggregateRequest {
        interpreter_class_name: interpreter.into(),
        scan: scan.clone(),
        interpreter_specific_bytes: Some(Vec::new()),
    };
    let answer: pb::CoprocessorServiceResponse = support::call(
        c,
        "ExecService",
        &pb::CoprocessorServiceRequest {
            region: pb::RegionSpecifier {
                r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                value: name.to_vec(),
            },
            call: pb::CoprocessorServiceCall {
                row: Vec::new(),
                service_name: basalt_proto::aggregate::SERVICE.into(),
                method_name: what.method().into(),
                request: request.encode_to_vec(),
            },
        },
    )
    .unwrap();
    let response =
        pb::AggregateResponse::decode(answer.value.value.unwrap_or_default().as_slice()).unwrap();
    let interp = Interpreter::from_class(interpreter).unwrap();
    basalt_proto::aggregate::partial(interp, &response, what == Aggregation::RowNum).unwrap()
}

/// AggregationClient's calls: one ExecService per region, merged.
fn aggregate(
    c: &RpcClient,
    regions: &[Vec<u8>],
    interpreter: &str,
    what: Aggregation,
    scan: &pb::Scan,
) -> Option<Number> {
    let partials: Vec<Partial> = regions
        .iter()
        .map(|name| region_part_with(c, name, interpreter, what, scan))
        .collect();
    basalt_common::aggregate::merge(what, &partials)
}

#[test]
fn aggregation_client_calls_match_a_client_side_scan() {
    let conn = Connection::in_memory();
    let rows = table(&conn);
    let regions: Vec<Vec<u8>> = conn
        .admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()
        .into_iter()
        .map(|r| r.name.to_vec())
        .collect();
    assert_eq!(regions.len(), 3);
    let server = support::serve(&conn);
    let c = RpcClient::connect(server.local_addr(), "ClientService").unwrap();

    // The whole table, and a range across the split at k10 (k05..k25).
    for (start, stop) in [(&b""[..], &b""[..]), (b"k05", b"k25")] {
        let inside = |r: &Bytes| r[..] >= *start && (stop.is_empty() || r[..] < *stop);
        let values: Vec<i64> = rows
            .iter()
            .filter(|(r, ..)| inside(r))
            .filter_map(|(_, v, ..)| *v)
            .collect();
        let scanned = rows.iter().filter(|(r, ..)| inside(r)).count() as i64;
        let scan = column_scan("v", start, stop, None);
        let long = |what| aggregate(&c, &regions, LONG_INTERPRETER, what, &scan);
        assert_eq!(
            long(Aggregation::Max),
            values.iter().max().map(|v| Number::Long(*v))
        );
        assert_eq!(
            long(Aggregation::Min),
            values.iter().min().map(|v| Number::Long(*v))
        );
        assert_eq!(
            long(Aggregation::Sum),
            Some(Number::Long(values.iter().sum()))
        );
        assert_eq!(long(Aggregation::RowNum), Some(Number::Long(scanned)));
        // HBase's average divides by the rows scanned, text values included.
        let sum = values.iter().sum::<i64>() as f64;
        assert_eq!(
            long(Aggregation::Avg),
            Some(Number::Double(sum / scanned as f64))
        );
        let mean = sum / scanned as f64;
        let squares = values.iter().map(|v| (v * v) as f64).sum::<f64>() / scanned as f64;
        assert_eq!(
            long(Aggregation::Std),
            Some(Number::Double((squares - mean * mean).sqrt()))
        );
        // Doubles, in the double interpreter.
        let doubles: Vec<f64> = rows
            .iter()
            .filter(|(r, ..)| inside(r))
            .map(|(_, _, d, _)| *d)
            .collect();
        let dscan = column_scan("d", start, stop, None);
        assert_eq!(
            aggregate(&c, &regions, DOUBLE_INTERPRETER, Aggregation::Sum, &dscan),
            Some(Number::Double(doubles.iter().sum()))
        );
        assert_eq!(
            aggregate(&c, &regions, DOUBLE_INTERPRETER, Aggregation::Max, &dscan),
            doubles.iter().copied().reduce(f64::max).map(Number::Double)
        );
    }

    // A filter: the rows with prefix k1 (all of the second region, none of the others).
    let prefixed = column_scan(
        "v",
        b"",
        b"",
        Some(&FilterSpec::Prefix(Bytes::from_static(b"k1"))),
    );
    let expected: i64 = rows
        .iter()
        .filter(|(r, ..)| r.starts_with(b"k1"))
        .filter_map(|(_, v, ..)| *v)
        .sum();
    assert_eq!(
        aggregate(&c, &regions, LONG_INTERPRETER, Aggregation::Sum, &prefixed),
        Some(Number::Long(expected))
    );
    assert_eq!(
        aggregate(
            &c,
            &regions,
            LONG_INTERPRETER,
            Aggregation::RowNum,
            &prefixed
        ),
        Some(Number::Long(10))
    );

    // GetMedian's region parts: the sum of f:v and, with a second qualifier, of the weights.
    let weighted = pb::Scan {
        column: vec![pb::Column {
            family: b"f".to_vec(),
            qualifier: vec![b"v".to_vec(), b"w".to_vec()],
        }],
        ..pb::Scan::default()
    };
    let (values, weights) = regions.iter().fold((0i64, 0i64), |(v, w), name| {
        let p = region_part(&c, name, Aggregation::Median, &weighted);
        let [Number::Long(pv), Number::Long(pw)] = p.values[..] else {
            panic!("{p:?}")
        };
        (v + pv, w + pw)
    });
    assert_eq!(values, rows.iter().filter_map(|(_, v, ..)| *v).sum::<i64>());
    assert_eq!(weights, rows.iter().map(|(.., w)| *w).sum::<i64>());

    // An empty range: no value, no rows.
    let empty = column_scan("v", b"x", b"y", None);
    assert_eq!(
        aggregate(&c, &regions, LONG_INTERPRETER, Aggregation::Max, &empty),
        None
    );
    assert_eq!(
        aggregate(&c, &regions, LONG_INTERPRETER, Aggregation::RowNum, &empty),
        Some(Number::Long(0))
    );
    assert_eq!(
        aggregate(&c, &regions, LONG_INTERPRETER, Aggregation::Avg, &empty),
        None
    );
    server.shutdown();
}

#[test]
fn what_the_endpoint_cannot_serve_is_named() {
    let conn = Connection::in_memory();
    table(&conn);
    let region = conn
        .admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()[0]
        .name
        .to_vec();
    let server = support::serve(&conn);
    let c = RpcClient::connect(server.local_addr(), "ClientService").unwrap();
    let call = |method: &str, interpreter: &str| {
        support::call_explained::<_, pb::CoprocessorServiceResponse>(
            &c,
            "ExecService",
            &pb::CoprocessorServiceRequest {
                region: pb::RegionSpecifier {
                    r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
                    value: region.clone(),
                },
                call: pb::CoprocessorServiceCall {
                    row: Vec::new(),
                    service_name: basalt_proto::aggregate::SERVICE.into(),
                    method_name: method.into(),
                    request: pb::AggregateRequest {
                        interpreter_class_name: interpreter.into(),
                        scan: column_scan("v", b"", b"", None),
                        interpreter_specific_bytes: None,
                    }
                    .encode_to_vec(),
                },
            },
        )
    };
    let e = call("GetMode", LONG_INTERPRETER).unwrap_err();
    assert!(
        e.contains("UnknownProtocolException") && e.contains("GetMode"),
        "{e}"
    );
    let e = call(
        "GetSum",
        "org.apache.hadoop.hbase.client.coprocessor.BigDecimalColumnInterpreter",
    )
    .unwrap_err();
    assert!(e.contains("BigDecimalColumnInterpreter"), "{e}");
    assert!(call("GetSum", LONG_INTERPRETER).is_ok());
    server.shutdown();
}

/// The Rust client's `aggregate`: over RPC each region answers its part (ExecService), the
/// embedded engine reads the rows itself; both give the client-side scan's answers, median
/// included (weighted and not).
#[test]
fn the_rust_client_aggregates_over_rpc_and_embedded_alike() {
    use basalt_embedded::aggregate::{Aggregation, Interpreter, Number};
    use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
    use basalt_embedded::{Client, Scan};
    use std::sync::Arc;

    let conn = Connection::in_memory();
    let rows = table(&conn);
    let server = support::serve(&conn);
    let remote: Arc<dyn Client> =
        Arc::new(RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap());
    let embedded: Arc<dyn Client> = Arc::new(conn.clone());
    let t = TableName::parse("t").unwrap();
    let column = Scan::new().add_column("f", "v");
    let values: Vec<i64> = rows.iter().filter_map(|(_, v, ..)| *v).collect();
    let mut sorted = values.clone();
    sorted.sort_unstable();
    for client in [&remote, &embedded] {
        let agg = |scan: &Scan, what| {
            Arc::clone(client)
                .aggregate(&t, scan, Interpreter::Long, what)
                .unwrap()
        };
        assert_eq!(
            agg(&column, Aggregation::Sum),
            Some(Number::Long(values.iter().sum()))
        );
        assert_eq!(
            agg(&column, Aggregation::Max),
            Some(Number::Long(*sorted.last().unwrap()))
        );
        assert_eq!(agg(&column, Aggregation::RowNum), Some(Number::Long(30)));
        // The lower median of the values read.
        assert_eq!(
            agg(&column, Aggregation::Median),
            Some(Number::Long(sorted[(sorted.len() - 1) / 2]))
        );
        // Weighted by f:w: the value where half the total weight is reached.
        let weighted = Scan::new().add_column("f", "v").add_column("f", "w");
        let mut pairs: Vec<(i64, i64)> = rows
            .iter()
            .filter_map(|(_, v, _, w)| v.map(|v| (v, *w)))
            .collect();
        pairs.sort_unstable();
        let total: i64 = pairs.iter().map(|p| p.1).sum();
        let mut seen = 0;
        let expected = pairs
            .iter()
            .find(|(_, w)| {
                seen += w;
                seen * 2 >= total
            })
            .map(|(v, _)| Number::Long(*v));
        assert_eq!(agg(&weighted, Aggregation::Median), expected);
        // A range and an empty one.
        let ranged = column.clone().with_start_row("k12").with_stop_row("k15");
        let in_range: i64 = rows[12..15].iter().filter_map(|(_, v, ..)| *v).sum();
        assert_eq!(agg(&ranged, Aggregation::Sum), Some(Number::Long(in_range)));
        let empty = column.clone().with_start_row("x");
        assert_eq!(agg(&empty, Aggregation::Avg), None);
        // A scan of two families is refused by name.
        let two = Scan::new().add_family("f").add_family("g");
        let e = Arc::clone(client)
            .aggregate(&t, &two, Interpreter::Long, Aggregation::Sum)
            .unwrap_err();
        assert!(e.to_string().contains("one family"), "{e}");
    }
    server.shutdown();
}
