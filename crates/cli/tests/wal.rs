//! `basalt wal` on a real segment, a torn one and a corrupt one.

mod support;

use std::path::Path;

use support::basalt;

use basalt_common::{Cell, CellType};
use basalt_fs::LocalFs;
use basalt_wal::{SegmentWriter, WalEdit};

/// Three edits; returns each record's offset.
fn write_segment(path: &Path) -> Vec<u64> {
    let mut w = SegmentWriter::create(&LocalFs, path).expect("create");
    let offsets = (1..=3u64)
        .map(|seq| {
            let edit = WalEdit {
                region: "5e8a1b2c3d4e5f60718293a4b5c6d7e8".into(),
                table: "t".into(),
                seq_id: seq,
                write_time_ms: 1_795_378_444_123,
                origin: Default::default(),
                cells: vec![
                    Cell::new(
                        b"row1",
                        b"cf",
                        b"q",
                        10,
                        CellType::Put,
                        format!("v{seq}\x00").as_bytes(),
                    ),
                    Cell::new(b"row2", b"cf", b"", 10, CellType::DeleteFamily, b""),
                ],
            };
            w.append(&edit).expect("append")
        })
        .collect();
    w.sync().expect("sync");
    offsets
}

#[test]
fn prints_edits_cells_and_values() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("seg");
    let offsets = write_segment(&path);
    let p = path.to_str().expect("utf-8 path");
    let (ok, out, err) = basalt(&["wal", "-p", p]);
    assert!(ok, "{err}");
    assert!(out.contains(
        "Sequence=2 , table=t , region=5e8a1b2c3d4e5f60718293a4b5c6d7e8 at write timestamp=2026-11-22T20:14:04.123Z"
    ), "{out}");
    assert!(
        out.contains("row=row1, type=Put, column=cf:q\n    value: v2\\x00\n"),
        "{out}"
    );
    assert!(
        out.contains("row=row2, type=DeleteFamily, column=cf:\n"),
        "{out}"
    );
    assert!(out.contains(&format!("position: {}", offsets[2])), "{out}");
    assert!(out.ends_with("3 edits\n"), "{out}");

    let (ok, out, _) = basalt(&["wal", "-s", "3", "-w", "row2", p]);
    assert!(ok);
    assert_eq!(out.matches("Sequence=").count(), 1, "{out}");
    assert!(
        out.contains("Sequence=3 ") && !out.contains("row=row1") && !out.contains("value:"),
        "{out}"
    );
}

#[test]
fn a_torn_tail_is_reported_and_corruption_is_an_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("seg");
    let offsets = write_segment(&path);
    let p = path.to_str().expect("utf-8 path");
    let bytes = std::fs::read(&path).expect("read");

    std::fs::write(&path, &bytes[..bytes.len() - 3]).expect("write");
    let (ok, out, err) = basalt(&["wal", p]);
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!(
            "2 edits, then a torn record at offset {}",
            offsets[2]
        )),
        "{out}"
    );

    let mut damaged = bytes.clone();
    damaged[offsets[1] as usize + 14] ^= 0xff;
    std::fs::write(&path, &damaged).expect("write");
    let (ok, _, err) = basalt(&["wal", p]);
    assert!(!ok);
    assert!(
        err.contains(&format!("corrupt at offset {}", offsets[1])) && err.contains(p),
        "{err}"
    );
}

/// `hbase:meta`'s edits hold rows under meta's stored keys; the tool shows (and selects) the
/// rows as they are.
#[test]
fn meta_rows_are_shown_as_they_are() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("seg");
    let mut w = SegmentWriter::create(&LocalFs, &path).expect("create");
    let key = basalt_common::meta_key::encode(b"t,\x00,1.abc.");
    w.append(&WalEdit {
        region: "1588230740".into(),
        table: "hbase:meta".into(),
        seq_id: 1,
        write_time_ms: 1_795_378_444_123,
        origin: Default::default(),
        cells: vec![Cell::new(
            &key,
            b"info",
            b"state",
            1,
            CellType::Put,
            b"OPEN",
        )],
    })
    .expect("append");
    w.sync().expect("sync");
    let p = path.to_str().expect("utf-8 path");
    let (ok, out, err) = basalt(&["wal", "-w", "t,\\x00,1.abc.", p]);
    assert!(ok, "{err}");
    assert!(
        out.contains("row=t,\\x00,1.abc., type=Put, column=info:state"),
        "{out}"
    );
}
