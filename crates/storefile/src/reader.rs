//! Reading a store file: the load-on-open blocks (trailer, file info, the index's top level,
//! the bloom filter or its chunk index) are read when it opens; data blocks, and a large
//! file's leaf index blocks and bloom chunks, are read as scanners reach them.

use std::cmp::Ordering;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::cell::compare_in_store;
use basalt_common::{Bytes, Cell};
use basalt_fs::{FileSystem, ReadableFile};

use crate::block::{self, BlockKind};
use crate::block_cache::{Block, BlockCache};
use crate::bloom::{BloomFilter, BloomIndex};
use crate::data_block::{BlockCursor, DataBlock};
use crate::error::{Result, StoreFileError};
use crate::index::{self, IndexPart};
use crate::info::FileInfo;
use crate::trailer::{TRAILER_LEN, Trailer};

pub use crate::index::BlockRef;

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

/// A file's bloom filter as its reader holds it.
#[derive(Debug)]
pub enum FileBloom {
    /// One filter, resident.
    Whole(BloomFilter),
    /// A chunked filter: the chunk index resident, each chunk read through the block cache.
    Chunked(BloomIndex),
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
    /// The index level the reader keeps: every data block's entry (a one-level index), or
    /// every leaf index block's (a partitioned index: the levels above the leaves are read
    /// on open, the leaves through the block cache when a read needs them).
    top: Arc<IndexPart>,
    partitioned: bool,
    bloom: Option<FileBloom>,
}

/// Whether a file of `len` bytes is small enough to stay in the page cache beside everything
/// else: at most an eighth of the memory the process may use.
fn fits_page_cache(len: u64) -> bool {
    len <= crate::block_cache::memory_limit() / 8
}

/// Where a scanner is in the index: leaf `leaf` (always 0 in a one-level index), whose
/// entries are `part`, and its block `block`.
#[derive(Debug, Clone)]
struct Position {
    leaf: usize,
    part: Arc<IndexPart>,
    block: usize,
}

impl Position {
    fn block_ref(&self) -> &BlockRef {
        &self.part.blocks[self.block]
    }
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
        if !fits_page_cache(file.len()) {
            file.advise_random();
        }
        // A cache that asks for direct reads holds the only copy of what is read.
        if cache.as_ref().is_some_and(|c| c.cache.direct_reads()) {
            file.read_directly();
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
            top: Arc::default(),
            partitioned: trailer.index_levels > 1,
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
            reader.bloom = Some(reader.open_bloom(trailer_at)?);
        }
        let mut entries = reader.index_level(
            BlockKind::RootIndex,
            trailer.root_index_offset,
            u64::from(trailer.root_index_size),
            trailer_at,
        )?;
        // The levels between the root and the leaves (a file of three or more) are small:
        // they are read whole.
        for _ in 2..trailer.index_levels {
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
        let top = IndexPart::new(entries).map_err(|(at, reason)| corrupt(at, reason))?;
        let blocks = top.blocks.len() as u64;
        if blocks == 0 || (!reader.partitioned && blocks != reader.info.data_block_count) {
            return Err(corrupt(
                trailer.root_index_offset,
                format!(
                    "index lists {blocks} data blocks, the file info {}",
                    reader.info.data_block_count
                ),
            ));
        }
        reader.top = Arc::new(top);
        Ok(reader)
    }

    /// The bloom filter at the trailer's bloom offset: one bloom block, or (format 1.2) a
    /// bloom index block over its chunks.
    fn open_bloom(&self, limit: u64) -> Result<FileBloom> {
        let (offset, size) = (
            self.trailer.bloom_offset,
            u64::from(self.trailer.bloom_size),
        );
        let framed = self.read_framed(offset, size, limit)?;
        if framed.starts_with(BlockKind::BloomIndex.magic()) {
            let payload = block::decode(BlockKind::BloomIndex, &framed)
                .map_err(|reason| self.corrupt(offset, reason))?;
            let bloom = BloomIndex::decode(&payload).map_err(|r| self.corrupt(offset, r))?;
            return Ok(FileBloom::Chunked(bloom));
        }
        let payload = block::decode(BlockKind::Bloom, &framed)
            .map_err(|reason| self.corrupt(offset, reason))?;
        let bloom = BloomFilter::decode(&payload).map_err(|r| self.corrupt(offset, r))?;
        Ok(FileBloom::Whole(bloom))
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

    /// The number of leaves: index blocks under the top level, or 1 for a one-level index.
    fn leaf_count(&self) -> usize {
        if self.partitioned {
            self.top.blocks.len()
        } else {
            1
        }
    }

    /// Leaf `i`'s entries, from the block cache or from the file (and then cached); the top
    /// level itself for a one-level index. A leaf must start with the key its entry above
    /// says.
    fn leaf(&self, i: usize) -> Result<Arc<IndexPart>> {
        if !self.partitioned {
            return Ok(Arc::clone(&self.top));
        }
        let r = self
            .top
            .blocks
            .get(i)
            .ok_or_else(|| self.corrupt(0, format!("no leaf index block {i}")))?;
        let key = (self.id, r.offset);
        if let Some(Block::Index(part)) = self.cache.as_ref().and_then(|c| c.cache.get_meta(key)) {
            return Ok(part);
        }
        let entries = self.index_level(
            BlockKind::LeafIndex,
            r.offset,
            r.size,
            self.trailer_offset(),
        )?;
        let part = IndexPart::new(entries).map_err(|(at, reason)| self.corrupt(at, reason))?;
        if part
            .blocks
            .first()
            .is_none_or(|b| compare_in_store(&b.first, &r.first).is_ne())
        {
            return Err(self.corrupt(
                r.offset,
                "leaf index block does not start with its key in the level above".into(),
            ));
        }
        let part = Arc::new(part);
        if let Some(c) = &self.cache {
            c.cache.insert_meta(key, Block::Index(Arc::clone(&part)));
        }
        Ok(part)
    }

    /// The leaf and block of the last data block whose first key stands to `target` as
    /// `before` asks (`is_le`: at or before it; `is_lt`: before it); None if no block does.
    fn find(&self, target: &Cell, before: fn(Ordering) -> bool) -> Result<Option<Position>> {
        let leaf = if self.partitioned {
            match self.top.count_before(target, before).checked_sub(1) {
                Some(leaf) => leaf,
                None => return Ok(None),
            }
        } else {
            0
        };
        let part = self.leaf(leaf)?;
        Ok(part
            .count_before(target, before)
            .checked_sub(1)
            .map(|block| Position { leaf, part, block }))
    }

    /// The first data block.
    fn first_position(&self) -> Result<Position> {
        Ok(Position {
            leaf: 0,
            part: self.leaf(0)?,
            block: 0,
        })
    }

    /// The last data block.
    fn last_position(&self) -> Result<Position> {
        let leaf = self.leaf_count() - 1;
        let part = self.leaf(leaf)?;
        let block = part.blocks.len() - 1;
        Ok(Position { leaf, part, block })
    }

    /// The first key of the data block after `at`, without reading a leaf, if there is one.
    fn next_first_key<'a>(&'a self, at: &'a Position) -> Option<&'a Cell> {
        match at.part.blocks.get(at.block + 1) {
            Some(b) => Some(&b.first),
            None if self.partitioned => self.top.blocks.get(at.leaf + 1).map(|b| &b.first),
            None => None,
        }
    }

    /// The data block after `at`, if there is one.
    fn next_position(&self, at: &Position) -> Result<Option<Position>> {
        if at.block + 1 < at.part.blocks.len() {
            return Ok(Some(Position {
                block: at.block + 1,
                ..at.clone()
            }));
        }
        if at.leaf + 1 >= self.leaf_count() {
            return Ok(None);
        }
        Ok(Some(Position {
            leaf: at.leaf + 1,
            part: self.leaf(at.leaf + 1)?,
            block: 0,
        }))
    }

    /// Every data block's entry, in order (reading each leaf of a partitioned index).
    pub fn block_refs(&self) -> Result<Vec<BlockRef>> {
        let mut refs = Vec::new();
        for leaf in 0..self.leaf_count() {
            refs.extend(self.leaf(leaf)?.blocks.iter().cloned());
        }
        Ok(refs)
    }

    /// The first key of the data block in the middle of the file (HBase's mid key), or None
    /// if the file has one data block. With an even number of leaves, the first key of the
    /// upper half's first leaf; otherwise the middle of the middle leaf.
    pub fn mid_key(&self) -> Result<Option<Cell>> {
        let leaves = self.leaf_count();
        if leaves > 1 && leaves.is_multiple_of(2) {
            return Ok(Some(self.top.blocks[leaves / 2].first.clone()));
        }
        let part = self.leaf(leaves / 2)?;
        if leaves == 1 && part.blocks.len() < 2 {
            return Ok(None);
        }
        Ok(Some(part.blocks[part.blocks.len() / 2].first.clone()))
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
        let bytes = self.read_framed(offset, size, limit)?;
        block::decode(kind, &bytes).map_err(|reason| self.corrupt(offset, reason))
    }

    /// The framed block of `size` bytes at `offset`, which must end before `limit`, unchecked.
    fn read_framed(&self, offset: u64, size: u64, limit: u64) -> Result<Bytes> {
        if offset.checked_add(size).is_none_or(|end| end > limit)
            || size > block::MAX_PAYLOAD as u64
        {
            return Err(self.corrupt(
                offset,
                format!("block of {size} bytes at {offset} runs past {limit}"),
            ));
        }
        Ok(self.file.read_at(offset, size as usize)?)
    }

    /// Data block `b` (an entry of [`StoreFileReader::block_refs`]), from the block cache or
    /// from the file (and then cached, if the family caches blocks).
    pub fn data_block(&self, b: &BlockRef) -> Result<Arc<DataBlock>> {
        self.load_block(b, self.caches(true))
    }

    /// Whether a block a read fetches enters the cache: the family caches blocks
    /// (BLOCKCACHE) and the read asks for it (`cache_new`).
    fn caches(&self, cache_new: bool) -> bool {
        self.cache.as_ref().is_some_and(|c| c.cache_blocks) && cache_new
    }

    /// Data block `b` from the cache, or from the file (and then into the cache if `cache`).
    /// A block read from the file is checked once (frame, checksum, restart array, first key)
    /// and searched in place from then on.
    fn load_block(&self, b: &BlockRef, cache: bool) -> Result<Arc<DataBlock>> {
        if let Some(block) = self.cached(b) {
            return Ok(block);
        }
        let payload = self.read_block(BlockKind::Data, b.offset, b.size, self.trailer_offset())?;
        self.adopt(b, payload, cache)
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

    /// Data block `i` of `part` and the blocks after it in the same part, up to about
    /// `bytes` in all (block `i` at least), read from the file in one read (a scan's
    /// read-ahead), each checked; block `i` is cached if `cache`, the others when a scan
    /// enters them (a scan that stops early does not fill the cache with blocks nobody
    /// read). Just block `i` if the cache has it.
    fn read_ahead(
        &self,
        part: &IndexPart,
        i: usize,
        bytes: u64,
        cache: bool,
    ) -> Result<Vec<Arc<DataBlock>>> {
        let first = &part.blocks[i];
        if let Some(block) = self.cached(first) {
            return Ok(vec![block]);
        }
        let start = first.offset;
        let mut end = first.offset + first.size;
        let mut last = i;
        // Data blocks lie back to back; stop at a gap, the budget, or a block already cached.
        while let Some(next) = part.blocks.get(last + 1) {
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
        part.blocks[i..=last]
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

    /// A scan enters data block `b`, which it read ahead: a miss of the cache (the block was
    /// not there and came from the file), and into the cache if `cache`.
    fn enter_read_ahead(&self, b: &BlockRef, block: &Arc<DataBlock>, cache: bool) {
        let Some(c) = &self.cache else { return };
        c.cache.count_miss();
        if cache {
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
        for leaf in 0..self.leaf_count() {
            let part = self.leaf(leaf)?;
            let mut i = 0;
            while i < part.blocks.len() {
                let blocks = self.read_ahead(&part, i, WARM_READ_BYTES, true)?;
                for (b, block) in part.blocks[i..].iter().zip(&blocks).skip(1) {
                    self.keep(b, block);
                }
                i += blocks.len();
            }
        }
        Ok(())
    }

    /// Drops this file's blocks from the block cache (HBase's EVICT_BLOCKS_ON_CLOSE). A
    /// large file's blocks are found by a pass over the cache, not by reading its leaves.
    pub fn evict_from_cache(&self) {
        let Some(c) = &self.cache else { return };
        if self.partitioned || matches!(self.bloom, Some(FileBloom::Chunked(_))) {
            c.cache.remove_reader(self.id);
        } else {
            for b in &self.top.blocks {
                c.cache.remove((self.id, b.offset));
            }
        }
    }

    /// The bytes this open file keeps in memory for its index, whatever is read: the top
    /// level's first keys and the search array over them (a partitioned index's leaves are
    /// in the block cache, when there).
    pub fn index_bytes(&self) -> u64 {
        self.top.weight() as u64
    }

    /// The bytes this open file keeps in memory for its bloom filter: the whole filter, or a
    /// chunked one's chunk index.
    pub fn bloom_bytes(&self) -> u64 {
        match &self.bloom {
            None => 0,
            Some(FileBloom::Whole(b)) => b.bit_count().div_ceil(8),
            Some(FileBloom::Chunked(index)) => index.weight() as u64,
        }
    }

    /// The bytes the file's index blocks and bloom blocks take on disk (what a reader would
    /// keep if it held them all), from the layout's order: data, bloom, index, file info.
    pub fn meta_bytes_on_disk(&self) -> Result<(u64, u64)> {
        let last = self.last_position()?;
        let data_end = last.block_ref().offset + last.block_ref().size;
        let t = &self.trailer;
        let bloom_end = t.bloom_offset + u64::from(t.bloom_size);
        let (index_start, bloom) = if t.bloom_size == 0 {
            (data_end, 0)
        } else {
            (bloom_end, bloom_end.saturating_sub(data_end))
        };
        Ok((t.file_info_offset.saturating_sub(index_start), bloom))
    }

    /// A file just written (a flush's, a compaction's): store files are written around the
    /// page cache, so none of it is in memory. One small enough to stay in the page cache
    /// (not advised for random reads, see `open_with_cache`) is read into it in the
    /// background, as a file written through the page cache would be there already; a
    /// reader that reads directly leaves it out.
    pub fn just_written(&self) {
        let direct = self.cache.as_ref().is_some_and(|c| c.cache.direct_reads());
        if !direct && fits_page_cache(self.file.len()) {
            self.file.will_need();
        }
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

    /// Whether the index is partitioned: only its top level is resident.
    pub fn partitioned(&self) -> bool {
        self.partitioned
    }

    pub fn bloom(&self) -> Option<&FileBloom> {
        self.bloom.as_ref()
    }

    /// The bloom chunk that may hold `row`'s keys, from the cache or the file (and then
    /// cached). None where the file surely holds none of the row's keys.
    fn bloom_chunk(&self, index: &BloomIndex, row: &[u8]) -> Result<Option<Arc<BloomFilter>>> {
        let Some(chunk) = index.chunk_of(row) else {
            return Ok(None);
        };
        let key = (self.id, chunk.offset);
        if let Some(Block::Bloom(f)) = self.cache.as_ref().and_then(|c| c.cache.get_meta(key)) {
            return Ok(Some(f));
        }
        let payload = self.read_block(
            BlockKind::Bloom,
            chunk.offset,
            chunk.size,
            self.trailer_offset(),
        )?;
        let filter = BloomFilter::decode(&payload).map_err(|r| self.corrupt(chunk.offset, r))?;
        if filter.kind() != index.kind() {
            return Err(self.corrupt(
                chunk.offset,
                format!("a {} chunk in a {} filter", filter.kind(), index.kind()),
            ));
        }
        let filter = Arc::new(filter);
        if let Some(c) = &self.cache {
            c.cache.insert_meta(key, Block::Bloom(Arc::clone(&filter)));
        }
        Ok(Some(filter))
    }

    /// What the bloom filter says of `row` (`ask` asks one filter): true where it cannot
    /// rule the row out. A chunk that cannot be read rules nothing out: the read goes on to
    /// the data blocks, which report a damaged file themselves.
    fn bloom_says(&self, row: &[u8], ask: impl Fn(&BloomFilter) -> bool) -> bool {
        match &self.bloom {
            None => true,
            Some(FileBloom::Whole(b)) => ask(b),
            Some(FileBloom::Chunked(index)) => match self.bloom_chunk(index, row) {
                Ok(Some(chunk)) => ask(&chunk),
                Ok(None) => false,
                Err(_) => true,
            },
        }
    }

    /// False only if the file surely holds no cell of `row`.
    pub fn may_contain_row(&self, row: &[u8]) -> bool {
        row >= self.info.first_key.row()
            && row <= self.info.last_key.row()
            && self.bloom_says(row, |b| b.may_contain_row(row))
    }

    /// False only if the file surely holds no cell of column `row, qualifier`.
    pub fn may_contain_column(&self, row: &[u8], qualifier: &[u8]) -> bool {
        row >= self.info.first_key.row()
            && row <= self.info.last_key.row()
            && self.bloom_says(row, |b| b.may_contain_column(row, qualifier))
    }

    /// A cursor over the file's cells; unpositioned until it seeks.
    pub fn scanner(&self) -> StoreFileScanner<'_> {
        self.scanner_caching(true)
    }

    /// A cursor that adds the blocks it reads to the block cache only if `cache_blocks`.
    pub fn scanner_caching(&self, cache_blocks: bool) -> StoreFileScanner<'_> {
        StoreFileScanner {
            reader: self,
            at: None,
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
    /// The data block it is in, once it has sought.
    at: Option<Position>,
    data: Option<Arc<DataBlock>>,
    cursor: BlockCursor,
    current: Option<Cell>,
    /// Steps since the last seek.
    steps: u32,
    /// When scanning: the cells from the current one to the block's end.
    run: std::collections::VecDeque<Cell>,
    /// When scanning: blocks read ahead, those after the current one in order (all in its
    /// leaf).
    ahead: std::collections::VecDeque<Arc<DataBlock>>,
    /// The next read-ahead's size.
    read_ahead: u64,
    cache_blocks: bool,
    /// The one row a Get reads: the scanner ends at the first cell past it, without decoding
    /// that cell or loading the block that holds it.
    only_row: Option<Box<[u8]>>,
}

impl StoreFileScanner<'_> {
    /// Makes the data block at `at` the scanner's (its cursor unpositioned), and returns it.
    fn load(&mut self, at: Position) -> Result<Arc<DataBlock>> {
        let cache = self.reader.caches(self.cache_blocks);
        let data = self.reader.load_block(at.block_ref(), cache)?;
        self.at = Some(at);
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
            self.end();
            return Ok(());
        }
        self.current = self.cursor.cell(data).map_err(|r| self.block_error(r))?;
        Ok(())
    }

    /// Past the last cell.
    fn end(&mut self) {
        self.data = None;
        self.current = None;
    }

    fn block_error(&self, reason: String) -> StoreFileError {
        let offset = self.at.as_ref().map_or(0, |at| at.block_ref().offset);
        self.reader.corrupt(offset, reason)
    }

    /// Positions at the first cell >= `target` in store order (or past the end).
    pub fn seek(&mut self, target: &Cell) -> Result<()> {
        self.stop_scanning();
        let at = match self.reader.find(target, Ordering::is_le)? {
            Some(at) => at,
            None => self.reader.first_position()?,
        };
        let data = self.load(at)?;
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
        let Some(at) = self.at.take() else {
            self.end();
            return Ok(());
        };
        let past = match self.reader.next_first_key(&at) {
            Some(first) => self.past_row(first.row()),
            None => true,
        };
        let next = if past {
            None
        } else {
            self.reader.next_position(&at)?
        };
        let Some(next) = next else {
            self.at = Some(at);
            self.end();
            return Ok(());
        };
        let cache = self.reader.caches(self.cache_blocks);
        let data = match self.ahead.pop_front() {
            Some(data) => {
                self.reader.enter_read_ahead(next.block_ref(), &data, cache);
                data
            }
            None if self.scanning() => {
                let mut blocks =
                    self.reader
                        .read_ahead(&next.part, next.block, self.read_ahead, cache)?;
                if blocks.len() > 1 {
                    self.read_ahead = (self.read_ahead * 2).min(MAX_READ_AHEAD);
                }
                let first = blocks.remove(0);
                self.ahead.extend(blocks);
                first
            }
            None => self.reader.load_block(next.block_ref(), cache)?,
        };
        self.at = Some(next);
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
                let at = self.reader.last_position()?;
                let data = self.load(at)?;
                return self
                    .cursor
                    .last_row_before(&data, None)
                    .map_err(|r| self.block_error(r));
            }
            Bound::Included(row) => Cell::last_on_row(row),
            Bound::Excluded(row) => Cell::first_on_row(row),
        };
        // The last block that starts before the target (an index key may be the target
        // itself, the first-on-row key of a block that starts the row).
        let Some(at) = self.reader.find(&target, Ordering::is_lt)? else {
            return Ok(None);
        };
        let data = self.load(at)?;
        self.cursor
            .last_row_before(&data, Some(&target))
            .map_err(|r| self.block_error(r))
    }
}
