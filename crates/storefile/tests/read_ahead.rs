//! How many reads a store file costs: a Get reads its one block, a scan reads ahead (several
//! blocks a read, in growing steps), and a prefetch reads the file in a few large reads.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers: a failed setup should fail the test loudly"
)]

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use basalt_common::{BloomType, Bytes, Cell, Compression};
use basalt_fs::{FileLock, FileSystem, MemFs, ReadableFile, Result, WritableFile};
use basalt_storefile::{BlockCache, CacheUse, StoreFileReader, StoreFileWriter, WriterOptions};

/// MemFs, counting the reads made of the files it opens.
#[derive(Debug, Default)]
struct CountingFs {
    mem: MemFs,
    reads: Arc<AtomicU64>,
    /// Files asked to be brought into memory (`will_need`).
    will_need: Arc<AtomicU64>,
}

#[derive(Debug)]
struct CountingFile {
    inner: Arc<dyn ReadableFile>,
    reads: Arc<AtomicU64>,
    will_need: Arc<AtomicU64>,
}

impl ReadableFile for CountingFile {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn will_need(&self) {
        self.will_need.fetch_add(1, Ordering::Relaxed);
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Bytes> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.inner.read_at(offset, len)
    }
}

impl FileSystem for CountingFs {
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.mem.create_dir_all(dir)
    }
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.mem.create(path)
    }
    fn open(&self, path: &Path) -> Result<Arc<dyn ReadableFile>> {
        Ok(Arc::new(CountingFile {
            inner: self.mem.open(path)?,
            reads: Arc::clone(&self.reads),
            will_need: Arc::clone(&self.will_need),
        }))
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.mem.rename(from, to)
    }
    fn delete(&self, path: &Path) -> Result<()> {
        self.mem.delete(path)
    }
    fn delete_dir_all(&self, dir: &Path) -> Result<()> {
        self.mem.delete_dir_all(dir)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.mem.list(dir)
    }
    fn exists(&self, path: &Path) -> Result<bool> {
        self.mem.exists(path)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.mem.sync_dir(dir)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.mem.lock(path)
    }
}

const ROWS: usize = 2_000;

/// A file of `ROWS` rows of about 200 bytes in 1 KiB blocks (a few hundred blocks), opened
/// with `cache`; the reads counted from the open on.
fn file(cache: Option<CacheUse>) -> (StoreFileReader, Arc<AtomicU64>) {
    file_with(cache, 64 * 1024, 128 * 1024)
}

/// As [`file`], with index blocks of `max_index_block` bytes and bloom chunks of
/// `max_bloom_chunk`.
fn file_with(
    cache: Option<CacheUse>,
    max_index_block: usize,
    max_bloom_chunk: usize,
) -> (StoreFileReader, Arc<AtomicU64>) {
    let fs = Arc::new(CountingFs::default());
    fs.create_dir_all(Path::new("/s")).unwrap();
    let opts = WriterOptions {
        family: "cf".into(),
        block_size: 1024,
        compression: Compression::None,
        bloom: BloomType::Row,
        bloom_prefix_len: 0,
        max_index_block,
        max_bloom_chunk,
        compacted_from: Vec::new(),
    };
    let dyn_fs: Arc<dyn FileSystem> = fs.clone();
    let mut w = StoreFileWriter::create(dyn_fs, Path::new("/s/f"), opts).unwrap();
    for r in 0..ROWS {
        let cell = Cell::put(
            format!("row{r:05}").as_bytes(),
            b"cf",
            b"q",
            1,
            &[b'v'; 200],
        );
        w.append(&cell.with_seq_id(1)).unwrap();
    }
    w.finish().unwrap();
    let reader = StoreFileReader::open_with_cache(fs.as_ref(), Path::new("/s/f"), cache).unwrap();
    fs.reads.store(0, Ordering::Relaxed);
    (reader, Arc::clone(&fs.reads))
}

#[test]
fn a_get_reads_one_block_and_a_scan_reads_ahead() {
    let (reader, reads) = file(None);
    assert!(!reader.partitioned());
    let blocks = reader.block_refs().unwrap().len() as u64;
    assert!(blocks > 300, "{blocks} blocks");

    let mut get = reader.scanner().only_row(b"row01000");
    get.seek(&Cell::first_on_row(b"row01000")).unwrap();
    assert_eq!(
        get.current().map(|c| c.row().to_vec()),
        Some(b"row01000".to_vec())
    );
    get.advance().unwrap();
    assert!(get.current().is_none(), "the Get ends with its row");
    assert_eq!(reads.load(Ordering::Relaxed), 1, "a Get reads its block");

    reads.store(0, Ordering::Relaxed);
    let mut scan = reader.scanner();
    scan.seek(&Cell::first_on_row(b"")).unwrap();
    let mut cells = 0;
    while scan.current().is_some() {
        cells += 1;
        scan.advance().unwrap();
    }
    assert_eq!(cells, ROWS);
    let scan_reads = reads.load(Ordering::Relaxed);
    // Read-ahead grows to 256 KiB: a few hundred 1 KiB blocks take a few dozen reads at most.
    assert!(
        scan_reads * 10 < blocks,
        "a whole scan made {scan_reads} reads of {blocks} blocks"
    );
}

#[test]
fn read_ahead_blocks_are_cached_when_the_scan_reaches_them_and_prefetch_reads_in_bulk() {
    let cache = Arc::new(BlockCache::new(64 << 20));
    let use_cache = |cache_blocks| CacheUse {
        cache: Arc::clone(&cache),
        cache_blocks,
        in_memory: false,
    };
    let (reader, reads) = file(Some(use_cache(true)));
    let blocks = reader.block_refs().unwrap().len() as u64;
    reads.store(0, Ordering::Relaxed);
    // A scan that stops after 100 rows leaves behind only the blocks it entered.
    let mut scan = reader.scanner();
    scan.seek(&Cell::first_on_row(b"")).unwrap();
    for _ in 0..100 {
        scan.advance().unwrap();
    }
    let stats = cache.stats();
    assert_eq!(stats.blocks, stats.misses, "{stats:?}");
    assert!(stats.blocks < blocks / 4, "{stats:?}");
    assert!(reads.load(Ordering::Relaxed) < stats.blocks, "{stats:?}");

    // A prefetch caches every block in reads of up to 1 MiB.
    let (reader, reads) = file(Some(use_cache(false)));
    reader.warm_cache().unwrap();
    assert!(reads.load(Ordering::Relaxed) <= 2);
    let before = cache.stats().hits;
    let refs = reader.block_refs().unwrap();
    for b in &refs {
        reader.data_block(b).unwrap();
    }
    assert_eq!(cache.stats().hits - before, refs.len() as u64);
}

/// A large file keeps only the top of its index and bloom filter: a Get first reads the leaf
/// index block and the bloom chunk it needs, which then stay in the cache (pinned, as meta
/// blocks), so the next Get under them reads only its data block.
#[test]
fn a_partitioned_file_reads_its_leaves_and_chunks_once() {
    let cache = Arc::new(BlockCache::new(64 << 20));
    let use_cache = CacheUse {
        cache: Arc::clone(&cache),
        cache_blocks: true,
        in_memory: false,
    };
    let (reader, reads) = file_with(Some(use_cache), 1024, 64);
    assert!(reader.partitioned());
    let (whole, _) = file(None);
    assert!(
        reader.index_bytes() * 10 < whole.index_bytes(),
        "resident index: {} bytes partitioned, {} whole",
        reader.index_bytes(),
        whole.index_bytes()
    );
    assert!(reader.bloom_bytes() < whole.bloom_bytes());
    let get = |row: &str| {
        assert!(reader.may_contain_row(row.as_bytes()));
        let mut get = reader.scanner().only_row(row.as_bytes());
        get.seek(&Cell::first_on_row(row.as_bytes())).unwrap();
        get.current().map(|c| c.row().to_vec())
    };
    assert_eq!(get("row01000"), Some(b"row01000".to_vec()));
    assert_eq!(
        reads.load(Ordering::Relaxed),
        3,
        "bloom chunk, leaf index block, data block"
    );
    reads.store(0, Ordering::Relaxed);
    assert_eq!(get("row01010"), Some(b"row01010".to_vec()));
    assert_eq!(reads.load(Ordering::Relaxed), 1, "the data block only");
    assert!(cache.stats().meta_bytes > 0, "{:?}", cache.stats());
    reads.store(0, Ordering::Relaxed);
    assert!(!reader.may_contain_row(b"row01000x"));

    // Every row is found by a Get, a whole scan and a reversed step, across leaves.
    let mut scan = reader.scanner();
    scan.seek(&Cell::first_on_row(b"")).unwrap();
    let mut rows = 0;
    while let Some(c) = scan.current() {
        assert_eq!(c.row(), format!("row{rows:05}").as_bytes());
        rows += 1;
        scan.advance().unwrap();
    }
    assert_eq!(rows, ROWS);
    for r in (0..ROWS).step_by(7) {
        let row = format!("row{r:05}");
        assert_eq!(get(&row), Some(row.clone().into_bytes()));
        let before = scan
            .last_row_before(std::ops::Bound::Excluded(row.as_bytes()))
            .unwrap();
        let want = r.checked_sub(1).map(|p| format!("row{p:05}").into_bytes());
        assert_eq!(before.map(|b| b.to_vec()), want);
    }
    // The mid key (a split point) is near the middle, for both index layouts.
    for r in [&reader, &whole] {
        let mid = r.mid_key().unwrap().unwrap();
        let row: usize = std::str::from_utf8(&mid.row()[3..])
            .unwrap()
            .parse()
            .unwrap();
        assert!((700..1300).contains(&row), "mid key {mid}");
    }
    // Closing the file takes its blocks, meta blocks too, out of the cache.
    drop(reader);
    let stats = cache.stats();
    assert_eq!((stats.blocks, stats.meta_bytes), (0, 0), "{stats:?}");
}

/// A file just written is brought into memory in the background when it is small enough for
/// the page cache (store files are written around it), unless its reads go around the page
/// cache themselves (direct reads); opening a file does not ask.
#[test]
fn a_file_just_written_is_brought_into_memory_unless_read_directly() {
    let fs = Arc::new(CountingFs::default());
    fs.create_dir_all(Path::new("/s")).unwrap();
    let dyn_fs: Arc<dyn FileSystem> = fs.clone();
    let mut w = StoreFileWriter::create(
        dyn_fs,
        Path::new("/s/f"),
        WriterOptions::for_family(&basalt_common::ColumnFamilyDescriptor::new("cf")),
    )
    .unwrap();
    w.append(&Cell::put(b"row", b"cf", b"q", 1, b"v").with_seq_id(1))
        .unwrap();
    w.finish().unwrap();
    let open = |direct| {
        let cache = CacheUse {
            cache: Arc::new(BlockCache::new(1 << 20).with_direct_reads(direct)),
            cache_blocks: true,
            in_memory: false,
        };
        StoreFileReader::open_with_cache(fs.as_ref(), Path::new("/s/f"), Some(cache)).unwrap()
    };
    let buffered = open(false);
    assert_eq!(fs.will_need.load(Ordering::Relaxed), 0, "not on open");
    buffered.just_written();
    assert_eq!(fs.will_need.load(Ordering::Relaxed), 1);
    open(true).just_written();
    assert_eq!(
        fs.will_need.load(Ordering::Relaxed),
        1,
        "direct reads skip it"
    );
}
