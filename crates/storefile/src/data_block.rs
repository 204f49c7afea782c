//! Data block payloads: prefix-encoded cell records with restart points
//! (docs/design/storefile.md, "Data blocks").

use std::cmp::Ordering;

use basalt_common::cell::{StoreKey, compare_key_in_store};
use basalt_common::{Bytes, Cell};

use crate::block::{self, BlockKind, Codec, HEADER_LEN};
use crate::key::{self, KeyParts, Step, decode_key, encode_key};
use crate::varint;

/// A key is stored whole (a restart) at least every this many cells.
pub const RESTART_INTERVAL: usize = 16;
/// A cell that starts a row is a restart once this many cells have passed since the last
/// one, so a seek for a row usually lands on a restart (format 1.1).
pub const ROW_RESTART_INTERVAL: usize = 8;

/// Flags: a TTL follows the sequence id.
const FLAG_TTL: u8 = 1;
/// Flags (format 1.1): the record is the first cell of its row in the file.
const FLAG_ROW_START: u8 = 2;

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
    /// Cells added since the last restart.
    since_restart: usize,
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
            since_restart: 0,
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
        let restart = self.count == 0
            || self.since_restart >= RESTART_INTERVAL
            || (step == Step::NewRow && self.since_restart >= ROW_RESTART_INTERVAL);
        let shared = if restart {
            self.restarts.push((self.buf.len() - HEADER_LEN) as u32);
            self.since_restart = 0;
            0
        } else {
            shared
        };
        self.since_restart += 1;
        let value = cell.value();
        varint::put(&mut self.buf, shared as u64);
        varint::put(&mut self.buf, (self.key.len() - shared) as u64);
        varint::put(&mut self.buf, value.len() as u64);
        let mut flags = 0;
        if cell.ttl_ms.is_some() {
            flags |= FLAG_TTL;
        }
        if step == Step::NewRow {
            flags |= FLAG_ROW_START;
        }
        self.buf.push(flags);
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

    /// Where `cell` (of the same family) stands after every cell added so far.
    pub fn step_after(&self, cell: &Cell) -> Step {
        let mut key = Vec::new();
        encode_key(cell, &mut key);
        self.after_last(&key, cell.seq_id).0
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
        self.since_restart = 0;
        block::frame(BlockKind::Data, codec, payload)
    }
}

/// A data block's payload, searched where it lies: a seek binary-searches the keys at its
/// restart points and decodes forward from the nearest one, so it decodes a few keys, not
/// the block. The block cache holds these: the payload's bytes, shared, never copied.
#[derive(Debug)]
pub struct DataBlock {
    payload: Bytes,
    /// Where the records end and the restart array begins.
    records_end: usize,
    restarts: usize,
    /// The search array over the restart records' rows, made when the block is read (while
    /// its bytes are in the CPU's caches): a seek narrows the restarts to those of the
    /// target's row without touching a record, where a binary search over the records
    /// would miss the cache at every step.
    search: RowSearch,
}

/// A record's lengths and flags, and where its key suffix lies in the payload.
#[derive(Debug)]
struct Head {
    shared: u64,
    value_len: u64,
    flags: u8,
    suffix: std::ops::Range<usize>,
}

/// One record's fields after its key.
#[derive(Debug, Clone, Copy)]
struct Record {
    value_start: usize,
    value_end: usize,
    seq: u64,
    ttl: Option<u64>,
    /// Whether the record is the first cell of its row (format 1.1; never set before).
    row_start: bool,
    /// Offset of the record after it.
    end: usize,
}

impl DataBlock {
    /// The block of `payload`, whose restart array is checked here; its records are checked
    /// as they are read.
    pub fn new(payload: Bytes) -> Result<DataBlock, String> {
        if payload.len() < 4 {
            return Err("data block shorter than its restart count".into());
        }
        let restarts = be32(&payload, payload.len() - 4);
        let records_end = restarts
            .checked_mul(4)
            .and_then(|n| payload.len().checked_sub(4 + n))
            .filter(|_| restarts >= 1)
            .ok_or_else(|| format!("restart count {restarts} does not fit the block"))?;
        if records_end == 0 {
            return Err("data block holds no cells".into());
        }
        let mut block = DataBlock {
            payload,
            records_end,
            restarts,
            search: RowSearch::default(),
        };
        let mut previous = None;
        let mut rows = Vec::with_capacity(restarts);
        for i in 0..restarts {
            let at = block.restart(i);
            if previous.map_or(at != 0, |p| at <= p) || at >= records_end {
                return Err("restart offsets are not ascending from 0 within the records".into());
            }
            previous = Some(at);
            rows.push(block.restart_row(at)?);
        }
        if rows.windows(2).any(|w| w[0] > w[1]) {
            return Err("restart rows do not ascend".into());
        }
        block.search = RowSearch::over_rows(rows.iter().copied());
        Ok(block)
    }

    /// The row of the restart record at `at`, whose key is stored whole.
    fn restart_row(&self, at: usize) -> Result<&[u8], String> {
        let head = self.head(at)?;
        if head.shared != 0 {
            return Err(format!(
                "restart record at payload offset {at} shares {} bytes of a key before it",
                head.shared
            ));
        }
        Ok(decode_key(&self.payload[head.suffix])
            .map_err(|e| format!("restart record at payload offset {at}: {e}"))?
            .row)
    }

    fn restart(&self, i: usize) -> usize {
        be32(&self.payload, self.records_end + 4 * i)
    }

    /// The bytes the block takes in memory.
    pub fn weight(&self) -> usize {
        self.payload.len() + std::mem::size_of::<DataBlock>() + self.search.size()
    }

    /// Every cell of the block, in order.
    pub fn cells(&self) -> Result<Vec<Cell>, String> {
        let mut cursor = BlockCursor::default();
        cursor.first(self)?;
        cursor.take_rest(self)
    }

    /// The fields of the record at `at` up to its key suffix, each checked to lie within the
    /// records.
    fn head(&self, at: usize) -> Result<Head, String> {
        let records = &self.payload[..self.records_end];
        let truncated = |what: &str| format!("record at payload offset {at}: truncated {what}");
        let mut pos = at;
        let shared = varint::get(records, &mut pos).ok_or_else(|| truncated("shared length"))?;
        let unshared = varint::get(records, &mut pos).ok_or_else(|| truncated("key length"))?;
        let value_len = varint::get(records, &mut pos).ok_or_else(|| truncated("value length"))?;
        let flags = *records.get(pos).ok_or_else(|| truncated("flags"))?;
        pos += 1;
        let suffix_end = usize::try_from(unshared)
            .ok()
            .and_then(|len| pos.checked_add(len))
            .filter(|&e| e <= records.len())
            .ok_or_else(|| truncated("key"))?;
        Ok(Head {
            shared,
            value_len,
            flags,
            suffix: pos..suffix_end,
        })
    }

    /// Reads the record at `at`, whose key shares a prefix with `key` (the previous record's
    /// key, or empty at a restart), and leaves its key in `key`.
    fn record(&self, at: usize, key: &mut Vec<u8>) -> Result<Record, String> {
        let records = &self.payload[..self.records_end];
        let truncated = |what: &str| format!("record at payload offset {at}: truncated {what}");
        let head = self.head(at)?;
        let shared = usize::try_from(head.shared)
            .ok()
            .filter(|&s| s <= key.len())
            .ok_or_else(|| {
                format!(
                    "record at payload offset {at} shares {} bytes of a {}-byte key",
                    head.shared,
                    key.len()
                )
            })?;
        key.truncate(shared);
        key.extend_from_slice(&records[head.suffix.clone()]);
        let (suffix_end, flags) = (head.suffix.end, head.flags);
        let value_end = usize::try_from(head.value_len)
            .ok()
            .and_then(|len| suffix_end.checked_add(len))
            .filter(|&e| e <= records.len())
            .ok_or_else(|| truncated("value"))?;
        let mut pos = value_end;
        let seq = varint::get(records, &mut pos).ok_or_else(|| truncated("sequence id"))?;
        let ttl = if flags & FLAG_TTL != 0 {
            Some(varint::get(records, &mut pos).ok_or_else(|| truncated("TTL"))?)
        } else {
            None
        };
        Ok(Record {
            value_start: suffix_end,
            value_end,
            seq,
            ttl,
            row_start: flags & FLAG_ROW_START != 0,
            end: pos,
        })
    }
}

/// The cells of a data block payload, in order (the file inspector's and the fuzz targets'
/// walk; readers search blocks in place).
pub fn decode(payload: &[u8]) -> Result<Vec<Cell>, String> {
    DataBlock::new(Bytes::copy_from_slice(payload))?.cells()
}

fn be32(bytes: &[u8], at: usize) -> usize {
    u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
}

/// A position in a [`DataBlock`]: the current record, its key decoded. It does not hold the
/// block; every call is given the same one.
#[derive(Debug, Default)]
pub struct BlockCursor {
    /// The current record's whole key.
    key: Vec<u8>,
    /// The current record; `None` past the last.
    current: Option<Record>,
    /// Offset of the record after the current one.
    next: usize,
}

impl BlockCursor {
    /// Moves to the block's first record; false if it has none.
    pub fn first(&mut self, block: &DataBlock) -> Result<bool, String> {
        self.jump(block, 0)
    }

    /// Moves to the record at restart offset `at`.
    fn jump(&mut self, block: &DataBlock, at: usize) -> Result<bool, String> {
        self.key.clear();
        self.next = at;
        self.step(block)
    }

    /// Moves to the next record; false past the last.
    pub fn step(&mut self, block: &DataBlock) -> Result<bool, String> {
        if self.next >= block.records_end {
            self.current = None;
            return Ok(false);
        }
        let record = block.record(self.next, &mut self.key)?;
        self.next = record.end;
        self.current = Some(record);
        Ok(true)
    }

    /// Whether the current record is marked as the first cell of its row (format 1.1).
    pub fn starts_row(&self) -> bool {
        self.current.is_some_and(|r| r.row_start)
    }

    /// The current record's key parts, if there is one.
    fn parts(&self) -> Result<Option<(KeyParts<'_>, Record)>, String> {
        let Some(record) = self.current else {
            return Ok(None);
        };
        let parts = decode_key(&self.key)
            .map_err(|e| format!("record ending at payload offset {}: {e}", record.end))?;
        Ok(Some((parts, record)))
    }

    /// How the current record compares to `target` in store order; `Greater` past the last.
    fn compare(&self, target: &Cell) -> Result<Ordering, String> {
        Ok(match self.parts()? {
            None => Ordering::Greater,
            Some((k, record)) => compare_key_in_store(
                &StoreKey {
                    row: k.row,
                    qualifier: k.qualifier,
                    timestamp: k.timestamp,
                    type_code: k.cell_type.code(),
                    seq_id: record.seq,
                },
                target,
            ),
        })
    }

    /// The current record's row, if there is one.
    pub fn row(&self) -> Result<Option<&[u8]>, String> {
        Ok(self.parts()?.map(|(k, _)| k.row))
    }

    /// The current record as a cell of its own (one allocation), if there is one.
    pub fn cell(&self, block: &DataBlock) -> Result<Option<Cell>, String> {
        let Some((k, record)) = self.parts()? else {
            return Ok(None);
        };
        let value = &block.payload[record.value_start..record.value_end];
        Ok(Some(
            Cell::new(
                k.row,
                k.family,
                k.qualifier,
                k.timestamp,
                k.cell_type,
                value,
            )
            .with_seq_id(record.seq)
            .with_ttl_ms(record.ttl),
        ))
    }

    /// The cells from the current record to the block's end, decoded into one shared
    /// buffer (a scan's, which reads them all: one allocation, not one a cell); leaves the
    /// cursor past the end.
    pub fn take_rest(&mut self, block: &DataBlock) -> Result<Vec<Cell>, String> {
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
        let from = self.next;
        let mut bytes = Vec::with_capacity(block.records_end.saturating_sub(from) + 256);
        let mut parsed = Vec::new();
        while let Some((k, record)) = self.parts()? {
            let start = bytes.len();
            bytes.extend_from_slice(k.row);
            bytes.extend_from_slice(k.family);
            bytes.extend_from_slice(k.qualifier);
            bytes.extend_from_slice(&block.payload[record.value_start..record.value_end]);
            parsed.push(Parsed {
                start,
                row: k.row.len(),
                family: k.family.len(),
                qualifier: k.qualifier.len(),
                timestamp: k.timestamp,
                cell_type: k.cell_type,
                seq: record.seq,
                ttl: record.ttl,
            });
            self.step(block)?;
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

    /// How many restart keys sort before `target`, by binary search; leaves the cursor
    /// anywhere.
    fn restarts_before(&mut self, block: &DataBlock, target: &Cell) -> Result<usize, String> {
        // Restarts of smaller rows are before the target, those of greater ones after it.
        let candidates = block.search.candidates(target.row());
        let (mut lo, mut hi) = (candidates.start, candidates.end);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            self.jump(block, block.restart(mid))?;
            if self.compare(target)?.is_lt() {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// Moves to the first record at or after `target` in store order; false if every record
    /// of the block is before it.
    pub fn seek(&mut self, block: &DataBlock, target: &Cell) -> Result<bool, String> {
        // The first record at or after the target lies after the last restart before it, at
        // the latest on the next restart: that one itself if it starts the target's row.
        let before = self.restarts_before(block, target)?;
        if before < block.restarts {
            self.jump(block, block.restart(before))?;
            if let Some((k, record)) = self.parts()?
                && record.row_start
                && k.row == target.row()
            {
                return Ok(true);
            }
        }
        self.jump(block, block.restart(before.saturating_sub(1)))?;
        while self.compare(target)?.is_lt() {
            self.step(block)?;
        }
        Ok(self.current.is_some())
    }

    /// The row of the last record before `target` in store order (of the last record, with
    /// no target), if one is; leaves the cursor anywhere.
    pub fn last_row_before(
        &mut self,
        block: &DataBlock,
        target: Option<&Cell>,
    ) -> Result<Option<Bytes>, String> {
        let before = match target {
            Some(t) => self.restarts_before(block, t)?,
            None => block.restarts,
        };
        if before == 0 {
            return Ok(None);
        }
        self.jump(block, block.restart(before - 1))?;
        let mut row: Vec<u8> = Vec::new();
        while match target {
            Some(t) => self.compare(t)?.is_lt(),
            None => self.current.is_some(),
        } {
            if let Some((k, _)) = self.parts()?
                && k.row != row
            {
                row = k.row.to_vec();
            }
            self.step(block)?;
        }
        Ok(Some(Bytes::from(row)))
    }
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
        RowSearch::over_rows(cells.into_iter().map(Cell::row))
    }

    /// The search array of ascending `rows`.
    pub fn over_rows<'a, I>(rows: I) -> RowSearch
    where
        I: Iterator<Item = &'a [u8]> + DoubleEndedIterator + Clone,
    {
        let prefix: Box<[u8]> = match (rows.clone().next(), rows.clone().next_back()) {
            (Some(first), Some(last)) => first[..common_prefix(first, last)].into(),
            _ => Box::default(),
        };
        let windows = rows.map(|r| window(r, prefix.len())).collect();
        RowSearch { prefix, windows }
    }

    /// The items that may have row `row`: every item before the range has a smaller row,
    /// every item after it a greater one.
    pub fn candidates(&self, row: &[u8]) -> std::ops::Range<usize> {
        use std::cmp::Ordering;
        let len = self.windows.len();
        let shared = row.len().min(self.prefix.len());
        match row[..shared].cmp(&self.prefix[..shared]) {
            // The row sorts before (after) every row of the run.
            Ordering::Less => return 0..0,
            Ordering::Greater => return len..len,
            // A row that is a proper prefix of every row here sorts before them all.
            Ordering::Equal if row.len() < self.prefix.len() => return 0..0,
            Ordering::Equal => {}
        }
        let w = window(row, self.prefix.len());
        // Items with a smaller window have a smaller row, those with a larger one a larger
        // row; only equal windows need the whole comparison.
        let lo = self.windows.partition_point(|&x| x < w);
        // The run of equal windows is mostly short (rows differ within eight bytes of the
        // prefix): a few steps from `lo` find its end in the cache lines the first search
        // left warm, where a second binary search would miss the cache again at each step.
        let rest = &self.windows[lo..];
        let near = rest.iter().take(8).take_while(|&&x| x == w).count();
        let hi = if near < 8 {
            lo + near
        } else {
            lo + rest.partition_point(|&x| x == w)
        };
        lo..hi
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
        debug_assert_eq!(run.len(), self.windows.len());
        let range = self.candidates(target.row());
        range.start
            + run[range].partition_point(|item| {
                before(basalt_common::cell::compare_in_store(cell(item), target))
            })
    }

    /// The bytes the array takes.
    pub fn size(&self) -> usize {
        self.prefix.len() + 8 * self.windows.len()
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
            let payload = block::decode(BlockKind::Data, &framed.into()).unwrap();
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
        let payload = block::decode(BlockKind::Data, &framed.into()).unwrap();
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
            let search = RowSearch::new(&cells);
            // The same cells as a block with a restart every few records, searched in place.
            let mut builder = DataBlockBuilder::default();
            for c in &cells {
                builder.add(c);
            }
            let block = (!cells.is_empty()).then(|| {
                let framed = builder.finish(Codec::None).unwrap();
                DataBlock::new(block::decode(BlockKind::Data, &framed.into()).unwrap()).unwrap()
            });
            let mut cursor = BlockCursor::default();
            for (row, kind, ts) in targets {
                let target = match kind {
                    0 => Cell::first_on_row(&row),
                    1 => Cell::last_on_row(&row),
                    _ => Cell::put(&row, b"cf", if kind == 2 { b"a" } else { b"b" }, ts, b""),
                };
                let expected = cells
                    .partition_point(|c| compare_in_store(c, &target) == std::cmp::Ordering::Less);
                proptest::prop_assert_eq!(
                    search.partition(&cells, |c| c, &target, std::cmp::Ordering::is_lt),
                    expected,
                    "{}",
                    target
                );
                if let Some(block) = &block {
                    let found = cursor.seek(block, &target).unwrap();
                    proptest::prop_assert_eq!(found, expected < cells.len());
                    let cell = cursor.cell(block).unwrap();
                    proptest::prop_assert_eq!(
                        cell.as_ref(),
                        cells.get(expected),
                        "{}",
                        target
                    );
                    let before = cursor.last_row_before(block, Some(&target)).unwrap();
                    proptest::prop_assert_eq!(
                        before,
                        expected.checked_sub(1).map(|i| cells[i].row_bytes()),
                        "{}",
                        target
                    );
                }
                // The other predicate an index search uses: at or before the target.
                let at_or_before = cells.partition_point(|c| compare_in_store(c, &target).is_le());
                proptest::prop_assert_eq!(
                    search.partition(&cells, |c| c, &target, std::cmp::Ordering::is_le),
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
        let search = RowSearch::new(
            &["user0001", "user0002", "user00020", "user0003"]
                .map(|r| Cell::put(r.as_bytes(), b"cf", b"q", 1, b"v")),
        );
        assert_eq!(&*search.prefix, b"user000");
        assert!(search.windows.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(search.size(), 7 + 4 * 8);
    }
}
