//! Access control on the native RPC (issue 32's first step): users named by their connection
//! (HBase's SIMPLE authentication) read and write only what they were granted; grants and
//! revokes take effect at once and survive a restart; a family grant shows only that family.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::sync::Arc;

use basalt_common::acl::{Actions, Permission, Scope};
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, DataClient, Get, Put, Scan, TableDescriptor, TableName,
};
use basalt_rpc::RpcServer;

mod support;

fn engine(dir: Option<&std::path::Path>) -> Connection {
    let builder = Connection::builder().authorization(vec!["admin".into()]);
    match dir {
        Some(d) => builder
            .file_system(Arc::new(basalt_fs::LocalFs))
            .root(d)
            .open()
            .unwrap(),
        None => builder.build(),
    }
}

fn as_user(server: &RpcServer, user: &str) -> Arc<RemoteConnection> {
    let config = RemoteConfig {
        user: user.into(),
        ..RemoteConfig::default()
    };
    Arc::new(RemoteConnection::connect(server.local_addr(), config).unwrap())
}

fn grant(conn: &Connection, who: &str, scope: Scope, codes: &str) {
    conn.admin()
        .grant(
            Permission {
                principal: who.into(),
                scope,
                actions: Actions::parse(codes).unwrap(),
            },
            false,
        )
        .unwrap();
}

fn denied<T: std::fmt::Debug>(r: basalt_embedded::Result<T>) -> String {
    let e = r.expect_err("access should be denied");
    assert_eq!(
        e.java_class(),
        "org.apache.hadoop.hbase.security.AccessDeniedException",
        "{e}"
    );
    e.to_string()
}

fn table(conn: &Connection, name: &str, families: &[&str]) -> TableName {
    let mut d = TableDescriptor::named(name).unwrap();
    for f in families {
        d = d.with_family(ColumnFamilyDescriptor::new(f.as_bytes().to_vec()));
    }
    conn.admin().create_table(d).unwrap();
    TableName::parse(name).unwrap()
}

#[test]
fn users_read_and_write_only_what_they_were_granted() {
    let conn = engine(None);
    let t = table(&conn, "t", &["a", "b"]);
    conn.table("t")
        .unwrap()
        .put(
            &Put::new("r")
                .add_column("a", "q", "in a")
                .add_column("b", "q", "in b"),
        )
        .unwrap();
    let server = support::serve(&conn);
    let (alice, bob, carol, admin) = (
        as_user(&server, "alice"),
        as_user(&server, "bob"),
        as_user(&server, "carol"),
        as_user(&server, "admin"),
    );

    // Nothing granted: nothing read or written, not even an empty answer.
    let message = denied(alice.get(&t, &Get::new("r")));
    assert!(
        message.contains("'alice'") && message.contains("READ"),
        "{message}"
    );
    denied(alice.put(&t, &Put::new("r2").add_column("a", "q", "v")));
    denied(
        Arc::clone(&alice)
            .scan(&t, &Scan::new())
            .and_then(|s| s.collect::<Result<Vec<_>, _>>()),
    );
    // The superuser may do anything.
    assert_eq!(admin.get(&t, &Get::new("r")).unwrap().len(), 2);
    admin
        .put(&t, &Put::new("r2").add_column("b", "q", "by admin"))
        .unwrap();

    // Read on the table: gets and scans, no writes.
    grant(&conn, "alice", Scope::table(&t), "R");
    assert_eq!(alice.get(&t, &Get::new("r")).unwrap().len(), 2);
    let rows: Vec<_> = Arc::clone(&alice)
        .scan(&t, &Scan::new())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 2);
    denied(alice.put(&t, &Put::new("r3").add_column("a", "q", "v")));
    assert!(
        conn.table("t")
            .unwrap()
            .get(&Get::new("r3"))
            .unwrap()
            .is_empty()
    );

    // Write on family a only: puts to a, not to b, and no reads.
    grant(&conn, "bob", Scope::family(&t, b"a"), "W");
    bob.put(&t, &Put::new("r4").add_column("a", "q", "by bob"))
        .unwrap();
    denied(bob.put(&t, &Put::new("r4").add_column("b", "q", "by bob")));
    denied(
        bob.put(
            &t,
            &Put::new("r4")
                .add_column("a", "q", "x")
                .add_column("b", "q", "y"),
        ),
    );
    denied(bob.get(&t, &Get::new("r4")));
    let r4 = conn.table("t").unwrap().get(&Get::new("r4")).unwrap();
    assert_eq!(r4.value(b"a", b"q"), Some(&b"by bob"[..]));
    assert_eq!(r4.value(b"b", b"q"), None);

    // Read on family a only: reads see family a's cells, never b's.
    grant(&conn, "carol", Scope::family(&t, b"a"), "R");
    let got = carol.get(&t, &Get::new("r")).unwrap();
    assert_eq!(got.value(b"a", b"q"), Some(&b"in a"[..]));
    assert_eq!(got.value(b"b", b"q"), None);
    let scanned: Vec<_> = Arc::clone(&carol)
        .scan(&t, &Scan::new())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        scanned
            .iter()
            .all(|r| r.cells.iter().all(|c| c.family() == b"a"))
    );
    denied(carol.get(&t, &Get::new("r").add_family("b")));

    // A revoke takes effect at once.
    conn.admin().revoke("alice", &Scope::table(&t)).unwrap();
    denied(alice.get(&t, &Get::new("r")));
    // A namespace grant covers the namespace's tables.
    grant(&conn, "alice", Scope::Namespace("default".into()), "RW");
    alice
        .put(&t, &Put::new("r5").add_column("b", "q", "v"))
        .unwrap();
    assert_eq!(alice.get(&t, &Get::new("r5")).unwrap().len(), 1);
    server.shutdown();
}

#[test]
fn grants_survive_a_restart_and_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    {
        let conn = engine(Some(dir.path()));
        let t = table(&conn, "t", &["f"]);
        grant(&conn, "alice", Scope::table(&t), "RW");
        grant(&conn, "@readers", Scope::Namespace("default".into()), "R");
        grant(&conn, "bob", Scope::Global, "C");
        // Grants on what does not exist are refused.
        assert!(
            conn.admin()
                .grant(
                    Permission {
                        principal: "x".into(),
                        scope: Scope::table(&TableName::parse("nope").unwrap()),
                        actions: Actions::parse("R").unwrap(),
                    },
                    false,
                )
                .is_err()
        );
        conn.close().unwrap();
    }
    let conn = engine(Some(dir.path()));
    let t = TableName::parse("t").unwrap();
    let all = conn.admin().user_permissions(&Scope::Global).unwrap();
    assert_eq!(all.len(), 3, "{all:?}");
    let on_t = conn.admin().user_permissions(&Scope::table(&t)).unwrap();
    assert_eq!(on_t.len(), 1);
    assert_eq!(on_t[0].principal, "alice");
    assert_eq!(on_t[0].actions.to_string(), "RW");
    let server = support::serve(&conn);
    let alice = as_user(&server, "alice");
    alice
        .put(&t, &Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    assert_eq!(alice.get(&t, &Get::new("r")).unwrap().len(), 1);
    denied(as_user(&server, "mallory").get(&t, &Get::new("r")));
    server.shutdown();
    conn.close().unwrap();
}

#[test]
fn access_control_is_off_unless_asked_for() {
    let conn = support::engine_with_table_t();
    let server = support::serve(&conn);
    let anyone = as_user(&server, "anyone");
    let t = TableName::parse("t").unwrap();
    anyone
        .put(&t, &Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    assert_eq!(anyone.get(&t, &Get::new("r")).unwrap().len(), 1);
    assert!(
        conn.admin()
            .grant(
                Permission {
                    principal: "x".into(),
                    scope: Scope::Global,
                    actions: Actions::parse("R").unwrap(),
                },
                false,
            )
            .is_err()
    );
    server.shutdown();
}

/// HBase's `AccessControlService` endpoint through MasterService's `ExecMasterService` (what
/// clients that grant through the coprocessor call): Grant, GetUserPermissions and
/// CheckPermissions, checked as the MasterService methods are.
#[test]
fn the_access_control_service_endpoint() {
    use basalt_rpc::pb;
    use prost::Message;
    let conn = engine(None);
    let t = table(&conn, "t", &["f"]);
    let server = conn.serve_rpc(support::loopback()).unwrap();
    let endpoint = |user: &str, method: &str, request: Vec<u8>| {
        let master = basalt_embedded::remote::RpcClient::connect_as(
            server.local_addr(),
            "MasterService",
            user,
        )
        .unwrap();
        master
            .call::<_, pb::CoprocessorServiceResponse>(
                "ExecMasterService",
                &pb::CoprocessorServiceRequest {
                    region: pb::RegionSpecifier {
                        r#type: 1,
                        value: Vec::new(),
                    },
                    call: pb::CoprocessorServiceCall {
                        row: Vec::new(),
                        service_name: "hbase.pb.AccessControlService".into(),
                        method_name: method.into(),
                        request,
                    },
                },
            )
            .map_err(|e| e.to_string())
    };
    let read_t = |who: &str| Permission {
        principal: who.into(),
        scope: Scope::table(&t),
        actions: Actions::parse("R").unwrap(),
    };
    let grant = |p: &Permission| {
        pb::GrantRequest {
            user_permission: basalt_proto::acl::user_permission(p),
            merge_existing_permissions: Some(false),
        }
        .encode_to_vec()
    };
    // alice may not grant; the superuser may, and the grant is in force.
    let e = endpoint("alice", "Grant", grant(&read_t("alice"))).unwrap_err();
    assert!(
        e.contains("AccessDeniedException") && e.contains("'alice'"),
        "{e}"
    );
    let answer = endpoint("admin", "Grant", grant(&read_t("alice"))).unwrap();
    assert_eq!(answer.value.name, "hbase.pb.GrantResponse");
    assert_eq!(
        as_user(&server, "alice")
            .get(&t, &Get::new("r"))
            .unwrap()
            .len(),
        0
    );
    // GetUserPermissions lists it.
    let listed = endpoint(
        "admin",
        "GetUserPermissions",
        basalt_rpc::pb::GetUserPermissionsRequest {
            r#type: Some(3),
            table_name: Some(pb::TableName {
                namespace: b"default".to_vec(),
                qualifier: b"t".to_vec(),
            }),
            ..Default::default()
        }
        .encode_to_vec(),
    )
    .unwrap();
    let listed =
        pb::GetUserPermissionsResponse::decode(listed.value.value.unwrap_or_default().as_slice())
            .unwrap();
    assert_eq!(listed.user_permission.len(), 1);
    assert_eq!(listed.user_permission[0].user, b"alice");
    // CheckPermissions: alice holds READ on t, not WRITE.
    let check = |codes: &str| {
        pb::CheckPermissionsRequest {
            permission: vec![
                basalt_proto::acl::user_permission(&Permission {
                    actions: Actions::parse(codes).unwrap(),
                    ..read_t("alice")
                })
                .permission,
            ],
        }
        .encode_to_vec()
    };
    endpoint("alice", "CheckPermissions", check("R")).unwrap();
    let e = endpoint("alice", "CheckPermissions", check("RW")).unwrap_err();
    assert!(
        e.contains("AccessDeniedException") && e.contains("WRITE"),
        "{e}"
    );
    // Another endpoint is not served.
    let e = endpoint("admin", "Nope", Vec::new()).unwrap_err();
    assert!(e.contains("UnknownProtocolException"), "{e}");
    server.shutdown();
}
