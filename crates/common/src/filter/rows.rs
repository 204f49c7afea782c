//! Filters that decide on row keys: PrefixFilter, RowFilter, InclusiveStopFilter, PageFilter,
//! FuzzyRowFilter, MultiRowRangeFilter and RandomRowFilter. Forward scans seek past rejected
//! rows with [`Filter::next_row_hint`]; reversed scans step row by row.

use std::cmp::Ordering;

use bytes::Bytes;

use super::RowRange;
use super::compare::{Compiled, passes};
use super::eval::{Filter, ReturnCode, invalid};
use crate::cell::Cell;
use crate::error::Result;
use crate::ops::CompareOperator;

/// PrefixFilter: rows starting with the prefix; done once the scan has passed them.
#[derive(Debug)]
pub(super) struct PrefixFilter {
    prefix: Bytes,
    reversed: bool,
    passed: bool,
    filter_out: bool,
}

impl PrefixFilter {
    pub(super) fn new(prefix: Bytes, reversed: bool) -> Self {
        PrefixFilter {
            prefix,
            reversed,
            passed: false,
            filter_out: true,
        }
    }
}

impl Filter for PrefixFilter {
    fn reset(&mut self) {
        self.filter_out = true;
    }

    fn filter_all_remaining(&self) -> bool {
        self.passed
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if self.passed || row.len() < self.prefix.len() {
            // A shorter row sorting after the prefix could still precede matching rows.
            if !self.passed && !self.reversed && row > &self.prefix[..] {
                self.passed = true;
            }
            return true;
        }
        let cmp = row[..self.prefix.len()].cmp(&self.prefix);
        if (!self.reversed && cmp.is_gt()) || (self.reversed && cmp.is_lt()) {
            self.passed = true;
        }
        self.filter_out = cmp.is_ne();
        self.filter_out
    }

    fn next_row_hint(&self, row: &[u8]) -> Option<Bytes> {
        (!self.reversed && row < &self.prefix[..]).then(|| self.prefix.clone())
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.filter_out {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out
    }
}

/// RowFilter: rows whose key passes the comparison.
#[derive(Debug)]
pub(super) struct RowFilter {
    op: CompareOperator,
    comparator: Compiled,
    filter_out: bool,
}

impl RowFilter {
    pub(super) fn new(op: CompareOperator, comparator: Compiled) -> Self {
        RowFilter {
            op,
            comparator,
            filter_out: false,
        }
    }
}

impl Filter for RowFilter {
    fn reset(&mut self) {
        self.filter_out = false;
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        if !passes(self.op, &self.comparator, row) {
            self.filter_out = true;
        }
        self.filter_out
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.filter_out {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out
    }
}

/// InclusiveStopFilter: rows up to and including the stop row.
#[derive(Debug)]
pub(super) struct InclusiveStopFilter {
    stop: Bytes,
    reversed: bool,
    done: bool,
}

impl InclusiveStopFilter {
    pub(super) fn new(stop: Bytes, reversed: bool) -> Self {
        InclusiveStopFilter {
            stop,
            reversed,
            done: false,
        }
    }
}

impl Filter for InclusiveStopFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let cmp = self.stop[..].cmp(row);
        self.done = if self.reversed {
            cmp.is_gt()
        } else {
            cmp.is_lt()
        };
        self.done
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.done {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }
}

/// PageFilter: `size` rows per region scanner.
#[derive(Debug)]
pub(super) struct PageFilter {
    size: u64,
    accepted: u64,
}

impl PageFilter {
    pub(super) fn new(size: u64) -> Self {
        PageFilter { size, accepted: 0 }
    }
}

impl Filter for PageFilter {
    fn filter_all_remaining(&self) -> bool {
        self.accepted >= self.size
    }

    fn ends_scan(&self) -> bool {
        false
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_all_remaining()
    }

    fn has_filter_row(&self) -> bool {
        true
    }

    fn filter_row(&mut self) -> bool {
        self.accepted += 1;
        self.accepted > self.size
    }
}

/// One fuzzy pattern: `fixed[i]` says whether `key[i]` must match.
#[derive(Debug)]
struct Fuzzy {
    key: Vec<u8>,
    fixed: Vec<bool>,
}

impl Fuzzy {
    fn matches(&self, row: &[u8]) -> bool {
        row.len() >= self.key.len()
            && self
                .key
                .iter()
                .zip(&self.fixed)
                .zip(row)
                .all(|((k, fixed), r)| !fixed || k == r)
    }

    /// The smallest row after `row` this pattern matches, if any.
    fn next_after(&self, row: &[u8]) -> Option<Vec<u8>> {
        let n = self.key.len();
        let mut t: Vec<u8> = row.iter().copied().take(n).collect();
        t.resize(n, 0);
        let Some(i) = (0..n).find(|&i| self.fixed[i] && t[i] != self.key[i]) else {
            // `t` matches; it is `row` itself (or its prefix, then so does `row`) unless
            // padding made it longer, which sorts it after `row`.
            return (row.len() < n).then_some(t);
        };
        let from = if t[i] < self.key[i] {
            i
        } else {
            // Raise the last free byte before `i` that can still grow.
            let j = (0..i).rev().find(|&j| !self.fixed[j] && t[j] < u8::MAX)?;
            t[j] += 1;
            j + 1
        };
        for ((byte, key), fixed) in t.iter_mut().zip(&self.key).zip(&self.fixed).skip(from) {
            *byte = if *fixed { *key } else { 0 };
        }
        Some(t)
    }
}

/// FuzzyRowFilter: rows matching any pattern, seeking to the next possible match.
#[derive(Debug)]
pub(super) struct FuzzyRowFilter {
    patterns: Vec<Fuzzy>,
    reversed: bool,
    done: bool,
}

impl FuzzyRowFilter {
    pub(super) fn new(pairs: &[(Bytes, Bytes)], reversed: bool) -> Result<Self> {
        let patterns = pairs
            .iter()
            .map(|(key, mask)| {
                if key.len() != mask.len() {
                    return Err(invalid(
                        "FuzzyRowFilter",
                        format!(
                            "the mask has {} bytes and the key {}; they must be equal",
                            mask.len(),
                            key.len()
                        ),
                    ));
                }
                let fixed = mask
                    .iter()
                    .map(|&m| match m {
                        0 => Ok(true),
                        1 => Ok(false),
                        other => Err(invalid(
                            "FuzzyRowFilter",
                            format!("mask byte {other}: 0 (fixed) or 1 (any)"),
                        )),
                    })
                    .collect::<Result<_>>()?;
                Ok(Fuzzy {
                    key: key.to_vec(),
                    fixed,
                })
            })
            .collect::<Result<_>>()?;
        Ok(FuzzyRowFilter {
            patterns,
            reversed,
            done: false,
        })
    }
}

impl Filter for FuzzyRowFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let rejected = !self.patterns.iter().any(|p| p.matches(row));
        if rejected && !self.reversed && self.next_row_hint(row).is_none() {
            self.done = true;
        }
        rejected
    }

    fn next_row_hint(&self, row: &[u8]) -> Option<Bytes> {
        if self.reversed {
            return None;
        }
        self.patterns
            .iter()
            .filter_map(|p| p.next_after(row))
            .min()
            .map(Bytes::from)
    }
}

/// MultiRowRangeFilter: rows in any of the (sorted, merged) ranges.
#[derive(Debug)]
pub(super) struct MultiRowRangeFilter {
    ranges: Vec<RowRange>,
    reversed: bool,
    done: bool,
}

/// The range start as a row bound: the smallest row it admits.
fn first_row_of(range: &RowRange) -> Vec<u8> {
    let mut start = range.start.to_vec();
    if !range.start_inclusive {
        start.push(0);
    }
    start
}

fn before_stop(range: &RowRange, row: &[u8]) -> bool {
    range.stop.is_empty()
        || match row.cmp(&range.stop) {
            Ordering::Less => true,
            Ordering::Equal => range.stop_inclusive,
            Ordering::Greater => false,
        }
}

impl MultiRowRangeFilter {
    pub(super) fn new(ranges: &[RowRange], reversed: bool) -> Result<Self> {
        for r in ranges {
            if !r.stop.is_empty() && r.start > r.stop {
                return Err(invalid(
                    "MultiRowRangeFilter",
                    format!(
                        "the range starting at {:?} stops before it starts ({:?})",
                        r.start, r.stop
                    ),
                ));
            }
        }
        let mut sorted: Vec<RowRange> = ranges.to_vec();
        sorted.sort_by_key(first_row_of);
        let mut merged: Vec<RowRange> = Vec::new();
        for r in sorted {
            if let Some(last) = merged.last_mut()
                && reaches(last, &first_row_of(&r))
            {
                // Overlapping or touching: extend to the later stop.
                let later = r.stop.is_empty()
                    || (!last.stop.is_empty()
                        && (r.stop > last.stop || (r.stop == last.stop && r.stop_inclusive)));
                if later && !last.stop.is_empty() {
                    last.stop = r.stop;
                    last.stop_inclusive = r.stop_inclusive;
                }
                continue;
            }
            merged.push(r);
        }
        Ok(MultiRowRangeFilter {
            ranges: merged,
            reversed,
            done: false,
        })
    }
}

/// Whether a range starting at `row` overlaps or touches `range`.
fn reaches(range: &RowRange, row: &[u8]) -> bool {
    before_stop(range, row) || row == &range.stop[..]
}

impl Filter for MultiRowRangeFilter {
    fn filter_all_remaining(&self) -> bool {
        self.done
    }

    fn filter_row_key(&mut self, row: &[u8]) -> bool {
        let inside = self
            .ranges
            .iter()
            .any(|r| first_row_of(r).as_slice() <= row && before_stop(r, row));
        if !inside {
            let past_all = if self.reversed {
                self.ranges
                    .first()
                    .is_some_and(|r| row < first_row_of(r).as_slice())
            } else {
                self.ranges.last().is_some_and(|r| !before_stop(r, row))
            };
            self.done = past_all || self.ranges.is_empty();
        }
        !inside
    }

    fn next_row_hint(&self, row: &[u8]) -> Option<Bytes> {
        if self.reversed {
            return None;
        }
        self.ranges
            .iter()
            .map(first_row_of)
            .find(|start| start.as_slice() > row)
            .map(Bytes::from)
    }
}

/// RandomRowFilter: each row with probability `chance`.
#[derive(Debug)]
pub(super) struct RandomRowFilter {
    chance: f32,
    state: u64,
    filter_out: bool,
}

impl RandomRowFilter {
    pub(super) fn new(chance: f32) -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x9e37_79b9, |d| d.as_nanos() as u64);
        RandomRowFilter {
            chance,
            state: seed | 1,
            filter_out: false,
        }
    }

    /// xorshift64*: a uniform float in [0, 1).
    fn next_float(&mut self) -> f32 {
        self.state ^= self.state >> 12;
        self.state ^= self.state << 25;
        self.state ^= self.state >> 27;
        let x = self.state.wrapping_mul(0x2545_f491_4f6c_dd1d);
        (x >> 40) as f32 / (1u64 << 24) as f32
    }
}

impl Filter for RandomRowFilter {
    fn reset(&mut self) {
        self.filter_out = false;
    }

    fn filter_row_key(&mut self, _row: &[u8]) -> bool {
        self.filter_out = if self.chance < 0.0 {
            true
        } else if self.chance > 1.0 {
            false
        } else {
            self.next_float() > self.chance
        };
        self.filter_out
    }

    fn filter_cell(&mut self, _cell: &Cell) -> ReturnCode {
        if self.filter_out {
            ReturnCode::NextRow
        } else {
            ReturnCode::Include
        }
    }

    fn filter_row(&mut self) -> bool {
        self.filter_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fuzzy(key: &[u8], mask: &[u8]) -> Fuzzy {
        Fuzzy {
            key: key.to_vec(),
            fixed: mask.iter().map(|&m| m == 0).collect(),
        }
    }

    #[test]
    fn fuzzy_next_match_is_the_smallest_later_match() {
        // ??_a: any two bytes, then "_a".
        let p = fuzzy(b"..\x5fa", &[1, 1, 0, 0]);
        assert!(p.matches(b"xy_a"));
        assert!(p.matches(b"xy_az"));
        assert!(!p.matches(b"xy_b"));
        assert!(!p.matches(b"xy_"));
        assert_eq!(p.next_after(b"xy_b").unwrap(), b"xz_a");
        assert_eq!(p.next_after(b"xy").unwrap(), b"xy_a");
        assert_eq!(p.next_after(b"xy\x00").unwrap(), b"xy_a");
        assert_eq!(p.next_after(b"\xff\xff_b"), None);
        assert_eq!(p.next_after(b"x\xff_b").unwrap(), b"y\x00_a");
        // Brute force against the definition over a small alphabet.
        let p = fuzzy(b"a\x00b", &[0, 1, 0]);
        let alphabet = [0u8, b'a', b'b', b'c', 0xff];
        let mut rows = vec![Vec::new()];
        for len in 1..=3 {
            let mut next = Vec::new();
            for r in rows.iter().filter(|r| r.len() == len - 1) {
                for &b in &alphabet {
                    let mut r = r.clone();
                    r.push(b);
                    next.push(r);
                }
            }
            rows.extend(next);
        }
        for row in &rows {
            if p.matches(row) {
                continue;
            }
            let hint = p.next_after(row);
            if let Some(h) = &hint {
                assert!(
                    h.as_slice() > row.as_slice() && p.matches(h),
                    "{row:?} -> {h:?}"
                );
            }
            // No listed row between `row` and the hint matches.
            for other in &rows {
                if other > row && hint.as_ref().is_none_or(|h| other < h) {
                    assert!(!p.matches(other), "{row:?} -> {hint:?} skips {other:?}");
                }
            }
        }
    }

    fn range(start: &str, si: bool, stop: &str, so: bool) -> RowRange {
        RowRange {
            start: Bytes::copy_from_slice(start.as_bytes()),
            start_inclusive: si,
            stop: Bytes::copy_from_slice(stop.as_bytes()),
            stop_inclusive: so,
        }
    }

    #[test]
    fn row_ranges_merge_and_hint() {
        let mut f = MultiRowRangeFilter::new(
            &[
                range("m", true, "p", false),
                range("b", true, "d", false),
                range("c", true, "e", true),
            ],
            false,
        )
        .unwrap();
        assert_eq!(f.ranges.len(), 2);
        assert!(f.filter_row_key(b"a"));
        assert_eq!(f.next_row_hint(b"a").unwrap(), "b");
        assert!(!f.filter_row_key(b"e"));
        assert!(f.filter_row_key(b"f"));
        assert_eq!(f.next_row_hint(b"f").unwrap(), "m");
        assert!(!f.done);
        assert!(f.filter_row_key(b"p"));
        assert!(f.done);
        assert!(MultiRowRangeFilter::new(&[range("b", true, "a", true)], false).is_err());
        let f = MultiRowRangeFilter::new(&[range("b", false, "", false)], false).unwrap();
        assert_eq!(f.next_row_hint(b"a").unwrap(), "b\0");
    }
}
