//! `basalt hfile` on real store files, and on damaged ones.

mod support;

use std::path::Path;

use std::sync::Arc;
use support::basalt;

use basalt_common::{BloomType, Cell, CellType, Compression};
use basalt_fs::LocalFs;
use basalt_storefile::{StoreFileWriter, WriterOptions};

fn write_file(path: &Path) {
    let opts = WriterOptions {
        family: "cf".into(),
        block_size: 64,
        compression: Compression::Lz4,
        bloom: BloomType::Row,
        bloom_prefix_len: 0,
        max_index_block: 65_536,
        max_bloom_chunk: 128 * 1024,
        compacted_from: Vec::new(),
    };
    let mut w = StoreFileWriter::create(Arc::new(LocalFs), path, opts).expect("create");
    for i in 0..20 {
        let cell = Cell::new(
            format!("row{i:02}").as_bytes(),
            b"cf",
            b"q",
            100 + i,
            CellType::Put,
            format!("v\x00{i}").as_bytes(),
        );
        w.append(&cell.with_seq_id(7)).expect("append");
    }
    w.append(&Cell::new(
        b"row99",
        b"cf",
        b"",
        5,
        CellType::DeleteFamily,
        b"",
    ))
    .expect("append");
    w.finish().expect("finish");
}

#[test]
fn prints_meta_blocks_stats_and_cells() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    write_file(&path);
    let p = path.to_str().unwrap();
    let (ok, out, err) = basalt(&["hfile", "-m", "-s", "-b", "-p", p]);
    assert!(ok, "{err}");
    assert!(out.contains("entryCount=21"), "{out}");
    assert!(
        out.contains("FIRST_KEY = row00/cf:q/100/Put/seqid=7"),
        "{out}"
    );
    assert!(out.contains("DELETE_FAMILY_COUNT = 1"), "{out}");
    assert!(out.contains("COMPRESSION = LZ4"), "{out}");
    assert!(out.contains("type=ROW"), "{out}");
    assert!(
        out.contains("Resident while open:")
            && out.contains("bloom=27 bytes")
            && out.contains("On disk:\n    index=")
            && out.contains(", bloom=50 bytes, file="),
        "{out}"
    );
    assert!(out.contains("block 0: offset=0"), "{out}");
    assert!(
        out.contains("K: row03/cf:q/103/Put/seqid=7 V: v\\x003"),
        "{out}"
    );
    assert!(
        out.contains("K: row99/cf:/5/DeleteFamily/seqid=0 V: "),
        "{out}"
    );
    assert!(out.contains("cells=21, rows=21"), "{out}");
    let (ok, out, _) = basalt(&["hfile", p]);
    assert!(
        ok && out.contains("Fileinfo:") && !out.contains("K: "),
        "{out}"
    );
}

#[test]
fn damaged_files_give_an_error_naming_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sf");
    write_file(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let (ok, _, err) = basalt(&["hfile", "-p", path.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("corrupt at offset 0") && err.contains("sf"),
        "{err}"
    );
    let (ok, _, err) = basalt(&["hfile", dir.path().join("missing").to_str().unwrap()]);
    assert!(!ok && err.contains("no such file"), "{err}");
}

/// `hbase:meta`'s store files hold rows under meta's stored keys; the tool shows the rows.
#[test]
fn meta_rows_are_shown_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("data/hbase/meta/1588230740/info");
    std::fs::create_dir_all(&store).unwrap();
    let path = store.join("0000000000000001");
    let opts = WriterOptions {
        family: "info".into(),
        block_size: 64,
        compression: Compression::None,
        bloom: BloomType::Row,
        bloom_prefix_len: 0,
        max_index_block: 65_536,
        max_bloom_chunk: 128 * 1024,
        compacted_from: Vec::new(),
    };
    let mut w = StoreFileWriter::create(Arc::new(LocalFs), &path, opts).unwrap();
    for row in ["t,,1.aaa.", "t,\x00,2.bbb."] {
        let key = basalt_common::meta_key::encode(row.as_bytes());
        w.append(&Cell::new(
            &key,
            b"info",
            b"state",
            1,
            CellType::Put,
            b"OPEN",
        ))
        .unwrap();
    }
    w.finish().unwrap();
    let (ok, out, err) = basalt(&["hfile", "-p", path.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("K: t,,1.aaa./info:state/1/Put"), "{out}");
    assert!(out.contains("K: t,\\x00,2.bbb./info:state/1/Put"), "{out}");
}
