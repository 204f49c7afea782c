//! Data block payloads: prefix-encoded cell records with restart points
//! (docs/design/storefile.md, "Data blocks").

use basalt_common::{Bytes, Cell};

use crate::block::{self, BlockKind, Codec, HEADER_LEN};
use crate::key::{self, Step, decode_key, encode_key};
use crate::varint;

/// Every this many cells, a key is stored whole.
pub const RESTART_INTERVAL: usize = 16;

const FLAG_TTL: u8 = 1;

/// How many leading bytes `a` and `b` share, eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let word = |s: &[u8]| {
        let mut w = [0u8; 8];
        w.copy_from_slice(s);
        u64::from_le_bytes(w)
    };
    let mut i = 0;
    while i + 8 <= n {
        let diff = word(&a[i..i + 8]) ^ word(&b[i..i + 8]);
        if diff != 0 {
            // Little-endian: the first differing byte holds the lowest set bit.
            return i + (diff.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..n]
        .iter()
        .zip(&b[i..n])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Accumulates the cells of one data block, in the buffer that becomes its frame. It checks
/// that every key follows the one before, across blocks.
#[derive(Debug)]
pub struct DataBlockBuilder {
    /// Room for the frame's header, then the records.
    buf: Vec<u8>,
    restarts: Vec<u32>,
    /// The sequence id of the last cell added (kept when a block is finished); `None`
    /// before the first.
    last: Option<u64>,
    /// The encoded key of the last cell added.
    last_key: Vec<u8>,
    /// Scratch for the key of the cell being added.
    key: Vec<u8>,
    count: usize,
}

impl Default for DataBlockBuilder {
    fn default() -> Self {
        DataBlockBuilder {
            buf: vec![0; HEADER_LEN],
            restarts: Vec::new(),
            last: None,
            last_key: Vec::new(),
            key: Vec::new(),
            count: 0,
        }
    }
}

impl DataBlockBuilder {
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Payload bytes so far, restart array included.
    pub fn size(&self) -> usize {
        self.buf.len() - HEADER_LEN + 4 * (self.restarts.len() + 1)
    }

    /// Adds `cell`, which must be of the same family as every cell before it, if its key
    /// follows the last one added; says where it stands. A cell whose key does not follow
    /// ([`Step::NotAfter`]) is not added.
    pub fn add(&mut self, cell: &Cell) -> Step {
        self.key.clear();
        encode_key(cell, &mut self.key);
        let (step, shared) = self.after_last(&self.key, cell.seq_id);
        if step == Step::NotAfter {
            return step;
        }
        let shared = if self.count.is_multiple_of(RESTART_INTERVAL) {
            self.restarts.push((self.buf.len() - HEADER_LEN) as u32);
            0
        } else {
            shared
        };
        let value = cell.value();
        varint::put(&mut self.buf, shared as u64);
        varint::put(&mut self.buf, (self.key.len() - shared) as u64);
        varint::put(&mut self.buf, value.len() as u64);
        self.buf
            .push(if cell.ttl_ms.is_some() { FLAG_TTL } else { 0 });
        self.buf.extend_from_slice(&self.key[shared..]);
        self.buf.extend_from_slice(value);
        varint::put(&mut self.buf, cell.seq_id);
        if let Some(ttl) = cell.ttl_ms {
            varint::put(&mut self.buf, ttl);
        }
        std::mem::swap(&mut self.last_key, &mut self.key);
        self.last = Some(cell.seq_id);
        self.count += 1;
        step
    }

    /// Where encoded key `key` with sequence id `seq` stands after the last cell added, and
    /// the length of the prefix the two keys share.
    fn after_last(&self, key: &[u8], seq: u64) -> (Step, usize) {
        match self.last {
            None => (Step::NewRow, 0),
            Some(last_seq) => {
                let shared = common_prefix(&self.last_key, key);
                (
                    key::step(&self.last_key, last_seq, key, seq, shared),
                    shared,
                )
            }
        }
    }

    /// Whether `cell` (of the same family) sorts after every cell added so far.
    pub fn follows(&self, cell: &Cell) -> bool {
        let mut key = Vec::new();
        encode_key(cell, &mut key);
        self.after_last(&key, cell.seq_id).0 != Step::NotAfter
    }

    /// The last cell added (with an empty value).
    pub fn last_cell(&self) -> Option<Cell> {
        let seq = self.last?;
        // The key was encoded here from a valid cell.
        key::key_cell(&self.last_key, seq).ok()
    }

    /// Takes `later`'s last key as this builder's, if it has one: its cells were written
    /// after this builder's.
    pub fn continue_after(&mut self, later: &mut DataBlockBuilder) {
        if later.last.is_some() {
            std::mem::swap(&mut self.last_key, &mut later.last_key);
            self.last = later.last;
        }
    }

    /// The finished block, framed with `codec`; the builder is empty again afterwards.
    pub fn finish(&mut self, codec: Codec) -> std::io::Result<Vec<u8>> {
        for r in &self.restarts {
            self.buf.extend_from_slice(&r.to_be_bytes());
        }
        self.buf
            .extend_from_slice(&(self.restarts.len() as u32).to_be_bytes());
        // The next block starts with room for a whole one: no regrowing from empty.
        let mut next = Vec::with_capacity(self.buf.capacity());
        next.resize(HEADER_LEN, 0);
        let payload = std::mem::replace(&mut self.buf, next);
        self.restarts.clear();
        self.count = 0;
        block::frame(BlockKind::Data, codec, payload)
    }
}

/// The cells of a data block payload, in order. Their bytes share one buffer.
pub fn decode(payload: &[u8]) -> Result<Vec<Cell>, String> {
    let be32 = |at: usize| {
        u32::from_be_bytes([
            payload[at],
            payload[at + 1],
            payload[at + 2],
            payload[at + 3],
        ]) as usize
    };
    if payload.len() < 4 {
        return Err("data block shorter than its restart count".into());
    }
    let restarts = be32(payload.len() - 4);
    let records_end = restarts
        .checked_mul(4)
        .and_then(|n| payload.len().checked_sub(4 + n))
        .filter(|_| restarts >= 1)
        .ok_or_else(|| format!("restart count {restarts} does not fit the block"))?;
    let restart_offsets: Vec<usize> = (0..restarts).map(|i| be32(records_end + 4 * i)).collect();
    if restart_offsets[0] != 0 || restart_offsets.windows(2).any(|w| w[0] >= w[1]) {
        return Err("restart offsets are not ascending from 0".into());
    }

    struct Parsed {
        start: usize,
        row: usize,
        family: usize,
        qualifier: usize,
        timestamp: i64,
        cell_type: basalt_common::CellType,
        seq: u64,
        ttl: Option<u64>,
    }
    let mut bytes = Vec::with_capacity(records_end);
    let mut parsed = Vec::new();
    let mut key: Vec<u8> = Vec::new();
    let mut pos = 0;
    let truncated =
        |what: &str, at: usize| format!("record at payload offset {at}: truncated {what}");
    while pos < records_end {
        let at = pos;
        let is_restart = restart_offsets.binary_search(&at).is_ok();
        let shared = varint::get(&payload[..records_end], &mut pos)
            .ok_or_else(|| truncated("shared length", at))? as usize;
        let unshared = varint::get(&payload[..records_end], &mut pos)
            .ok_or_else(|| truncated("key length", at))? as usize;
        let value_len = varint::get(&payload[..records_end], &mut pos)
            .ok_or_else(|| truncated("value length", at))? as usize;
        if shared > key.len() || (is_restart && shared != 0) {
            return Err(format!(
                "record at payload offset {at} shares {shared} bytes of a {}-byte key",
                key.len()
            ));
        }
        let flags = *payload[..records_end]
            .get(pos)
            .ok_or_else(|| truncated("flags", at))?;
        pos += 1;
        let suffix_end = pos
            .checked_add(unshared)
            .filter(|&e| e <= records_end)
            .ok_or_else(|| truncated("key", at))?;
        key.truncate(shared);
        key.extend_from_slice(&payload[pos..suffix_end]);
        let value_end = suffix_end
            .checked_add(value_len)
            .filter(|&e| e <= records_end)
            .ok_or_else(|| truncated("value", at))?;
        pos = value_end;
        let seq = varint::get(&payload[..records_end], &mut pos)
            .ok_or_else(|| truncated("sequence id", at))?;
        let ttl = if flags & FLAG_TTL != 0 {
            Some(
                varint::get(&payload[..records_end], &mut pos)
                    .ok_or_else(|| truncated("TTL", at))?,
            )
        } else {
            None
        };
        let parts = decode_key(&key).map_err(|e| format!("record at payload offset {at}: {e}"))?;
        let start = bytes.len();
        bytes.extend_from_slice(parts.row);
        bytes.extend_from_slice(parts.family);
        bytes.extend_from_slice(parts.qualifier);
        bytes.extend_from_slice(&payload[suffix_end..value_end]);
        parsed.push(Parsed {
            start,
            row: parts.row.len(),
            family: parts.family.len(),
            qualifier: parts.qualifier.len(),
            timestamp: parts.timestamp,
            cell_type: parts.cell_type,
            seq,
            ttl,
        });
    }
    let bytes = Bytes::from(bytes);
    let mut cells = Vec::with_capacity(parsed.len());
    for (i, p) in parsed.iter().enumerate() {
        let end = parsed.get(i + 1).map_or(bytes.len(), |n| n.start);
        let cell = Cell::from_buffer(
            bytes.slice(p.start..end),
            p.row,
            p.family,
            p.qualifier,
            p.timestamp,
            p.cell_type,
        )
        .ok_or("decoded cell does not fit its buffer")?;
        cells.push(cell.with_seq_id(p.seq).with_ttl_ms(p.ttl));
    }
    Ok(cells)
}

/// A search array over a sorted run of cells (a data block's, or the first cells of a
/// file's blocks): finds where a target falls without touching the cells themselves.
///
/// Every row in the run starts with the bytes its first and last rows share (`prefix`).
/// `windows[i]` holds the next eight bytes of cell `i`'s row after that prefix (zeros past
/// its end), big-endian, so the windows ascend with the rows. A search compares those
/// integers, which lie together in a few cache lines, and compares whole cells only among
/// the few whose window equals the target's; comparing cells touches each one's struct and
/// bytes, two cache misses per step of a binary search once the run outgrows the CPU's
/// caches.
#[derive(Debug, Default)]
pub struct RowSearch {
    prefix: Box<[u8]>,
    windows: Vec<u64>,
}

impl RowSearch {
    /// The search array of `cells`, which must be in store order.
    pub fn new<'a, I>(cells: I) -> RowSearch
    where
        I: IntoIterator<Item = &'a Cell>,
        I::IntoIter: DoubleEndedIterator + Clone,
    {
        let cells = cells.into_iter();
        let prefix: Box<[u8]> = match (cells.clone().next(), cells.clone().next_back()) {
            (Some(first), Some(last)) => {
                first.row()[..common_prefix(first.row(), last.row())].into()
            }
            _ => Box::default(),
        };
        let windows = cells.map(|c| window(c.row(), prefix.len())).collect();
        RowSearch { prefix, windows }
    }

    /// How many leading items of `run` (whose cells, by `cell`, the array was built from)
    /// stand before `target`: `partition_point` of `before`, which is given how an item's cell
    /// compares to the target in store order and must be true for every cell below it and
    /// false for every cell above it.
    pub fn partition<T>(
        &self,
        run: &[T],
        cell: impl Fn(&T) -> &Cell,
        target: &Cell,
        before: impl Fn(std::cmp::Ordering) -> bool,
    ) -> usize {
        use std::cmp::Ordering;
        debug_assert_eq!(run.len(), self.windows.len());
        let row = target.row();
        let shared = row.len().min(self.prefix.len());
        match row[..shared].cmp(&self.prefix[..shared]) {
            // The target's row sorts before (after) every row of the run.
            Ordering::Less => return 0,
            Ordering::Greater => return run.len(),
            // A row that is a proper prefix of every row here sorts before them all.
            Ordering::Equal if row.len() < self.prefix.len() => return 0,
            Ordering::Equal => {}
        }
        let w = window(row, self.prefix.len());
        // Cells with a smaller window have a smaller row, those with a larger one a larger
        // row; only equal windows need the whole comparison.
        let lo = self.windows.partition_point(|&x| x < w);
        let hi = lo + self.windows[lo..].partition_point(|&x| x == w);
        lo + run[lo..hi].partition_point(|item| {
            before(basalt_common::cell::compare_in_store(cell(item), target))
        })
    }

    /// The bytes the array takes.
    pub fn size(&self) -> usize {
        self.prefix.len() + 8 * self.windows.len()
    }
}

/// A decoded data block as readers and the block cache hold it: its cells, and the
/// [`RowSearch`] that finds a cell without touching them.
#[derive(Debug)]
pub struct DecodedBlock {
    cells: Vec<Cell>,
    search: RowSearch,
}

impl DecodedBlock {
    pub fn new(cells: Vec<Cell>) -> DecodedBlock {
        let search = RowSearch::new(&cells);
        DecodedBlock { cells, search }
    }

    /// The index of the first cell at or after `target` in store order (the length if none
    /// is): `partition_point` by `compare_in_store`, found through the search array.
    pub fn seek(&self, target: &Cell) -> usize {
        self.search
            .partition(&self.cells, |c| c, target, std::cmp::Ordering::is_lt)
    }

    /// The bytes the search array adds to the cells.
    pub fn search_bytes(&self) -> usize {
        self.search.size()
    }
}

impl std::ops::Deref for DecodedBlock {
    type Target = [Cell];

    fn deref(&self) -> &[Cell] {
        &self.cells
    }
}

/// Up to eight bytes of `row` after its first `skip`, big-endian, zeros past the end.
fn window(row: &[u8], skip: usize) -> u64 {
    let rest = row.get(skip..).unwrap_or_default();
    let n = rest.len().min(8);
    let mut w = [0u8; 8];
    w[..n].copy_from_slice(&rest[..n]);
    u64::from_be_bytes(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::CellType;

    #[test]
    fn common_prefix_counts_shared_leading_bytes() {
        let base: Vec<u8> = (0..40u8).collect();
        for len_a in 0..=40 {
            for len_b in [0, 1, 7, 8, 9, 16, 17, 40] {
                for flip in [None, Some(0), Some(3), Some(7), Some(8), Some(15), Some(33)] {
                    let a = &base[..len_a];
                    let mut b = base[..len_b].to_vec();
                    if let Some(at) = flip.filter(|&at| at < b.len()) {
                        b[at] ^= 0x80;
                    }
                    let naive = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
                    assert_eq!(common_prefix(a, &b), naive, "{len_a} {len_b} {flip:?}");
                }
            }
        }
    }

    #[test]
    fn round_trips_with_prefixes_and_restarts() {
        let mut b = DataBlockBuilder::default();
        let cells = |block: usize| -> Vec<Cell> {
            (0..40)
                .map(|i| {
                    Cell::new(
                        format!("row{block}{:03}", i / 3).as_bytes(),
                        b"cf",
                        format!("q{i:02}").as_bytes(),
                        100 - i,
                        CellType::Put,
                        format!("value{i}").as_bytes(),
                    )
                    .with_seq_id(i as u64)
                    .with_ttl_ms((i % 5 == 0).then_some(1_000))
                })
                .collect()
        };
        // Twice: the second block is built in the buffer the first one left, and its keys
        // must follow the first block's.
        for (block, codec) in [Codec::None, Codec::Lz4].into_iter().enumerate() {
            let cells = cells(block);
            for (i, c) in cells.iter().enumerate() {
                let expected = match i % 3 {
                    0 => Step::NewRow,
                    _ => Step::NewColumn,
                };
                assert_eq!(b.add(c), expected, "{c}");
                assert_eq!(b.add(c), Step::NotAfter, "{c} again");
            }
            let framed = b.finish(codec).unwrap();
            assert!(b.is_empty());
            assert_eq!(
                b.add(&cells[0]),
                Step::NotAfter,
                "a key of the finished block"
            );
            let payload = block::decode(BlockKind::Data, &framed).unwrap();
            assert_eq!(decode(&payload).unwrap(), cells, "{codec:?}");
        }
    }

    #[test]
    fn truncation_is_an_error_not_a_panic() {
        let mut b = DataBlockBuilder::default();
        for i in 0..20 {
            b.add(&Cell::put(
                b"r",
                b"cf",
                format!("{i:02}").as_bytes(),
                1,
                b"v",
            ));
        }
        let framed = b.finish(Codec::None).unwrap();
        let payload = block::decode(BlockKind::Data, &framed).unwrap();
        for len in 0..payload.len() {
            let _ = decode(&payload[..len]);
        }
        let mut bad = payload.to_vec();
        bad[0] = 5; // the first record claims to share bytes of a key before it
        assert!(decode(&bad).is_err());
    }

    /// Rows over a small alphabet with shared prefixes, prefixes of each other and zero
    /// bytes: the windows' edge cases.
    fn arb_row() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::collection::vec(
                prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(0xff)],
                0..14
            ),
            (0u32..400).prop_map(|i| format!("user{i:020}").into_bytes()),
        ]
    }

    proptest::proptest! {
        #[test]
        fn searches_are_the_store_order_partition_points(
            rows in proptest::collection::vec(arb_row(), 0..60),
            targets in proptest::collection::vec((arb_row(), 0u8..4, 0i64..3), 1..30),
        ) {
            use basalt_common::cell::compare_in_store;
            let mut cells: Vec<Cell> = rows
                .iter()
                .flat_map(|r| {
                    [b"a".as_slice(), b"b"].map(|q| Cell::put(r, b"cf", q, 1, b"v"))
                })
                .collect();
            cells.sort_by(compare_in_store);
            cells.dedup_by(|a, b| compare_in_store(a, b).is_eq());
            let block = DecodedBlock::new(cells.clone());
            proptest::prop_assert_eq!(block.len(), cells.len());
            for (row, kind, ts) in targets {
                let target = match kind {
                    0 => Cell::first_on_row(&row),
                    1 => Cell::last_on_row(&row),
                    _ => Cell::put(&row, b"cf", if kind == 2 { b"a" } else { b"b" }, ts, b""),
                };
                let expected = cells
                    .partition_point(|c| compare_in_store(c, &target) == std::cmp::Ordering::Less);
                proptest::prop_assert_eq!(block.seek(&target), expected, "{}", target);
                // The other predicate an index search uses: at or before the target.
                let at_or_before = cells.partition_point(|c| compare_in_store(c, &target).is_le());
                proptest::prop_assert_eq!(
                    block.search.partition(&cells, |c| c, &target, std::cmp::Ordering::is_le),
                    at_or_before,
                    "{}",
                    target
                );
            }
        }
    }

    #[test]
    fn windows_ascend_with_rows() {
        assert_eq!(window(b"abc", 1), u64::from_be_bytes(*b"bc\0\0\0\0\0\0"));
        assert_eq!(window(b"ab", 5), 0);
        assert_eq!(window(b"0123456789", 0), u64::from_be_bytes(*b"01234567"));
        let block = DecodedBlock::new(
            ["user0001", "user0002", "user00020", "user0003"]
                .map(|r| Cell::put(r.as_bytes(), b"cf", b"q", 1, b"v"))
                .to_vec(),
        );
        assert_eq!(&*block.search.prefix, b"user000");
        assert!(block.search.windows.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(block.search_bytes(), 7 + 4 * 8);
    }
}
