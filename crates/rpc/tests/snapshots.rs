//! Snapshots over MasterService (Snapshot, IsSnapshotDone, GetCompletedSnapshots,
//! CloneSnapshot, RestoreSnapshot, DeleteSnapshot), as a native client uses them.

use basalt_embedded::prelude::*;
use std::sync::Arc;

use basalt_embedded::TableName;
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};

mod support;

#[test]
fn snapshots_over_the_native_rpc() {
    let conn = support::engine_with_table_t();
    let server = support::serve(&conn);
    let remote = Arc::new(
        RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).expect("connect"),
    );
    let t = TableName::parse("t").expect("name");
    remote.snapshot("snap", &t).expect("snapshot");
    let listed = remote.list_snapshots().expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0].name.as_str(), &listed[0].table), ("snap", &t));
    assert!(listed[0].creation_time > 0);
    // IsSnapshotDone: a taken snapshot is done.
    let master = basalt_embedded::remote::RpcClient::connect(server.local_addr(), "MasterService")
        .expect("rpc");
    let done: basalt_rpc::pb::IsSnapshotDoneResponse = master
        .call(
            "IsSnapshotDone",
            &basalt_rpc::pb::IsSnapshotDoneRequest {
                snapshot: Some(basalt_master::snapshots::description(&listed[0])),
            },
        )
        .expect("IsSnapshotDone");
    assert_eq!(done.done, Some(true));
    // Refusals keep their reason across the wire.
    let e = remote
        .snapshot("snap", &t)
        .expect_err("a second snapshot of the name");
    assert!(e.to_string().contains("already exists"), "{e}");
    let e = remote
        .snapshot("other", &TableName::parse("nope").expect("name"))
        .expect_err("a missing table");
    assert!(e.to_string().contains("nope"), "{e}");
    // A clone over the wire is a table of its own.
    let t2 = TableName::parse("t2").expect("name");
    remote.clone_snapshot("snap", &t2).expect("clone");
    assert!(remote.table_exists(&t2).expect("exists"));
    let e = remote.clone_snapshot("snap", &t2).expect_err("t2 exists");
    assert_eq!(
        e.java_class(),
        "org.apache.hadoop.hbase.TableExistsException",
        "{e}"
    );
    // As a native client does it: the clone's procedure id is finished when it answers.
    let cloned: basalt_rpc::pb::CloneSnapshotResponse = master
        .call(
            "CloneSnapshot",
            &basalt_rpc::pb::CloneSnapshotRequest {
                snapshot: basalt_rpc::pb::SnapshotDescription {
                    name: "snap".into(),
                    table: Some("t3".into()),
                    ..Default::default()
                },
                nonce_group: None,
                nonce: None,
                restore_acl: None,
            },
        )
        .expect("CloneSnapshot");
    let result: basalt_rpc::pb::GetProcedureResultResponse = master
        .call(
            "GetProcedureResult",
            &basalt_rpc::pb::GetProcedureResultRequest {
                proc_id: cloned.proc_id,
            },
        )
        .expect("GetProcedureResult");
    assert_eq!(
        result.state,
        basalt_rpc::pb::get_procedure_result_response::State::Finished as i32
    );
    // A restore over the wire: refused while the table is enabled, then the table is back.
    let table = conn.table("t").expect("table");
    table
        .put(&basalt_embedded::Put::new("after").add_column("f", "q", "x"))
        .expect("put after the snapshot");
    let e = remote.restore_snapshot("snap").expect_err("t is enabled");
    assert_eq!(
        e.java_class(),
        "org.apache.hadoop.hbase.TableNotDisabledException",
        "{e}"
    );
    remote.disable_table(&t).expect("disable");
    remote.restore_snapshot("snap").expect("restore");
    remote.enable_table(&t).expect("enable");
    let rows: Vec<_> = table
        .scan(&basalt_embedded::Scan::new())
        .expect("scan")
        .map(|r| r.expect("row").row)
        .collect();
    assert!(!rows.iter().any(|r| &r[..] == b"after"), "{rows:?}");
    remote.delete_snapshot("snap").expect("delete");
    assert!(remote.list_snapshots().expect("list").is_empty());
    server.shutdown();
}
