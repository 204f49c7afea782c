//! The protobuf messages of HBase's REST server (package
//! `org.apache.hadoop.hbase.rest.protobuf.generated`), field for field, compiled from `proto/rest.proto`; the byte layout is in
//! `docs/design/rest.md`.

use prost::Message;

#[allow(clippy::all, reason = "generated code")]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/rest.rs"));
}

pub use generated::*;

/// Encodes a message.
pub fn encode(message: &impl Message) -> Vec<u8> {
    message.encode_to_vec()
}

/// Decodes a message, naming what was wrong with it.
pub fn decode<M: Message + Default>(what: &str, body: &[u8]) -> Result<M, String> {
    M::decode(body).map_err(|e| format!("the {what} protobuf does not decode: {e}"))
}
