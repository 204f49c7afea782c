//! HBase 1.x's getRowOrBefore over the native RPC (issue 49): a Get with `closest_row_before`
//! answers the row at or before its row in its one family, on `hbase:meta` (how 1.x-era
//! clients find regions, binary keys too) and on user tables; with the switch off it is
//! refused as HBase 2 refuses it.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_client::prelude::*;
use std::sync::Arc;

use basalt_embedded::remote::{RpcClient, RpcError};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, DataClient, Put, ServerAdmin, TableDescriptor,
};
use basalt_proto::pb;
use basalt_rpc::{RpcConfig, RpcServer};

fn serve(conn: &Connection) -> (RpcServer, RpcClient) {
    let server = conn
        .serve_rpc(RpcConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            ..RpcConfig::default()
        })
        .unwrap();
    let client = RpcClient::connect(server.local_addr(), "ClientService").unwrap();
    (server, client)
}

/// A 1.x-style Get: the region by name, `closest_row_before`, one family.
fn before(
    client: &RpcClient,
    region: &[u8],
    row: &[u8],
    family: &[u8],
) -> Result<Option<Vec<u8>>, RpcError> {
    let request = pb::GetRequest {
        region: pb::RegionSpecifier {
            r#type: pb::region_specifier::RegionSpecifierType::RegionName as i32,
            value: region.to_vec(),
        },
        get: pb::Get {
            row: row.to_vec(),
            column: vec![pb::Column {
                family: family.to_vec(),
                qualifier: Vec::new(),
            }],
            closest_row_before: Some(true),
            ..pb::Get::default()
        },
    };
    let r: pb::GetResponse = client.call("Get", &request)?;
    let result = r.result.unwrap_or_default();
    Ok(result
        .cell
        .first()
        .map(|c| c.row.clone().unwrap_or_default()))
}

fn table(conn: &Connection, name: &str, families: &[&str], splits: &[&[u8]]) {
    let mut d = TableDescriptor::named(name).unwrap();
    for f in families {
        d = d.with_family(ColumnFamilyDescriptor::new(f.to_string()));
    }
    let splits: Vec<Bytes> = splits.iter().map(|s| Bytes::copy_from_slice(s)).collect();
    conn.create_table(d, &splits).unwrap();
}

/// The region name whose start key is `start`, of table `name`.
fn region_name(conn: &Connection, name: &str, start: &[u8]) -> Vec<u8> {
    conn.regions(&name.parse().unwrap())
        .unwrap()
        .into_iter()
        .find(|r| r.start_key == start)
        .unwrap()
        .name
        .to_vec()
}

#[test]
fn meta_answers_the_region_at_or_before_a_key_binary_keys_too() {
    let conn = Connection::in_memory();
    table(&conn, "t1", &["f"], &[&[0x00, 0xff], b"m"]);
    let (_server, client) = serve(&conn);
    let meta = b"hbase:meta,,1";
    let ask = |row: &[u8]| {
        let mut key = b"t1,".to_vec();
        key.extend_from_slice(row);
        key.extend_from_slice(b",99999999999999");
        before(&client, meta, &key, b"info").unwrap().unwrap()
    };
    assert_eq!(ask(b""), region_name(&conn, "t1", b""));
    assert_eq!(ask(&[0x00, 0x01]), region_name(&conn, "t1", b""));
    assert_eq!(ask(&[0x00, 0xff]), region_name(&conn, "t1", &[0x00, 0xff]));
    assert_eq!(ask(&[0x01, 0x80]), region_name(&conn, "t1", &[0x00, 0xff]));
    assert_eq!(ask(b"m"), region_name(&conn, "t1", b"m"));
    assert_eq!(ask(b"zzz"), region_name(&conn, "t1", b"m"));
}

#[test]
fn a_user_table_answers_the_previous_row_in_the_named_family() {
    let conn = Connection::in_memory();
    table(&conn, "u", &["f", "g"], &[]);
    let t = "u".parse().unwrap();
    for row in ["a", "c", "e"] {
        conn.put(&t, &Put::new(row).add_column("f", "q", "v"))
            .unwrap();
    }
    conn.put(&t, &Put::new("d").add_column("g", "q", "v"))
        .unwrap();
    let (_server, client) = serve(&conn);
    let region = region_name(&conn, "u", b"");
    let ask = |row: &str, family: &str| {
        before(&client, &region, row.as_bytes(), family.as_bytes())
            .unwrap()
            .map(|r| String::from_utf8(r).unwrap())
    };
    assert_eq!(ask("d", "f").as_deref(), Some("c"));
    assert_eq!(ask("c", "f").as_deref(), Some("c"));
    assert_eq!(ask("zz", "f").as_deref(), Some("e"));
    assert_eq!(ask("0", "f"), None);
    assert_eq!(ask("d", "g").as_deref(), Some("d"));
    assert_eq!(ask("cz", "g"), None);
}

#[test]
fn the_switch_refuses_it_as_hbase_2_does() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("hbase-site.xml");
    std::fs::write(
        &site,
        "<configuration><property><name>basalt.regionserver.closest.row.before</name>\
         <value>false</value></property></configuration>",
    )
    .unwrap();
    let settings = basalt_embedded::site::LiveSettings::load(Some(&site)).unwrap();
    let conn = Connection::builder().settings(Arc::new(settings)).build();
    let (_server, client) = serve(&conn);
    let Err(RpcError::Remote { class, message }) =
        before(&client, b"hbase:meta,,1", b"t,,1", b"info")
    else {
        panic!("served with the switch off");
    };
    assert!(class.ends_with("UnknownProtocolException"), "{class}");
    assert!(message.contains("getClosestRowBefore"), "{message}");
}
