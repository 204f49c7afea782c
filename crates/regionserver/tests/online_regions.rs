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
