//! Cells and HBase's total order over them.
//!
//! A cell is one version of one column of one row: `(row, family, qualifier, timestamp, type,
//! sequence id) -> value`. Cells sort by row, family and qualifier ascending (unsigned bytes),
//! then timestamp **descending**, then type code descending (delete markers before puts at equal
//! timestamps), then sequence id descending (the later write first).

use std::cmp::Ordering;
use std::fmt;

use bytes::Bytes;

use crate::bytes_display::write_binary;
use crate::error::{Error, Result};

/// HBase's `LATEST_TIMESTAMP`: "assign the server's current time when written".
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// Longest legal row key (`HConstants.MAX_ROW_LENGTH`).
pub const MAX_ROW_LENGTH: usize = i16::MAX as usize;

/// Default limit on a cell's size (`hbase.server.keyvalue.maxsize`, 10 MiB).
pub const DEFAULT_MAX_CELL_SIZE: usize = 10 * 1024 * 1024;

/// The type of a cell, with HBase's codes (`KeyValue.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum CellType {
    /// Seek sentinel only; sorts after every real cell at the same coordinates.
    Minimum = 0,
    Put = 4,
    /// Masks exactly one version (the one with the marker's timestamp) of one column.
    Delete = 8,
    /// Masks every column of the family at exactly the marker's timestamp.
    DeleteFamilyVersion = 10,
    /// Masks every version of one column with timestamp <= the marker's.
    DeleteColumn = 12,
    /// Masks every column of the family with timestamp <= the marker's.
    DeleteFamily = 14,
    /// Seek sentinel only; sorts before every real cell at the same coordinates.
    Maximum = 255,
}

impl CellType {
    /// HBase's one-byte code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The type with this code, if it is one.
    pub fn from_code(code: u8) -> Option<CellType> {
        Some(match code {
            0 => CellType::Minimum,
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            255 => CellType::Maximum,
            _ => return None,
        })
    }

    /// Whether this is one of the four delete markers.
    pub fn is_delete(self) -> bool {
        matches!(
            self,
            CellType::Delete
                | CellType::DeleteFamilyVersion
                | CellType::DeleteColumn
                | CellType::DeleteFamily
        )
    }

    /// Whether the marker applies to a whole family rather than one column.
    pub fn is_family_delete(self) -> bool {
        matches!(self, CellType::DeleteFamily | CellType::DeleteFamilyVersion)
    }

    /// HBase's name for the type, as printed by the shell and `hfile` tools.
    pub fn name(self) -> &'static str {
        match self {
            CellType::Minimum => "Minimum",
            CellType::Put => "Put",
            CellType::Delete => "Delete",
            CellType::DeleteFamilyVersion => "DeleteFamilyVersion",
            CellType::DeleteColumn => "DeleteColumn",
            CellType::DeleteFamily => "DeleteFamily",
            CellType::Maximum => "Maximum",
        }
    }
}

impl fmt::Display for CellType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One cell, laid out as HBase's KeyValue is: row, family, qualifier and value side by side in
/// one reference-counted buffer, so a cell is small (72 bytes) and cloning it touches one
/// reference count.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    /// `row | family | qualifier | value`.
    buf: Bytes,
    row_len: u16,
    family_len: u8,
    qualifier_len: u32,
    pub timestamp: i64,
    pub cell_type: CellType,
    /// The region sequence id (MVCC write number) that wrote the cell; 0 if not yet assigned.
    pub seq_id: u64,
    /// The cell's own time to live in milliseconds (HBase's TTL tag), if the mutation set one.
    pub ttl_ms: Option<u64>,
}

impl Cell {
    /// A cell with the given coordinates and value, copied into one new buffer. Panics only
    /// past the format's limits (row 65535, family 255, qualifier 4 GiB bytes), which
    /// validation keeps every stored cell well inside.
    pub fn new(
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Cell {
        let mut buf = Vec::with_capacity(row.len() + family.len() + qualifier.len() + value.len());
        buf.extend_from_slice(row);
        buf.extend_from_slice(family);
        buf.extend_from_slice(qualifier);
        buf.extend_from_slice(value);
        Cell::from_buffer(
            Bytes::from(buf),
            row.len(),
            family.len(),
            qualifier.len(),
            timestamp,
            cell_type,
        )
        .unwrap_or_else(|| {
            panic!(
                "cell parts too long: row {}, family {}",
                row.len(),
                family.len()
            )
        })
    }

    /// A cell over an existing `row | family | qualifier | value` buffer, or `None` if the
    /// lengths do not fit the buffer or the format.
    pub fn from_buffer(
        buf: Bytes,
        row_len: usize,
        family_len: usize,
        qualifier_len: usize,
        timestamp: i64,
        cell_type: CellType,
    ) -> Option<Cell> {
        if row_len + family_len + qualifier_len > buf.len() {
            return None;
        }
        Some(Cell {
            buf,
            row_len: u16::try_from(row_len).ok()?,
            family_len: u8::try_from(family_len).ok()?,
            qualifier_len: u32::try_from(qualifier_len).ok()?,
            timestamp,
            cell_type,
            seq_id: 0,
            ttl_ms: None,
        })
    }

    /// A put cell with no sequence id and no TTL.
    pub fn put(row: &[u8], family: &[u8], qualifier: &[u8], timestamp: i64, value: &[u8]) -> Cell {
        Cell::new(row, family, qualifier, timestamp, CellType::Put, value)
    }

    /// This cell with another row key (a key layout's stored or logical key), the rest kept.
    pub fn with_row(&self, row: &[u8]) -> Cell {
        let mut cell = Cell::new(
            row,
            self.family(),
            self.qualifier(),
            self.timestamp,
            self.cell_type,
            self.value(),
        )
        .with_seq_id(self.seq_id);
        cell.ttl_ms = self.ttl_ms;
        cell
    }

    pub fn with_seq_id(mut self, seq_id: u64) -> Cell {
        self.seq_id = seq_id;
        self
    }

    pub fn with_ttl_ms(mut self, ttl_ms: Option<u64>) -> Cell {
        self.ttl_ms = ttl_ms;
        self
    }

    #[inline]
    fn family_start(&self) -> usize {
        usize::from(self.row_len)
    }

    #[inline]
    fn qualifier_start(&self) -> usize {
        self.family_start() + usize::from(self.family_len)
    }

    #[inline]
    fn value_start(&self) -> usize {
        self.qualifier_start() + self.qualifier_len as usize
    }

    #[inline]
    pub fn row(&self) -> &[u8] {
        &self.buf[..self.family_start()]
    }

    #[inline]
    pub fn family(&self) -> &[u8] {
        &self.buf[self.family_start()..self.qualifier_start()]
    }

    #[inline]
    pub fn qualifier(&self) -> &[u8] {
        &self.buf[self.qualifier_start()..self.value_start()]
    }

    #[inline]
    pub fn value(&self) -> &[u8] {
        &self.buf[self.value_start()..]
    }

    /// The row as shared bytes (no copy).
    pub fn row_bytes(&self) -> Bytes {
        self.buf.slice(..self.family_start())
    }

    /// The value as shared bytes (no copy).
    pub fn value_bytes(&self) -> Bytes {
        self.buf.slice(self.value_start()..)
    }

    /// Seek key that sorts before every cell of `row` in store order.
    pub fn first_on_row(row: &[u8]) -> Cell {
        Cell::new(row, b"", b"", i64::MAX, CellType::Maximum, b"").with_seq_id(u64::MAX)
    }

    /// Seek key that sorts after every cell of `row` and before the next row (HBase's
    /// "last on row": empty qualifier, type `Minimum`).
    pub fn last_on_row(row: &[u8]) -> Cell {
        Cell::new(row, b"", b"", i64::MIN, CellType::Minimum, b"")
    }

    /// Seek key that sorts before every cell of column `row, qualifier`.
    pub fn first_on_column(row: &[u8], qualifier: &[u8]) -> Cell {
        Cell::new(row, b"", qualifier, i64::MAX, CellType::Maximum, b"").with_seq_id(u64::MAX)
    }

    /// Seek key that sorts after every cell of column `row, qualifier` and before the row's
    /// next column. After the empty qualifier that is the first cell of qualifier `"\0"`,
    /// because `(row, "", MIN, Minimum)` is the last-on-row sentinel.
    pub fn after_column(row: &[u8], qualifier: &[u8]) -> Cell {
        if qualifier.is_empty() {
            return Cell::first_on_column(row, b"\0");
        }
        Cell::new(row, b"", qualifier, i64::MIN, CellType::Minimum, b"")
    }

    /// Whether this is the last-on-row seek sentinel.
    #[inline]
    pub fn is_last_on_row(&self) -> bool {
        self.cell_type == CellType::Minimum && self.qualifier_len == 0
    }

    /// Bytes this cell occupies, counted as HBase's KeyValue serialisation would.
    pub fn serialized_size(&self) -> usize {
        key_value_size(
            self.row().len(),
            self.family().len(),
            self.qualifier().len(),
            self.value().len(),
        )
    }
}

impl Ord for Cell {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_cells(self, other)
    }
}

impl PartialOrd for Cell {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// HBase's `CellComparatorImpl` order.
pub fn compare_cells(a: &Cell, b: &Cell) -> Ordering {
    a.row()
        .cmp(b.row())
        .then_with(|| a.family().cmp(b.family()))
        .then_with(|| a.qualifier().cmp(b.qualifier()))
        .then_with(|| compare_versions(a, b))
}

/// The order of cells within one store (one family): HBase's order without the family, where
/// an empty qualifier with type `Minimum` is HBase's "last on row" sentinel and sorts after every
/// cell of its row.
pub fn compare_in_store(a: &Cell, b: &Cell) -> Ordering {
    if a.is_last_on_row() {
        return match a.row().cmp(b.row()) {
            Ordering::Equal if b.is_last_on_row() => Ordering::Equal,
            Ordering::Equal => Ordering::Greater,
            ord => ord,
        };
    }
    compare_key_in_store(
        &StoreKey {
            row: a.row(),
            qualifier: a.qualifier(),
            timestamp: a.timestamp,
            type_code: a.cell_type.code(),
            seq_id: a.seq_id,
        },
        b,
    )
}

/// The parts of a cell that order it within a store, borrowed from wherever they lie (a store
/// file's block holds them encoded, not as a [`Cell`]).
#[derive(Debug, Clone, Copy)]
pub struct StoreKey<'a> {
    pub row: &'a [u8],
    pub qualifier: &'a [u8],
    pub timestamp: i64,
    pub type_code: u8,
    pub seq_id: u64,
}

/// [`compare_in_store`] of the cell whose key is `a` (never a last-on-row sentinel: no stored
/// cell is one) and `b`.
#[inline]
pub fn compare_key_in_store(a: &StoreKey<'_>, b: &Cell) -> Ordering {
    match a.row.cmp(b.row()) {
        Ordering::Equal => {}
        ord => return ord,
    }
    if b.is_last_on_row() {
        return Ordering::Less;
    }
    a.qualifier
        .cmp(b.qualifier())
        .then_with(|| b.timestamp.cmp(&a.timestamp))
        .then_with(|| b.cell_type.code().cmp(&a.type_code))
        .then_with(|| b.seq_id.cmp(&a.seq_id))
}

/// The order of two versions of the same column: timestamp, type and sequence id, all descending.
#[inline]
pub fn compare_versions(a: &Cell, b: &Cell) -> Ordering {
    b.timestamp
        .cmp(&a.timestamp)
        .then_with(|| b.cell_type.code().cmp(&a.cell_type.code()))
        .then_with(|| b.seq_id.cmp(&a.seq_id))
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `row/family:qualifier/timestamp/Type/vlen=N/seqid=S`, HBase's `KeyValue.toString` form.
impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_binary(f, self.row())?;
        f.write_str("/")?;
        write_binary(f, self.family())?;
        f.write_str(":")?;
        write_binary(f, self.qualifier())?;
        write!(
            f,
            "/{}/{}/vlen={}/seqid={}",
            self.timestamp,
            self.cell_type,
            self.value().len(),
            self.seq_id
        )
    }
}

/// Bytes of a cell in HBase's KeyValue serialisation: key length, value length, row length,
/// row, family length, family, qualifier, timestamp, type, value.
pub fn key_value_size(row: usize, family: usize, qualifier: usize, value: usize) -> usize {
    4 + 4 + 2 + row + 1 + family + qualifier + 8 + 1 + value
}

/// Checks a row key of a mutation or Get: 1..=32767 bytes.
pub fn validate_row(row: &[u8]) -> Result<()> {
    if row.is_empty() {
        return Err(Error::EmptyRow);
    }
    if row.len() > MAX_ROW_LENGTH {
        return Err(Error::RowTooLong {
            len: row.len(),
            max: MAX_ROW_LENGTH,
        });
    }
    Ok(())
}

/// Checks a timestamp given by a client: never negative (LATEST is allowed).
pub fn validate_timestamp(ts: i64) -> Result<()> {
    if ts < 0 {
        return Err(Error::NegativeTimestamp(ts));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(row: &'static str, q: &'static str, ts: i64, t: CellType, seq: u64) -> Cell {
        Cell::new(row.as_bytes(), b"cf", q.as_bytes(), ts, t, b"").with_seq_id(seq)
    }

    #[test]
    fn parts_round_trip_and_cells_are_small() {
        let c = Cell::new(b"row", b"fam", b"", 7, CellType::Put, b"value");
        assert_eq!(
            (c.row(), c.family(), c.qualifier(), c.value()),
            (&b"row"[..], &b"fam"[..], &b""[..], &b"value"[..])
        );
        assert_eq!(c.row_bytes(), Bytes::from_static(b"row"));
        assert_eq!(c.value_bytes(), Bytes::from_static(b"value"));
        assert_ne!(
            c,
            Cell::new(b"ro", b"wfam", b"", 7, CellType::Put, b"value")
        );
        assert!(
            std::mem::size_of::<Cell>() <= 72,
            "{}",
            std::mem::size_of::<Cell>()
        );
        assert!(Cell::from_buffer(Bytes::from_static(b"ab"), 2, 1, 0, 0, CellType::Put).is_none());
    }

    #[test]
    fn order_is_hbase_order() {
        let mut cells = [
            cell("r", "a", 5, CellType::Put, 1),
            cell("r", "a", 5, CellType::Put, 2),
            cell("r", "a", 5, CellType::DeleteColumn, 1),
            cell("r", "a", 9, CellType::Put, 1),
            cell("r", "", 1, CellType::DeleteFamily, 1),
            cell("r", "a", 5, CellType::Delete, 1),
            cell("q", "z", 0, CellType::Put, 1),
        ];
        cells.sort();
        let got: Vec<String> = cells.iter().map(|c| c.to_string()).collect();
        assert_eq!(
            got,
            vec![
                "q/cf:z/0/Put/vlen=0/seqid=1",
                "r/cf:/1/DeleteFamily/vlen=0/seqid=1",
                "r/cf:a/9/Put/vlen=0/seqid=1",
                "r/cf:a/5/DeleteColumn/vlen=0/seqid=1",
                "r/cf:a/5/Delete/vlen=0/seqid=1",
                "r/cf:a/5/Put/vlen=0/seqid=2",
                "r/cf:a/5/Put/vlen=0/seqid=1",
            ]
        );
    }

    #[test]
    fn row_limits() {
        assert_eq!(validate_row(b""), Err(Error::EmptyRow));
        assert!(validate_row(&[0u8; MAX_ROW_LENGTH]).is_ok());
        assert!(matches!(
            validate_row(&[0u8; MAX_ROW_LENGTH + 1]),
            Err(Error::RowTooLong { len: 32768, .. })
        ));
    }

    #[test]
    fn type_codes_round_trip() {
        for code in 0..=255u8 {
            if let Some(t) = CellType::from_code(code) {
                assert_eq!(t.code(), code);
            }
        }
        assert_eq!(CellType::from_code(3), None);
    }
}
