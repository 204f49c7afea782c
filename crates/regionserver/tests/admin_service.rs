//! AdminService (and MasterService's region calls) over a real socket: region descriptions by
//! full, encoded and meta's fixed name, the online regions, flushes and compactions of one
//! region, the server's name, and splits and merges as HBase 2 clients ask for them.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_embedded::remote::RpcClient;
use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, Get, Put, RegionDescription, TableDescriptor, TableName,
};
use basalt_proto::region;
use basalt_rpc::RpcServer;
use basalt_rpc::pb::{
    CompactRegionRequest, CompactRegionResponse, FlushRegionRequest, FlushRegionResponse,
    GetOnlineRegionRequest, GetOnlineRegionResponse, GetRegionInfoRequest, GetRegionInfoResponse,
    GetServerInfoRequest, GetServerInfoResponse, MergeTableRegionsRequest, ProcedureResponse,
    RegionSpecifier, SplitTableRegionRequest, get_region_info_response,
    region_specifier::RegionSpecifierType,
};
use support::call;

#[path = "../../rpc/tests/support/mod.rs"]
mod support;

fn setup() -> (RpcServer, Connection) {
    let conn = Connection::in_memory();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin()
        .create_table_with_splits(desc, &["m".into()])
        .unwrap();
    (support::serve(&conn), conn)
}

fn regions(conn: &Connection) -> Vec<RegionDescription> {
    conn.admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()
}

fn put_rows(conn: &Connection, rows: &[&str]) {
    let t = conn.table("t").unwrap();
    for r in rows {
        t.put(&Put::new(r.to_string()).add_column("f", "q", r.to_string()))
            .unwrap();
    }
}

fn info(c: &RpcClient, spec: RegionSpecifier) -> Result<GetRegionInfoResponse, String> {
    call(
        c,
        "GetRegionInfo",
        &GetRegionInfoRequest {
            region: spec,
            compaction_state: Some(true),
            best_split_row: None,
        },
    )
}

#[test]
fn region_info_by_full_encoded_and_meta_names() {
    let (server, conn) = setup();
    let admin = RpcClient::connect(server.local_addr(), "AdminService").unwrap();
    let rs = regions(&conn);
    for r in &rs {
        let got = info(&admin, region(&r.name)).unwrap();
        let ri = got.region_info;
        assert_eq!(ri.table_name.qualifier, b"t");
        assert_eq!(ri.table_name.namespace, b"default");
        assert_eq!(ri.start_key.as_deref(), Some(&r.start_key[..]));
        assert_eq!(ri.end_key.as_deref(), Some(&r.end_key[..]));
        assert_eq!(ri.region_id, u64::try_from(r.region_id).unwrap());
        assert_eq!(
            got.compaction_state,
            Some(get_region_info_response::CompactionState::None as i32)
        );
        assert_eq!(got.splittable, Some(true));
        // The same region by its encoded name.
        let by_encoded = info(
            &admin,
            RegionSpecifier {
                r#type: RegionSpecifierType::EncodedRegionName as i32,
                value: r.encoded_name.as_bytes().to_vec(),
            },
        )
        .unwrap();
        assert_eq!(by_encoded.region_info, ri);
    }
    let meta = info(&admin, region(b"hbase:meta,,1")).unwrap();
    assert_eq!(meta.region_info.table_name.namespace, b"hbase");
    assert_eq!(meta.region_info.table_name.qualifier, b"meta");
    assert_eq!(meta.region_info.region_id, 1);
    assert_eq!(meta.splittable, Some(false));
    assert_eq!(
        info(&admin, region(b"t,zz,1.0123456789abcdef0123456789abcdef.")).unwrap_err(),
        "org.apache.hadoop.hbase.NotServingRegionException"
    );

    let online: GetOnlineRegionResponse =
        call(&admin, "GetOnlineRegion", &GetOnlineRegionRequest {}).unwrap();
    let names: Vec<(Vec<u8>, Vec<u8>)> = online
        .region_info
        .iter()
        .map(|r| {
            (
                r.table_name.qualifier.clone(),
                r.start_key.clone().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            (b"meta".to_vec(), vec![]),
            (b"t".to_vec(), vec![]),
            (b"t".to_vec(), b"m".to_vec())
        ]
    );

    let server_info: GetServerInfoResponse =
        call(&admin, "GetServerInfo", &GetServerInfoRequest {}).unwrap();
    let name = server_info.server_info.server_name;
    assert_eq!(name.host_name, "127.0.0.1");
    assert_eq!(name.port, Some(u32::from(server.local_addr().port())));
    assert_eq!(
        name.start_code,
        Some(u64::try_from(conn.server_start_code()).unwrap())
    );

    // A method AdminService does not have is HBase's UnknownProtocolException, and the
    // connection keeps serving.
    assert_eq!(
        call::<_, GetServerInfoResponse>(&admin, "UpdateFavoredNodes", &GetServerInfoRequest {})
            .unwrap_err(),
        "org.apache.hadoop.hbase.exceptions.UnknownProtocolException"
    );
    assert!(info(&admin, region(&rs[0].name)).is_ok());
    server.shutdown();
}

#[test]
fn flush_and_compact_one_region() {
    let (server, conn) = setup();
    let admin = RpcClient::connect(server.local_addr(), "AdminService").unwrap();
    let high = regions(&conn)[1].clone();
    for round in 0..2 {
        put_rows(&conn, &["a", "n", "x"]);
        let before = regions(&conn);
        assert!(before[0].memstore_size > 0 && before[1].memstore_size > 0);
        let flushed: FlushRegionResponse = call(
            &admin,
            "FlushRegion",
            &FlushRegionRequest {
                region: region(&high.name),
                ..FlushRegionRequest::default()
            },
        )
        .unwrap();
        assert_eq!(flushed.flushed, Some(true));
        assert!(flushed.last_flush_time > 0);
        let after = regions(&conn);
        // Only the named region flushed.
        assert_eq!(after[1].memstore_size, 0, "round {round}");
        assert_eq!(after[1].store_files, round + 1);
        assert!(after[0].memstore_size > 0);
        assert_eq!(after[0].store_files, 0);
    }
    let _: CompactRegionResponse = call(
        &admin,
        "CompactRegion",
        &CompactRegionRequest {
            region: region(&high.name),
            major: Some(true),
            family: None,
        },
    )
    .unwrap();
    assert_eq!(regions(&conn)[1].store_files, 1);
    let t = conn.table("t").unwrap();
    for r in ["a", "n", "x"] {
        assert!(!t.get(&Get::new(r)).unwrap().cells.is_empty(), "{r}");
    }
    assert_eq!(
        call::<_, FlushRegionResponse>(
            &admin,
            "FlushRegion",
            &FlushRegionRequest {
                region: region(b"t,q,1.0123456789abcdef0123456789abcdef."),
                ..FlushRegionRequest::default()
            },
        )
        .unwrap_err(),
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    server.shutdown();
}

#[test]
fn master_splits_and_merges_regions() {
    let (server, conn) = setup();
    put_rows(&conn, &["a", "n", "p", "x", "z"]);
    let master = RpcClient::connect(server.local_addr(), "MasterService").unwrap();
    let admin = RpcClient::connect(server.local_addr(), "AdminService").unwrap();
    let high = regions(&conn)[1].clone();
    let high_info = info(&admin, region(&high.name)).unwrap().region_info;
    let done: ProcedureResponse = call(
        &master,
        "SplitRegion",
        &SplitTableRegionRequest {
            region_info: high_info.clone(),
            split_row: Some(b"t".to_vec()),
            ..SplitTableRegionRequest::default()
        },
    )
    .unwrap();
    assert!(done.proc_id.is_some());
    let after: Vec<(Vec<u8>, Vec<u8>)> = regions(&conn)
        .iter()
        .map(|r| (r.start_key.to_vec(), r.end_key.to_vec()))
        .collect();
    assert_eq!(
        after,
        [
            (vec![], b"m".to_vec()),
            (b"m".to_vec(), b"t".to_vec()),
            (b"t".to_vec(), vec![])
        ]
    );
    // The parent is gone: splitting it again names no serving region.
    assert_eq!(
        call::<_, ProcedureResponse>(
            &master,
            "SplitRegion",
            &SplitTableRegionRequest {
                region_info: high_info,
                split_row: Some(b"u".to_vec()),
                ..SplitTableRegionRequest::default()
            },
        )
        .unwrap_err(),
        "org.apache.hadoop.hbase.UnknownRegionException"
    );

    // Daughters read their parent's files through references, and a region with references
    // does not merge (HBase's MergeRegionException) until a compaction rewrites them. The
    // background compaction may not have run yet, so compact here rather than race it.
    conn.admin()
        .major_compact(&TableName::parse("t").unwrap())
        .unwrap();
    let daughters = regions(&conn);
    let _: ProcedureResponse = call(
        &master,
        "MergeTableRegions",
        &MergeTableRegionsRequest {
            region: vec![
                RegionSpecifier {
                    r#type: RegionSpecifierType::EncodedRegionName as i32,
                    value: daughters[1].encoded_name.as_bytes().to_vec(),
                },
                region(&daughters[2].name),
            ],
            ..MergeTableRegionsRequest::default()
        },
    )
    .unwrap();
    let merged: Vec<(Vec<u8>, Vec<u8>)> = regions(&conn)
        .iter()
        .map(|r| (r.start_key.to_vec(), r.end_key.to_vec()))
        .collect();
    assert_eq!(merged, [(vec![], b"m".to_vec()), (b"m".to_vec(), vec![])]);
    let t = conn.table("t").unwrap();
    for r in ["a", "n", "p", "x", "z"] {
        assert!(!t.get(&Get::new(r)).unwrap().cells.is_empty(), "{r}");
    }
    assert_eq!(
        call::<_, ProcedureResponse>(
            &master,
            "MergeTableRegions",
            &MergeTableRegionsRequest {
                region: vec![region(&regions(&conn)[0].name)],
                ..MergeTableRegionsRequest::default()
            },
        )
        .unwrap_err(),
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );
    server.shutdown();
}
