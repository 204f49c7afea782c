//! Flushes write memstores to store files; reads merge memstores and files with the same
//! semantics as before. (Flushes the server decides on, by size and memory budget: the
//! client's `flush.rs`.)

mod support;

use basalt_common::{ColumnFamilyDescriptor, Delete, Get, Put, Scan, TableDescriptor};
use support::{cells, create_table, create_with, host_at, scan_rows};

#[test]
fn flush_then_get_reads_the_store_file() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["a", "b"]);
    t.put(
        &Put::new("r1")
            .add_column("a", "q", "v1")
            .add_column("b", "q", "w1"),
    )
    .unwrap();
    t.flush().unwrap();
    assert_eq!(t.store_file_counts(), [1, 1]);
    assert_eq!(
        cells(&t.get(&Get::new("r1")).unwrap()),
        ["a:q@100=v1", "b:q@100=w1"]
    );
    // An empty memstore flushes to nothing.
    t.flush().unwrap();
    assert_eq!(t.store_file_counts(), [1, 1]);
}

#[test]
fn markers_in_memory_mask_puts_in_files_and_the_other_way_round() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    t.put(&Put::new("r").add_column_at("cf", "q", 5, "old"))
        .unwrap();
    t.flush().unwrap();
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 10))
        .unwrap();
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "a marker in memory masks a filed put"
    );
    t.flush().unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 7, "later"))
        .unwrap();
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "a filed marker masks a later put"
    );
    t.put(&Put::new("r").add_column_at("cf", "q", 11, "newer"))
        .unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["cf:q@11=newer"]);
    assert_eq!(t.store_file_counts(), [2]);
}

#[test]
fn versions_and_rewrites_across_files() {
    let (host, _) = host_at(100);
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf").with_max_versions(2));
    let t = create_with(&host, desc);
    for ts in [1, 2, 3] {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
        t.flush().unwrap();
    }
    t.put(&Put::new("r").add_column_at("cf", "q", 2, "v2-again"))
        .unwrap();
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(
        cells(&all),
        ["cf:q@3=v3", "cf:q@2=v2-again"],
        "newest write wins at equal ts"
    );
}

#[test]
fn scans_cross_files_forward_and_reversed() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    for (i, r) in ["r3", "r1", "r5", "r2", "r4"].iter().enumerate() {
        t.put(&Put::new(*r).add_column("cf", "q", "v")).unwrap();
        if i % 2 == 0 {
            t.flush().unwrap();
        }
    }
    assert_eq!(scan_rows(&t, &Scan::new()), ["r1", "r2", "r3", "r4", "r5"]);
    assert_eq!(
        scan_rows(&t, &Scan::new().reversed(true).with_caching(1)),
        ["r5", "r4", "r3", "r2", "r1"]
    );
    assert_eq!(
        scan_rows(&t, &Scan::new().with_start_row("r2").with_stop_row("r4")),
        ["r2", "r3"]
    );
}

#[test]
fn a_scanner_survives_a_flush() {
    let (host, _) = host_at(100);
    let t = create_table(&host, "t", &["cf"]);
    for i in 0..10 {
        t.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))
            .unwrap();
    }
    let mut scanner = t.scan(&Scan::new().with_caching(2)).unwrap();
    let first: Vec<_> = scanner.by_ref().take(3).map(|r| r.unwrap().row).collect();
    t.flush().unwrap();
    t.put(&Put::new("r9x").add_column("cf", "q", "late"))
        .unwrap();
    let rest: Vec<_> = scanner.map(|r| r.unwrap().row).collect();
    assert_eq!(
        first.len() + rest.len(),
        10,
        "every row once, nothing written later"
    );
}
