//! The write-ahead log: acknowledged writes survive a killed process (SYNC_WAL) or a power loss
//! (FSYNC_WAL), recovery is idempotent, and a segment damaged in the middle stops the open.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, Durability, Get, ManualClock, Put, TableDescriptor,
};
use basalt_fs::{FaultyFs, FileSystem};

fn open(fs: &FaultyFs, clock: &Arc<ManualClock>) -> Connection {
    Connection::builder()
        .clock(clock.clone())
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .open()
        .expect("open data directory")
}

fn create(conn: &Connection, durability: Durability) {
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_durability(durability);
    conn.admin().create_table(desc).unwrap();
}

fn value(conn: &Connection, row: &str) -> Option<String> {
    let t = conn.table("t").unwrap();
    let r = t.get(&Get::new(row.to_owned())).unwrap();
    r.value(b"cf", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

/// The server directories under `WALs/` (`host,port,start code`).
fn server_dirs(fs: &FaultyFs) -> Vec<PathBuf> {
    let root = Path::new("/data/WALs");
    fs.list(root).map_or_else(
        |_| Vec::new(),
        |names| names.iter().map(|n| root.join(n)).collect(),
    )
}

/// Segments in the server directories.
fn live_segments(fs: &FaultyFs) -> usize {
    server_dirs(fs)
        .iter()
        .map(|d| basalt_wal::segments_in(fs, d).unwrap().len())
        .sum()
}

/// Segments in the archive, `oldWALs/<server>/`.
fn archived_segments(fs: &FaultyFs) -> usize {
    let root = Path::new("/data/oldWALs");
    fs.list(root).map_or(0, |names| {
        names
            .iter()
            .map(|n| basalt_wal::segments_in(fs, &root.join(n)).unwrap().len())
            .sum()
    })
}

#[test]
fn a_killed_process_loses_no_acknowledged_write() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(&fs, &clock);
    create(&conn, Durability::UseDefault);
    let t = conn.table("t").unwrap();
    t.put(&Put::new("flushed").add_column("cf", "q", "f"))
        .unwrap();
    conn.admin().flush(t.name()).unwrap();
    t.put(&Put::new("sync").add_column_at("cf", "q", 5, "s"))
        .unwrap();
    t.put(
        &Put::new("fsync")
            .add_column("cf", "q", "fs")
            .with_durability(Durability::FsyncWal),
    )
    .unwrap();
    t.put(
        &Put::new("skip")
            .add_column("cf", "q", "lost")
            .with_durability(Durability::SkipWal),
    )
    .unwrap();
    fs.kill();
    drop((t, conn));

    let conn = open(&fs, &clock);
    assert_eq!(value(&conn, "flushed").as_deref(), Some("f"));
    assert_eq!(value(&conn, "sync").as_deref(), Some("s"));
    assert_eq!(value(&conn, "fsync").as_deref(), Some("fs"));
    assert_eq!(
        value(&conn, "skip"),
        None,
        "SKIP_WAL writes die with the process"
    );
    // Replayed edits keep their sequence ids, and new writes get higher ones: a new write at
    // the same timestamp wins.
    let t = conn.table("t").unwrap();
    t.put(&Put::new("sync").add_column_at("cf", "q", 5, "newer"))
        .unwrap();
    assert_eq!(value(&conn, "sync").as_deref(), Some("newer"));
    // Recovery flushed what it replayed, archived the old segment under the old server's
    // name, and deleted that server's directory.
    assert_eq!(server_dirs(&fs).len(), 1, "{:?}", server_dirs(&fs));
    assert_eq!(live_segments(&fs), 1);
    assert_eq!(archived_segments(&fs), 1);
    assert_eq!(fs.list(Path::new("/data/oldWALs")).unwrap().len(), 1);
}

#[test]
fn a_power_loss_keeps_fsync_wal_writes() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(&fs, &clock);
    create(&conn, Durability::FsyncWal);
    let t = conn.table("t").unwrap();
    for i in 0..20 {
        t.put(&Put::new(format!("r{i:02}")).add_column("cf", "q", format!("v{i}")))
            .unwrap();
    }
    fs.crash();
    drop((t, conn));
    let conn = open(&fs, &clock);
    for i in 0..20 {
        assert_eq!(value(&conn, &format!("r{i:02}")), Some(format!("v{i}")));
    }
}

#[test]
fn recovery_runs_again_after_a_crash_during_recovery() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(&fs, &clock);
    create(&conn, Durability::FsyncWal);
    let t = conn.table("t").unwrap();
    t.put(&Put::new("a").add_column_at("cf", "q", 1, "1"))
        .unwrap();
    t.put(&Put::new("a").add_column_at("cf", "q", 2, "2"))
        .unwrap();
    fs.crash();
    drop((t, conn));
    // The first recovery dies before it archives anything: its flush fails.
    fs.arm(basalt_fs::Fault::FailSync { n: 1 });
    assert!(
        Connection::builder()
            .clock(clock.clone())
            .file_system(Arc::new(fs.clone()))
            .root("/data")
            .open()
            .is_err()
    );
    fs.crash();
    let conn = open(&fs, &clock);
    let t = conn.table("t").unwrap();
    let r = t.get(&Get::new("a").read_all_versions()).unwrap();
    let versions: Vec<i64> = r.cells.iter().map(|c| c.timestamp).collect();
    assert_eq!(versions, [2, 1], "each edit once, none lost");
}

#[test]
fn a_segment_damaged_in_the_middle_stops_the_open() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(&fs, &clock);
    create(&conn, Durability::FsyncWal);
    let t = conn.table("t").unwrap();
    for i in 0..5 {
        t.put(&Put::new(format!("r{i}")).add_column("cf", "q", "v"))
            .unwrap();
    }
    fs.crash();
    drop((t, conn));
    let [dir] = &server_dirs(&fs)[..] else {
        panic!("one server directory: {:?}", server_dirs(&fs))
    };
    let path = basalt_wal::segments_in(&fs, dir).unwrap().pop().unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let mut bytes = basalt_fs::read_all(&fs, &path).unwrap().to_vec();
    // Damage the record of the third put (the segment also holds the catalog's edits).
    let contents = basalt_wal::read_segment_file(&fs, &path).unwrap();
    let (at, _) = contents
        .edits
        .iter()
        .find(|(_, e)| e.cells.iter().any(|c| c.row() == b"r2"))
        .unwrap();
    bytes[*at as usize + 16] ^= 0xff;
    fs.delete(&path).unwrap();
    let mut w = fs.create(&path).unwrap();
    w.append(&bytes).unwrap();
    w.sync().unwrap();
    drop(w);
    let err = Connection::builder()
        .clock(clock.clone())
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .open()
        .expect_err("a corrupt segment must stop the open");
    let message = err.to_string();
    assert!(
        message.contains(&name) && message.contains("corrupt at offset"),
        "{message}"
    );

    // Told to skip the damage, the open replays the edits before it and goes on.
    let conn = Connection::builder()
        .clock(clock.clone())
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .skip_corrupt_wal(true)
        .open()
        .unwrap();
    assert_eq!(value(&conn, "r0").as_deref(), Some("v"));
    assert_eq!(value(&conn, "r4"), None, "edits after the damage are lost");
    // The damaged segment (and the empty one the refused open started) are archived, and
    // both servers' directories gone.
    assert_eq!(server_dirs(&fs).len(), 1, "{:?}", server_dirs(&fs));
    assert_eq!(live_segments(&fs), 1);
    assert_eq!(archived_segments(&fs), 2);
}

/// Found by the crash test: a flush that retried a failed flush's snapshot told the log (and
/// `.seqid`) that everything written so far was in store files, though writes made after the
/// failure were still only in the memstore; after a kill, recovery skipped them.
#[test]
fn a_retried_flush_does_not_claim_writes_made_after_the_failed_one() {
    let fs = FaultyFs::new();
    let clock = Arc::new(ManualClock::new(1_000));
    let conn = open(&fs, &clock);
    create(&conn, Durability::UseDefault);
    let t = conn.table("t").unwrap();
    t.put(&Put::new("before").add_column("cf", "q", "1"))
        .unwrap();
    fs.arm(basalt_fs::Fault::FailSync { n: 0 });
    assert!(conn.admin().flush(t.name()).is_err());
    t.put(&Put::new("after").add_column("cf", "q", "2"))
        .unwrap();
    conn.admin().flush(t.name()).unwrap();
    fs.kill();
    drop((t, conn));
    let conn = open(&fs, &clock);
    assert_eq!(value(&conn, "before").as_deref(), Some("1"));
    assert_eq!(value(&conn, "after").as_deref(), Some("2"));
}

/// A connection on `fs` with the log configured as `wal`, and the named tables (family `cf`).
fn open_with_wal(fs: &FaultyFs, wal: basalt_embedded::WalConfig, tables: &[&str]) -> Connection {
    let conn = Connection::builder()
        .file_system(Arc::new(fs.clone()))
        .root("/data")
        .wal(wal)
        .open()
        .unwrap();
    for name in tables {
        let desc = TableDescriptor::named(name)
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("cf"));
        conn.admin().create_table(desc).unwrap();
    }
    conn
}

#[test]
fn too_many_segments_make_the_regions_keeping_the_oldest_flush() {
    let fs = FaultyFs::new();
    let conn = open_with_wal(
        &fs,
        basalt_embedded::WalConfig {
            roll_size: 2048,
            max_segments: 2,
            ..basalt_embedded::WalConfig::default()
        },
        &["idle", "busy"],
    );
    let idle = conn.table("idle").unwrap();
    idle.put(&Put::new("only").add_column("cf", "q", "v"))
        .unwrap();
    let busy = conn.table("busy").unwrap();
    for i in 0..200 {
        busy.put(&Put::new(format!("r{i:03}")).add_column("cf", "q", vec![b'v'; 100]))
            .unwrap();
    }
    assert!(live_segments(&fs) > 3, "the log should have rolled");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while live_segments(&fs) > 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "old segments were never freed"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(
        conn.admin().store_file_counts(idle.name()).unwrap(),
        [1],
        "the idle region was flushed to free the oldest segment"
    );
}

/// Archived segments do not pile up: the background worker deletes them once their time to
/// live (HBase's `hbase.master.logcleaner.ttl`) has passed.
#[test]
fn archived_segments_are_cleaned_after_their_time_to_live() {
    let fs = FaultyFs::new();
    let conn = open_with_wal(
        &fs,
        basalt_embedded::WalConfig {
            roll_size: 2048,
            archive_ttl: Some(std::time::Duration::from_millis(100)),
            ..basalt_embedded::WalConfig::default()
        },
        &["t"],
    );
    let t = conn.table("t").unwrap();
    for i in 0..100 {
        t.put(&Put::new(format!("r{i:03}")).add_column("cf", "q", vec![b'v'; 100]))
            .unwrap();
    }
    assert!(live_segments(&fs) > 2, "the log should have rolled");
    // Flushing every region (meta included) lets the log archive its rolled segments.
    conn.admin().flush(t.name()).unwrap();
    conn.admin()
        .flush(&basalt_embedded::TableName::parse("hbase:meta").unwrap())
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while live_segments(&fs) > 1 || archived_segments(&fs) > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "segments left: {} in WALs, {} in oldWALs",
            live_segments(&fs),
            archived_segments(&fs)
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A flush writes one file per family: dying after some families' files and before
/// others' (then a power loss) must lose nothing. Each family replays the edits its own files
/// do not hold, not only those after the newest file of any family. Swept over every step of
/// the flush.
#[test]
fn a_flush_that_dies_between_families_loses_nothing() {
    for n in 0..40 {
        let fs = FaultyFs::new();
        let clock = Arc::new(ManualClock::new(1_000));
        let conn = open(&fs, &clock);
        let desc = TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("a"))
            .with_family(ColumnFamilyDescriptor::new("b"))
            .with_durability(Durability::FsyncWal);
        conn.admin().create_table(desc).unwrap();
        let t = conn.table("t").unwrap();
        for i in 0..20 {
            t.put(
                &Put::new(format!("r{i:02}"))
                    .add_column("a", "q", "a")
                    .add_column("b", "q", "b"),
            )
            .unwrap();
        }
        fs.arm(basalt_fs::Fault::Die { n });
        let flushed = conn.admin().flush(&"t".parse().unwrap());
        let fired = fs.fired() > 0;
        fs.disarm();
        fs.crash();
        drop((t, conn));
        let conn = open(&fs, &clock);
        let t = conn.table("t").unwrap();
        for i in 0..20 {
            let r = t.get(&Get::new(format!("r{i:02}"))).unwrap();
            assert_eq!(
                (r.value(b"a", b"q"), r.value(b"b", b"q")),
                (Some(&b"a"[..]), Some(&b"b"[..])),
                "row {i} after dying at step {n} of a flush ({flushed:?})"
            );
        }
        conn.close().unwrap();
        if !fired {
            return;
        }
    }
    panic!("the flush took more than 40 steps: the sweep missed its end");
}
