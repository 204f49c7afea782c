//! The FileSystem contract, checked against every implementation.

use std::path::{Path, PathBuf};

use basalt_fs::{FaultyFs, FileSystem, FsError, LocalFs, MemFs};

/// Runs `check` against a local directory, an in-memory file system and a fault-injecting one
/// with no fault armed, each rooted at a fresh, existing directory.
fn on_every_fs(check: impl Fn(&dyn FileSystem, &Path)) {
    let dir = tempfile::tempdir().expect("temp dir");
    check(&LocalFs, dir.path());
    let mem = MemFs::new();
    let root = PathBuf::from("/data");
    mem.create_dir_all(&root).expect("mkdir");
    check(&mem, &root);
    let faulty = FaultyFs::new();
    faulty.create_dir_all(&root).expect("mkdir");
    check(&faulty, &root);
}

#[test]
fn write_then_read_at_offsets() {
    on_every_fs(|fs, root| {
        let path = root.join("f");
        let mut w = fs.create(&path).unwrap();
        w.append(b"hello ").unwrap();
        w.append(b"world").unwrap();
        assert_eq!(w.len(), 11);
        w.sync().unwrap();
        drop(w);
        let r = fs.open(&path).unwrap();
        assert_eq!(r.len(), 11);
        assert_eq!(&r.read_at(0, 5).unwrap()[..], b"hello");
        assert_eq!(&r.read_at(6, 5).unwrap()[..], b"world");
        assert_eq!(r.read_at(11, 0).unwrap().len(), 0);
    });
}

#[test]
fn short_reads_name_file_and_offset() {
    on_every_fs(|fs, root| {
        let path = root.join("short");
        let mut w = fs.create(&path).unwrap();
        w.append(b"0123456789").unwrap();
        w.flush().unwrap();
        drop(w);
        let r = fs.open(&path).unwrap();
        let err = r.read_at(8, 4).unwrap_err();
        assert!(matches!(
            err,
            FsError::ShortRead {
                offset: 8,
                wanted: 4,
                file_len: 10,
                ..
            }
        ));
        let text = err.to_string();
        assert!(
            text.contains("short") && text.contains("offset 8"),
            "{text}"
        );
        assert!(r.read_at(u64::MAX, 1).is_err());
    });
}

#[test]
fn create_refuses_existing_and_open_missing() {
    on_every_fs(|fs, root| {
        let path = root.join("once");
        drop(fs.create(&path).unwrap());
        assert!(matches!(fs.create(&path), Err(FsError::AlreadyExists(_))));
        assert!(matches!(
            fs.open(&root.join("nope")),
            Err(FsError::NotFound(_))
        ));
        assert!(matches!(
            fs.create(&root.join("no/dir/f")),
            Err(FsError::NotFound(_))
        ));
        assert!(
            !fs.exists(&path.join("child")).unwrap(),
            "nothing exists below a file"
        );
    });
}

#[test]
fn a_directory_renames_with_everything_below_it() {
    on_every_fs(|fs, root| {
        let from = root.join("region");
        fs.create_dir_all(&from.join("family")).unwrap();
        for path in [from.join("a"), from.join("family").join("file")] {
            let mut w = fs.create(&path).unwrap();
            w.append(b"bytes").unwrap();
            w.sync().unwrap();
        }
        let to = root.join("region.new");
        fs.rename(&from, &to).unwrap();
        fs.sync_dir(root).unwrap();
        assert!(!fs.exists(&from).unwrap());
        assert_eq!(fs.list(&to).unwrap(), ["a", "family"]);
        let moved = fs.open(&to.join("family").join("file")).unwrap();
        assert_eq!(&moved.read_at(0, 5).unwrap()[..], b"bytes");
        // Onto a directory that has entries: refused.
        fs.create_dir_all(&from).unwrap();
        assert!(fs.rename(&from, &to).is_err());
        assert!(fs.exists(&to.join("a")).unwrap());
    });
}

#[test]
fn rename_replaces_and_list_is_sorted() {
    on_every_fs(|fs, root| {
        let dir = root.join("d");
        fs.create_dir_all(&dir).unwrap();
        for name in ["b", "a", "c.tmp"] {
            let mut w = fs.create(&dir.join(name)).unwrap();
            w.append(name.as_bytes()).unwrap();
            w.flush().unwrap();
        }
        fs.rename(&dir.join("c.tmp"), &dir.join("a")).unwrap();
        assert_eq!(fs.list(&dir).unwrap(), ["a", "b"]);
        assert_eq!(
            &fs.open(&dir.join("a")).unwrap().read_at(0, 5).unwrap()[..],
            b"c.tmp"
        );
        fs.delete(&dir.join("b")).unwrap();
        assert!(!fs.exists(&dir.join("b")).unwrap());
        assert!(matches!(
            fs.delete(&dir.join("b")),
            Err(FsError::NotFound(_))
        ));
        fs.sync_dir(&dir).unwrap();
        fs.delete_dir_all(&dir).unwrap();
        assert!(!fs.exists(&dir).unwrap());
    });
}

#[test]
fn lock_is_exclusive_until_dropped() {
    on_every_fs(|fs, root| {
        let path = root.join("LOCK");
        let held = fs.lock(&path).unwrap();
        assert!(matches!(fs.lock(&path), Err(FsError::Locked(_))));
        drop(held);
        assert!(fs.lock(&path).is_ok());
    });
}

#[test]
fn mem_fs_root_exists() {
    let fs = MemFs::new();
    drop(fs.create(std::path::Path::new("/top-level")).unwrap());
    assert!(fs.exists(std::path::Path::new("/top-level")).unwrap());
}

#[test]
fn crash_keeps_synced_bytes_and_synced_entries() {
    let fs = MemFs::new();
    let dir = PathBuf::from("/root/wal");
    fs.create_dir_all(&dir).unwrap();
    let mut w = fs.create(&dir.join("seg1")).unwrap();
    w.append(b"acked").unwrap();
    w.sync().unwrap();
    w.append(b"-lost").unwrap();
    w.flush().unwrap();
    fs.sync_dir(&dir).unwrap();
    drop(fs.create(&dir.join("never-synced")).unwrap());
    fs.crash();
    assert_eq!(fs.list(&dir).unwrap(), ["seg1"]);
    let r = fs.open(&dir.join("seg1")).unwrap();
    assert_eq!(&r.read_at(0, r.len() as usize).unwrap()[..], b"acked");
}

#[test]
fn crash_undoes_an_unsynced_rename_but_not_a_synced_one() {
    let fs = MemFs::new();
    let dir = PathBuf::from("/store");
    fs.create_dir_all(&dir).unwrap();
    let mut w = fs.create(&dir.join("f.tmp")).unwrap();
    w.append(b"cells").unwrap();
    w.sync().unwrap();
    fs.sync_dir(&dir).unwrap();
    fs.rename(&dir.join("f.tmp"), &dir.join("f")).unwrap();
    fs.crash();
    assert_eq!(
        fs.list(&dir).unwrap(),
        ["f.tmp"],
        "the rename was not made durable"
    );
    fs.rename(&dir.join("f.tmp"), &dir.join("f")).unwrap();
    fs.sync_dir(&dir).unwrap();
    fs.crash();
    assert_eq!(fs.list(&dir).unwrap(), ["f"]);
    assert_eq!(
        &fs.open(&dir.join("f")).unwrap().read_at(0, 5).unwrap()[..],
        b"cells"
    );
}

#[test]
fn readers_see_the_length_at_open() {
    on_every_fs(|fs, root| {
        let path = root.join("growing");
        let mut w = fs.create(&path).unwrap();
        w.append(b"abc").unwrap();
        w.flush().unwrap();
        let r = fs.open(&path).unwrap();
        w.append(b"def").unwrap();
        w.flush().unwrap();
        assert_eq!(r.len(), 3);
        assert!(r.read_at(3, 3).is_err());
        assert_eq!(fs.open(&path).unwrap().len(), 6);
    });
}

#[test]
fn open_files_stay_readable_after_delete() {
    on_every_fs(|fs, root| {
        let path = root.join("compacted-away");
        let mut w = fs.create(&path).unwrap();
        w.append(b"still here").unwrap();
        w.sync().unwrap();
        drop(w);
        let r = fs.open(&path).unwrap();
        fs.delete(&path).unwrap();
        assert!(!fs.exists(&path).unwrap());
        assert_eq!(&r.read_at(0, 10).unwrap()[..], b"still here");
    });
}

#[test]
fn log_files_read_back_what_was_appended_within_and_past_their_capacity() {
    on_every_fs(|fs, root| {
        let path = root.join("log");
        let mut w = fs.create_log(&path, 16).unwrap();
        assert!(matches!(
            fs.create_log(&path, 16),
            Err(FsError::AlreadyExists(_))
        ));
        w.append(b"0123456789").unwrap();
        // This append runs past the 16 reserved bytes.
        w.append(b"abcdefghij").unwrap();
        w.append(b"KLMNOP").unwrap();
        assert_eq!(w.len(), 26);
        w.sync().unwrap();
        drop(w);
        let r = fs.open(&path).unwrap();
        assert_eq!(r.len(), 26, "a dropped log is as long as what was appended");
        assert_eq!(
            &r.read_at(0, 26).unwrap()[..],
            b"0123456789abcdefghijKLMNOP"
        );
    });
}

/// A bulk file (a store file) reads back exactly what was appended, in pieces of any size,
/// across flushes in the middle of it, whether synced or only dropped. On the local disk it is
/// written in aligned chunks around the page cache; the odd sizes and flushes check that its
/// length and its last, partly filled block come out right.
#[test]
fn bulk_files_read_back_what_was_appended() {
    on_every_fs(|fs, root| {
        let path = root.join("bulk");
        let mut w = fs.create_bulk(&path).unwrap();
        assert!(matches!(
            fs.create_bulk(&path),
            Err(FsError::AlreadyExists(_))
        ));
        let mut expected = Vec::new();
        for (i, size) in [1usize, 4095, 4097, 1 << 20, 3, (1 << 20) + 12_345, 77_777]
            .into_iter()
            .enumerate()
        {
            let piece: Vec<u8> = (0..size).map(|j| (j * 7 + i) as u8).collect();
            w.append(&piece).unwrap();
            expected.extend_from_slice(&piece);
            if i % 3 == 1 {
                w.flush().unwrap();
            }
        }
        assert_eq!(w.len(), expected.len() as u64);
        w.sync().unwrap();
        drop(w);
        let r = fs.open(&path).unwrap();
        assert_eq!(r.len(), expected.len() as u64);
        assert_eq!(&r.read_at(0, expected.len()).unwrap()[..], &expected[..]);

        let small = root.join("small");
        let mut w = fs.create_bulk(&small).unwrap();
        w.append(b"no sync, only dropped").unwrap();
        drop(w);
        let r = fs.open(&small).unwrap();
        assert_eq!(
            &r.read_at(0, r.len() as usize).unwrap()[..],
            b"no sync, only dropped"
        );
    });
}

/// On the local disk a log file is reserved and mapped: an append is in the file at once,
/// without `flush`, and a writer that never gets dropped (a killed process) leaves the file
/// at its capacity with zeros after the last append.
#[test]
fn local_log_appends_are_in_the_file_before_any_flush() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("log");
    let mut w = LocalFs.create_log(&path, 4096).unwrap();
    w.append(b"record one;").unwrap();
    w.append(b"record two").unwrap();
    let on_disk = std::fs::read(&path).unwrap();
    assert_eq!(on_disk.len(), 4096);
    assert_eq!(&on_disk[..21], b"record one;record two");
    assert!(on_disk[21..].iter().all(|&b| b == 0));
    std::mem::forget(w);
    assert_eq!(std::fs::read(&path).unwrap(), on_disk);
}

/// A link is a second name for the same bytes: it reads what the file holds, outlives the
/// first name's deletion, and is refused over an existing name or from a missing file.
#[test]
fn a_link_outlives_the_name_it_was_made_from() {
    on_every_fs(|fs, root| {
        let (a, b) = (root.join("a"), root.join("b"));
        let mut w = fs.create(&a).unwrap();
        w.append(b"store file").unwrap();
        w.sync().unwrap();
        drop(w);
        fs.link(&a, &b).unwrap();
        fs.delete(&a).unwrap();
        let r = fs.open(&b).unwrap();
        assert_eq!(&r.read_at(0, 10).unwrap()[..], b"store file");
        assert!(matches!(
            fs.link(&a, &root.join("c")),
            Err(FsError::NotFound(_))
        ));
        let mut w = fs.create(&a).unwrap();
        w.sync().unwrap();
        drop(w);
        assert!(matches!(fs.link(&a, &b), Err(FsError::AlreadyExists(_))));
    });
}

/// The default link (a store without hard links) copies.
#[test]
fn the_default_link_copies() {
    #[derive(Debug)]
    struct NoLinks(MemFs);
    impl FileSystem for NoLinks {
        fn create_dir_all(&self, dir: &Path) -> basalt_fs::Result<()> {
            self.0.create_dir_all(dir)
        }
        fn create(&self, path: &Path) -> basalt_fs::Result<Box<dyn basalt_fs::WritableFile>> {
            self.0.create(path)
        }
        fn open(
            &self,
            path: &Path,
        ) -> basalt_fs::Result<std::sync::Arc<dyn basalt_fs::ReadableFile>> {
            self.0.open(path)
        }
        fn rename(&self, from: &Path, to: &Path) -> basalt_fs::Result<()> {
            self.0.rename(from, to)
        }
        fn delete(&self, path: &Path) -> basalt_fs::Result<()> {
            self.0.delete(path)
        }
        fn delete_dir_all(&self, dir: &Path) -> basalt_fs::Result<()> {
            self.0.delete_dir_all(dir)
        }
        fn list(&self, dir: &Path) -> basalt_fs::Result<Vec<String>> {
            self.0.list(dir)
        }
        fn exists(&self, path: &Path) -> basalt_fs::Result<bool> {
            self.0.exists(path)
        }
        fn sync_dir(&self, dir: &Path) -> basalt_fs::Result<()> {
            self.0.sync_dir(dir)
        }
        fn lock(&self, path: &Path) -> basalt_fs::Result<Box<dyn basalt_fs::FileLock>> {
            self.0.lock(path)
        }
    }
    let fs = NoLinks(MemFs::new());
    let root = PathBuf::from("/d");
    fs.create_dir_all(&root).unwrap();
    let (a, b) = (root.join("a"), root.join("b"));
    let mut w = fs.create(&a).unwrap();
    w.append(&vec![7u8; 3 << 20]).unwrap();
    w.sync().unwrap();
    drop(w);
    fs.link(&a, &b).unwrap();
    fs.delete(&a).unwrap();
    let r = fs.open(&b).unwrap();
    assert_eq!(r.len(), 3 << 20);
    assert!(r.read_at((3 << 20) - 4, 4).unwrap().iter().all(|&x| x == 7));
}
