//! Files written then read back: every cell, every seek, every reversed step, against a
//! sorted vector of the same cells.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::cmp::Ordering;
use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;

use basalt_common::cell::compare_in_store;
use basalt_common::{BloomType, Cell, CellType, Compression};
use basalt_fs::{FileSystem, MemFs};
use basalt_storefile::{StoreFileReader, StoreFileWriter, WriterOptions};
use proptest::prelude::*;

fn options(
    compression: Compression,
    bloom: BloomType,
    block_size: usize,
    max_index_block: usize,
) -> WriterOptions {
    WriterOptions {
        family: "cf".into(),
        block_size,
        compression,
        bloom,
        bloom_prefix_len: 3,
        max_index_block,
        max_bloom_chunk: max_index_block,
        compacted_from: Vec::new(),
    }
}

fn write(fs: &Arc<MemFs>, cells: &[Cell], opts: WriterOptions) -> StoreFileReader {
    write_in_parts(fs, cells, opts, &[])
}

/// Writes `cells` through one writer; from each of `cuts` (ascending indexes into `cells`) on,
/// the cells go through a part encoded on a thread of its own, as a parallel flush does.
fn write_in_parts(
    fs: &Arc<MemFs>,
    cells: &[Cell],
    opts: WriterOptions,
    cuts: &[usize],
) -> StoreFileReader {
    let dir = PathBuf::from("/store");
    fs.create_dir_all(&dir).unwrap();
    let path = dir.join("file1");
    let fs_dyn: Arc<dyn FileSystem> = fs.clone();
    let mut w = StoreFileWriter::create(fs_dyn, &path, opts).unwrap();
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(cells.len());
    for c in &cells[..bounds[1]] {
        w.append(c).unwrap();
    }
    let parts: Vec<_> = bounds[1..]
        .windows(2)
        .map(|range| {
            let mut part = w.part();
            let stretch = cells[range[0]..range[1]].to_vec();
            std::thread::spawn(move || {
                for c in &stretch {
                    part.append(c).unwrap();
                }
                part
            })
        })
        .collect();
    for part in parts {
        w.append_part(part.join().unwrap()).unwrap();
    }
    let info = w.finish().unwrap();
    assert_eq!(info.cell_count, cells.len() as u64);
    assert_eq!(
        fs.list(&dir).unwrap(),
        ["file1"],
        "no temporary file is left behind"
    );
    StoreFileReader::open(fs.as_ref(), &path).unwrap()
}

fn all_cells(reader: &StoreFileReader) -> Vec<Cell> {
    let mut s = reader.scanner();
    s.seek(&Cell::first_on_row(b"")).unwrap();
    let mut out = Vec::new();
    while let Some(c) = s.current() {
        out.push(c.clone());
        s.advance().unwrap();
    }
    out
}

fn cell_strategy() -> impl Strategy<Value = Cell> {
    (
        prop::collection::vec(prop::sample::select(vec![b'a', b'b', 0u8, 0xff]), 1..4),
        prop::sample::select(vec![&b""[..], b"q", b"qq", b"\0"]),
        0i64..20,
        prop::sample::select(vec![
            CellType::Put,
            CellType::Put,
            CellType::Delete,
            CellType::DeleteColumn,
            CellType::DeleteFamily,
        ]),
        0u64..5,
        prop::collection::vec(any::<u8>(), 0..40),
        prop::option::weighted(0.2, 1u64..10_000),
    )
        .prop_map(|(row, q, ts, t, seq, value, ttl)| {
            Cell::new(&row, b"cf", q, ts, t, &value)
                .with_seq_id(seq)
                .with_ttl_ms(ttl)
        })
}

fn sorted_unique(mut cells: Vec<Cell>) -> Vec<Cell> {
    cells.sort_by(compare_in_store);
    cells.dedup_by(|a, b| compare_in_store(a, b) == Ordering::Equal);
    cells
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn write_read_seek(
        cells in prop::collection::vec(cell_strategy(), 1..300).prop_map(sorted_unique),
        compression in prop::sample::select(vec![Compression::None, Compression::Gz, Compression::Snappy, Compression::Lz4, Compression::Zstd]),
        bloom in prop::sample::select(vec![BloomType::None, BloomType::Row, BloomType::RowCol, BloomType::RowPrefixFixedLength]),
        block_size in prop::sample::select(vec![64usize, 512, 65_536]),
        max_index_block in prop::sample::select(vec![100usize, 65_536]),
        targets in prop::collection::vec(cell_strategy(), 1..20),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let fs = Arc::new(MemFs::new());
        // A part starts a row, as a flush cuts them: each cut moves back to its row's start.
        let mut cuts: Vec<usize> = cuts
            .iter()
            .map(|i| {
                let mut at = i.index(cells.len() + 1);
                while at > 0 && at < cells.len() && cells[at - 1].row() == cells[at].row() {
                    at -= 1;
                }
                at
            })
            .collect();
        cuts.sort_unstable();
        let opts = options(compression, bloom, block_size, max_index_block);
        let reader = write_in_parts(&fs, &cells, opts, &cuts);
        prop_assert_eq!(&all_cells(&reader), &cells);
        let info = reader.info();
        prop_assert_eq!(info.first_key.row(), cells[0].row());
        prop_assert_eq!(info.max_seq_id, cells.iter().map(|c| c.seq_id).max().unwrap());
        prop_assert_eq!(compare_in_store(&info.last_key, cells.last().unwrap()), Ordering::Equal);
        // Every row and column in the file passes its bloom filter.
        for c in &cells {
            prop_assert!(reader.may_contain_row(c.row()));
            prop_assert!(reader.may_contain_column(c.row(), c.qualifier()));
        }
        let mut s = reader.scanner();
        for t in targets.iter().chain(&cells) {
            s.seek(t).unwrap();
            let want = cells.iter().find(|c| compare_in_store(c, t) != Ordering::Less);
            prop_assert_eq!(s.current(), want, "seek {}", t);
            for bound in [Bound::Included(t.row()), Bound::Excluded(t.row())] {
                let want = cells
                    .iter()
                    .rev()
                    .find(|c| match bound {
                        Bound::Included(r) => c.row() <= r,
                        Bound::Excluded(r) => c.row() < r,
                        Bound::Unbounded => true,
                    })
                    .map(|c| c.row().to_vec());
                let got = s.last_row_before(bound).unwrap().map(|r| r.to_vec());
                prop_assert_eq!(got, want, "last row before {:?}", bound);
            }
        }
        let last = s.last_row_before(Bound::Unbounded).unwrap().map(|r| r.to_vec());
        prop_assert_eq!(last, Some(cells.last().unwrap().row().to_vec()));
        // A Get's scanner reads its row's cells and ends there.
        for t in targets.iter().chain(&cells) {
            let mut s = reader.scanner().only_row(t.row());
            s.seek(&Cell::first_on_row(t.row())).unwrap();
            let mut got = Vec::new();
            while let Some(c) = s.current() {
                got.push(c.clone());
                s.advance().unwrap();
            }
            let want: Vec<Cell> = cells.iter().filter(|c| c.row() == t.row()).cloned().collect();
            prop_assert_eq!(got, want, "the row of {}", t);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    /// The writer's order check agrees with the store order: a cell is taken after another
    /// exactly when it sorts after it.
    #[test]
    fn the_order_check_is_the_store_order(a in cell_strategy(), b in cell_strategy()) {
        let fs: Arc<dyn FileSystem> = Arc::new(MemFs::new());
        let opts = options(Compression::None, BloomType::Row, 64, 65_536);
        let mut w = StoreFileWriter::create(fs, &PathBuf::from("/f"), opts).unwrap();
        w.append(&a).unwrap();
        let taken = w.append(&b).is_ok();
        prop_assert_eq!(taken, compare_in_store(&a, &b) == Ordering::Less, "{} then {}", a, b);
    }
}

#[test]
fn many_blocks_make_a_multi_level_index() {
    let cells: Vec<Cell> = (0..5_000)
        .map(|i| {
            Cell::put(format!("row{i:06}").as_bytes(), b"cf", b"q", 1, b"value").with_seq_id(1)
        })
        .collect();
    let fs = Arc::new(MemFs::new());
    let reader = write(
        &fs,
        &cells,
        options(Compression::Lz4, BloomType::Row, 256, 1_024),
    );
    assert!(
        reader.trailer().index_levels >= 3,
        "levels {}",
        reader.trailer().index_levels
    );
    assert_eq!(
        reader.block_refs().unwrap().len() as u64,
        reader.info().data_block_count
    );
    assert_eq!(all_cells(&reader), cells);
    assert!(!reader.may_contain_row(b"zzz"), "outside the key range");
    let absent = (0..1_000)
        .filter(|i| reader.may_contain_row(format!("row{i:06}x").as_bytes()))
        .count();
    assert!(
        absent < 50,
        "bloom let {absent} of 1000 absent rows through"
    );
}
