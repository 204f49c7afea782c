//! The REST gateway over TLS: a client that trusts the server's certificate gets answers; one
//! that does not, and a plaintext client, get a refused handshake, not data.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use basalt_embedded::{Client, Connection};
use basalt_net::http::rustls::{self, pki_types::ServerName};
use basalt_rest::{RestConfig, RestServer};

struct Tls {
    server: RestServer,
    ca: rustls::pki_types::CertificateDer<'static>,
    _dir: tempfile::TempDir,
}

fn start() -> Tls {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert.cert.pem()).unwrap();
    std::fs::write(&key_path, cert.signing_key.serialize_pem()).unwrap();
    let tls = basalt_net::http::tls_config(&cert_path, &key_path).unwrap();
    let conn: Arc<dyn Client> = Arc::new(Connection::in_memory());
    let server = RestServer::start(
        conn,
        RestConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: Some(tls),
            ..RestConfig::default()
        },
    )
    .unwrap();
    Tls {
        server,
        ca: cert.cert.der().clone(),
        _dir: dir,
    }
}

use basalt_net::tls::testing::client_config as client;

/// GET `/version/cluster` over TLS: the response, or the error.
fn get(addr: SocketAddr, config: Arc<rustls::ClientConfig>) -> std::io::Result<String> {
    let tcp = TcpStream::connect(addr)?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    let conn =
        rustls::ClientConnection::new(config, ServerName::try_from("localhost").unwrap()).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(
        b"GET /version/cluster HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    )?;
    let mut out = Vec::new();
    match tls.read_to_end(&mut out) {
        Ok(_) => {}
        // The server may close without close_notify once it has answered.
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof && !out.is_empty() => {}
        Err(e) => return Err(e),
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[test]
fn a_client_that_trusts_the_certificate_is_answered() {
    let t = start();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(t.ca.clone()).unwrap();
    let answer = get(t.server.local_addr(), client(roots)).unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains(basalt_embedded::HBASE_VERSION), "{answer}");
    t.server.shutdown();
}

#[test]
fn untrusted_and_plaintext_clients_are_refused() {
    let t = start();
    let addr = t.server.local_addr();
    // A client that does not trust the certificate fails its handshake.
    let err = get(addr, client(rustls::RootCertStore::empty())).expect_err("refused");
    assert!(
        err.to_string().to_lowercase().contains("certificate"),
        "{err}"
    );
    // A plaintext request gets no HTTP answer: the connection is dropped.
    let mut plain = TcpStream::connect(addr).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    plain
        .write_all(b"GET /version/cluster HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut out = Vec::new();
    let _ = plain.read_to_end(&mut out);
    assert!(
        !String::from_utf8_lossy(&out).contains("HTTP/1.1 200"),
        "{out:?}"
    );
    // The server still serves trusting clients afterwards.
    let mut roots = rustls::RootCertStore::empty();
    roots.add(t.ca.clone()).unwrap();
    assert!(
        get(addr, client(roots))
            .unwrap()
            .starts_with("HTTP/1.1 200")
    );
    t.server.shutdown();
}
