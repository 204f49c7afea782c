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

/// One cell. Cheap to clone: the byte fields are reference counted.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Cell {
    pub row: Bytes,
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: i64,
    pub cell_type: CellType,
    /// The region sequence id (MVCC write number) that wrote the cell; 0 if not yet assigned.
    pub seq_id: u64,
    pub value: Bytes,
    /// The cell's own time to live in milliseconds (HBase's TTL tag), if the mutation set one.
    pub ttl_ms: Option<u64>,
}

impl Cell {
    /// A put cell with no sequence id and no TTL.
    pub fn put(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        value: impl Into<Bytes>,
    ) -> Cell {
        Cell {
            row: row.into(),
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp,
            cell_type: CellType::Put,
            seq_id: 0,
            value: value.into(),
            ttl_ms: None,
        }
    }

    /// Bytes this cell occupies, counted as HBase's KeyValue serialisation would.
    pub fn serialized_size(&self) -> usize {
        // keylen + vallen + rowlen + row + famlen + family + qualifier + ts + type + value
        4 + 4
            + 2
            + self.row.len()
            + 1
            + self.family.len()
            + self.qualifier.len()
            + 8
            + 1
            + self.value.len()
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
    a.row
        .cmp(&b.row)
        .then_with(|| a.family.cmp(&b.family))
        .then_with(|| a.qualifier.cmp(&b.qualifier))
        .then_with(|| {
            compare_versions(
                a.timestamp,
                a.cell_type,
                a.seq_id,
                b.timestamp,
                b.cell_type,
                b.seq_id,
            )
        })
}

/// The order of two versions of the same column: timestamp, type and sequence id, all descending.
#[inline]
pub fn compare_versions(
    a_ts: i64,
    a_type: CellType,
    a_seq: u64,
    b_ts: i64,
    b_type: CellType,
    b_seq: u64,
) -> Ordering {
    b_ts.cmp(&a_ts)
        .then_with(|| b_type.code().cmp(&a_type.code()))
        .then_with(|| b_seq.cmp(&a_seq))
}

impl fmt::Debug for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `row/family:qualifier/timestamp/Type/vlen=N/seqid=S`, HBase's `KeyValue.toString` form.
impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_binary(f, &self.row)?;
        f.write_str("/")?;
        write_binary(f, &self.family)?;
        f.write_str(":")?;
        write_binary(f, &self.qualifier)?;
        write!(
            f,
            "/{}/{}/vlen={}/seqid={}",
            self.timestamp,
            self.cell_type,
            self.value.len(),
            self.seq_id
        )
    }
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
        Cell {
            row: Bytes::from_static(row.as_bytes()),
            family: Bytes::from_static(b"cf"),
            qualifier: Bytes::from_static(q.as_bytes()),
            timestamp: ts,
            cell_type: t,
            seq_id: seq,
            value: Bytes::new(),
            ttl_ms: None,
        }
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
