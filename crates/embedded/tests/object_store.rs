//! The engine with its store files on an object store (issue 35, fourth part), against a real
//! S3-compatible server (`tests/s3/start.sh`): flushes, compactions, snapshots, clones and
//! reopening work as on the local disk; the data directory holds WALs, catalog files and
//! pointers; reads that the block cache holds do not go to the store.

use basalt_embedded::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, Get, Put, Scan, TableDescriptor, TableName,
};
use basalt_fs::{ObjectFs, S3TestServer};

fn open(dir: &Path, fs: &ObjectFs) -> Connection {
    Connection::builder()
        .file_system(Arc::new(fs.clone()))
        .root(dir)
        .block_cache_size(64 << 20)
        .open()
        .expect("open")
}

fn rows_of(conn: &Connection, table: &str) -> Vec<(Bytes, Bytes)> {
    conn.table(table)
        .expect("table")
        .scan(&Scan::new())
        .expect("scan")
        .map(|r| {
            let r = r.expect("row");
            let v = Bytes::copy_from_slice(r.value(b"f", b"q").unwrap_or_default());
            (r.row, v)
        })
        .collect()
}

/// Every store file (not WAL, not catalog file) of the tables (`hbase:meta` too) and the
/// snapshots.
fn store_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.join("data"), root.join(".hbase-snapshot")];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                dirs.push(path);
            } else if !name.starts_with('.') && name.chars().all(|c| c.is_ascii_hexdigit()) {
                out.push(path);
            }
        }
    }
    out
}

/// The keys of the objects that the pointers under `root` name, deduplicated.
fn named_keys(root: &Path) -> Vec<String> {
    let mut keys: Vec<String> = store_files(root)
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).expect("a pointer is text");
            assert!(
                text.starts_with("basalt-object 1\n"),
                "{}: {text:?}",
                p.display()
            );
            text.lines().nth(1).expect("key line")[4..].to_owned()
        })
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Waits (bounded) until the store holds exactly the objects the pointers name.
fn assert_store_matches_pointers(fs: &ObjectFs, root: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let (named, stored) = (named_keys(root), fs.object_keys().expect("keys"));
        if named == stored {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "pointers name {named:?}, the store holds {stored:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn tables_live_on_the_object_store_through_compactions_snapshots_and_restarts() {
    let s3 = S3TestServer::start().expect("S3 test server");
    let dir = tempfile::tempdir().expect("dir");
    let fs = ObjectFs::connect(s3.config("engine", Duration::from_secs(1))).expect("connect");
    let conn = open(dir.path(), &fs);
    let admin = conn.admin();
    let t = TableName::parse("t").expect("name");
    admin
        .create_table_with_splits(
            TableDescriptor::named("t")
                .expect("name")
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[Bytes::from("r05000")],
        )
        .expect("create");
    let table = conn.table("t").expect("table");
    for round in 0..3 {
        for i in (round..10_000).step_by(3) {
            table
                .put(&Put::new(format!("r{i:05}")).add_column(
                    "f",
                    "q",
                    format!("v{i}-{}", "x".repeat(50)),
                ))
                .expect("put");
        }
        admin.flush(&t).expect("flush");
    }
    let written = rows_of(&conn, "t");
    assert_eq!(written.len(), 10_000);
    // Three flushes of two regions (which minor compactions may have merged).
    let files = store_files(dir.path());
    assert!(files.len() >= 2, "{files:?}");
    assert_store_matches_pointers(&fs, dir.path());

    // A get whose block the cache holds does not go to the store again.
    let get = Get::new("r07777");
    let first = table.get(&get).expect("get");
    let gets = fs.stats().gets;
    let again = table.get(&get).expect("get again");
    assert_eq!(first.value(b"f", b"q"), again.value(b"f", b"q"));
    assert_eq!(
        fs.stats().gets,
        gets,
        "the second get came from the block cache"
    );

    // A snapshot shares the objects; compaction and drop of the source leave the clone whole.
    SnapshotAdmin::snapshot(&conn, "s", &t).expect("snapshot");
    admin.major_compact(&t).expect("compact");
    assert_eq!(rows_of(&conn, "t"), written);
    let c = TableName::parse("c").expect("name");
    SnapshotAdmin::clone_snapshot(&conn, "s", &c).expect("clone");
    admin.disable_table(&t).expect("disable");
    admin.delete_table(&t).expect("drop");
    SnapshotAdmin::delete_snapshot(&conn, "s").expect("delete snapshot");
    assert_eq!(rows_of(&conn, "c"), written);
    assert_store_matches_pointers(&fs, dir.path());

    // Written, compacted, closed and reopened with a new connection to the store.
    conn.table("c")
        .expect("clone")
        .put(&Put::new("r99999").add_column("f", "q", "last"))
        .expect("put");
    admin.major_compact(&c).expect("compact the clone");
    conn.close().expect("close");
    drop(conn);
    let fs = ObjectFs::connect(s3.config("engine", Duration::from_secs(1))).expect("reconnect");
    let conn = open(dir.path(), &fs);
    let back = rows_of(&conn, "c");
    assert_eq!(back.len(), written.len() + 1);
    assert_eq!(&back[..written.len()], &written[..]);
    assert!(
        fs.stats().gets > 0,
        "the reopened engine read from the store"
    );
    assert_store_matches_pointers(&fs, dir.path());
    // WAL segments stay ordinary files on the directory.
    let wals = dir.path().join("WALs");
    assert!(wals.is_dir(), "the WAL is local");
}
