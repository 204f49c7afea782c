//! The REST server holds at most `max_connections` connections: one more waits, unanswered,
//! until an open one closes, and is then served.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use basalt_embedded::{Client, Connection};
use basalt_rest::{RestConfig, RestServer};

fn get_version(s: &mut TcpStream) -> std::io::Result<String> {
    s.write_all(b"GET /version/cluster HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")?;
    let mut out = String::new();
    s.read_to_string(&mut out)?;
    Ok(out)
}

#[test]
fn connections_beyond_the_cap_wait_for_a_place() {
    let conn: Arc<dyn Client> = Arc::new(Connection::in_memory());
    let server = RestServer::start(
        conn,
        RestConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            max_connections: 2,
            ..RestConfig::default()
        },
    )
    .unwrap();
    let addr = server.local_addr();
    // Two idle connections take both places (each is answered, so each was accepted).
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(b"GET /version/cluster HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut buf = [0u8; 12];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"HTTP/1.1 200");
        held.push(s);
    }
    // A third is not accepted while they stay open.
    let mut third = TcpStream::connect(addr).unwrap();
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let waited = get_version(&mut third);
    assert!(
        waited.as_ref().map_or(true, String::is_empty),
        "served beyond the cap: {waited:?}"
    );
    // One closes: the third is served.
    held.pop();
    third
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut out = String::new();
    third.read_to_string(&mut out).unwrap();
    assert!(out.starts_with("HTTP/1.1 200"), "{out}");
    server.shutdown();
}
