//! What a call answers, and how each HBase Thrift1 type is written.

use basalt_client::{Cell, ColumnFamilyDescriptor, RegionSummary, RowResult};

use crate::protocol::{TType, Writer};

/// A successful call's value.
#[derive(Debug)]
pub enum Reply {
    Void,
    Bool(bool),
    I32(i32),
    I64(i64),
    String(String),
    /// `list<TCell>`.
    Cells(Vec<Cell>),
    /// `list<TRowResult>`, with `sortedColumns` instead of the `columns` map when sorted.
    Rows {
        rows: Vec<RowResult>,
        sorted: bool,
    },
    /// `list<Text>`.
    Names(Vec<Vec<u8>>),
    /// `map<Text, bool>`.
    NamesEnabled(Vec<(Vec<u8>, bool)>),
    /// `map<Text, ColumnDescriptor>`.
    Families(Vec<ColumnFamilyDescriptor>),
    /// `list<TRegionInfo>`.
    Regions(Vec<RegionInfo>),
    Region(RegionInfo),
}

/// A TRegionInfo's contents.
#[derive(Debug)]
pub struct RegionInfo {
    pub region: RegionSummary,
    pub host: String,
    pub port: i32,
}

/// The exceptions of `Hbase.thrift`, by the field id methods throw them in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// `IOError` (field 1), with HBase's exception name at the front of the message.
    Io(String),
    /// `IllegalArgument` (field 2); sent as an IOError by methods that do not declare it.
    IllegalArgument(String),
    /// `AlreadyExists` (field 3, createTable only).
    AlreadyExists(String),
}

impl From<basalt_client::Error> for Failure {
    fn from(e: basalt_client::Error) -> Self {
        let message = format!("{}: {e}", e.exception_name());
        match e.kind() {
            basalt_client::ErrorKind::InvalidArgument => Failure::IllegalArgument(message),
            basalt_client::ErrorKind::AlreadyExists => Failure::AlreadyExists(message),
            _ => Failure::Io(message),
        }
    }
}

/// `family:qualifier`, the column name Thrift1 uses.
pub fn column_name(cell: &Cell) -> Vec<u8> {
    let mut name = Vec::with_capacity(cell.family().len() + 1 + cell.qualifier().len());
    name.extend_from_slice(cell.family());
    name.push(b':');
    name.extend_from_slice(cell.qualifier());
    name
}

fn tcell(w: &mut Writer, cell: &Cell) {
    w.struct_begin();
    w.field(1, TType::String);
    w.binary(cell.value());
    w.field(2, TType::I64);
    w.i64(cell.timestamp);
    w.struct_end();
}

fn row_result(w: &mut Writer, row: &RowResult, sorted: bool) {
    w.struct_begin();
    w.field(1, TType::String);
    w.binary(&row.row);
    if sorted {
        w.field(3, TType::List);
        w.list_begin(TType::Struct, row.cells.len());
        for cell in &row.cells {
            w.struct_begin();
            w.field(1, TType::String);
            w.binary(&column_name(cell));
            w.field(2, TType::Struct);
            tcell(w, cell);
            w.struct_end();
        }
    } else {
        // One cell per column: the newest, which comes first.
        let mut columns: Vec<&Cell> = Vec::with_capacity(row.cells.len());
        for cell in &row.cells {
            let repeat = columns
                .last()
                .is_some_and(|c| c.family() == cell.family() && c.qualifier() == cell.qualifier());
            if !repeat {
                columns.push(cell);
            }
        }
        w.field(2, TType::Map);
        w.map_begin(TType::String, TType::Struct, columns.len());
        for cell in columns {
            w.binary(&column_name(cell));
            tcell(w, cell);
        }
    }
    w.struct_end();
}

fn column_descriptor(w: &mut Writer, f: &ColumnFamilyDescriptor) {
    let attr = |name: &str| {
        f.attributes()
            .into_iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
            .unwrap_or_default()
    };
    w.struct_begin();
    w.field(1, TType::String);
    let mut name = f.name.to_vec();
    name.push(b':');
    w.binary(&name);
    w.field(2, TType::I32);
    w.i32(i32::try_from(f.max_versions).unwrap_or(i32::MAX));
    w.field(3, TType::String);
    w.string(&attr("COMPRESSION"));
    w.field_bool(4, f.in_memory);
    w.field(5, TType::String);
    w.string(&attr("BLOOMFILTER"));
    w.field(6, TType::I32);
    w.i32(0);
    w.field(7, TType::I32);
    w.i32(0);
    w.field_bool(8, f.block_cache);
    w.field(9, TType::I32);
    w.i32(i32::try_from(f.ttl_seconds).unwrap_or(i32::MAX));
    w.struct_end();
}

fn region_info(w: &mut Writer, r: &RegionInfo) {
    w.struct_begin();
    w.field(1, TType::String);
    w.binary(&r.region.start_key);
    w.field(2, TType::String);
    w.binary(&r.region.end_key);
    w.field(3, TType::I64);
    w.i64(r.region.region_id());
    w.field(4, TType::String);
    w.binary(&r.region.name);
    w.field(5, TType::Byte);
    w.byte(1);
    w.field(6, TType::String);
    w.string(&r.host);
    w.field(7, TType::I32);
    w.i32(r.port);
    w.struct_end();
}

impl Reply {
    /// Writes the reply as field 0 of the result struct (nothing for void).
    pub fn write(&self, w: &mut Writer) {
        match self {
            Reply::Void => {}
            Reply::Bool(v) => w.field_bool(0, *v),
            Reply::I32(v) => {
                w.field(0, TType::I32);
                w.i32(*v);
            }
            Reply::I64(v) => {
                w.field(0, TType::I64);
                w.i64(*v);
            }
            Reply::String(s) => {
                w.field(0, TType::String);
                w.string(s);
            }
            Reply::Cells(cells) => {
                w.field(0, TType::List);
                w.list_begin(TType::Struct, cells.len());
                for c in cells {
                    tcell(w, c);
                }
            }
            Reply::Rows { rows, sorted } => {
                w.field(0, TType::List);
                w.list_begin(TType::Struct, rows.len());
                for r in rows {
                    row_result(w, r, *sorted);
                }
            }
            Reply::Names(names) => {
                w.field(0, TType::List);
                w.list_begin(TType::String, names.len());
                for n in names {
                    w.binary(n);
                }
            }
            Reply::NamesEnabled(names) => {
                w.field(0, TType::Map);
                w.map_begin(TType::String, TType::Bool, names.len());
                for (n, enabled) in names {
                    w.binary(n);
                    w.bool_elem(*enabled);
                }
            }
            Reply::Families(families) => {
                w.field(0, TType::Map);
                w.map_begin(TType::String, TType::Struct, families.len());
                for f in families {
                    let mut name = f.name.to_vec();
                    name.push(b':');
                    w.binary(&name);
                    column_descriptor(w, f);
                }
            }
            Reply::Regions(regions) => {
                w.field(0, TType::List);
                w.list_begin(TType::Struct, regions.len());
                for r in regions {
                    region_info(w, r);
                }
            }
            Reply::Region(r) => {
                w.field(0, TType::Struct);
                region_info(w, r);
            }
        }
    }
}

impl Failure {
    /// Writes the exception as the field its method declares (an IOError otherwise).
    pub fn write(&self, w: &mut Writer, declares_ia: bool, declares_exists: bool) {
        let (id, message) = match self {
            Failure::IllegalArgument(m) if declares_ia => (2, m),
            Failure::AlreadyExists(m) if declares_exists => (3, m),
            Failure::Io(m) | Failure::IllegalArgument(m) | Failure::AlreadyExists(m) => (1, m),
        };
        w.field(id, TType::Struct);
        w.struct_begin();
        w.field(1, TType::String);
        w.string(message);
        if id == 1 {
            w.field_bool(2, false);
        }
        w.struct_end();
    }
}
