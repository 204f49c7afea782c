//! TLS on the native RPC port: clients verify the server, a client certificate names the user
//! (through the principal rules), SIMPLE users are believed only when allowed, and every
//! wrong way in (plaintext, an untrusted server or client, no certificate) fails cleanly.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::Path;
use std::sync::Arc;

use basalt_common::acl::{Actions, Permission, PrincipalRules, Scope};
use basalt_embedded::remote::{AsyncConnection, RemoteConfig, RemoteConnection, TlsClient};
use basalt_embedded::{ColumnFamilyDescriptor, Connection, Get, Put, TableDescriptor, TableName};
use basalt_net::tls::testing::{TestCa, TestFiles};
use basalt_net::tls::{ClientAuth, Identity, server_config};
use basalt_rpc::{RpcConfig, RpcServer, RpcTls};

struct Fixture {
    conn: Connection,
    server: RpcServer,
    ca: TestCa,
    files: TestFiles,
    dir: tempfile::TempDir,
}

/// A server with access control (superuser `admin`), table `t` (family `f`, one row), and
/// TLS asking for client certificates (`auth`), believing SIMPLE users when `simple`.
fn start(auth: ClientAuth, simple: bool, plaintext: bool, rules: &[&str]) -> Fixture {
    let conn = Connection::builder()
        .authorization(vec!["admin".into()])
        .build();
    conn.admin()
        .create_table(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
        )
        .unwrap();
    conn.table("t")
        .unwrap()
        .put(&Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let files = ca.write_files(dir.path());
    let config = server_config(
        Identity::load(&files.server_cert, Some(&files.server_key)).unwrap(),
        Some(&files.ca_cert),
        auth,
    )
    .unwrap();
    let server = conn
        .serve_rpc(RpcConfig {
            bind: ([127, 0, 0, 1], 0).into(),
            tls: Some(RpcTls {
                config,
                plaintext,
                users: PrincipalRules::parse(rules).unwrap(),
            }),
            simple_auth: simple,
            ..RpcConfig::default()
        })
        .unwrap();
    Fixture {
        conn,
        server,
        ca,
        files,
        dir,
    }
}

impl Fixture {
    fn grant_read(&self, who: &str) {
        self.conn
            .admin()
            .grant(
                Permission {
                    principal: who.into(),
                    scope: Scope::table(&TableName::parse("t").unwrap()),
                    actions: Actions::parse("R").unwrap(),
                },
                false,
            )
            .unwrap();
    }

    /// A client trusting `ca_file`, showing a certificate for `cn` (made by `self.ca`) if
    /// given, naming `user` in its header.
    fn client(&self, ca_file: &Path, cn: Option<&str>, user: &str) -> RemoteConfig {
        let identity = cn.map(|cn| {
            let (cert, key) = self.ca.write_client(self.dir.path(), cn);
            Identity::load(&cert, Some(&key)).unwrap()
        });
        RemoteConfig {
            user: user.into(),
            tls: Some(TlsClient::new(ca_file, identity).unwrap()),
            operation_timeout: std::time::Duration::from_secs(5),
            ..RemoteConfig::default()
        }
    }

    /// Reads the row through the blocking client, and through the async one, which must
    /// come to the same: the same value, or errors of the same kind.
    fn read(&self, config: RemoteConfig) -> basalt_embedded::Result<Vec<u8>> {
        let value = |row: basalt_embedded::RowResult| {
            row.value(b"f", b"q")
                .map(|v| v.to_vec())
                .unwrap_or_default()
        };
        let blocking = (|| -> basalt_embedded::Result<Vec<u8>> {
            let remote = Arc::new(RemoteConnection::connect(
                self.server.local_addr(),
                config.clone(),
            )?);
            Ok(value(remote.table("t")?.get(&Get::new("r"))?))
        })();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let asynchronous: basalt_embedded::Result<Vec<u8>> = runtime.block_on(async {
            let remote = AsyncConnection::connect(self.server.local_addr(), config).await?;
            Ok(value(remote.table("t")?.get(&Get::new("r")).await?))
        });
        match (&blocking, &asynchronous) {
            (Ok(a), Ok(b)) => assert_eq!(a, b),
            (Err(a), Err(b)) => {
                assert_eq!(a.java_class(), b.java_class(), "{a} / {b}");
                // The reason a connection was refused is the same (TLS, or the server's).
                for why in ["TLS handshake failed", "FatalConnectionException", "'bob'"] {
                    assert_eq!(
                        a.to_string().contains(why),
                        b.to_string().contains(why),
                        "{a} / {b}"
                    );
                }
            }
            _ => panic!("blocking {blocking:?}, async {asynchronous:?}"),
        }
        blocking
    }
}

fn denied(r: basalt_embedded::Result<Vec<u8>>) -> String {
    let e = r.expect_err("should be refused");
    assert_eq!(
        e.java_class(),
        "org.apache.hadoop.hbase.security.AccessDeniedException",
        "{e}"
    );
    e.to_string()
}

#[test]
fn a_client_certificate_names_the_user() {
    let f = start(ClientAuth::Need, false, false, &[]);
    f.grant_read("alice");
    assert_eq!(
        f.read(f.client(&f.files.ca_cert, Some("alice"), "basalt"))
            .unwrap(),
        b"v"
    );
    // The header's name is not believed: bob's certificate makes him bob, whatever he says.
    let e = denied(f.read(f.client(&f.files.ca_cert, Some("bob"), "alice")));
    assert!(e.contains("'bob'"), "{e}");
    // A grant made now counts on the next connection and call, without a restart.
    f.grant_read("bob");
    assert_eq!(
        f.read(f.client(&f.files.ca_cert, Some("bob"), "alice"))
            .unwrap(),
        b"v"
    );
}

#[test]
fn principal_rules_map_certificate_names() {
    let f = start(
        ClientAuth::Need,
        false,
        false,
        &[r"RULE:^(.*)@example\.com$/$1/L"],
    );
    f.grant_read("alice");
    assert_eq!(
        f.read(f.client(&f.files.ca_cert, Some("Alice@example.com"), "x"))
            .unwrap(),
        b"v"
    );
    // A name no rule maps is refused at the door, naming it.
    let e = denied(f.read(f.client(&f.files.ca_cert, Some("alice"), "x")));
    assert!(e.contains("no principal rule maps"), "{e}");
}

#[test]
fn simple_users_are_believed_only_when_allowed() {
    // Client certificates wanted, SIMPLE refused: a client without a certificate is refused.
    let f = start(ClientAuth::Want, false, false, &[]);
    f.grant_read("alice");
    let e = denied(f.read(f.client(&f.files.ca_cert, None, "alice")));
    assert!(e.contains("authentication is required"), "{e}");
    // With SIMPLE allowed, the header's name is the user.
    let f = start(ClientAuth::Want, true, false, &[]);
    f.grant_read("alice");
    assert_eq!(
        f.read(f.client(&f.files.ca_cert, None, "alice")).unwrap(),
        b"v"
    );
    denied(f.read(f.client(&f.files.ca_cert, None, "bob")));
}

#[test]
fn wrong_or_missing_certificates_are_refused() {
    let f = start(ClientAuth::Need, true, false, &[]);
    f.grant_read("alice");
    // A client that does not trust the server's certificate (another CA) stops at the
    // handshake, and says so.
    let other = TestCa::new();
    let other_dir = tempfile::tempdir().unwrap();
    let other_files = other.write_files(other_dir.path());
    let e = f
        .read(f.client(&other_files.ca_cert, Some("alice"), "alice"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("TLS handshake failed"), "{e}");
    // A client certificate from a CA the server does not trust is refused.
    let (cert, key) = other.write_client(other_dir.path(), "alice");
    let config = RemoteConfig {
        tls: Some(
            TlsClient::new(
                &f.files.ca_cert,
                Some(Identity::load(&cert, Some(&key)).unwrap()),
            )
            .unwrap(),
        ),
        operation_timeout: std::time::Duration::from_secs(3),
        ..RemoteConfig::default()
    };
    assert!(f.read(config).is_err());
    // No certificate where one is needed: refused, however SIMPLE is set.
    assert!(f.read(f.client(&f.files.ca_cert, None, "alice")).is_err());
    // A server that is not who the client expects (another name) is refused.
    let wrong_name = RemoteConfig {
        tls: Some(
            TlsClient::new(&f.files.ca_cert, None)
                .unwrap()
                .with_server_name("elsewhere.example")
                .unwrap(),
        ),
        operation_timeout: std::time::Duration::from_secs(3),
        ..RemoteConfig::default()
    };
    let e = f.read(wrong_name).unwrap_err().to_string();
    assert!(e.contains("TLS handshake failed"), "{e}");
}

#[test]
fn a_plaintext_client_gets_a_clean_error() {
    let f = start(ClientAuth::Want, true, false, &[]);
    let plain = RemoteConfig {
        operation_timeout: std::time::Duration::from_secs(5),
        ..RemoteConfig::default()
    };
    let e = f.read(plain).unwrap_err().to_string();
    assert!(
        e.contains("FatalConnectionException: this server accepts TLS connections only"),
        "{e}"
    );
    // Asked for, plaintext is served beside TLS.
    let f = start(ClientAuth::Want, true, true, &[]);
    f.grant_read("basalt");
    assert_eq!(f.read(RemoteConfig::default()).unwrap(), b"v");
    assert_eq!(
        f.read(f.client(&f.files.ca_cert, None, "basalt")).unwrap(),
        b"v"
    );
}
