//! `ObjectFs` against a real S3-compatible server (moto's, started by `tests/s3/start.sh`):
//! store files' bytes live in objects, their names in pointer files on the directory.

#![cfg(feature = "object-store")]

use std::path::Path;
use std::time::{Duration, Instant};

use basalt_fs::{FileSystem, FsError, ObjectFs, S3TestServer};

fn server() -> S3TestServer {
    S3TestServer::start().expect("S3 test server")
}

fn connect(server: &S3TestServer, prefix: &str, delete_delay: Duration) -> ObjectFs {
    ObjectFs::connect(server.config(prefix, delete_delay)).expect("connect")
}

fn write_bulk(fs: &dyn FileSystem, path: &Path, bytes: &[u8]) {
    let mut w = fs.create_bulk(path).expect("create");
    for piece in bytes.chunks(70_000) {
        w.append(piece).expect("append");
    }
    w.sync().expect("sync");
}

/// Waits (bounded) until the store holds `n` objects.
fn wait_for_objects(fs: &ObjectFs, n: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let keys = fs.object_keys().expect("list");
        if keys.len() == n || Instant::now() > deadline {
            return keys;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn store_files_live_in_objects_and_everything_else_on_the_directory() {
    let s3 = server();
    let dir = tempfile::tempdir().unwrap();
    let fs = connect(&s3, "a", Duration::ZERO);
    let tmp = dir.path().join("000001.tmp");
    let bytes: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    write_bulk(&fs, &tmp, &bytes);
    let path = dir.path().join("000001");
    fs.rename(&tmp, &path).unwrap();
    // The directory holds a small pointer; the store, the bytes.
    let on_disk = std::fs::read(&path).unwrap();
    assert!(on_disk.starts_with(b"basalt-object 1\n"), "{on_disk:?}");
    assert!(on_disk.len() < 200);
    let keys = fs.object_keys().unwrap();
    assert_eq!(keys.len(), 1, "{keys:?}");
    assert!(
        keys[0].ends_with("-000001"),
        "named after the file: {keys:?}"
    );
    let r = fs.open(&path).unwrap();
    assert_eq!(r.len(), bytes.len() as u64);
    assert_eq!(&r.read_at(0, 10).unwrap()[..], &bytes[..10]);
    assert_eq!(
        &r.read_at(123_456, 7_000).unwrap()[..],
        &bytes[123_456..130_456]
    );
    assert!(matches!(
        r.read_at(299_990, 20).unwrap_err(),
        FsError::ShortRead {
            offset: 299_990,
            wanted: 20,
            file_len: 300_000,
            ..
        }
    ));
    let stats = fs.stats();
    assert_eq!((stats.puts, stats.put_bytes), (1, 300_000));
    assert_eq!((stats.gets, stats.got_bytes), (2, 7_010));
    // Ordinary files (logs, catalog files) stay ordinary files.
    let mut w = fs.create(&dir.path().join("plain")).unwrap();
    w.append(b"local bytes").unwrap();
    w.sync().unwrap();
    assert_eq!(
        std::fs::read(dir.path().join("plain")).unwrap(),
        b"local bytes"
    );
    assert_eq!(
        &fs.open(&dir.path().join("plain"))
            .unwrap()
            .read_at(0, 5)
            .unwrap()[..],
        b"local"
    );
    assert_eq!(fs.object_keys().unwrap().len(), 1);
    assert_eq!(fs.list(dir.path()).unwrap(), vec!["000001", "plain"]);
}

#[test]
fn a_large_file_goes_up_in_parts() {
    let s3 = server();
    let dir = tempfile::tempdir().unwrap();
    let fs = connect(&s3, "big", Duration::ZERO);
    let bytes: Vec<u8> = (0..21_000_000u32).map(|i| (i % 249) as u8).collect();
    let path = dir.path().join("big");
    write_bulk(&fs, &path, &bytes);
    let r = fs.open(&path).unwrap();
    assert_eq!(r.len(), bytes.len() as u64);
    for at in [0usize, 8 << 20, (8 << 20) - 5, 20_999_000] {
        assert_eq!(
            &r.read_at(at as u64, 1000).unwrap()[..],
            &bytes[at..at + 1000],
            "at {at}"
        );
    }
}

#[test]
fn an_object_goes_with_its_last_name_after_the_delay() {
    let s3 = server();
    let dir = tempfile::tempdir().unwrap();
    let delay = Duration::from_millis(1500);
    let fs = connect(&s3, "links", delay);
    let first = dir.path().join("f1");
    write_bulk(&fs, &first, b"snapshotted bytes");
    // A snapshot's hard link shares the object.
    let second = dir.path().join("f2");
    fs.link(&first, &second).unwrap();
    fs.delete(&first).unwrap();
    assert_eq!(wait_for_objects(&fs, 1).len(), 1);
    assert_eq!(
        &fs.open(&second).unwrap().read_at(0, 11).unwrap()[..],
        b"snapshotted"
    );
    // A reader opened before the last name goes keeps reading for the delay.
    let reader = fs.open(&second).unwrap();
    let deleted = Instant::now();
    fs.delete(&second).unwrap();
    assert_eq!(&reader.read_at(12, 5).unwrap()[..], b"bytes");
    assert!(deleted.elapsed() < delay, "the read came within the delay");
    assert!(wait_for_objects(&fs, 0).is_empty(), "the object went");
    assert!(deleted.elapsed() >= delay, "not before the delay");
    let gone = reader.read_at(0, 4).unwrap_err().to_string();
    assert!(gone.contains("gone from the store"), "{gone}");
    assert_eq!(fs.stats().deletes, 1);
}

#[test]
fn renames_over_a_file_and_directory_deletes_forget_their_objects() {
    let s3 = server();
    let dir = tempfile::tempdir().unwrap();
    let fs = connect(&s3, "dirs", Duration::ZERO);
    let region = dir.path().join("region");
    let family = region.join("f");
    fs.create_dir_all(&family).unwrap();
    for name in ["a", "b", "c"] {
        write_bulk(&fs, &family.join(name), name.as_bytes());
    }
    std::fs::write(region.join(".regioninfo"), b"PBUF").unwrap();
    assert_eq!(fs.object_keys().unwrap().len(), 3);
    // The renamed-over file's object goes; the renamed one's stays.
    fs.rename(&family.join("a"), &family.join("b")).unwrap();
    assert_eq!(wait_for_objects(&fs, 2).len(), 2);
    assert_eq!(
        &fs.open(&family.join("b")).unwrap().read_at(0, 1).unwrap()[..],
        b"a"
    );
    // A renamed directory keeps its pointers, and so its objects.
    let moved = dir.path().join("moved");
    fs.rename(&region, &moved).unwrap();
    assert_eq!(
        &fs.open(&moved.join("f/c")).unwrap().read_at(0, 1).unwrap()[..],
        b"c"
    );
    fs.delete_dir_all(&moved).unwrap();
    assert!(wait_for_objects(&fs, 0).is_empty());
    assert!(!fs.exists(&moved).unwrap());
}

#[test]
fn unfinished_files_leave_nothing_and_finished_ones_take_no_more() {
    let s3 = server();
    let dir = tempfile::tempdir().unwrap();
    let fs = connect(&s3, "abort", Duration::ZERO);
    // Dropped before its sync (a flush that failed, or a crash): no object; the empty name
    // is what the engine deletes, as it deletes a `.tmp` left by a crash.
    let mut w = fs.create_bulk(&dir.path().join("x.tmp")).unwrap();
    w.append(&vec![1u8; 9 << 20]).unwrap(); // a multipart upload under way
    drop(w);
    fs.delete(&dir.path().join("x.tmp")).unwrap();
    assert!(fs.create_bulk(&dir.path().join("y")).is_ok());
    assert!(matches!(
        fs.create_bulk(&dir.path().join("y")).unwrap_err(),
        FsError::AlreadyExists(_)
    ));
    let mut w = fs.create_bulk(&dir.path().join("z")).unwrap();
    w.append(b"once").unwrap();
    w.sync().unwrap();
    let err = w.append(b"more").unwrap_err().to_string();
    assert!(err.contains("written once"), "{err}");
    assert_eq!(fs.object_keys().unwrap().len(), 1);
}

#[test]
fn a_store_that_does_not_answer_is_named() {
    let s3 = server();
    let mut config = s3.config("x", Duration::ZERO);
    config.bucket = "no-such-bucket".into();
    let err = ObjectFs::connect(config).unwrap_err().to_string();
    assert!(err.contains("s3://no-such-bucket/x/"), "{err}");
    let mut config = s3.config("x", Duration::ZERO);
    config.endpoint = Some("http://127.0.0.1:9".into());
    let err = ObjectFs::connect(config).unwrap_err().to_string();
    assert!(err.contains("127.0.0.1:9"), "{err}");
}
