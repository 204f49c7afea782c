//! A connection a call gave up on is abandoned with a reset, so whatever the client had not
//! sent is discarded rather than delivered whenever the network lets it (issue 45: a put queued
//! in the kernel reached the server after the partition healed, after its client had retried it
//! and moved on). A server slow to read a large request sees the rest of it cut off by a
//! reset, not delivered and closed cleanly, once the client gave up and dropped the
//! connection; both clients.

use std::io::Read;
use std::net::TcpListener;
use std::time::Duration;

use basalt_client::remote::RpcClient;
use basalt_client::remote::aio::AsyncRpcClient;
use basalt_proto::pb::{GetRequest, GetResponse};

/// A request far larger than the sockets' buffers: most of it is still in the client's
/// kernel when the client gives up.
fn big_request() -> GetRequest {
    let mut request = GetRequest::default();
    request.get.row = vec![b'r'; 64 << 20];
    request
}

/// A server that accepts one connection, reads nothing for a second (the client's call times
/// out meanwhile), then reads it to its end without answering: how the end came (a reset, or
/// a clean close).
fn silent_server() -> (
    std::net::SocketAddr,
    std::thread::JoinHandle<std::io::ErrorKind>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("address");
    let reader = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().expect("accept");
        std::thread::sleep(Duration::from_secs(1));
        conn.set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        let mut buf = [0u8; 4096];
        loop {
            match conn.read(&mut buf) {
                Ok(0) => return std::io::ErrorKind::UnexpectedEof,
                Ok(_) => {}
                Err(e) => return e.kind(),
            }
        }
    });
    (addr, reader)
}

#[test]
fn the_blocking_client_resets_a_connection_a_call_gave_up_on() {
    let (addr, server) = silent_server();
    let client = RpcClient::connect(addr, "ClientService").expect("connect");
    client
        .set_timeout(Some(Duration::from_millis(200)))
        .expect("timeout");
    let got: Result<GetResponse, _> = client.call("Get", &big_request());
    assert!(got.is_err(), "the silent server cannot answer");
    drop(client);
    assert_eq!(
        server.join().expect("server"),
        std::io::ErrorKind::ConnectionReset
    );
}

#[test]
fn the_async_client_resets_a_connection_a_call_gave_up_on() {
    let (addr, server) = silent_server();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let client = AsyncRpcClient::connect_with(
            addr,
            "ClientService",
            "basalt",
            None,
            None,
            Some(Duration::from_millis(200)),
        )
        .await
        .expect("connect");
        let got: Result<GetResponse, _> = client.call("Get", &big_request()).await;
        assert!(got.is_err(), "the silent server cannot answer");
        drop(client);
        // The connection's reading task, cancelled by the drop, lets go of its half of the
        // socket the next time the runtime runs it: the socket closes then.
        tokio::time::sleep(Duration::from_millis(50)).await;
    });
    assert_eq!(
        server.join().expect("server"),
        std::io::ErrorKind::ConnectionReset
    );
}

#[test]
fn a_connection_closed_in_good_order_ends_cleanly() {
    let (addr, server) = silent_server();
    let client = RpcClient::connect(addr, "ClientService").expect("connect");
    drop(client);
    assert_eq!(
        server.join().expect("server"),
        std::io::ErrorKind::UnexpectedEof
    );
}
