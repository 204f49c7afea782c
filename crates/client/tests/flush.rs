//! Flushes write memstores to store files; reads merge memstores and files with the same
//! semantics as before.

mod support;

use basalt_client::{ColumnFamilyDescriptor, Delete, Get, Put, Scan, TableDescriptor};
use support::{cells, connection_at, create_table, create_with, scan_rows};

#[test]
fn flush_then_get_reads_the_store_file() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["a", "b"]);
    t.put(
        &Put::new("r1")
            .add_column("a", "q", "v1")
            .add_column("b", "q", "w1"),
    )
    .unwrap();
    conn.admin().flush(t.name()).unwrap();
    assert_eq!(conn.admin().store_file_counts(t.name()).unwrap(), [1, 1]);
    assert_eq!(
        cells(&t.get(&Get::new("r1")).unwrap()),
        ["a:q@100=v1", "b:q@100=w1"]
    );
    // An empty memstore flushes to nothing.
    conn.admin().flush(t.name()).unwrap();
    assert_eq!(conn.admin().store_file_counts(t.name()).unwrap(), [1, 1]);
}

#[test]
fn markers_in_memory_mask_puts_in_files_and_the_other_way_round() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    let admin = conn.admin();
    t.put(&Put::new("r").add_column_at("cf", "q", 5, "old"))
        .unwrap();
    admin.flush(t.name()).unwrap();
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 10))
        .unwrap();
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "a marker in memory masks a filed put"
    );
    admin.flush(t.name()).unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 7, "later"))
        .unwrap();
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "a filed marker masks a later put"
    );
    t.put(&Put::new("r").add_column_at("cf", "q", 11, "newer"))
        .unwrap();
    assert_eq!(cells(&t.get(&Get::new("r")).unwrap()), ["cf:q@11=newer"]);
    assert_eq!(admin.store_file_counts(t.name()).unwrap(), [2]);
}

#[test]
fn versions_and_rewrites_across_files() {
    let (conn, _) = connection_at(100);
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf").with_max_versions(2));
    let t = create_with(&conn, desc);
    for ts in [1, 2, 3] {
        t.put(&Put::new("r").add_column_at("cf", "q", ts, format!("v{ts}")))
            .unwrap();
        conn.admin().flush(t.name()).unwrap();
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
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    for (i, r) in ["r3", "r1", "r5", "r2", "r4"].iter().enumerate() {
        t.put(&Put::new(*r).add_column("cf", "q", "v")).unwrap();
        if i % 2 == 0 {
            conn.admin().flush(t.name()).unwrap();
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
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    for i in 0..10 {
        t.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))
            .unwrap();
    }
    let mut scanner = t.scan(&Scan::new().with_caching(2)).unwrap();
    let first: Vec<_> = scanner.by_ref().take(3).map(|r| r.unwrap().row).collect();
    conn.admin().flush(t.name()).unwrap();
    t.put(&Put::new("r9x").add_column("cf", "q", "late"))
        .unwrap();
    let rest: Vec<_> = scanner.map(|r| r.unwrap().row).collect();
    assert_eq!(
        first.len() + rest.len(),
        10,
        "every row once, nothing written later"
    );
}

#[test]
fn memstores_flush_themselves_at_the_flush_size() {
    let (conn, _) = connection_at(100);
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    desc.set_attribute("MEMSTORE_FLUSHSIZE", "1048576").unwrap();
    let t = create_with(&conn, desc);
    let value = vec![7u8; 10_000];
    for i in 0..150 {
        t.put(&Put::new(format!("row{i:04}")).add_column("cf", "q", value.clone()))
            .unwrap();
    }
    let files = conn.admin().store_file_counts(t.name()).unwrap()[0];
    assert!(
        files >= 1,
        "1.5 MB written against a 1 MiB flush size made {files} files"
    );
    assert_eq!(scan_rows(&t, &Scan::new()).len(), 150);
}
