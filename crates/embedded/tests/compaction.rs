//! Compactions: minor merges files and keeps every cell; major drops delete markers, masked,
//! surplus and expired cells, as HBase's do.

mod support;

use basalt_embedded::{
    ColumnFamilyDescriptor, Delete, Get, KeepDeletedCells, Put, Scan, TableDescriptor,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{Connection, ManualClock};
use support::{cells, connection_at, create_table, create_with, scan_rows};

#[test]
fn minor_compaction_merges_files_and_keeps_every_cell() {
    let (conn, _) = connection_at(100);
    // No automatic compactions: this test counts the files it makes.
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    desc.set_attribute("COMPACTION_ENABLED", "false").unwrap();
    let t = create_with(&conn, desc);
    let admin = conn.admin();
    for i in 0..4 {
        t.put(&Put::new(format!("r{i}")).add_column_at("cf", "q", 1, "v"))
            .unwrap();
        t.delete(&Delete::new(format!("r{i}")).add_column_at("cf", "q", 1))
            .unwrap();
        admin.flush(t.name()).unwrap();
    }
    assert_eq!(admin.store_file_counts(t.name()).unwrap(), [4]);
    let raw_before: Vec<_> = t
        .scan(&Scan::new().raw(true))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    admin.compact(t.name()).unwrap();
    assert_eq!(admin.store_file_counts(t.name()).unwrap(), [1]);
    let raw_after: Vec<_> = t
        .scan(&Scan::new().raw(true))
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(
        raw_after, raw_before,
        "a minor compaction keeps markers and masked cells"
    );
}

#[test]
fn major_compaction_removes_deletes_and_what_they_masked() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    let admin = conn.admin();
    t.put(
        &Put::new("r")
            .add_column_at("cf", "q", 5, "old")
            .add_column("cf", "keep", "k"),
    )
    .unwrap();
    admin.flush(t.name()).unwrap();
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 10))
        .unwrap();
    admin.flush(t.name()).unwrap();
    t.put(&Put::new("r").add_column_at("cf", "q", 7, "written after the delete"))
        .unwrap();
    assert_eq!(
        cells(&t.get(&Get::new("r")).unwrap()),
        ["cf:keep@100=k"],
        "masked until compaction"
    );

    admin.major_compact(t.name()).unwrap();
    assert_eq!(admin.store_file_counts(t.name()).unwrap(), [1]);
    let raw = t
        .scan(&Scan::new().raw(true).read_all_versions())
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert!(
        raw.cells.iter().all(|c| !c.cell_type.is_delete()),
        "markers are gone: {raw:?}"
    );
    assert!(
        raw.cells.iter().all(|c| c.timestamp != 5),
        "the masked put is gone"
    );
    // HBase's documented consequence: once the marker is gone, the later put shows.
    assert_eq!(
        cells(&t.get(&Get::new("r")).unwrap()),
        ["cf:keep@100=k", "cf:q@7=written after the delete"]
    );
}

#[test]
fn major_compaction_enforces_versions_and_ttl() {
    let (conn, clock) = connection_at(1_000_000);
    let desc = TableDescriptor::named("t").unwrap().with_family(
        ColumnFamilyDescriptor::new("cf")
            .with_max_versions(2)
            .with_ttl_seconds(10)
            .with_min_versions(1),
    );
    let t = create_with(&conn, desc);
    let admin = conn.admin();
    for ts in 1..=4 {
        t.put(&Put::new("r").add_column_at("cf", "q", 1_000_000 + ts, format!("v{ts}")))
            .unwrap();
        t.put(&Put::new("s").add_column_at("cf", "q", 1_000_000 + ts, format!("s{ts}")))
            .unwrap();
        admin.flush(t.name()).unwrap();
    }
    admin.major_compact(t.name()).unwrap();
    let raw = t
        .scan(&Scan::new().raw(true).read_all_versions())
        .unwrap()
        .map(|r| r.unwrap().cells.len())
        .sum::<usize>();
    assert_eq!(raw, 4, "two versions of each row survive");
    clock.advance(60_000);
    admin.major_compact(t.name()).unwrap();
    let all = t.get(&Get::new("r").read_all_versions()).unwrap();
    assert_eq!(
        cells(&all),
        ["cf:q@1000004=v4"],
        "expired, but MIN_VERSIONS keeps the newest"
    );
    assert_eq!(scan_rows(&t, &Scan::new()), ["r", "s"]);
}

#[test]
fn keep_deleted_cells_survive_major_compaction() {
    let (conn, _) = connection_at(1_000);
    let desc = TableDescriptor::named("t").unwrap().with_family(
        ColumnFamilyDescriptor::new("cf").with_keep_deleted_cells(KeepDeletedCells::True),
    );
    let t = create_with(&conn, desc);
    t.put(&Put::new("r").add_column_at("cf", "q", 5, "v5"))
        .unwrap();
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 10))
        .unwrap();
    conn.admin().flush(t.name()).unwrap();
    conn.admin().major_compact(t.name()).unwrap();
    assert!(t.get(&Get::new("r")).unwrap().is_empty());
    assert_eq!(
        cells(&t.get(&Get::new("r").with_time_range(0, 10)).unwrap()),
        ["cf:q@5=v5"]
    );
}

#[test]
fn a_store_emptied_by_major_compaction_has_no_files() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    t.put(&Put::new("r").add_column_at("cf", "q", 1, "v"))
        .unwrap();
    t.delete(&Delete::new("r")).unwrap();
    conn.admin().flush(t.name()).unwrap();
    conn.admin().major_compact(t.name()).unwrap();
    assert_eq!(conn.admin().store_file_counts(t.name()).unwrap(), [0]);
    assert!(scan_rows(&t, &Scan::new().raw(true)).is_empty());
}

/// Polls `done` for up to ten seconds.
fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn flushes_start_minor_compactions_in_the_background() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    let admin = conn.admin();
    for i in 0..3 {
        t.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))
            .unwrap();
        admin.flush(t.name()).unwrap();
    }
    eventually("a background compaction of three files", || {
        admin.store_file_counts(t.name()).unwrap() == [1]
    });
    assert_eq!(scan_rows(&t, &Scan::new()), ["r0", "r1", "r2"]);
}

#[test]
fn compaction_settings_come_from_the_table_configuration() {
    let (conn, _) = connection_at(100);
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    // HBase's default needs three files; this table asks for two.
    desc.configuration
        .insert("hbase.hstore.compaction.min".into(), "2".into());
    let t = create_with(&conn, desc);
    let admin = conn.admin();
    for i in 0..2 {
        t.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))
            .unwrap();
        admin.flush(t.name()).unwrap();
    }
    eventually("a background compaction of two files", || {
        admin.store_file_counts(t.name()).unwrap() == [1]
    });

    let mut bad = TableDescriptor::named("bad")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    bad.configuration
        .insert("hbase.hstore.compaction.ratio".into(), "-1".into());
    let err = admin.create_table(bad).unwrap_err().to_string();
    assert!(err.contains("hbase.hstore.compaction.ratio"), "{err}");
    assert!(!admin.table_exists(&"bad".parse().unwrap()));
}

#[test]
fn major_compactions_run_on_their_period() {
    let clock = Arc::new(ManualClock::new(1_000_000));
    let conn = Connection::builder()
        .clock(clock.clone())
        .major_compaction_interval(Duration::from_secs(3600))
        .build();
    let t = create_table(&conn, "t", &["cf"]);
    t.put(&Put::new("r").add_column("cf", "q", "v")).unwrap();
    t.delete(&Delete::new("r")).unwrap();
    conn.admin().flush(t.name()).unwrap();
    let raw_cells = || {
        t.scan(&Scan::new().raw(true))
            .unwrap()
            .map(|r| r.unwrap().len())
            .sum::<usize>()
    };
    assert_eq!(
        raw_cells(),
        2,
        "marker and put are kept until a major compaction"
    );
    clock.advance(3_600_000);
    eventually("the periodic major compaction", || raw_cells() == 0);
    conn.close().unwrap();
}

#[test]
fn files_a_compaction_replaced_are_not_read_again_after_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let open = || {
        Connection::builder()
            .file_system(Arc::new(basalt_fs::LocalFs))
            .root(dir.path())
            .open()
            .unwrap()
    };
    let conn = open();
    let mut desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    desc.set_attribute("COMPACTION_ENABLED", "false").unwrap();
    conn.admin().create_table(desc).unwrap();
    let t = conn.table("t").unwrap();
    let family_dir = || {
        std::fs::read_dir(dir.path().join("data/default/t"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir())
            .unwrap()
            .join("cf")
    };
    for i in 0..3 {
        t.put(&Put::new(format!("r{i}")).add_column_at("cf", "q", 1, "v"))
            .unwrap();
        conn.admin().flush(t.name()).unwrap();
    }
    // Keep copies of the three files, compact, then put them back: as if a crash had come
    // between writing the merged file and deleting the ones it replaced.
    let cf = family_dir();
    let saved: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(&cf)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    conn.admin().compact(t.name()).unwrap();
    assert_eq!(conn.admin().store_file_counts(t.name()).unwrap(), [1]);
    conn.close().unwrap();
    for (path, bytes) in &saved {
        std::fs::write(path, bytes).unwrap();
    }
    let conn = open();
    let t = conn.table("t").unwrap();
    assert_eq!(
        conn.admin().store_file_counts(t.name()).unwrap(),
        [1],
        "the replaced files are deleted"
    );
    let raw: usize = t
        .scan(&Scan::new().raw(true).read_all_versions())
        .unwrap()
        .map(|r| r.unwrap().len())
        .sum();
    assert_eq!(raw, 3, "every cell once");
    assert!(saved.iter().all(|(p, _)| !p.exists()));
    conn.close().unwrap();
}

#[test]
fn a_scanner_keeps_the_view_it_opened_with_through_a_compaction() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    for i in 0..10 {
        t.put(&Put::new(format!("r{i}")).add_column_at("cf", "q", 5, "v"))
            .unwrap();
    }
    t.delete(&Delete::new("r5").add_columns_at("cf", "q", 10))
        .unwrap();
    conn.admin().flush(t.name()).unwrap();
    // Written after the delete and masked by it; it stays in the memstore, so a major
    // compaction (of the files) drops the marker but not this put.
    t.put(&Put::new("r5").add_column_at("cf", "q", 7, "later"))
        .unwrap();

    let mut scanner = t.scan(&Scan::new().with_caching(1)).unwrap();
    let mut rows: Vec<_> = scanner.by_ref().take(3).map(|r| r.unwrap().row).collect();
    conn.admin().major_compact(t.name()).unwrap();
    rows.extend(scanner.map(|r| r.unwrap().row));
    assert_eq!(
        rows.len(),
        9,
        "the scan goes on reading what it opened with: r5 stays masked"
    );
    assert_eq!(
        scan_rows(&t, &Scan::new()).len(),
        10,
        "a new scan sees the compacted store"
    );
}
