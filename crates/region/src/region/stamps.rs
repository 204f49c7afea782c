//! Server timestamps that never go back within a row.
//!
//! One [`RowStamps`] serves every region of a server (it lives in the `RegionConfig` they
//! share), so a region that splits, merges or reopens keeps its rows' stamps; a restarted
//! server starts empty, by which time the clock has normally moved past every stamp (a
//! counter incremented faster than once a millisecond for a long time is the exception:
//! docs/design/data-model.md).
//!
//! A write without a timestamp gets the server's clock. An increment or append writes its new
//! cell one past the cell it read when the clock has not moved past that yet (so every
//! increment is a version of its own), which can put a row's newest cell ahead of the clock.
//! Without more, a Put or Delete stamped by the clock right after it would land below that
//! cell and be hidden (happybase's `counter_set` after `counter_inc`). So the region remembers,
//! for each row whose server-assigned timestamp ran ahead of the clock, how far; later server
//! stamps in that row start there. Rows drop out once the clock has caught up, so the map
//! stays as small as the set of rows written faster than once a millisecond.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use basalt_common::Bytes;

/// Past this many rows ahead of the clock, a note drops those the clock has caught up with.
const PRUNE_AT: usize = 1024;

/// The rows (by table) whose server timestamps ran ahead of the clock.
#[derive(Debug, Default)]
pub struct RowStamps {
    /// Table name -> row -> the newest stamp (looked up without building a key).
    ahead: Mutex<HashMap<String, HashMap<Bytes, i64>>>,
    /// How many rows `ahead` holds, read without the lock: the common case (no row ahead)
    /// costs one load.
    len: AtomicUsize,
}

impl RowStamps {
    /// The timestamp the server gives a write of `row` at clock time `now`.
    pub(crate) fn now_for(&self, table: &str, row: &[u8], now: i64) -> i64 {
        if self.len.load(Ordering::Acquire) == 0 {
            return now;
        }
        let ahead = self.ahead.lock().unwrap_or_else(PoisonError::into_inner);
        ahead
            .get(table)
            .and_then(|rows| rows.get(row))
            .map_or(now, |&t| t.max(now))
    }

    /// Records that the server stamped a write of `row` at `ts` when the clock said `now`.
    pub(crate) fn note(&self, table: &str, row: &Bytes, ts: i64, now: i64) {
        if ts <= now {
            return;
        }
        let mut ahead = self.ahead.lock().unwrap_or_else(PoisonError::into_inner);
        let rows = ahead.entry(table.to_owned()).or_default();
        let entry = rows.entry(row.clone()).or_insert(ts);
        *entry = (*entry).max(ts);
        let mut len: usize = ahead.values().map(HashMap::len).sum();
        if len > PRUNE_AT {
            for rows in ahead.values_mut() {
                rows.retain(|_, t| *t > now);
            }
            ahead.retain(|_, rows| !rows.is_empty());
            len = ahead.values().map(HashMap::len).sum();
        }
        self.len.store(len, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_ahead_of_the_clock_keeps_its_stamps_ahead_until_the_clock_passes() {
        let s = RowStamps::default();
        assert_eq!(s.now_for("t", b"r", 100), 100);
        s.note("t", &Bytes::from_static(b"r"), 100, 100);
        assert_eq!(
            s.now_for("t", b"r", 100),
            100,
            "a stamp at the clock is not remembered"
        );
        s.note("t", &Bytes::from_static(b"r"), 103, 100);
        assert_eq!(s.now_for("t", b"r", 101), 103);
        assert_eq!(
            s.now_for("t", b"other", 101),
            101,
            "other rows keep the clock"
        );
        assert_eq!(s.now_for("u", b"r", 101), 101, "and other tables");
        s.note("t", &Bytes::from_static(b"r"), 102, 101);
        assert_eq!(s.now_for("t", b"r", 101), 103, "never back");
        assert_eq!(s.now_for("t", b"r", 200), 200);
    }

    #[test]
    fn rows_the_clock_caught_up_with_are_dropped() {
        let s = RowStamps::default();
        for i in 0..=PRUNE_AT {
            s.note("t", &Bytes::from(format!("row{i}")), 10, 5);
        }
        s.note("t", &Bytes::from_static(b"last"), 30, 20);
        assert_eq!(s.len.load(Ordering::Acquire), 1);
        assert_eq!(s.now_for("t", b"last", 20), 30);
    }
}
