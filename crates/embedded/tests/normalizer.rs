//! The region normalizer (HBase's SimpleRegionNormalizer) on an embedded engine: a table that
//! asks for it has its oversized region split and its small neighbours merged; one that does
//! not is left alone, and the switch stops it.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_client::prelude::*;
use basalt_common::chore::Chore;
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, DataClient, Put, ServerAdmin, TableDescriptor,
    TableName,
};

fn table(name: &str, normalized: bool) -> TableDescriptor {
    let mut d = TableDescriptor::named(name)
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    if normalized {
        d.set_attribute("NORMALIZATION_ENABLED", "true").unwrap();
    }
    // Regions made a moment ago and empty ones may merge (HBase waits 3 days, and 1 MiB).
    for (k, v) in [
        ("hbase.normalizer.merge.min_region_age.days", "0"),
        ("hbase.normalizer.merge.min_region_size.mb", "0"),
    ] {
        d.configuration.insert(k.into(), v.into());
    }
    d
}

/// Regions `a`..`c` empty, `d` onwards holding 10 MiB, flushed.
fn lopsided(conn: &Connection, name: &str, normalized: bool) -> TableName {
    let keys: Vec<Bytes> = ["b", "c", "d"].iter().map(|k| Bytes::from(*k)).collect();
    conn.create_table(table(name, normalized), &keys).unwrap();
    let t = TableName::parse(name).unwrap();
    let value = vec![7u8; 4096];
    for i in 0..2560 {
        conn.put(
            &t,
            &Put::new(format!("d{i:05}")).add_column("f", "q", value.clone()),
        )
        .unwrap();
    }
    conn.flush(&t).unwrap();
    t
}

fn bounds(conn: &Connection, t: &TableName) -> Vec<(String, String)> {
    conn.regions(t)
        .unwrap()
        .iter()
        .map(|r| {
            (
                String::from_utf8_lossy(&r.start_key).into_owned(),
                String::from_utf8_lossy(&r.end_key).into_owned(),
            )
        })
        .collect()
}

#[test]
fn the_normalizer_splits_the_oversized_region_and_merges_small_neighbours() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path()).unwrap();
    let t = lopsided(&conn, "norm", true);
    let other = lopsided(&conn, "plain", false);
    let before = bounds(&conn, &other);
    assert_eq!(bounds(&conn, &t).len(), 4);

    // Switched off, it does not run.
    assert!(conn.chore_switch(Chore::Normalizer, false).unwrap());
    assert!(!conn.normalize(&[]).unwrap());
    assert_eq!(bounds(&conn, &t).len(), 4);
    assert!(!conn.chore_switch(Chore::Normalizer, true).unwrap());
    assert!(conn.chore_enabled(Chore::Normalizer).unwrap());

    // The 10 MiB region is over twice the 2.5 MiB average: split. The three empty ones fit
    // the average together: the first two merge now, the third on the next run.
    assert!(conn.normalize(&[]).unwrap());
    let once = bounds(&conn, &t);
    assert_eq!(once.len(), 4, "{once:?}");
    assert_eq!(once[0], (String::new(), "c".to_owned()), "{once:?}");
    assert_eq!(once[1], ("c".to_owned(), "d".to_owned()), "{once:?}");
    assert!(once[2].0 == "d" && once[2].1.as_str() > "d", "{once:?}");
    assert!(conn.normalize(&[]).unwrap());
    let twice = bounds(&conn, &t);
    assert_eq!(twice.len(), 3, "{twice:?}");
    assert_eq!(twice[0], (String::new(), "d".to_owned()), "{twice:?}");
    // A third run finds nothing to do.
    assert!(conn.normalize(&[]).unwrap());
    assert_eq!(bounds(&conn, &t), twice);

    // The table that did not ask is as it was, and every row still reads.
    assert_eq!(bounds(&conn, &other), before);
    let rows = std::sync::Arc::new(conn.clone())
        .scan(&t, &basalt_embedded::Scan::default())
        .unwrap()
        .count();
    assert_eq!(rows, 2560);
}
