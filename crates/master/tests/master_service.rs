//! MasterService over a real socket: tables and namespaces administered the way native clients
//! do it, procedure ids that are finished when asked about, HBase's exception classes.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::time::Duration;

use basalt_embedded::Connection;
use basalt_embedded::remote::RpcClient;
use basalt_rpc::RpcServer;
use basalt_rpc::pb::{
    self, BytesBytesPair, ColumnFamilySchema, CreateTableRequest, Empty, GetProcedureResultRequest,
    GetProcedureResultResponse, GetTableDescriptorsRequest, GetTableDescriptorsResponse,
    GetTableNamesRequest, GetTableNamesResponse, GetTableStateRequest, GetTableStateResponse,
    IsMasterRunningResponse, ListNamespacesResponse, NamespaceRequest, ProcedureResponse,
    TableNameRequest, TableSchema, get_procedure_result_response, table_state,
};
use prost::Message;

#[path = "../../rpc/tests/support/mod.rs"]
mod support;

/// A MasterService connection.
struct Master(RpcClient);

impl Master {
    fn connect(server: &RpcServer) -> Master {
        let client = RpcClient::connect(server.local_addr(), "MasterService").unwrap();
        client.set_timeout(Some(Duration::from_secs(20))).unwrap();
        Master(client)
    }

    fn call<M: Message, R: Message + Default>(
        &mut self,
        method: &str,
        param: &M,
    ) -> Result<R, String> {
        support::call(&self.0, method, param)
    }
}

fn name(q: &str) -> pb::TableName {
    pb::TableName {
        namespace: b"default".to_vec(),
        qualifier: q.as_bytes().to_vec(),
    }
}

fn create(q: &str) -> CreateTableRequest {
    CreateTableRequest {
        table_schema: TableSchema {
            table_name: Some(name(q)),
            column_families: vec![ColumnFamilySchema {
                name: b"f".to_vec(),
                attributes: vec![BytesBytesPair {
                    first: b"VERSIONS".to_vec(),
                    second: b"5".to_vec(),
                }],
                configuration: vec![],
            }],
            ..TableSchema::default()
        },
        split_keys: vec![b"m".to_vec()],
        ..CreateTableRequest::default()
    }
}

#[test]
fn tables_and_namespaces_through_master_service() {
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let mut m = Master::connect(&server);
    let running: IsMasterRunningResponse = m.call("IsMasterRunning", &Empty {}).unwrap();
    assert!(running.is_master_running);
    let created: ProcedureResponse = m.call("CreateTable", &create("t")).unwrap();
    let proc_id = created.proc_id.unwrap();
    let result: GetProcedureResultResponse = m
        .call("GetProcedureResult", &GetProcedureResultRequest { proc_id })
        .unwrap();
    assert_eq!(
        result.state,
        get_procedure_result_response::State::Finished as i32
    );
    let unknown: GetProcedureResultResponse = m
        .call(
            "GetProcedureResult",
            &GetProcedureResultRequest { proc_id: 999 },
        )
        .unwrap();
    assert_eq!(
        unknown.state,
        get_procedure_result_response::State::NotFound as i32
    );
    assert_eq!(
        m.call::<_, ProcedureResponse>("CreateTable", &create("t"))
            .unwrap_err(),
        "org.apache.hadoop.hbase.TableExistsException"
    );
    // The schema comes back with HBase's attribute names; the split made two regions.
    let d: GetTableDescriptorsResponse = m
        .call(
            "GetTableDescriptors",
            &GetTableDescriptorsRequest {
                table_names: vec![name("t"), name("missing")],
                ..GetTableDescriptorsRequest::default()
            },
        )
        .unwrap();
    assert_eq!(d.table_schema.len(), 1);
    let family = &d.table_schema[0].column_families[0];
    assert_eq!(family.name, b"f");
    assert!(
        family
            .attributes
            .iter()
            .any(|a| a.first == b"VERSIONS" && a.second == b"5")
    );
    assert_eq!(
        conn.admin()
            .regions(&basalt_embedded::TableName::parse("t").unwrap())
            .unwrap()
            .len(),
        2
    );
    let names: GetTableNamesResponse = m
        .call("GetTableNames", &GetTableNamesRequest::default())
        .unwrap();
    assert_eq!(names.table_names, [name("t")]);
    let _: ProcedureResponse = m
        .call(
            "DisableTable",
            &TableNameRequest {
                table_name: name("t"),
                ..TableNameRequest::default()
            },
        )
        .unwrap();
    let state: GetTableStateResponse = m
        .call(
            "GetTableState",
            &GetTableStateRequest {
                table_name: name("t"),
            },
        )
        .unwrap();
    assert_eq!(state.table_state.state, table_state::State::Disabled as i32);
    let _: ProcedureResponse = m
        .call(
            "DeleteTable",
            &TableNameRequest {
                table_name: name("t"),
                ..TableNameRequest::default()
            },
        )
        .unwrap();
    assert_eq!(
        m.call::<_, GetTableStateResponse>(
            "GetTableState",
            &GetTableStateRequest {
                table_name: name("t")
            }
        )
        .unwrap_err(),
        "org.apache.hadoop.hbase.TableNotFoundException"
    );
    let _: ProcedureResponse = m
        .call(
            "CreateNamespace",
            &NamespaceRequest {
                namespace_descriptor: pb::NamespaceDescriptor {
                    name: b"ns1".to_vec(),
                    configuration: vec![],
                },
                ..NamespaceRequest::default()
            },
        )
        .unwrap();
    let namespaces: ListNamespacesResponse = m.call("ListNamespaces", &Empty {}).unwrap();
    assert!(namespaces.namespace_name.contains(&"ns1".to_string()));
    // The balancer runs (one server: nothing moves) unless switched off.
    let ran: pb::BalanceResponse = m.call("Balance", &pb::BalanceRequest::default()).unwrap();
    assert!(ran.balancer_ran);
    let was: pb::SetBalancerRunningResponse = m
        .call(
            "SetBalancerRunning",
            &pb::SetBalancerRunningRequest {
                on: false,
                synchronous: None,
            },
        )
        .unwrap();
    assert_eq!(was.prev_balance_value, Some(true));
    let ran: pb::BalanceResponse = m.call("Balance", &pb::BalanceRequest::default()).unwrap();
    assert!(!ran.balancer_ran);
    let on: pb::IsBalancerEnabledResponse = m
        .call("IsBalancerEnabled", &pb::IsBalancerEnabledRequest {})
        .unwrap();
    assert!(!on.enabled);
    // What Basalt does not serve is HBase's UnknownProtocolException.
    assert!(
        m.call::<_, Empty>("Shutdown", &Empty {})
            .unwrap_err()
            .ends_with("UnknownProtocolException")
    );
    // A standalone server's master does not stop alone.
    assert!(
        m.call::<_, Empty>("StopMaster", &Empty {})
            .unwrap_err()
            .ends_with("DoNotRetryIOException")
    );
    server.shutdown();
}

fn attribute(schema: &TableSchema, key: &str) -> Option<String> {
    schema
        .attributes
        .iter()
        .find(|a| a.first == key.as_bytes())
        .map(|a| String::from_utf8_lossy(&a.second).into_owned())
}

#[test]
fn modify_table_and_cluster_status() {
    use basalt_rpc::pb::{
        ClusterStatusOption, GetClusterStatusRequest, GetClusterStatusResponse, ModifyTableRequest,
        TruncateTableRequest,
    };
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let mut m = Master::connect(&server);
    // Table attributes given at creation are kept and described.
    let mut req = create("t");
    req.table_schema.attributes.push(BytesBytesPair {
        first: b"MAX_FILESIZE".to_vec(),
        second: b"1073741824".to_vec(),
    });
    let _: ProcedureResponse = m.call("CreateTable", &req).unwrap();
    let describe = |m: &mut Master| -> TableSchema {
        let d: GetTableDescriptorsResponse = m
            .call(
                "GetTableDescriptors",
                &GetTableDescriptorsRequest {
                    table_names: vec![name("t")],
                    ..GetTableDescriptorsRequest::default()
                },
            )
            .unwrap();
        d.table_schema.into_iter().next().unwrap()
    };
    assert_eq!(
        attribute(&describe(&mut m), "MAX_FILESIZE").as_deref(),
        Some("1073741824")
    );

    // ModifyTable replaces the schema online: a new attribute, a second family.
    let mut schema = describe(&mut m);
    schema.attributes.push(BytesBytesPair {
        first: b"COMPACTION_ENABLED".to_vec(),
        second: b"false".to_vec(),
    });
    schema.column_families.push(ColumnFamilySchema {
        name: b"g".to_vec(),
        attributes: vec![],
        configuration: vec![],
    });
    let _: ProcedureResponse = m
        .call(
            "ModifyTable",
            &ModifyTableRequest {
                table_name: name("t"),
                table_schema: schema,
                ..ModifyTableRequest::default()
            },
        )
        .unwrap();
    let after = describe(&mut m);
    assert_eq!(
        attribute(&after, "COMPACTION_ENABLED").as_deref(),
        Some("false")
    );
    let families: Vec<&[u8]> = after
        .column_families
        .iter()
        .map(|f| f.name.as_slice())
        .collect();
    assert_eq!(families, [&b"f"[..], b"g"]);
    let d = conn
        .admin()
        .describe_table(&basalt_embedded::TableName::parse("t").unwrap())
        .unwrap();
    assert!(!d.compaction_enabled);
    assert_eq!(d.max_filesize, 1 << 30);
    // A bad attribute value is refused with HBase's class, and nothing changes.
    let mut bad = describe(&mut m);
    bad.attributes.push(BytesBytesPair {
        first: b"MAX_FILESIZE".to_vec(),
        second: b"lots".to_vec(),
    });
    assert_eq!(
        m.call::<_, ProcedureResponse>(
            "ModifyTable",
            &ModifyTableRequest {
                table_name: name("t"),
                table_schema: bad,
                ..ModifyTableRequest::default()
            },
        )
        .unwrap_err(),
        "org.apache.hadoop.hbase.DoNotRetryIOException"
    );

    // The Java client's lower-case spellings of truncateTable and getProcedureResult.
    let _: ProcedureResponse = m
        .call(
            "DisableTable",
            &TableNameRequest {
                table_name: name("t"),
                ..TableNameRequest::default()
            },
        )
        .unwrap();
    let truncated: ProcedureResponse = m
        .call(
            "truncateTable",
            &TruncateTableRequest {
                table_name: name("t"),
                preserve_splits: Some(true),
                ..TruncateTableRequest::default()
            },
        )
        .unwrap();
    let result: GetProcedureResultResponse = m
        .call(
            "getProcedureResult",
            &GetProcedureResultRequest {
                proc_id: truncated.proc_id.unwrap(),
            },
        )
        .unwrap();
    assert_eq!(
        result.state,
        get_procedure_result_response::State::Finished as i32
    );

    // Requests the server load will count: three writes and two reads in t's first region,
    // one write and a two-row scan in its second.
    {
        use basalt_embedded::{Get, Put, Scan};
        let t = conn.table("t").unwrap();
        for v in [b"1", b"2", b"3"] {
            t.put(&Put::new("a").add_column("f", "q", &v[..])).unwrap();
        }
        t.put(&Put::new("x").add_column("f", "q", "v")).unwrap();
        t.put(&Put::new("y").add_column("f", "q", "v")).unwrap();
        t.get(&Get::new("a")).unwrap();
        t.get(&Get::new("b")).unwrap();
        let rows = t.scan(&Scan::new().with_start_row("m")).unwrap().count();
        assert_eq!(rows, 2);
    }
    // Cluster status: one live server holding meta's region and t's two, which is the master.
    let status: GetClusterStatusResponse = m
        .call(
            "GetClusterStatus",
            &GetClusterStatusRequest { options: vec![] },
        )
        .unwrap();
    let s = status.cluster_status;
    assert_eq!(s.hbase_version.unwrap().version, basalt_rpc::HBASE_VERSION);
    let start_code = u64::try_from(conn.server_start_code()).unwrap();
    assert_eq!(s.live_servers.len(), 1);
    let live = &s.live_servers[0];
    assert_eq!(
        live.server.port,
        Some(u32::from(server.local_addr().port()))
    );
    assert_eq!(live.server.start_code, Some(start_code));
    let names: Vec<String> = live
        .server_load
        .region_loads
        .iter()
        .map(|l| String::from_utf8_lossy(&l.region_specifier.value).into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names[0].starts_with("hbase:meta,"), "{names:?}");
    assert!(
        names[1].starts_with("t,,") && names[2].starts_with("t,m,"),
        "{names:?}"
    );
    let load = |i: usize| {
        let l = &live.server_load.region_loads[i];
        (
            l.read_requests_count.unwrap(),
            l.write_requests_count.unwrap(),
        )
    };
    assert_eq!(load(1), (2, 3), "reads and writes of t's first region");
    assert_eq!(load(2), (2, 2), "reads and writes of t's second region");
    let total = live.server_load.total_number_of_requests.unwrap();
    assert!(total >= 9, "{total}");
    assert!(live.server_load.number_of_requests.is_some());
    assert!(live.server_load.used_heap_mb.unwrap() > 0);
    assert!(live.server_load.max_heap_mb.unwrap() >= live.server_load.used_heap_mb.unwrap());
    assert_eq!(s.master, Some(live.server.clone()));
    assert!(s.dead_servers.is_empty() && s.backup_masters.is_empty());
    // The directory's id for good (hbase.id), a UUID.
    let id = s.cluster_id.unwrap().cluster_id;
    assert_eq!(id, conn.engine().master().cluster_id);
    assert_eq!(
        basalt_common::replication::ClusterId::of(&id).to_string(),
        id
    );
    let t_count = s
        .table_region_states_count
        .iter()
        .find(|c| c.table_name.qualifier == b"t")
        .unwrap();
    assert_eq!(t_count.region_states_count.open_regions, 2);
    // Only the parts asked for.
    let only: GetClusterStatusResponse = m
        .call(
            "GetClusterStatus",
            &GetClusterStatusRequest {
                options: vec![ClusterStatusOption::Master as i32],
            },
        )
        .unwrap();
    let only = only.cluster_status;
    assert!(only.master.is_some());
    assert!(only.live_servers.is_empty() && only.hbase_version.is_none());
    server.shutdown();
}

/// HBase's procedure nonces: a retried CreateTable (the same nonce, its first answer lost) gets
/// the first call's procedure id instead of TableExistsException; a new nonce runs.
#[test]
fn a_retried_procedure_with_its_nonce_runs_once() {
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let mut m = Master::connect(&server);
    let with_nonce = |q: &str, nonce: u64| CreateTableRequest {
        nonce_group: Some(42),
        nonce: Some(nonce),
        ..create(q)
    };
    let first: ProcedureResponse = m.call("CreateTable", &with_nonce("n", 7)).unwrap();
    let again: ProcedureResponse = m.call("CreateTable", &with_nonce("n", 7)).unwrap();
    assert_eq!(first.proc_id, again.proc_id);
    let e = m
        .call::<_, ProcedureResponse>("CreateTable", &with_nonce("n", 8))
        .unwrap_err();
    assert!(e.contains("TableExistsException"), "{e}");
    // A failed call's retry gets the same failure, without running again.
    let e2 = m
        .call::<_, ProcedureResponse>("CreateTable", &with_nonce("n", 8))
        .unwrap_err();
    assert_eq!(e, e2);
    // Delete with a nonce, retried: one delete, the same answer.
    let delete = |nonce: u64| TableNameRequest {
        table_name: name("n"),
        nonce_group: Some(42),
        nonce: Some(nonce),
    };
    let _: ProcedureResponse = m.call("DisableTable", &delete(9)).unwrap();
    let gone: ProcedureResponse = m.call("DeleteTable", &delete(10)).unwrap();
    let retried: ProcedureResponse = m.call("DeleteTable", &delete(10)).unwrap();
    assert_eq!(gone.proc_id, retried.proc_id);
    server.shutdown();
}

/// MasterService fields Basalt cannot honour are refused by name (docs/design/fields.md).
#[test]
fn master_fields_basalt_cannot_honour_are_refused_by_name() {
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let mut m = Master::connect(&server);
    let _: ProcedureResponse = m.call("CreateTable", &create("s")).unwrap();
    // A dry run is answered, moving nothing (one server here: nothing to plan either).
    let dry: pb::BalanceResponse = m
        .call(
            "Balance",
            &pb::BalanceRequest {
                dry_run: Some(true),
                ignore_rit: None,
            },
        )
        .unwrap();
    assert!(dry.balancer_ran);
    assert_eq!(
        (dry.moves_calculated, dry.moves_executed),
        (Some(0), Some(0))
    );
    let snapshot = |d: pb::SnapshotDescription| pb::SnapshotRequest { snapshot: d };
    let described = |name: &str| pb::SnapshotDescription {
        name: name.into(),
        table: Some("s".into()),
        ..pb::SnapshotDescription::default()
    };
    let e = support::call_explained::<_, pb::SnapshotResponse>(
        &m.0,
        "Snapshot",
        &snapshot(pb::SnapshotDescription {
            r#type: Some(pb::snapshot_description::Type::Skipflush as i32),
            ..described("skip")
        }),
    )
    .unwrap_err();
    assert!(e.contains("SKIPFLUSH"), "{e}");
    let _: pb::SnapshotResponse = m.call("Snapshot", &snapshot(described("ok"))).unwrap();
    let e = support::call_explained::<_, ProcedureResponse>(
        &m.0,
        "CloneSnapshot",
        &pb::CloneSnapshotRequest {
            snapshot: pb::SnapshotDescription {
                table: Some("c".into()),
                ..described("ok")
            },
            restore_acl: Some(true),
            ..pb::CloneSnapshotRequest::default()
        },
    )
    .unwrap_err();
    assert!(e.contains("CloneSnapshotRequest.restoreACL"), "{e}");
    server.shutdown();
}

/// What HBase 2.x's Java client asks the master besides DDL: listings by namespace and by
/// state, a table's flush (FlushTable in 2.6, the "flush-table-proc" procedure before), and
/// the last major compaction's time.
#[test]
fn listings_flushes_and_compaction_times_for_the_java_client() {
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let mut m = Master::connect(&server);
    let _: ProcedureResponse = m.call("CreateTable", &create("on")).unwrap();
    let _: ProcedureResponse = m.call("CreateTable", &create("off")).unwrap();
    let off = TableNameRequest {
        table_name: name("off"),
        ..TableNameRequest::default()
    };
    let _: ProcedureResponse = m.call("DisableTable", &off).unwrap();
    let qualifiers = |names: &[pb::TableName]| -> Vec<String> {
        names
            .iter()
            .map(|n| String::from_utf8_lossy(&n.qualifier).into_owned())
            .filter(|q| q == "on" || q == "off")
            .collect()
    };
    let enabled: pb::ListTableNamesByStateResponse = m
        .call(
            "ListTableNamesByState",
            &pb::ListTableNamesByStateRequest { is_enabled: true },
        )
        .unwrap();
    assert_eq!(qualifiers(&enabled.table_names), ["on"]);
    let disabled: pb::ListTableDescriptorsByStateResponse = m
        .call(
            "ListTableDescriptorsByState",
            &pb::ListTableDescriptorsByStateRequest { is_enabled: false },
        )
        .unwrap();
    let names: Vec<pb::TableName> = disabled
        .table_schema
        .iter()
        .filter_map(|s| s.table_name.clone())
        .collect();
    assert_eq!(qualifiers(&names), ["off"]);
    let in_default: pb::ListTableDescriptorsByNamespaceResponse = m
        .call(
            "ListTableDescriptorsByNamespace",
            &pb::ListTableDescriptorsByNamespaceRequest {
                namespace_name: "default".into(),
            },
        )
        .unwrap();
    assert_eq!(in_default.table_schema.len(), 2);
    let e = m
        .call::<_, pb::ListTableDescriptorsByNamespaceResponse>(
            "ListTableDescriptorsByNamespace",
            &pb::ListTableDescriptorsByNamespaceRequest {
                namespace_name: "nowhere".into(),
            },
        )
        .unwrap_err();
    assert!(e.contains("NamespaceNotFoundException"), "{e}");

    // A flush writes the memstore out, by either route.
    let table = conn.table("on").unwrap();
    table
        .put(&basalt_embedded::Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    let unflushed = || -> usize {
        let regions = conn.admin().open_regions(&"on".parse().unwrap()).unwrap();
        regions.iter().map(|r| r.memstore_bytes()).sum()
    };
    assert!(unflushed() > 0);
    let flushed: pb::FlushTableResponse = m
        .call(
            "FlushTable",
            &pb::FlushTableRequest {
                table_name: name("on"),
                ..pb::FlushTableRequest::default()
            },
        )
        .unwrap();
    assert!(flushed.proc_id.is_some());
    assert_eq!(unflushed(), 0);
    table
        .put(&basalt_embedded::Put::new("r2").add_column("f", "q", "v"))
        .unwrap();
    let procedure = |signature: &str| pb::ProcedureDescription {
        signature: signature.into(),
        instance: Some("on".into()),
        ..pb::ProcedureDescription::default()
    };
    let _: pb::ExecProcedureResponse = m
        .call(
            "ExecProcedure",
            &pb::ExecProcedureRequest {
                procedure: procedure("flush-table-proc"),
            },
        )
        .unwrap();
    assert_eq!(unflushed(), 0);
    let done: pb::IsProcedureDoneResponse = m
        .call(
            "IsProcedureDone",
            &pb::IsProcedureDoneRequest {
                procedure: Some(procedure("flush-table-proc")),
            },
        )
        .unwrap();
    assert_eq!(done.done, Some(true));
    let e = m
        .call::<_, pb::ExecProcedureResponse>(
            "ExecProcedure",
            &pb::ExecProcedureRequest {
                procedure: procedure("online-snapshot"),
            },
        )
        .unwrap_err();
    assert!(e.contains("DoNotRetryIOException"), "{e}");

    // No major compaction yet: 0; after one, its time.
    let compacted = |m: &mut Master| -> i64 {
        let r: pb::MajorCompactionTimestampResponse = m
            .call(
                "getLastMajorCompactionTimestamp",
                &pb::MajorCompactionTimestampRequest {
                    table_name: name("on"),
                },
            )
            .unwrap();
        r.compaction_timestamp
    };
    assert_eq!(compacted(&mut m), 0);
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    conn.admin().major_compact(&"on".parse().unwrap()).unwrap();
    assert!(compacted(&mut m) >= before);
    let region = conn.admin().open_regions(&"on".parse().unwrap()).unwrap()[0]
        .info()
        .region_name();
    let of_region: pb::MajorCompactionTimestampResponse = m
        .call(
            "getLastMajorCompactionTimestampForRegion",
            &pb::MajorCompactionTimestampForRegionRequest {
                region: basalt_rpc::pb::RegionSpecifier {
                    r#type: 1,
                    value: region.to_vec(),
                },
            },
        )
        .unwrap();
    assert!(of_region.compaction_timestamp >= before);
    server.shutdown();
}

#[test]
fn procedures_peers_and_permission_checks_for_the_java_client() {
    let conn = Connection::in_memory();
    let server = support::serve(&conn);
    let mut m = Master::connect(&server);
    let created: ProcedureResponse = m.call("CreateTable", &create("p")).unwrap();
    // A finished procedure is not aborted (nor is one never named).
    for proc_id in [created.proc_id.unwrap(), 9_999] {
        let aborted: pb::AbortProcedureResponse = m
            .call(
                "AbortProcedure",
                &pb::AbortProcedureRequest {
                    proc_id,
                    may_interrupt_if_running: None,
                },
            )
            .unwrap();
        assert!(!aborted.is_procedure_aborted);
    }
    // ExecProcedureWithRet runs the flush procedure, which returns nothing.
    let flush = pb::ExecProcedureRequest {
        procedure: pb::ProcedureDescription {
            signature: "flush-table-proc".into(),
            instance: Some("p".into()),
            ..pb::ProcedureDescription::default()
        },
    };
    let ran: pb::ExecProcedureResponse = m.call("ExecProcedureWithRet", &flush).unwrap();
    assert_eq!(ran.return_data, None);
    // An unknown peer's state is HBase's error for it.
    let err = m
        .call::<_, pb::GetReplicationPeerStateResponse>(
            "IsReplicationPeerEnabled",
            &pb::GetReplicationPeerStateRequest {
                peer_id: "nope".into(),
            },
        )
        .unwrap_err();
    assert!(err.contains("ReplicationPeerNotFoundException"), "{err}");
    // Without authorization there is nothing to check permissions against (HBase refuses
    // too: its AccessController is not loaded).
    let err = m
        .call::<_, pb::HasUserPermissionsResponse>(
            "HasUserPermissions",
            &pb::HasUserPermissionsRequest {
                user_name: Some(b"alice".to_vec()),
                permission: vec![],
            },
        )
        .unwrap_err();
    assert!(err.contains("DoNotRetryIOException"), "{err}");
}
