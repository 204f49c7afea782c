//! Issue 32's matrix: one `basalt standalone` with access control, TLS on its RPC port and
//! client certificates required (SIMPLE off), reached through every interface (the native
//! RPC, the Thrift and REST gateways as processes of their own calling it as their
//! certificate's user, and the shell). For each interface and each class of operation (read,
//! write, delete, check-and-mutate, DDL, admin), the user granted it (`alice`) succeeds and
//! the user who was not (`bob`) gets AccessDenied, with nothing returned or changed. A grant
//! and a revoke take effect at once, through every interface. Wrong or missing certificates
//! and plaintext clients are refused with clean errors.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::io::{BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use basalt_common::acl::{Actions, Permission, Scope};
use basalt_embedded::remote::{RemoteConfig, RemoteConnection, TlsClient};
use basalt_embedded::{
    CheckAction, CheckAndMutate, ColumnFamilyDescriptor, Condition, Delete, Get, Put, Scan,
    TableDescriptor, TableName,
};
use basalt_net::tls::Identity;
use basalt_net::tls::testing::{TestCa, TestFiles};
use basalt_thrift::ThriftClient;
use basalt_thrift::protocol::TType;
use base64::Engine as _;
use support::{Server, basalt_with_input};

type Result<T> = std::result::Result<T, basalt_thrift::ClientError>;

const DENIED: &str = "AccessDeniedException";

/// A `basalt` gateway process, killed when dropped.
struct Gateway {
    child: std::process::Child,
    addr: SocketAddr,
}

impl Gateway {
    /// Starts `basalt KIND --connect RPC ...` as the user of `cn`'s certificate.
    fn start(kind: &str, rpc: &str, certs: &Certs, cn: &str) -> Gateway {
        let (cert, key) = certs.client(cn);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args([kind, "--connect", rpc, "--port", "0", "--rpc-tls-ca"])
            .arg(&certs.files.ca_cert)
            .arg("--rpc-tls-cert")
            .arg(&cert)
            .arg("--rpc-tls-key")
            .arg(&key)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        // A gateway's first line names its address (`rest listening on ADDR, serving ...`);
        // one that fails at start ends its output, and the test with it.
        let line = lines
            .next()
            .expect("the gateway prints its address")
            .unwrap();
        let marker = format!("{kind} listening on ");
        let addr = line
            .find(&marker)
            .and_then(|at| line[at + marker.len()..].split([' ', ',']).next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Gateway { child, addr }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The test CA's files, and client certificates made on demand.
struct Certs {
    ca: TestCa,
    files: TestFiles,
    dir: PathBuf,
}

impl Certs {
    fn client(&self, cn: &str) -> (PathBuf, PathBuf) {
        let (cert, key) = (
            self.dir.join(format!("{cn}.pem")),
            self.dir.join(format!("{cn}.key")),
        );
        if !cert.exists() {
            self.ca.write_client(&self.dir, cn);
        }
        (cert, key)
    }

    fn rpc(&self, server: &Server, cn: &str) -> Arc<RemoteConnection> {
        let (cert, key) = self.client(cn);
        let config = RemoteConfig {
            tls: Some(
                TlsClient::new(
                    &self.files.ca_cert,
                    Some(Identity::load(&cert, Some(&key)).unwrap()),
                )
                .unwrap(),
            ),
            operation_timeout: Duration::from_secs(10),
            ..RemoteConfig::default()
        };
        Arc::new(RemoteConnection::connect(server.rpc.parse().unwrap(), config).unwrap())
    }

    /// Runs a shell script as `cn`: whether every command succeeded, and what it printed.
    fn shell(&self, server: &Server, cn: &str, script: &str) -> (bool, String) {
        let (cert, key) = self.client(cn);
        let (ok, out, err) = basalt_with_input(
            &[
                "shell",
                "--connect",
                &server.rpc,
                "--tls-ca",
                path(&self.files.ca_cert),
                "--tls-cert",
                path(&cert),
                "--tls-key",
                path(&key),
                "-n",
            ],
            script,
        );
        (ok, format!("{out}{err}"))
    }
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn t() -> TableName {
    TableName::parse("t").unwrap()
}

fn grant(admin: &RemoteConnection, who: &str, scope: Scope, codes: &str) {
    admin
        .admin()
        .grant(
            &Permission {
                principal: who.into(),
                scope,
                actions: Actions::parse(codes).unwrap(),
            },
            false,
        )
        .unwrap();
}

/// The value of `t`'s `row` `f:q` as the superuser sees it.
fn value(admin: &RemoteConnection, row: &str, qualifier: &str) -> Option<Vec<u8>> {
    let got = admin
        .table("t")
        .unwrap()
        .get(&Get::new(row.as_bytes().to_vec()))
        .unwrap();
    got.value(b"f", qualifier.as_bytes()).map(<[u8]>::to_vec)
}

fn table_exists(admin: &RemoteConnection, name: &str) -> bool {
    admin
        .admin()
        .table_exists(&TableName::parse(name).unwrap())
        .unwrap()
}

fn denied<T: std::fmt::Debug>(r: basalt_embedded::Result<T>) {
    let e = r.expect_err("bob should be refused");
    assert!(e.java_class().ends_with(DENIED), "{e}");
    assert!(e.to_string().contains("'bob'"), "{e}");
}

/// One HTTP/1.1 request; the status and body.
fn http(addr: SocketAddr, method: &str, path: &str, ctype: &str, body: &[u8]) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nContent-Type: \
         {ctype}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).unwrap();
    let text = String::from_utf8_lossy(&out).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_owned();
    (status, body)
}

fn b64(b: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(b)
}

/// A REST CellSet of one row.
fn cells(row: &str, cells: &[(&str, &str)]) -> Vec<u8> {
    let cells: Vec<_> = cells
        .iter()
        .map(|(c, v)| serde_json::json!({"column": b64(c.as_bytes()), "$": b64(v.as_bytes())}))
        .collect();
    serde_json::json!({"Row": [{"key": b64(row.as_bytes()), "Cell": cells}]})
        .to_string()
        .into_bytes()
}

const JSON: &str = "application/json";

fn thrift_mutation(w: &mut basalt_thrift::protocol::Writer, column: &str, value: &str) {
    w.struct_begin();
    w.field_bool(1, false);
    w.field(2, TType::String);
    w.string(column);
    w.field(3, TType::String);
    w.string(value);
    w.field_bool(4, true);
    w.struct_end();
}

fn thrift_delete_row(c: &mut ThriftClient, row: &str) -> Result<()> {
    c.call("deleteAllRow", |w| {
        w.field(1, TType::String);
        w.string("t");
        w.field(2, TType::String);
        w.string(row);
    })
    .map(|_| ())
}

fn thrift_check_and_put(
    c: &mut ThriftClient,
    expect: &str,
    column: &str,
    value: &str,
) -> Result<Option<bool>> {
    c.call("checkAndPut", |w| {
        w.field(1, TType::String);
        w.string("t");
        w.field(2, TType::String);
        w.string("r1");
        w.field(3, TType::String);
        w.string("f:q");
        w.field(5, TType::String);
        w.string(expect);
        w.field(6, TType::Struct);
        thrift_mutation(w, column, value);
    })
    .map(|f| f.bool(0))
}

fn thrift_grant(c: &mut ThriftClient, user: &str) -> Result<()> {
    c.call("grant", |w| {
        w.field(1, TType::Struct);
        w.struct_begin();
        w.field(1, TType::String);
        w.string(user);
        w.field(2, TType::I32);
        w.i32(0);
        w.field(4, TType::String);
        w.string("R");
        w.field(5, TType::String);
        w.string("t");
        w.struct_end();
    })
    .map(|_| ())
}

fn thrift_denied<T: std::fmt::Debug>(r: Result<T>) {
    let e = r.expect_err("bob should be refused").to_string();
    assert!(e.contains(DENIED) && e.contains("'bob'"), "{e}");
}

#[test]
fn every_interface_allows_the_granted_and_refuses_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let ca = TestCa::new();
    let files = ca.write_files(dir.path());
    let certs = Certs {
        ca,
        files,
        dir: dir.path().to_path_buf(),
    };
    let server = Server::start_with(&[
        "--authorization",
        "--superuser",
        "admin",
        "--tls-cert",
        path(&certs.files.server_cert),
        "--tls-key",
        path(&certs.files.server_key),
        "--tls-ca",
        path(&certs.files.ca_cert),
        "--simple-auth",
        "false",
    ]);
    let admin = certs.rpc(&server, "admin");
    admin
        .admin()
        .create_table(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[],
        )
        .unwrap();
    let table = admin.table("t").unwrap();
    for row in [
        "r1",
        "keep",
        "del-rpc",
        "del-thrift",
        "del-rest",
        "del-shell",
    ] {
        table
            .put(&Put::new(row).add_column("f", "q", "v1"))
            .unwrap();
    }
    // alice: read and write on t, create and admin in the default namespace; bob: nothing.
    grant(&admin, "alice", Scope::table(&t()), "RW");
    grant(&admin, "alice", Scope::Namespace("default".into()), "CA");

    // The native RPC.
    let (alice, bob) = (certs.rpc(&server, "alice"), certs.rpc(&server, "bob"));
    let (at, bt) = (alice.table("t").unwrap(), bob.table("t").unwrap());
    assert_eq!(
        at.get(&Get::new("r1")).unwrap().value(b"f", b"q"),
        Some(&b"v1"[..])
    );
    denied(bt.get(&Get::new("r1")));
    assert!(at.scan(&Scan::new()).unwrap().len() >= 6);
    denied(bt.scan(&Scan::new()));
    at.put(&Put::new("w-rpc").add_column("f", "q", "a"))
        .unwrap();
    denied(bt.put(&Put::new("x-rpc").add_column("f", "q", "b")));
    assert_eq!(value(&admin, "x-rpc", "q"), None);
    at.delete(&Delete::new("del-rpc")).unwrap();
    denied(bt.delete(&Delete::new("keep")));
    assert_eq!(value(&admin, "del-rpc", "q"), None);
    assert_eq!(value(&admin, "keep", "q"), Some(b"v1".to_vec()));
    let cam = |value: &str| {
        CheckAndMutate::new(
            "r1",
            Condition::equals("f", "q", "v1"),
            CheckAction::Put(Put::new("r1").add_column("f", "rpc", value.as_bytes().to_vec())),
        )
    };
    assert!(at.check_and_mutate(&cam("a")).unwrap().success);
    denied(bt.check_and_mutate(&cam("b")));
    assert_eq!(value(&admin, "r1", "rpc"), Some(b"a".to_vec()));
    let new_table = |name: &str| {
        TableDescriptor::named(name)
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f"))
    };
    alice.admin().create_table(new_table("a_rpc"), &[]).unwrap();
    denied(bob.admin().create_table(new_table("b_rpc"), &[]));
    assert!(!table_exists(&admin, "b_rpc"));
    let read_for = |who: &str| Permission {
        principal: who.into(),
        scope: Scope::table(&t()),
        actions: Actions::parse("R").unwrap(),
    };
    alice.admin().grant(&read_for("carol"), false).unwrap();
    denied(bob.admin().grant(&read_for("bob"), false));

    // Thrift, through gateways calling the server as alice and as bob.
    let (ga, gb) = (
        Gateway::start("thrift", &server.rpc, &certs, "alice"),
        Gateway::start("thrift", &server.rpc, &certs, "bob"),
    );
    let mut ta = ThriftClient::connect(ga.addr, false, false).unwrap();
    let mut tb = ThriftClient::connect(gb.addr, false, false).unwrap();
    // r1's cells: f:q, and f:rpc from the RPC's check-and-mutate.
    assert_eq!(ta.get_row(b"t", b"r1").unwrap(), 2);
    thrift_denied(tb.get_row(b"t", b"r1"));
    assert!(ta.scan(b"t", b"", 100).unwrap() >= 5);
    thrift_denied(tb.scan(b"t", b"", 100));
    let rows = |row: &'static [u8]| -> Vec<basalt_thrift::client::RowCells<&[u8], &[u8]>> {
        vec![(row, vec![(b"f", b"q", b"c")])]
    };
    ta.put_rows(b"t", &rows(b"w-thrift"), true).unwrap();
    thrift_denied(tb.put_rows(b"t", &rows(b"x-thrift"), true));
    assert_eq!(value(&admin, "x-thrift", "q"), None);
    thrift_delete_row(&mut ta, "del-thrift").unwrap();
    thrift_denied(thrift_delete_row(&mut tb, "keep"));
    assert_eq!(value(&admin, "del-thrift", "q"), None);
    assert_eq!(value(&admin, "keep", "q"), Some(b"v1".to_vec()));
    assert_eq!(
        thrift_check_and_put(&mut ta, "v1", "f:thrift", "a").unwrap(),
        Some(true)
    );
    thrift_denied(thrift_check_and_put(&mut tb, "v1", "f:thrift", "b"));
    assert_eq!(value(&admin, "r1", "thrift"), Some(b"a".to_vec()));
    ta.create_table(b"a_thrift", &[(b"f", 1, "NONE")]).unwrap();
    thrift_denied(tb.create_table(b"b_thrift", &[(b"f", 1, "NONE")]));
    assert!(!table_exists(&admin, "b_thrift"));
    thrift_grant(&mut ta, "dave").unwrap();
    thrift_denied(thrift_grant(&mut tb, "bob"));

    // REST, through gateways as alice and bob (HBase's REST has no grant call).
    let (ra, rb) = (
        Gateway::start("rest", &server.rpc, &certs, "alice"),
        Gateway::start("rest", &server.rpc, &certs, "bob"),
    );
    // Reads: alice gets the cells, bob a 403 without them.
    for (path, marker) in [("/t/r1/f:q", b"v1".as_slice()), ("/t/*", b"keep")] {
        let (status, body) = http(ra.addr, "GET", path, JSON, b"");
        assert!(
            status == 200 && body.contains(&b64(marker)),
            "{path}: {status} {body}"
        );
        let (status, body) = http(rb.addr, "GET", path, JSON, b"");
        assert!(
            status == 403 && !body.contains(&b64(marker)),
            "{path}: {status} {body}"
        );
    }
    let put = |addr, row: &str, v: &str| {
        http(
            addr,
            "PUT",
            &format!("/t/{row}"),
            JSON,
            &cells(row, &[("f:q", v)]),
        )
        .0
    };
    assert_eq!(put(ra.addr, "w-rest", "a"), 200);
    assert_eq!(put(rb.addr, "x-rest", "b"), 403);
    assert_eq!(value(&admin, "x-rest", "q"), None);
    assert_eq!(http(ra.addr, "DELETE", "/t/del-rest", JSON, b"").0, 200);
    assert_eq!(http(rb.addr, "DELETE", "/t/keep", JSON, b"").0, 403);
    assert_eq!(value(&admin, "del-rest", "q"), None);
    assert_eq!(value(&admin, "keep", "q"), Some(b"v1".to_vec()));
    // Put f:rest (and f:q again, as REST wants the checked column among those written) if
    // f:q is v1: the last cell is the check.
    let check = cells("r1", &[("f:rest", "a"), ("f:q", "v1"), ("f:q", "v1")]);
    assert_eq!(http(ra.addr, "PUT", "/t/r1?check=put", JSON, &check).0, 200);
    let check = cells("r1", &[("f:rest", "b"), ("f:q", "v1"), ("f:q", "v1")]);
    assert_eq!(http(rb.addr, "PUT", "/t/r1?check=put", JSON, &check).0, 403);
    assert_eq!(value(&admin, "r1", "rest"), Some(b"a".to_vec()));
    let schema = |name: &str| {
        serde_json::json!({"name": name, "ColumnSchema": [{"name": "f"}]})
            .to_string()
            .into_bytes()
    };
    let (status, body) = http(ra.addr, "PUT", "/a_rest/schema", JSON, &schema("a_rest"));
    assert!(status == 201 || status == 200, "{status} {body}");
    let (status, _) = http(rb.addr, "PUT", "/b_rest/schema", JSON, &schema("b_rest"));
    assert_eq!(status, 403);
    assert!(!table_exists(&admin, "b_rest"));

    // The shell.
    let (ok, out) = certs.shell(&server, "alice", "whoami\n");
    assert!(ok && out.contains("alice (auth:CERTIFICATE)"), "{out}");
    let (ok, out) = certs.shell(&server, "alice", "get 't', 'r1'\nscan 't'\n");
    assert!(ok && out.contains("value=v1"), "{out}");
    let (ok, out) = certs.shell(&server, "bob", "get 't', 'r1'\n");
    assert!(
        !ok && out.contains(DENIED) && !out.contains("value=v1"),
        "{out}"
    );
    let (ok, out) = certs.shell(&server, "bob", "scan 't'\n");
    assert!(
        !ok && out.contains(DENIED) && !out.contains("value=v1"),
        "{out}"
    );
    let (ok, out) = certs.shell(
        &server,
        "alice",
        "put 't', 'w-shell', 'f:q', 'a'\ndeleteall 't', 'del-shell'\ncreate 'a_shell', 'f'\n\
         grant 'erin', 'R', 't'\n",
    );
    assert!(ok, "{out}");
    for script in [
        "put 't', 'x-shell', 'f:q', 'b'\n",
        "deleteall 't', 'keep'\n",
        "create 'b_shell', 'f'\n",
        "grant 'bob', 'R', 't'\n",
    ] {
        let (ok, out) = certs.shell(&server, "bob", script);
        assert!(
            !ok && out.contains(DENIED) && out.contains("'bob'"),
            "{script}: {out}"
        );
    }
    assert_eq!(value(&admin, "x-shell", "q"), None);
    assert_eq!(value(&admin, "del-shell", "q"), None);
    assert_eq!(value(&admin, "keep", "q"), Some(b"v1".to_vec()));
    assert!(table_exists(&admin, "a_shell") && !table_exists(&admin, "b_shell"));
    // What alice's grants did: carol, dave and erin may read t; bob was never granted.
    let granted: Vec<String> = admin
        .admin()
        .user_permissions(&Scope::table(&t()))
        .unwrap()
        .into_iter()
        .map(|p| p.principal)
        .collect();
    for who in ["carol", "dave", "erin"] {
        assert!(granted.iter().any(|g| g == who), "{granted:?}");
    }
    assert!(!granted.iter().any(|g| g == "bob"), "{granted:?}");

    // A grant takes effect at once, through every interface; so does a revoke.
    grant(&admin, "bob", Scope::table(&t()), "R");
    assert!(bt.get(&Get::new("r1")).is_ok());
    // f:q, f:rpc, f:thrift, f:rest.
    assert_eq!(tb.get_row(b"t", b"r1").unwrap(), 4);
    assert_eq!(http(rb.addr, "GET", "/t/r1/f:q", JSON, b"").0, 200);
    let (ok, out) = certs.shell(&server, "bob", "get 't', 'r1'\n");
    assert!(ok && out.contains("value=v1"), "{out}");
    admin.admin().revoke("bob", &Scope::table(&t())).unwrap();
    denied(bt.get(&Get::new("r1")));
    thrift_denied(tb.get_row(b"t", b"r1"));
    assert_eq!(http(rb.addr, "GET", "/t/r1/f:q", JSON, b"").0, 403);
    let (ok, out) = certs.shell(&server, "bob", "get 't', 'r1'\n");
    assert!(!ok && out.contains(DENIED), "{out}");

    // Wrong ways in: no certificate, a certificate from another CA, plaintext.
    let (ok, out, err) = basalt_with_input(
        &[
            "shell",
            "--connect",
            &server.rpc,
            "--tls-ca",
            path(&certs.files.ca_cert),
            "-n",
        ],
        "list\n",
    );
    assert!(
        !ok && format!("{out}{err}").contains("CertificateRequired"),
        "{out}{err}"
    );
    let other = TestCa::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let (cert, key) = other.write_client(elsewhere.path(), "mallory");
    let (ok, out, err) = basalt_with_input(
        &[
            "shell",
            "--connect",
            &server.rpc,
            "--tls-ca",
            path(&certs.files.ca_cert),
            "--tls-cert",
            path(&cert),
            "--tls-key",
            path(&key),
            "-n",
        ],
        "list\n",
    );
    assert!(
        !ok && format!("{out}{err}").contains("SSLHandshakeException"),
        "{out}{err}"
    );
    let (ok, out, err) = basalt_with_input(&["shell", "--connect", &server.rpc, "-n"], "list\n");
    assert!(
        !ok && format!("{out}{err}").contains("accepts TLS connections only"),
        "{out}{err}"
    );
}
