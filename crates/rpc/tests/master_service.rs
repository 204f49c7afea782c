//! MasterService over a real socket: tables and namespaces administered the way native clients
//! do it, procedure ids that are finished when asked about, HBase's exception classes.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use basalt_client::Connection;
use basalt_rpc::frame::{encode_call, encode_connection_start, read_response};
use basalt_rpc::pb::{
    self, BytesBytesPair, ColumnFamilySchema, ConnectionHeader, CreateTableRequest, Empty,
    GetProcedureResultRequest, GetProcedureResultResponse, GetTableDescriptorsRequest,
    GetTableDescriptorsResponse, GetTableNamesRequest, GetTableNamesResponse, GetTableStateRequest,
    GetTableStateResponse, IsMasterRunningResponse, ListNamespacesResponse, NamespaceRequest,
    ProcedureResponse, TableNameRequest, TableSchema, get_procedure_result_response, table_state,
};
use basalt_rpc::{RpcConfig, RpcServer};
use prost::Message;

struct Master {
    stream: TcpStream,
    id: u32,
}

impl Master {
    fn connect(server: &RpcServer) -> Master {
        let mut stream = TcpStream::connect(server.local_addr()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream
            .write_all(&encode_connection_start(&ConnectionHeader {
                service_name: Some("MasterService".into()),
                ..ConnectionHeader::default()
            }))
            .unwrap();
        Master { stream, id: 0 }
    }

    fn call<M: Message, R: Message + Default>(
        &mut self,
        method: &str,
        param: &M,
    ) -> Result<R, String> {
        self.id += 1;
        self.stream
            .write_all(&encode_call(self.id, method, param))
            .unwrap();
        let (h, m) = read_response(&mut self.stream, 1 << 30).unwrap();
        match h.exception {
            Some(e) => Err(e.exception_class_name.unwrap_or_default()),
            None => Ok(R::decode(m.unwrap_or_default().as_slice()).unwrap()),
        }
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
    let server = RpcServer::start(
        conn.clone(),
        RpcConfig {
            bind: "127.0.0.1:0".parse().unwrap(),
            ..RpcConfig::default()
        },
    )
    .unwrap();
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
            .regions(&basalt_client::TableName::parse("t").unwrap())
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
            },
        )
        .unwrap();
    let namespaces: ListNamespacesResponse = m.call("ListNamespaces", &Empty {}).unwrap();
    assert!(namespaces.namespace_name.contains(&"ns1".to_string()));
    assert!(
        m.call::<_, Empty>("Balance", &Empty {})
            .unwrap_err()
            .ends_with("UnknownProtocolException")
    );
    server.shutdown();
}
