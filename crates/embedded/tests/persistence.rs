//! Data outlives the process: a table written, closed and reopened reads back exactly the same.

mod support;

use std::sync::Arc;

use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, Delete, Get, ManualClock, Put, Scan, TableDescriptor,
    TableName,
};
use support::{cells, scan_rows};

fn open(dir: &std::path::Path, clock: &Arc<ManualClock>) -> Connection {
    Connection::builder()
        .clock(clock.clone())
        .file_system(Arc::new(basalt_fs::LocalFs))
        .root(dir)
        .open()
        .expect("open data directory")
}

#[test]
fn close_then_reopen_reads_back_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(dir.path(), &clock);
    let mut cf = ColumnFamilyDescriptor::new("cf").with_max_versions(2);
    cf.set_attribute("COMPRESSION", "ZSTD").unwrap();
    let desc = TableDescriptor::named("webtable")
        .unwrap()
        .with_family(cf)
        .with_family(ColumnFamilyDescriptor::new("x"));
    conn.admin().create_table(desc.clone()).unwrap();
    let t = conn.table("webtable").unwrap();
    for ts in [3, 5, 6] {
        t.put(&Put::new("com.cnn.www").add_column_at("cf", "html", ts, format!("v{ts}")))
            .unwrap();
    }
    conn.admin().flush(t.name()).unwrap();
    t.put(&Put::new("com.example.www").add_column("x", "a", "in memory at close"))
        .unwrap();
    t.delete(&Delete::new("com.cnn.www").add_column_at("cf", "html", 6))
        .unwrap();
    let before_rows = scan_rows(&t, &Scan::new());
    let before = cells(&t.get(&Get::new("com.cnn.www").read_all_versions()).unwrap());
    conn.close().unwrap();
    assert!(
        t.get(&Get::new("com.cnn.www")).is_err(),
        "a closed connection refuses work"
    );

    let conn = open(dir.path(), &clock);
    let name = TableName::parse("webtable").unwrap();
    assert_eq!(conn.admin().describe_table(&name).unwrap(), desc);
    let t = conn.table("webtable").unwrap();
    assert_eq!(scan_rows(&t, &Scan::new()), before_rows);
    assert_eq!(
        cells(&t.get(&Get::new("com.cnn.www").read_all_versions()).unwrap()),
        before
    );
    assert_eq!(before, ["cf:html@5=v5", "cf:html@3=v3"]);
    // Sequence ids continue: a rewrite at an existing timestamp wins over the stored one.
    t.put(&Put::new("com.cnn.www").add_column_at("cf", "html", 5, "v5-again"))
        .unwrap();
    assert_eq!(
        cells(&t.get(&Get::new("com.cnn.www")).unwrap()),
        ["cf:html@5=v5-again"]
    );
    conn.close().unwrap();
}

#[test]
fn table_state_and_deletions_persist() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1));
    let conn = open(dir.path(), &clock);
    let admin = conn.admin();
    for t in ["kept", "gone"] {
        admin
            .create_table(
                TableDescriptor::named(t)
                    .unwrap()
                    .with_family(ColumnFamilyDescriptor::new("cf")),
            )
            .unwrap();
        conn.table(t)
            .unwrap()
            .put(&Put::new("r").add_column("cf", "q", "v"))
            .unwrap();
    }
    let (kept, gone) = (
        TableName::parse("kept").unwrap(),
        TableName::parse("gone").unwrap(),
    );
    admin.disable_table(&kept).unwrap();
    admin.disable_table(&gone).unwrap();
    admin.delete_table(&gone).unwrap();
    conn.close().unwrap();

    let conn = open(dir.path(), &clock);
    let admin = conn.admin();
    assert_eq!(admin.list_table_names(), std::slice::from_ref(&kept));
    assert!(admin.is_table_disabled(&kept).unwrap());
    admin.enable_table(&kept).unwrap();
    assert_eq!(
        conn.table("kept")
            .unwrap()
            .get(&Get::new("r"))
            .unwrap()
            .value(b"cf", b"q")
            .unwrap(),
        b"v"
    );
    conn.close().unwrap();
}

#[test]
fn one_engine_per_data_directory() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1));
    let first = open(dir.path(), &clock);
    let err = Connection::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("in use by another Basalt process"), "{err}");
    first.close().unwrap();
    Connection::open(dir.path()).unwrap().close().unwrap();
}

#[test]
fn leftovers_of_interrupted_work_are_cleaned_and_foreign_directories_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(ManualClock::new(1));
    let conn = open(dir.path(), &clock);
    conn.admin()
        .create_table(
            TableDescriptor::named("t")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    conn.table("t")
        .unwrap()
        .put(&Put::new("r").add_column("cf", "q", "v"))
        .unwrap();
    conn.close().unwrap();
    // A half-created table (no descriptor yet) and a half-written store file.
    let half_table = dir.path().join("data/default/half/abc/cf");
    std::fs::create_dir_all(&half_table).unwrap();
    let family_dir = std::fs::read_dir(dir.path().join("data/default/t"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.is_dir())
        .unwrap()
        .join("cf");
    std::fs::write(family_dir.join("0123.tmp"), b"partial").unwrap();
    let conn = open(dir.path(), &clock);
    assert_eq!(
        conn.admin().list_table_names(),
        [TableName::parse("t").unwrap()]
    );
    assert!(!dir.path().join("data/default/half").exists());
    assert!(!family_dir.join("0123.tmp").exists());
    assert_eq!(
        conn.table("t").unwrap().get(&Get::new("r")).unwrap().len(),
        1
    );
    conn.close().unwrap();

    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("basalt.version"), "something else\n").unwrap();
    let err = Connection::open(other.path()).unwrap_err().to_string();
    assert!(err.contains("not a Basalt data directory"), "{err}");
}
