//! A small Thrift1 client for the calls benchmarks and tools make (`basalt pe` remote mode):
//! one connection, one call at a time, over either transport and protocol.

use std::io::{self, BufReader, Write};
use std::net::{SocketAddr, TcpStream};

use crate::protocol::{CALL, EXCEPTION, Fields, Protocol, Reader, TType, Value, WireError, Writer};

/// What a reader of one value returns.
type WireResult = std::result::Result<(), WireError>;

/// Why a call failed.
#[derive(Debug)]
pub enum ClientError {
    Wire(WireError),
    /// The server raised a declared exception (IOError, IllegalArgument, AlreadyExists).
    Remote(String),
    /// The server could not run the call (TApplicationException).
    Application(String),
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Wire(e) => write!(f, "{e}"),
            ClientError::Remote(m) => write!(f, "server error: {m}"),
            ClientError::Application(m) => write!(f, "server could not run the call: {m}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<io::Error> for ClientError {
    fn from(e: io::Error) -> Self {
        ClientError::Wire(WireError::Io(e))
    }
}

impl From<WireError> for ClientError {
    fn from(e: WireError) -> Self {
        ClientError::Wire(e)
    }
}

type Result<T> = std::result::Result<T, ClientError>;

/// A row to put: its key and `(family, qualifier, value)` cells.
pub type RowCells<R, C> = (R, Vec<(C, C, C)>);

/// One connection to a Thrift1 server.
#[derive(Debug)]
pub struct ThriftClient {
    out: TcpStream,
    input: BufReader<TcpStream>,
    protocol: Protocol,
    framed: bool,
    seq: i32,
    /// The call buffer, reused.
    w: Writer,
}

impl ThriftClient {
    pub fn connect(addr: SocketAddr, framed: bool, compact: bool) -> Result<ThriftClient> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        let protocol = if compact {
            Protocol::Compact
        } else {
            Protocol::Binary
        };
        Ok(ThriftClient {
            out: stream.try_clone()?,
            input: BufReader::with_capacity(64 * 1024, stream),
            protocol,
            framed,
            seq: 0,
            w: Writer::new(protocol),
        })
    }

    /// Sends `method` with the arguments `args` writes; returns the result struct, or the
    /// exception the server raised as an error.
    pub fn call(&mut self, method: &str, args: impl FnOnce(&mut Writer)) -> Result<Fields> {
        let mut fields = Vec::new();
        self.call_reading(method, args, |r, id, ttype| {
            fields.push((id, r.value(ttype)?));
            Ok(())
        })?;
        Ok(Fields(fields))
    }

    /// [`ThriftClient::call`], reading the result's fields other than the exceptions as they
    /// arrive: `result` gets each one's id and type and must consume its value (see
    /// [`Reader::read_struct_with`]). Nothing is built that the caller does not keep.
    pub fn call_reading(
        &mut self,
        method: &str,
        args: impl FnOnce(&mut Writer),
        mut result: impl FnMut(&mut Reader<&mut BufReader<TcpStream>>, i16, TType) -> WireResult,
    ) -> Result<()> {
        self.seq = self.seq.wrapping_add(1);
        let w = &mut self.w;
        w.reset(self.framed);
        w.message_begin(method, CALL, self.seq);
        w.struct_begin();
        args(w);
        w.struct_end();
        if self.framed {
            w.finish_frame();
        }
        self.out.write_all(&w.buf)?;
        if self.framed {
            let mut len = [0u8; 4];
            io::Read::read_exact(&mut self.input, &mut len)?;
        }
        let mut r = Reader::new(&mut self.input, self.protocol, 1 << 30);
        let header = r.message_begin()?;
        if header.kind == EXCEPTION {
            return Err(ClientError::Application(message(&r.read_struct()?)));
        }
        // Fields 1 to 3 of every HBase result are its declared exceptions.
        let mut raised = None;
        r.read_struct_with(|r, id, ttype| match id {
            1..=3 if ttype == TType::Struct => {
                raised = Some(message(&r.read_struct()?));
                Ok(())
            }
            _ => result(r, id, ttype),
        })?;
        match raised {
            Some(m) => Err(ClientError::Remote(m)),
            None => Ok(()),
        }
    }

    pub fn table_names(&mut self) -> Result<Vec<Vec<u8>>> {
        let f = self.call("getTableNames", |_| {})?;
        Ok(binaries(f.list(0).unwrap_or_default()))
    }

    /// `createTable` with each family's max versions and compression, block cache on (the
    /// IDL's default is off).
    pub fn create_table(&mut self, table: &[u8], families: &[(&[u8], i32, &str)]) -> Result<()> {
        self.call("createTable", |w| {
            w.field(1, TType::String);
            w.binary(table);
            w.field(2, TType::List);
            w.list_begin(TType::Struct, families.len());
            for (name, versions, compression) in families {
                w.struct_begin();
                w.field(1, TType::String);
                let mut n = name.to_vec();
                n.push(b':');
                w.binary(&n);
                w.field(2, TType::I32);
                w.i32(*versions);
                w.field(3, TType::String);
                w.string(compression);
                w.field_bool(8, true);
                w.struct_end();
            }
        })?;
        Ok(())
    }

    /// `mutateRows`: each row's `(family, qualifier, value)` puts.
    pub fn put_rows<R, C>(&mut self, table: &[u8], rows: &[RowCells<R, C>], wal: bool) -> Result<()>
    where
        R: AsRef<[u8]>,
        C: AsRef<[u8]>,
    {
        self.call("mutateRows", |w| {
            w.field(1, TType::String);
            w.binary(table);
            w.field(2, TType::List);
            w.list_begin(TType::Struct, rows.len());
            for (row, cells) in rows {
                w.struct_begin();
                w.field(1, TType::String);
                w.binary(row.as_ref());
                w.field(2, TType::List);
                w.list_begin(TType::Struct, cells.len());
                for (family, qualifier, value) in cells {
                    w.struct_begin();
                    w.field_bool(1, false);
                    w.field(2, TType::String);
                    w.binary_parts(&[family.as_ref(), b":", qualifier.as_ref()]);
                    w.field(3, TType::String);
                    w.binary(value.as_ref());
                    w.field_bool(4, wal);
                    w.struct_end();
                }
                w.struct_end();
            }
        })?;
        Ok(())
    }

    /// `getRow`: the number of columns the row has (0 if it is missing). The reply is read
    /// through, and its columns counted, without being kept.
    pub fn get_row(&mut self, table: &[u8], row: &[u8]) -> Result<usize> {
        let mut columns = 0;
        self.call_reading(
            "getRow",
            |w| {
                w.field(1, TType::String);
                w.binary(table);
                w.field(2, TType::String);
                w.binary(row);
            },
            |r, id, ttype| {
                if id != 0 || ttype != TType::List {
                    return r.skip(ttype);
                }
                // list<TRowResult>; a TRowResult's field 2 is its map of columns.
                let (elem, n) = r.list_begin()?;
                for _ in 0..n {
                    if elem != TType::Struct {
                        r.skip(elem)?;
                        continue;
                    }
                    r.read_struct_with(|r, id, ttype| {
                        if id != 2 || ttype != TType::Map {
                            return r.skip(ttype);
                        }
                        let (pairs, key, value) = r.map_begin()?;
                        columns += pairs;
                        (0..pairs).try_for_each(|_| r.skip(key).and_then(|()| r.skip(value)))
                    })?;
                }
                Ok(())
            },
        )?;
        Ok(columns)
    }

    /// Opens a scanner from `start` with `caching`, reads up to `rows` rows, closes it;
    /// returns how many rows came back.
    pub fn scan(&mut self, table: &[u8], start: &[u8], rows: usize) -> Result<usize> {
        let caching = i32::try_from(rows).unwrap_or(i32::MAX);
        let f = self.call("scannerOpenWithScan", |w| {
            w.field(1, TType::String);
            w.binary(table);
            w.field(2, TType::Struct);
            w.struct_begin();
            w.field(1, TType::String);
            w.binary(start);
            w.field(5, TType::I32);
            w.i32(caching);
            w.struct_end();
        })?;
        let id = f.i32(0).unwrap_or(-1);
        let f = self.call("scannerGetList", |w| {
            w.field(1, TType::I32);
            w.i32(id);
            w.field(2, TType::I32);
            w.i32(caching);
        })?;
        let n = f.list(0).map_or(0, <[Value]>::len);
        self.call("scannerClose", |w| {
            w.field(1, TType::I32);
            w.i32(id);
        })?;
        Ok(n)
    }

    /// `atomicIncrement` by `by`; returns the new value.
    pub fn increment(&mut self, table: &[u8], row: &[u8], column: &[u8], by: i64) -> Result<i64> {
        let f = self.call("atomicIncrement", |w| {
            w.field(1, TType::String);
            w.binary(table);
            w.field(2, TType::String);
            w.binary(row);
            w.field(3, TType::String);
            w.binary(column);
            w.field(4, TType::I64);
            w.i64(by);
        })?;
        Ok(f.i64(0).unwrap_or(0))
    }
}

fn message(f: &Fields) -> String {
    String::from_utf8_lossy(f.binary(1).unwrap_or_default()).into_owned()
}

fn binaries(values: &[Value]) -> Vec<Vec<u8>> {
    values
        .iter()
        .filter_map(|v| match v {
            Value::Binary(b) => Some(b.clone()),
            _ => None,
        })
        .collect()
}
