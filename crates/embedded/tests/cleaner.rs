//! The cleaner chore (`cleaner_chore_switch`, `cleaner_chore_run`): switched off, archived WAL
//! segments stay past their time to live; run by hand, they go; switched on, they go by
//! themselves.

use basalt_client::prelude::*;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_common::chore::Chore;
use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, DataClient, Put, ServerAdmin, TableDescriptor, TableName,
    WalConfig,
};

fn archived(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir.join("oldWALs"))
        .map(|servers| {
            servers
                .filter_map(Result::ok)
                .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten())
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn the_cleaner_switch_keeps_archived_segments_until_run_or_switched_on() {
    let dir = tempfile::tempdir().unwrap();
    // Small segments, archived once their regions flush, past their time to live at once.
    let conn = Connection::builder()
        .file_system(Arc::new(basalt_fs::LocalFs))
        .root(dir.path())
        .wal(WalConfig {
            roll_size: 8 << 10,
            archive_ttl: Some(Duration::ZERO),
            ..WalConfig::default()
        })
        .open()
        .unwrap();
    let t = TableName::parse("t").unwrap();
    conn.create_table(
        TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &[],
    )
    .unwrap();
    assert!(conn.chore_switch(Chore::Cleaner, false).unwrap());
    assert!(dir.path().join("cleaner.off").exists());
    for round in 0..4 {
        for i in 0..200 {
            conn.put(
                &t,
                &Put::new(format!("r{round}-{i:04}")).add_column("f", "q", vec![1u8; 100]),
            )
            .unwrap();
        }
        conn.flush(&t).unwrap();
    }
    // The background worker's ticks leave them while the switch is off.
    std::thread::sleep(Duration::from_millis(2500));
    let kept = archived(dir.path());
    assert!(kept >= 2, "only {kept} archived segments");

    assert!(conn.run_cleaner_chore().unwrap());
    assert_eq!(
        archived(dir.path()),
        0,
        "run by hand, the cleaner deletes them"
    );

    // Switched on again, new archived segments go by themselves.
    assert!(!conn.chore_switch(Chore::Cleaner, true).unwrap());
    assert!(!dir.path().join("cleaner.off").exists());
    for i in 0..400 {
        conn.put(
            &t,
            &Put::new(format!("s{i:04}")).add_column("f", "q", vec![2u8; 100]),
        )
        .unwrap();
    }
    conn.flush(&t).unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while archived(dir.path()) > 0 {
        assert!(Instant::now() < deadline, "never cleaned by itself");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn snapshots_past_their_ttl_are_refused_and_cleaned_up_while_the_switch_is_on() {
    let dir = tempfile::tempdir().unwrap();
    let settings = Arc::new(basalt_common::site::LiveSettings::default());
    settings
        .set(basalt_common::site::SNAPSHOT_CLEANUP_INTERVAL, 200)
        .unwrap();
    let conn = Connection::builder()
        .file_system(Arc::new(basalt_fs::LocalFs))
        .root(dir.path())
        .settings(settings)
        .open()
        .unwrap();
    let t = TableName::parse("t").unwrap();
    conn.create_table(
        TableDescriptor::named("t")
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &[],
    )
    .unwrap();
    conn.put(&t, &Put::new("r").add_column("f", "q", "v"))
        .unwrap();
    assert!(conn.chore_switch(Chore::SnapshotCleanup, false).unwrap());
    conn.snapshot_with_ttl("short", &t, 1).unwrap();
    conn.snapshot("kept", &t).unwrap();
    let names = |conn: &Connection| -> Vec<String> {
        conn.list_snapshots()
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect()
    };
    let listed = conn.list_snapshots().unwrap();
    assert_eq!(
        listed.iter().find(|s| s.name == "short").unwrap().ttl_secs,
        1
    );
    std::thread::sleep(Duration::from_millis(2500));
    // Expired, but the cleanup is off: still there, and refused.
    assert_eq!(names(&conn), ["kept", "short"]);
    let refused = conn
        .clone_snapshot("short", &TableName::parse("c").unwrap())
        .unwrap_err()
        .to_string();
    assert!(refused.contains("TTL has expired"), "{refused}");
    conn.clone_snapshot("kept", &TableName::parse("c").unwrap())
        .unwrap();

    assert!(!conn.chore_switch(Chore::SnapshotCleanup, true).unwrap());
    let deadline = Instant::now() + Duration::from_secs(20);
    while names(&conn) != ["kept"] {
        assert!(
            Instant::now() < deadline,
            "never cleaned: {:?}",
            names(&conn)
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
