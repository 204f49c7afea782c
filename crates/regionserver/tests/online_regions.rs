//! ClientService serves the region server's online regions, found by the name a call gives:
//! a disabled table's regions are not online (NotServingRegionException), and come back when
//! the table is enabled; a remote client then says the table is not enabled, as HBase's does.

#[path = "../../rpc/tests/support/mod.rs"]
mod support;

use basalt_embedded::remote::{RemoteConfig, RemoteConnection, RpcClient};
use basalt_embedded::{ErrorKind, Get, Put, TableName};
use basalt_rpc::pb::{self, GetRequest, GetResponse};
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

#[test]
fn a_disabled_tables_regions_are_not_served_until_enabled() {
    let conn = engine_with_table_t();
    conn.table("t")
        .unwrap()
        .put(&Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    let server = serve(&conn);
    let t = TableName::parse("t").unwrap();
    let region = conn.admin().regions(&t).unwrap()[0].name.clone();
    let client = RpcClient::connect(server.local_addr(), "ClientService").unwrap();
    let got: GetResponse = call(&client, "Get", &get(&region, b"r")).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);
    // By its encoded name too.
    let encoded = conn.admin().regions(&t).unwrap()[0].encoded_name.clone();
    let got: GetResponse = call(&client, "Get", &get(encoded.as_bytes(), b"r")).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);

    conn.admin().disable_table(&t).unwrap();
    let refused = call::<_, GetResponse>(&client, "Get", &get(&region, b"r")).unwrap_err();
    assert!(refused.ends_with("NotServingRegionException"), "{refused}");
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let e = remote.table("t").unwrap().get(&Get::new("r")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::WrongState, "{e}");

    conn.admin().enable_table(&t).unwrap();
    let got: GetResponse = call(&client, "Get", &get(&region, b"r")).unwrap();
    assert_eq!(got.result.unwrap().cell.len(), 1);
    let row = remote.table("t").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(row.value(b"f", b"q"), Some(&b"v"[..]));
    server.shutdown();
}

/// In a cluster a region server serves only under its lease on standing with ZooKeeper
/// (`standing`): once the lease lapses every call is NotServingRegionException (clients look
/// the region up again), and a renewal brings it back.
#[test]
fn a_server_whose_lease_lapsed_serves_nothing_until_it_is_renewed() {
    let conn = engine_with_table_t();
    conn.table("t")
        .unwrap()
        .put(&Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    let server = serve(&conn);
    let region = conn
        .admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()[0]
        .name
        .clone();
    let client = RpcClient::connect(server.local_addr(), "ClientService").unwrap();
    let standing = &conn.region_server().standing;
    let lease = std::time::Duration::from_secs(1);
    standing.start(std::time::Instant::now(), lease);
    let got: GetResponse = call(&client, "Get", &get(&region, b"r")).unwrap();
    assert_eq!(
        got.result.unwrap().cell.len(),
        1,
        "served while the lease holds"
    );
    std::thread::sleep(lease + std::time::Duration::from_millis(300));
    let refused: Result<GetResponse, String> = call(&client, "Get", &get(&region, b"r"));
    assert_eq!(
        refused.unwrap_err(),
        "org.apache.hadoop.hbase.NotServingRegionException"
    );
    standing.renew(
        std::time::Instant::now(),
        std::time::Duration::from_secs(60),
    );
    let got: GetResponse = call(&client, "Get", &get(&region, b"r")).unwrap();
    assert_eq!(
        got.result.unwrap().cell.len(),
        1,
        "served again once renewed"
    );
    server.shutdown();
}
