//! The block cache: decoded data blocks shared by every store file reader of a process.
//!
//! Two partitions give HBase's priorities: blocks of IN_MEMORY families have a quarter of the
//! capacity to themselves, everything else shares the rest. Within a partition the eviction
//! policy (quick_cache's, close to S3-FIFO) keeps blocks that are read again over blocks read
//! once, which is what HBase's single-access and multi-access tiers are for. Index and bloom
//! blocks are loaded when a file opens and live as long as its reader: always cached.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use quick_cache::sync::Cache;
use quick_cache::{DefaultHashBuilder, Lifecycle, Weighter};

use crate::data_block::DecodedBlock;

/// Which block: the reader's process-unique id and the block's offset in its file.
pub type BlockKey = (u64, u64);

/// A decoded data block and the bytes it counts for.
#[derive(Debug, Clone)]
pub struct CachedBlock {
    pub cells: Arc<DecodedBlock>,
    pub weight: u64,
}

#[derive(Debug, Clone)]
struct ByWeight;

impl Weighter<BlockKey, CachedBlock> for ByWeight {
    fn weight(&self, _key: &BlockKey, block: &CachedBlock) -> u64 {
        block.weight.max(1)
    }
}

#[derive(Debug, Clone, Default)]
struct CountEvictions(Arc<AtomicU64>);

impl Lifecycle<BlockKey, CachedBlock> for CountEvictions {
    type RequestState = ();

    fn on_evict(&self, _state: &mut Self::RequestState, _key: BlockKey, _block: CachedBlock) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

type Partition = Cache<BlockKey, CachedBlock, ByWeight, DefaultHashBuilder, CountEvictions>;

/// Counters of a [`BlockCache`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    /// Bytes of decoded blocks held now.
    pub bytes: u64,
    pub blocks: u64,
    pub capacity: u64,
}

/// A process-wide cache of decoded data blocks, bounded in bytes.
pub struct BlockCache {
    general: Partition,
    in_memory: Partition,
    capacity: u64,
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: Arc<AtomicU64>,
    next_reader_id: AtomicU64,
}

impl std::fmt::Debug for BlockCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockCache")
            .field("stats", &self.stats())
            .finish()
    }
}

/// Blocks assumed per partition when sizing its table (the table grows if needed).
const ESTIMATED_BLOCK_BYTES: u64 = 64 * 1024;

impl BlockCache {
    /// A cache holding at most `capacity` bytes of decoded blocks.
    pub fn new(capacity: u64) -> Self {
        let evictions = Arc::new(AtomicU64::new(0));
        let partition = |bytes: u64| {
            // The table starts small and grows: many short-lived caches (tests) stay cheap.
            let items = (bytes / ESTIMATED_BLOCK_BYTES).clamp(16, 1024) as usize;
            Cache::with(
                items,
                bytes.max(1),
                ByWeight,
                DefaultHashBuilder::default(),
                CountEvictions(Arc::clone(&evictions)),
            )
        };
        BlockCache {
            general: partition(capacity - capacity / 4),
            in_memory: partition(capacity / 4),
            capacity,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            evictions,
            next_reader_id: AtomicU64::new(1),
        }
    }

    /// A quarter of the memory this process may use (HBase gives the block cache 40% of the
    /// heap): the machine's, or its control group's limit where that is lower, so a server
    /// in a container sizes itself to the container. 1 GiB where neither can be read.
    pub fn default_capacity() -> u64 {
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
        limit.map_or(1 << 30, |bytes| bytes / 4)
    }

    /// A process-unique id for a newly opened reader: its blocks' keys.
    pub fn new_reader_id(&self) -> u64 {
        self.next_reader_id.fetch_add(1, Ordering::Relaxed)
    }

    fn partition(&self, in_memory: bool) -> &Partition {
        if in_memory {
            &self.in_memory
        } else {
            &self.general
        }
    }

    pub fn get(&self, key: BlockKey, in_memory: bool) -> Option<Arc<DecodedBlock>> {
        let found = self.partition(in_memory).get(&key);
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found.map(|b| b.cells)
    }

    pub fn insert(&self, key: BlockKey, cells: Arc<DecodedBlock>, weight: u64, in_memory: bool) {
        self.partition(in_memory)
            .insert(key, CachedBlock { cells, weight });
    }

    /// Drops one block, if cached.
    pub fn remove(&self, key: BlockKey, in_memory: bool) {
        self.partition(in_memory).remove(&key);
    }

    pub fn stats(&self) -> BlockCacheStats {
        BlockCacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions.load(Ordering::Relaxed),
            bytes: self.general.weight() + self.in_memory.weight(),
            blocks: (self.general.len() + self.in_memory.len()) as u64,
            capacity: self.capacity,
        }
    }
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

    fn block(n: usize) -> Arc<DecodedBlock> {
        Arc::new(DecodedBlock::new(
            (0..n)
                .map(|i| Cell::put(format!("r{i}").as_bytes(), b"cf", b"q", 1, b"v"))
                .collect(),
        ))
    }

    #[test]
    fn bounded_in_bytes_with_counters() {
        let cache = BlockCache::new(400_000);
        assert!(cache.get((1, 0), false).is_none());
        for i in 0..100 {
            cache.insert((1, i), block(1), 10_000, false);
        }
        let stats = cache.stats();
        assert!(stats.bytes <= 400_000, "{stats:?}");
        assert!(stats.evictions > 0, "{stats:?}");
        assert_eq!(stats.misses, 1);
        cache.insert((2, 0), block(3), 1_000, true);
        assert_eq!(cache.get((2, 0), true).map(|b| b.len()), Some(3));
        assert!(
            cache.get((2, 0), false).is_none(),
            "partitions are separate"
        );
        assert_eq!(cache.stats().hits, 1);
    }
}
