//! A minimal Thrift1 client for the gateway's tests, built on the crate's own codec: calls are
//! written field by field, replies decoded generically.
#![allow(dead_code, reason = "each test file uses part of the client")]

use std::io::{BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use std::ops::Deref;
use std::sync::Arc;

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Client as BasaltClient, Connection};
use basalt_rpc::{RpcConfig, RpcServer};
use basalt_thrift::protocol::{
    CALL, EXCEPTION, Fields, MessageHeader, Protocol, REPLY, Reader, TType, Value, Writer,
};
use basalt_thrift::{ThriftConfig, ThriftServer};

/// The connection the gateway serves: the engine in process, or a server reached over the
/// native RPC (as `basalt thrift --connect` runs it).
#[derive(Debug, Clone, Copy)]
pub enum Backend {
    Embedded,
    Remote,
}

/// Runs each named test (a `fn(Backend)`) once per backend, as `embedded::name` and
/// `remote::name`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod embedded {
            $(#[test]
            fn $name() {
                super::$name(super::support::Backend::Embedded)
            })*
        }
        mod remote {
            $(#[test]
            fn $name() {
                super::$name(super::support::Backend::Remote)
            })*
        }
    };
}

/// The in-memory engine behind a gateway, and the RPC server in front of it for the remote
/// backend (stopped when this is dropped).
#[derive(Debug)]
pub struct Engine {
    conn: Connection,
    rpc: Option<RpcServer>,
}

impl Deref for Engine {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        &self.conn
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(rpc) = self.rpc.take() {
            rpc.shutdown();
        }
    }
}

/// A server on a free port over an in-memory engine.
pub fn server(backend: Backend, framed: bool, compact: bool) -> (ThriftServer, Engine) {
    server_with(
        backend,
        ThriftConfig {
            bind: "127.0.0.1:0".parse().expect("addr"),
            framed,
            compact,
            ..ThriftConfig::default()
        },
    )
}

pub fn server_with(backend: Backend, config: ThriftConfig) -> (ThriftServer, Engine) {
    let conn = Connection::in_memory();
    let (client, rpc): (Arc<dyn BasaltClient>, _) = match backend {
        Backend::Embedded => (Arc::new(conn.clone()), None),
        Backend::Remote => {
            let rpc = conn
                .serve_rpc(RpcConfig {
                    bind: ([127, 0, 0, 1], 0).into(),
                    ..RpcConfig::default()
                })
                .expect("rpc server");
            let remote = RemoteConnection::connect(rpc.local_addr(), RemoteConfig::default())
                .expect("remote connection");
            (Arc::new(remote), Some(rpc))
        }
    };
    let server = ThriftServer::start(client, config).expect("start");
    (server, Engine { conn, rpc })
}

/// One argument of a call.
pub enum Arg<'a> {
    Bin(&'a [u8]),
    I32(i32),
    I64(i64),
    Bool(bool),
    Texts(&'a [&'a [u8]]),
    /// A struct, written by the closure.
    Struct(&'a dyn Fn(&mut Writer)),
    /// A list of structs.
    Structs(usize, &'a dyn Fn(&mut Writer, usize)),
}

pub struct Client {
    stream: TcpStream,
    input: BufReader<TcpStream>,
    pub protocol: Protocol,
    pub framed: bool,
    seq: i32,
}

/// A reply: the result struct's fields, or the exception the call raised.
#[derive(Debug)]
pub enum Answer {
    Ok(Fields),
    /// TApplicationException: message and type.
    AppError(String, i32),
}

impl Client {
    pub fn connect(server: &ThriftServer) -> Client {
        let stream = TcpStream::connect(server.local_addr()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .expect("timeout");
        Client {
            input: BufReader::new(stream.try_clone().expect("clone")),
            stream,
            protocol: Protocol::Binary,
            framed: false,
            seq: 0,
        }
    }

    pub fn with(mut self, framed: bool, compact: bool) -> Client {
        self.framed = framed;
        self.protocol = if compact {
            Protocol::Compact
        } else {
            Protocol::Binary
        };
        self
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    /// Encodes a call without sending it.
    pub fn encode(&mut self, method: &str, args: &[(i16, Arg<'_>)]) -> Vec<u8> {
        self.seq += 1;
        let mut w = Writer::new(self.protocol);
        w.message_begin(method, CALL, self.seq);
        w.struct_begin();
        for (id, arg) in args {
            match arg {
                Arg::Bin(b) => {
                    w.field(*id, TType::String);
                    w.binary(b);
                }
                Arg::I32(v) => {
                    w.field(*id, TType::I32);
                    w.i32(*v);
                }
                Arg::I64(v) => {
                    w.field(*id, TType::I64);
                    w.i64(*v);
                }
                Arg::Bool(v) => w.field_bool(*id, *v),
                Arg::Texts(items) => {
                    w.field(*id, TType::List);
                    w.list_begin(TType::String, items.len());
                    for i in *items {
                        w.binary(i);
                    }
                }
                Arg::Struct(f) => {
                    w.field(*id, TType::Struct);
                    w.struct_begin();
                    f(&mut w);
                    w.struct_end();
                }
                Arg::Structs(n, f) => {
                    w.field(*id, TType::List);
                    w.list_begin(TType::Struct, *n);
                    for i in 0..*n {
                        w.struct_begin();
                        f(&mut w, i);
                        w.struct_end();
                    }
                }
            }
        }
        w.struct_end();
        let mut out = Vec::new();
        if self.framed {
            out.extend_from_slice(&(w.buf.len() as u32).to_be_bytes());
        }
        out.extend_from_slice(&w.buf);
        out
    }

    pub fn read_answer(&mut self) -> Answer {
        if self.framed {
            let mut len = [0u8; 4];
            self.input.read_exact(&mut len).expect("frame length");
        }
        let mut r = Reader::new(&mut self.input, self.protocol, 1 << 30);
        let MessageHeader { kind, .. } = r.message_begin().expect("reply header");
        let fields = r.read_struct().expect("reply body");
        match kind {
            REPLY => Answer::Ok(fields),
            EXCEPTION => Answer::AppError(
                String::from_utf8_lossy(fields.binary(1).unwrap_or_default()).into_owned(),
                fields.i32(2).unwrap_or(-1),
            ),
            other => panic!("unexpected message type {other}"),
        }
    }

    pub fn call(&mut self, method: &str, args: &[(i16, Arg<'_>)]) -> Fields {
        let bytes = self.encode(method, args);
        self.send_raw(&bytes);
        match self.read_answer() {
            Answer::Ok(f) => f,
            Answer::AppError(m, t) => panic!("{method}: application error {t}: {m}"),
        }
    }
}

/// Field 0 of a result, which must be there.
pub fn success(f: &Fields) -> &Value {
    f.get(0)
        .unwrap_or_else(|| panic!("no success field in {f:?}"))
}

/// The message of the exception in field `id` of a result.
pub fn exception(f: &Fields, id: i16) -> String {
    let e = f
        .strukt(id)
        .unwrap_or_else(|| panic!("no exception {id} in {f:?}"));
    String::from_utf8_lossy(e.binary(1).unwrap_or_default()).into_owned()
}

pub fn list(v: &Value) -> &[Value] {
    match v {
        Value::List(l) => l,
        other => panic!("not a list: {other:?}"),
    }
}

pub fn strukt(v: &Value) -> &Fields {
    match v {
        Value::Struct(f) => f,
        other => panic!("not a struct: {other:?}"),
    }
}

/// The (value, timestamp) of each TCell in a list<TCell>.
pub fn tcells(v: &Value) -> Vec<(Vec<u8>, i64)> {
    list(v)
        .iter()
        .map(|c| {
            let c = strukt(c);
            (
                c.binary(1).unwrap_or_default().to_vec(),
                c.i64(2).expect("timestamp"),
            )
        })
        .collect()
}

/// A row and its (column, value) pairs.
pub type Row = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>);

/// A TRowResult's row and its `columns` map (or `sortedColumns` list) as (column, value) pairs.
pub fn row_columns(v: &Value) -> Row {
    let r = strukt(v);
    let mut cols = Vec::new();
    if let Some(Value::Map(m)) = r.get(2) {
        for (k, cell) in m {
            let Value::Binary(k) = k else { panic!("key") };
            cols.push((
                k.clone(),
                strukt(cell).binary(1).unwrap_or_default().to_vec(),
            ));
        }
    }
    if let Some(Value::List(l)) = r.get(3) {
        for c in l {
            let c = strukt(c);
            let cell = c.strukt(2).expect("cell");
            cols.push((
                c.binary(1).unwrap_or_default().to_vec(),
                cell.binary(1).unwrap_or_default().to_vec(),
            ));
        }
    }
    (r.binary(1).unwrap_or_default().to_vec(), cols)
}

/// Writes a ColumnDescriptor with a name and max versions, other fields left to defaults.
pub fn column_descriptor(w: &mut Writer, name: &[u8], max_versions: Option<i32>) {
    w.field(1, TType::String);
    w.binary(name);
    if let Some(v) = max_versions {
        w.field(2, TType::I32);
        w.i32(v);
    }
}

/// Writes a Mutation.
pub fn mutation(w: &mut Writer, delete: bool, column: &[u8], value: &[u8]) {
    w.field_bool(1, delete);
    w.field(2, TType::String);
    w.binary(column);
    w.field(3, TType::String);
    w.binary(value);
}
