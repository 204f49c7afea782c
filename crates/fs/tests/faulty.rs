//! The fault-injecting file system: a killed process loses its buffers, a crash loses what was
//! not synced, and each armed fault fires once, at its call.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::path::Path;

use basalt_fs::{Fault, FaultyFs, FileSystem, WritableFile, read_all};

fn setup() -> (FaultyFs, Box<dyn WritableFile>) {
    let fs = FaultyFs::new();
    fs.create_dir_all(Path::new("/d")).unwrap();
    let file = fs.create(Path::new("/d/f")).unwrap();
    fs.sync_dir(Path::new("/d")).unwrap();
    (fs, file)
}

fn contents(fs: &FaultyFs) -> Vec<u8> {
    read_all(fs, Path::new("/d/f")).unwrap().to_vec()
}

#[test]
fn a_killed_process_loses_only_what_it_had_not_flushed() {
    let (fs, mut f) = setup();
    f.append(b"flushed ").unwrap();
    f.flush().unwrap();
    f.append(b"buffered").unwrap();
    assert_eq!(f.len(), 16);
    assert_eq!(
        contents(&fs),
        b"flushed ",
        "unflushed bytes are not in the OS yet"
    );
    let dead_handle = fs.clone();
    fs.kill();
    assert!(f.append(b"x").is_err(), "the dead process's writer is dead");
    assert!(f.flush().is_err());
    assert!(
        dead_handle.create(Path::new("/d/g")).is_err()
            && dead_handle.delete(Path::new("/d/f")).is_err(),
        "the dead process's file system handle changes nothing"
    );
    assert!(
        fs.create(Path::new("/d/g")).is_ok(),
        "the killing handle lives on"
    );
    drop(f);
    assert_eq!(contents(&fs), b"flushed ");
}

#[test]
fn dropping_a_live_writer_flushes_it() {
    let (fs, mut f) = setup();
    f.append(b"abc").unwrap();
    drop(f);
    assert_eq!(contents(&fs), b"abc");
}

#[test]
fn a_crash_keeps_only_synced_bytes() {
    let (fs, mut f) = setup();
    f.append(b"synced ").unwrap();
    f.sync().unwrap();
    f.append(b"flushed").unwrap();
    f.flush().unwrap();
    fs.crash();
    drop(f);
    assert_eq!(contents(&fs), b"synced ");
}

#[test]
fn a_failed_write_writes_nothing_and_fires_once() {
    let (fs, mut f) = setup();
    fs.arm(Fault::FailWrite { n: 1 });
    f.append(b"one ").unwrap();
    f.flush().unwrap();
    f.append(b"two ").unwrap();
    let err = f.flush().unwrap_err();
    assert!(
        err.to_string().contains("injected fault") && err.to_string().contains("/d/f"),
        "{err}"
    );
    assert_eq!(contents(&fs), b"one ");
    assert_eq!(fs.fired(), 1);
    // Disarmed once fired: the bytes still pending go out with the next flush.
    f.flush().unwrap();
    assert_eq!(contents(&fs), b"one two ");
}

#[test]
fn a_torn_write_leaves_a_prefix() {
    let (fs, mut f) = setup();
    fs.arm(Fault::TearWrite { n: 0, keep: 3 });
    f.append(b"abcdef").unwrap();
    assert!(f.sync().is_err());
    assert_eq!(contents(&fs), b"abc");
    fs.crash();
    assert_eq!(contents(&fs), b"", "a torn write was never synced");
}

#[test]
fn a_failed_sync_writes_but_does_not_make_durable() {
    let (fs, mut f) = setup();
    fs.arm(Fault::FailSync { n: 1 });
    f.append(b"a").unwrap();
    f.flush().unwrap(); // not a sync: does not count
    f.sync().unwrap();
    f.append(b"b").unwrap();
    assert!(f.sync().is_err());
    assert_eq!(contents(&fs), b"ab", "the bytes reached the OS");
    fs.crash();
    assert_eq!(
        contents(&fs),
        b"a",
        "but only the first sync made them durable"
    );
}

#[test]
fn random_faults_are_reproducible_and_of_every_kind() {
    let faults: Vec<Fault> = (0..60).map(|seed| Fault::random(seed, 10)).collect();
    assert_eq!(
        faults,
        (0..60)
            .map(|seed| Fault::random(seed, 10))
            .collect::<Vec<_>>()
    );
    assert!(faults.iter().any(|f| matches!(f, Fault::FailWrite { .. })));
    assert!(faults.iter().any(|f| matches!(f, Fault::TearWrite { .. })));
    assert!(faults.iter().any(|f| matches!(f, Fault::FailSync { .. })));
    assert!(faults.iter().all(|f| match *f {
        Fault::FailWrite { n } | Fault::FailSync { n } => n < 10,
        Fault::TearWrite { n, keep } => n < 10 && keep < 64,
        Fault::Die { .. } => false,
    }));
}

#[test]
fn die_kills_every_handle_at_the_chosen_step() {
    let fs = FaultyFs::new();
    let engine = fs.clone();
    fs.arm(Fault::Die { n: 2 });
    engine.create_dir_all(Path::new("/d")).unwrap(); // step 0
    let mut w = engine.create(Path::new("/d/f")).unwrap(); // step 1
    w.append(b"abc").unwrap();
    assert!(w.sync().is_err(), "step 2 dies");
    assert!(engine.create(Path::new("/d/g")).is_err());
    assert!(
        fs.create(Path::new("/d/g")).is_err(),
        "the test's handle died too"
    );
    assert_eq!(fs.fired(), 1);
    fs.kill();
    fs.create(Path::new("/d/g")).unwrap();
    assert_eq!(
        basalt_fs::read_all(&fs, Path::new("/d/f")).unwrap().len(),
        0
    );
}
