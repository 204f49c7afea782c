//! Get, Scan and the pieces they share: time ranges and family/column selection.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;

use crate::error::{Error, Result};

/// Timestamps `[min, max)`. The default is all time, `[0, i64::MAX)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TimeRange {
    pub min: i64,
    pub max: i64,
}

impl Default for TimeRange {
    fn default() -> Self {
        TimeRange::ALL
    }
}

impl TimeRange {
    pub const ALL: TimeRange = TimeRange {
        min: 0,
        max: i64::MAX,
    };

    /// `[min, max)`.
    pub fn new(min: i64, max: i64) -> TimeRange {
        TimeRange { min, max }
    }

    /// Exactly `ts`: `[ts, ts + 1)`.
    pub fn at(ts: i64) -> TimeRange {
        TimeRange {
            min: ts,
            max: ts.saturating_add(1),
        }
    }

    pub fn is_all_time(&self) -> bool {
        *self == TimeRange::ALL
    }

    /// Rejects negative bounds and `max < min`, with HBase's wording.
    pub fn validate(&self) -> Result<()> {
        if self.min < 0 || self.max < 0 {
            return Err(Error::InvalidArgument(format!(
                "Timestamp cannot be negative. minStamp:{}, maxStamp:{}",
                self.min, self.max
            )));
        }
        if self.max < self.min {
            return Err(Error::InvalidArgument(format!(
                "maxStamp is smaller than minStamp: [{}, {})",
                self.min, self.max
            )));
        }
        Ok(())
    }

    /// -1 if `ts` is before the range, 1 if at or after its end, 0 inside (HBase's `compare`).
    #[inline]
    pub fn compare(&self, ts: i64) -> i32 {
        if self.is_all_time() {
            0
        } else if ts < self.min {
            -1
        } else if ts >= self.max {
            1
        } else {
            0
        }
    }

    #[inline]
    pub fn contains(&self, ts: i64) -> bool {
        self.compare(ts) == 0
    }

    /// `ts` is in the range or after it (HBase's `withinOrAfterTimeRange`).
    #[inline]
    pub fn contains_or_after(&self, ts: i64) -> bool {
        self.is_all_time() || ts >= self.min
    }
}

/// Which families, and within them which columns, a read asks for. An empty map means every
/// family; a family mapped to `None` means all its columns (HBase's `familyMap`).
pub type FamilyMap = BTreeMap<Bytes, Option<BTreeSet<Bytes>>>;

/// The selection methods Get and Scan share (HBase's `Query` base class): families, columns,
/// time range and versions.
macro_rules! query_selection_methods {
    () => {
        /// Cells and rows must also pass `filter` (HBase's `setFilter`).
        pub fn with_filter(mut self, filter: crate::filter::FilterSpec) -> Self {
            self.filter = Some(filter);
            self
        }

        /// Every column of `family` (replacing any columns listed for it before).
        pub fn add_family(mut self, family: impl Into<Bytes>) -> Self {
            self.families.insert(family.into(), None);
            self
        }

        /// One column. As in HBase, a column added after its whole family narrows the family
        /// to the listed columns.
        pub fn add_column(mut self, family: impl Into<Bytes>, qualifier: impl Into<Bytes>) -> Self {
            let columns = self.families.entry(family.into()).or_insert(None);
            columns
                .get_or_insert_with(BTreeSet::new)
                .insert(qualifier.into());
            self
        }

        /// Only versions with `min <= ts < max`.
        pub fn with_time_range(mut self, min: i64, max: i64) -> Self {
            self.time_range = TimeRange::new(min, max);
            self
        }

        /// Only the version at exactly `ts`.
        pub fn with_timestamp(mut self, ts: i64) -> Self {
            self.time_range = TimeRange::at(ts);
            self
        }

        /// For `family` only, versions with `min <= ts < max`, instead of the read's time
        /// range (HBase's `setColumnFamilyTimeRange`).
        pub fn with_family_time_range(
            mut self,
            family: impl Into<Bytes>,
            min: i64,
            max: i64,
        ) -> Self {
            self.family_time_ranges
                .insert(family.into(), TimeRange::new(min, max));
            self
        }

        /// The time range a family's cells are read with.
        pub fn time_range_of(&self, family: &[u8]) -> TimeRange {
            self.family_time_ranges
                .get(family)
                .copied()
                .unwrap_or(self.time_range)
        }

        /// Up to `n` versions per column (default 1), capped by the family's VERSIONS.
        pub fn read_versions(mut self, n: u32) -> Self {
            self.max_versions = n;
            self
        }

        pub fn read_all_versions(self) -> Self {
            self.read_versions(u32::MAX)
        }
    };
}

/// Reads one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Get {
    pub row: Bytes,
    pub families: FamilyMap,
    pub time_range: TimeRange,
    /// Per-family time ranges that replace `time_range` for their family.
    pub family_time_ranges: BTreeMap<Bytes, TimeRange>,
    /// Versions per column to return (default 1); capped by the family's VERSIONS.
    pub max_versions: u32,
    /// Whether blocks read for this Get enter the block cache (used once store files exist).
    pub cache_blocks: bool,
    /// Applied to the row as a scan of one row applies it.
    pub filter: Option<crate::filter::FilterSpec>,
}

impl Get {
    pub fn new(row: impl Into<Bytes>) -> Self {
        Get {
            row: row.into(),
            families: FamilyMap::new(),
            time_range: TimeRange::ALL,
            family_time_ranges: BTreeMap::new(),
            max_versions: 1,
            cache_blocks: true,
            filter: None,
        }
    }

    /// Whether blocks this Get reads enter the block cache (default true).
    pub fn with_cache_blocks(mut self, cache: bool) -> Self {
        self.cache_blocks = cache;
        self
    }

    query_selection_methods!();
}

/// Reads a range of rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    /// Empty means unbounded (the first row, or for a reversed scan the last).
    pub start_row: Bytes,
    pub include_start_row: bool,
    /// Empty means unbounded.
    pub stop_row: Bytes,
    pub include_stop_row: bool,
    pub reversed: bool,
    pub families: FamilyMap,
    pub time_range: TimeRange,
    /// Per-family time ranges that replace `time_range` for their family.
    pub family_time_ranges: BTreeMap<Bytes, TimeRange>,
    pub max_versions: u32,
    /// Most rows to return in all.
    pub limit: Option<usize>,
    /// Most cells per [`RowResult`](crate::ops::RowResult); a wider row comes in several.
    pub batch: Option<usize>,
    /// Return delete markers and the cells they mask.
    pub raw: bool,
    /// Rows fetched per round trip (remote) or per refill (embedded).
    pub caching: Option<usize>,
    pub cache_blocks: bool,
    /// Bytes of cells per result fetched at once (HBase's `setMaxResultSize`); with
    /// `allow_partial_results`, a row larger than this comes in several results.
    pub max_result_size: Option<u64>,
    /// Whether a row may be cut into several results at `max_result_size` (HBase's
    /// `setAllowPartialResults`).
    pub allow_partial_results: bool,
    /// Rows and cells must pass it; it is built afresh for each region's scanner.
    pub filter: Option<crate::filter::FilterSpec>,
}

impl Default for Scan {
    fn default() -> Self {
        Scan::new()
    }
}

impl Scan {
    query_selection_methods!();

    /// A scan of the whole table.
    pub fn new() -> Self {
        Scan {
            start_row: Bytes::new(),
            include_start_row: true,
            stop_row: Bytes::new(),
            include_stop_row: false,
            reversed: false,
            families: FamilyMap::new(),
            time_range: TimeRange::ALL,
            family_time_ranges: BTreeMap::new(),
            max_versions: 1,
            limit: None,
            batch: None,
            raw: false,
            caching: None,
            cache_blocks: true,
            max_result_size: None,
            allow_partial_results: false,
            filter: None,
        }
    }

    /// Whether blocks this scan reads enter the block cache (default true).
    pub fn with_cache_blocks(mut self, cache: bool) -> Self {
        self.cache_blocks = cache;
        self
    }

    /// Bytes of cells per result fetched at once (HBase's `setMaxResultSize`).
    pub fn with_max_result_size(mut self, bytes: u64) -> Self {
        self.max_result_size = Some(bytes);
        self
    }

    /// Lets a row larger than the max result size come in several results, each marked
    /// partial but the last (HBase's `setAllowPartialResults`).
    pub fn with_allow_partial_results(mut self, allow: bool) -> Self {
        self.allow_partial_results = allow;
        self
    }

    /// Where the scan starts, in its direction: unbounded for an empty start row.
    pub fn start_bound(&self) -> std::ops::Bound<Bytes> {
        if self.start_row.is_empty() {
            std::ops::Bound::Unbounded
        } else if self.include_start_row {
            std::ops::Bound::Included(self.start_row.clone())
        } else {
            std::ops::Bound::Excluded(self.start_row.clone())
        }
    }

    /// The first row (inclusive, as HBase's default).
    pub fn with_start_row(self, row: impl Into<Bytes>) -> Self {
        self.with_start_row_inclusive(row, true)
    }

    pub fn with_start_row_inclusive(mut self, row: impl Into<Bytes>, inclusive: bool) -> Self {
        self.start_row = row.into();
        self.include_start_row = inclusive;
        self
    }

    /// The row to stop at (exclusive, as HBase's default).
    pub fn with_stop_row(self, row: impl Into<Bytes>) -> Self {
        self.with_stop_row_inclusive(row, false)
    }

    pub fn with_stop_row_inclusive(mut self, row: impl Into<Bytes>, inclusive: bool) -> Self {
        self.stop_row = row.into();
        self.include_stop_row = inclusive;
        self
    }

    /// Only rows starting with `prefix` (HBase's `setStartStopRowForPrefixScan`).
    pub fn with_row_prefix(mut self, prefix: impl Into<Bytes>) -> Self {
        let prefix = prefix.into();
        self.stop_row = prefix_stop_row(&prefix);
        self.include_stop_row = false;
        self.start_row = prefix;
        self.include_start_row = true;
        self
    }

    pub fn reversed(mut self, reversed: bool) -> Self {
        self.reversed = reversed;
        self
    }

    pub fn with_limit(mut self, rows: usize) -> Self {
        self.limit = Some(rows);
        self
    }

    pub fn with_batch(mut self, cells: usize) -> Self {
        self.batch = Some(cells);
        self
    }

    pub fn with_caching(mut self, rows: usize) -> Self {
        self.caching = Some(rows);
        self
    }

    pub fn raw(mut self, raw: bool) -> Self {
        self.raw = raw;
        self
    }

    /// Rejects option combinations HBase rejects.
    pub fn validate(&self) -> Result<()> {
        for (which, row) in [("startRow", &self.start_row), ("stopRow", &self.stop_row)] {
            if row.len() > crate::cell::MAX_ROW_LENGTH {
                return Err(Error::InvalidArgument(format!(
                    "{which}'s length must be less than or equal to {} to meet the criteria for \
                     a row key, got {} bytes",
                    crate::cell::MAX_ROW_LENGTH,
                    row.len()
                )));
            }
        }
        self.time_range.validate()?;
        for range in self.family_time_ranges.values() {
            range.validate()?;
        }
        if self.max_result_size == Some(0) {
            return Err(Error::InvalidArgument(
                "max result size must be at least 1 byte".into(),
            ));
        }
        if self.max_versions == 0 {
            return Err(Error::InvalidArgument(
                "max versions must be at least 1".into(),
            ));
        }
        if self.batch == Some(0) {
            return Err(Error::InvalidArgument(
                "batch must be at least 1 cell".into(),
            ));
        }
        Ok(())
    }
}

/// The smallest row after every row that starts with `prefix`: the prefix with its last
/// non-0xFF byte incremented and what follows dropped; empty (unbounded) if there is none.
pub fn prefix_stop_row(prefix: &[u8]) -> Bytes {
    let Some(last) = prefix.iter().rposition(|&b| b != 0xFF) else {
        return Bytes::new();
    };
    let mut stop = prefix[..=last].to_vec();
    stop[last] += 1;
    Bytes::from(stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scan_rows_longer_than_a_row_key_are_refused() {
        let long = Bytes::from(vec![b'a'; crate::cell::MAX_ROW_LENGTH + 1]);
        let err = Scan::new().with_start_row(long.clone()).validate();
        assert!(matches!(&err, Err(Error::InvalidArgument(m)) if m.contains("startRow")));
        let err = Scan::new().with_stop_row(long).validate();
        assert!(matches!(&err, Err(Error::InvalidArgument(m)) if m.contains("stopRow")));
        let longest = Bytes::from(vec![b'a'; crate::cell::MAX_ROW_LENGTH]);
        assert!(Scan::new().with_start_row(longest).validate().is_ok());
    }

    #[test]
    fn prefix_stop() {
        assert_eq!(prefix_stop_row(b"abc"), Bytes::from_static(b"abd"));
        assert_eq!(prefix_stop_row(b"a\xff\xff"), Bytes::from_static(b"b"));
        assert_eq!(prefix_stop_row(b"\xff"), Bytes::new());
        assert_eq!(prefix_stop_row(b""), Bytes::new());
    }

    #[test]
    fn column_after_family_narrows() {
        let g = Get::new("r").add_family("cf").add_column("cf", "a");
        let cols = g
            .families
            .get(&Bytes::from_static(b"cf"))
            .unwrap()
            .as_ref()
            .unwrap();
        assert_eq!(cols.len(), 1);
        let g = Get::new("r").add_column("cf", "a").add_family("cf");
        assert_eq!(g.families.get(&Bytes::from_static(b"cf")), Some(&None));
    }

    #[test]
    fn time_ranges() {
        let tr = TimeRange::new(5, 10);
        assert_eq!(
            (tr.compare(4), tr.compare(5), tr.compare(9), tr.compare(10)),
            (-1, 0, 0, 1)
        );
        assert!(TimeRange::new(10, 5).validate().is_err());
        assert!(TimeRange::new(-1, 5).validate().is_err());
        assert!(TimeRange::at(7).contains(7) && !TimeRange::at(7).contains(8));
    }
}
