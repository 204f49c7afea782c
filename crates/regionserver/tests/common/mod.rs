//! What the ClientService tests share: a client speaking HBase's RPC on a raw socket, and
//! the requests and table they build.
#![allow(dead_code, reason = "each test binary uses some of these")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::Write;
use std::net::TcpStream;
use std::time::Duration;

use basalt_embedded::{ColumnFamilyDescriptor, Connection, TableDescriptor, TableName};
use basalt_rpc::frame::{encode_call_with_cells, encode_connection_start, read_response};
use basalt_rpc::pb::{
    self, ConnectionHeader, Get, GetRequest, MutationProto, RegionSpecifier, ResponseHeader,
    mutation_proto, region_specifier::RegionSpecifierType,
};
use basalt_rpc::{RpcConfig, RpcServer};
use prost::Message;

#[path = "../../../rpc/tests/support/mod.rs"]
pub mod support;

pub struct Client {
    stream: TcpStream,
    call_id: u32,
    /// A cell block the next call carries.
    pub cells: Vec<u8>,
}

impl Client {
    pub fn connect(server: &RpcServer, service: &str) -> Client {
        Client::connect_with(
            server,
            ConnectionHeader {
                service_name: Some(service.into()),
                cell_block_codec_class: Some("org.apache.hadoop.hbase.codec.KeyValueCodec".into()),
                ..ConnectionHeader::default()
            },
        )
    }

    pub fn connect_with(server: &RpcServer, header: ConnectionHeader) -> Client {
        let mut stream = TcpStream::connect(server.local_addr()).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream.write_all(&encode_connection_start(&header)).unwrap();
        Client {
            stream,
            call_id: 0,
            cells: Vec::new(),
        }
    }

    pub fn call<M: Message>(
        &mut self,
        method: &str,
        param: &M,
    ) -> (ResponseHeader, Option<Vec<u8>>) {
        self.call_id += 1;
        let cells = std::mem::take(&mut self.cells);
        self.stream
            .write_all(&encode_call_with_cells(
                self.call_id,
                method,
                param,
                &[&cells],
            ))
            .unwrap();
        let (h, m) = read_response(&mut self.stream, 1 << 30).unwrap();
        assert_eq!(h.call_id, Some(self.call_id));
        (h, m)
    }

    pub fn ok<M: Message, R: Message + Default>(&mut self, method: &str, param: &M) -> R {
        let (h, m) = self.call(method, param);
        assert!(h.exception.is_none(), "{method}: {:?}", h.exception);
        R::decode(m.unwrap_or_default().as_slice()).unwrap()
    }

    pub fn err<M: Message>(&mut self, method: &str, param: &M) -> String {
        let (h, _) = self.call(method, param);
        let e = h.exception.unwrap_or_else(|| panic!("{method} succeeded"));
        format!(
            "{}: {}",
            e.exception_class_name.unwrap_or_default(),
            e.stack_trace.unwrap_or_default()
        )
    }
}

/// A Get of a whole row in the named region.
pub fn get_row(region_name: &[u8], row: &[u8]) -> GetRequest {
    GetRequest {
        region: region(region_name),
        get: Get {
            row: row.to_vec(),
            ..Get::default()
        },
    }
}

pub fn region(name: &[u8]) -> RegionSpecifier {
    RegionSpecifier {
        r#type: RegionSpecifierType::RegionName as i32,
        value: name.to_vec(),
    }
}

pub fn put(row: &[u8], q: &[u8], v: &[u8]) -> MutationProto {
    use mutation_proto::column_value::QualifierValue;
    MutationProto {
        row: Some(row.to_vec()),
        mutate_type: Some(mutation_proto::MutationType::Put as i32),
        column_value: vec![mutation_proto::ColumnValue {
            family: b"f".to_vec(),
            qualifier_value: vec![QualifierValue {
                qualifier: Some(q.to_vec()),
                value: Some(v.to_vec()),
                ..QualifierValue::default()
            }],
        }],
        ..MutationProto::default()
    }
}

pub fn values(r: &pb::Result) -> Vec<(Vec<u8>, Vec<u8>)> {
    r.cell
        .iter()
        .map(|c| (c.row.clone().unwrap(), c.value.clone().unwrap()))
        .collect()
}

pub fn setup() -> (RpcServer, Connection, Vec<Vec<u8>>) {
    let conn = Connection::in_memory();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin()
        .create_table_with_splits(desc, &["m".into()])
        .unwrap();
    let regions = conn
        .admin()
        .regions(&TableName::parse("t").unwrap())
        .unwrap()
        .into_iter()
        .map(|r| r.name.to_vec())
        .collect();
    let server = conn
        .serve_rpc(RpcConfig {
            max_frame: 1 << 20,
            ..support::loopback()
        })
        .unwrap();
    (server, conn, regions)
}

/// A mutation whose cells travel in the cell block, as HBase's Java client sends them.
pub fn counted(row: &[u8], kind: mutation_proto::MutationType, cells: i32) -> MutationProto {
    MutationProto {
        row: Some(row.to_vec()),
        mutate_type: Some(kind as i32),
        associated_cell_count: Some(cells),
        ..MutationProto::default()
    }
}
