//! The server's log: durability levels over kills and crashes, group commit, failures that
//! refuse further writes, rolling and archiving.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_common::{Cell, Durability};
use basalt_fs::{Fault, FaultyFs, FileSystem, LocalFs};
use basalt_wal::{SegmentEnd, Wal, WalConfig, WalEdit, read_segment_file, segments_in};

fn edit(region: &str, seq_id: u64) -> WalEdit {
    WalEdit {
        region: region.into(),
        table: "t".into(),
        seq_id,
        write_time_ms: 0,
        origin: Default::default(),
        cells: vec![
            Cell::put(format!("row{seq_id}").as_bytes(), b"cf", b"q", 1, &[7; 40])
                .with_seq_id(seq_id),
        ],
    }
}

fn open(fs: &FaultyFs, config: WalConfig) -> Arc<Wal> {
    Wal::create(
        Arc::new(fs.clone()),
        Path::new("/r/WALs/s1"),
        Path::new("/r/oldWALs"),
        config,
    )
    .unwrap()
}

/// A log on the local disk under `dir` (`WALs/s1`, archive `oldWALs`).
fn open_local(dir: &Path, config: WalConfig) -> Arc<Wal> {
    Wal::create(
        Arc::new(LocalFs),
        &dir.join("WALs/s1"),
        &dir.join("oldWALs"),
        config,
    )
    .unwrap()
}

/// Sequence ids readable from every segment in the log directory, in order.
fn logged(fs: &FaultyFs) -> Vec<u64> {
    let mut seqs = Vec::new();
    for seg in segments_in(fs, Path::new("/r/WALs/s1")).unwrap() {
        let read = read_segment_file(fs, &seg).unwrap();
        seqs.extend(read.edits.iter().map(|(_, e)| e.seq_id));
    }
    seqs
}

#[test]
fn each_durability_level_survives_what_it_promises() {
    let fs = FaultyFs::new();
    // No background write of the ASYNC_WAL append while the test looks.
    let wal = open(
        &fs,
        WalConfig {
            async_interval: Duration::from_secs(3600),
            ..WalConfig::default()
        },
    );
    wal.append(&edit("r1", 1), Durability::FsyncWal).unwrap();
    wal.append(&edit("r1", 2), Durability::SyncWal).unwrap();
    wal.append(&edit("r1", 3), Durability::SkipWal).unwrap();
    wal.append(&edit("r1", 4), Durability::AsyncWal).unwrap();
    assert_eq!(
        logged(&fs),
        [1, 2],
        "SKIP_WAL logs nothing; ASYNC_WAL is not written yet"
    );

    // The process dies: what reached the operating system stays.
    let killed = fs.clone();
    killed.kill();
    assert_eq!(logged(&killed), [1, 2]);
    // The machine dies: only what was synced stays.
    fs.crash();
    assert_eq!(logged(&fs), [1]);
}

#[test]
fn async_appends_are_written_in_the_background() {
    let fs = FaultyFs::new();
    let wal = open(
        &fs,
        WalConfig {
            async_interval: Duration::from_millis(20),
            ..WalConfig::default()
        },
    );
    wal.append(&edit("r1", 1), Durability::AsyncWal).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while logged(&fs).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the async append was never written"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(logged(&fs), [1]);
}

#[test]
fn concurrent_fsync_appends_share_syncs() {
    let fs = FaultyFs::new();
    fs.set_sync_delay(Duration::from_millis(5));
    let wal = open(&fs, WalConfig::default());
    let before = fs.sync_count();
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let wal = Arc::clone(&wal);
            std::thread::spawn(move || {
                for i in 0..10 {
                    wal.append(&edit("r1", 1 + t * 10 + i), Durability::FsyncWal)
                        .unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let syncs = fs.sync_count() - before;
    let mut seqs = logged(&fs);
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=80).collect::<Vec<_>>());
    // Eight writers, each waiting 5 ms per sync: without group commit this is 80 syncs.
    assert!(syncs <= 40, "{syncs} syncs for 80 appends");
    fs.crash();
    assert_eq!(
        logged(&fs).len(),
        80,
        "every acknowledged FSYNC_WAL append survives a crash"
    );
}

#[test]
fn a_failed_sync_fails_its_appends_and_refuses_later_ones() {
    for fault in [
        Fault::FailSync { n: 0 },
        Fault::FailWrite { n: 0 },
        Fault::TearWrite { n: 0, keep: 10 },
    ] {
        let fs = FaultyFs::new();
        let wal = open(&fs, WalConfig::default());
        wal.append(&edit("r1", 1), Durability::FsyncWal).unwrap();
        fs.arm(fault);
        let err = wal
            .append(&edit("r1", 2), Durability::FsyncWal)
            .unwrap_err();
        assert!(
            err.to_string().contains("injected fault"),
            "{fault:?}: {err}"
        );
        let err = wal.append(&edit("r1", 3), Durability::SyncWal).unwrap_err();
        assert!(
            err.to_string().contains("refuses writes"),
            "{fault:?}: {err}"
        );
        fs.crash();
        assert_eq!(logged(&fs), [1], "{fault:?}");
    }
}

#[test]
fn segments_roll_and_are_archived_once_every_region_flushed_past_them() {
    let fs = FaultyFs::new();
    let wal = open(
        &fs,
        WalConfig {
            roll_size: 400,
            ..WalConfig::default()
        },
    );
    let first = wal.current_segment();
    let mut seq = 0;
    while wal.rolled_segments().len() < 2 {
        seq += 1;
        let region = if seq % 2 == 0 { "even" } else { "odd" };
        wal.append(&edit(region, seq), Durability::SyncWal).unwrap();
        assert!(seq < 100, "the log never rolled");
    }
    let rolled = wal.rolled_segments();
    assert_eq!(rolled[0], first);
    assert_ne!(wal.current_segment(), first);
    let mut all = logged(&fs);
    all.sort_unstable();
    assert_eq!(all, (1..=seq).collect::<Vec<_>>(), "rolling loses nothing");

    // One region flushed everything: the other still needs every rolled segment.
    wal.region_flushed("even", seq).unwrap();
    assert_eq!(wal.rolled_segments(), rolled);
    wal.region_flushed("odd", seq).unwrap();
    assert!(wal.rolled_segments().is_empty());
    // Archived by the server that wrote them, under its name.
    assert_eq!(
        fs.list(Path::new("/r/oldWALs")).unwrap(),
        ["s1"],
        "one directory per server"
    );
    let archived: Vec<PathBuf> = fs
        .list(Path::new("/r/oldWALs/s1"))
        .unwrap()
        .into_iter()
        .map(PathBuf::from)
        .collect();
    assert_eq!(archived.len(), 2);
    assert_eq!(
        segments_in(&fs, Path::new("/r/WALs/s1")).unwrap(),
        [wal.current_segment()]
    );
}

#[test]
fn a_new_log_starts_after_the_segments_already_there() {
    let fs = FaultyFs::new();
    let first = open(&fs, WalConfig::default());
    first.append(&edit("r1", 1), Durability::SyncWal).unwrap();
    first.close().unwrap();
    let second = open(&fs, WalConfig::default());
    let segments = segments_in(&fs, Path::new("/r/WALs/s1")).unwrap();
    assert_eq!(
        segments,
        [first.current_segment(), second.current_segment()]
    );
    second.archive(&segments[..1]).unwrap();
    assert_eq!(
        segments_in(&fs, Path::new("/r/WALs/s1")).unwrap(),
        [second.current_segment()]
    );
}

/// Archived segments are deleted once their time to live has passed (HBase's log cleaner),
/// including those an earlier run archived; within it, and with no time to live, they stay.
#[test]
fn archived_segments_are_deleted_after_their_time_to_live() {
    let fs = FaultyFs::new();
    let archived = |fs: &FaultyFs| segments_in(fs, Path::new("/r/oldWALs/s1")).unwrap().len();
    let keep = open(&fs, WalConfig::default());
    keep.append(&edit("r1", 1), Durability::SyncWal).unwrap();
    keep.close().unwrap();
    let forever = open(
        &fs,
        WalConfig {
            archive_ttl: None,
            ..WalConfig::default()
        },
    );
    let left = segments_in(&fs, Path::new("/r/WALs/s1")).unwrap();
    forever.archive(&left[..1]).unwrap();
    assert_eq!(forever.clean_archive().unwrap(), 0);
    assert_eq!(
        keep.clean_archive().unwrap(),
        0,
        "ten minutes have not passed"
    );
    assert_eq!(archived(&fs), 1);

    // A later log finds the archived segment and gives it its time to live from its start.
    let short = open(
        &fs,
        WalConfig {
            archive_ttl: Some(Duration::from_millis(50)),
            ..WalConfig::default()
        },
    );
    assert_eq!(short.clean_archive().unwrap(), 0);
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(short.clean_archive().unwrap(), 1);
    assert_eq!(archived(&fs), 0);
    // And one it archives itself.
    let left = segments_in(&fs, Path::new("/r/WALs/s1")).unwrap();
    short.archive(&left[..1]).unwrap();
    assert_eq!(archived(&fs), 1);
    std::thread::sleep(Duration::from_millis(60));
    assert_eq!(short.clean_archive().unwrap(), 1);
    assert_eq!(archived(&fs), 0);

    // Segments archived flat (before archives went by server) and another server's are
    // found too.
    fs.create_dir_all(Path::new("/r/oldWALs/s0")).unwrap();
    drop(
        fs.create(Path::new("/r/oldWALs/s0/wal.00000000000000000001"))
            .unwrap(),
    );
    drop(
        fs.create(Path::new("/r/oldWALs/wal.00000000000000000007"))
            .unwrap(),
    );
    let later = open(
        &fs,
        WalConfig {
            archive_ttl: Some(Duration::ZERO),
            ..WalConfig::default()
        },
    );
    assert_eq!(later.clean_archive().unwrap(), 2);
    assert!(
        segments_in(&fs, Path::new("/r/oldWALs"))
            .unwrap()
            .is_empty()
    );
    assert!(
        segments_in(&fs, Path::new("/r/oldWALs/s0"))
            .unwrap()
            .is_empty()
    );
}

/// A dead server's segments, archived by the server that replayed them, go under the dead
/// server's name: equal segment numbers of two servers never meet.
#[test]
fn another_servers_segments_are_archived_under_its_name() {
    let fs = FaultyFs::new();
    let dead = Wal::create(
        Arc::new(fs.clone()),
        Path::new("/r/WALs/s0"),
        Path::new("/r/oldWALs"),
        WalConfig::default(),
    )
    .unwrap();
    dead.append(&edit("r1", 1), Durability::SyncWal).unwrap();
    let theirs = dead.current_segment();
    drop(dead);
    let wal = open(&fs, WalConfig::default());
    let mine = wal.current_segment();
    assert_eq!(mine.file_name(), theirs.file_name(), "the same number");
    wal.archive(std::slice::from_ref(&theirs)).unwrap();
    assert!(!fs.exists(&theirs).unwrap());
    assert!(
        fs.exists(&Path::new("/r/oldWALs/s0").join(theirs.file_name().unwrap()))
            .unwrap()
    );
    assert!(fs.exists(&mine).unwrap());
}

/// On the local disk a segment is a reserved, memory-mapped file: a SYNC_WAL append is in
/// the file when it returns (no write call, no flush), so a process killed right after it
/// (here: the log is never closed or dropped) leaves every acknowledged edit readable,
/// followed by the reserve's zeros, which read as a torn tail.
#[test]
fn local_segments_hold_sync_wal_edits_of_a_killed_process() {
    let dir = tempfile::tempdir().unwrap();
    let wal = open_local(
        dir.path(),
        WalConfig {
            roll_size: 1 << 20,
            async_interval: Duration::from_secs(3600),
            ..WalConfig::default()
        },
    );
    for seq in 1..=100 {
        wal.append(&edit("r1", seq), Durability::SyncWal).unwrap();
    }
    let segment = wal.current_segment();
    std::mem::forget(wal);
    let file_len = std::fs::metadata(&segment).unwrap().len();
    assert_eq!(
        file_len,
        (1 << 20) + (1 << 17),
        "the segment's reserve is still there"
    );
    let read = read_segment_file(&LocalFs, &segment).unwrap();
    let seqs: Vec<u64> = read.edits.iter().map(|(_, e)| e.seq_id).collect();
    assert_eq!(seqs, (1..=100).collect::<Vec<_>>());
    let SegmentEnd::Torn { offset, .. } = read.end else {
        panic!("expected a torn tail, got {:?}", read.end);
    };
    assert!(
        offset < file_len / 8,
        "the tail starts after the records, at {offset}"
    );
}

/// A log dropped without `close` lets go of its open segment at once, even with an hour
/// to go before its background thread would next write.
#[test]
fn a_dropped_log_cuts_its_open_segment_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let wal = open_local(
        dir.path(),
        WalConfig {
            async_interval: Duration::from_secs(3600),
            ..WalConfig::default()
        },
    );
    for seq in 1..=10 {
        wal.append(&edit("r1", seq), Durability::SyncWal).unwrap();
    }
    let segment = wal.current_segment();
    // Let the background thread start its wait first.
    std::thread::sleep(Duration::from_millis(50));
    drop(wal);
    let read = read_segment_file(&LocalFs, &segment).unwrap();
    assert_eq!(read.end, SegmentEnd::Clean);
    assert_eq!(read.edits.len(), 10);
}

/// A segment closed in the ordinary way is cut to its records: no zeros, a clean end.
#[test]
fn local_segments_end_cleanly_after_a_roll_and_a_drop() {
    let dir = tempfile::tempdir().unwrap();
    let wal_dir = dir.path().join("WALs/s1");
    let wal = open_local(
        dir.path(),
        WalConfig {
            roll_size: 4096,
            ..WalConfig::default()
        },
    );
    for seq in 1..=200 {
        wal.append(&edit("r1", seq), Durability::SyncWal).unwrap();
    }
    wal.close().unwrap();
    drop(wal);
    let mut seqs = Vec::new();
    let segments = segments_in(&LocalFs, &wal_dir).unwrap();
    assert!(segments.len() > 2, "{segments:?}");
    for seg in segments {
        let read = read_segment_file(&LocalFs, &seg).unwrap();
        assert_eq!(read.end, SegmentEnd::Clean, "{}", seg.display());
        seqs.extend(read.edits.iter().map(|(_, e)| e.seq_id));
    }
    assert_eq!(seqs, (1..=200).collect::<Vec<_>>());
}

/// A log fenced by rename (a cluster's region server): once its directory is renamed (the
/// master took the server for dead and splits its log), no write is acknowledged, and every
/// acknowledged one is in the renamed directory for the split to read.
#[test]
fn a_fenced_log_acknowledges_nothing_after_the_rename() {
    let dir = tempfile::tempdir().unwrap();
    let wal = open_local(
        dir.path(),
        WalConfig {
            fenced_by_rename: true,
            ..WalConfig::default()
        },
    );
    wal.append(&edit("r1", 1), Durability::SyncWal).unwrap();
    wal.append(&edit("r1", 2), Durability::FsyncWal).unwrap();
    let live = dir.path().join("WALs/s1");
    let splitting = dir.path().join("WALs/s1-splitting");
    std::fs::rename(&live, &splitting).unwrap();
    let e = wal.append(&edit("r1", 3), Durability::SyncWal).unwrap_err();
    assert!(e.to_string().contains("renamed"), "{e}");
    assert!(wal.append(&edit("r1", 4), Durability::SyncWal).is_err());
    let mut seen = Vec::new();
    for segment in segments_in(&LocalFs, &splitting).unwrap() {
        let read = read_segment_file(&LocalFs, &segment).unwrap();
        seen.extend(read.edits.iter().map(|(_, e)| e.seq_id));
    }
    // The acknowledged edits are there; the refused one may be too (it was written before
    // the check), and a split replays it harmlessly: its writer was told it failed.
    assert_eq!(&seen[..2], [1, 2]);
}

/// `wal_roll`: what was appended stays in the rolled segment, later appends go to a new one,
/// also while other threads append.
#[test]
fn a_roll_asked_for_starts_a_new_segment_and_loses_nothing() {
    let fs = FaultyFs::new();
    let wal = open(&fs, WalConfig::default());
    for s in 1..=5 {
        wal.append(&edit("a", s), Durability::SyncWal).unwrap();
    }
    let first = wal.current_segment();
    let new = wal.roll_now().unwrap();
    assert_ne!(new, first);
    assert_eq!(wal.rolled_segments(), vec![first]);
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let wal = &wal;
            scope.spawn(move || {
                for s in 0..50 {
                    wal.append(&edit("a", 100 + t * 50 + s), Durability::SyncWal)
                        .unwrap();
                }
            });
        }
        for _ in 0..3 {
            wal.roll_now().unwrap();
        }
    });
    let mut seqs = logged(&fs);
    seqs.sort_unstable();
    let mut want: Vec<u64> = (1..=5).chain(100..300).collect();
    want.sort_unstable();
    assert_eq!(seqs, want);
    assert_eq!(wal.rolled_segments().len(), 4);
}
