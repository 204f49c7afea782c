//! Thrift's binary and compact protocols, written for this gateway: a reader that decodes a
//! call's arguments into generic [`Value`]s within a byte budget, and a writer for replies.
//! Wire formats: `docs/design/thrift.md`.

use std::io::{self, BufRead};

/// Which encoding a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    Binary,
    Compact,
}

/// Thrift's types, by their binary-protocol codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TType {
    Bool = 2,
    Byte = 3,
    Double = 4,
    I16 = 6,
    I32 = 8,
    I64 = 10,
    String = 11,
    Struct = 12,
    Map = 13,
    Set = 14,
    List = 15,
}

impl TType {
    fn from_binary(code: u8) -> Option<TType> {
        Some(match code {
            2 => TType::Bool,
            3 => TType::Byte,
            4 => TType::Double,
            6 => TType::I16,
            8 => TType::I32,
            10 => TType::I64,
            11 => TType::String,
            12 => TType::Struct,
            13 => TType::Map,
            14 => TType::Set,
            15 => TType::List,
            _ => return None,
        })
    }

    /// The compact protocol's code; a bool field carries its value in the code instead.
    fn compact(self) -> u8 {
        match self {
            TType::Bool => 1,
            TType::Byte => 3,
            TType::I16 => 4,
            TType::I32 => 5,
            TType::I64 => 6,
            TType::Double => 7,
            TType::String => 8,
            TType::List => 9,
            TType::Set => 10,
            TType::Map => 11,
            TType::Struct => 12,
        }
    }

    fn from_compact(code: u8) -> Option<TType> {
        Some(match code {
            1 | 2 => TType::Bool,
            3 => TType::Byte,
            4 => TType::I16,
            5 => TType::I32,
            6 => TType::I64,
            7 => TType::Double,
            8 => TType::String,
            9 => TType::List,
            10 => TType::Set,
            11 => TType::Map,
            12 => TType::Struct,
            _ => return None,
        })
    }
}

/// Message types.
pub const CALL: u8 = 1;
pub const REPLY: u8 = 2;
pub const EXCEPTION: u8 = 3;
pub const ONEWAY: u8 = 4;

/// A decoded value. Sets decode as lists.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Bool(bool),
    Byte(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Double(f64),
    Binary(Vec<u8>),
    Struct(Fields),
    List(Vec<Value>),
    Map(Vec<(Value, Value)>),
}

/// A struct's fields by id, in wire order. Getters treat a field of the wrong type as absent,
/// as generated Thrift code skips it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fields(pub Vec<(i16, Value)>);

impl Fields {
    pub fn get(&self, id: i16) -> Option<&Value> {
        self.0.iter().rev().find(|(i, _)| *i == id).map(|(_, v)| v)
    }

    pub fn binary(&self, id: i16) -> Option<&[u8]> {
        match self.get(id) {
            Some(Value::Binary(b)) => Some(b),
            _ => None,
        }
    }

    pub fn bool(&self, id: i16) -> Option<bool> {
        match self.get(id) {
            Some(Value::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    pub fn i32(&self, id: i16) -> Option<i32> {
        match self.get(id) {
            Some(Value::I32(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn i64(&self, id: i16) -> Option<i64> {
        match self.get(id) {
            Some(Value::I64(v)) => Some(*v),
            _ => None,
        }
    }

    pub fn list(&self, id: i16) -> Option<&[Value]> {
        match self.get(id) {
            Some(Value::List(v)) => Some(v),
            _ => None,
        }
    }

    pub fn strukt(&self, id: i16) -> Option<&Fields> {
        match self.get(id) {
            Some(Value::Struct(f)) => Some(f),
            _ => None,
        }
    }
}

/// Why a message could not be read.
#[derive(Debug)]
pub enum WireError {
    /// The peer closed the connection between messages.
    Closed,
    Io(io::Error),
    /// The message is larger than the configured limit.
    TooLarge {
        limit: usize,
    },
    /// The bytes are not a Thrift message of this protocol.
    Malformed(String),
}

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireError::Closed => write!(f, "connection closed"),
            WireError::Io(e) => write!(f, "I/O error: {e}"),
            WireError::TooLarge { limit } => {
                write!(f, "message larger than the limit of {limit} bytes")
            }
            WireError::Malformed(what) => write!(f, "malformed message: {what}"),
        }
    }
}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            WireError::Malformed("truncated message".into())
        } else {
            WireError::Io(e)
        }
    }
}

fn malformed(what: impl Into<String>) -> WireError {
    WireError::Malformed(what.into())
}

/// Nesting deeper than this is refused, so hostile input cannot overflow the stack.
const MAX_DEPTH: usize = 64;

/// A message's header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageHeader {
    pub name: String,
    pub kind: u8,
    pub seq: i32,
}

/// Reads one message from a stream, consuming at most `limit` bytes.
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    protocol: Protocol,
    remaining: usize,
    limit: usize,
    depth: usize,
    /// A compact bool field's value, read with its header, until the field's reader takes it.
    field_bool: Option<bool>,
}

impl<R: BufRead> Reader<R> {
    pub fn new(inner: R, protocol: Protocol, limit: usize) -> Self {
        Reader {
            inner,
            protocol,
            remaining: limit,
            limit,
            depth: 0,
            field_bool: None,
        }
    }

    fn budget(&mut self, n: usize) -> Result<(), WireError> {
        if n > self.remaining {
            return Err(WireError::TooLarge { limit: self.limit });
        }
        self.remaining -= n;
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        self.budget(N)?;
        let mut b = [0u8; N];
        // Straight from the buffer when it holds them (the usual case), else by reading.
        let buffered = self.inner.fill_buf()?;
        if let Some(head) = buffered.get(..N) {
            b.copy_from_slice(head);
            self.inner.consume(N);
        } else {
            self.inner.read_exact(&mut b)?;
        }
        Ok(b)
    }

    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.array::<1>()?[0])
    }

    fn bytes(&mut self, n: usize) -> Result<Vec<u8>, WireError> {
        self.budget(n)?;
        let mut v = vec![0u8; n];
        self.inner.read_exact(&mut v)?;
        Ok(v)
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let mut out = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(out);
            }
        }
        Err(malformed("varint longer than 10 bytes"))
    }

    fn zigzag(&mut self) -> Result<i64, WireError> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn length(&mut self) -> Result<usize, WireError> {
        let n = match self.protocol {
            Protocol::Binary => {
                let n = i32::from_be_bytes(self.array()?);
                usize::try_from(n).map_err(|_| malformed(format!("negative length {n}")))?
            }
            Protocol::Compact => {
                usize::try_from(self.varint()?).map_err(|_| malformed("length out of range"))?
            }
        };
        // Every element takes at least one byte: a count past the budget cannot be honest.
        if n > self.remaining {
            return Err(WireError::TooLarge { limit: self.limit });
        }
        Ok(n)
    }

    /// The next message's header. `Closed` if the stream ends cleanly before it.
    pub fn message_begin(&mut self) -> Result<MessageHeader, WireError> {
        let mut first = [0u8; 1];
        loop {
            match self.inner.read(&mut first) {
                Ok(0) => return Err(WireError::Closed),
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(WireError::Io(e)),
            }
        }
        self.budget(1)?;
        match self.protocol {
            Protocol::Binary => {
                let rest: [u8; 3] = self.array()?;
                let word = i32::from_be_bytes([first[0], rest[0], rest[1], rest[2]]);
                if word < 0 {
                    if (word as u32) & 0xffff_0000 != 0x8001_0000 {
                        return Err(malformed(format!("bad binary protocol version {word:#x}")));
                    }
                    let kind = (word & 0xff) as u8;
                    let name = self.string()?;
                    let seq = i32::from_be_bytes(self.array()?);
                    Ok(MessageHeader { name, kind, seq })
                } else {
                    // The old unversioned header: the name's length comes first.
                    let len = usize::try_from(word).unwrap_or(usize::MAX);
                    if len > self.remaining {
                        return Err(WireError::TooLarge { limit: self.limit });
                    }
                    let name = String::from_utf8(self.bytes(len)?)
                        .map_err(|_| malformed("method name is not UTF-8"))?;
                    let kind = self.u8()?;
                    let seq = i32::from_be_bytes(self.array()?);
                    Ok(MessageHeader { name, kind, seq })
                }
            }
            Protocol::Compact => {
                if first[0] != 0x82 {
                    return Err(malformed(format!(
                        "bad compact protocol id {:#04x}",
                        first[0]
                    )));
                }
                let vt = self.u8()?;
                if vt & 0x1f != 1 {
                    return Err(malformed(format!("bad compact version {}", vt & 0x1f)));
                }
                let seq = self.varint()? as i32;
                let name = self.string()?;
                Ok(MessageHeader {
                    name,
                    kind: vt >> 5,
                    seq,
                })
            }
        }
    }

    fn string(&mut self) -> Result<String, WireError> {
        let n = self.length()?;
        String::from_utf8(self.bytes(n)?).map_err(|_| malformed("string is not UTF-8"))
    }

    /// A whole struct, as generic fields.
    pub fn read_struct(&mut self) -> Result<Fields, WireError> {
        let mut fields = Vec::new();
        self.read_struct_with(|r, id, ttype| {
            fields.push((id, r.value(ttype)?));
            Ok(())
        })?;
        Ok(Fields(fields))
    }

    /// Reads a struct field by field without building it: `field` gets each field's id and
    /// type, and must consume the value, with [`Reader::value`], [`Reader::skip`] or the
    /// list and map readers.
    pub fn read_struct_with(
        &mut self,
        mut field: impl FnMut(&mut Self, i16, TType) -> Result<(), WireError>,
    ) -> Result<(), WireError> {
        self.nested(|r| {
            let mut last_id = 0i16;
            loop {
                let head = r.u8()?;
                if head == 0 {
                    return Ok(());
                }
                match r.protocol {
                    Protocol::Binary => {
                        let ttype = TType::from_binary(head)
                            .ok_or_else(|| malformed(format!("unknown field type {head}")))?;
                        let id = i16::from_be_bytes(r.array()?);
                        field(r, id, ttype)?;
                    }
                    Protocol::Compact => {
                        let code = head & 0x0f;
                        let delta = head >> 4;
                        let id = if delta == 0 {
                            i16::try_from(r.zigzag()?).map_err(|_| malformed("field id"))?
                        } else {
                            last_id.wrapping_add(i16::from(delta))
                        };
                        last_id = id;
                        let ttype = TType::from_compact(code)
                            .ok_or_else(|| malformed(format!("unknown field type {code}")))?;
                        // A compact bool field carries its value in the type code.
                        if ttype == TType::Bool {
                            r.field_bool = Some(code == 1);
                        }
                        field(r, id, ttype)?;
                        if r.field_bool.take().is_some() {
                            return Err(malformed(format!("bool field {id} was not read")));
                        }
                    }
                }
            }
        })
    }

    fn elem_type(&mut self, code: u8) -> Result<TType, WireError> {
        let t = match self.protocol {
            Protocol::Binary => TType::from_binary(code),
            Protocol::Compact => TType::from_compact(code),
        };
        t.ok_or_else(|| malformed(format!("unknown element type {code}")))
    }

    /// A list's (or set's) element type and length; the elements follow.
    pub fn list_begin(&mut self) -> Result<(TType, usize), WireError> {
        if self.protocol == Protocol::Compact {
            let head = self.u8()?;
            let elem = self.elem_type(head & 0x0f)?;
            let n = if head >> 4 == 15 {
                self.length()?
            } else {
                usize::from(head >> 4)
            };
            Ok((elem, n))
        } else {
            let elem = self.u8()?;
            Ok((self.elem_type(elem)?, self.length()?))
        }
    }

    /// A map's length and key and value types; the pairs follow.
    pub fn map_begin(&mut self) -> Result<(usize, TType, TType), WireError> {
        if self.protocol == Protocol::Compact {
            let n = self.length()?;
            if n == 0 {
                // An empty compact map has no type byte.
                return Ok((0, TType::Bool, TType::Bool));
            }
            let kv = self.u8()?;
            Ok((n, self.elem_type(kv >> 4)?, self.elem_type(kv & 0x0f)?))
        } else {
            let k = self.u8()?;
            let v = self.u8()?;
            let (k, v) = (self.elem_type(k)?, self.elem_type(v)?);
            Ok((self.length()?, k, v))
        }
    }

    /// One value of type `ttype`, decoded.
    pub fn value(&mut self, ttype: TType) -> Result<Value, WireError> {
        let compact = self.protocol == Protocol::Compact;
        Ok(match ttype {
            // A bool element (or a binary bool field) is one byte; compact writes 1 for true.
            TType::Bool => Value::Bool(match self.field_bool.take() {
                Some(b) => b,
                None => self.u8()? == 1,
            }),
            TType::Byte => Value::Byte(self.u8()? as i8),
            TType::I16 if compact => Value::I16(self.zigzag()? as i16),
            TType::I16 => Value::I16(i16::from_be_bytes(self.array()?)),
            TType::I32 if compact => Value::I32(self.zigzag()? as i32),
            TType::I32 => Value::I32(i32::from_be_bytes(self.array()?)),
            TType::I64 if compact => Value::I64(self.zigzag()?),
            TType::I64 => Value::I64(i64::from_be_bytes(self.array()?)),
            TType::Double if compact => Value::Double(f64::from_le_bytes(self.array()?)),
            TType::Double => Value::Double(f64::from_be_bytes(self.array()?)),
            TType::String => {
                let n = self.length()?;
                Value::Binary(self.bytes(n)?)
            }
            TType::Struct => Value::Struct(self.read_struct()?),
            TType::List | TType::Set => {
                let (elem, n) = self.list_begin()?;
                self.nested(|r| {
                    let mut items = Vec::with_capacity(n.min(1024));
                    for _ in 0..n {
                        items.push(r.value(elem)?);
                    }
                    Ok(Value::List(items))
                })?
            }
            TType::Map => {
                let (n, kt, vt) = self.map_begin()?;
                self.nested(|r| {
                    let mut items = Vec::with_capacity(n.min(1024));
                    for _ in 0..n {
                        let key = r.value(kt)?;
                        items.push((key, r.value(vt)?));
                    }
                    Ok(Value::Map(items))
                })?
            }
        })
    }

    /// Reads past one value of type `ttype`, checking its shape as [`Reader::value`] does but
    /// keeping nothing.
    pub fn skip(&mut self, ttype: TType) -> Result<(), WireError> {
        let compact = self.protocol == Protocol::Compact;
        match ttype {
            TType::Bool => {
                if self.field_bool.take().is_none() {
                    self.u8()?;
                }
            }
            TType::Byte => {
                self.u8()?;
            }
            TType::I16 | TType::I32 | TType::I64 if compact => {
                self.varint()?;
            }
            TType::I16 => self.discard(2)?,
            TType::I32 => self.discard(4)?,
            TType::I64 | TType::Double => self.discard(8)?,
            TType::String => {
                let n = self.length()?;
                self.discard(n)?;
            }
            TType::Struct => self.read_struct_with(|r, _, t| r.skip(t))?,
            TType::List | TType::Set => {
                let (elem, n) = self.list_begin()?;
                self.nested(|r| (0..n).try_for_each(|_| r.skip(elem)))?;
            }
            TType::Map => {
                let (n, kt, vt) = self.map_begin()?;
                self.nested(|r| (0..n).try_for_each(|_| r.skip(kt).and_then(|()| r.skip(vt))))?;
            }
        }
        Ok(())
    }

    /// Reads past `n` bytes.
    fn discard(&mut self, mut n: usize) -> Result<(), WireError> {
        self.budget(n)?;
        while n > 0 {
            let got = self.inner.fill_buf()?.len().min(n);
            if got == 0 {
                return Err(malformed("truncated message"));
            }
            self.inner.consume(got);
            n -= got;
        }
        Ok(())
    }

    fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, WireError>,
    ) -> Result<T, WireError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(malformed("nesting too deep"));
        }
        let out = f(self)?;
        self.depth -= 1;
        Ok(out)
    }

    /// Bytes of the limit this message has used.
    pub fn consumed(&self) -> usize {
        self.limit - self.remaining
    }
}

/// Encodes one message.
#[derive(Debug)]
pub struct Writer {
    pub buf: Vec<u8>,
    protocol: Protocol,
    /// Compact: the last field id of each open struct.
    last_ids: Vec<i16>,
}

impl Writer {
    pub fn new(protocol: Protocol) -> Self {
        Writer {
            buf: Vec::with_capacity(256),
            protocol,
            last_ids: Vec::new(),
        }
    }

    /// Empties the buffer for the next message, keeping its memory; with `framed`, room for
    /// the frame's length comes first ([`Writer::finish_frame`] fills it in).
    pub fn reset(&mut self, framed: bool) {
        self.buf.clear();
        self.last_ids.clear();
        if framed {
            self.buf.extend_from_slice(&[0; 4]);
        }
    }

    /// Writes the frame length into the room [`Writer::reset`] left.
    pub fn finish_frame(&mut self) {
        let len = u32::try_from(self.buf.len().saturating_sub(4)).unwrap_or(u32::MAX);
        if let Some(head) = self.buf.get_mut(..4) {
            head.copy_from_slice(&len.to_be_bytes());
        }
    }

    pub fn message_begin(&mut self, name: &str, kind: u8, seq: i32) {
        match self.protocol {
            Protocol::Binary => {
                self.buf
                    .extend_from_slice(&(0x8001_0000u32 | u32::from(kind)).to_be_bytes());
                self.string(name);
                self.buf.extend_from_slice(&seq.to_be_bytes());
            }
            Protocol::Compact => {
                self.buf.push(0x82);
                self.buf.push(1 | (kind << 5));
                self.varint(u64::from(seq as u32));
                self.string(name);
            }
        }
    }

    fn varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    fn zigzag(&mut self, v: i64) {
        self.varint(((v << 1) ^ (v >> 63)) as u64);
    }

    fn length(&mut self, n: usize) {
        match self.protocol {
            Protocol::Binary => self
                .buf
                .extend_from_slice(&(i32::try_from(n).unwrap_or(i32::MAX)).to_be_bytes()),
            Protocol::Compact => self.varint(n as u64),
        }
    }

    pub fn struct_begin(&mut self) {
        self.last_ids.push(0);
    }

    pub fn struct_end(&mut self) {
        self.buf.push(0);
        self.last_ids.pop();
    }

    fn compact_field(&mut self, id: i16, code: u8) {
        let last = self.last_ids.last().copied().unwrap_or(0);
        let delta = i32::from(id) - i32::from(last);
        if (1..=15).contains(&delta) {
            self.buf.push(((delta as u8) << 4) | code);
        } else {
            self.buf.push(code);
            self.zigzag(i64::from(id));
        }
        if let Some(l) = self.last_ids.last_mut() {
            *l = id;
        }
    }

    /// Starts a field of any type but bool (see [`Writer::field_bool`]).
    pub fn field(&mut self, id: i16, ttype: TType) {
        match self.protocol {
            Protocol::Binary => {
                self.buf.push(ttype as u8);
                self.buf.extend_from_slice(&id.to_be_bytes());
            }
            Protocol::Compact => self.compact_field(id, ttype.compact()),
        }
    }

    /// A whole bool field.
    pub fn field_bool(&mut self, id: i16, v: bool) {
        match self.protocol {
            Protocol::Binary => {
                self.field(id, TType::Bool);
                self.buf.push(u8::from(v));
            }
            Protocol::Compact => self.compact_field(id, if v { 1 } else { 2 }),
        }
    }

    /// A bool inside a container.
    pub fn bool_elem(&mut self, v: bool) {
        match self.protocol {
            Protocol::Binary => self.buf.push(u8::from(v)),
            Protocol::Compact => self.buf.push(if v { 1 } else { 2 }),
        }
    }

    pub fn byte(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    pub fn i16(&mut self, v: i16) {
        match self.protocol {
            Protocol::Binary => self.buf.extend_from_slice(&v.to_be_bytes()),
            Protocol::Compact => self.zigzag(i64::from(v)),
        }
    }

    pub fn i32(&mut self, v: i32) {
        match self.protocol {
            Protocol::Binary => self.buf.extend_from_slice(&v.to_be_bytes()),
            Protocol::Compact => self.zigzag(i64::from(v)),
        }
    }

    pub fn i64(&mut self, v: i64) {
        match self.protocol {
            Protocol::Binary => self.buf.extend_from_slice(&v.to_be_bytes()),
            Protocol::Compact => self.zigzag(v),
        }
    }

    pub fn binary(&mut self, v: &[u8]) {
        self.length(v.len());
        self.buf.extend_from_slice(v);
    }

    /// One binary value made of several parts (a `family:qualifier` column without building it).
    pub fn binary_parts(&mut self, parts: &[&[u8]]) {
        self.length(parts.iter().map(|p| p.len()).sum());
        for p in parts {
            self.buf.extend_from_slice(p);
        }
    }

    pub fn string(&mut self, v: &str) {
        self.binary(v.as_bytes());
    }

    pub fn list_begin(&mut self, elem: TType, n: usize) {
        match self.protocol {
            Protocol::Binary => {
                self.buf.push(elem as u8);
                self.length(n);
            }
            Protocol::Compact => {
                if n < 15 {
                    self.buf.push(((n as u8) << 4) | elem.compact());
                } else {
                    self.buf.push(0xf0 | elem.compact());
                    self.varint(n as u64);
                }
            }
        }
    }

    pub fn map_begin(&mut self, key: TType, value: TType, n: usize) {
        match self.protocol {
            Protocol::Binary => {
                self.buf.push(key as u8);
                self.buf.push(value as u8);
                self.length(n);
            }
            Protocol::Compact => {
                self.varint(n as u64);
                if n > 0 {
                    self.buf.push((key.compact() << 4) | value.compact());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a call with every kind of value, reads it back.
    fn round_trip(protocol: Protocol) {
        let mut w = Writer::new(protocol);
        w.message_begin("getRow", CALL, 7);
        w.struct_begin();
        w.field(1, TType::String);
        w.binary(b"table");
        w.field_bool(2, true);
        w.field(3, TType::I64);
        w.i64(-1_234_567_890_123);
        w.field(20, TType::List);
        w.list_begin(TType::String, 20);
        for i in 0..20 {
            w.binary(format!("c{i}").as_bytes());
        }
        w.field(21, TType::Map);
        w.map_begin(TType::String, TType::Bool, 1);
        w.binary(b"t");
        w.bool_elem(false);
        w.field(-3, TType::Struct);
        w.struct_begin();
        w.field(1, TType::I32);
        w.i32(-5);
        w.field_bool(2, false);
        w.struct_end();
        w.field(22, TType::Map);
        w.map_begin(TType::String, TType::String, 0);
        w.struct_end();
        let mut r = Reader::new(&w.buf[..], protocol, 1 << 20);
        let head = r.message_begin().unwrap();
        assert_eq!(
            head,
            MessageHeader {
                name: "getRow".into(),
                kind: CALL,
                seq: 7
            }
        );
        let f = r.read_struct().unwrap();
        assert_eq!(f.binary(1), Some(&b"table"[..]));
        assert_eq!(f.bool(2), Some(true));
        assert_eq!(f.i64(3), Some(-1_234_567_890_123));
        assert_eq!(f.list(20).unwrap().len(), 20);
        assert_eq!(
            f.get(21),
            Some(&Value::Map(vec![(
                Value::Binary(b"t".to_vec()),
                Value::Bool(false)
            )]))
        );
        let inner = f.strukt(-3).unwrap();
        assert_eq!(inner.i32(1), Some(-5));
        assert_eq!(inner.bool(2), Some(false));
        assert_eq!(f.get(22), Some(&Value::Map(Vec::new())));
        assert_eq!(r.consumed(), w.buf.len());

        // Read again field by field, skipping all but two: the same values, the same bytes.
        let mut r = Reader::new(&w.buf[..], protocol, 1 << 20);
        r.message_begin().unwrap();
        let mut kept = Vec::new();
        r.read_struct_with(|r, id, ttype| {
            if id == 2 || id == -3 {
                kept.push((id, r.value(ttype)?));
                Ok(())
            } else {
                r.skip(ttype)
            }
        })
        .unwrap();
        assert_eq!(
            kept,
            [(2, Value::Bool(true)), (-3, Value::Struct(inner.clone()))]
        );
        assert_eq!(r.consumed(), w.buf.len());
        // A field reader that leaves a compact bool unread is an error, not a misread.
        if protocol == Protocol::Compact {
            let mut r = Reader::new(&w.buf[..], protocol, 1 << 20);
            r.message_begin().unwrap();
            let unread = r.read_struct_with(|r, _, ttype| match ttype {
                TType::Bool => Ok(()),
                _ => r.skip(ttype),
            });
            assert!(unread.is_err());
        }
    }

    #[test]
    fn binary_and_compact_round_trip() {
        round_trip(Protocol::Binary);
        round_trip(Protocol::Compact);
    }

    #[test]
    fn hostile_input_is_an_error_not_a_panic_or_a_huge_allocation() {
        // A list claiming two billion elements in a 20-byte message.
        let mut w = Writer::new(Protocol::Binary);
        w.message_begin("x", CALL, 1);
        w.struct_begin();
        w.field(1, TType::List);
        w.buf.push(TType::I32 as u8);
        w.buf.extend_from_slice(&i32::MAX.to_be_bytes());
        let mut r = Reader::new(&w.buf[..], Protocol::Binary, 1 << 20);
        r.message_begin().unwrap();
        assert!(matches!(r.read_struct(), Err(WireError::TooLarge { .. })));
        let mut r = Reader::new(&w.buf[..], Protocol::Binary, 1 << 20);
        r.message_begin().unwrap();
        let skipped = r.read_struct_with(|r, _, ttype| r.skip(ttype));
        assert!(matches!(skipped, Err(WireError::TooLarge { .. })));
        // Truncated, then past the limit, then nested too deep.
        let mut r = Reader::new(&w.buf[..w.buf.len() - 2], Protocol::Binary, 1 << 20);
        r.message_begin().unwrap();
        assert!(r.read_struct().is_err());
        let mut r = Reader::new(&w.buf[..], Protocol::Binary, 8);
        assert!(matches!(
            r.message_begin(),
            Err(WireError::TooLarge { limit: 8 })
        ));
        let mut deep = Writer::new(Protocol::Compact);
        deep.message_begin("x", CALL, 1);
        for _ in 0..100 {
            deep.struct_begin();
            deep.field(1, TType::Struct);
        }
        let mut r = Reader::new(&deep.buf[..], Protocol::Compact, 1 << 20);
        r.message_begin().unwrap();
        assert!(r.read_struct().is_err());
        let mut r = Reader::new(&deep.buf[..], Protocol::Compact, 1 << 20);
        r.message_begin().unwrap();
        assert!(r.skip(TType::Struct).is_err());
        let mut r = Reader::new(&b"\x00\x00"[..], Protocol::Compact, 100);
        assert!(matches!(r.message_begin(), Err(WireError::Malformed(_))));
        let mut r = Reader::new(&b""[..], Protocol::Binary, 100);
        assert!(matches!(r.message_begin(), Err(WireError::Closed)));
    }
}
