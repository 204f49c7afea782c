//! Certificates for tests, made on the spot (never committed keys): a CA, a server
//! certificate for `localhost` and 127.0.0.1, client certificates with a chosen common name,
//! and a second CA that nobody trusts.
#![allow(clippy::unwrap_used, reason = "test support fails loudly")]

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

/// A certificate and its key, PEM and DER.
#[derive(Debug)]
pub struct Issued {
    pub cert_pem: String,
    pub key_pem: String,
    pub cert_der: Vec<u8>,
}

/// A test certificate authority.
#[derive(Debug)]
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

/// The files of [`TestCa::write_files`].
#[derive(Debug, Clone)]
pub struct TestFiles {
    pub ca_cert: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
}

impl Default for TestCa {
    fn default() -> Self {
        Self::new()
    }
}

impl TestCa {
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "basalt test CA");
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        TestCa {
            issuer: CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap(),
        }
    }

    pub fn cert_pem(&self) -> String {
        self.issuer.pem()
    }

    fn issue(&self, cn: &str, names: &[&str], usages: Vec<ExtendedKeyUsagePurpose>) -> Issued {
        let mut params =
            CertificateParams::new(names.iter().map(|n| (*n).to_owned()).collect::<Vec<_>>())
                .unwrap();
        params.distinguished_name.push(DnType::CommonName, cn);
        params.extended_key_usages = usages;
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Issued {
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
            cert_der: cert.der().to_vec(),
        }
    }

    /// A server certificate for `localhost` and 127.0.0.1, CN `basalt-server`, usable as a
    /// client certificate too (servers of a cluster call each other).
    pub fn server(&self) -> Issued {
        self.issue(
            "basalt-server",
            &["localhost", "127.0.0.1"],
            vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ],
        )
    }

    /// A client certificate whose subject's common name is `cn`.
    pub fn client(&self, cn: &str) -> Issued {
        self.issue(cn, &[], vec![ExtendedKeyUsagePurpose::ClientAuth])
    }

    /// Writes `ca.pem`, `server.pem` and `server.key` into `dir`.
    pub fn write_files(&self, dir: &Path) -> TestFiles {
        let files = TestFiles {
            ca_cert: dir.join("ca.pem"),
            server_cert: dir.join("server.pem"),
            server_key: dir.join("server.key"),
        };
        let server = self.server();
        std::fs::write(&files.ca_cert, self.cert_pem()).unwrap();
        std::fs::write(&files.server_cert, server.cert_pem).unwrap();
        std::fs::write(&files.server_key, server.key_pem).unwrap();
        files
    }

    /// Writes a client certificate for `cn` into `dir`: (`cn.pem`, `cn.key`).
    pub fn write_client(&self, dir: &Path, cn: &str) -> (PathBuf, PathBuf) {
        let issued = self.client(cn);
        let (cert, key) = (dir.join(format!("{cn}.pem")), dir.join(format!("{cn}.key")));
        std::fs::write(&cert, issued.cert_pem).unwrap();
        std::fs::write(&key, issued.key_pem).unwrap();
        (cert, key)
    }
}

/// A client configuration trusting `roots`, without a client certificate: for tests that
/// speak TLS to a server themselves (HTTP, Thrift).
pub fn client_config(roots: rustls::RootCertStore) -> std::sync::Arc<rustls::ClientConfig> {
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    std::sync::Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    )
}
