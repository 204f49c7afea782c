//! The protobuf messages of HBase's REST server (package
//! `org.apache.hadoop.hbase.rest.protobuf.generated`), field for field; the byte layout is in
//! `docs/design/rest.md`.

#![allow(missing_debug_implementations)]

use prost::Message;

#[derive(Clone, PartialEq, Message)]
pub struct Cell {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub column: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "3")]
    pub timestamp: Option<i64>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub data: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Row {
    #[prost(bytes = "vec", required, tag = "1")]
    pub key: Vec<u8>,
    #[prost(message, repeated, tag = "2")]
    pub values: Vec<Cell>,
}

#[derive(Clone, PartialEq, Message)]
pub struct CellSet {
    #[prost(message, repeated, tag = "1")]
    pub rows: Vec<Row>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Scanner {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub start_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub end_row: Option<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub columns: Vec<Vec<u8>>,
    #[prost(int32, optional, tag = "4")]
    pub batch: Option<i32>,
    #[prost(int64, optional, tag = "5")]
    pub start_time: Option<i64>,
    #[prost(int64, optional, tag = "6")]
    pub end_time: Option<i64>,
    #[prost(int32, optional, tag = "7")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "8")]
    pub filter: Option<String>,
    #[prost(int32, optional, tag = "9")]
    pub caching: Option<i32>,
    #[prost(string, repeated, tag = "10")]
    pub labels: Vec<String>,
    #[prost(bool, optional, tag = "11")]
    pub cache_blocks: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Attribute {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(string, required, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct ColumnSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<Attribute>,
    #[prost(int32, optional, tag = "3")]
    pub ttl: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub max_versions: Option<i32>,
    #[prost(string, optional, tag = "5")]
    pub compression: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TableSchema {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(message, repeated, tag = "2")]
    pub attrs: Vec<Attribute>,
    #[prost(message, repeated, tag = "3")]
    pub columns: Vec<ColumnSchema>,
    #[prost(bool, optional, tag = "4")]
    pub in_memory: Option<bool>,
    #[prost(bool, optional, tag = "5")]
    pub read_only: Option<bool>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TableList {
    #[prost(string, repeated, tag = "1")]
    pub name: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct RegionInfo {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub start_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub end_key: Option<Vec<u8>>,
    #[prost(int64, optional, tag = "4")]
    pub id: Option<i64>,
    #[prost(string, optional, tag = "5")]
    pub location: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct TableInfo {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(message, repeated, tag = "2")]
    pub regions: Vec<RegionInfo>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Version {
    #[prost(string, optional, tag = "1")]
    pub rest_version: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub jvm_version: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub os_version: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub server_version: Option<String>,
    #[prost(string, optional, tag = "5")]
    pub jersey_version: Option<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct RegionLoad {
    #[prost(bytes = "vec", required, tag = "1")]
    pub name: Vec<u8>,
    #[prost(int32, optional, tag = "2")]
    pub stores: Option<i32>,
    #[prost(int32, optional, tag = "3")]
    pub storefiles: Option<i32>,
    #[prost(int32, optional, tag = "4")]
    pub storefile_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub mem_store_size_mb: Option<i32>,
    #[prost(int64, optional, tag = "6")]
    pub storefile_index_size_kb: Option<i64>,
    #[prost(int64, optional, tag = "7")]
    pub read_requests_count: Option<i64>,
    #[prost(int64, optional, tag = "8")]
    pub write_requests_count: Option<i64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Node {
    #[prost(string, required, tag = "1")]
    pub name: String,
    #[prost(int64, optional, tag = "2")]
    pub start_code: Option<i64>,
    #[prost(int64, optional, tag = "3")]
    pub requests: Option<i64>,
    #[prost(int32, optional, tag = "4")]
    pub heap_size_mb: Option<i32>,
    #[prost(int32, optional, tag = "5")]
    pub max_heap_size_mb: Option<i32>,
    #[prost(message, repeated, tag = "6")]
    pub regions: Vec<RegionLoad>,
}

#[derive(Clone, PartialEq, Message)]
pub struct StorageClusterStatus {
    #[prost(message, repeated, tag = "1")]
    pub live_nodes: Vec<Node>,
    #[prost(string, repeated, tag = "2")]
    pub dead_nodes: Vec<String>,
    #[prost(int32, optional, tag = "3")]
    pub regions: Option<i32>,
    #[prost(int64, optional, tag = "4")]
    pub requests: Option<i64>,
    #[prost(double, optional, tag = "5")]
    pub average_load: Option<f64>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Namespaces {
    #[prost(string, repeated, tag = "1")]
    pub namespace: Vec<String>,
}

#[derive(Clone, PartialEq, Message)]
pub struct Property {
    #[prost(string, required, tag = "1")]
    pub key: String,
    #[prost(string, required, tag = "2")]
    pub value: String,
}

#[derive(Clone, PartialEq, Message)]
pub struct NamespaceProperties {
    #[prost(message, repeated, tag = "1")]
    pub props: Vec<Property>,
}

/// Encodes a message.
pub fn encode(message: &impl Message) -> Vec<u8> {
    message.encode_to_vec()
}

/// Decodes a message, naming what was wrong with it.
pub fn decode<M: Message + Default>(what: &str, body: &[u8]) -> Result<M, String> {
    M::decode(body).map_err(|e| format!("the {what} protobuf does not decode: {e}"))
}
