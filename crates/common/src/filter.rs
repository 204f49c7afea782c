//! HBase's filters as data ([`FilterSpec`]), their comparators, the parser of HBase's filter
//! language (`ParseFilter`: the shell's `FILTER => "..."`, Thrift's `filterString`, REST's
//! `filter=`), and their evaluation ([`Filter`], built by [`FilterSpec::build`]), which the
//! read path drives cell by cell and row by row as HBase's region scanner does.

mod compare;
mod eval;
mod language;
mod list;
mod rows;

use bytes::Bytes;

pub use eval::{Filter, ReturnCode};
pub use language::parse_filter;

use crate::ops::CompareOperator;

/// A comparator of a compare filter (reference §3.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparator {
    /// `binary:` unsigned lexicographic comparison.
    Binary(Bytes),
    /// `binaryprefix:` compares the first len(expected) bytes only.
    BinaryPrefix(Bytes),
    /// `regexstring:` a regular expression found anywhere in the value (EQUAL / NOT_EQUAL).
    RegexString(String),
    /// `substring:` case-insensitive containment (EQUAL / NOT_EQUAL).
    Substring(String),
    /// Matches when `value op cell` (bitwise, over equal lengths) has a non-zero byte.
    Bit { value: Bytes, op: BitOp },
    /// Matches an empty value.
    Null,
    /// Compares an 8-byte big-endian signed value numerically.
    Long(i64),
    /// Compares `value` with the cell's bytes at `offset`.
    BinaryComponent { offset: u32, value: Bytes },
    /// Compares numerically with a value in HBase's `Bytes.toBytes(BigDecimal)` form: a
    /// 4-byte big-endian scale, then the unscaled value's two's-complement bytes.
    BigDecimal(Bytes),
}

/// The operation of a [`Comparator::Bit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    And,
    Or,
    Xor,
}

/// One row range of a [`FilterSpec::MultiRowRange`]; an empty start or stop is unbounded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRange {
    pub start: Bytes,
    pub start_inclusive: bool,
    pub stop: Bytes,
    pub stop_inclusive: bool,
}

/// One of HBase's filters, as the filter language (or a client) describes it.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterSpec {
    KeyOnly {
        len_as_value: bool,
    },
    FirstKeyOnly,
    Prefix(Bytes),
    ColumnPrefix(Bytes),
    MultipleColumnPrefix(Vec<Bytes>),
    ColumnCountGet(u32),
    Page(u64),
    /// `limit` columns per row after skipping `offset` columns, or (with `column_offset`)
    /// starting at that qualifier.
    ColumnPagination {
        limit: u32,
        offset: u32,
        column_offset: Option<Bytes>,
    },
    InclusiveStop(Bytes),
    Timestamps(Vec<i64>),
    Row(CompareOperator, Comparator),
    Family(CompareOperator, Comparator),
    Qualifier(CompareOperator, Comparator),
    Value(CompareOperator, Comparator),
    ColumnRange {
        min: Bytes,
        min_inclusive: bool,
        max: Bytes,
        max_inclusive: bool,
    },
    SingleColumnValue {
        family: Bytes,
        qualifier: Bytes,
        op: CompareOperator,
        comparator: Comparator,
        filter_if_missing: bool,
        latest_version_only: bool,
        /// SingleColumnValueExcludeFilter: the tested column is not returned.
        exclude: bool,
    },
    DependentColumn {
        family: Bytes,
        qualifier: Bytes,
        drop_dependent: bool,
        compare: Option<(CompareOperator, Comparator)>,
    },
    ColumnValue {
        family: Bytes,
        qualifier: Bytes,
        op: CompareOperator,
        comparator: Comparator,
    },
    /// `SKIP f`: drops a whole row if any of its cells fails `f`.
    Skip(Box<FilterSpec>),
    /// `WHILE f`: ends the scan at the first rejection by `f`.
    WhileMatch(Box<FilterSpec>),
    /// `AND` (must pass all) / `OR` (must pass one).
    List {
        must_pass_all: bool,
        filters: Vec<FilterSpec>,
    },
    /// Rows matching any `(key, mask)` pattern: mask byte 0 = the key's byte is fixed, 1 = any
    /// byte; rows longer than the pattern match on their prefix. Seeks to the next match.
    FuzzyRow(Vec<(Bytes, Bytes)>),
    /// Rows in any of the ranges (merged), seeking from one range to the next.
    MultiRowRange(Vec<RowRange>),
    /// Each row with probability `chance` (below 0: none, above 1: all).
    RandomRow(f32),
}

// `RandomRow` holds a float; specs are still compared structurally, as data.
impl Eq for FilterSpec {}

/// The 19 filter names the language knows (HBase's `ParseFilter.filterHashMap`), as the
/// shell's `show_filters` lists them.
pub const FILTER_NAMES: [&str; 19] = [
    "ColumnCountGetFilter",
    "ColumnPaginationFilter",
    "ColumnPrefixFilter",
    "ColumnRangeFilter",
    "ColumnValueFilter",
    "DependentColumnFilter",
    "FamilyFilter",
    "FirstKeyOnlyFilter",
    "InclusiveStopFilter",
    "KeyOnlyFilter",
    "MultipleColumnPrefixFilter",
    "PageFilter",
    "PrefixFilter",
    "QualifierFilter",
    "RowFilter",
    "SingleColumnValueExcludeFilter",
    "SingleColumnValueFilter",
    "TimestampsFilter",
    "ValueFilter",
];
