//! Filters on a table of two regions: a page per region, ColumnCountGet and WHILE ending the
//! whole scan, across regions (HBase's DONE_SCAN), and batches refused with whole-row filters.
//! Filters within one region: the region crate's `filters.rs`.

mod support;

use basalt_embedded::{ColumnFamilyDescriptor, Get, Put, Scan, TableDescriptor, parse_filter};
use support::{cells, connection_at, scan_rows};

#[test]
fn count_page_and_while_end_scans() {
    let (conn, _clock) = connection_at(1_000);
    let desc = TableDescriptor::named("p")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin()
        .create_table_with_splits(desc, &["r3".into()])
        .unwrap();
    let t = conn.table("p").unwrap();
    for r in 1..=5 {
        for q in ["a", "b", "c"] {
            t.put(&Put::new(format!("r{r}")).add_column("f", q, "v"))
                .unwrap();
        }
    }
    let with = |f: &str| Scan::new().with_filter(parse_filter(f).unwrap());
    let keys = |f: &str| scan_rows(&t, &with(f));
    // Cells per row returned.
    let widths = |f: &str| -> Vec<usize> {
        t.scan(&with(f))
            .unwrap()
            .map(|r| r.unwrap().cells.len())
            .collect()
    };
    // A page per region: two regions, two rows each.
    assert_eq!(keys("PageFilter(2)"), ["r1", "r2", "r3", "r4"]);
    // Two columns per row; a row with a fourth column makes the filter see a cell past its
    // limit, and the scan ends there (HBase's DONE_SCAN).
    assert_eq!(widths("ColumnCountGetFilter(2)"), [2, 2, 2, 2, 2]);
    t.put(&Put::new("r2").add_column("f", "d", "v")).unwrap();
    assert_eq!(keys("ColumnCountGetFilter(2)"), ["r1", "r2"]);
    assert_eq!(widths("ColumnCountGetFilter(2)"), [2, 2]);
    let got = t
        .get(&Get::new("r4").with_filter(parse_filter("ColumnCountGetFilter(1)").unwrap()))
        .unwrap();
    assert_eq!(cells(&got).len(), 1);
    // WHILE ends the whole scan, across regions, at the first row it rejects.
    assert_eq!(keys("WHILE RowFilter(!=, 'binary:r2')"), ["r1"]);
    assert_eq!(
        keys("WHILE RowFilter(<, 'binary:r5')"),
        ["r1", "r2", "r3", "r4"]
    );
    // Batching and whole-row filters do not mix, as in HBase.
    let err = t
        .scan(&with("PageFilter(1)").with_batch(1))
        .map(|mut s| s.next().unwrap().map(|_| ()))
        .and_then(|r| r)
        .unwrap_err();
    assert!(err.to_string().contains("Cannot set batch"), "{err}");
}
