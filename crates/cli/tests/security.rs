//! Access control through `basalt shell` against a real `basalt standalone --authorization`:
//! the superuser grants and revokes, users connect as themselves (HBase's SIMPLE
//! authentication), and each gets exactly what was granted, at once; the Thrift gateway acts
//! as its user.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use support::{Server, basalt_with_input};

/// Runs a shell script as `user`: whether every command succeeded, and what it printed.
fn shell_as(server: &Server, user: &str, script: &str) -> (bool, String) {
    let (ok, out, err) = basalt_with_input(
        &["shell", "--connect", &server.rpc, "--user", user, "-n"],
        script,
    );
    (ok, format!("{out}{err}"))
}

#[test]
fn the_superuser_grants_and_users_get_what_they_were_granted() {
    let server = Server::start_with(&["--authorization", "--superuser", "admin"]);
    let (ok, out) = shell_as(
        &server,
        "admin",
        "create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'\ngrant 'alice', 'R', 't'\n",
    );
    assert!(ok, "{out}");

    let (ok, out) = shell_as(&server, "alice", "whoami\nget 't', 'r1'\n");
    assert!(ok && out.contains("value=v1"), "{out}");
    assert!(out.contains("alice (auth:SIMPLE)"), "{out}");
    let (ok, out) = shell_as(&server, "alice", "put 't', 'r2', 'f:q', 'v2'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
    assert!(out.contains("'alice'") && out.contains("WRITE"), "{out}");
    let (ok, out) = shell_as(&server, "bob", "get 't', 'r1'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
    // DDL needs CREATE or ADMIN; granting needs ADMIN.
    let (ok, out) = shell_as(&server, "alice", "disable 't'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
    let (ok, out) = shell_as(&server, "alice", "grant 'alice', 'RW', 't'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");

    let (ok, out) = shell_as(&server, "admin", "list_security_capabilities\n");
    assert!(
        ok && out.contains("SIMPLE_AUTHENTICATION\nAUTHORIZATION"),
        "{out}"
    );
    // Anyone may ask, as in HBase.
    let (ok, out) = shell_as(&server, "alice", "list_security_capabilities\n");
    assert!(ok && out.contains("AUTHORIZATION"), "{out}");

    let (ok, out) = shell_as(&server, "admin", "user_permission 't'\n");
    assert!(ok, "{out}");
    assert!(
        out.contains("alice") && out.contains("default,t,,: [Permission: actions=READ]"),
        "{out}"
    );
    // A revoke takes effect without a restart.
    let (ok, out) = shell_as(&server, "admin", "revoke 'alice', 't'\n");
    assert!(ok, "{out}");
    let (ok, out) = shell_as(&server, "alice", "get 't', 'r1'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
}

#[test]
fn authorization_needs_a_superuser() {
    let (ok, _, err) = support::basalt(&["standalone", "--authorization", "--info-port", "-1"]);
    assert!(!ok);
    assert!(err.contains("--superuser"), "{err}");
}

#[test]
fn the_thrift_gateway_acts_as_its_user() {
    let server = Server::start_with(&[
        "--authorization",
        "--superuser",
        "admin",
        "--gateway-user",
        "gw",
    ]);
    let (ok, out) = shell_as(
        &server,
        "admin",
        "create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'\n",
    );
    assert!(ok, "{out}");
    let mut c =
        basalt_thrift::ThriftClient::connect(server.thrift.parse().unwrap(), false, false).unwrap();
    // Nothing granted to the gateway's user: no reads, no writes, no tables made.
    assert!(c.get_row(b"t", b"r1").is_err());
    let rows: Vec<basalt_thrift::client::RowCells<&[u8], &[u8]>> =
        vec![(b"r2", vec![(b"f", b"q", b"v2")])];
    assert!(c.put_rows(b"t", &rows, true).is_err());
    assert!(c.create_table(b"t2", &[(b"f", 3, "NONE")]).is_err());
    // Read granted: reads go through, writes still do not, and nothing was written.
    let (ok, out) = shell_as(&server, "admin", "grant 'gw', 'R', 't'\n");
    assert!(ok, "{out}");
    assert_eq!(c.get_row(b"t", b"r1").unwrap(), 1);
    assert!(c.put_rows(b"t", &rows, true).is_err());
    assert_eq!(c.get_row(b"t", b"r2").unwrap(), 0);
}

#[test]
fn thrift_grant_and_revoke() {
    use basalt_thrift::protocol::TType;
    let server = Server::start_with(&[
        "--authorization",
        "--superuser",
        "admin",
        "--gateway-user",
        "gw",
    ]);
    let (ok, out) = shell_as(&server, "admin", "create 't', 'f'\ngrant 'gw', 'A'\n");
    assert!(ok, "{out}");
    let mut c =
        basalt_thrift::ThriftClient::connect(server.thrift.parse().unwrap(), false, false).unwrap();
    // A TAccessControlEntity: username 1, scope 2 (TABLE 0), actions 4, tableName 5.
    let entity = |grant: bool, c: &mut basalt_thrift::ThriftClient| {
        c.call(if grant { "grant" } else { "revoke" }, |w| {
            w.field(1, TType::Struct);
            w.struct_begin();
            w.field(1, TType::String);
            w.string("alice");
            w.field(2, TType::I32);
            w.i32(0);
            w.field(4, TType::String);
            w.string("RW");
            w.field(5, TType::String);
            w.string("t");
            w.struct_end();
        })
    };
    let answer = entity(true, &mut c).unwrap();
    assert_eq!(answer.bool(0), Some(true));
    let (ok, out) = shell_as(&server, "admin", "user_permission 't'\n");
    assert!(ok && out.contains("actions=READ,WRITE"), "{out}");
    let (ok, out) = shell_as(&server, "alice", "put 't', 'r', 'f:q', 'v'\n");
    assert!(ok, "{out}");
    entity(false, &mut c).unwrap();
    let (ok, out) = shell_as(&server, "alice", "put 't', 'r', 'f:q', 'v'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
}

#[test]
fn listening_beyond_loopback_needs_insecure() {
    for args in [
        &["standalone", "--bind", "0.0.0.0", "--info-port", "-1"][..],
        &["thrift", "--bind", "0.0.0.0", "--port", "0"],
        &["rest", "--bind", "0.0.0.0", "--port", "0"],
        &[
            "regionserver",
            "--zookeeper",
            "127.0.0.1:1",
            "--bind",
            "0.0.0.0",
        ],
    ] {
        let (ok, _, err) = support::basalt(args);
        assert!(!ok, "{args:?}");
        assert!(err.contains("--insecure"), "{args:?}: {err}");
    }
}

#[test]
fn a_bad_certificate_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("cert.pem");
    std::fs::write(&cert, "not a certificate").unwrap();
    let (ok, _, err) = support::basalt(&[
        "standalone",
        "--data",
        dir.path().join("data").to_str().unwrap(),
        "--info-port",
        "-1",
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        cert.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("cert.pem"), "{err}");
    // Without --tls-key the key is looked for in the certificate's file.
    let (ok, _, err) = support::basalt(&["rest", "--tls-cert", cert.to_str().unwrap()]);
    assert!(!ok && err.contains("cert.pem"), "{err}");
}

/// Groups: a superuser named as `@group`, and a grant to `@group`, reach the group's members
/// (here fixed by `--user-groups`, Hadoop's static overrides).
#[test]
fn groups_carry_grants_and_superusers() {
    let server = Server::start_with(&[
        "--authorization",
        "--superuser",
        "@admins",
        "--group-mapping",
        "none",
        "--user-groups",
        "root=admins;alice=ops,dev",
    ]);
    let (ok, out) = shell_as(
        &server,
        "root",
        "create 't', 'f'\nput 't', 'r1', 'f:q', 'v1'\ngrant '@ops', 'R', 't'\n",
    );
    assert!(ok, "{out}");
    let (ok, out) = shell_as(&server, "alice", "get 't', 'r1'\n");
    assert!(ok && out.contains("value=v1"), "{out}");
    let (ok, out) = shell_as(&server, "bob", "get 't', 'r1'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
    let (ok, out) = shell_as(&server, "alice", "put 't', 'r2', 'f:q', 'v2'\n");
    assert!(!ok && out.contains("AccessDeniedException"), "{out}");
}
