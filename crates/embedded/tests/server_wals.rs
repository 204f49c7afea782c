//! Each server's write-ahead log lives in `WALs/<host>,<port>,<start code>/`, locked while
//! the server lives: the next open replays a gone server's directory (the old
//! `WALs/embedded` included), archives it under the server's name and deletes it, and leaves
//! a live server's directory alone; a clean close leaves no directory behind.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_embedded::{ColumnFamilyDescriptor, Connection, Get, ManualClock, Put, TableDescriptor};
use basalt_fs::{FaultyFs, FileSystem};

fn open(fs: &FaultyFs, clock: &Arc<ManualClock>) -> Connection {
    Connection::builder()
        .clock(clock.clone())
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .server_name("db1.example:16020")
        .open()
        .unwrap()
}

fn names(fs: &FaultyFs, dir: &str) -> Vec<String> {
    fs.list(Path::new(dir)).unwrap_or_default()
}

fn value(conn: &Connection, row: &str) -> Option<String> {
    let r = conn
        .table("t")
        .unwrap()
        .get(&Get::new(row.to_owned()))
        .unwrap();
    r.value(b"f", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// Table `t` (made by a run that stopped cleanly, if it is missing), `rows` written to it
/// (SYNC_WAL), then the process killed: nothing flushed. Returns the killed server's name.
fn crashed_with(fs: &FaultyFs, clock: &Arc<ManualClock>, rows: &[&str]) -> String {
    let conn = open(fs, clock);
    if !conn
        .admin()
        .table_exists(&basalt_embedded::TableName::parse("t").unwrap())
    {
        conn.admin()
            .create_table(
                TableDescriptor::named("t")
                    .unwrap()
                    .with_family(ColumnFamilyDescriptor::new("f")),
            )
            .unwrap();
        conn.close().unwrap();
        return crashed_with(fs, clock, rows);
    }
    let t = conn.table("t").unwrap();
    for row in rows {
        t.put(&Put::new(row.to_string()).add_column("f", "q", row.to_string()))
            .unwrap();
    }
    let server = format!("db1.example,16020,{}", conn.server_start_code());
    fs.kill();
    drop((t, conn));
    server
}

#[test]
fn a_server_writes_under_its_name_and_a_clean_close_leaves_no_directory() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let conn = open(&fs, &clock);
    assert_eq!(conn.server_start_code(), 1_700_000_000_000);
    assert_eq!(
        names(&fs, "/data/WALs"),
        ["db1.example,16020,1700000000000"]
    );
    let dir = Path::new("/data/WALs/db1.example,16020,1700000000000");
    assert_eq!(basalt_wal::segments_in(&fs, dir).unwrap().len(), 1);
    conn.close().unwrap();
    assert!(
        names(&fs, "/data/WALs").is_empty(),
        "{:?}",
        names(&fs, "/data/WALs")
    );
    assert_eq!(
        names(&fs, "/data/oldWALs"),
        ["db1.example,16020,1700000000000"]
    );
    // A restart at the same millisecond while the killed server's directory is still there
    // is another server.
    let server = crashed_with(&fs, &clock, &["r"]);
    assert_eq!(server, "db1.example,16020,1700000000000");
    let again = open(&fs, &clock);
    assert_eq!(again.server_start_code(), 1_700_000_000_000 + 1);
    assert_eq!(value(&again, "r").as_deref(), Some("r"));
    again.close().unwrap();
}

#[test]
fn a_gone_servers_edits_are_replayed_and_its_directory_retired() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(5_000));
    let first = crashed_with(&fs, &clock, &["a", "b"]);
    assert_eq!(names(&fs, "/data/WALs"), std::slice::from_ref(&first));
    // Killed again after recovering and writing more.
    let second = crashed_with(&fs, &clock, &["c"]);
    assert_ne!(first, second);
    let conn = open(&fs, &clock);
    for row in ["a", "b", "c"] {
        assert_eq!(value(&conn, row).as_deref(), Some(row));
    }
    let own = format!("db1.example,16020,{}", conn.server_start_code());
    assert_eq!(names(&fs, "/data/WALs"), [own]);
    let archived = names(&fs, "/data/oldWALs");
    assert!(archived.contains(&second), "{archived:?}");
    conn.close().unwrap();
}

#[test]
fn a_data_directory_of_the_old_layout_opens_unchanged() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(5_000));
    let server = crashed_with(&fs, &clock, &["old"]);
    // Make it the layout before servers had directories of their own: one `WALs/embedded`,
    // no lock file in it, segments archived flat.
    let from = PathBuf::from("/data/WALs").join(&server);
    // (The lock file was never synced: the killed process may have taken it along.)
    let _ = fs.delete(&from.join("LOCK"));
    assert_eq!(basalt_wal::segments_in(&fs, &from).unwrap().len(), 1);
    fs.rename(&from, Path::new("/data/WALs/embedded")).unwrap();
    let conn = open(&fs, &clock);
    assert_eq!(value(&conn, "old").as_deref(), Some("old"));
    assert!(!names(&fs, "/data/WALs").contains(&"embedded".to_owned()));
    assert!(
        names(&fs, "/data/oldWALs").contains(&"embedded".to_owned()),
        "archived under its old name"
    );
    conn.close().unwrap();
}

#[test]
fn a_live_servers_directory_is_left_alone() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(5_000));
    let server = crashed_with(&fs, &clock, &["theirs"]);
    // That server still lives (another process holding its lock, as in a cluster): its
    // log is its own.
    let lock = fs
        .lock(&PathBuf::from("/data/WALs").join(&server).join("LOCK"))
        .unwrap();
    let conn = open(&fs, &clock);
    assert_eq!(value(&conn, "theirs"), None);
    assert!(names(&fs, "/data/WALs").contains(&server));
    conn.close().unwrap();
    // Once it is gone, the next open replays it.
    drop(lock);
    let conn = open(&fs, &clock);
    assert_eq!(value(&conn, "theirs").as_deref(), Some("theirs"));
    assert!(!names(&fs, "/data/WALs").contains(&server));
    conn.close().unwrap();
}
