//! The typed calls over a caller that answers from a handler in the process: each builds its
//! operation's request, reads its answer, and says what it changed.

#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::sync::Mutex;

use basalt_common::replication::PeerConfig;
use basalt_common::{ColumnFamilyDescriptor, Error, Result, TableName};
use basalt_ops::prelude::*;
use basalt_ops::{Caller, Changed, MasterRequest, MasterResponse, Operation};
use basalt_proto::pb;

/// Answers each request from what a test set, and records what it was asked and told.
#[derive(Default)]
struct Recorder {
    asked: Mutex<Vec<MasterRequest>>,
    changed: Mutex<Vec<String>>,
    answer: Mutex<Option<MasterResponse>>,
}

impl Caller for Recorder {
    fn call_master(&self, _: Option<&TableName>, request: MasterRequest) -> Result<MasterResponse> {
        self.asked.lock().unwrap().push(request);
        self.answer
            .lock()
            .unwrap()
            .take()
            .ok_or_else(|| Error::Refused("no answer set".into()))
    }

    fn changed(&self, what: Changed<'_>) {
        self.changed.lock().unwrap().push(format!("{what:?}"));
    }
}

fn answering(r: MasterResponse) -> Recorder {
    let c = Recorder::default();
    *c.answer.lock().unwrap() = Some(r);
    c
}

#[test]
fn add_peer_sends_its_request_and_reads_its_answer() {
    let c = answering(basalt_ops::replication::AddReplicationPeer::response_of(
        pb::AddReplicationPeerResponse { proc_id: Some(1) },
    ));
    let config = PeerConfig::new("127.0.0.1:2181:/hbase");
    c.add_peer("1", &config, false).unwrap();
    let asked = c.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].name(), "AddReplicationPeer");
    let MasterRequest::Replication(basalt_ops::replication::Request::AddReplicationPeer(r)) =
        &asked[0]
    else {
        panic!("{:?}", asked[0]);
    };
    assert_eq!(r.peer_id, "1");
    assert_eq!(
        r.peer_state.state,
        pb::replication_state::State::Disabled as i32
    );
    // Peers need global ADMIN, and carry no nonce.
    assert_eq!(
        asked[0].need().unwrap(),
        Some(basalt_ops::Need::global(basalt_common::acl::Action::Admin))
    );
    assert_eq!(asked[0].nonce(), None);
}

#[test]
fn an_answer_to_another_call_is_the_servers_fault() {
    let c = answering(basalt_ops::tables::IsMasterRunning::response_of(
        pb::IsMasterRunningResponse {
            is_master_running: true,
        },
    ));
    let err = c.remove_peer("1").unwrap_err();
    assert!(
        err.to_string()
            .contains("RemoveReplicationPeer answered another call"),
        "{err}"
    );
}

#[test]
fn table_ddl_says_what_it_changed() {
    let c = answering(basalt_ops::tables::AddColumn::response_of(
        pb::ProcedureResponse { proc_id: Some(3) },
    ));
    let t = TableName::parse("ns:t").unwrap();
    c.add_column_family(&t, ColumnFamilyDescriptor::new("f"))
        .unwrap();
    assert_eq!(
        *c.changed.lock().unwrap(),
        vec![format!("{:?}", Changed::Table(&t))]
    );
    let asked = c.asked.lock().unwrap();
    // DDL carries a nonce, and needs ADMIN or CREATE on the table.
    assert!(asked[0].nonce().is_some());
    let need = asked[0].need().unwrap().unwrap();
    assert_eq!(need.scope, basalt_common::acl::Scope::table(&t));
}

#[test]
fn requests_decode_once_by_method_and_refuse_bad_bytes() {
    let r = MasterRequest::decode("truncateTable", &[])
        .unwrap()
        .unwrap();
    assert_eq!(r.name(), "TruncateTable");
    let r = MasterRequest::decode("getSecurityCapabilities", &[])
        .unwrap()
        .unwrap();
    assert_eq!(r.name(), "getSecurityCapabilities");
    assert!(MasterRequest::decode("NoSuchMethod", &[]).is_none());
    let err = MasterRequest::decode("CreateTable", &[0xff, 0xff])
        .unwrap()
        .unwrap_err();
    assert!(
        err.to_string().contains("cannot decode the request"),
        "{err}"
    );
}
