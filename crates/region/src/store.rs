//! A store: one column family of one region. It holds an active memstore, the frozen segments
//! of earlier active memstores (being or already flattened, see [`crate::flat`]), at most one
//! snapshot being flushed, and its store files, published together as an immutable
//! [`StoreView`] that readers take and writers replace (copy on write).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::{Cell, CellType, ColumnFamilyDescriptor, Error, Result};
use basalt_fs::FileSystem;
use basalt_storefile::{BlockCache, CacheUse, StoreFileReader, StoreFileWriter, WriterOptions};
use crossbeam_epoch::Guard;

use crate::compaction::{CompactionConfig, retain_for_major, select_minor};
use crate::cursor::CellCursor;
pub use crate::file_cursor::StoreFile;
use crate::file_cursor::{MergeCursor, StoreFileCursor};
use crate::flat::{self, FlatSegment, Segment};
use crate::flush_writer;
use crate::memstore::MemStore;
use crate::mslab::Mslab;
use crate::reference::{
    RowRange, read_reference, reference_name, referenced_path, write_reference,
};

/// What a store holds at one moment.
#[derive(Debug)]
pub struct StoreView {
    /// The skip list writes go to.
    pub active: Arc<MemStore>,
    /// Earlier active memstores, newest first, frozen when they reached the in-memory flush
    /// size: part of the memstore until the next flush.
    pub frozen: Vec<Segment>,
    /// The memstore being flushed (what was active and frozen when the flush began): still
    /// readable until its file is in `files`.
    pub snapshot: Option<Vec<Segment>>,
    pub files: Vec<Arc<StoreFile>>,
}

/// Which store files a read can skip before reading any block.
#[derive(Debug, Clone, Copy)]
pub struct FileFilter<'a> {
    /// A Get's row: files whose key range or ROW bloom filter excludes it are skipped.
    pub row: Option<&'a [u8]>,
    /// The start of the read's time range: files whose newest cell is older are skipped
    /// (their puts are out of range, and their markers too old to mask anything in range).
    /// HBase also skips files lying wholly after the range, but a delete marker there can mask
    /// puts in range in other files, so Basalt keeps them.
    pub min_timestamp: i64,
    /// Whether blocks the read loads enter the block cache (the read's `cache_blocks`).
    pub cache_blocks: bool,
}

impl FileFilter<'_> {
    fn keeps(&self, file: &StoreFile) -> bool {
        file.reader.info().max_timestamp >= self.min_timestamp
            && self.row.is_none_or(|row| {
                file.range().is_none_or(|r| r.contains(row)) && file.reader.may_contain_row(row)
            })
    }
}

impl StoreView {
    /// This view with another list of files (put in sequence-id order), the memstores as
    /// they are.
    fn with_files(&self, mut files: Vec<Arc<StoreFile>>) -> StoreView {
        files.sort_by_key(|f| f.max_seq_id());
        StoreView {
            active: Arc::clone(&self.active),
            frozen: self.frozen.clone(),
            snapshot: self.snapshot.clone(),
            files,
        }
    }

    /// The active list and the frozen segments, newest first: what freezing the active list,
    /// or taking a snapshot, keeps as segments.
    fn memstore_segments(&self) -> Vec<Segment> {
        let mut segments = Vec::with_capacity(self.frozen.len() + 1);
        segments.push(Segment::List(Arc::clone(&self.active)));
        segments.extend(self.frozen.iter().cloned());
        segments
    }

    /// A cursor over every source of the view that `filter` keeps, seeing cells up to
    /// `read_point`.
    pub fn cursor<'a>(
        &'a self,
        read_point: u64,
        guard: &'a Guard,
        filter: FileFilter<'_>,
    ) -> Box<dyn CellCursor + 'a> {
        let files: Vec<&'a Arc<StoreFile>> =
            self.files.iter().filter(|f| filter.keeps(f)).collect();
        // A Get's row is looked for only in segments whose row filter may hold it.
        let segments: Vec<&'a Segment> = self
            .frozen
            .iter()
            .chain(self.snapshot.iter().flatten())
            .filter(|segment| filter.row.is_none_or(|row| segment.may_contain_row(row)))
            .collect();
        if segments.is_empty() && files.is_empty() {
            return Box::new(self.active.cursor(read_point, guard));
        }
        let mut sources: Vec<Box<dyn CellCursor + 'a>> =
            vec![Box::new(self.active.cursor(read_point, guard))];
        sources.extend(segments.iter().map(|s| s.cursor(read_point, guard)));
        for file in files {
            sources.push(Box::new(StoreFileCursor::new(
                file,
                read_point,
                filter.cache_blocks,
                filter.row,
            )));
        }
        Box::new(MergeCursor::new(sources))
    }
}

/// One family's cells in one region.
#[derive(Debug)]
pub struct Store {
    family: ColumnFamilyDescriptor,
    /// Chunks that cells are copied into on write (HBase's MSLAB). They are reference
    /// counted, so they outlive memstores and flushes for as long as any cell needs them.
    mslab: Mslab,
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    views: Arc<Views>,
    files_written: AtomicU64,
    cache: Option<Arc<BlockCache>>,
    /// One compaction at a time per store: two could pick the same files.
    compacting: Mutex<()>,
}

/// How a family's files use the block cache: its BLOCKCACHE and IN_MEMORY attributes.
fn cache_use(family: &ColumnFamilyDescriptor, cache: &Option<Arc<BlockCache>>) -> Option<CacheUse> {
    cache.as_ref().map(|c| CacheUse {
        cache: Arc::clone(c),
        cache_blocks: family.block_cache,
        in_memory: family.in_memory,
    })
}

/// A store's current view, shared with the thread that flattens its frozen segments.
#[derive(Debug)]
struct Views {
    current: RwLock<Arc<StoreView>>,
    /// Set while a thread flattens: the active memstore is not frozen again until it is done,
    /// so at most one thread per store flattens.
    flattening: AtomicBool,
}

/// Flat segments kept apart at most; past it the two newest are merged whatever their sizes.
const MAX_FLAT_SEGMENTS: usize = 6;

impl Views {
    fn get(&self) -> Arc<StoreView> {
        // Views are replaced whole; a panic cannot leave one half-written.
        Arc::clone(&self.current.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn publish(&self, change: impl FnOnce(&StoreView) -> StoreView) {
        let mut view = self.current.write().unwrap_or_else(PoisonError::into_inner);
        let next = Arc::new(change(&view));
        let replaced = std::mem::replace(&mut *view, next);
        drop(view);
        // Dropped after the lock: it may be the last reference to a large skip list.
        drop(replaced);
    }

    /// Replaces the frozen segments `old` by `new`, in the place of the first of them, if all
    /// are still frozen (a flush may have taken them meanwhile); returns whether it did.
    fn replace_frozen(&self, old: &[Segment], new: Segment) -> bool {
        let mut done = false;
        self.publish(|v| {
            let mut frozen = Vec::with_capacity(v.frozen.len());
            if old.iter().all(|o| v.frozen.iter().any(|s| s.is(o))) {
                for s in &v.frozen {
                    if !old.iter().any(|o| s.is(o)) {
                        frozen.push(s.clone());
                    } else if !done {
                        frozen.push(new.clone());
                        done = true;
                    }
                }
            } else {
                frozen.clone_from(&v.frozen);
            }
            StoreView {
                active: Arc::clone(&v.active),
                frozen,
                snapshot: v.snapshot.clone(),
                files: v.files.clone(),
            }
        });
        done
    }

    /// Flattens every frozen skip list, oldest first, then merges flat segments two at a time,
    /// newest first, while the newer holds at least two thirds of the cells of the older (so
    /// sizes grow geometrically and each cell is merged a few times at most) or while there
    /// are more than [`MAX_FLAT_SEGMENTS`].
    fn flatten_frozen(&self) {
        while let Some(list) = self
            .get()
            .frozen
            .iter()
            .rev()
            .find(|s| matches!(s, Segment::List(_)))
            .cloned()
        {
            let flat = Segment::Flat(list.flattened());
            if !self.replace_frozen(std::slice::from_ref(&list), flat) {
                return;
            }
        }
        loop {
            let view = self.get();
            let flats: Vec<&Arc<FlatSegment>> = view
                .frozen
                .iter()
                .filter_map(|s| match s {
                    Segment::Flat(f) => Some(f),
                    Segment::List(_) => None,
                })
                .collect();
            let [newer, older, ..] = flats[..] else {
                return;
            };
            if newer.len() * 3 < older.len() * 2 && flats.len() <= MAX_FLAT_SEGMENTS {
                return;
            }
            let merged = Segment::Flat(Arc::new(FlatSegment::merge(older, newer)));
            let pair = [
                Segment::Flat(Arc::clone(newer)),
                Segment::Flat(Arc::clone(older)),
            ];
            drop(view);
            if !self.replace_frozen(&pair, merged) {
                return;
            }
        }
    }
}

/// Clears a flag when dropped, also by a panic.
struct ClearOnDrop<'a>(&'a AtomicBool);

impl Drop for ClearOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Store {
    /// Opens the store kept in `dir` (created if missing): its finished files, ordered by the newest sequence id
    /// they hold. Leftovers of an interrupted flush (`*.tmp`) are deleted. Returns the store
    /// and the highest sequence id in its files.
    pub fn open(
        family: ColumnFamilyDescriptor,
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
        cache: Option<Arc<BlockCache>>,
    ) -> Result<(Self, u64)> {
        let storage = |e: basalt_fs::FsError| Error::storage_from(e);
        fs.create_dir_all(&dir).map_err(storage)?;
        let mut files = Vec::new();
        let mut next_number = 0;
        for name in fs.list(&dir).map_err(storage)? {
            let path = dir.join(&name);
            if name.ends_with(".tmp") {
                fs.delete(&path).map_err(storage)?;
                continue;
            }
            if let Some((target, parent)) = referenced_path(&dir, &name) {
                let range = read_reference(fs.as_ref(), &path)?;
                let reader = StoreFileReader::open_with_cache(
                    fs.as_ref(),
                    &target,
                    cache_use(&family, &cache),
                )?;
                files.push(Arc::new(StoreFile {
                    reader: Arc::new(reader),
                    path,
                    reference: Some((range, parent)),
                }));
                continue;
            }
            // Names are 16 hex digits of time, then 16 of a per-store counter.
            if let Some(n) = name.get(16..).and_then(|n| u64::from_str_radix(n, 16).ok()) {
                next_number = next_number.max(n + 1);
            }
            let reader =
                StoreFileReader::open_with_cache(fs.as_ref(), &path, cache_use(&family, &cache))?;
            files.push(Arc::new(StoreFile {
                reader: Arc::new(reader),
                path,
                reference: None,
            }));
        }
        // Files a compaction replaced but a crash kept from being deleted: delete them now.
        // A referenced file names files of its own region's store, not of this one.
        let replaced: std::collections::BTreeSet<String> = files
            .iter()
            .filter(|f| f.reference.is_none())
            .flat_map(|f| f.reader.info().compacted_from.iter().cloned())
            .collect();
        let mut kept = Vec::with_capacity(files.len());
        for f in files {
            if replaced.contains(&f.name()) {
                fs.delete(&f.path).map_err(storage)?;
            } else {
                kept.push(f);
            }
        }
        let mut files = kept;
        files.sort_by_key(|f| f.max_seq_id());
        let max_seq_id = files.iter().map(|f| f.max_seq_id()).max().unwrap_or(0);
        let view = StoreView {
            active: Arc::new(MemStore::new()),
            frozen: Vec::new(),
            snapshot: None,
            files,
        };
        let store = Store {
            family,
            mslab: Mslab::default(),
            fs,
            dir,
            views: Arc::new(Views {
                current: RwLock::new(Arc::new(view)),
                flattening: AtomicBool::new(false),
            }),
            files_written: AtomicU64::new(next_number),
            cache,
            compacting: Mutex::new(()),
        };
        if store.family.prefetch_blocks_on_open {
            store.prefetch();
        }
        Ok((store, max_seq_id))
    }

    /// Reads every data block of the store's files into the block cache on a background
    /// thread (HBase's PREFETCH_BLOCKS_ON_OPEN); a failed read just ends the prefetch.
    fn prefetch(&self) {
        let readers: Vec<Arc<StoreFileReader>> = self
            .view()
            .files
            .iter()
            .map(|f| Arc::clone(&f.reader))
            .collect();
        if readers.is_empty() {
            return;
        }
        let _ = std::thread::Builder::new()
            .name("prefetch".into())
            .spawn(move || {
                for r in readers {
                    if r.warm_cache().is_err() {
                        return;
                    }
                }
            });
    }

    /// Drops the store's blocks from the block cache (HBase's EVICT_BLOCKS_ON_CLOSE).
    pub fn evict_blocks(&self) {
        for f in &self.view().files {
            f.reader.evict_from_cache();
        }
    }

    pub fn family(&self) -> &ColumnFamilyDescriptor {
        &self.family
    }

    /// Whether a full active memstore is frozen and flattened in memory (HBase's in-memory
    /// compaction): not with IN_MEMORY_COMPACTION NONE.
    pub fn flattens_in_memory(&self) -> bool {
        self.family.in_memory_compaction != Some(basalt_common::schema::MemoryCompaction::None)
    }

    /// The store's current contents.
    pub fn view(&self) -> Arc<StoreView> {
        self.views.get()
    }

    fn publish(&self, change: impl FnOnce(&StoreView) -> StoreView) {
        self.views.publish(change);
    }

    /// Builds a cell of this store's family, its bytes copied into the store's chunks in
    /// HBase's KeyValue order. Fails only if a part exceeds the format (row 65535 bytes,
    /// qualifier 4 GiB), which validation rules out before any cell of a mutation is built.
    pub fn build_cell(
        &self,
        row: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: CellType,
        value: &[u8],
    ) -> Result<Cell> {
        let coordinates = (row, &self.family.name[..], qualifier);
        self.mslab
            .cell(coordinates, timestamp, cell_type, value)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "cell of row {} does not fit the KeyValue format",
                    BinaryDisplay::new(row)
                ))
            })
    }

    /// Adds a cell to the active memstore, and returns the active memstore's estimated bytes
    /// with it. The caller holds the region's updates lock shared, so no snapshot is taken and
    /// nothing is frozen while it inserts.
    pub fn insert(&self, cell: Cell) -> usize {
        self.views
            .current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .active
            .insert(cell)
    }

    /// Freezes the active memstore if it holds `at` bytes or more and no earlier one is still
    /// being flattened, and returns whether it did: then call
    /// [`Store::flatten_in_background`]. The caller holds the region's updates lock
    /// exclusively, so every mutation's cells stay together in one segment.
    pub fn freeze(&self, at: usize) -> bool {
        if self.view().active.heap_size() < at || self.views.flattening.swap(true, Ordering::AcqRel)
        {
            return false;
        }
        self.publish(|v| StoreView {
            active: Arc::new(MemStore::new()),
            frozen: v.memstore_segments(),
            snapshot: v.snapshot.clone(),
            files: v.files.clone(),
        });
        true
    }

    /// Flattens the frozen skip lists and merges small flat segments, on a thread of its own
    /// (here if none can be started). Only after [`Store::freeze`] returned true.
    pub fn flatten_in_background(&self) {
        let views = Arc::clone(&self.views);
        let work = move || {
            let _done = ClearOnDrop(&views.flattening);
            views.flatten_frozen();
        };
        if std::thread::Builder::new()
            .name("memstore-flatten".into())
            .spawn(work)
            .is_err()
        {
            let _done = ClearOnDrop(&self.views.flattening);
            self.views.flatten_frozen();
        }
    }

    pub fn file_count(&self) -> usize {
        self.view().files.len()
    }

    /// The sizes of the store's files, oldest first: what the compaction policy looks at.
    pub fn file_sizes(&self) -> Vec<u64> {
        self.view().files.iter().map(|f| f.file_size()).collect()
    }

    /// Bytes of the store's files (a reference counts its whole parent file).
    pub fn size(&self) -> u64 {
        self.view().files.iter().map(|f| f.file_size()).sum()
    }

    /// Whether some file is a reference to a parent region's file.
    pub fn has_references(&self) -> bool {
        self.view().files.iter().any(|f| f.reference.is_some())
    }

    /// The parent regions this store's references point into.
    pub fn referenced_parents(&self) -> Vec<String> {
        self.view()
            .files
            .iter()
            .filter_map(|f| f.reference.as_ref().map(|(_, p)| p.clone()))
            .collect()
    }

    /// The row in the middle of the store's largest file (HBase's split point): the first row
    /// of its middle block, or the middle cell's row if it has one block. None when the store
    /// has no files or holds references.
    pub fn mid_row(&self) -> Result<Option<basalt_common::Bytes>> {
        let view = self.view();
        if view.files.iter().any(|f| f.reference.is_some()) {
            return Ok(None);
        }
        let Some(file) = view.files.iter().max_by_key(|f| f.file_size()) else {
            return Ok(None);
        };
        if let Some(mid) = file.reader.mid_key()? {
            return Ok(Some(mid.row_bytes()));
        }
        let Some(only) = file.reader.block_refs()?.into_iter().next() else {
            return Ok(None);
        };
        let cells = file.reader.data_block(&only)?.cells().map_err(|reason| {
            basalt_storefile::StoreFileError::Corrupt {
                path: file.reader.path().to_owned(),
                offset: 0,
                reason,
            }
        })?;
        Ok(cells.get(cells.len() / 2).map(Cell::row_bytes))
    }

    /// Writes, into `target` (a new region's directory for this family), a reference to the
    /// rows of `range` of each of this store's files that has any. The store must hold no
    /// references itself (a region with references does not split or merge).
    pub fn write_references(
        &self,
        target: &std::path::Path,
        range: &RowRange,
        parent: &str,
    ) -> Result<()> {
        self.fs
            .create_dir_all(target)
            .map_err(Error::storage_from)?;
        for f in &self.view().files {
            let info = f.reader.info();
            if range.overlaps(info.first_key.row(), info.last_key.row()) {
                write_reference(
                    self.fs.as_ref(),
                    &target.join(reference_name(&f.name(), parent)),
                    range,
                )?;
            }
        }
        Ok(())
    }

    /// Whether a snapshot waits to be flushed (an earlier flush of it failed).
    pub fn has_snapshot(&self) -> bool {
        self.view().snapshot.is_some()
    }

    /// Turns the active memstore into the snapshot to flush. The caller holds the region's
    /// updates lock exclusively (no write is half-applied) and its flush lock (no other
    /// snapshot exists). Returns whether there was anything to snapshot.
    pub fn snapshot(&self) -> bool {
        let view = self.view();
        if (view.active.is_empty() && view.frozen.is_empty()) || view.snapshot.is_some() {
            return view.snapshot.is_some();
        }
        self.publish(|v| StoreView {
            active: Arc::new(MemStore::new()),
            frozen: Vec::new(),
            snapshot: Some(v.memstore_segments()),
            files: v.files.clone(),
        });
        true
    }

    /// Writes the snapshot as a store file and replaces the snapshot by the file. On an error
    /// the snapshot stays readable and the next flush tries again.
    pub fn flush_snapshot(&self, now_ms: i64) -> Result<()> {
        let Some(snapshot) = self.view().snapshot.clone() else {
            return Ok(());
        };
        let path = self.new_file_path(now_ms);
        let mut writer = StoreFileWriter::create(
            Arc::clone(&self.fs),
            &path,
            WriterOptions::for_family(&self.family),
        )?;
        // What is still a skip list (at least the memstore that was active) is flattened
        // first: the writers then read memory in key order.
        let flats: Vec<Arc<FlatSegment>> = snapshot.iter().map(Segment::flattened).collect();
        let threads = flush_writer::flush_threads();
        let cuts = flat::split_rows(&flats, threads * flush_writer::RANGES_PER_THREAD);
        if let Err(e) = flush_writer::write_in_parts(&flats, &cuts, threads - 1, &mut writer) {
            let _ = writer.abort();
            return Err(e);
        }
        writer.finish()?;
        let reader = StoreFileReader::open_with_cache(
            self.fs.as_ref(),
            &path,
            cache_use(&self.family, &self.cache),
        )?;
        // HBase's CACHE_DATA_ON_WRITE: the flushed blocks go into the cache now, not at their
        // first read. (Index and bloom blocks are always held by the reader.)
        if self.family.cache_data_on_write {
            reader.warm_cache()?;
        } else {
            reader.just_written();
        }
        let file = Arc::new(StoreFile {
            reader: Arc::new(reader),
            path,
            reference: None,
        });
        self.publish(|v| {
            let mut files = v.files.clone();
            files.push(file);
            StoreView {
                active: Arc::clone(&v.active),
                frozen: v.frozen.clone(),
                snapshot: None,
                files,
            }
        });
        // Freeing a large memstore takes about as long as writing it: a short-lived thread
        // drops this last reference, so the flush is over once its file is in place. If no
        // thread can be started, `spawn` drops the closure, and the snapshot with it, here.
        let _ = std::thread::Builder::new()
            .name("memstore-free".into())
            .spawn(move || drop((snapshot, flats)));
        Ok(())
    }

    /// Starts reading a store file just put in this store's directory (a bulk load).
    pub(crate) fn adopt(&self, path: &std::path::Path) -> Result<()> {
        let reader = StoreFileReader::open_with_cache(
            self.fs.as_ref(),
            path,
            cache_use(&self.family, &self.cache),
        )?;
        let file = Arc::new(StoreFile {
            reader: Arc::new(reader),
            path: path.to_owned(),
            reference: None,
        });
        self.publish(|v| {
            let mut files = v.files.clone();
            files.push(Arc::clone(&file));
            v.with_files(files)
        });
        Ok(())
    }

    pub(crate) fn new_file_path(&self, now_ms: i64) -> PathBuf {
        let n = self.files_written.fetch_add(1, Ordering::Relaxed);
        self.dir.join(format!("{:016x}{n:016x}", now_ms.max(0)))
    }

    /// Compacts this store's files: a minor compaction merges the files the exploring policy
    /// picks and keeps every cell; a major one rewrites all files, keeping what
    /// [`retain_for_major`] keeps. Reads go on meanwhile; the merged files are replaced in
    /// one step and deleted (open readers keep reading them). Returns whether it compacted.
    pub fn compact(&self, major: bool, config: &CompactionConfig, now_ms: i64) -> Result<bool> {
        let _compacting = self
            .compacting
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let view = self.view();
        // References are always compacted away, with every other file. Unlike HBase, which
        // makes that a major compaction, only an explicit or periodic major compaction drops
        // cells in Basalt (docs/design/regions.md).
        let all_files = major || view.files.iter().any(|f| f.reference.is_some());
        let selected: Vec<Arc<StoreFile>> = if all_files {
            view.files.clone()
        } else {
            // Sizes from this same view: the selection indexes its file list.
            let sizes: Vec<u64> = view.files.iter().map(|f| f.file_size()).collect();
            match select_minor(&sizes, config) {
                Some(range) => view.files[range].to_vec(),
                None => return Ok(false),
            }
        };
        if selected.is_empty() {
            return Ok(false);
        }
        let path = self.new_file_path(now_ms);
        // The new file names the files it replaces: if a crash comes before they are
        // deleted, the next open deletes them instead of reading their cells twice.
        let compacted_from = selected.iter().map(|f| f.name()).collect();
        // HBase's COMPRESSION_COMPACT_MAJOR / _MINOR, else COMPRESSION_COMPACT, else the
        // family's COMPRESSION.
        let f = &self.family;
        let compression = if all_files {
            f.compression_compact_major.or(f.compression_compact)
        } else {
            f.compression_compact_minor.or(f.compression_compact)
        }
        .unwrap_or(f.compression);
        let opts = WriterOptions {
            compacted_from,
            compression,
            ..WriterOptions::for_family(&self.family)
        };
        let mut writer = StoreFileWriter::create(Arc::clone(&self.fs), &path, opts)?;
        match self.merge_into(&selected, &mut writer, major, now_ms) {
            Ok(0) => writer.abort()?,
            Ok(_) => {
                writer.finish()?;
            }
            Err(e) => {
                let _ = writer.abort();
                return Err(e);
            }
        }
        let merged = if self.fs.exists(&path).map_err(Error::storage_from)? {
            let reader = StoreFileReader::open_with_cache(
                self.fs.as_ref(),
                &path,
                cache_use(&self.family, &self.cache),
            )?;
            reader.just_written();
            Some(Arc::new(StoreFile {
                reader: Arc::new(reader),
                path: path.clone(),
                reference: None,
            }))
        } else {
            None
        };
        self.publish(|v| {
            let mut files: Vec<_> = v
                .files
                .iter()
                .filter(|f| !selected.iter().any(|s| Arc::ptr_eq(s, f)))
                .cloned()
                .collect();
            files.extend(merged);
            v.with_files(files)
        });
        for f in &selected {
            // A reference's own file goes; the parent's file is the parent's to delete.
            self.fs.delete(&f.path).map_err(Error::storage_from)?;
        }
        if let Some(dir) = path.parent() {
            self.fs.sync_dir(dir).map_err(Error::storage_from)?;
        }
        Ok(true)
    }

    /// Writes the cells of `files`, merged, to `writer`; returns how many it wrote.
    fn merge_into(
        &self,
        files: &[Arc<StoreFile>],
        writer: &mut StoreFileWriter,
        major: bool,
        now_ms: i64,
    ) -> Result<u64> {
        let sources: Vec<Box<dyn CellCursor + '_>> = files
            .iter()
            .map(|f| {
                Box::new(StoreFileCursor::new(f, u64::MAX, false, None)) as Box<dyn CellCursor + '_>
            })
            .collect();
        let mut cursor = MergeCursor::new(sources);
        cursor.seek(&Cell::first_on_row(b""))?;
        let mut written = 0u64;
        let mut row: Vec<Cell> = Vec::new();
        loop {
            let next = cursor.peek().cloned();
            let row_ends = match (&next, row.first()) {
                (Some(c), Some(first)) => c.row() != first.row(),
                (None, _) => true,
                (Some(_), None) => false,
            };
            if row_ends && !row.is_empty() {
                let kept = if major {
                    retain_for_major(&row, &self.family, now_ms)
                } else {
                    std::mem::take(&mut row)
                };
                for c in &kept {
                    writer.append(c)?;
                    written += 1;
                }
                row.clear();
            }
            let Some(cell) = next else {
                return Ok(written);
            };
            row.push(cell);
            cursor.advance()?;
        }
    }
}
