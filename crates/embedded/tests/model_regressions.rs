//! Disagreements the model test found, kept as named tests. Each replays the shrunk case.

mod support;

use basalt_embedded::{CellType, KeepDeletedCells};
use support::model::{FamilySpec, Op, ScanSpec, run};

fn plain(max_versions: u32) -> FamilySpec {
    FamilySpec {
        max_versions,
        min_versions: 0,
        ttl_seconds: None,
        kdc: KeepDeletedCells::False,
        nvb: false,
    }
}

fn scan_all() -> ScanSpec {
    ScanSpec {
        start: Vec::new(),
        include_start: true,
        stop: Vec::new(),
        include_stop: false,
        reversed: false,
        cols: Vec::new(),
        time_range: None,
        versions: 1,
        limit: None,
        batch: None,
        raw: false,
        caching: 1,
        filter: None,
    }
}

/// A whole-row delete's DeleteFamily marker lives in the empty qualifier, after that column's
/// newer puts. Skipping the column's surplus versions (more than VERSIONS) skipped the marker
/// too, and a masked put in another column reappeared.
#[test]
fn delete_family_marker_behind_surplus_empty_qualifier_versions() {
    let ops = [
        Op::Put {
            row: b"\xff".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![
                (1, b"".to_vec(), None, b"v0".to_vec()),
                (1, b"a".to_vec(), Some(0), b"v0".to_vec()),
            ],
        },
        Op::Put {
            row: b"\xff".to_vec(),
            ts: Some(14),
            ttl_ms: None,
            cells: vec![(1, b"".to_vec(), None, b"v0".to_vec())],
        },
        Op::Delete {
            row: b"\xff".to_vec(),
            ts: Some(0),
            entries: vec![],
        },
        Op::Scan(scan_all()),
        Op::Get {
            row: b"\xff".to_vec(),
            cols: vec![],
            time_range: None,
            versions: 1,
        },
    ];
    run(&[plain(1), plain(1)], &[], &ops).unwrap();
}

/// The same marker must still be found when the empty qualifier is not among the requested
/// columns and its puts exceed the requested versions.
#[test]
fn delete_family_marker_found_for_explicit_columns() {
    let ops = [
        Op::Put {
            row: b"r".to_vec(),
            ts: Some(9),
            ttl_ms: None,
            cells: vec![
                (0, b"".to_vec(), None, b"x".to_vec()),
                (0, b"a".to_vec(), Some(3), b"y".to_vec()),
            ],
        },
        Op::Delete {
            row: b"r".to_vec(),
            ts: None,
            entries: vec![(0, vec![], Some(5), CellType::DeleteFamily)],
        },
        Op::Get {
            row: b"r".to_vec(),
            cols: vec![(0, Some(vec![b"a".to_vec()]))],
            time_range: None,
            versions: 1,
        },
        Op::Scan(ScanSpec {
            cols: vec![(0, Some(vec![b"a".to_vec()]))],
            ..scan_all()
        }),
    ];
    run(&[plain(1), plain(1)], &[], &ops).unwrap();
}

fn put_at(row: &[u8], ts: i64, value: &[u8]) -> Op {
    Op::Put {
        row: row.to_vec(),
        ts: Some(ts),
        ttl_ms: None,
        cells: vec![(0, b"q".to_vec(), None, value.to_vec())],
    }
}

fn get_all(time_range: Option<(i64, i64)>) -> Op {
    Op::Get {
        row: b"r".to_vec(),
        cols: vec![],
        time_range,
        versions: u32::MAX,
    }
}

/// Major compaction drops a delete marker from the files; a put written after the delete (and
/// masked by it until then) becomes visible, as HBase documents. The oracle must agree.
#[test]
fn major_compaction_unmasks_a_put_written_after_the_delete() {
    let ops = [
        put_at(b"r", 5, b"old"),
        Op::Flush,
        Op::Delete {
            row: b"r".to_vec(),
            ts: None,
            entries: vec![(0, b"q".to_vec(), Some(10), CellType::DeleteColumn)],
        },
        Op::Flush,
        put_at(b"r", 7, b"after"),
        get_all(None),
        Op::MajorCompact,
        get_all(None),
        Op::Scan(ScanSpec {
            raw: true,
            versions: u32::MAX,
            ..scan_all()
        }),
    ];
    run(&[plain(3), plain(3)], &[], &ops).unwrap();
}

/// A time-range read finds an old version until a major compaction drops it as surplus.
#[test]
fn major_compaction_drops_surplus_versions_a_time_range_could_see() {
    let ops = [
        put_at(b"r", 1, b"v1"),
        put_at(b"r", 2, b"v2"),
        Op::Flush,
        get_all(Some((0, 2))),
        Op::MajorCompact,
        get_all(Some((0, 2))),
        Op::Reopen,
        get_all(None),
    ];
    run(&[plain(1), plain(1)], &[], &ops).unwrap();
}

/// A whole-row delete flushed, then major-compacted away with everything it masked, left no
/// store file; after a reopen the region took its sequence ids from its files and handed out
/// id 1 again. Sequence ids never go back now: the region records the last one (`.seqid`).
#[test]
fn sequence_ids_continue_after_compaction_emptied_every_file() {
    let ops = [
        Op::Delete {
            row: b"a".to_vec(),
            ts: None,
            entries: vec![],
        },
        Op::Flush,
        Op::MajorCompact,
        Op::Reopen,
        Op::Put {
            row: b"a".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![(0, Vec::new(), None, b"v0".to_vec())],
        },
        Op::Scan(scan_all()),
    ];
    run(&[plain(1), plain(1)], &[], &ops).unwrap();
}

/// Found by the model test once it split and merged: catalog changes took the clock's time,
/// and after a reopen with the clock no further on, a merge's delete markers for its parents'
/// meta rows fell below rows an earlier run wrote: the parents came back as serving regions
/// beside the merged one, and the put went to a region the scan did not read.
#[test]
fn merged_parents_stay_gone_when_the_clock_stands_still_across_reopens() {
    let ops = vec![
        Op::Reopen,
        Op::Merge(0),
        Op::Reopen,
        Op::Put {
            row: b"a".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![(0, vec![], None, b"v0".to_vec())],
        },
        Op::Scan(support::model::ScanSpec {
            start: vec![],
            include_start: false,
            stop: vec![],
            include_stop: false,
            reversed: false,
            cols: vec![],
            time_range: None,
            versions: 1,
            limit: None,
            batch: None,
            raw: false,
            caching: 1,
            filter: None,
        }),
    ];
    run(&[plain(1), plain(1)], &[b"a".to_vec()], &ops).unwrap();
}

/// A filter is shown every version the family keeps: with one version asked for, the newest
/// version that passes comes back (HBase 2's versions-after-filter), not nothing.
#[test]
fn filters_see_versions_beyond_the_scans() {
    use basalt_embedded::CompareOperator;
    use support::model::filter::ModelFilter;
    let put = |ts, v: &str| Op::Put {
        row: b"a".to_vec(),
        ts: Some(ts),
        ttl_ms: None,
        cells: vec![(0, b"q".to_vec(), None, v.as_bytes().to_vec())],
    };
    let ops = [
        put(1, "v1"),
        put(2, "v2"),
        Op::Scan(ScanSpec {
            filter: Some(ModelFilter::Value(CompareOperator::Equal, b"v1".to_vec())),
            ..scan_all()
        }),
    ];
    run(&[plain(3), plain(1)], &[], &ops).unwrap();
}

/// A filter's seek hint from the empty qualifier must not jump over the row's DeleteFamily
/// marker, which sorts among that column's versions: the masked cell would reappear.
#[test]
fn filter_hints_do_not_skip_family_markers() {
    use support::model::filter::ModelFilter;
    let ops = [
        Op::Put {
            row: b"a".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![
                (0, b"".to_vec(), Some(5), b"v1".to_vec()),
                (0, b"b".to_vec(), Some(1), b"v1".to_vec()),
            ],
        },
        Op::Delete {
            row: b"a".to_vec(),
            ts: Some(3),
            entries: vec![],
        },
        Op::Scan(ScanSpec {
            filter: Some(ModelFilter::ColumnPrefix(b"b".to_vec())),
            ..scan_all()
        }),
    ];
    run(&[plain(3), plain(1)], &[], &ops).unwrap();
}

/// A SkipFilter over a ValueFilter, with one version asked for: the newest version passes, the
/// next is counted past the read's versions and ends the column, so the filter never sees the
/// old version that would fail it. The row comes back (HBase's versions-after-filter order).
#[test]
fn skip_filter_stops_at_the_versions_the_read_returns() {
    use basalt_embedded::CompareOperator;
    use support::model::filter::ModelFilter;
    let ops = [
        Op::Put {
            row: b"b".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![(0, b"".to_vec(), Some(4), b"v10".to_vec())],
        },
        Op::Put {
            row: b"c".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![(0, b"".to_vec(), None, b"v0".to_vec())],
        },
        Op::Put {
            row: b"b".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![
                (0, b"".to_vec(), None, b"v2".to_vec()),
                (0, b"".to_vec(), Some(5), b"v2".to_vec()),
            ],
        },
        Op::Scan(ScanSpec {
            include_start: false,
            filter: Some(ModelFilter::SkipValue(
                CompareOperator::GreaterOrEqual,
                b"v11".to_vec(),
            )),
            ..scan_all()
        }),
    ];
    run(&[plain(3), plain(1)], &[], &ops).unwrap();
}

/// Found by the model test: under NEW_VERSION_BEHAVIOR, with a TTL and MIN_VERSIONS 1, a major
/// compaction keeps a column's newest version (here ahead of the clock) and drops an older
/// expired one; a read whose time range leaves out the newest must not find the dropped one
/// (the oracle counted MIN_VERSIONS within the time range and still returned it).
#[test]
fn an_expired_version_a_major_compaction_dropped_stays_gone_for_time_ranges() {
    let ttl_family = FamilySpec {
        max_versions: 2,
        min_versions: 1,
        ttl_seconds: Some(1),
        kdc: KeepDeletedCells::False,
        nvb: true,
    };
    let ops = [
        Op::Put {
            row: b"a".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![
                (1, b"a".to_vec(), Some(25), b"v0".to_vec()),
                (1, b"a".to_vec(), None, b"v0".to_vec()),
            ],
        },
        Op::Split(None),
        Op::Advance(1500),
        Op::MajorCompact,
        Op::Scan(ScanSpec {
            include_start: false,
            time_range: Some((0, 21)),
            ..scan_all()
        }),
    ];
    run(&[plain(1), ttl_family], &[], &ops).unwrap();
}

/// Found by the model test: under NEW_VERSION_BEHAVIOR with a TTL, a Delete carrying two
/// DeleteFamily markers, one at the server's time and one at timestamp 0 (long expired): the
/// expired one masks nothing and must not undo the other's masking of the put (the oracle fed
/// both to the write-order tracker and returned the put).
#[test]
fn an_expired_family_marker_does_not_unmask_a_put() {
    let ttl_family = FamilySpec {
        max_versions: 1,
        min_versions: 0,
        ttl_seconds: Some(3),
        kdc: KeepDeletedCells::False,
        nvb: true,
    };
    let ops = [
        Op::Advance(1500),
        Op::Advance(1500),
        Op::Put {
            row: b"ab".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![(1, b"a".to_vec(), None, b"v0".to_vec())],
        },
        Op::Delete {
            row: b"ab".to_vec(),
            ts: None,
            entries: vec![
                (1, Vec::new(), None, CellType::DeleteFamily),
                (1, Vec::new(), Some(0), CellType::DeleteFamily),
            ],
        },
        Op::Get {
            row: b"ab".to_vec(),
            cols: Vec::new(),
            time_range: None,
            versions: 1,
        },
    ];
    run(&[plain(1), ttl_family], &[], &ops).unwrap();
}

/// Found by CI's model run: with MIN_VERSIONS 1 and a TTL, a put and a whole-row delete both
/// past the TTL. The expired DeleteFamily marker is still tracked (HBase skips expired cells
/// before delete tracking only when MIN_VERSIONS is 0), so it masks the put that MIN_VERSIONS
/// would otherwise keep; the oracle skipped the marker and returned the put.
#[test]
fn an_expired_family_marker_still_masks_when_min_versions_keeps_versions() {
    let kept_family = FamilySpec {
        max_versions: 1,
        min_versions: 1,
        ttl_seconds: Some(1),
        kdc: KeepDeletedCells::False,
        nvb: true,
    };
    let ops = [
        Op::Put {
            row: b"ab".to_vec(),
            ts: None,
            ttl_ms: None,
            cells: vec![(1, Vec::new(), None, b"v0".to_vec())],
        },
        Op::Delete {
            row: b"ab".to_vec(),
            ts: None,
            entries: Vec::new(),
        },
        Op::Advance(1500),
        Op::Get {
            row: b"ab".to_vec(),
            cols: Vec::new(),
            time_range: None,
            versions: 1,
        },
    ];
    run(&[plain(1), kept_family], &[], &ops).unwrap();
}

/// Under NEW_VERSION_BEHAVIOR with VERSIONS 1, a second put at the same timestamp with a cell
/// TTL replaces the first; a major compaction before the TTL runs out drops the first for
/// good; once the TTL has run out the column is empty, as in HBase (whose compaction counts the
/// newer cell while it lives). The oracle let the first come back.
#[test]
fn a_version_a_major_compaction_dropped_stays_gone_when_its_successor_expires() {
    let nvb = FamilySpec {
        nvb: true,
        ..plain(1)
    };
    let put = |ttl_ms| Op::Put {
        row: b"b".to_vec(),
        ts: None,
        ttl_ms,
        cells: vec![(1, b"b".to_vec(), None, b"v0".to_vec())],
    };
    let ops = [
        put(None),
        put(Some(1)),
        Op::Split(None),
        Op::MajorCompact,
        Op::Advance(2),
        Op::Scan(ScanSpec {
            include_start: false,
            ..scan_all()
        }),
    ];
    run(&[plain(1), nvb], &[], &ops).unwrap();
}
