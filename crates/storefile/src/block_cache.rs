//! The block cache: data blocks, as their checked and uncompressed bytes, shared by every
//! store file reader of a process, and the index and bloom blocks of large files. A hit hands
//! out the block without copying it; readers search it in place (`DataBlock`), and the cache
//! is charged by the bytes a block holds.
//!
//! One pool of blocks with HBase's priorities: blocks of IN_MEMORY families are pinned, up to a
//! quarter of the capacity (the rest of theirs compete as other blocks do), and every other
//! data block shares whatever the pinned ones leave, so a cache with no IN_MEMORY family gives
//! all of itself to the rest (HBase's LruBlockCache lets a priority grow past its share while
//! the others leave room too). The eviction policy (quick_cache's, close to S3-FIFO) keeps
//! blocks that are read again over blocks read once, which is what HBase's single-access and
//! multi-access tiers are for.
//!
//! A small file's index and bloom filter are read when it opens and live as long as its
//! reader. A large file's (a partitioned index, a chunked bloom) keep only their top level
//! there; their leaf index blocks and bloom chunks come through this cache as meta blocks,
//! pinned up to another quarter of the capacity, so data blocks never evict them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, Lifecycle, Weighter};

use crate::bloom::BloomFilter;
use crate::data_block::DataBlock;
use crate::index::IndexPart;

/// Which block: the reader's process-unique id and the block's offset in its file.
pub type BlockKey = (u64, u64);

/// A block the cache holds.
#[derive(Debug, Clone)]
pub enum Block {
    Data(Arc<DataBlock>),
    /// A leaf block of a partitioned index, decoded.
    Index(Arc<IndexPart>),
    /// A chunk of a partitioned bloom filter.
    Bloom(Arc<BloomFilter>),
}

impl Block {
    /// The bytes it holds in memory.
    fn weight(&self) -> u64 {
        match self {
            Block::Data(b) => b.weight() as u64,
            Block::Index(p) => p.weight() as u64,
            Block::Bloom(f) => f.bit_count().div_ceil(8),
        }
    }
}

/// A cached block and, for a pinned one, its share of the pinned bytes (given back when
/// the last copy of the entry is dropped).
#[derive(Debug, Clone)]
struct CachedBlock {
    block: Block,
    pin: Option<Arc<Pin>>,
}

/// Pinned bytes held by one entry; returned to the count when dropped.
#[derive(Debug)]
struct Pin {
    bytes: u64,
    pinned: Arc<AtomicU64>,
}

impl Drop for Pin {
    fn drop(&mut self) {
        self.pinned.fetch_sub(self.bytes, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone)]
struct ByWeight;

impl Weighter<BlockKey, CachedBlock> for ByWeight {
    fn weight(&self, _key: &BlockKey, block: &CachedBlock) -> u64 {
        block.block.weight().max(1)
    }
}

#[derive(Debug, Clone, Default)]
struct Policy {
    evictions: Arc<AtomicU64>,
}

impl Lifecycle<BlockKey, CachedBlock> for Policy {
    type RequestState = ();

    fn is_pinned(&self, _key: &BlockKey, block: &CachedBlock) -> bool {
        block.pin.is_some()
    }

    fn on_evict(&self, _state: &mut Self::RequestState, _key: BlockKey, _block: CachedBlock) {
        self.evictions.fetch_add(1, Ordering::Relaxed);
    }
}

type Blocks = Cache<BlockKey, CachedBlock, ByWeight, DefaultHashBuilder, Policy>;

/// Counters of a [`BlockCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    /// Bytes of blocks held now.
    pub bytes: u64,
    /// Of those, the bytes of pinned IN_MEMORY data blocks.
    pub pinned_bytes: u64,
    /// And the bytes of pinned meta blocks (index leaves, bloom chunks).
    pub meta_bytes: u64,
    pub blocks: u64,
    pub capacity: u64,
}

/// A process-wide cache of data blocks, bounded in bytes.
pub struct BlockCache {
    blocks: Blocks,
    capacity: u64,
    /// Bytes of pinned IN_MEMORY data blocks now, at most `capacity / 4`.
    pinned: Arc<AtomicU64>,
    /// Bytes of pinned meta blocks now, at most `capacity / 4`.
    pinned_meta: Arc<AtomicU64>,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: Arc<AtomicU64>,
    next_reader_id: AtomicU64,
    /// Readers through this cache read their files around the page cache.
    direct_reads: bool,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("stats", &self.stats())
            .finish()
    }
}

/// Block size assumed when sizing the table (the table grows if needed).
const ESTIMATED_BLOCK_BYTES: u64 = 64 * 1024;

impl BlockCache {
    /// A cache holding at most `capacity` bytes of blocks.
    pub fn new(capacity: u64) -> Self {
        let evictions = Arc::new(AtomicU64::new(0));
        // The table starts small and grows: many short-lived caches (tests) stay cheap.
        let items = (capacity / ESTIMATED_BLOCK_BYTES).clamp(16, 4096) as usize;
        BlockCache {
            blocks: Cache::with(
                items,
                capacity.max(1),
                ByWeight,
                DefaultHashBuilder::default(),
                Policy {
                    evictions: Arc::clone(&evictions),
                },
            ),
            capacity,
            pinned: Arc::new(AtomicU64::new(0)),
            pinned_meta: Arc::new(AtomicU64::new(0)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions,
            next_reader_id: AtomicU64::new(1),
            direct_reads: false,
        }
    }

    /// The same cache, whose readers read their files with direct I/O if `on` (where the
    /// file system can): a block is then held once, here, not also in the page cache.
    pub fn with_direct_reads(mut self, on: bool) -> Self {
        self.direct_reads = on;
        self
    }

    pub fn direct_reads(&self) -> bool {
        self.direct_reads
    }

    /// A quarter of the memory this process may use (HBase gives the block cache 40% of the
    /// heap): the machine's, or its control group's limit where that is lower, so a server
    /// in a container sizes itself to the container. 1 GiB where neither can be read.
    pub fn default_capacity() -> u64 {
        memory_limit() / 4
    }

    /// A process-unique id for a newly opened reader: its blocks' keys.
    pub fn new_reader_id(&self) -> u64 {
        self.next_reader_id.fetch_add(1, Ordering::Relaxed)
    }

    pub fn get(&self, key: BlockKey) -> Option<Arc<DataBlock>> {
        let found = self.blocks.get(&key);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        match found.map(|b| b.block) {
            Some(Block::Data(block)) => Some(block),
            _ => None,
        }
    }

    /// A meta block (an index leaf or a bloom chunk), not counted as a hit or a miss.
    pub fn get_meta(&self, key: BlockKey) -> Option<Block> {
        self.blocks.get(&key).map(|b| b.block)
    }

    /// Adds a meta block, pinned while the pinned meta blocks leave room for it in their
    /// quarter of the capacity.
    pub fn insert_meta(&self, key: BlockKey, block: Block) {
        let pin = Self::pin(&self.pinned_meta, block.weight(), self.capacity / 4);
        self.blocks.insert(key, CachedBlock { block, pin });
    }

    /// A pin of `weight` bytes on `pinned`, if that stays within `share`.
    fn pin(pinned: &Arc<AtomicU64>, weight: u64, share: u64) -> Option<Arc<Pin>> {
        pinned
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |p| {
                (p + weight <= share).then_some(p + weight)
            })
            .ok()
            .map(|_| {
                Arc::new(Pin {
                    bytes: weight,
                    pinned: Arc::clone(pinned),
                })
            })
    }

    /// Counts a miss of a block read without asking the cache (read ahead of a scan).
    pub fn count_miss(&self) {
        self.misses.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether the cache holds the block (counted neither as a hit nor as a miss).
    pub fn contains(&self, key: BlockKey) -> bool {
        self.blocks.contains_key(&key)
    }

    /// Adds `block`, charged by its weight in memory; pinned if `in_memory` and the pinned
    /// blocks leave room for it in their quarter.
    pub fn insert(&self, key: BlockKey, block: Arc<DataBlock>, in_memory: bool) {
        let block = Block::Data(block);
        let pin = in_memory
            .then(|| Self::pin(&self.pinned, block.weight(), self.capacity / 4))
            .flatten();
        self.blocks.insert(key, CachedBlock { block, pin });
    }

    /// Drops one block, if cached.
    pub fn remove(&self, key: BlockKey) {
        self.blocks.remove(&key);
    }

    /// Drops every block of reader `id` (a pass over the whole cache).
    pub fn remove_reader(&self, id: u64) {
        self.blocks.retain(|key, _| key.0 != id);
    }

    pub fn stats(&self) -> BlockCacheStats {
        BlockCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            bytes: self.blocks.weight(),
            pinned_bytes: self.pinned.load(Ordering::Relaxed),
            meta_bytes: self.pinned_meta.load(Ordering::Relaxed),
            blocks: self.blocks.len() as u64,
            capacity: self.capacity,
        }
    }
}

/// The memory this process may use: the machine's, or its control group's limit where that
/// is lower, so a server in a container sizes itself to the container; 4 GiB where neither
/// can be read. Read once per process (every store file that opens asks).
pub fn memory_limit() -> u64 {
    static LIMIT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(read_memory_limit)
}

fn read_memory_limit() -> u64 {
    let machine = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|n| n.parse::<u64>().ok())
            })
            .map(|kib| kib * 1024)
    });
    let limit = match (machine, cgroup_memory_limit()) {
        (Some(m), Some(c)) => Some(m.min(c)),
        (m, c) => m.or(c),
    };
    limit.unwrap_or(4 << 30)
}

/// The memory limit of this process's control group (v2 `memory.max`, v1
/// `memory.limit_in_bytes`), if it has one.
fn cgroup_memory_limit() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    memory_limit_of(&groups, |file| std::fs::read_to_string(file).ok())
}

/// The memory limit a `/proc/self/cgroup` text names, reading its control files with `read`.
fn memory_limit_of(groups: &str, read: impl Fn(&str) -> Option<String>) -> Option<u64> {
    for line in groups.lines() {
        // "0::/path" (v2) or "N:memory:/path" / "N:cpu,memory:/path" (v1).
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let file = if controllers.is_empty() {
            format!("/sys/fs/cgroup{path}/memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            format!("/sys/fs/cgroup/memory{path}/memory.limit_in_bytes")
        } else {
            continue;
        };
        // "max" (v2) or a huge number (v1) when there is no limit.
        if let Some(bytes) = read(&file)
            .and_then(|t| t.trim().parse::<u64>().ok())
            .filter(|b| *b < 1 << 60)
        {
            return Some(bytes);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limit comes from the group's memory controller, v1 or v2; "no limit" is none.
    #[test]
    fn a_cgroup_memory_limit_is_found_in_either_version() {
        let files = |file: &str| -> Option<String> {
            match file {
                "/sys/fs/cgroup/memory/bench/memory.limit_in_bytes" => Some("1073741824\n".into()),
                "/sys/fs/cgroup/memory/free/memory.limit_in_bytes" => {
                    Some("9223372036854771712\n".into())
                }
                "/sys/fs/cgroup/box/memory.max" => Some("536870912\n".into()),
                "/sys/fs/cgroup/open/memory.max" => Some("max\n".into()),
                _ => None,
            }
        };
        let v1 = "9:name=systemd:/\n8:pids:/\n4:memory:/bench\n";
        assert_eq!(memory_limit_of(v1, files), Some(1 << 30));
        assert_eq!(
            memory_limit_of("3:cpu,memory:/bench\n", files),
            Some(1 << 30)
        );
        assert_eq!(memory_limit_of("4:memory:/free\n", files), None);
        assert_eq!(memory_limit_of("0::/box\n", files), Some(512 << 20));
        assert_eq!(memory_limit_of("0::/open\n", files), None);
        assert_eq!(memory_limit_of("4:pids:/bench\n", files), None);
    }

    use basalt_common::Cell;

    use crate::block::{self, BlockKind, Codec};
    use crate::data_block::DataBlockBuilder;

    /// A block of `n` cells of about `value` bytes each.
    fn block(n: usize, value: usize) -> Arc<DataBlock> {
        let mut b = DataBlockBuilder::default();
        for i in 0..n {
            b.add(&Cell::put(
                format!("r{i:04}").as_bytes(),
                b"cf",
                b"q",
                1,
                &vec![b'v'; value],
            ));
        }
        let framed = b.finish(Codec::None).unwrap();
        Arc::new(DataBlock::new(block::decode(BlockKind::Data, &framed.into()).unwrap()).unwrap())
    }

    #[test]
    fn bounded_in_bytes_with_counters() {
        let cache = BlockCache::new(400_000);
        assert!(cache.get((1, 0)).is_none());
        let big = block(10, 1_000);
        assert!(
            big.weight() > 10_000,
            "charged by its bytes: {}",
            big.weight()
        );
        for i in 0..100 {
            cache.insert((1, i), Arc::clone(&big), false);
        }
        let stats = cache.stats();
        assert!(stats.bytes <= 400_000, "{stats:?}");
        assert!(stats.bytes > 300_000, "not partitioned: {stats:?}");
        assert!(stats.evictions > 0, "{stats:?}");
        assert_eq!(stats.misses, 1);
        let small = block(3, 1);
        cache.insert((2, 0), Arc::clone(&small), true);
        let hit = cache.get((2, 0)).expect("cached");
        assert!(Arc::ptr_eq(&hit, &small), "a hit shares the block");
        assert_eq!(hit.cells().unwrap().len(), 3);
        assert_eq!(cache.stats().hits, 1);
    }

    /// IN_MEMORY blocks stay while others stream through, up to a quarter of the cache;
    /// their pinned bytes are given back when they go.
    #[test]
    fn in_memory_blocks_are_pinned_up_to_a_quarter() {
        let cache = BlockCache::new(1_000_000);
        let big = block(10, 1_000);
        let w = big.weight() as u64;
        let fit = 250_000 / w;
        for i in 0..fit + 3 {
            cache.insert((1, i), Arc::clone(&big), true);
        }
        assert_eq!(cache.stats().pinned_bytes, fit * w);
        for i in 0..1_000 {
            cache.insert((2, i), Arc::clone(&big), false);
        }
        for i in 0..fit {
            assert!(cache.get((1, i)).is_some(), "pinned block {i} was evicted");
        }
        cache.remove((1, 0));
        assert_eq!(cache.stats().pinned_bytes, (fit - 1) * w);
        assert!(cache.stats().bytes <= 1_000_000);
    }
}
