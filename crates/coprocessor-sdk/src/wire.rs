//! The bytes that cross between the server and a module: what a hook is given, what it
//! answers, and what the server's functions take and return. `docs/design/coprocessors.md`
//! lays the format out byte by byte; the server and the SDK both use this module, so they
//! cannot disagree.
//!
//! Integers are little-endian; `bytes` is a u32 length then the bytes.

/// A timestamp the write leaves to the server ("now"), as HBase's `LATEST_TIMESTAMP`.
pub const LATEST: i64 = i64::MAX;
/// A put cell's or delete entry's timestamp when it takes its mutation's.
pub const UNSET: i64 = i64::MIN;

/// The first byte of a hook's reply (or of a server function's answer).
pub mod reply {
    /// Go on unchanged (a hook may also return 0 instead of a reply).
    pub const CONTINUE: u8 = 0;
    /// Go on with this instead (a changed Put, Delete, row, ...).
    pub const REPLACE: u8 = 1;
    /// Refuse the operation, or (from the server) a failed call: a UTF-8 message follows.
    pub const VETO: u8 = 2;
    /// The answer itself: a Get's row (skipping the read), an endpoint's response.
    pub const ANSWER: u8 = 3;
    /// Leave this scanned row out.
    pub const DROP: u8 = 4;
}

/// Cell types, as HBase numbers them.
pub mod cell_type {
    pub const PUT: u8 = 4;
    pub const DELETE: u8 = 8;
    pub const DELETE_FAMILY_VERSION: u8 = 10;
    pub const DELETE_COLUMN: u8 = 12;
    pub const DELETE_FAMILY: u8 = 14;
}

/// A message that does not decode: what was being read, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError {
    pub what: &'static str,
    pub offset: usize,
}

impl core::fmt::Display for WireError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "malformed coprocessor message: {} at byte {}",
            self.what, self.offset
        )
    }
}

impl std::error::Error for WireError {}

pub type WireResult<T> = Result<T, WireError>;

/// One cell of a row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Cell {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub timestamp: i64,
    /// One of [`cell_type`]'s.
    pub cell_type: u8,
    pub value: Vec<u8>,
}

/// A row as a read returns it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Row {
    pub row: Vec<u8>,
    pub cells: Vec<Cell>,
}

impl Row {
    /// The newest value of `family:qualifier`, if the row has one.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cells
            .iter()
            .find(|c| c.family == family && c.qualifier == qualifier)
            .map(|c| c.value.as_slice())
    }
}

/// One cell a Put writes; `timestamp` [`UNSET`] takes the Put's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PutCell {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub timestamp: i64,
    pub value: Vec<u8>,
}

/// Writes cells to one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub row: Vec<u8>,
    /// [`LATEST`] lets the server stamp it.
    pub timestamp: i64,
    pub cells: Vec<PutCell>,
}

impl Put {
    pub fn new(row: impl Into<Vec<u8>>) -> Put {
        Put {
            row: row.into(),
            timestamp: LATEST,
            cells: Vec::new(),
        }
    }

    /// Adds `family:qualifier = value` at the Put's timestamp.
    pub fn add(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        value: impl Into<Vec<u8>>,
    ) -> Put {
        self.cells.push(PutCell {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp: UNSET,
            value: value.into(),
        });
        self
    }

    /// The value this Put writes to `family:qualifier`, if it writes one.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cells
            .iter()
            .find(|c| c.family == family && c.qualifier == qualifier)
            .map(|c| c.value.as_slice())
    }
}

/// One marker of a Delete: `kind` one of [`cell_type`]'s delete types, `timestamp`
/// [`UNSET`] takes the Delete's, an empty qualifier for family-wide kinds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteEntry {
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub timestamp: i64,
    pub kind: u8,
}

/// Deletes from one row; no entries delete the whole row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    pub row: Vec<u8>,
    pub timestamp: i64,
    pub entries: Vec<DeleteEntry>,
}

impl Delete {
    pub fn new(row: impl Into<Vec<u8>>) -> Delete {
        Delete {
            row: row.into(),
            timestamp: LATEST,
            entries: Vec::new(),
        }
    }

    /// Deletes every version of `family:qualifier` at or before `timestamp` ([`LATEST`]: all).
    pub fn column(
        mut self,
        family: impl Into<Vec<u8>>,
        qualifier: impl Into<Vec<u8>>,
        timestamp: i64,
    ) -> Delete {
        self.entries.push(DeleteEntry {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            kind: cell_type::DELETE_COLUMN,
        });
        self
    }
}

/// Adds to counters of one row: (family, qualifier, amount) each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Increment {
    pub row: Vec<u8>,
    pub columns: Vec<(Vec<u8>, Vec<u8>, i64)>,
}

/// Appends to cells of one row: (family, qualifier, bytes appended) each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Append {
    pub row: Vec<u8>,
    pub columns: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>,
}

/// A write: what a check-and-mutate does once its check holds, or what a module asks the
/// server to apply to a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    Put(Put),
    Delete(Delete),
    /// An increment, append or row mutation: passed on as it is.
    Other,
}

/// A column a read selects: a whole family (`qualifier: None`) or one column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    pub family: Vec<u8>,
    pub qualifier: Option<Vec<u8>>,
}

/// A read of one row: its columns (none: all), its versions and time range `[min, max)`;
/// `raw` also returns delete markers and the cells they mask (as a raw scan does).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Get {
    pub row: Vec<u8>,
    pub columns: Vec<Column>,
    pub max_versions: u32,
    pub min_timestamp: i64,
    pub max_timestamp: i64,
    pub raw: bool,
}

impl Get {
    pub fn new(row: impl Into<Vec<u8>>) -> Get {
        Get {
            row: row.into(),
            columns: Vec::new(),
            max_versions: 1,
            min_timestamp: 0,
            max_timestamp: LATEST,
            raw: false,
        }
    }

    /// Selects a whole family.
    pub fn family(mut self, family: impl Into<Vec<u8>>) -> Get {
        self.columns.push(Column {
            family: family.into(),
            qualifier: None,
        });
        self
    }

    pub fn column(mut self, family: impl Into<Vec<u8>>, qualifier: impl Into<Vec<u8>>) -> Get {
        self.columns.push(Column {
            family: family.into(),
            qualifier: Some(qualifier.into()),
        });
        self
    }
}

/// What a scanner reads: `[start, stop)` (empty: unbounded).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Scan {
    pub start_row: Vec<u8>,
    pub stop_row: Vec<u8>,
    pub reversed: bool,
}

/// A check-and-mutate as its hooks see it: the row, the write it makes, and (after it) whether
/// the check held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckAndMutate {
    pub row: Vec<u8>,
    pub action: Mutation,
    pub success: bool,
}

/// A cell as the WAL logged it, with its row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoggedCell {
    pub row: Vec<u8>,
    pub cell: Cell,
}

/// An endpoint call: the method and its request (protobuf bytes, or whatever the endpoint
/// reads).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Call {
    pub method: String,
    pub request: Vec<u8>,
}

/// Appends values to a message.
#[derive(Debug, Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }

    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        // Messages are built from a region's rows and cells, whose lengths fit u32.
        self.u32(u32::try_from(v.len()).unwrap_or(u32::MAX));
        self.0.extend_from_slice(v);
        self
    }

    fn count(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }
}

/// Reads values off a message, failing with where it went wrong.
#[derive(Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    fn take(&mut self, n: usize, what: &'static str) -> WireResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let Some(end) = end else {
            return Err(WireError {
                what,
                offset: self.pos,
            });
        };
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    pub fn u8(&mut self, what: &'static str) -> WireResult<u8> {
        Ok(self.take(1, what)?[0])
    }

    pub fn u32(&mut self, what: &'static str) -> WireResult<u32> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub fn i64(&mut self, what: &'static str) -> WireResult<i64> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_le_bytes(a))
    }

    pub fn bytes(&mut self, what: &'static str) -> WireResult<Vec<u8>> {
        let n = self.u32(what)? as usize;
        Ok(self.take(n, what)?.to_vec())
    }

    /// The rest of the message.
    pub fn rest(&mut self) -> &'a [u8] {
        let out = &self.buf[self.pos..];
        self.pos = self.buf.len();
        out
    }

    /// A count of items each at least `min_size` bytes long: one the message cannot hold is
    /// refused before anything is allocated for it.
    fn count(&mut self, min_size: usize, what: &'static str) -> WireResult<usize> {
        let at = self.pos;
        let n = self.u32(what)? as usize;
        if n.saturating_mul(min_size) > self.buf.len() - self.pos {
            return Err(WireError { what, offset: at });
        }
        Ok(n)
    }

    /// Fails unless the whole message was read.
    pub fn finish(&self) -> WireResult<()> {
        if self.pos == self.buf.len() {
            Ok(())
        } else {
            Err(WireError {
                what: "trailing bytes",
                offset: self.pos,
            })
        }
    }
}

/// What every message type does: written by one side, read by the other.
pub trait Message: Sized {
    fn write(&self, w: &mut Writer);
    fn read(r: &mut Reader<'_>) -> WireResult<Self>;

    fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        self.write(&mut w);
        w.0
    }

    /// Reads a whole message (nothing may follow).
    fn from_bytes(buf: &[u8]) -> WireResult<Self> {
        let mut r = Reader::new(buf);
        let out = Self::read(&mut r)?;
        r.finish()?;
        Ok(out)
    }
}

impl Message for Cell {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.family)
            .bytes(&self.qualifier)
            .i64(self.timestamp)
            .u8(self.cell_type)
            .bytes(&self.value);
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        Ok(Cell {
            family: r.bytes("cell family")?,
            qualifier: r.bytes("cell qualifier")?,
            timestamp: r.i64("cell timestamp")?,
            cell_type: r.u8("cell type")?,
            value: r.bytes("cell value")?,
        })
    }
}

impl Message for Row {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row).count(self.cells.len());
        for c in &self.cells {
            c.write(w);
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let row = r.bytes("row")?;
        let n = r.count(21, "row's cell count")?;
        let cells = (0..n).map(|_| Cell::read(r)).collect::<WireResult<_>>()?;
        Ok(Row { row, cells })
    }
}

impl Message for Put {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row)
            .i64(self.timestamp)
            .count(self.cells.len());
        for c in &self.cells {
            w.bytes(&c.family)
                .bytes(&c.qualifier)
                .i64(c.timestamp)
                .bytes(&c.value);
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let row = r.bytes("put row")?;
        let timestamp = r.i64("put timestamp")?;
        let n = r.count(20, "put's cell count")?;
        let cells = (0..n)
            .map(|_| {
                Ok(PutCell {
                    family: r.bytes("put cell family")?,
                    qualifier: r.bytes("put cell qualifier")?,
                    timestamp: r.i64("put cell timestamp")?,
                    value: r.bytes("put cell value")?,
                })
            })
            .collect::<WireResult<_>>()?;
        Ok(Put {
            row,
            timestamp,
            cells,
        })
    }
}

impl Message for Delete {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row)
            .i64(self.timestamp)
            .count(self.entries.len());
        for e in &self.entries {
            w.bytes(&e.family)
                .bytes(&e.qualifier)
                .i64(e.timestamp)
                .u8(e.kind);
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let row = r.bytes("delete row")?;
        let timestamp = r.i64("delete timestamp")?;
        let n = r.count(17, "delete's entry count")?;
        let entries = (0..n)
            .map(|_| {
                Ok(DeleteEntry {
                    family: r.bytes("delete family")?,
                    qualifier: r.bytes("delete qualifier")?,
                    timestamp: r.i64("delete timestamp")?,
                    kind: r.u8("delete kind")?,
                })
            })
            .collect::<WireResult<_>>()?;
        Ok(Delete {
            row,
            timestamp,
            entries,
        })
    }
}

impl Message for Increment {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row).count(self.columns.len());
        for (family, qualifier, amount) in &self.columns {
            w.bytes(family).bytes(qualifier).i64(*amount);
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let row = r.bytes("increment row")?;
        let n = r.count(16, "increment's column count")?;
        let columns = (0..n)
            .map(|_| {
                Ok((
                    r.bytes("increment family")?,
                    r.bytes("increment qualifier")?,
                    r.i64("increment amount")?,
                ))
            })
            .collect::<WireResult<_>>()?;
        Ok(Increment { row, columns })
    }
}

impl Message for Append {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row).count(self.columns.len());
        for (family, qualifier, value) in &self.columns {
            w.bytes(family).bytes(qualifier).bytes(value);
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let row = r.bytes("append row")?;
        let n = r.count(12, "append's column count")?;
        let columns = (0..n)
            .map(|_| {
                Ok((
                    r.bytes("append family")?,
                    r.bytes("append qualifier")?,
                    r.bytes("append value")?,
                ))
            })
            .collect::<WireResult<_>>()?;
        Ok(Append { row, columns })
    }
}

impl Message for Mutation {
    fn write(&self, w: &mut Writer) {
        match self {
            Mutation::Put(p) => {
                w.u8(0);
                p.write(w);
            }
            Mutation::Delete(d) => {
                w.u8(1);
                d.write(w);
            }
            Mutation::Other => {
                w.u8(2);
            }
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let at = r.pos;
        match r.u8("mutation kind")? {
            0 => Ok(Mutation::Put(Put::read(r)?)),
            1 => Ok(Mutation::Delete(Delete::read(r)?)),
            2 => Ok(Mutation::Other),
            _ => Err(WireError {
                what: "mutation kind (0 put, 1 delete, 2 other)",
                offset: at,
            }),
        }
    }
}

impl Message for Get {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row).count(self.columns.len());
        for c in &self.columns {
            w.bytes(&c.family);
            match &c.qualifier {
                Some(q) => w.u8(1).bytes(q),
                None => w.u8(0),
            };
        }
        w.u32(self.max_versions)
            .i64(self.min_timestamp)
            .i64(self.max_timestamp)
            .u8(u8::from(self.raw));
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let row = r.bytes("get row")?;
        let n = r.count(5, "get's column count")?;
        let columns = (0..n)
            .map(|_| {
                let family = r.bytes("get family")?;
                let qualifier = match r.u8("get column flag")? {
                    0 => None,
                    _ => Some(r.bytes("get qualifier")?),
                };
                Ok(Column { family, qualifier })
            })
            .collect::<WireResult<_>>()?;
        Ok(Get {
            row,
            columns,
            max_versions: r.u32("get max versions")?,
            min_timestamp: r.i64("get min timestamp")?,
            max_timestamp: r.i64("get max timestamp")?,
            raw: r.u8("get raw")? != 0,
        })
    }
}

impl Message for Scan {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.start_row)
            .bytes(&self.stop_row)
            .u8(u8::from(self.reversed));
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        Ok(Scan {
            start_row: r.bytes("scan start row")?,
            stop_row: r.bytes("scan stop row")?,
            reversed: r.u8("scan reversed")? != 0,
        })
    }
}

impl Message for CheckAndMutate {
    fn write(&self, w: &mut Writer) {
        w.bytes(&self.row);
        self.action.write(w);
        w.u8(u8::from(self.success));
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        Ok(CheckAndMutate {
            row: r.bytes("check-and-mutate row")?,
            action: Mutation::read(r)?,
            success: r.u8("check-and-mutate success")? != 0,
        })
    }
}

impl Message for Vec<LoggedCell> {
    fn write(&self, w: &mut Writer) {
        w.count(self.len());
        for c in self {
            w.bytes(&c.row);
            c.cell.write(w);
        }
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let n = r.count(25, "logged cell count")?;
        (0..n)
            .map(|_| {
                Ok(LoggedCell {
                    row: r.bytes("logged row")?,
                    cell: Cell::read(r)?,
                })
            })
            .collect()
    }
}

impl Message for Call {
    fn write(&self, w: &mut Writer) {
        w.bytes(self.method.as_bytes()).bytes(&self.request);
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let at = r.pos;
        let method = String::from_utf8(r.bytes("endpoint method")?).map_err(|_| WireError {
            what: "endpoint method (not UTF-8)",
            offset: at,
        })?;
        Ok(Call {
            method,
            request: r.bytes("endpoint request")?,
        })
    }
}

/// A write to another table, as a module asks the server for one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableWrite {
    pub table: String,
    pub mutation: Mutation,
}

impl Message for TableWrite {
    fn write(&self, w: &mut Writer) {
        w.bytes(self.table.as_bytes());
        self.mutation.write(w);
    }

    fn read(r: &mut Reader<'_>) -> WireResult<Self> {
        let at = r.pos;
        let table = String::from_utf8(r.bytes("table name")?).map_err(|_| WireError {
            what: "table name (not UTF-8)",
            offset: at,
        })?;
        Ok(TableWrite {
            table,
            mutation: Mutation::read(r)?,
        })
    }
}

/// A reply: its tag (one of [`reply`]'s) and what follows it.
pub fn split_reply(buf: &[u8]) -> WireResult<(u8, &[u8])> {
    match buf.split_first() {
        Some((tag, rest)) => Ok((*tag, rest)),
        None => Err(WireError {
            what: "empty reply",
            offset: 0,
        }),
    }
}

/// A reply of `tag` followed by `body`.
pub fn reply_with(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + body.len());
    out.push(tag);
    out.extend_from_slice(body);
    out
}

/// Packs a guest buffer's address and length into a hook's i64 result (0: no reply).
pub fn pack(ptr: u32, len: u32) -> i64 {
    ((u64::from(ptr) << 32) | u64::from(len)) as i64
}

/// The address and length [`pack`] packed.
pub fn unpack(packed: i64) -> (u32, u32) {
    let v = packed as u64;
    ((v >> 32) as u32, v as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let put = Put::new("r").add("f", "q", "v");
        assert_eq!(Put::from_bytes(&put.to_bytes()), Ok(put.clone()));
        let m = Mutation::Delete(Delete::new("r").column("f", "q", 7));
        assert_eq!(Mutation::from_bytes(&m.to_bytes()), Ok(m));
        let get = Get::new("r").column("f", "q");
        assert_eq!(Get::from_bytes(&get.to_bytes()), Ok(get));
        let inc = Increment {
            row: b"r".to_vec(),
            columns: vec![(b"f".to_vec(), b"n".to_vec(), -3)],
        };
        assert_eq!(Increment::from_bytes(&inc.to_bytes()), Ok(inc));
        let append = Append {
            row: b"r".to_vec(),
            columns: vec![(b"f".to_vec(), b"s".to_vec(), b"tail".to_vec())],
        };
        assert_eq!(Append::from_bytes(&append.to_bytes()), Ok(append));
        let row = Row {
            row: b"r".to_vec(),
            cells: vec![Cell {
                family: b"f".to_vec(),
                qualifier: b"q".to_vec(),
                timestamp: 5,
                cell_type: cell_type::PUT,
                value: b"v".to_vec(),
            }],
        };
        assert_eq!(Row::from_bytes(&row.to_bytes()), Ok(row));
        assert_eq!(unpack(pack(7, 9)), (7, 9));
        assert_eq!(unpack(pack(u32::MAX, u32::MAX)), (u32::MAX, u32::MAX));
    }

    #[test]
    fn malformed_messages_say_where() {
        let mut bytes = Put::new("r").add("f", "q", "v").to_bytes();
        bytes.truncate(bytes.len() - 1);
        let err = Put::from_bytes(&bytes).unwrap_err();
        assert_eq!(err.what, "put cell value");
        // A count larger than the message could hold is refused before allocating.
        let mut w = Writer::default();
        w.bytes(b"r").u32(u32::MAX);
        assert_eq!(Row::from_bytes(&w.0).unwrap_err().what, "row's cell count");
        let mut trailing = Scan::default().to_bytes();
        trailing.push(0);
        assert_eq!(
            Scan::from_bytes(&trailing).unwrap_err().what,
            "trailing bytes"
        );
    }

    /// Every message type read from arbitrary bytes, and from every cut of a valid message:
    /// an error or a message, never a panic (the server reads what modules hand it).
    #[test]
    fn no_input_panics() {
        fn all(bytes: &[u8]) {
            let _ = Cell::from_bytes(bytes);
            let _ = Row::from_bytes(bytes);
            let _ = Put::from_bytes(bytes);
            let _ = Delete::from_bytes(bytes);
            let _ = Mutation::from_bytes(bytes);
            let _ = Increment::from_bytes(bytes);
            let _ = Append::from_bytes(bytes);
            let _ = Get::from_bytes(bytes);
            let _ = Scan::from_bytes(bytes);
            let _ = CheckAndMutate::from_bytes(bytes);
            let _ = <Vec<LoggedCell>>::from_bytes(bytes);
            let _ = Call::from_bytes(bytes);
            let _ = TableWrite::from_bytes(bytes);
            let _ = split_reply(bytes);
        }
        let valid = [
            Put::new("row").add("f", "q", "value").to_bytes(),
            Mutation::Delete(Delete::new("r").column("f", "q", 3)).to_bytes(),
            Get::new("r").column("f", "q").to_bytes(),
            CheckAndMutate {
                row: b"r".to_vec(),
                action: Mutation::Put(Put::new("r").add("f", "q", "v")),
                success: true,
            }
            .to_bytes(),
        ];
        for message in &valid {
            for cut in 0..=message.len() {
                all(&message[..cut]);
            }
        }
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for round in 0..20_000 {
            let len = round % 64;
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    // Mostly small values, so lengths and counts often fit.
                    if state.is_multiple_of(3) {
                        (state >> 8) as u8
                    } else {
                        (state % 4) as u8
                    }
                })
                .collect();
            all(&bytes);
        }
    }
}
