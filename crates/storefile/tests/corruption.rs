//! Damaged files and bad writes give clear errors naming the file and offset, never a panic
//! and never wrong cells.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::{BloomType, Cell, Compression};
use basalt_fs::{FileSystem, LocalFs, MemFs};
use basalt_storefile::{StoreFileError, StoreFileReader, StoreFileWriter, WriterOptions};

fn opts(compression: Compression) -> WriterOptions {
    WriterOptions {
        family: "cf".into(),
        block_size: 256,
        compression,
        bloom: BloomType::Row,
        bloom_prefix_len: 0,
        max_index_block: 512,
        max_bloom_chunk: 32,
        compacted_from: Vec::new(),
    }
}

fn cells() -> Vec<Cell> {
    (0..300)
        .map(|i| {
            Cell::put(
                format!("row{i:04}").as_bytes(),
                b"cf",
                b"q",
                7,
                format!("value {i}").as_bytes(),
            )
        })
        .collect()
}

fn write_local(dir: &Path, compression: Compression) -> PathBuf {
    let path = dir.join("sf");
    let mut w = StoreFileWriter::create(Arc::new(LocalFs), &path, opts(compression)).unwrap();
    for c in cells() {
        w.append(&c).unwrap();
    }
    w.finish().unwrap();
    path
}

/// Reads every cell; an error at open or while reading is fine, wrong cells are not.
fn read_all(path: &Path) -> Result<Vec<Cell>, StoreFileError> {
    let reader = StoreFileReader::open(&LocalFs, path)?;
    let mut s = reader.scanner();
    s.seek(&Cell::first_on_row(b""))?;
    let mut out = Vec::new();
    while let Some(c) = s.current() {
        out.push(c.clone());
        s.advance()?;
    }
    Ok(out)
}

#[test]
fn every_flipped_byte_is_detected_or_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_local(dir.path(), Compression::Snappy);
    let original = std::fs::read(&path).unwrap();
    let good = cells();
    for i in (0..original.len()).step_by(7) {
        let mut bad = original.clone();
        bad[i] ^= 0x40;
        std::fs::write(&path, &bad).unwrap();
        match read_all(&path) {
            Ok(read) => assert_eq!(read, good, "flip at {i} changed the cells without an error"),
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains("sf"), "{text}");
            }
        }
    }
}

#[test]
fn a_flipped_data_byte_names_the_block_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_local(dir.path(), Compression::None);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20] ^= 1; // inside the first data block's payload
    std::fs::write(&path, &bytes).unwrap();
    let reader = StoreFileReader::open(&LocalFs, &path).unwrap();
    let first = reader.block_refs().unwrap().remove(0);
    let err = reader.data_block(&first).unwrap_err();
    match &err {
        StoreFileError::Corrupt { offset, reason, .. } => {
            assert_eq!(*offset, 0);
            assert!(reason.contains("checksum"), "{reason}");
        }
        other => panic!("expected corruption, got {other}"),
    }
    assert!(err.to_string().contains("corrupt at offset 0"), "{err}");
}

#[test]
fn truncated_and_foreign_files_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_local(dir.path(), Compression::Zstd);
    let bytes = std::fs::read(&path).unwrap();
    for len in [0, 10, 63, 64, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..len]).unwrap();
        assert!(
            StoreFileReader::open(&LocalFs, &path).is_err(),
            "truncated to {len}"
        );
    }
    std::fs::write(&path, vec![0u8; 4096]).unwrap();
    let err = StoreFileReader::open(&LocalFs, &path)
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a Basalt store file"), "{err}");
}

#[test]
fn bad_writes_are_refused() {
    let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
    fs.create_dir_all(Path::new("/s")).unwrap();
    let mut w =
        StoreFileWriter::create(Arc::clone(&fs), Path::new("/s/f"), opts(Compression::None))
            .unwrap();
    w.append(&Cell::put(b"b", b"cf", b"q", 1, b"")).unwrap();
    let err = w.append(&Cell::put(b"a", b"cf", b"q", 1, b"")).unwrap_err();
    assert!(err.to_string().contains("out of order"), "{err}");
    let err = w
        .append(&Cell::put(b"c", b"other", b"q", 1, b""))
        .unwrap_err();
    assert!(err.to_string().contains("not of family"), "{err}");
    // A part must follow the writer's cells, and an empty part adds nothing.
    let mut part = w.part();
    part.append(&Cell::put(b"a", b"cf", b"q", 1, b"")).unwrap();
    let err = w.append_part(part).unwrap_err();
    assert!(err.to_string().contains("out of order"), "{err}");
    w.append_part(w.part()).unwrap();
    // ... and start a row of its own.
    let mut part = w.part();
    part.append(&Cell::put(b"b", b"cf", b"r", 1, b"")).unwrap();
    let err = w.append_part(part).unwrap_err();
    assert!(err.to_string().contains("inside the row"), "{err}");
    let mut part = w.part();
    let err = part
        .append(&Cell::put(b"c", b"other", b"q", 1, b""))
        .unwrap_err();
    assert!(err.to_string().contains("not of family"), "{err}");
    w.abort().unwrap();
    assert!(fs.list(Path::new("/s")).unwrap().is_empty());

    let empty =
        StoreFileWriter::create(Arc::clone(&fs), Path::new("/s/e"), opts(Compression::None))
            .unwrap();
    assert!(
        empty
            .finish()
            .unwrap_err()
            .to_string()
            .contains("at least one cell")
    );

    let err = StoreFileWriter::create(fs, Path::new("/s/g"), opts(Compression::Lzo)).unwrap_err();
    assert!(err.to_string().contains("LZO is not supported"), "{err}");
}
