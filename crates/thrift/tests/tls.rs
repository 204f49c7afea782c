//! The Thrift1 gateway over TLS (HBase's `--ssl`): a client that trusts the server's
//! certificate makes calls; one that does not is refused at the handshake, and a plaintext
//! client gets no answer.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::{BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use basalt_embedded::{Client, ColumnFamilyDescriptor, Connection, TableDescriptor};
use basalt_net::http::rustls::{self, pki_types::ServerName};
use basalt_thrift::protocol::{CALL, Protocol, Reader, Value, Writer};
use basalt_thrift::{ThriftConfig, ThriftServer};

fn start() -> (
    ThriftServer,
    rustls::pki_types::CertificateDer<'static>,
    tempfile::TempDir,
) {
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (c, k) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&c, cert.cert.pem()).unwrap();
    std::fs::write(&k, cert.signing_key.serialize_pem()).unwrap();
    let conn = Connection::in_memory();
    conn.admin()
        .create_table(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
        )
        .unwrap();
    let server = ThriftServer::start(
        Arc::new(conn) as Arc<dyn Client>,
        ThriftConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            tls: Some(basalt_net::http::tls_config(&c, &k).unwrap()),
            ..ThriftConfig::default()
        },
    )
    .unwrap();
    (server, cert.cert.der().clone(), dir)
}

use basalt_net::tls::testing::client_config as client;

/// `getTableNames` over TLS (buffered, binary): the names, or the error.
fn table_names(
    addr: SocketAddr,
    config: Arc<rustls::ClientConfig>,
) -> Result<Vec<Vec<u8>>, String> {
    let tcp = TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let session =
        rustls::ClientConnection::new(config, ServerName::try_from("localhost").unwrap()).unwrap();
    let mut tls = rustls::StreamOwned::new(session, tcp);
    let mut w = Writer::new(Protocol::Binary);
    w.message_begin("getTableNames", CALL, 1);
    w.struct_begin();
    w.struct_end();
    tls.write_all(&w.buf).map_err(|e| e.to_string())?;
    let mut r = Reader::new(BufReader::new(tls), Protocol::Binary, 1 << 20);
    r.message_begin().map_err(|e| e.to_string())?;
    let result = r.read_struct().map_err(|e| e.to_string())?;
    match result.get(0) {
        Some(Value::List(names)) => Ok(names
            .iter()
            .map(|n| match n {
                Value::Binary(b) => b.clone(),
                other => panic!("a name: {other:?}"),
            })
            .collect()),
        other => Err(format!("no names: {other:?}")),
    }
}

#[test]
fn a_trusting_client_is_served_and_others_are_refused() {
    let (server, ca, _dir) = start();
    let addr = server.local_addr();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca).unwrap();
    assert_eq!(
        table_names(addr, client(roots.clone())).unwrap(),
        [b"t".to_vec()]
    );
    // A client that does not trust the certificate: refused at the handshake.
    let err = table_names(addr, client(rustls::RootCertStore::empty())).unwrap_err();
    assert!(err.to_lowercase().contains("certificate"), "{err}");
    // A plaintext call gets no Thrift answer.
    let mut plain = TcpStream::connect(addr).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut w = Writer::new(Protocol::Binary);
    w.message_begin("getTableNames", CALL, 1);
    w.struct_begin();
    w.struct_end();
    plain.write_all(&w.buf).unwrap();
    let mut out = Vec::new();
    let _ = plain.read_to_end(&mut out);
    assert!(!out.windows(13).any(|x| x == b"getTableNames"), "{out:?}");
    // And the server goes on serving trusting clients.
    assert_eq!(table_names(addr, client(roots)).unwrap(), [b"t".to_vec()]);
    server.shutdown();
}
