//! Flattened memstore segments: HBase's in-memory flush (the BASIC policy of its compacting
//! memstore).
//!
//! A store's active memstore is a skip list, good for concurrent inserts but slow to read in
//! order: each step waits on the next node, then on the cell's bytes, both scattered through
//! memory. When the active list passes the in-memory flush size, the store freezes it, and a
//! background thread copies its cells, in key order, into a [`FlatSegment`]: a sorted array of
//! keys whose cells' bytes lie one after another in fresh chunks. A flush then reads memory in
//! order, and a seek is a binary search. Small flat segments are merged into larger ones, so a
//! read has few of them to search.

use std::ops::Bound;
use std::sync::Arc;

use crossbeam_epoch::Guard;
use xxhash_rust::xxh3::xxh3_64;

use basalt_common::{Bytes, Cell, Result};

use crate::cursor::CellCursor;
use crate::key::{StoreKey, bytes_cmp, bytes_eq};
use crate::memstore::MemStore;
use crate::mslab::Mslab;

/// Cells held in key order in one array; immutable once built.
#[derive(Debug)]
pub struct FlatSegment {
    keys: Vec<StoreKey>,
    rows: RowFilter,
}

impl FlatSegment {
    /// A flat copy of every cell of `list`, whatever its sequence id: keys in an array, and
    /// the cells' bytes copied in key order into chunks of their own.
    pub fn flatten(list: &MemStore) -> FlatSegment {
        let mut copy = Copier::with_capacity(list.cell_count());
        list.for_each_cell(|cell| copy.push(cell));
        copy.finish()
    }

    /// One segment holding the cells of both, in key order. Only the keys are merged (HBase's
    /// BASIC in-memory compaction merges indexes, not data): the cells keep their bytes in
    /// the chunks of the segments they came from, which already lie in key order, so a cell is
    /// copied once on its way to a flush however many merges it goes through.
    pub fn merge(a: &FlatSegment, b: &FlatSegment) -> FlatSegment {
        let mut keep = Copier::with_capacity(a.keys.len() + b.keys.len());
        let merged = merge_runs(vec![&a.keys, &b.keys], |key| {
            keep.keep(key);
            Ok(())
        });
        debug_assert!(merged.is_ok(), "keeping cannot fail");
        keep.finish()
    }

    /// False only if the segment surely holds no cell of `row`.
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        self.rows.may_contain(row)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// The keys of the cells of rows from `from` (included) to `to` (excluded); `None` leaves
    /// that end open.
    fn rows_between(&self, from: Option<&[u8]>, to: Option<&[u8]>) -> &[StoreKey] {
        let below = |bound: &[u8]| {
            self.keys
                .partition_point(|k| bytes_cmp(k.cell.row(), bound).is_lt())
        };
        let start = from.map_or(0, below);
        let end = to.map_or(self.keys.len(), below).max(start);
        &self.keys[start..end]
    }

    /// A cursor that sees only cells with sequence id <= `read_point`. It starts unpositioned;
    /// call [`CellCursor::seek`] first.
    pub fn cursor(&self, read_point: u64) -> FlatCursor<'_> {
        FlatCursor {
            keys: &self.keys,
            pos: self.keys.len(),
            read_point,
        }
    }
}

/// Builds a flat segment from cells given in key order, copying their bytes one after another
/// into chunks of its own.
struct Copier {
    chunks: Mslab,
    keys: Vec<StoreKey>,
    /// The hash of each distinct row, for the segment's row filter.
    row_hashes: Vec<u64>,
}

impl Copier {
    fn with_capacity(cells: usize) -> Copier {
        Copier {
            chunks: Mslab::default(),
            keys: Vec::with_capacity(cells),
            row_hashes: Vec::new(),
        }
    }

    /// Adds `key` as it is: its cell's bytes stay where they are.
    fn keep(&mut self, key: &StoreKey) {
        self.note_row(key.cell.row());
        self.keys.push(key.clone());
    }

    /// Hashes `row` for the row filter if it differs from the last key's.
    fn note_row(&mut self, row: &[u8]) {
        let new_row = self
            .keys
            .last()
            .is_none_or(|last| !bytes_eq(last.cell.row(), row));
        if new_row {
            self.row_hashes.push(xxh3_64(row));
        }
    }

    fn push(&mut self, cell: &Cell) {
        let row = cell.row();
        let coordinates = (row, cell.family(), cell.qualifier());
        // The parts are the cell's own, so the copy always fits the format; keeping the
        // original cell would only lose locality.
        let copy = self
            .chunks
            .cell(coordinates, cell.timestamp, cell.cell_type, cell.value())
            .map_or_else(
                || cell.clone(),
                |c| c.with_seq_id(cell.seq_id).with_ttl_ms(cell.ttl_ms),
            );
        self.note_row(row);
        self.keys.push(StoreKey::new(copy));
    }

    fn finish(self) -> FlatSegment {
        FlatSegment {
            keys: self.keys,
            rows: RowFilter::new(&self.row_hashes),
        }
    }
}

/// A blocked bloom filter over a segment's rows: each row sets three bits of one 64-bit word,
/// so a lookup reads one word. With about twelve bits per row, a get skips the binary search
/// of nearly every segment that does not hold its row. It has at least one word.
#[derive(Debug)]
struct RowFilter {
    words: Vec<u64>,
}

impl RowFilter {
    const BITS_PER_ROW: usize = 12;

    fn new(hashes: &[u64]) -> RowFilter {
        let words = (hashes.len() * Self::BITS_PER_ROW / 64)
            .max(1)
            .next_power_of_two();
        let mut filter = RowFilter {
            words: vec![0; words],
        };
        for &h in hashes {
            let (word, mask) = filter.locate(h);
            filter.words[word] |= mask;
        }
        filter
    }

    /// The word a hash falls in, and its three bits there (from disjoint bits of the hash).
    #[inline]
    fn locate(&self, h: u64) -> (usize, u64) {
        let word = (h >> 32) as usize & (self.words.len() - 1);
        let mask = (1 << (h & 63)) | (1 << ((h >> 6) & 63)) | (1 << ((h >> 12) & 63));
        (word, mask)
    }

    /// False only if no cell of `row` is in the segment.
    fn may_contain(&self, row: &[u8]) -> bool {
        let (word, mask) = self.locate(xxh3_64(row));
        self.words[word] & mask == mask
    }
}

/// Calls `f` on every cell of rows from `from` (included) to `to` (excluded) in `segments`, in
/// key order, whatever its sequence id (a flush writes them all). No key is in two segments.
pub fn for_each_cell_in(
    segments: &[Arc<FlatSegment>],
    from: Option<&[u8]>,
    to: Option<&[u8]>,
    mut f: impl FnMut(&Cell) -> Result<()>,
) -> Result<()> {
    merge_runs(
        segments.iter().map(|s| s.rows_between(from, to)).collect(),
        |key| f(&key.cell),
    )
}

/// Calls `f` on the keys of `runs` (each in key order, no key in two) in key order.
fn merge_runs(
    mut runs: Vec<&[StoreKey]>,
    mut f: impl FnMut(&StoreKey) -> Result<()>,
) -> Result<()> {
    runs.retain(|run| !run.is_empty());
    while runs.len() > 1 {
        let mut least = 0;
        for i in 1..runs.len() {
            if runs[i][0] < runs[least][0] {
                least = i;
            }
        }
        let run = &mut runs[least];
        f(&run[0])?;
        *run = &run[1..];
        if run.is_empty() {
            runs.swap_remove(least);
        }
    }
    for key in runs.first().copied().unwrap_or_default() {
        f(key)?;
    }
    Ok(())
}

/// Up to `parts - 1` distinct rows, ascending, that cut `segments` into key ranges of about
/// equal numbers of cells: none when there are too few cells to be worth cutting.
pub fn split_rows(segments: &[Arc<FlatSegment>], parts: usize) -> Vec<Bytes> {
    /// Rows looked at per range wanted.
    const SAMPLES_PER_PART: usize = 8;
    /// Fewer cells than this per range are not worth a range of their own.
    const MIN_PART_CELLS: usize = 4096;
    let total: usize = segments.iter().map(|s| s.len()).sum();
    let parts = parts.min(total / MIN_PART_CELLS);
    if parts < 2 {
        return Vec::new();
    }
    let stride = (total / (parts * SAMPLES_PER_PART)).max(1);
    let mut rows: Vec<&[u8]> = segments
        .iter()
        .flat_map(|s| s.keys.iter().step_by(stride).map(|k| k.cell.row()))
        .collect();
    rows.sort_unstable();
    let mut cuts: Vec<Bytes> = (1..parts)
        .map(|i| Bytes::copy_from_slice(rows[i * rows.len() / parts]))
        .collect();
    cuts.dedup();
    // A cut at the lowest row would leave the first range empty.
    cuts.retain(|row| row.as_ref() != rows[0]);
    cuts
}

/// Walks a [`FlatSegment`] in key order at a fixed read point.
#[derive(Debug)]
pub struct FlatCursor<'a> {
    keys: &'a [StoreKey],
    pos: usize,
    read_point: u64,
}

impl FlatCursor<'_> {
    fn skip_invisible_forward(&mut self) {
        while self
            .keys
            .get(self.pos)
            .is_some_and(|k| k.cell.seq_id > self.read_point)
        {
            self.pos += 1;
        }
    }

    /// The position of the first key not below `key`.
    fn lower_bound(&self, key: &StoreKey) -> usize {
        self.keys.partition_point(|k| k < key)
    }
}

impl CellCursor for FlatCursor<'_> {
    fn seek(&mut self, key: &Cell) -> Result<()> {
        self.pos = self.lower_bound(&StoreKey::new(key.clone()));
        self.skip_invisible_forward();
        Ok(())
    }

    #[inline]
    fn peek(&self) -> Option<&Cell> {
        self.keys.get(self.pos).map(|k| &k.cell)
    }

    #[inline]
    fn advance(&mut self) -> Result<()> {
        if self.pos < self.keys.len() {
            self.pos += 1;
            self.skip_invisible_forward();
        }
        Ok(())
    }

    fn last_row_before(&mut self, bound: Bound<&[u8]>) -> Result<Option<Bytes>> {
        let end = match bound {
            Bound::Unbounded => self.keys.len(),
            Bound::Included(row) => self.lower_bound(&StoreKey::last_on_row(row)),
            Bound::Excluded(row) => self.lower_bound(&StoreKey::first_on_row(row)),
        };
        Ok(self.keys[..end]
            .iter()
            .rev()
            .find(|k| k.cell.seq_id <= self.read_point)
            .map(|k| k.cell.row_bytes()))
    }
}

/// A frozen part of a store's memstore: a skip list waiting to be flattened, or flat.
#[derive(Debug, Clone)]
pub enum Segment {
    List(Arc<MemStore>),
    Flat(Arc<FlatSegment>),
}

impl Segment {
    /// A cursor over the segment's cells visible at `read_point`, valid while `guard` is held.
    pub fn cursor<'g>(&'g self, read_point: u64, guard: &'g Guard) -> Box<dyn CellCursor + 'g> {
        match self {
            Segment::List(list) => Box::new(list.cursor(read_point, guard)),
            Segment::Flat(flat) => Box::new(flat.cursor(read_point)),
        }
    }

    /// The segment flat: itself, or a flat copy of its list.
    pub fn flattened(&self) -> Arc<FlatSegment> {
        match self {
            Segment::List(list) => Arc::new(FlatSegment::flatten(list)),
            Segment::Flat(flat) => Arc::clone(flat),
        }
    }

    /// False only if the segment surely holds no cell of `row` (a flat segment's row filter
    /// says so; a list cannot tell).
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        match self {
            Segment::List(_) => true,
            Segment::Flat(flat) => flat.may_contain_row(row),
        }
    }

    /// Whether both are the same segment (not merely equal cells).
    pub fn is(&self, other: &Segment) -> bool {
        match (self, other) {
            (Segment::List(a), Segment::List(b)) => Arc::ptr_eq(a, b),
            (Segment::Flat(a), Segment::Flat(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::CellType;

    fn cell(row: &[u8], q: &[u8], ts: i64, seq: u64) -> Cell {
        Cell::new(row, b"cf", q, ts, CellType::Put, b"value").with_seq_id(seq)
    }

    /// A pseudo-random memstore: rows r0..r40, two qualifiers, a few versions, sequence ids
    /// 1..=n in insertion order.
    fn list(n: u64, salt: u64) -> MemStore {
        let m = MemStore::new();
        for i in 0..n {
            let h = (i + salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            let row = format!("r{:02}", h % 40);
            let q: &[u8] = if h.is_multiple_of(3) { b"a" } else { b"b" };
            m.insert(cell(row.as_bytes(), q, (h % 7) as i64, i + 1 + salt * 1000));
        }
        m
    }

    fn drain(cursor: &mut dyn CellCursor) -> Vec<Cell> {
        let mut out = Vec::new();
        while let Some(c) = cursor.peek() {
            out.push(c.clone());
            cursor.advance().unwrap_or_default();
        }
        out
    }

    #[test]
    fn a_flat_segment_reads_as_its_list_does() {
        let m = list(300, 0);
        let flat = FlatSegment::flatten(&m);
        assert_eq!(flat.len(), m.cell_count());
        let guard = crossbeam_epoch::pin();
        for read_point in [0, 1, 50, 150, 299, u64::MAX] {
            for target in ["", "r00", "r05", "r17", "r39", "r4", "s"] {
                let mut lc = m.cursor(read_point, &guard);
                let mut fc = flat.cursor(read_point);
                let key = Cell::first_on_row(target.as_bytes());
                lc.seek(&key).unwrap_or_default();
                fc.seek(&key).unwrap_or_default();
                assert_eq!(drain(&mut lc), drain(&mut fc), "{read_point} {target}");
                for bound in [
                    Bound::Unbounded,
                    Bound::Included(target.as_bytes()),
                    Bound::Excluded(target.as_bytes()),
                ] {
                    assert_eq!(
                        lc.last_row_before(bound).ok(),
                        fc.last_row_before(bound).ok(),
                        "{read_point} {target} {bound:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn merged_and_ranged_walks_keep_key_order() {
        let (a, b, c) = (list(200, 1), list(150, 2), list(90, 3));
        let flats: Vec<Arc<FlatSegment>> = [&a, &b, &c]
            .iter()
            .map(|m| Arc::new(FlatSegment::flatten(m)))
            .collect();
        let mut expected: Vec<Cell> = Vec::new();
        for m in [&a, &b, &c] {
            m.for_each_cell(|c| expected.push(c.clone()));
        }
        expected.sort_by(|x, y| StoreKey::new(x.clone()).cmp(&StoreKey::new(y.clone())));
        let merged = FlatSegment::merge(&FlatSegment::merge(&flats[0], &flats[1]), &flats[2]);
        let guard = crossbeam_epoch::pin();
        let segment = Segment::Flat(Arc::new(merged));
        let mut all = segment.cursor(u64::MAX, &guard);
        all.seek(&Cell::first_on_row(b"")).unwrap_or_default();
        assert_eq!(drain(all.as_mut()), expected);
        let listed = Segment::List(Arc::new(list(10, 0)));
        assert!(segment.is(&segment.clone()) && listed.is(&listed.clone()));
        assert!(!listed.is(&Segment::Flat(listed.flattened())));

        let cuts = [None, Some(&b"r10"[..]), Some(b"r10\0"), Some(b"r33"), None];
        let mut walked = Vec::new();
        for pair in cuts.windows(2) {
            let (from, to) = (pair[0], pair[1]);
            for_each_cell_in(&flats, from, to, |c| {
                walked.push(c.clone());
                Ok(())
            })
            .unwrap_or_default();
        }
        assert_eq!(walked, expected);
    }

    #[test]
    fn the_row_filter_keeps_every_row_and_few_others() {
        let m = MemStore::new();
        for i in 0..5_000u64 {
            m.insert(cell(format!("row{i:06}").as_bytes(), b"q", 1, i + 1));
            m.insert(cell(format!("row{i:06}").as_bytes(), b"r", 1, i + 1));
        }
        let flat = FlatSegment::flatten(&m);
        assert!((0..5_000).all(|i| flat.may_contain_row(format!("row{i:06}").as_bytes())));
        let others = (5_000..25_000)
            .filter(|i| flat.may_contain_row(format!("row{i:06}").as_bytes()))
            .count();
        assert!(others < 1_000, "{others} of 20,000 absent rows pass");
        let empty = FlatSegment::flatten(&MemStore::new());
        assert!(!empty.may_contain_row(b"row"));
    }

    #[test]
    fn split_rows_cut_into_ascending_distinct_rows() {
        let m = MemStore::new();
        for i in 0..20_000u64 {
            m.insert(cell(format!("row{i:06}").as_bytes(), b"q", 1, i + 1));
        }
        let flat = vec![Arc::new(FlatSegment::flatten(&m))];
        let cuts = split_rows(&flat, 4);
        assert_eq!(cuts.len(), 3);
        assert!(cuts.windows(2).all(|w| w[0] < w[1]));
        assert!(split_rows(&flat, 1).is_empty());
        let small = vec![Arc::new(FlatSegment::flatten(&list(100, 0)))];
        assert!(split_rows(&small, 8).is_empty(), "too few cells to cut");
    }
}
