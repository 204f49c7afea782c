//! Read-modify-write operations (HBase's Increment, Append, CheckAndMutate) and atomic row
//! mutations (RowMutations). Each applies to one row, atomically, under the row's lock.

use bytes::Bytes;

use crate::error::{Error, Result};
use crate::ops::{Delete, Put, TimeRange};
use crate::schema::Durability;

/// Updates of columns of one row, each computed from the column's current value: an
/// [`Increment`] (amounts added to 8-byte big-endian counters) or an [`Append`] (bytes
/// appended; a missing cell becomes the bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnUpdates<T> {
    pub row: Bytes,
    /// (family, qualifier, amount or bytes)
    pub columns: Vec<(Bytes, Bytes, T)>,
    /// Which versions count as the current value (HBase's `setTimeRange`).
    pub time_range: TimeRange,
    pub durability: Durability,
    /// Time to live of the new cells, in milliseconds.
    pub ttl_ms: Option<u64>,
}

/// HBase's `Increment`: adds to 8-byte big-endian counters of one row.
pub type Increment = ColumnUpdates<i64>;

/// HBase's `Append`: appends bytes to cells of one row.
pub type Append = ColumnUpdates<Bytes>;

impl<T> ColumnUpdates<T> {
    pub fn new(row: impl Into<Bytes>) -> Self {
        ColumnUpdates {
            row: row.into(),
            columns: Vec::new(),
            time_range: TimeRange::ALL,
            durability: Durability::UseDefault,
            ttl_ms: None,
        }
    }

    /// Updates `family:qualifier` by `update` (an amount, or bytes to append).
    pub fn add_column(
        mut self,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        update: impl Into<T>,
    ) -> Self {
        self.columns
            .push((family.into(), qualifier.into(), update.into()));
        self
    }

    /// Only versions with `min <= ts < max` count as the current value.
    pub fn with_time_range(mut self, min: i64, max: i64) -> Self {
        self.time_range = TimeRange::new(min, max);
        self
    }

    pub fn with_durability(mut self, d: Durability) -> Self {
        self.durability = d;
        self
    }

    /// Time to live of the new cells, in milliseconds.
    pub fn with_ttl_ms(mut self, ttl_ms: u64) -> Self {
        self.ttl_ms = Some(ttl_ms);
        self
    }
}

/// One mutation of a [`RowMutations`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mutation {
    Put(Put),
    Delete(Delete),
}

impl From<Put> for Mutation {
    fn from(p: Put) -> Self {
        Mutation::Put(p)
    }
}

impl From<Delete> for Mutation {
    fn from(d: Delete) -> Self {
        Mutation::Delete(d)
    }
}

impl Mutation {
    pub fn row(&self) -> &Bytes {
        match self {
            Mutation::Put(p) => &p.row,
            Mutation::Delete(d) => &d.row,
        }
    }

    pub fn durability(&self) -> Durability {
        match self {
            Mutation::Put(p) => p.durability,
            Mutation::Delete(d) => d.durability,
        }
    }
}

/// Puts and deletes of one row applied atomically (HBase's `RowMutations`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowMutations {
    pub row: Bytes,
    pub mutations: Vec<RowOp>,
}

/// One mutation of a [`RowMutations`]: a put, a delete, or (as HBase 2.4 allows) an increment
/// or an append, all applied together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowOp {
    Put(Put),
    Delete(Delete),
    Increment(Increment),
    Append(Append),
}

impl RowOp {
    /// HBase's class for it (`Put`, `Delete`, `Increment`, `Append`).
    pub fn class(&self) -> &'static str {
        match self {
            RowOp::Put(_) => "Put",
            RowOp::Delete(_) => "Delete",
            RowOp::Increment(_) => "Increment",
            RowOp::Append(_) => "Append",
        }
    }

    pub fn row(&self) -> &Bytes {
        match self {
            RowOp::Put(p) => &p.row,
            RowOp::Delete(d) => &d.row,
            RowOp::Increment(i) => &i.row,
            RowOp::Append(a) => &a.row,
        }
    }

    pub fn durability(&self) -> Durability {
        match self {
            RowOp::Put(p) => p.durability,
            RowOp::Delete(d) => d.durability,
            RowOp::Increment(i) => i.durability,
            RowOp::Append(a) => a.durability,
        }
    }
}

impl From<Mutation> for RowOp {
    fn from(m: Mutation) -> Self {
        match m {
            Mutation::Put(p) => RowOp::Put(p),
            Mutation::Delete(d) => RowOp::Delete(d),
        }
    }
}

impl RowMutations {
    pub fn new(row: impl Into<Bytes>) -> Self {
        RowMutations {
            row: row.into(),
            mutations: Vec::new(),
        }
    }

    pub fn add_put(mut self, put: Put) -> Self {
        self.mutations.push(RowOp::Put(put));
        self
    }

    pub fn add_delete(mut self, delete: Delete) -> Self {
        self.mutations.push(RowOp::Delete(delete));
        self
    }

    pub fn add_increment(mut self, increment: Increment) -> Self {
        self.mutations.push(RowOp::Increment(increment));
        self
    }

    pub fn add_append(mut self, append: Append) -> Self {
        self.mutations.push(RowOp::Append(append));
        self
    }

    /// Every mutation must be of this row (HBase: "The row in ... doesn't match the original
    /// one").
    pub fn validate(&self) -> Result<()> {
        if self.mutations.is_empty() {
            return Err(Error::InvalidArgument(
                "RowMutations needs at least one mutation".into(),
            ));
        }
        for m in &self.mutations {
            if m.row() != &self.row {
                return Err(Error::InvalidArgument(format!(
                    "The row in {} doesn't match the original one {}",
                    crate::bytes_display::BinaryDisplay::new(m.row()),
                    crate::bytes_display::BinaryDisplay::new(&self.row)
                )));
            }
        }
        Ok(())
    }
}

/// HBase's `CompareOperator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompareOperator {
    Less,
    LessOrEqual,
    Equal,
    NotEqual,
    GreaterOrEqual,
    Greater,
    NoOp,
}

impl CompareOperator {
    /// Whether a comparison that came out `ordering` (expected value against the existing
    /// one, in HBase's order) passes.
    pub fn matches(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            CompareOperator::Less => ordering == Less,
            CompareOperator::LessOrEqual => ordering != Greater,
            CompareOperator::Equal => ordering == Equal,
            CompareOperator::NotEqual => ordering != Equal,
            CompareOperator::GreaterOrEqual => ordering != Less,
            CompareOperator::Greater => ordering == Greater,
            CompareOperator::NoOp => false,
        }
    }
}

impl std::str::FromStr for CompareOperator {
    type Err = Error;

    /// HBase's names (`LESS`, `LESS_OR_EQUAL`, `EQUAL`, `NOT_EQUAL`, `GREATER_OR_EQUAL`,
    /// `GREATER`, `NO_OP`) and the filter language's symbols (`<`, `<=`, `=`, `!=`, `>=`, `>`).
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "LESS" | "<" => CompareOperator::Less,
            "LESS_OR_EQUAL" | "<=" => CompareOperator::LessOrEqual,
            "EQUAL" | "=" => CompareOperator::Equal,
            "NOT_EQUAL" | "!=" => CompareOperator::NotEqual,
            "GREATER_OR_EQUAL" | ">=" => CompareOperator::GreaterOrEqual,
            "GREATER" | ">" => CompareOperator::Greater,
            "NO_OP" => CompareOperator::NoOp,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unknown compare operator {other:?}"
                )));
            }
        })
    }
}

/// What a [`CheckAndMutate`] checks: a column's newest value (within `time_range`) against
/// `expected` by `op`, with the expected value on the left as in HBase (`Greater` passes when
/// expected > existing). An empty `expected` means "the column is absent" (or, for
/// `NotEqual`, present), or an existing empty value, exactly as HBase's `checkAndMutate`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub family: Bytes,
    pub qualifier: Bytes,
    pub op: CompareOperator,
    pub expected: Bytes,
    pub time_range: TimeRange,
}

impl Condition {
    /// `family:qualifier` compared by `op` with `expected`.
    pub fn matches(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        op: CompareOperator,
        expected: impl Into<Bytes>,
    ) -> Self {
        Condition {
            family: family.into(),
            qualifier: qualifier.into(),
            op,
            expected: expected.into(),
            time_range: TimeRange::ALL,
        }
    }

    /// `family:qualifier` equals `expected` (HBase's `ifEquals`).
    pub fn equals(
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        expected: impl Into<Bytes>,
    ) -> Self {
        Condition::matches(family, qualifier, CompareOperator::Equal, expected)
    }

    /// `family:qualifier` does not exist (HBase's `ifNotExists`).
    pub fn not_exists(family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
        Condition::matches(family, qualifier, CompareOperator::Equal, Bytes::new())
    }

    pub fn with_time_range(mut self, min: i64, max: i64) -> Self {
        self.time_range = TimeRange::new(min, max);
        self
    }

    /// Whether the condition holds for the column's newest value (None: no cell), as
    /// HBase's `HRegion.checkAndMutate` decides.
    pub fn holds(&self, existing: Option<&[u8]>) -> bool {
        let absent_expected = self.expected.is_empty();
        match existing {
            None if absent_expected => self.op != CompareOperator::NotEqual,
            None => false,
            Some(value) if absent_expected => {
                value.is_empty() == (self.op != CompareOperator::NotEqual)
            }
            Some(value) => self.op.matches(self.expected[..].cmp(value)),
        }
    }
}

/// What a [`CheckAndMutate`] does when its condition holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckAction {
    Put(Put),
    Delete(Delete),
    RowMutations(RowMutations),
    Increment(Increment),
    Append(Append),
}

impl RowMutations {
    /// The class a space quota's policy judges them by: `Delete` when they only delete, else
    /// the first that adds data.
    pub fn class(&self) -> &'static str {
        self.mutations
            .iter()
            .map(RowOp::class)
            .find(|c| *c != "Delete")
            .unwrap_or("Delete")
    }
}

impl CheckAction {
    /// HBase's class for it (`Put`, `Delete`, ...; row mutations as [`RowMutations::class`]).
    pub fn class(&self) -> &'static str {
        match self {
            CheckAction::Put(_) => "Put",
            CheckAction::Delete(_) => "Delete",
            CheckAction::RowMutations(m) => m.class(),
            CheckAction::Increment(_) => "Increment",
            CheckAction::Append(_) => "Append",
        }
    }

    pub fn row(&self) -> &Bytes {
        match self {
            CheckAction::Put(p) => &p.row,
            CheckAction::Delete(d) => &d.row,
            CheckAction::RowMutations(m) => &m.row,
            CheckAction::Increment(i) => &i.row,
            CheckAction::Append(a) => &a.row,
        }
    }
}

/// What a [`CheckAndMutate`] checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// One column's newest value.
    Column(Condition),
    /// The row, read with this filter within the time range, has a cell (HBase 2.4's
    /// `CheckAndMutate.Builder.ifMatches(Filter)`).
    Filter {
        filter: crate::filter::FilterSpec,
        time_range: TimeRange,
    },
}

/// A mutation applied only if a condition on the same row holds, atomically (HBase's
/// `CheckAndMutate`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckAndMutate {
    pub row: Bytes,
    pub check: Check,
    pub action: CheckAction,
}

impl CheckAndMutate {
    pub fn new(row: impl Into<Bytes>, condition: Condition, action: CheckAction) -> Self {
        CheckAndMutate {
            row: row.into(),
            check: Check::Column(condition),
            action,
        }
    }

    /// Applies `action` if the row read through `filter` is not empty.
    pub fn if_matches(
        row: impl Into<Bytes>,
        filter: crate::filter::FilterSpec,
        action: CheckAction,
    ) -> Self {
        CheckAndMutate {
            row: row.into(),
            check: Check::Filter {
                filter,
                time_range: TimeRange::ALL,
            },
            action,
        }
    }
}

/// The outcome of a [`CheckAndMutate`]: whether it applied, and the Increment's or Append's
/// new cells if its action was one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckAndMutateResult {
    pub success: bool,
    pub result: Option<crate::ops::RowResult>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_follow_hbase() {
        let c = |op, expected: &'static [u8]| Condition::matches("f", "q", op, expected);
        // Expected on the left: GREATER passes when expected > existing.
        assert!(c(CompareOperator::Greater, b"b").holds(Some(b"a")));
        assert!(!c(CompareOperator::Greater, b"a").holds(Some(b"b")));
        assert!(c(CompareOperator::Less, b"a").holds(Some(b"b")));
        assert!(c(CompareOperator::Equal, b"a").holds(Some(b"a")));
        assert!(!c(CompareOperator::Equal, b"a").holds(None));
        // Empty expected: absence (or an empty value).
        assert!(Condition::not_exists("f", "q").holds(None));
        assert!(!Condition::not_exists("f", "q").holds(Some(b"x")));
        assert!(Condition::not_exists("f", "q").holds(Some(b"")));
        assert!(c(CompareOperator::NotEqual, b"").holds(Some(b"x")));
        assert!(!c(CompareOperator::NotEqual, b"").holds(None));
        assert!(!c(CompareOperator::NoOp, b"a").holds(Some(b"a")));
        assert_eq!(
            ">=".parse::<CompareOperator>().ok(),
            Some(CompareOperator::GreaterOrEqual)
        );
    }
}
