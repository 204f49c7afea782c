//! The native RPC socket under hostile input: for a bounded count and time, connections send
//! preambles, connection headers and call frames of every service, valid or mutated (flipped
//! bits, cut short, lengths set to extremes, bytes inserted), or plain garbage. Afterwards no
//! connection thread has panicked, the server still answers every service correctly, and it
//! stops promptly (every connection it held was given back).

mod support;

use basalt_embedded::prelude::*;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Bytes, Get, Put};
use basalt_net::hostile::{count_panics, hammer};
use basalt_proto::region;
use basalt_rpc::RpcConfig;
use basalt_rpc::frame::{encode_call, encode_call_with_cells, encode_connection_start};
use basalt_rpc::pb::{
    self, Action, ConnectionHeader, GetRequest, MultiRequest, MutateRequest, MutationProto,
    RegionAction, ScanRequest, UserInformation, mutation_proto,
};

fn start(service: &str) -> Vec<u8> {
    encode_connection_start(&ConnectionHeader {
        user_info: Some(UserInformation {
            effective_user: Some("hostile".into()),
            real_user: None,
        }),
        service_name: Some(service.into()),
        cell_block_codec_class: Some("org.apache.hadoop.hbase.codec.KeyValueCodec".into()),
        ..ConnectionHeader::default()
    })
}

fn put(row: &[u8]) -> MutationProto {
    MutationProto {
        row: Some(row.to_vec()),
        mutate_type: Some(mutation_proto::MutationType::Put as i32),
        column_value: vec![mutation_proto::ColumnValue {
            family: b"f".to_vec(),
            qualifier_value: vec![mutation_proto::column_value::QualifierValue {
                qualifier: Some(b"q".to_vec()),
                value: Some(b"v".to_vec()),
                ..Default::default()
            }],
        }],
        ..MutationProto::default()
    }
}

/// Valid call frames of every service, each after its connection start.
fn valid_streams(region_name: &[u8]) -> Vec<Vec<u8>> {
    let client = |frames: Vec<Vec<u8>>| {
        let mut s = start("ClientService");
        frames.into_iter().for_each(|f| s.extend(f));
        s
    };
    let r = || region(region_name);
    let long = vec![b'k'; 40_000];
    // A put whose cells travel in a KeyValueCodec block: key length, value length, row
    // length, row, family length, family, qualifier, timestamp, type, value.
    let mut block = Vec::new();
    let (row, fam, qual, value) = (b"b", b"f", b"q", b"cellblock");
    let key_len = 2 + row.len() + 1 + fam.len() + qual.len() + 8 + 1;
    let cell_len = 4 + 4 + key_len + value.len();
    block.extend_from_slice(&(cell_len as u32).to_be_bytes());
    block.extend_from_slice(&(key_len as u32).to_be_bytes());
    block.extend_from_slice(&(value.len() as u32).to_be_bytes());
    block.extend_from_slice(&(row.len() as u16).to_be_bytes());
    block.extend_from_slice(row);
    block.push(fam.len() as u8);
    block.extend_from_slice(fam);
    block.extend_from_slice(qual);
    block.extend_from_slice(&i64::MAX.to_be_bytes());
    block.push(4);
    block.extend_from_slice(value);
    let counted = MutationProto {
        row: Some(row.to_vec()),
        mutate_type: Some(mutation_proto::MutationType::Put as i32),
        associated_cell_count: Some(1),
        ..MutationProto::default()
    };
    vec![
        client(vec![encode_call(
            1,
            "Mutate",
            &MutateRequest {
                region: r(),
                mutation: put(b"a"),
                ..MutateRequest::default()
            },
        )]),
        client(vec![encode_call_with_cells(
            2,
            "Mutate",
            &MutateRequest {
                region: r(),
                mutation: counted,
                ..MutateRequest::default()
            },
            &[&block],
        )]),
        client(vec![encode_call(
            3,
            "Get",
            &GetRequest {
                region: r(),
                get: pb::Get {
                    row: long.clone(),
                    ..pb::Get::default()
                },
            },
        )]),
        client(vec![
            encode_call(
                4,
                "Scan",
                &ScanRequest {
                    region: Some(r()),
                    scan: Some(pb::Scan {
                        start_row: Some(long.clone()),
                        ..pb::Scan::default()
                    }),
                    number_of_rows: Some(10),
                    ..ScanRequest::default()
                },
            ),
            encode_call(
                5,
                "Scan",
                &ScanRequest {
                    scanner_id: Some(1),
                    number_of_rows: Some(u32::MAX),
                    ..ScanRequest::default()
                },
            ),
        ]),
        client(vec![encode_call(
            6,
            "Multi",
            &MultiRequest {
                region_action: vec![RegionAction {
                    region: r(),
                    atomic: Some(true),
                    action: vec![
                        Action {
                            index: Some(0),
                            mutation: Some(put(b"m")),
                            get: None,
                            service_call: None,
                        },
                        Action {
                            index: Some(1),
                            mutation: Some(put(b"m")),
                            get: None,
                            service_call: None,
                        },
                    ],
                    condition: None,
                }],
                ..MultiRequest::default()
            },
        )]),
        {
            let mut s = start("MasterService");
            s.extend(encode_call(
                7,
                "GetClusterStatus",
                &pb::GetClusterStatusRequest { options: vec![] },
            ));
            s.extend(encode_call(
                8,
                "GetTableDescriptors",
                &pb::GetTableDescriptorsRequest::default(),
            ));
            s
        },
        {
            let mut s = start("AdminService");
            s.extend(encode_call(
                9,
                "GetOnlineRegion",
                &pb::GetOnlineRegionRequest::default(),
            ));
            s
        },
    ]
}

#[test]
fn random_and_mutated_frames_leave_the_server_serving() {
    let panics = count_panics();

    let conn = support::engine_with_table_t();
    let server = conn
        .serve_rpc(RpcConfig {
            max_frame: 1 << 20,
            stall_timeout: Duration::from_millis(200),
            ..support::loopback()
        })
        .unwrap();
    let region_name = conn.admin().regions(&"t".parse().unwrap()).unwrap()[0]
        .name
        .clone();
    let streams = valid_streams(&region_name);
    hammer(
        server.local_addr(),
        &streams,
        0xBA5A17,
        Duration::from_secs(20),
        &panics,
    );

    // Every service still answers, correctly.
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let t = remote.table("t").unwrap();
    t.put(&Put::new("after").add_column("f", "q", "checked"))
        .unwrap();
    let got = t.get(&Get::new("after")).unwrap();
    assert_eq!(got.cells[0].value(), b"checked");
    assert!(remote.admin().table_exists(&"t".parse().unwrap()).unwrap());
    let embedded = conn.table("t").unwrap();
    assert_eq!(
        embedded
            .get(&Get::new(Bytes::from_static(b"after")))
            .unwrap()
            .cells[0]
            .value(),
        b"checked"
    );
    // The unchanged calls among the hostile ones were served: the rows they wrote are there.
    for (row, value) in [(&b"a"[..], &b"v"[..]), (b"b", b"cellblock"), (b"m", b"v")] {
        let got = embedded
            .get(&Get::new(Bytes::copy_from_slice(row)))
            .unwrap();
        assert_eq!(got.cells.first().map(|c| c.value()), Some(value), "{row:?}");
    }
    drop(remote);
    let stopping = Instant::now();
    server.shutdown();
    assert!(stopping.elapsed() < Duration::from_secs(10));
}
