//! Snapshots (issue 33, first part): taken while writes go on, they keep each region's store
//! files by hard link, so compacting and dropping the table leaves them whole; listed and
//! deleted by name; a half-taken one (a crash) is invisible and cleaned by the next.

use basalt_client::prelude::*;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use basalt_embedded::{Bytes, ColumnFamilyDescriptor, Connection, Put, TableDescriptor, TableName};
use basalt_fs::FileSystem;
use basalt_master::snapshots::{self, SNAPSHOT_DIR};

fn open(dir: &Path) -> Connection {
    Connection::builder()
        .file_system(Arc::new(basalt_fs::LocalFs))
        .root(dir)
        .open()
        .expect("open")
}

/// Table `t`, family `f`, split at `splits`.
fn create_t(conn: &Connection, splits: &[Bytes]) {
    conn.admin()
        .create_table_with_splits(
            TableDescriptor::named("t")
                .expect("name")
                .with_family(ColumnFamilyDescriptor::new("f")),
            splits,
        )
        .expect("create");
}

fn t() -> TableName {
    TableName::parse("t").expect("name")
}

/// The snapshot's files, as its manifest lists them: (path under the snapshot, size).
fn manifest_files(conn: &Connection, name: &str) -> Vec<(std::path::PathBuf, u64)> {
    let master = conn.engine().master();
    let manifest = snapshots::manifest(&master, name).expect("manifest");
    let mut out = Vec::new();
    for region in &manifest.region_manifests {
        let info = basalt_proto::schema::region_info(&region.region_info).expect("region info");
        for family in &region.family_files {
            for file in &family.store_files {
                out.push((
                    master
                        .root()
                        .join(SNAPSHOT_DIR)
                        .join(name)
                        .join("files")
                        .join(info.encoded_name())
                        .join(String::from_utf8_lossy(&family.family_name).as_ref())
                        .join(&file.name),
                    file.file_size.unwrap_or(0),
                ));
            }
        }
    }
    out
}

#[test]
fn a_snapshot_keeps_its_files_through_compaction_and_drop() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    let admin = conn.admin();
    create_t(&conn, &[Bytes::from_static(b"m")]);
    let table = conn.table("t").expect("table");
    for i in 0..200 {
        table
            .put(
                &Put::new(format!("{}{i:03}", if i % 2 == 0 { 'a' } else { 'x' }))
                    .add_column("f", "q", "v"),
            )
            .expect("put");
    }
    // Taken while another thread writes: the writes neither wait long nor fail.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (table, stop) = (conn.table("t").expect("table"), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Acquire) && n < 50_000 {
                table
                    .put(&Put::new(format!("w{n:05}")).add_column("f", "q", "w"))
                    .expect("a put during the snapshot");
                n += 1;
            }
            n
        })
    };
    SnapshotAdmin::snapshot(&conn, "s1", &t()).expect("snapshot");
    stop.store(true, Ordering::Release);
    assert!(writer.join().expect("writer") > 0);

    let listed = SnapshotAdmin::list_snapshots(&conn).expect("list");
    assert_eq!(listed.len(), 1);
    assert_eq!((listed[0].name.as_str(), &listed[0].table), ("s1", &t()));
    let files = manifest_files(&conn, "s1");
    let manifest = snapshots::manifest(&conn.engine().master(), "s1").expect("manifest");
    assert_eq!(manifest.region_manifests.len(), 2, "one per region");
    assert!(!files.is_empty());

    // Compact and drop the table: the snapshot's files stay, whole.
    admin.major_compact(&t()).expect("compact");
    admin.disable_table(&t()).expect("disable");
    admin.delete_table(&t()).expect("drop");
    let fs = basalt_fs::LocalFs;
    for (path, size) in &files {
        let file = fs.open(path).expect("a snapshot file outlives its table");
        assert_eq!(file.len(), *size, "{}", path.display());
        assert_eq!(file.read_at(0, 4).expect("read").len(), 4);
    }

    // Names are checked, and taken once.
    assert!(SnapshotAdmin::snapshot(&conn, ".bad", &t()).is_err());
    assert!(SnapshotAdmin::snapshot(&conn, "s1", &t()).is_err());
    SnapshotAdmin::delete_snapshot(&conn, "s1").expect("delete");
    assert!(
        SnapshotAdmin::list_snapshots(&conn)
            .expect("list")
            .is_empty()
    );
    assert!(SnapshotAdmin::delete_snapshot(&conn, "s1").is_err());
    assert!(!files[0].0.exists());
}

#[test]
fn a_half_taken_snapshot_is_invisible_and_cleaned() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    create_t(&conn, &[]);
    conn.table("t")
        .expect("table")
        .put(&Put::new("r").add_column("f", "q", "v"))
        .expect("put");
    // What a crash in the middle of `snapshot 't', 's2'` leaves.
    let tmp = dir.path().join(SNAPSHOT_DIR).join(".tmp").join("s2");
    std::fs::create_dir_all(tmp.join("files/junk")).expect("mkdir");
    std::fs::write(tmp.join("files/junk/x"), b"half").expect("write");
    assert!(
        SnapshotAdmin::list_snapshots(&conn)
            .expect("list")
            .is_empty()
    );
    SnapshotAdmin::snapshot(&conn, "s2", &t()).expect("snapshot over the leftovers");
    assert!(!tmp.exists());
    let listed = SnapshotAdmin::list_snapshots(&conn).expect("list");
    assert_eq!(listed.len(), 1);
    assert!(!manifest_files(&conn, "s2").is_empty());
    // A snapshot of a missing table is refused, naming it.
    let e = SnapshotAdmin::snapshot(&conn, "s3", &TableName::parse("nope").expect("name"))
        .expect_err("no such table");
    assert!(e.to_string().contains("nope"), "{e}");
}

#[test]
fn a_snapshot_needs_admin_on_its_table() {
    let conn = Connection::builder()
        .authorization(vec!["admin".into()])
        .build();
    create_t(&conn, &[]);
    let alice = conn.as_user(basalt_common::acl::User::new("alice"));
    let e = alice.snapshot("s", &t()).expect_err("alice has no ADMIN");
    assert_eq!(
        e.java_class(),
        "org.apache.hadoop.hbase.security.AccessDeniedException"
    );
    let admin = conn.as_user(basalt_common::acl::User::new("admin"));
    admin.snapshot("s", &t()).expect("the superuser may");
    assert!(alice.delete_snapshot("s").is_err());
    admin.delete_snapshot("s").expect("delete");
}

fn rows_of(conn: &Connection, table: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    conn.table(table)
        .expect("table")
        .scan(&basalt_embedded::Scan::new())
        .expect("scan")
        .map(|r| {
            let r = r.expect("row");
            (
                r.row.to_vec(),
                r.value(b"f", b"q").unwrap_or_default().to_vec(),
            )
        })
        .collect()
}

/// Table `t` split at `m`, 300 rows on both sides (`a...` and `x...`, each its own value).
fn filled_t(conn: &Connection) -> basalt_embedded::Table {
    create_t(conn, &[Bytes::from_static(b"m")]);
    let table = conn.table("t").expect("table");
    for i in 0..300 {
        let row = format!("{}{i:03}", if i % 3 == 0 { 'a' } else { 'x' });
        table
            .put(&Put::new(row.clone()).add_column("f", "q", row))
            .expect("put");
    }
    table
}

/// Issue 33's proof for clones: a clone holds the snapshot's rows (not later ones), and still
/// reads every one after the source is compacted and dropped and the snapshot deleted.
#[test]
fn a_clone_outlives_its_source_and_its_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    let admin = conn.admin();
    let table = filled_t(&conn);
    let before = rows_of(&conn, "t");
    SnapshotAdmin::snapshot(&conn, "s", &t()).expect("snapshot");
    table
        .put(&Put::new("later").add_column("f", "q", "later"))
        .expect("put after");
    let c = TableName::parse("c").expect("name");
    SnapshotAdmin::clone_snapshot(&conn, "s", &c).expect("clone");
    assert_eq!(rows_of(&conn, "c"), before, "the clone is the snapshot");
    assert_eq!(
        admin.regions(&c).expect("regions").len(),
        2,
        "and its regions"
    );
    // The source compacted and dropped, the snapshot deleted: the clone reads on.
    admin.major_compact(&t()).expect("compact");
    admin.disable_table(&t()).expect("disable");
    admin.delete_table(&t()).expect("drop");
    SnapshotAdmin::delete_snapshot(&conn, "s").expect("delete snapshot");
    assert_eq!(rows_of(&conn, "c"), before);
    // It is a table like any other: written, compacted, read.
    conn.table("c")
        .expect("clone")
        .put(&Put::new("new").add_column("f", "q", "new"))
        .expect("put into the clone");
    admin.major_compact(&c).expect("compact the clone");
    assert_eq!(rows_of(&conn, "c").len(), before.len() + 1);
    // A clone needs a new name and an existing snapshot.
    SnapshotAdmin::snapshot(&conn, "s2", &c).expect("snapshot the clone");
    let e = SnapshotAdmin::clone_snapshot(&conn, "s2", &c).expect_err("c exists");
    assert!(e.to_string().contains('c'), "{e}");
    let e = SnapshotAdmin::clone_snapshot(&conn, "nope", &TableName::parse("d").expect("name"))
        .expect_err("no such snapshot");
    assert!(e.to_string().contains("nope"), "{e}");
    assert!(!admin.table_exists(&TableName::parse("d").expect("name")));
}

/// Every cell of a table, versions and timestamps included.
fn all_cells(conn: &Connection, table: &str) -> Vec<String> {
    let mut scan = basalt_embedded::Scan::new();
    scan.max_versions = u32::MAX;
    conn.table(table)
        .expect("table")
        .scan(&scan)
        .expect("scan")
        .flat_map(|r| {
            r.expect("row")
                .cells
                .iter()
                .map(|c| format!("{c:?}"))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Issue 33's proof for restores: a snapshot taken under a write load, then more writes, a
/// split, a new family and deleted rows; restored, the table is the snapshot again (what a
/// clone of it holds, cell for cell), with its schema and regions, and stays so after a
/// reopen.
#[test]
fn a_restored_table_equals_its_snapshot() {
    let dir = tempfile::tempdir().expect("dir");
    let conn = open(dir.path());
    let admin = conn.admin();
    let table = filled_t(&conn);
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let writer = {
        let table = conn.table("t").expect("table");
        let (stop, written) = (Arc::clone(&stop), Arc::clone(&written));
        std::thread::spawn(move || {
            for n in 0..100_000 {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                table
                    .put(&Put::new(format!("w{n:06}")).add_column("f", "q", "w"))
                    .expect("a put during the snapshot");
                written.store(n + 1, Ordering::Release);
            }
        })
    };
    while written.load(Ordering::Acquire) < 100 {
        std::thread::yield_now();
    }
    let before_snapshot = written.load(Ordering::Acquire);
    SnapshotAdmin::snapshot(&conn, "s", &t()).expect("snapshot");
    let after_snapshot = written.load(Ordering::Acquire);
    // Keep writing a while after it.
    while written.load(Ordering::Acquire) < after_snapshot + 200 {
        std::thread::yield_now();
    }
    stop.store(true, Ordering::Release);
    writer.join().expect("writer");

    // What the snapshot holds, as a clone reads it.
    SnapshotAdmin::clone_snapshot(&conn, "s", &TableName::parse("c").expect("name"))
        .expect("clone");
    let snapshot_cells = all_cells(&conn, "c");
    let rows: Vec<Vec<u8>> = rows_of(&conn, "c").into_iter().map(|(r, _)| r).collect();
    for n in 0..before_snapshot {
        assert!(
            rows.contains(&format!("w{n:06}").into_bytes()),
            "w{n:06} was written before"
        );
    }
    assert!(!rows.contains(&format!("w{after_snapshot:06}").into_bytes()));

    // The table moves on: rows deleted and overwritten, a split, a new family.
    table
        .delete(&basalt_embedded::Delete::new("a000"))
        .expect("delete");
    table
        .put(&Put::new("x001").add_column("f", "q", "changed"))
        .expect("overwrite");
    admin.split(&t(), Some(b"t")).expect("split");
    admin
        .add_column_family(&t(), ColumnFamilyDescriptor::new("g"))
        .expect("add family");
    assert_ne!(all_cells(&conn, "t"), snapshot_cells);

    let e = SnapshotAdmin::restore_snapshot(&conn, "s").expect_err("the table is enabled");
    assert!(e.to_string().contains('t'), "{e}");
    admin.disable_table(&t()).expect("disable");
    SnapshotAdmin::restore_snapshot(&conn, "s").expect("restore");
    assert!(
        admin.is_table_disabled(&t()).expect("state"),
        "it stays disabled"
    );
    admin.enable_table(&t()).expect("enable");
    assert_eq!(
        all_cells(&conn, "t"),
        snapshot_cells,
        "the table is the snapshot"
    );
    assert_eq!(admin.regions(&t()).expect("regions").len(), 2);
    let families: Vec<_> = admin
        .describe_table(&t())
        .expect("describe")
        .families()
        .iter()
        .map(|f| f.name.clone())
        .collect();
    assert_eq!(families, vec![Bytes::from_static(b"f")], "and its schema");
    // No directory of the old regions is left.
    let region_dirs: Vec<_> = std::fs::read_dir(dir.path().join("data/default/t"))
        .expect("table dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    assert_eq!(region_dirs.len(), 2, "{region_dirs:?}");

    // Written to, it is a table like any other; and it is all there after a reopen.
    table
        .put(&Put::new("after").add_column("f", "q", "after"))
        .expect("put");
    let now = all_cells(&conn, "t");
    conn.close().expect("close");
    let conn = open(dir.path());
    assert_eq!(all_cells(&conn, "t"), now);

    // A dropped table comes back as a clone.
    let admin = conn.admin();
    admin.disable_table(&t()).expect("disable");
    admin.delete_table(&t()).expect("drop");
    SnapshotAdmin::restore_snapshot(&conn, "s").expect("restore a dropped table");
    assert_eq!(all_cells(&conn, "t"), snapshot_cells);
    let e = SnapshotAdmin::restore_snapshot(&conn, "nope").expect_err("no such snapshot");
    assert!(e.to_string().contains("nope"), "{e}");
}
