//! The async RPC connection (`basalt_client::remote::aio`, issue 44) against a running
//! server: many calls in flight on one connection, each answered with its own row; a server's
//! exception comes back as the call's error; a connection whose server stops fails its calls
//! instead of hanging them.
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::Arc;
use std::time::Duration;

use basalt_embedded::remote::RpcError;
use basalt_embedded::remote::aio::AsyncRpcClient;
use basalt_embedded::{Put, TableName};
use basalt_rpc::pb::region_specifier::RegionSpecifierType;
use basalt_rpc::pb::{Get, GetRequest, GetResponse, RegionSpecifier};

const ROWS: usize = 300;

fn get(region: &[u8], row: &[u8]) -> GetRequest {
    GetRequest {
        region: RegionSpecifier {
            r#type: RegionSpecifierType::RegionName as i32,
            value: region.to_vec(),
        },
        get: Get {
            row: row.to_vec(),
            ..Get::default()
        },
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn many_calls_in_flight_on_one_connection_each_get_their_answer() {
    let conn = support::engine_with_table_t();
    let table = conn.table("t").unwrap();
    for i in 0..ROWS {
        table
            .put(&Put::new(format!("row{i:04}")).add_column("f", "q", format!("value{i}")))
            .unwrap();
    }
    let region = conn
        .admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()[0]
        .name
        .to_vec();
    let server = support::serve(&conn);
    let addr = server.local_addr();
    runtime().block_on(async {
        let client = Arc::new(
            AsyncRpcClient::connect(addr, "ClientService", "tester")
                .await
                .unwrap(),
        );
        // Every Get is sent before any answer is awaited.
        let mut calls = tokio::task::JoinSet::new();
        for i in 0..ROWS {
            let (client, region) = (Arc::clone(&client), region.clone());
            calls.spawn(async move {
                let row = format!("row{i:04}");
                let answer: GetResponse = client
                    .call("Get", &get(&region, row.as_bytes()))
                    .await
                    .unwrap();
                (i, answer)
            });
        }
        let mut seen = 0;
        while let Some(done) = calls.join_next().await {
            let (i, answer) = done.unwrap();
            let cells = answer.result.unwrap().cell;
            assert_eq!(cells.len(), 1, "row {i}");
            assert_eq!(cells[0].value(), format!("value{i}").as_bytes(), "row {i}");
            seen += 1;
        }
        assert_eq!(seen, ROWS);
        assert_eq!(client.in_flight(), 0);

        // A region the server does not have: the server's exception is the call's error.
        let missing: Result<GetResponse, _> = client.call("Get", &get(b"nope", b"row")).await;
        match missing {
            Err(RpcError::Remote { class, .. }) => {
                assert!(class.contains("NotServingRegion"), "{class}")
            }
            other => panic!("expected the server's exception, got {other:?}"),
        }
        // A method the service lacks.
        let unknown: Result<GetResponse, _> = client.call("NoSuchMethod", &get(&region, b"r")).await;
        assert!(
            matches!(&unknown, Err(RpcError::Remote { class, .. }) if class.contains("UnknownProtocol")),
            "{unknown:?}"
        );
    });

    // The server stops: a call on the connection fails, within a bounded time.
    let rt = runtime();
    let client = rt
        .block_on(AsyncRpcClient::connect(addr, "ClientService", "tester"))
        .unwrap();
    server.shutdown();
    let failed = rt.block_on(async {
        tokio::time::timeout(
            Duration::from_secs(30),
            client.call::<_, GetResponse>("Get", &get(&region, b"row0001")),
        )
        .await
    });
    assert!(matches!(failed, Ok(Err(_))), "{failed:?}");
}
