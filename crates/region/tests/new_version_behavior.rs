//! NEW_VERSION_BEHAVIOR families: deletes mask only what was written before them, a version
//! out of VERSIONS stays out, and no flush or compaction changes what a read returns. The
//! scenarios are those HBase's own tests of the attribute check, with its expected answers.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_common::{ColumnFamilyDescriptor, Delete, Get, Put, Scan, TableDescriptor};
use basalt_region::Region;
use support::Host;

fn nvb_table() -> (Host, Region) {
    let conn = support::host_at(1_700_000_000_000).0;
    let mut f = ColumnFamilyDescriptor::new("f").with_max_versions(3);
    f.set_attribute("NEW_VERSION_BEHAVIOR", "true").unwrap();
    let t = support::create_with(&conn, TableDescriptor::named("t").unwrap().with_family(f));
    (conn, t)
}

fn put(t: &Region, q: &str, ts: i64) {
    t.put(&Put::new("row").add_column_at("f", q.to_owned(), ts, "v"))
        .unwrap();
}

/// A Delete of c1's version at `ts`.
fn delete_version(t: &Region, ts: i64) {
    t.delete(&Delete::new("row").add_column_at("f", "c1", ts))
        .unwrap();
}

/// Column c1 at 1_000_001 to 1_000_004, one put each.
fn four_versions(t: &Region) {
    for ts in 1_000_001..=1_000_004 {
        put(t, "c1", ts);
    }
}

/// The timestamps a Get of `versions` returns, in cell order, checked the same before a
/// flush, after it and after a major compaction.
fn stamps(_host: &Host, t: &Region, get: Get) -> Vec<i64> {
    let read = || -> Vec<i64> {
        t.get(&get)
            .unwrap()
            .cells
            .iter()
            .map(|c| c.timestamp)
            .collect()
    };
    let before = read();
    t.flush().unwrap();
    assert_eq!(read(), before, "a flush changed the answer");
    t.compact(true).unwrap();
    assert_eq!(read(), before, "a major compaction changed the answer");
    before
}

fn versions(n: u32) -> Get {
    Get::new("row").read_versions(n)
}

#[test]
fn a_put_written_after_a_delete_is_seen_even_with_an_older_timestamp() {
    let (host, t) = nvb_table();
    four_versions(&t);
    t.delete(&Delete::new("row").add_columns_at("f", "c1", 2_000_000))
        .unwrap();
    put(&t, "c1", 1_000_000);
    assert_eq!(stamps(&host, &t, versions(3)), [1_000_000]);
}

#[test]
fn a_version_out_of_versions_stays_out_when_newer_ones_are_deleted() {
    let (host, t) = nvb_table();
    four_versions(&t);
    delete_version(&t, 1_000_003);
    assert_eq!(stamps(&host, &t, versions(3)), [1_000_004, 1_000_002]);
}

#[test]
fn a_delete_before_the_version_was_written_does_not_mask_it() {
    let (host, t) = nvb_table();
    put(&t, "c1", 1_000_001);
    put(&t, "c1", 1_000_002);
    delete_version(&t, 1_000_003);
    put(&t, "c1", 1_000_003);
    put(&t, "c1", 1_000_004);
    assert_eq!(
        stamps(&host, &t, versions(3)),
        [1_000_004, 1_000_003, 1_000_002]
    );
}

#[test]
fn the_versions_a_read_asks_for_count_after_the_deletes() {
    let (host, t) = nvb_table();
    four_versions(&t);
    delete_version(&t, 1_000_004);
    delete_version(&t, 1_000_003);
    assert_eq!(stamps(&host, &t, versions(1)), [1_000_002]);
}

#[test]
fn puts_at_one_timestamp_are_one_version() {
    let (host, t) = nvb_table();
    for ts in [
        1_000_001, 1_000_002, 1_000_003, 1_000_003, 1_000_003, 1_000_004,
    ] {
        put(&t, "c1", ts);
    }
    assert_eq!(
        stamps(&host, &t, versions(3)),
        [1_000_004, 1_000_003, 1_000_002]
    );
    let (host, t) = nvb_table();
    for ts in [
        1_000_001, 1_000_002, 1_000_003, 1_000_003, 1_000_003, 1_000_003,
    ] {
        put(&t, "c1", ts);
    }
    delete_version(&t, 1_000_003);
    put(&t, "c1", 1_000_004);
    assert_eq!(
        stamps(&host, &t, versions(3)),
        [1_000_004, 1_000_002, 1_000_001]
    );
}

#[test]
fn family_deletes_mask_only_earlier_writes() {
    let (host, t) = nvb_table();
    put(&t, "c1", 1_000_001);
    put(&t, "c1", 1_000_002);
    put(&t, "c2", 1_000_002);
    put(&t, "c3", 1_000_001);
    t.delete(&Delete::new("row").add_family_at("f", 2_000_000))
        .unwrap();
    put(&t, "c3", 1_500_002);
    put(&t, "c2", 1_500_001);
    put(&t, "c1", 1_500_001);
    put(&t, "c1", 1_500_002);
    assert_eq!(
        stamps(&host, &t, versions(3)),
        [1_500_002, 1_500_001, 1_500_001, 1_500_002]
    );
    t.delete(&Delete::new("row").add_family_version("f", 1_500_001))
        .unwrap();
    assert_eq!(stamps(&host, &t, versions(3)), [1_500_002, 1_500_002]);
    put(&t, "c1", 1_000_001);
    put(&t, "c1", 1_000_002);
    put(&t, "c2", 1_000_002);
    put(&t, "c3", 1_000_001);
    assert_eq!(
        stamps(&host, &t, versions(3)),
        [
            1_500_002, 1_000_002, 1_000_001, 1_000_002, 1_500_002, 1_000_001
        ]
    );
}

#[test]
fn versions_out_of_a_time_range_still_count() {
    let (host, t) = nvb_table();
    for ts in 1_000_001..=1_000_008 {
        put(&t, "c1", ts);
    }
    let ranged = versions(3).with_time_range(0, 1_000_005);
    assert!(stamps(&host, &t, ranged).is_empty());
}

#[test]
fn a_major_compaction_keeps_only_what_reads_see() {
    let (_host, t) = nvb_table();
    four_versions(&t);
    delete_version(&t, 1_000_004);
    delete_version(&t, 1_000_003);
    let raw = || -> usize {
        t.scan(&Scan::new().raw(true).read_versions(10))
            .unwrap()
            .map(|r| r.unwrap().cells.len())
            .sum()
    };
    assert_eq!(raw(), 6);
    t.flush().unwrap();
    assert_eq!(raw(), 6);
    t.compact(true).unwrap();
    let left = t.scan(&Scan::new().raw(true).read_versions(10)).unwrap();
    let cells: Vec<i64> = left
        .flat_map(|r| r.unwrap().cells)
        .map(|c| c.timestamp)
        .collect();
    assert_eq!(cells, [1_000_002]);
}

#[test]
fn without_the_attribute_a_delete_masks_later_puts_as_in_hbase() {
    let conn = support::host_at(1_700_000_000_000).0;
    let t = support::create_with(
        &conn,
        TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f").with_max_versions(3)),
    );
    put(&t, "c1", 1_000_001);
    t.delete(&Delete::new("row").add_columns_at("f", "c1", 2_000_000))
        .unwrap();
    put(&t, "c1", 1_000_000);
    assert!(t.get(&versions(3)).unwrap().cells.is_empty());
}
