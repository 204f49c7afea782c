//! Reading a store file: the load-on-open blocks (trailer, file info, the whole index, the
//! bloom filter) are read when it opens; data blocks are read as scanners reach them.

use std::cmp::Ordering;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::cell::compare_in_store;
use basalt_common::{Bytes, Cell};
use basalt_fs::{FileSystem, ReadableFile};

use crate::block::{self, BlockKind};
use crate::block_cache::BlockCache;
use crate::bloom::BloomFilter;
use crate::data_block::{BlockCursor, DataBlock, RowSearch};
use crate::error::{Result, StoreFileError};
use crate::index;
use crate::info::FileInfo;
use crate::key::decode_index_key;
use crate::trailer::{TRAILER_LEN, Trailer};

/// Where a data block is, and its first cell (key only).
#[derive(Debug, Clone)]
pub struct BlockRef {
    pub first: Cell,
    pub offset: u64,
    pub size: u64,
}

/// How a reader uses the block cache: its family's BLOCKCACHE and IN_MEMORY.
#[derive(Debug, Clone)]
pub struct CacheUse {
    pub cache: Arc<BlockCache>,
    /// Whether blocks read from disk enter the cache (BLOCKCACHE); cached blocks are used
    /// either way.
    pub cache_blocks: bool,
    /// IN_MEMORY: its blocks are pinned in the cache.
    pub in_memory: bool,
}

/// An open store file.
#[derive(Debug)]
pub struct StoreFileReader {
    /// Process-unique: the key of its blocks in the block cache.
    id: u64,
    cache: Option<CacheUse>,
    path: PathBuf,
    file: Arc<dyn ReadableFile>,
    trailer: Trailer,
    info: FileInfo,
    blocks: Vec<BlockRef>,
    /// The search array over the blocks' first cells: a seek in a file of many blocks
    /// touches a few of those cells instead of one per step of its binary search.
    index_search: RowSearch,
    bloom: Option<BloomFilter>,
}

impl StoreFileReader {
    /// Opens `path` and reads its load-on-open blocks, checking every one.
    pub fn open(fs: &dyn FileSystem, path: &Path) -> Result<Self> {
        StoreFileReader::open_with_cache(fs, path, None)
    }

    /// As [`StoreFileReader::open`], reading data blocks through `cache`.
    pub fn open_with_cache(
        fs: &dyn FileSystem,
        path: &Path,
        cache: Option<CacheUse>,
    ) -> Result<Self> {
        let file = fs.open(path)?;
        // A file larger than an eighth of the memory the process may use cannot stay in the
        // page cache beside everything else: the kernel reads no more of it than asked
        // (RocksDB advises every file so). A smaller one keeps the kernel's read-ahead, which
        // brings a file that fits into the page cache in a few large reads.
        if file.len() > crate::block_cache::memory_limit() / 8 {
            file.advise_random();
        }
        let corrupt = |offset: u64, reason: String| StoreFileError::Corrupt {
            path: path.to_owned(),
            offset,
            reason,
        };
        let len = file.len();
        let trailer_at = len.checked_sub(TRAILER_LEN as u64).ok_or_else(|| {
            corrupt(
                0,
                format!("file of {len} bytes is shorter than the {TRAILER_LEN}-byte trailer"),
            )
        })?;
        let trailer = Trailer::decode(&file.read_at(trailer_at, TRAILER_LEN)?)
            .map_err(|r| corrupt(trailer_at, r))?;
        let mut reader = StoreFileReader {
            id: cache.as_ref().map_or(0, |c| c.cache.new_reader_id()),
            cache,
            path: path.to_owned(),
            file,
            trailer,
            info: FileInfo {
                first_key: Cell::first_on_row(b""),
                last_key: Cell::first_on_row(b""),
                min_timestamp: 0,
                max_timestamp: 0,
                max_seq_id: 0,
                cell_count: 0,
                delete_count: 0,
                delete_family_count: 0,
                family: Vec::new(),
                bloom_type: basalt_common::BloomType::None,
                compression: String::new(),
                data_block_count: 0,
                compacted_from: Vec::new(),
            },
            blocks: Vec::new(),
            index_search: RowSearch::default(),
            bloom: None,
        };
        let info_payload = reader.read_block(
            BlockKind::Info,
            trailer.file_info_offset,
            u64::from(trailer.file_info_size),
            trailer_at,
        )?;
        reader.info =
            FileInfo::decode(&info_payload).map_err(|r| corrupt(trailer.file_info_offset, r))?;
        if trailer.bloom_size > 0 {
            let payload = reader.read_block(
                BlockKind::Bloom,
                trailer.bloom_offset,
                u64::from(trailer.bloom_size),
                trailer_at,
            )?;
            reader.bloom =
                Some(BloomFilter::decode(&payload).map_err(|r| corrupt(trailer.bloom_offset, r))?);
        }
        let mut entries = reader.index_level(
            BlockKind::RootIndex,
            trailer.root_index_offset,
            u64::from(trailer.root_index_size),
            trailer_at,
        )?;
        for _ in 1..trailer.index_levels {
            let mut lower = Vec::new();
            for e in &entries {
                lower.extend(reader.index_level(
                    BlockKind::LeafIndex,
                    e.offset,
                    e.size,
                    trailer_at,
                )?);
            }
            entries = lower;
        }
        let mut previous_end = 0;
        for e in entries {
            if e.offset < previous_end {
                return Err(corrupt(
                    e.offset,
                    "index entries overlap or go backwards".into(),
                ));
            }
            previous_end = e.offset + e.size;
            let first = decode_index_key(&e.key)
                .map_err(|r| corrupt(trailer.root_index_offset, format!("index key: {r}")))?;
            reader.blocks.push(BlockRef {
                first,
                offset: e.offset,
                size: e.size,
            });
        }
        if reader.blocks.is_empty() || reader.blocks.len() as u64 != reader.info.data_block_count {
            return Err(corrupt(
                trailer.root_index_offset,
                format!(
                    "index lists {} data blocks, the file info {}",
                    reader.blocks.len(),
                    reader.info.data_block_count
                ),
            ));
        }
        reader.index_search = RowSearch::new(reader.blocks.iter().map(|b| &b.first));
        Ok(reader)
    }

    fn index_level(
        &self,
        kind: BlockKind,
        offset: u64,
        size: u64,
        limit: u64,
    ) -> Result<Vec<index::IndexEntry>> {
        let payload = self.read_block(kind, offset, size, limit)?;
        index::decode(&payload).map_err(|reason| self.corrupt(offset, reason))
    }

    fn corrupt(&self, offset: u64, reason: String) -> StoreFileError {
        StoreFileError::Corrupt {
            path: self.path.clone(),
            offset,
            reason,
        }
    }

    /// Reads and checks the block at `offset`, which must end before `limit`.
    fn read_block(&self, kind: BlockKind, offset: u64, size: u64, limit: u64) -> Result<Bytes> {
        if offset.checked_add(size).is_none_or(|end| end > limit)
            || size > block::MAX_PAYLOAD as u64
        {
            return Err(self.corrupt(
                offset,
                format!("block of {size} bytes at {offset} runs past {limit}"),
            ));
        }
        let bytes = self.file.read_at(offset, size as usize)?;
        block::decode(kind, &bytes).map_err(|reason| self.corrupt(offset, reason))
    }

    /// Data block `i`, from the block cache or from the file (and then cached, if the family
    /// caches blocks).
    pub fn data_block(&self, i: usize) -> Result<Arc<DataBlock>> {
        self.data_block_cached(i, true)
    }

    /// [`StoreFileReader::data_block`]; with `cache_new` false, a block read from the file is
    /// not added to the cache (a read that set `cache_blocks(false)`, or a compaction).
    pub fn data_block_cached(&self, i: usize, cache_new: bool) -> Result<Arc<DataBlock>> {
        self.load_block(i, self.caches(cache_new))
    }

    /// Whether a block a read fetches enters the cache: the family caches blocks
    /// (BLOCKCACHE) and the read asks for it (`cache_new`).
    fn caches(&self, cache_new: bool) -> bool {
        self.cache.as_ref().is_some_and(|c| c.cache_blocks) && cache_new
    }

    /// Data block `i` from the cache, or from the file (and then into the cache if `cache`).
    /// A block read from the file is checked once (frame, checksum, restart array, first key)
    /// and searched in place from then on.
    fn load_block(&self, i: usize, cache: bool) -> Result<Arc<DataBlock>> {
        let b = self.block_ref(i)?;
        if let Some(block) = self.cached(b) {
            return Ok(block);
        }
        let payload = self.read_block(BlockKind::Data, b.offset, b.size, self.trailer_offset())?;
        self.adopt(b, payload, cache)
    }

    fn block_ref(&self, i: usize) -> Result<&BlockRef> {
        self.blocks
            .get(i)
            .ok_or_else(|| self.corrupt(0, format!("no data block {i}")))
    }

    fn cached(&self, b: &BlockRef) -> Option<Arc<DataBlock>> {
        self.cache
            .as_ref()
            .and_then(|c| c.cache.get((self.id, b.offset)))
    }

    /// The data block `b` whose checked, uncompressed payload is `payload`, after checking
    /// its restarts and its first key against the index; into the cache if `cache`.
    fn adopt(&self, b: &BlockRef, payload: Bytes, cache: bool) -> Result<Arc<DataBlock>> {
        let block = DataBlock::new(payload).map_err(|r| self.corrupt(b.offset, r))?;
        let mut cursor = BlockCursor::default();
        let first = cursor
            .first(&block)
            .and_then(|_| cursor.cell(&block))
            .map_err(|r| self.corrupt(b.offset, r))?;
        // The index holds the block's first key, or the first-on-row key of the row the block
        // starts (format 1.1).
        let starts = first.is_some_and(|c| {
            compare_in_store(&c, &b.first).is_eq()
                || (cursor.starts_row()
                    && compare_in_store(&Cell::first_on_row(c.row()), &b.first).is_eq())
        });
        if !starts {
            return Err(self.corrupt(
                b.offset,
                "data block does not start with its index key".into(),
            ));
        }
        let block = Arc::new(block);
        if cache {
            self.keep(b, &block);
        }
        Ok(block)
    }

    /// Puts data block `b` into the cache, if the reader has one.
    fn keep(&self, b: &BlockRef, block: &Arc<DataBlock>) {
        if let Some(c) = &self.cache {
            c.cache
                .insert((self.id, b.offset), Arc::clone(block), c.in_memory);
        }
    }

    /// Data block `i` and the blocks after it, up to about `bytes` in all (block `i` at
    /// least), read from the file in one read (a scan's read-ahead), each checked; block `i`
    /// is cached if `cache`, the others when a scan enters them (a scan that
    /// stops early does not fill the cache with blocks nobody read). Just block `i` if the
    /// cache has it.
    pub fn read_ahead(&self, i: usize, bytes: u64, cache: bool) -> Result<Vec<Arc<DataBlock>>> {
        let first = self.block_ref(i)?;
        if let Some(block) = self.cached(first) {
            return Ok(vec![block]);
        }
        let start = first.offset;
        let mut end = first.offset + first.size;
        let mut last = i;
        // Data blocks lie back to back; stop at a gap, the budget, or a block already cached.
        while let Some(next) = self.blocks.get(last + 1) {
            if next.offset != end
                || end + next.size - start > bytes
                || self
                    .cache
                    .as_ref()
                    .is_some_and(|c| c.cache.contains((self.id, next.offset)))
            {
                break;
            }
            end += next.size;
            last += 1;
        }
        if end > self.trailer_offset() || end - start > block::MAX_PAYLOAD as u64 {
            return Err(self.corrupt(start, format!("blocks up to {end} run past the data")));
        }
        let bytes = self.file.read_at(start, (end - start) as usize)?;
        self.blocks[i..=last]
            .iter()
            .map(|b| {
                let at = (b.offset - start) as usize;
                let framed = bytes.slice(at..at + b.size as usize);
                let payload = block::decode(BlockKind::Data, &framed)
                    .map_err(|reason| self.corrupt(b.offset, reason))?;
                // Each block gets a buffer of its own: a slice of the read (an uncompressed
                // payload) would keep all of it alive for as long as any one block is cached.
                let payload = if last > i && bytes.as_ptr_range().contains(&payload.as_ptr()) {
                    Bytes::copy_from_slice(&payload)
                } else {
                    payload
                };
                self.adopt(b, payload, cache && b.offset == start)
            })
            .collect()
    }

    /// A scan enters data block `i`, which it read ahead: a miss of the cache (the block was
    /// not there and came from the file), and into the cache if `cache`.
    fn enter_read_ahead(&self, i: usize, block: &Arc<DataBlock>, cache: bool) {
        let Some(c) = &self.cache else { return };
        c.cache.count_miss();
        if let Some(b) = self.blocks.get(i).filter(|_| cache) {
            self.keep(b, block);
        }
    }

    fn trailer_offset(&self) -> u64 {
        self.file.len() - TRAILER_LEN as u64
    }

    /// Reads every data block into the block cache (HBase's PREFETCH_BLOCKS_ON_OPEN and
    /// CACHE_DATA_ON_WRITE); nothing without a cache. A family that does not cache the
    /// blocks its reads fetch (BLOCKCACHE false) still gets these.
    pub fn warm_cache(&self) -> Result<()> {
        if self.cache.is_none() {
            return Ok(());
        }
        let mut i = 0;
        while i < self.blocks.len() {
            let blocks = self.read_ahead(i, WARM_READ_BYTES, true)?;
            for (b, block) in self.blocks[i..].iter().zip(&blocks).skip(1) {
                self.keep(b, block);
            }
            i += blocks.len();
        }
        Ok(())
    }

    /// Drops this file's blocks from the block cache (HBase's EVICT_BLOCKS_ON_CLOSE).
    pub fn evict_from_cache(&self) {
        if let Some(c) = &self.cache {
            for b in &self.blocks {
                c.cache.remove((self.id, b.offset));
            }
        }
    }

    /// The bytes this open file keeps in memory for its index, whatever is read: each data
    /// block's first key and the search array over them.
    pub fn index_bytes(&self) -> u64 {
        let keys: usize = self
            .blocks
            .iter()
            .map(|b| {
                std::mem::size_of::<BlockRef>() + b.first.row().len() + b.first.qualifier().len()
            })
            .sum();
        (keys + self.index_search.size()) as u64
    }

    /// The bytes this open file keeps in memory for its bloom filter.
    pub fn bloom_bytes(&self) -> u64 {
        self.bloom.as_ref().map_or(0, |b| b.bit_count().div_ceil(8))
    }

    /// The file's size in bytes.
    pub fn file_size(&self) -> u64 {
        self.file.len()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn info(&self) -> &FileInfo {
        &self.info
    }

    pub fn trailer(&self) -> &Trailer {
        &self.trailer
    }

    pub fn blocks(&self) -> &[BlockRef] {
        &self.blocks
    }

    pub fn bloom(&self) -> Option<&BloomFilter> {
        self.bloom.as_ref()
    }

    /// False only if the file surely holds no cell of `row`.
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        row >= self.info.first_key.row()
            && row <= self.info.last_key.row()
            && self.bloom.as_ref().is_none_or(|b| b.may_contain_row(row))
    }

    /// False only if the file surely holds no cell of column `row, qualifier`.
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        self.may_contain_row(row)
            && self
                .bloom
                .as_ref()
                .is_none_or(|b| b.may_contain_column(row, qualifier))
    }

    /// A cursor over the file's cells; unpositioned until it seeks.
    pub fn scanner(&self) -> StoreFileScanner<'_> {
        self.scanner_caching(true)
    }

    /// A cursor that adds the blocks it reads to the block cache only if `cache_blocks`.
    pub fn scanner_caching(&self, cache_blocks: bool) -> StoreFileScanner<'_> {
        StoreFileScanner {
            reader: self,
            block: 0,
            data: None,
            cursor: BlockCursor::default(),
            current: None,
            steps: 0,
            run: std::collections::VecDeque::new(),
            ahead: std::collections::VecDeque::new(),
            read_ahead: FIRST_READ_AHEAD,
            cache_blocks,
            only_row: None,
        }
    }
}

/// A closed file's blocks can never be read again (its id is not reused): they leave the
/// cache with it rather than wait to be evicted, pinned ones especially.
impl Drop for StoreFileReader {
    fn drop(&mut self) {
        self.evict_from_cache();
    }
}

/// Steps taken without a seek after which a scanner takes the rest of each block at once.
const SCAN_STEPS: u32 = 32;
/// A scan's first read-ahead, in bytes; each further one doubles, up to [`MAX_READ_AHEAD`]
/// (RocksDB's automatic read-ahead grows the same way, from 8 KiB to 256 KiB).
const FIRST_READ_AHEAD: u64 = 16 * 1024;
const MAX_READ_AHEAD: u64 = 256 * 1024;
/// What a prefetch reads at a time.
const WARM_READ_BYTES: u64 = 1024 * 1024;

/// Walks one store file in store order. It holds the data block it is in (shared with the
/// block cache) and the current cell, decoded on its own: each step decodes one record, so a
/// seek or a Get copies out only the cells it reads. A scanner that has stepped
/// [`SCAN_STEPS`] times since its last seek is scanning: it decodes the rest of the block, and
/// then each block it enters, into one buffer at a time (`run`).
#[derive(Debug)]
pub struct StoreFileScanner<'r> {
    reader: &'r StoreFileReader,
    block: usize,
    data: Option<Arc<DataBlock>>,
    cursor: BlockCursor,
    current: Option<Cell>,
    /// Steps since the last seek.
    steps: u32,
    /// When scanning: the cells from the current one to the block's end.
    run: std::collections::VecDeque<Cell>,
    /// When scanning: blocks read ahead, those after `block` in order.
    ahead: std::collections::VecDeque<Arc<DataBlock>>,
    /// The next read-ahead's size.
    read_ahead: u64,
    cache_blocks: bool,
    /// The one row a Get reads: the scanner ends at the first cell past it, without decoding
    /// that cell or loading the block that holds it.
    only_row: Option<Box<[u8]>>,
}

impl StoreFileScanner<'_> {
    /// Makes data block `block` the scanner's (its cursor unpositioned), and returns it.
    fn load(&mut self, block: usize) -> Result<Arc<DataBlock>> {
        let data = self.reader.data_block_cached(block, self.cache_blocks)?;
        self.block = block;
        self.data = Some(Arc::clone(&data));
        Ok(data)
    }

    /// Reads only cells of `row` (a Get's): past its last cell, the scanner is at the end.
    pub fn only_row(mut self, row: &[u8]) -> Self {
        self.only_row = Some(row.into());
        self
    }

    /// Whether `row` lies past the one row this scanner reads.
    fn past_row(&self, row: &[u8]) -> bool {
        self.only_row.as_deref().is_some_and(|only| row > only)
    }

    /// Whether the scanner takes whole blocks at a time.
    fn scanning(&self) -> bool {
        self.steps >= SCAN_STEPS && self.only_row.is_none()
    }

    /// Leaves the scanning mode (a seek).
    fn stop_scanning(&mut self) {
        self.steps = 0;
        self.run.clear();
        self.ahead.clear();
        self.read_ahead = FIRST_READ_AHEAD;
    }

    /// The current record of `data` as the current cell; when scanning, with every cell after
    /// it in the block.
    fn settle(&mut self, data: &DataBlock) -> Result<()> {
        if self.scanning() {
            let rest = self
                .cursor
                .take_rest(data)
                .map_err(|r| self.block_error(r))?;
            self.run = rest.into();
            self.current = self.run.pop_front();
            return Ok(());
        }
        // Only a Get's scanner looks at the row before copying the cell out.
        let past = match self.only_row.is_some().then(|| self.cursor.row()) {
            Some(Ok(row)) => row.is_some_and(|r| self.past_row(r)),
            Some(Err(reason)) => return Err(self.block_error(reason)),
            None => false,
        };
        if past {
            self.data = None;
            self.current = None;
            return Ok(());
        }
        self.current = self.cursor.cell(data).map_err(|r| self.block_error(r))?;
        Ok(())
    }

    fn block_error(&self, reason: String) -> StoreFileError {
        self.reader
            .corrupt(self.reader.blocks[self.block].offset, reason)
    }

    /// How many blocks have an index key that stands to `target` as `before` asks (`is_le`:
    /// at or before it; `is_lt`: before it).
    fn blocks_before(&self, target: &Cell, before: fn(Ordering) -> bool) -> usize {
        self.reader
            .index_search
            .partition(&self.reader.blocks, |b| &b.first, target, before)
    }

    /// Positions at the first cell >= `target` in store order (or past the end).
    pub fn seek(&mut self, target: &Cell) -> Result<()> {
        self.stop_scanning();
        let block = self
            .blocks_before(target, Ordering::is_le)
            .saturating_sub(1);
        let data = self.load(block)?;
        let found = self
            .cursor
            .seek(&data, target)
            .map_err(|r| self.block_error(r))?;
        if found {
            self.settle(&data)
        } else {
            self.next_block()
        }
    }

    /// Moves to the first cell of the next block, or past the end.
    fn next_block(&mut self) -> Result<()> {
        if self.block + 1 >= self.reader.blocks.len()
            || self.past_row(self.reader.blocks[self.block + 1].first.row())
        {
            self.data = None;
            self.current = None;
            return Ok(());
        }
        let next = self.block + 1;
        let data = match self.ahead.pop_front() {
            Some(data) => {
                let cache = self.reader.caches(self.cache_blocks);
                self.reader.enter_read_ahead(next, &data, cache);
                data
            }
            None if self.scanning() => {
                let cache = self.reader.caches(self.cache_blocks);
                let mut blocks = self.reader.read_ahead(next, self.read_ahead, cache)?;
                if blocks.len() > 1 {
                    self.read_ahead = (self.read_ahead * 2).min(MAX_READ_AHEAD);
                }
                let first = blocks.remove(0);
                self.ahead.extend(blocks);
                first
            }
            None => self.reader.data_block_cached(next, self.cache_blocks)?,
        };
        self.block = next;
        self.data = Some(Arc::clone(&data));
        self.cursor.first(&data).map_err(|r| self.block_error(r))?;
        self.settle(&data)
    }

    /// The cell at the current position.
    pub fn current(&self) -> Option<&Cell> {
        self.current.as_ref()
    }

    /// Moves to the next cell.
    pub fn advance(&mut self) -> Result<()> {
        if self.scanning() && self.current.is_some() {
            self.current = self.run.pop_front();
            if self.current.is_some() {
                return Ok(());
            }
            return self.next_block();
        }
        self.steps += 1;
        let Some(data) = self.data.clone() else {
            return Ok(());
        };
        if self.cursor.step(&data).map_err(|r| self.block_error(r))? {
            self.settle(&data)
        } else {
            self.next_block()
        }
    }

    /// The greatest row of a cell within `bound` from above (at most the row for `Included`,
    /// below it for `Excluded`): the step of a reversed scan. Leaves the scanner's position
    /// undefined; seek before reading on.
    pub fn last_row_before(&mut self, bound: Bound<&[u8]>) -> Result<Option<Bytes>> {
        self.stop_scanning();
        self.current = None;
        let target = match bound {
            Bound::Unbounded => {
                let data = self.load(self.reader.blocks.len() - 1)?;
                return self
                    .cursor
                    .last_row_before(&data, None)
                    .map_err(|r| self.block_error(r));
            }
            Bound::Included(row) => Cell::last_on_row(row),
            Bound::Excluded(row) => Cell::first_on_row(row),
        };
        // The blocks that start before the target (an index key may be the target itself,
        // the first-on-row key of a block that starts the row).
        let before = self.blocks_before(&target, Ordering::is_lt);
        if before == 0 {
            return Ok(None);
        }
        let data = self.load(before - 1)?;
        self.cursor
            .last_row_before(&data, Some(&target))
            .map_err(|r| self.block_error(r))
    }
}
