//! Put and Delete.

use bytes::Bytes;

use crate::cell::{CellType, LATEST_TIMESTAMP};
use crate::replication::ClusterId;
use crate::schema::Durability;

/// One cell of a [`Put`]; `timestamp: None` takes the Put's timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PutCell {
    pub family: Bytes,
    pub qualifier: Bytes,
    pub timestamp: Option<i64>,
    pub value: Bytes,
}

/// Writes cells to one row, atomically.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub row: Bytes,
    /// Timestamp of cells added without one; [`LATEST_TIMESTAMP`] means server time.
    pub timestamp: i64,
    pub cells: Vec<PutCell>,
    /// Cell TTL in milliseconds for every cell of this Put (HBase's `setTTL`).
    pub ttl_ms: Option<u64>,
    pub durability: Durability,
    /// The clusters this edit came through, for replication (HBase's `Mutation.getClusterIds`):
    /// empty for an edit made here.
    pub cluster_ids: Vec<ClusterId>,
}

impl Put {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Put {
            row: row.into(),
            timestamp: LATEST_TIMESTAMP,
            cells: Vec::new(),
            ttl_ms: None,
            durability: Durability::UseDefault,
            cluster_ids: Vec::new(),
        }
    }

    /// The timestamp of every cell added without an explicit one.
    pub fn with_timestamp(mut self, ts: i64) -> Self {
        self.timestamp = ts;
        self
    }

    /// Adds `family:qualifier = value` at the Put's timestamp.
    pub fn add_column(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        value: impl Into<Bytes>,
    ) -> Self {
        self.cells.push(PutCell {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp: None,
            value: value.into(),
        });
        self
    }

    /// Adds `family:qualifier = value` at timestamp `ts`.
    pub fn add_column_at(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        ts: i64,
        value: impl Into<Bytes>,
    ) -> Self {
        self.cells.push(PutCell {
            family: family.into(),
            qualifier: qualifier.into(),
            timestamp: Some(ts),
            value: value.into(),
        });
        self
    }

    /// Gives every cell of this Put a time to live, in milliseconds.
    pub fn with_ttl_ms(mut self, ttl_ms: u64) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self
    }

    pub fn with_durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }
}

/// One marker of a [`Delete`]. `timestamp: None` takes the Delete's timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteEntry {
    pub family: Bytes,
    /// Empty for family-wide markers.
    pub qualifier: Bytes,
    pub timestamp: Option<i64>,
    /// One of the four delete types.
    pub kind: CellType,
}

/// Deletes from one row, atomically. With no entries it deletes the whole row: one
/// DeleteFamily marker per family at the Delete's timestamp.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delete {
    pub row: Bytes,
    /// Timestamp of markers added without one; [`LATEST_TIMESTAMP`] means server time (and,
    /// for a single-version delete, "the newest existing version").
    pub timestamp: i64,
    pub entries: Vec<DeleteEntry>,
    pub durability: Durability,
    /// The clusters this edit came through (see [`Put::cluster_ids`]).
    pub cluster_ids: Vec<ClusterId>,
}

impl Delete {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Delete {
            row: row.into(),
            timestamp: LATEST_TIMESTAMP,
            entries: Vec::new(),
            durability: Durability::UseDefault,
            cluster_ids: Vec::new(),
        }
    }

    /// HBase's `Delete(row, ts)`: the timestamp of the whole-row delete and of every marker
    /// added without one.
    pub fn with_timestamp(mut self, ts: i64) -> Self {
        self.timestamp = ts;
        self
    }

    fn push(
        mut self,
        family: Bytes,
        qualifier: Bytes,
        timestamp: Option<i64>,
        kind: CellType,
    ) -> Self {
        self.entries.push(DeleteEntry {
            family,
            qualifier,
            timestamp,
            kind,
        });
        self
    }

    /// Every version of every column of `family` (DeleteFamily at the Delete's timestamp).
    pub fn add_family(self, family: impl Into<Bytes>) -> Self {
        self.push(family.into(), Bytes::new(), None, CellType::DeleteFamily)
    }

    /// Every column of `family` with timestamp <= `ts`.
    pub fn add_family_at(self, family: impl Into<Bytes>, ts: i64) -> Self {
        self.push(
            family.into(),
            Bytes::new(),
            Some(ts),
            CellType::DeleteFamily,
        )
    }

    /// Every column of `family` at exactly `ts` (DeleteFamilyVersion).
    pub fn add_family_version(self, family: impl Into<Bytes>, ts: i64) -> Self {
        self.push(
            family.into(),
            Bytes::new(),
            Some(ts),
            CellType::DeleteFamilyVersion,
        )
    }

    /// Every version of one column (DeleteColumn at the Delete's timestamp).
    pub fn add_columns(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.push(
            family.into(),
            qualifier.into(),
            None,
            CellType::DeleteColumn,
        )
    }

    /// Every version of one column with timestamp <= `ts`.
    pub fn add_columns_at(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        ts: i64,
    ) -> Self {
        self.push(
            family.into(),
            qualifier.into(),
            Some(ts),
            CellType::DeleteColumn,
        )
    }

    /// One version of one column: the Delete's timestamp, or the newest version if that is
    /// LATEST (HBase's `addColumn(f, q)`).
    pub fn add_column(self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        self.push(family.into(), qualifier.into(), None, CellType::Delete)
    }

    /// Exactly the version at `ts` of one column.
    pub fn add_column_at(
        self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        ts: i64,
    ) -> Self {
        self.push(family.into(), qualifier.into(), Some(ts), CellType::Delete)
    }

    pub fn with_durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }
}
