//! Access control through `basalt shell` against a real `basalt standalone --authorization`:
//! the superuser grants and revokes, users connect as themselves (HBase's SIMPLE
//! authentication), and each gets exactly what was granted, at once.

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

    let (ok, out) = shell_as(&server, "alice", "get 't', 'r1'\n");
    assert!(ok && out.contains("value=v1"), "{out}");
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
