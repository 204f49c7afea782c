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
fn memstores_are_flushed_at_the_flush_size() {
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
    // The server's flushers do it in the background, within moments.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut files = 0;
    while files == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
        files = conn.admin().store_file_counts(t.name()).unwrap()[0];
    }
    assert!(
        files >= 1,
        "1.5 MB written against a 1 MiB flush size made {files} files"
    );
    assert_eq!(scan_rows(&t, &Scan::new()).len(), 150);
}

/// The server's memstore budget: writers wait for the flushers, then give up with
/// RegionTooBusy when flushes cannot catch up (here: a file system whose syncs crawl).
#[test]
fn writers_wait_for_room_and_then_fail_with_region_too_busy() {
    use basalt_client::{Connection, Error};
    use basalt_fs::FaultyFs;
    let fs = FaultyFs::new();
    let conn = Connection::builder()
        .file_system(std::sync::Arc::new(fs.clone()))
        .root("/data")
        .global_memstore_size(2 * 1024 * 1024)
        .memstore_block_wait(std::time::Duration::from_millis(200))
        .open()
        .unwrap();
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_durability(basalt_client::Durability::SkipWal);
    desc.set_attribute("MEMSTORE_FLUSHSIZE", "1048576").unwrap();
    let t = create_with(&conn, desc);
    let value = vec![7u8; 10_000];
    // Within the budget, writes go on while the flushers keep up: 8 MB through 2 MiB.
    for i in 0..800 {
        t.put(&Put::new(format!("row{i:04}")).add_column("cf", "q", value.clone()))
            .unwrap();
    }
    // Flushes now crawl (every sync takes 2 s): memory fills up, and writers are turned
    // away after waiting 200 ms.
    fs.set_sync_delay(std::time::Duration::from_secs(2));
    let mut refused = None;
    for i in 0..1000 {
        let put = Put::new(format!("late{i:04}")).add_column("cf", "q", value.clone());
        if let Err(e) = t.put(&put) {
            refused = Some(e);
            break;
        }
    }
    fs.set_sync_delay(std::time::Duration::ZERO);
    let err = refused.expect("writes beyond the budget must be refused");
    assert!(matches!(err, Error::RegionTooBusy { .. }), "{err}");
    assert_eq!(err.exception_name(), "RegionTooBusyException");
    // Once flushes work again (the slow syncs under way finish), so do writes.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while let Err(e) = t.put(&Put::new("again").add_column("cf", "q", value.clone())) {
        assert!(std::time::Instant::now() < deadline, "still refused: {e}");
    }
    assert_eq!(scan_rows(&t, &Scan::new().with_start_row("row")).len(), 800);
}
