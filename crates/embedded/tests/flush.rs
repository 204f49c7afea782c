//! Flushes the server decides on: at a region's flush size, and writers held back (then
//! refused) while the server's memstores are over their budget. (Flushes and reads across
//! memstores and files: the region crate's `flush.rs`.)

mod support;

use basalt_embedded::{ColumnFamilyDescriptor, Put, Scan, TableDescriptor};
use support::{connection_at, create_with, scan_rows};

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
    use basalt_embedded::{Connection, Error};
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
        .with_durability(basalt_embedded::Durability::SkipWal);
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
