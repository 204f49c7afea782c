//! TLS for Basalt's sockets (rustls, ring): configurations from PEM files, and a session that
//! blocking threads share. Without the `tls` feature (no rustls, no ring, no C compiler), only
//! plain sockets: [`Wire`] and [`WireReader`] have their plain variant alone, and
//! [`TlsClient`] has no values.
//!
//! The native RPC reads a connection on one thread while other threads (handlers, callers)
//! write to it. A rustls session is one state machine for both directions, so [`Wire`] keeps
//! it behind a lock: the reader ([`WireReader`]) reads ciphertext from the socket without the
//! lock and takes it only to decrypt; a writer takes it to encrypt and write. Over a plain
//! socket both are the socket itself.

use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpStream};
#[cfg(feature = "tls")]
use std::path::Path;
#[cfg(feature = "tls")]
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

#[cfg(feature = "tls")]
use rustls::pki_types::pem::PemObject;
#[cfg(feature = "tls")]
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};

#[cfg(feature = "tls")]
pub use rustls;

/// Whether a server asks its clients for certificates (HBase's
/// `hbase.server.netty.tls.client.auth.mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// No client certificate is asked for.
    None,
    /// A certificate is asked for; a client without one is served (and authenticated some
    /// other way).
    Want,
    /// A client without a trusted certificate is refused in the handshake.
    Need,
}

impl std::str::FromStr for ClientAuth {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_uppercase().as_str() {
            "NONE" => Ok(ClientAuth::None),
            "WANT" => Ok(ClientAuth::Want),
            "NEED" => Ok(ClientAuth::Need),
            _ => Err(format!("client auth must be NONE, WANT or NEED, not {s:?}")),
        }
    }
}

/// A TLS failure: a handshake that failed, an alert from the peer, a record that does not
/// decrypt. (Retrying would meet it again, unlike a dropped connection.)
#[derive(Debug)]
struct TlsFailure(String);

impl std::fmt::Display for TlsFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TlsFailure {}

#[cfg(feature = "tls")]
fn tls_failure(kind: io::ErrorKind, what: String) -> io::Error {
    io::Error::new(kind, TlsFailure(what))
}

/// Whether `e` is a TLS failure rather than the connection's plain I/O failing.
pub fn is_tls_failure(e: &io::Error) -> bool {
    // rustls' own errors come through tokio-rustls as they are.
    e.get_ref().is_some_and(|inner| {
        #[cfg(feature = "tls")]
        if inner.is::<rustls::Error>() {
            return true;
        }
        inner.is::<TlsFailure>()
    })
}

#[cfg(feature = "tls")]
fn bad(path: &Path, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{}: {what}", path.display()),
    )
}

#[cfg(feature = "tls")]
fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

#[cfg(feature = "tls")]
/// The certificates of a PEM file, in order.
fn certificates(path: &Path) -> io::Result<Vec<CertificateDer<'static>>> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(path, &format!("cannot read certificates ({e})")))?
        .collect::<Result<_, _>>()
        .map_err(|e| bad(path, &format!("not a PEM certificate file ({e})")))?;
    if certs.is_empty() {
        return Err(bad(path, "holds no certificate"));
    }
    Ok(certs)
}

#[cfg(feature = "tls")]
/// A certificate chain and its private key: `cert` holds the chain (its own certificate
/// first), and `key` the key; without `key`, the key is looked for in `cert` (one PEM file
/// with both, as HBase's PEM keystore).
#[derive(Debug)]
pub struct Identity {
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

#[cfg(feature = "tls")]
impl Identity {
    pub fn load(cert: &Path, key: Option<&Path>) -> io::Result<Identity> {
        let certs = certificates(cert)?;
        let key_file = key.unwrap_or(cert);
        let key = PrivateKeyDer::from_pem_file(key_file).map_err(|e| {
            bad(
                key_file,
                &if key.is_some() {
                    format!("not a PEM private key ({e})")
                } else {
                    format!("holds no PEM private key beside its certificates ({e})")
                },
            )
        })?;
        Ok(Identity { certs, key })
    }
}

#[cfg(feature = "tls")]
/// The certificate authorities a PEM file names, to verify peers against.
fn roots(ca: &Path) -> io::Result<rustls::RootCertStore> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in certificates(ca)? {
        roots
            .add(cert)
            .map_err(|e| bad(ca, &format!("not a usable CA certificate ({e})")))?;
    }
    Ok(roots)
}

#[cfg(feature = "tls")]
/// A TLS server configuration: the server's identity, and, unless `client_auth` is
/// [`ClientAuth::None`], the authorities whose client certificates it trusts (`ca`).
pub fn server_config(
    identity: Identity,
    ca: Option<&Path>,
    client_auth: ClientAuth,
) -> io::Result<Arc<rustls::ServerConfig>> {
    let builder = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| io::Error::other(format!("TLS: {e}")))?;
    let builder = match (client_auth, ca) {
        (ClientAuth::None, _) => builder.with_no_client_auth(),
        (_, None) => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "client certificates are asked for, but no CA file says whose to trust",
            ));
        }
        (auth, Some(ca)) => {
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots(ca)?),
                provider(),
            );
            let verifier = if auth == ClientAuth::Want {
                verifier.allow_unauthenticated()
            } else {
                verifier
            };
            builder.with_client_cert_verifier(
                verifier
                    .build()
                    .map_err(|e| bad(ca, &format!("cannot verify clients with it ({e})")))?,
            )
        }
    };
    let config = builder
        .with_single_cert(identity.certs, identity.key)
        .map_err(|e| io::Error::other(format!("the certificate does not go with its key ({e})")))?;
    Ok(Arc::new(config))
}

#[cfg(feature = "tls")]
/// A TLS server configuration from PEM files, with no client certificates: the certificate
/// chain (the server's first) and its private key. Errors name the file and what was wrong.
pub fn tls_config(cert: &Path, key: &Path) -> io::Result<Arc<rustls::ServerConfig>> {
    server_config(Identity::load(cert, Some(key))?, None, ClientAuth::None)
}

#[cfg(feature = "tls")]
/// How a client reaches TLS servers: whom it trusts, what it shows, which name it expects.
#[derive(Debug, Clone)]
pub struct TlsClient {
    config: Arc<rustls::ClientConfig>,
    /// The name the server's certificate must carry; None: the address connected to (the
    /// certificate then needs that IP address among its names).
    server_name: Option<ServerName<'static>>,
}

#[cfg(feature = "tls")]
impl TlsClient {
    /// Trusts the authorities in `ca` (PEM), and shows `identity` to servers that ask.
    pub fn new(ca: &Path, identity: Option<Identity>) -> io::Result<TlsClient> {
        let builder = rustls::ClientConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| io::Error::other(format!("TLS: {e}")))?
            .with_root_certificates(roots(ca)?);
        let config = match identity {
            None => builder.with_no_client_auth(),
            Some(id) => builder
                .with_client_auth_cert(id.certs, id.key)
                .map_err(|e| {
                    io::Error::other(format!("the certificate does not go with its key ({e})"))
                })?,
        };
        Ok(TlsClient {
            config: Arc::new(config),
            server_name: None,
        })
    }

    /// Expects servers' certificates to name `name` (a host name or an IP address).
    pub fn with_server_name(mut self, name: &str) -> io::Result<TlsClient> {
        let name = ServerName::try_from(name.to_owned()).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bad TLS server name {name:?}: {e}"),
            )
        })?;
        self.server_name = Some(name);
        Ok(self)
    }

    /// Starts TLS on a connected socket and completes the handshake within `timeout`.
    pub fn connect(&self, stream: TcpStream, timeout: Duration) -> io::Result<(Wire, WireReader)> {
        let name = match &self.server_name {
            Some(n) => n.clone(),
            None => ServerName::IpAddress(stream.peer_addr()?.ip().into()),
        };
        let session = rustls::ClientConnection::new(Arc::clone(&self.config), name)
            .map_err(|e| io::Error::other(format!("TLS: {e}")))?;
        Wire::handshake(session.into(), stream, timeout)
    }

    /// Starts TLS on a socket connected on tokio and completes the handshake (the caller
    /// bounds how long it may take).
    #[cfg(feature = "tokio-tls")]
    pub async fn connect_async(
        &self,
        stream: tokio::net::TcpStream,
    ) -> io::Result<tokio_rustls::client::TlsStream<tokio::net::TcpStream>> {
        let name = match &self.server_name {
            Some(n) => n.clone(),
            None => ServerName::IpAddress(stream.peer_addr()?.ip().into()),
        };
        tokio_rustls::TlsConnector::from(Arc::clone(&self.config))
            .connect(name, stream)
            .await
            .map_err(|e| tls_failure(e.kind(), format!("TLS handshake failed: {e}")))
    }
}

/// No TLS in this build (`basalt-net` without its `tls` feature): no value of this type
/// exists, so a configuration can never ask for TLS.
#[cfg(not(feature = "tls"))]
#[derive(Debug, Clone)]
pub enum TlsClient {}

#[cfg(not(feature = "tls"))]
impl TlsClient {
    /// Never called: there is no `TlsClient` without the `tls` feature.
    pub fn connect(&self, _: TcpStream, _: Duration) -> io::Result<(Wire, WireReader)> {
        match *self {}
    }
}

/// The writing side of a connection, plain or TLS; threads share it (`&self`).
#[derive(Debug)]
pub enum Wire {
    /// A plain socket (one descriptor, shared with its reader).
    Plain(Arc<TcpStream>),
    /// A TLS session over a socket.
    #[cfg(feature = "tls")]
    Tls(Arc<Session>),
}

/// The reading side of a [`Wire`]: one reader at a time.
#[derive(Debug)]
pub enum WireReader {
    /// A plain socket.
    Plain(Arc<TcpStream>),
    /// A TLS session's plaintext.
    #[cfg(feature = "tls")]
    Tls(SessionReader),
}

#[cfg(feature = "tls")]
/// A TLS session over a socket.
#[derive(Debug)]
pub struct Session {
    state: Mutex<rustls::Connection>,
    socket: TcpStream,
}

#[cfg(feature = "tls")]
/// Reads a [`Session`]'s plaintext.
#[derive(Debug)]
pub struct SessionReader {
    session: Arc<Session>,
    /// Ciphertext read from the socket and not yet given to the session.
    raw: Vec<u8>,
    at: usize,
}

impl Wire {
    /// A plain socket's two sides.
    pub fn plain(stream: TcpStream) -> io::Result<(Wire, WireReader)> {
        let stream = Arc::new(stream);
        Ok((Wire::Plain(Arc::clone(&stream)), WireReader::Plain(stream)))
    }

    #[cfg(feature = "tls")]
    /// A server's side of a TLS connection, the handshake completed within `timeout`.
    pub fn accept(
        config: &Arc<rustls::ServerConfig>,
        stream: TcpStream,
        timeout: Duration,
    ) -> io::Result<(Wire, WireReader)> {
        let session = rustls::ServerConnection::new(Arc::clone(config))
            .map_err(|e| io::Error::other(format!("TLS: {e}")))?;
        Self::handshake(session.into(), stream, timeout)
    }

    #[cfg(feature = "tls")]
    fn handshake(
        mut session: rustls::Connection,
        mut stream: TcpStream,
        timeout: Duration,
    ) -> io::Result<(Wire, WireReader)> {
        let (read_timeout, write_timeout) = (stream.read_timeout()?, stream.write_timeout()?);
        stream.set_read_timeout(Some(timeout))?;
        stream.set_write_timeout(Some(timeout))?;
        let deadline = std::time::Instant::now() + timeout;
        while session.is_handshaking() {
            if std::time::Instant::now() > deadline {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "the TLS handshake did not finish in time",
                ));
            }
            if let Err(e) = session.complete_io(&mut stream) {
                if e.kind() == io::ErrorKind::InvalidData {
                    // The peer should hear why (rustls queued an alert), and see it before
                    // the connection ends.
                    while session.wants_write() && session.write_tls(&mut stream).is_ok() {}
                    linger(&stream);
                }
                return Err(tls_failure(e.kind(), format!("TLS handshake failed: {e}")));
            }
        }
        // What the handshake left to send (a TLS 1.3 server's session tickets).
        while session.wants_write() {
            session.write_tls(&mut stream)?;
        }
        stream.set_read_timeout(read_timeout)?;
        stream.set_write_timeout(write_timeout)?;
        let session = Arc::new(Session {
            state: Mutex::new(session),
            socket: stream,
        });
        Ok((
            Wire::Tls(Arc::clone(&session)),
            WireReader::Tls(SessionReader {
                session,
                raw: Vec::new(),
                at: 0,
            }),
        ))
    }

    /// The socket underneath (for timeouts, shutting down, peeking).
    pub fn socket(&self) -> &TcpStream {
        match self {
            Wire::Plain(s) => s,
            #[cfg(feature = "tls")]
            Wire::Tls(session) => &session.socket,
        }
    }

    /// Writes all of `data` (encrypted, over TLS).
    pub fn write_all(&self, data: &[u8]) -> io::Result<()> {
        match self {
            Wire::Plain(s) => (&**s).write_all(data),
            #[cfg(feature = "tls")]
            Wire::Tls(session) => session.write_all(data),
        }
    }

    /// Closes both directions; a blocked read on the other side ends.
    pub fn shutdown(&self) {
        let _ = self.socket().shutdown(Shutdown::Both);
    }

    /// Abandons the connection: what it has not sent yet is discarded, not delivered later
    /// (the socket closes with a reset), and reading ends. A client gives up on a
    /// connection this way after a call timed out on it: a request still queued in the
    /// kernel would otherwise reach the server whenever the network lets it, perhaps after
    /// the client retried it elsewhere and went on (a put applied twice, the second time
    /// over later writes; found by the fault campaign, issue 45).
    pub fn abort(&self) {
        abort(self.socket());
    }

    #[cfg(feature = "tls")]
    /// The peer's certificate (its own, first in its chain), if it showed one over TLS.
    pub fn peer_certificate(&self) -> Option<CertificateDer<'static>> {
        match self {
            Wire::Plain(_) => None,
            Wire::Tls(session) => session
                .lock()
                .peer_certificates()
                .and_then(|c| c.first())
                .cloned(),
        }
    }

    /// Whether the connection is TLS.
    pub fn is_tls(&self) -> bool {
        #[cfg(feature = "tls")]
        return matches!(self, Wire::Tls(_));
        #[cfg(not(feature = "tls"))]
        false
    }
}

#[cfg(feature = "tls")]
impl Session {
    fn lock(&self) -> MutexGuard<'_, rustls::Connection> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn write_all(&self, mut data: &[u8]) -> io::Result<()> {
        let mut state = self.lock();
        while !data.is_empty() {
            let n = state.writer().write(data)?;
            data = &data[n..];
            while state.wants_write() {
                state.write_tls(&mut &self.socket)?;
            }
        }
        Ok(())
    }
}

impl WireReader {
    /// The socket underneath, whose readability says bytes have come.
    pub fn socket(&self) -> &TcpStream {
        match self {
            WireReader::Plain(s) => s,
            #[cfg(feature = "tls")]
            WireReader::Tls(r) => &r.session.socket,
        }
    }
}

impl Read for WireReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            WireReader::Plain(s) => (&**s).read(buf),
            #[cfg(feature = "tls")]
            WireReader::Tls(r) => r.read(buf),
        }
    }
}

#[cfg(feature = "tls")]
impl Read for SessionReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            {
                let mut state = self.session.lock();
                match state.reader().read(buf) {
                    Ok(n) => return Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                    Err(e) => return Err(e),
                }
                if self.at < self.raw.len() {
                    let mut rest = &self.raw[self.at..];
                    let taken = state.read_tls(&mut rest)?;
                    self.at += taken;
                    let processed = state.process_new_packets();
                    // Whatever the session has to say (an alert, a key update's answer).
                    while state.wants_write() {
                        if state.write_tls(&mut &self.session.socket).is_err() {
                            break;
                        }
                    }
                    processed.map_err(|e| {
                        tls_failure(io::ErrorKind::InvalidData, format!("TLS: {e}"))
                    })?;
                    continue;
                }
            }
            // Nothing left to decrypt: wait for the socket, without the lock (writers go on).
            self.raw.resize(64 * 1024, 0);
            self.at = 0;
            let n = match (&self.session.socket).read(&mut self.raw) {
                Ok(n) => n,
                Err(e) => {
                    // Given back: a quiet connection (a read timed out) holds no buffer.
                    self.raw = Vec::new();
                    return Err(e);
                }
            };
            self.raw.truncate(n);
            if n == 0 {
                // The socket ended: a close_notify read before says it was a clean end.
                let mut state = self.session.lock();
                let _ = state.read_tls(&mut &[][..]);
                let _ = state.process_new_packets();
                return match state.reader().read(buf) {
                    Ok(n) => Ok(n),
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(0),
                    Err(e) => Err(e),
                };
            }
        }
    }
}

/// Abandons a connection (see [`Wire::abort`]): its unsent bytes are discarded when it
/// closes, which sends a reset (SO_LINGER 0), not a FIN after them; reading ends now (a blocked
/// reader wakes), writing is not shut, as that would queue the FIN behind the unsent bytes.
pub fn abort(stream: &TcpStream) {
    let _ = socket2::SockRef::from(stream).set_linger(Some(Duration::ZERO));
    let _ = stream.shutdown(Shutdown::Read);
}

/// Closes the sending side, then reads (and drops) what the peer still sends, for a second
/// at most: closing with its bytes unread would reset the connection, and the peer could lose
/// what was last written to it.
pub fn linger(stream: &TcpStream) {
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
    let deadline = std::time::Instant::now() + Duration::from_secs(1);
    let mut sink = [0u8; 4096];
    while std::time::Instant::now() < deadline {
        match (&*stream).read(&mut sink) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
}

#[cfg(feature = "tls")]
/// The common name (CN) of a certificate's subject, if it has one in a string form.
///
/// Reads just enough DER: Certificate ::= SEQUENCE { tbsCertificate SEQUENCE { [0] version
/// (optional), serialNumber, signature, issuer, validity, subject, ... } }; a Name is a
/// SEQUENCE of SETs of SEQUENCE { OID, value }; the CN's OID is 2.5.4.3.
pub fn common_name(cert: &CertificateDer<'_>) -> Option<String> {
    let (_, certificate, _) = der(cert.as_ref())?;
    let (_, mut tbs, _) = der(certificate)?;
    let mut field = 0;
    loop {
        let (tag, body, rest) = der(tbs)?;
        tbs = rest;
        // The explicit [0] version is not counted.
        if tag == 0xa0 {
            continue;
        }
        // serial, signature, issuer, validity, subject.
        if field == 4 {
            return name_cn(body);
        }
        field += 1;
    }
}

#[cfg(feature = "tls")]
const CN_OID: &[u8] = &[0x55, 0x04, 0x03];

#[cfg(feature = "tls")]
fn name_cn(mut name: &[u8]) -> Option<String> {
    while !name.is_empty() {
        let (_, mut set, rest) = der(name)?;
        name = rest;
        while !set.is_empty() {
            let (_, attribute, rest) = der(set)?;
            set = rest;
            let (oid_tag, oid, value) = der(attribute)?;
            if oid_tag != 0x06 || oid != CN_OID {
                continue;
            }
            let (kind, value, _) = der(value)?;
            return match kind {
                // UTF8String, PrintableString, IA5String, TeletexString (read as Latin-1).
                0x0c | 0x13 | 0x16 => String::from_utf8(value.to_vec()).ok(),
                0x14 => Some(value.iter().map(|&b| char::from(b)).collect()),
                // BMPString: UTF-16 big-endian.
                0x1e => {
                    let units: Vec<u16> = value
                        .chunks_exact(2)
                        .map(|c| u16::from_be_bytes([c[0], c[1]]))
                        .collect();
                    String::from_utf16(&units).ok()
                }
                _ => None,
            };
        }
    }
    None
}

#[cfg(feature = "tls")]
/// One DER element: its tag, its contents, and what follows it.
fn der(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, mut rest) = rest.split_first()?;
    let len = if first < 0x80 {
        usize::from(first)
    } else {
        let octets = usize::from(first & 0x7f);
        if octets == 0 || octets > 4 || rest.len() < octets {
            return None;
        }
        let mut len = 0usize;
        for &b in &rest[..octets] {
            len = (len << 8) | usize::from(b);
        }
        rest = &rest[octets..];
        len
    };
    if rest.len() < len {
        return None;
    }
    Some((tag, &rest[..len], &rest[len..]))
}

#[cfg(all(feature = "tls", any(test, feature = "test-certs")))]
pub mod testing;

#[cfg(all(test, feature = "tls"))]
mod tests {
    use super::*;

    #[test]
    fn common_names_are_read_from_certificates() {
        let ca = testing::TestCa::new();
        let alice = ca.client("alice");
        let cert = CertificateDer::from_pem_slice(alice.cert_pem.as_bytes()).expect("pem");
        assert_eq!(common_name(&cert).as_deref(), Some("alice"));
        let server = ca.server();
        let cert = CertificateDer::from_pem_slice(server.cert_pem.as_bytes()).expect("pem");
        assert_eq!(common_name(&cert).as_deref(), Some("basalt-server"));
        // Truncated or garbled DER is no name, never a panic.
        let der = ca.client("bob").cert_der;
        for cut in 0..der.len() {
            let _ = common_name(&CertificateDer::from(&der[..cut]));
        }
        assert_eq!(
            common_name(&CertificateDer::from(&b"\x30\x84\xff\xff"[..])),
            None
        );
    }

    /// Threads write through one session while another reads it: every message arrives
    /// whole, in each writer's order.
    #[test]
    fn a_session_is_shared_by_writers_and_a_reader() {
        let dir = tempfile::tempdir().expect("dir");
        let ca = testing::TestCa::new();
        let files = ca.write_files(dir.path());
        let server_config = server_config(
            Identity::load(&files.server_cert, Some(&files.server_key)).expect("identity"),
            None,
            ClientAuth::None,
        )
        .expect("server config");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let echo = std::thread::spawn(move || {
            let (stream, _) = listener.accept().expect("accept");
            let (wire, mut reader) =
                Wire::accept(&server_config, stream, Duration::from_secs(10)).expect("handshake");
            let mut buf = [0u8; 4096];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(n) => wire.write_all(&buf[..n]).expect("echo"),
                }
            }
        });
        let client = TlsClient::new(&files.ca_cert, None).expect("client");
        let stream = TcpStream::connect(addr).expect("connect");
        let (wire, mut reader) = client
            .connect(stream, Duration::from_secs(10))
            .expect("client handshake");
        let wire = Arc::new(wire);
        let writers: Vec<_> = (0..4u8)
            .map(|t| {
                let wire = Arc::clone(&wire);
                std::thread::spawn(move || {
                    for i in 0..200u32 {
                        let mut msg = vec![t; 1000];
                        msg[..4].copy_from_slice(&i.to_be_bytes());
                        wire.write_all(&msg).expect("write");
                    }
                })
            })
            .collect();
        let mut got = vec![0u8; 4 * 200 * 1000];
        reader.read_exact(&mut got).expect("read back");
        for w in writers {
            w.join().expect("writer");
        }
        let mut next = [0u32; 4];
        for msg in got.chunks(1000) {
            let t = usize::from(msg[4]);
            assert!(msg[4..].iter().all(|&b| usize::from(b) == t), "interleaved");
            assert_eq!(
                u32::from_be_bytes([msg[0], msg[1], msg[2], msg[3]]),
                next[t]
            );
            next[t] += 1;
        }
        wire.shutdown();
        echo.join().expect("echo thread");
    }
}
