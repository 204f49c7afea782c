//! The master's side of a region server across the network (`RemoteServer`, over AdminService):
//! closing and opening regions, refusing calls meant for another server, and the region half
//! of a split settled either way. Each is checked against what the server then serves.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

#[path = "../../rpc/tests/support/mod.rs"]
mod support;

use std::time::Duration;

use basalt_embedded::remote::RpcClient;
use basalt_embedded::{Bytes, ErrorKind, Put, RegionInfo, ServerName, TableName};
use basalt_master::servers::{LinkConfig, RegionServerAdmin, RemoteServer};
use basalt_rpc::pb::{
    self, GetOnlineRegionRequest, GetOnlineRegionResponse, GetRequest, GetResponse,
};

use support::{call, engine_with_table_t, serve};

fn get(region: &[u8], row: &[u8]) -> GetRequest {
    GetRequest {
        region: basalt_proto::region(region),
        get: pb::Get {
            row: row.to_vec(),
            ..pb::Get::default()
        },
    }
}

fn online(client: &RpcClient) -> Vec<Vec<u8>> {
    let r: GetOnlineRegionResponse =
        call(client, "GetOnlineRegion", &GetOnlineRegionRequest {}).unwrap();
    r.region_info
        .iter()
        .map(|i| {
            basalt_proto::schema::region_info(i)
                .unwrap()
                .region_name()
                .to_vec()
        })
        .collect()
}

#[test]
fn the_master_opens_closes_and_splits_regions_over_admin_service() {
    let conn = engine_with_table_t();
    let t = conn.table("t").unwrap();
    for row in [&b"a"[..], b"m", b"z"] {
        t.put(&Put::new(row).add_column("f", "q", "v")).unwrap();
    }
    let server = serve(&conn);
    let addr = server.local_addr();
    let start_code = conn.region_server().name.start_code;
    let remote = RemoteServer::new(
        ServerName {
            host_port: addr.to_string(),
            start_code,
        },
        LinkConfig {
            timeout: Duration::from_secs(30),
            tls: None,
        },
    )
    .unwrap();
    let name = TableName::parse("t").unwrap();
    let region = &conn.admin().regions(&name).unwrap()[0];
    let info = RegionInfo::new(
        name.clone(),
        region.start_key.clone(),
        region.end_key.clone(),
        region.region_id,
    );
    let data = RpcClient::connect(addr, "ClientService").unwrap();
    let admin = RpcClient::connect(addr, "AdminService").unwrap();

    // Closed: not served, and closing again says it was not open.
    assert!(remote.close_region(&info).unwrap());
    let refused = call::<_, GetResponse>(&data, "Get", &get(&region.name, b"a")).unwrap_err();
    assert!(refused.ends_with("NotServingRegionException"), "{refused}");
    assert!(!remote.close_region(&info).unwrap());
    assert!(!online(&admin).contains(&region.name.to_vec()));

    // Opened again, with what the close flushed.
    let seq_id = remote.open_region(&info).unwrap();
    assert!(seq_id > 0);
    let got: GetResponse = call(&data, "Get", &get(&region.name, b"m")).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);
    // Opening an open region leaves it as it is.
    assert_eq!(remote.open_region(&info).unwrap(), seq_id);

    // A call meant for a server with another start code is refused.
    let stale = RemoteServer::new(
        ServerName {
            host_port: addr.to_string(),
            start_code: start_code + 1,
        },
        LinkConfig {
            timeout: Duration::from_secs(30),
            tls: None,
        },
    )
    .unwrap();
    let e = stale.close_region(&info).unwrap_err();
    assert!(e.to_string().contains("start code"), "{e}");
    assert!(online(&admin).contains(&region.name.to_vec()));

    // A split the master does not commit: the parent serves again, the daughters never did.
    let daughters = remote
        .split_region(&info, Some(Bytes::from_static(b"m")), info.region_id + 1)
        .unwrap();
    assert_eq!(daughters[0].end_key, Bytes::from_static(b"m"));
    assert!(!online(&admin).contains(&region.name.to_vec()));
    assert!(
        remote
            .settle(std::slice::from_ref(&info), &[], false)
            .unwrap()
            .is_empty()
    );
    assert!(online(&admin).contains(&region.name.to_vec()));
    let got: GetResponse = call(&data, "Get", &get(&region.name, b"z")).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);

    // A committed one: the daughters serve their halves, through references.
    let daughters = remote
        .split_region(&info, None, info.region_id + 1)
        .unwrap();
    let seq_ids = remote
        .settle(std::slice::from_ref(&info), &daughters, true)
        .unwrap();
    assert_eq!(seq_ids.len(), 2);
    let now = online(&admin);
    assert!(!now.contains(&region.name.to_vec()));
    for (d, row) in daughters.iter().zip([&b"a"[..], b"z"]) {
        assert!(now.contains(&d.region_name().to_vec()));
        let got: GetResponse = call(&data, "Get", &get(&d.region_name(), row)).unwrap();
        assert_eq!(got.result.unwrap().cell.len(), 1, "{d:?}");
    }
    // The parent is gone from the server: splitting it again is refused.
    let e = remote
        .split_region(&info, None, info.region_id + 2)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Unavailable, "{e}");
    server.shutdown();
}
