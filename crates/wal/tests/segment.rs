//! WAL segments: what is written reads back; a crash's torn tail is told apart from corruption
//! in the middle; no input makes the reader panic.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::path::Path;

use basalt_common::replication::ClusterId;
use basalt_common::{Bytes, Cell, CellType};
use basalt_fs::{Fault, FaultyFs, FileSystem, MemFs};
use basalt_wal::{
    EditOrigin, HEADER_LEN, SegmentEnd, SegmentWriter, WalEdit, WalError, read_segment,
    read_segment_file,
};
use proptest::prelude::*;

fn edit(seq_id: u64, rows: &[&str]) -> WalEdit {
    let cells = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let cell_type = if i % 3 == 2 {
                CellType::DeleteColumn
            } else {
                CellType::Put
            };
            let value = if cell_type == CellType::Put {
                format!("value {seq_id} \u{0}\u{ff}")
            } else {
                String::new()
            };
            let ttl = (i % 2 == 1).then_some(60_000);
            Cell::new(
                row.as_bytes(),
                b"cf",
                format!("q{i}").as_bytes(),
                1_000 + i as i64,
                cell_type,
                value.as_bytes(),
            )
            .with_seq_id(seq_id)
            .with_ttl_ms(ttl)
        })
        .collect();
    WalEdit {
        region: "0123456789abcdef0123456789abcdef".into(),
        table: "ns:t".into(),
        seq_id,
        write_time_ms: 1_763_800_000_000 + seq_id as i64,
        // Every other edit names where it came from and what replicates (a kind 2 record).
        origin: if seq_id.is_multiple_of(2) {
            EditOrigin {
                cluster_ids: vec![ClusterId(seq_id as u128), ClusterId(u128::MAX)],
                replicated_families: vec![Bytes::from_static(b"cf"), Bytes::from_static(b"x")],
            }
        } else {
            EditOrigin::default()
        },
        cells,
    }
}

/// A segment of `n` edits; returns its bytes and each record's offset.
fn segment(n: u64) -> (Bytes, Vec<u64>, Vec<WalEdit>) {
    let fs = MemFs::new();
    let path = Path::new("/wal/seg");
    fs.create_dir_all(Path::new("/wal")).unwrap();
    let mut w = SegmentWriter::create(&fs, path).unwrap();
    let edits: Vec<WalEdit> = (1..=n)
        .map(|s| edit(s, &["a", "b", "c"][..(s % 3 + 1) as usize]))
        .collect();
    let offsets = edits.iter().map(|e| w.append(e).unwrap()).collect();
    w.sync().unwrap();
    (basalt_fs::read_all(&fs, path).unwrap(), offsets, edits)
}

#[test]
fn edits_read_back_as_written() {
    let (bytes, offsets, edits) = segment(5);
    let read = read_segment(&bytes, "seg").unwrap();
    assert_eq!(read.end, SegmentEnd::Clean);
    let (read_offsets, read_edits): (Vec<u64>, Vec<WalEdit>) = read.edits.into_iter().unzip();
    assert_eq!(read_offsets, offsets);
    assert_eq!(read_edits, edits);
    assert_eq!(read_edits[1].cells[1].ttl_ms, Some(60_000));
    assert_eq!(read_edits[1].cells[0].seq_id, 2);
    assert_eq!(read_edits[1].origin.cluster_ids.len(), 2);
    assert!(read_edits[0].origin.is_empty());
}

#[test]
fn an_empty_segment_has_no_edits() {
    let (bytes, _, _) = segment(0);
    assert_eq!(bytes.len(), HEADER_LEN);
    let read = read_segment(&bytes, "seg").unwrap();
    assert!(read.edits.is_empty());
    assert_eq!(read.end, SegmentEnd::Clean);
}

#[test]
fn a_segment_cut_anywhere_reads_as_its_whole_records_then_a_torn_tail() {
    let (bytes, offsets, edits) = segment(4);
    for cut in 0..bytes.len() {
        let read = read_segment(&bytes.slice(..cut), "seg")
            .unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        let whole = offsets
            .iter()
            .enumerate()
            .filter(|&(i, _)| offsets.get(i + 1).map_or(bytes.len(), |&o| o as usize) <= cut)
            .count();
        assert_eq!(read.edits.len(), whole, "cut at {cut}");
        assert!(read.edits.iter().zip(&edits).all(|((_, a), b)| a == b));
        let at_boundary = cut == HEADER_LEN || offsets.contains(&(cut as u64));
        match read.end {
            SegmentEnd::Clean => assert!(at_boundary, "cut at {cut} read as clean"),
            SegmentEnd::Corrupt { .. } => panic!("cut at {cut} read as corrupt"),
            SegmentEnd::Torn { offset, .. } => {
                assert!(!at_boundary, "cut at {cut} read as torn");
                let expected = if whole == 0 && cut < HEADER_LEN {
                    0
                } else {
                    offsets[whole]
                };
                assert_eq!(offset, expected, "cut at {cut}");
            }
        }
    }
}

#[test]
fn damage_in_the_last_record_is_a_torn_tail() {
    let (bytes, offsets, _) = segment(4);
    for at in [
        offsets[3] as usize + 2,
        offsets[3] as usize + 10,
        bytes.len() - 1,
    ] {
        let mut damaged = bytes.to_vec();
        damaged[at] ^= 0x40;
        let read = read_segment(&Bytes::from(damaged), "seg").unwrap();
        assert_eq!(read.edits.len(), 3);
        assert!(matches!(read.end, SegmentEnd::Torn { offset, .. } if offset == offsets[3]));
    }
}

#[test]
fn zeros_after_the_last_record_are_a_torn_tail() {
    let (bytes, _, _) = segment(2);
    let mut padded = bytes.to_vec();
    padded.extend_from_slice(&[0; 4096]);
    let read = read_segment(&Bytes::from(padded), "seg").unwrap();
    assert_eq!(read.edits.len(), 2);
    assert_eq!(
        read.end,
        SegmentEnd::Torn {
            offset: bytes.len() as u64,
            reason: "record header checksum mismatch".into()
        }
    );
}

#[test]
fn damage_in_the_middle_is_an_error_naming_the_segment_and_offset() {
    let (bytes, offsets, _) = segment(4);
    // In a record's length, in its body, in its checksum.
    for at in [
        offsets[1] as usize,
        offsets[1] as usize + 20,
        offsets[2] as usize + 5,
    ] {
        let mut damaged = bytes.to_vec();
        damaged[at] ^= 0x01;
        let err = read_segment(&Bytes::from(damaged), "WALs/s1/seg").unwrap_err();
        let record = if at < offsets[2] as usize {
            offsets[1]
        } else {
            offsets[2]
        };
        match &err {
            WalError::Corrupt {
                segment, offset, ..
            } => {
                assert_eq!((segment.as_str(), *offset), ("WALs/s1/seg", record));
            }
            other => panic!("expected corruption, got {other}"),
        }
        let message = basalt_common::Error::from(err).to_string();
        assert!(
            message.contains("WALs/s1/seg") && message.contains(&format!("offset {record}")),
            "{message}"
        );
    }
}

#[test]
fn salvaging_keeps_the_edits_before_the_damage() {
    let (bytes, offsets, edits) = segment(4);
    let mut damaged = bytes.to_vec();
    damaged[offsets[2] as usize + 20] ^= 0x01;
    let read = basalt_wal::salvage_segment(&Bytes::from(damaged), "seg").unwrap();
    assert_eq!(read.edits.len(), 2);
    assert_eq!(read.edits[1].1, edits[1]);
    assert!(matches!(read.end, SegmentEnd::Corrupt { offset, .. } if offset == offsets[2]));
}

#[test]
fn a_file_that_is_not_a_segment_is_refused() {
    let err = read_segment(&Bytes::from_static(b"HFILE..."), "f").unwrap_err();
    assert!(err.to_string().contains("bad magic"), "{err}");
    let err = read_segment(&Bytes::from_static(b"BWAL\0\0\0\x09"), "f").unwrap_err();
    assert!(
        err.to_string().contains("unsupported format version"),
        "{err}"
    );
}

#[test]
fn after_a_crash_synced_edits_remain_and_the_rest_is_gone_or_torn() {
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/wal")).unwrap();
    let path = Path::new("/wal/seg");
    let mut w = SegmentWriter::create(&fs, path).unwrap();
    for s in 1..=3 {
        w.append(&edit(s, &["r"])).unwrap();
    }
    w.sync().unwrap();
    for s in 4..=5 {
        w.append(&edit(s, &["r"])).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    fs.crash();
    let read = read_segment_file(&fs, path).unwrap();
    let seqs: Vec<u64> = read.edits.iter().map(|(_, e)| e.seq_id).collect();
    assert_eq!(seqs, [1, 2, 3]);
}

#[test]
fn a_killed_process_keeps_flushed_edits_and_a_torn_write_reads_as_a_torn_tail() {
    let fs = FaultyFs::new();
    fs.create_dir_all(Path::new("/wal")).unwrap();
    let path = Path::new("/wal/seg");
    let mut w = SegmentWriter::create(&fs, path).unwrap();
    w.append(&edit(1, &["r"])).unwrap();
    w.flush().unwrap();
    w.append(&edit(2, &["r"])).unwrap();
    fs.arm(Fault::TearWrite { n: 0, keep: 30 });
    assert!(w.flush().is_err());
    w.append(&edit(3, &["r"])).unwrap();
    fs.kill();
    drop(w);
    let read = read_segment_file(&fs, path).unwrap();
    let seqs: Vec<u64> = read.edits.iter().map(|(_, e)| e.seq_id).collect();
    assert_eq!(seqs, [1], "edit 2 was torn, edit 3 never left the process");
    assert!(
        matches!(read.end, SegmentEnd::Torn { .. }),
        "{:?}",
        read.end
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn no_damage_makes_the_reader_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..8),
        cut in any::<prop::sample::Index>(),
    ) {
        let (bytes, _, _) = segment(3);
        let mut damaged = bytes.to_vec();
        for (at, byte) in flips {
            let i = at.index(damaged.len());
            damaged[i] = byte;
        }
        damaged.truncate(cut.index(damaged.len() + 1));
        // Any answer is fine but a panic; edits it returns passed their checksums.
        let _ = read_segment(&Bytes::from(damaged), "seg");
    }

    #[test]
    fn no_record_body_makes_the_decoder_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
    ) {
        // Bodies whose checksums would pass: a real one, damaged.
        let mut body = Vec::new();
        basalt_wal::encode_edit(&edit(7, &["a", "b", "c"]), &mut body).unwrap();
        for (at, byte) in flips {
            let i = at.index(body.len());
            body[i] = byte;
        }
        body.truncate(cut.index(body.len() + 1));
        let _ = basalt_wal::decode_edit(&Bytes::from(body));
    }

    #[test]
    fn random_bytes_after_a_header_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..512)) {
        let mut bytes = b"BWAL\0\0\0\x01".to_vec();
        bytes.extend_from_slice(&tail);
        let _ = read_segment(&Bytes::from(bytes), "seg");
    }
}

/// A replication source reads a segment behind its writer: whole records only, from where it
/// left off, however the bytes come.
#[test]
fn a_tail_reads_whole_records_from_where_it_left_off() {
    let (bytes, offsets, edits) = segment(6);
    let fs = MemFs::new();
    fs.create_dir_all(Path::new("/w")).unwrap();
    let path = Path::new("/w/seg");
    // Every prefix of the file, as a reader racing the writer could see it, then zeros.
    for cut in [
        0,
        5,
        HEADER_LEN,
        HEADER_LEN + 3,
        offsets[2] as usize + 20,
        bytes.len(),
    ] {
        let mut partial = bytes[..cut].to_vec();
        partial.resize(bytes.len() + 100, 0);
        let _ = fs.delete(path);
        let mut w = fs.create(path).unwrap();
        w.append(&partial).unwrap();
        w.sync().unwrap();
        drop(w);
        let tail = basalt_wal::read_tail(&fs, path, 0, 1 << 20).unwrap();
        let whole = offsets.iter().filter(|&&o| {
            let i = offsets.iter().position(|x| *x == o).unwrap();
            let end = offsets.get(i + 1).map_or(bytes.len(), |n| *n as usize);
            end <= cut
        });
        assert_eq!(tail.edits.len(), whole.count(), "cut at {cut}");
        // Read on from there with the rest written: exactly the remaining edits.
        fs.delete(path).unwrap();
        let mut w = fs.create(path).unwrap();
        w.append(&bytes).unwrap();
        w.sync().unwrap();
        drop(w);
        let rest = basalt_wal::read_tail(&fs, path, tail.next, 1 << 20).unwrap();
        let all: Vec<WalEdit> = tail
            .edits
            .into_iter()
            .chain(rest.edits)
            .map(|(_, e)| e)
            .collect();
        assert_eq!(all, edits, "cut at {cut}");
        assert_eq!(rest.next, bytes.len() as u64);
    }
    // A small budget still makes progress, one record at a time.
    let one = basalt_wal::read_tail(&fs, path, 0, 1).unwrap();
    assert_eq!(one.edits.len(), 1);
    assert_eq!(one.next, offsets[1]);
}
