//! What HBase 1.x-era clients send and what no client's field may be ignored (issue 49),
//! over ClientService on a real socket: fields Basalt cannot honour refused by name, scanner
//! calls out of sequence, cell blocks in every codec HBase names, rows cut only for clients
//! that handle partial results, regions named by their encoded names.

mod common;

use basalt_rpc::cellblock;
use basalt_rpc::pb::{
    self, ConnectionHeader, GetResponse, MutateRequest, MutateResponse, MutationProto,
    RegionSpecifier, Scan, ScanRequest, ScanResponse, mutation_proto,
    region_specifier::RegionSpecifierType,
};
use common::{Client, counted, get_row, put, region, setup, values};
use prost::Message;

/// Request fields Basalt cannot honour are refused by name (docs/design/fields.md), never
/// dropped: attributes no one reads, per-family limits, tags, a read point.
#[test]
fn fields_basalt_cannot_honour_are_refused_by_name() {
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let mut c = Client::connect(&server, "ClientService");
    let attribute = |name: &str| pb::NameBytesPair {
        name: name.into(),
        value: Some(vec![1]),
    };
    let mut get = get_row(low, b"a");
    get.get.attribute = vec![attribute("_owner_")];
    let e = c.err("Get", &get);
    assert!(
        e.contains("DoNotRetryIOException") && e.contains("Get.attribute"),
        "{e}"
    );
    // HBase's isolation levels are served (READ_UNCOMMITTED as READ_COMMITTED); another byte
    // is refused by name.
    let level = |v: &[u8]| pb::NameBytesPair {
        name: "_isolationlevel_".into(),
        value: Some(v.to_vec()),
    };
    for served in [[0u8], [1u8]] {
        let mut get = get_row(low, b"a");
        get.get.attribute = vec![level(&served)];
        let _: GetResponse = c.ok("Get", &get);
    }
    let mut get = get_row(low, b"a");
    get.get.attribute = vec![level(&[7])];
    let e = c.err("Get", &get);
    assert!(e.contains("Get.attribute \"_isolationlevel_\""), "{e}");
    let mut get = get_row(low, b"a");
    get.get.store_limit = Some(1);
    assert!(c.err("Get", &get).contains("Get.store_limit"));

    let scan = |s: Scan| ScanRequest {
        region: Some(region(low)),
        scan: Some(s),
        number_of_rows: Some(10),
        ..ScanRequest::default()
    };
    let e = c.err(
        "Scan",
        &scan(Scan {
            store_offset: Some(2),
            ..Scan::default()
        }),
    );
    assert!(e.contains("Scan.store_offset"), "{e}");
    let e = c.err(
        "Scan",
        &scan(Scan {
            mvcc_read_point: Some(7),
            ..Scan::default()
        }),
    );
    assert!(e.contains("Scan.mvcc_read_point"), "{e}");
    // Scan metrics are counted: this call's rows, under HBase's names.
    let tracked: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            track_scan_metrics: Some(true),
            ..scan(Scan::default())
        },
    );
    let metric = |name: &str| {
        let metrics = tracked
            .scan_metrics
            .as_ref()
            .expect("scan metrics sent back");
        metrics
            .metrics
            .iter()
            .find(|m| m.name.as_deref() == Some(name))
            .and_then(|m| m.value)
    };
    assert_eq!(metric("ROWS_SCANNED"), Some(tracked.results.len() as i64));
    assert_eq!(metric("ROWS_FILTERED"), Some(0));
    let untracked: ScanResponse = c.ok("Scan", &scan(Scan::default()));
    assert!(untracked.scan_metrics.is_none());
    // `_raw_` is the one scan attribute Basalt acts on.
    let raw: ScanResponse = c.ok(
        "Scan",
        &scan(Scan {
            attribute: vec![pb::NameBytesPair {
                name: "_raw_".into(),
                value: Some(vec![0xff]),
            }],
            ..Scan::default()
        }),
    );
    assert!(raw.results.is_empty());

    let mutate = |m: MutationProto| MutateRequest {
        region: region(low),
        mutation: m,
        ..MutateRequest::default()
    };
    let mut tagged = put(b"a", b"q", b"v");
    tagged.column_value[0].qualifier_value[0].tags = Some(b"\x00\x03\x08ab".to_vec());
    let e = c.err("Mutate", &mutate(tagged));
    assert!(e.contains("QualifierValue.tags"), "{e}");
    let mut ranged = put(b"a", b"q", b"v");
    ranged.time_range = Some(pb::TimeRange {
        from: Some(1),
        to: Some(2),
    });
    assert!(
        c.err("Mutate", &mutate(ranged))
            .contains("MutationProto.time_range")
    );
    let mut owned = put(b"a", b"q", b"v");
    owned.attribute = vec![attribute("owner")];
    assert!(
        c.err("Mutate", &mutate(owned))
            .contains("MutationProto.attribute \"owner\"")
    );
    // A cell block cell with tags (KeyValueCodecWithTags) is refused the same way.
    let mut block = Vec::new();
    cellblock::write_cell(&mut block, b"a", b"f", b"q", 5, cellblock::PUT, b"v");
    // write_cell writes an untagged cell; grow its length and key to carry two tag bytes.
    let len = u32::from_be_bytes(block[..4].try_into().unwrap()) + 4;
    block[..4].copy_from_slice(&len.to_be_bytes());
    block.extend_from_slice(&[0, 2, 8, 1]);
    c.cells = block;
    let e = c.err(
        "Mutate",
        &mutate(counted(b"a", mutation_proto::MutationType::Put, 1)),
    );
    assert!(e.contains("tags"), "{e}");
    // Nothing was written by any of them.
    let got: GetResponse = c.ok("Get", &get_row(low, b"a"));
    assert!(got.result.unwrap().cell.is_empty());
    server.shutdown();
}

/// `next_call_seq`: a `next` carrying the wrong sequence (a retry of a call whose answer was
/// lost) is OutOfOrderScannerNextException, not a silent skip of the rows that answer held.
#[test]
fn scanner_calls_out_of_sequence_are_refused() {
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let mut c = Client::connect(&server, "ClientService");
    for row in [&b"a"[..], b"b", b"c"] {
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: put(row, b"q", b"v"),
                ..MutateRequest::default()
            },
        );
    }
    let opened: ScanResponse = c.ok(
        "Scan",
        &ScanRequest {
            region: Some(region(low)),
            scan: Some(Scan::default()),
            number_of_rows: Some(0),
            ..ScanRequest::default()
        },
    );
    let next = |seq: u64| ScanRequest {
        scanner_id: opened.scanner_id,
        number_of_rows: Some(1),
        next_call_seq: Some(seq),
        ..ScanRequest::default()
    };
    let first: ScanResponse = c.ok("Scan", &next(0));
    assert_eq!(values(&first.results[0])[0].0, b"a");
    // The same call again (its answer "lost"): refused, and the scanner did not move.
    let e = c.err("Scan", &next(0));
    assert!(e.contains("OutOfOrderScannerNextException"), "{e}");
    let second: ScanResponse = c.ok("Scan", &next(1));
    assert_eq!(values(&second.results[0])[0].0, b"b");
    server.shutdown();
}

/// HBase 1.x-era clients may name other cell block codecs: CellCodec, CellCodecWithTags and
/// MessageCodec blocks carry a Put's cells as KeyValueCodec's do (tags still refused).
#[test]
fn cell_blocks_in_every_codec_hbase_clients_name() {
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let with_codec = |codec: &str| {
        Client::connect_with(
            &server,
            ConnectionHeader {
                service_name: Some("ClientService".into()),
                cell_block_codec_class: Some(format!("org.apache.hadoop.hbase.codec.{codec}")),
                ..ConnectionHeader::default()
            },
        )
    };
    let prefixed = |out: &mut Vec<u8>, b: &[u8]| {
        out.extend_from_slice(&(b.len() as u32).to_be_bytes());
        out.extend_from_slice(b);
    };
    let cell_codec = |row: &[u8], value: &[u8], tags: Option<&[u8]>| {
        let mut out = Vec::new();
        prefixed(&mut out, row);
        prefixed(&mut out, b"f");
        prefixed(&mut out, b"q");
        out.extend_from_slice(&7i64.to_be_bytes());
        out.push(cellblock::PUT);
        prefixed(&mut out, value);
        if let Some(tags) = tags {
            prefixed(&mut out, tags);
        }
        out.extend_from_slice(&0u64.to_be_bytes());
        out
    };
    let message_codec = |row: &[u8], value: &[u8]| {
        pb::Cell {
            row: Some(row.to_vec()),
            family: Some(b"f".to_vec()),
            qualifier: Some(b"q".to_vec()),
            timestamp: Some(7),
            cell_type: Some(pb::CellType::Put as i32),
            value: Some(value.to_vec()),
            tags: None,
        }
        .encode_length_delimited_to_vec()
    };
    let blocks = [
        ("CellCodec", b"c1", cell_codec(b"c1", b"one", None)),
        (
            "CellCodecWithTags",
            b"c2",
            cell_codec(b"c2", b"two", Some(b"")),
        ),
        ("MessageCodec", b"c3", message_codec(b"c3", b"three")),
    ];
    for (codec, row, block) in blocks {
        let mut c = with_codec(codec);
        c.cells = block;
        let _: MutateResponse = c.ok(
            "Mutate",
            &MutateRequest {
                region: region(low),
                mutation: counted(row, mutation_proto::MutationType::Put, 1),
                ..MutateRequest::default()
            },
        );
        let got: GetResponse = c.ok("Get", &get_row(low, row));
        let cells = got.result.unwrap().cell;
        assert_eq!(cells.len(), 1, "{codec}");
        assert_eq!(cells[0].timestamp, Some(7), "{codec}");
    }
    // A CellCodecWithTags cell that carries tags is refused, as KeyValueCodecWithTags' is.
    let mut c = with_codec("CellCodecWithTags");
    c.cells = cell_codec(b"c4", b"four", Some(b"\x08\x00\x01"));
    let e = c.err(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: counted(b"c4", mutation_proto::MutationType::Put, 1),
            ..MutateRequest::default()
        },
    );
    assert!(e.contains("tags"), "{e}");
    server.shutdown();
}

/// HBase 1.0's clients do not put partial rows back together: a row is cut at
/// max_result_size only for a client that sends `client_handles_partials`. A region named by
/// its encoded name (ENCODED_REGION_NAME) is found as by its full name.
#[test]
fn rows_are_cut_only_for_clients_that_handle_partials() {
    let (server, _conn, regions) = setup();
    let low = &regions[0];
    let mut c = Client::connect(&server, "ClientService");
    let mut wide = put(b"c", b"q0", &[b'x'; 100]);
    for q in 1..5 {
        let mut more = put(b"c", format!("q{q}").as_bytes(), &[b'x'; 100]);
        wide.column_value[0]
            .qualifier_value
            .append(&mut more.column_value[0].qualifier_value);
    }
    let _: MutateResponse = c.ok(
        "Mutate",
        &MutateRequest {
            region: region(low),
            mutation: wide,
            ..MutateRequest::default()
        },
    );
    let encoded = {
        let name = String::from_utf8(low.clone()).unwrap();
        name.trim_end_matches('.')
            .rsplit('.')
            .next()
            .unwrap()
            .to_owned()
    };
    let open = |partials: Option<bool>| ScanRequest {
        region: Some(RegionSpecifier {
            r#type: RegionSpecifierType::EncodedRegionName as i32,
            value: encoded.clone().into_bytes(),
        }),
        scan: Some(Scan {
            max_result_size: Some(150),
            allow_partial_results: Some(true),
            ..Scan::default()
        }),
        number_of_rows: Some(1),
        client_handles_partials: partials,
        ..ScanRequest::default()
    };
    let whole: ScanResponse = c.ok("Scan", &open(None));
    assert_eq!(
        whole.results[0].cell.len(),
        5,
        "an HBase 1.0 client gets whole rows"
    );
    let cut: ScanResponse = c.ok("Scan", &open(Some(true)));
    assert!(
        cut.results[0].cell.len() < 5,
        "{:?}",
        cut.results[0].cell.len()
    );
    assert_eq!(cut.results[0].partial, Some(true));
    server.shutdown();
}
