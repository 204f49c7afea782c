//! The oracle's NEW_VERSION_BEHAVIOR families: reads by the order of writes (through the
//! engine's `NvbTracker`, over every cell ever written), and what a major compaction of such a
//! family keeps for raw reads.

use basalt_embedded::{CellType, TimeRange};

use super::{Candidate, Oracle, Row, Version};

impl Oracle {
    /// A major compaction of a NEW_VERSION_BEHAVIOR family: of the flushed cells not dropped
    /// yet, the puts the order of their writes leaves visible stay (less expired ones, and
    /// the markers go), as the engine's `retain_by_write_order` does; the rest are dropped
    /// for raw reads only.
    pub(super) fn major_compact_by_write_order(&mut self, row: &Row, f: usize) {
        let spec = self.families[f].clone();
        let oldest = self.oldest_unexpired(f);
        let flushed = self.flushed_seq;
        let live = |q: &Row, ts: i64, kind: CellType, seq: u64| {
            seq <= flushed
                && !self
                    .dropped
                    .contains(&(row.clone(), f, q.clone(), ts, kind.code(), seq))
        };
        // Every live flushed cell, in store order (qualifier, then the column's order).
        let mut cells: Vec<(Row, i64, CellType, u64, Option<u64>)> = self
            .markers_of(row, f)
            .iter()
            .filter(|m| live(&m.qualifier, m.ts, m.kind, m.seq))
            .map(|m| (m.qualifier.clone(), m.ts, m.kind, m.seq, None))
            .collect();
        if let Some(cols) = self.columns_of(row, f) {
            for (q, by_ts) in cols {
                for (ts, vs) in by_ts {
                    cells.extend(
                        vs.iter()
                            .filter(|v| live(q, *ts, CellType::Put, v.seq))
                            .map(|v| (q.clone(), *ts, CellType::Put, v.seq, v.ttl_ms)),
                    );
                }
            }
        }
        cells.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.cmp(&a.1))
                .then(b.2.code().cmp(&a.2.code()))
                .then(b.3.cmp(&a.3))
        });
        let mut tracker = basalt_region::nvb::NvbTracker::new(spec.max_versions);
        tracker.start_row();
        let mut column: Option<Row> = None;
        let mut versions = 0;
        for (q, ts, kind, seq, ttl) in cells {
            if column.as_ref() != Some(&q) {
                tracker.start_column(q.is_empty());
                column = Some(q.clone());
                versions = 0;
            }
            let kept = if kind.is_delete() {
                tracker.add_marker(kind, ts, seq);
                false
            } else if ttl.is_some_and(|t| ts + t as i64 - self.now < 0)
                || tracker.hides_put(ts, seq)
            {
                false
            } else {
                versions += 1;
                let kept = ts >= oldest || versions <= spec.min_versions;
                if !kept {
                    self.expired.insert((row.clone(), f, q.clone(), ts, seq));
                }
                kept
            };
            if !kept {
                self.dropped
                    .insert((row.clone(), f, q, ts, kind.code(), seq));
            }
        }
    }

    /// [`Oracle::read_column`] under NEW_VERSION_BEHAVIOR: every cell written to the column
    /// and not dropped by a major compaction (and the family's markers) goes through the
    /// engine's `NvbTracker` in store order; then cell TTLs, the family TTL, the time range and
    /// the versions asked for.
    pub(super) fn read_column_by_write_order(
        &self,
        row: &Row,
        f: usize,
        q: &Row,
        tr: TimeRange,
        versions: u32,
    ) -> Vec<Candidate> {
        let spec = &self.families[f];
        let max = versions.min(spec.max_versions);
        let oldest = self.oldest_unexpired(f);
        let markers = |family_wide: bool| -> Vec<(i64, CellType, u64, Option<&Version>)> {
            self.markers_of(row, f)
                .iter()
                .filter(|m| {
                    if family_wide {
                        m.kind.is_family_delete()
                    } else {
                        m.qualifier == *q && !m.kind.is_family_delete()
                    }
                })
                .filter(|m| tr.contains_or_after(m.ts))
                // An expired marker is skipped like any expired cell, so it masks nothing, but
                // only while MIN_VERSIONS is 0: HBase's matcher skips a cell before delete
                // tracking when its column tracker `isDone` (`minVersions <= 0 && expired`);
                // with MIN_VERSIONS the marker is tracked and still masks the versions that
                // MIN_VERSIONS would keep past the TTL.
                .filter(|m| m.ts >= oldest || spec.min_versions > 0)
                .map(|m| (m.ts, m.kind, m.seq, None))
                .collect()
        };
        fn in_store_order(
            mut cells: Vec<(i64, CellType, u64, Option<&Version>)>,
        ) -> Vec<(i64, CellType, u64, Option<&Version>)> {
            cells.sort_by(|a, b| {
                b.0.cmp(&a.0)
                    .then(b.1.code().cmp(&a.1.code()))
                    .then(b.2.cmp(&a.2))
            });
            cells
        }
        let mut tracker = basalt_region::nvb::NvbTracker::new(spec.max_versions);
        tracker.start_row();
        // The family's markers are in the empty qualifier, the row's first column.
        let mut column = markers(false);
        if q.is_empty() {
            column.extend(markers(true));
        } else {
            tracker.start_column(true);
            for (ts, kind, seq, _) in in_store_order(markers(true)) {
                tracker.add_marker(kind, ts, seq);
            }
        }
        tracker.start_column(q.is_empty());
        if let Some(by_ts) = self.columns_of(row, f).and_then(|c| c.get(q)) {
            for (ts, vs) in by_ts {
                column.extend(vs.iter().map(|v| (*ts, CellType::Put, v.seq, Some(v))));
            }
        }
        let mut out = Vec::new();
        let mut counted = 0;
        for (ts, kind, seq, version) in in_store_order(column) {
            let Some(v) = version else {
                tracker.add_marker(kind, ts, seq);
                continue;
            };
            let expired = ts < oldest;
            if expired && spec.min_versions == 0 {
                break;
            }
            // A put a major compaction dropped is gone from the files: no read sees it,
            // whatever hid it then (a newer put whose cell TTL has run out since, say).
            if self
                .dropped
                .contains(&(row.clone(), f, q.clone(), ts, CellType::Put.code(), seq))
            {
                continue;
            }
            if v.ttl_ms.is_some_and(|t| ts + t as i64 - self.now < 0) {
                continue;
            }
            if tracker.hides_put(ts, seq) {
                continue;
            }
            if self.expired.contains(&(row.clone(), f, q.clone(), ts, seq)) {
                continue;
            }
            match tr.compare(ts) {
                1 => continue,
                -1 => break,
                _ => {}
            }
            counted += 1;
            if counted > max || (counted > spec.min_versions && expired) {
                break;
            }
            out.push(Candidate {
                ts,
                kind: CellType::Put,
                seq,
                qualifier: q.clone(),
                value: v.value.clone(),
                ttl_ms: v.ttl_ms,
            });
        }
        out
    }
}
