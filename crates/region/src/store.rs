//! A store: one column family of one region. It holds an active memstore, at most one
//! memstore snapshot being flushed, and its store files, published together as an immutable
//! [`StoreView`] that readers take and writers replace (copy on write).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use basalt_common::{Cell, ColumnFamilyDescriptor, Result};
use basalt_fs::FileSystem;
use basalt_storefile::{StoreFileReader, StoreFileWriter, WriterOptions};
use crossbeam_epoch::Guard;

use crate::cursor::CellCursor;
use crate::file_cursor::{MergeCursor, StoreFileCursor};
use crate::memstore::MemStore;

/// What a store holds at one moment.
#[derive(Debug)]
pub struct StoreView {
    pub active: Arc<MemStore>,
    /// The memstore being flushed: still readable until its file is in `files`.
    pub snapshot: Option<Arc<MemStore>>,
    pub files: Vec<Arc<StoreFileReader>>,
}

impl StoreView {
    /// A cursor over every source of the view, seeing cells up to `read_point`.
    pub fn cursor<'a>(&'a self, read_point: u64, guard: &'a Guard) -> Box<dyn CellCursor + 'a> {
        if self.snapshot.is_none() && self.files.is_empty() {
            return Box::new(self.active.cursor(read_point, guard));
        }
        let mut sources: Vec<Box<dyn CellCursor + 'a>> =
            vec![Box::new(self.active.cursor(read_point, guard))];
        if let Some(snapshot) = &self.snapshot {
            sources.push(Box::new(snapshot.cursor(read_point, guard)));
        }
        for file in &self.files {
            sources.push(Box::new(StoreFileCursor::new(file, read_point)));
        }
        Box::new(MergeCursor::new(sources))
    }
}

/// One family's cells in one region.
#[derive(Debug)]
pub struct Store {
    family: ColumnFamilyDescriptor,
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    view: RwLock<Arc<StoreView>>,
    files_written: AtomicU64,
}

impl Store {
    /// An empty store keeping its files in `dir` (created if missing).
    pub fn create(
        family: ColumnFamilyDescriptor,
        fs: Arc<dyn FileSystem>,
        dir: PathBuf,
    ) -> Result<Self> {
        fs.create_dir_all(&dir)
            .map_err(|e| basalt_common::Error::Storage(e.to_string()))?;
        let view = StoreView {
            active: Arc::new(MemStore::new(family.name.clone())),
            snapshot: None,
            files: Vec::new(),
        };
        Ok(Store {
            family,
            fs,
            dir,
            view: RwLock::new(Arc::new(view)),
            files_written: AtomicU64::new(0),
        })
    }

    pub fn family(&self) -> &ColumnFamilyDescriptor {
        &self.family
    }

    /// The store's current contents.
    pub fn view(&self) -> Arc<StoreView> {
        // Views are replaced whole; a panic cannot leave one half-written.
        Arc::clone(&self.view.read().unwrap_or_else(PoisonError::into_inner))
    }

    fn publish(&self, change: impl FnOnce(&StoreView) -> StoreView) {
        let mut view = self.view.write().unwrap_or_else(PoisonError::into_inner);
        *view = Arc::new(change(&view));
    }

    /// Builds a cell of this store's family in the active memstore's chunks.
    pub fn build_cell(
        &self,
        row: &[u8],
        qualifier: &[u8],
        timestamp: i64,
        cell_type: basalt_common::CellType,
        value: &[u8],
    ) -> Result<Cell> {
        self.view()
            .active
            .build_cell(row, qualifier, timestamp, cell_type, value)
    }

    /// Adds a cell to the active memstore. The caller holds the region's updates lock shared,
    /// so no snapshot is taken while it inserts.
    pub fn insert(&self, cell: Cell) {
        self.view
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .active
            .insert(cell);
    }

    /// Estimated bytes in memstores (active and snapshot).
    pub fn memstore_size(&self) -> usize {
        let view = self.view();
        view.active.heap_size() + view.snapshot.as_ref().map_or(0, |s| s.heap_size())
    }

    pub fn file_count(&self) -> usize {
        self.view().files.len()
    }

    /// Turns the active memstore into the snapshot to flush. The caller holds the region's
    /// updates lock exclusively (no write is half-applied) and its flush lock (no other
    /// snapshot exists). Returns whether there was anything to snapshot.
    pub fn snapshot(&self) -> bool {
        let view = self.view();
        if view.active.is_empty() || view.snapshot.is_some() {
            return view.snapshot.is_some();
        }
        self.publish(|v| StoreView {
            active: Arc::new(MemStore::new(self.family.name.clone())),
            snapshot: Some(Arc::clone(&v.active)),
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
        let n = self.files_written.fetch_add(1, Ordering::Relaxed);
        let path = self.dir.join(format!("{:016x}{n:016x}", now_ms.max(0)));
        let mut writer = StoreFileWriter::create(
            Arc::clone(&self.fs),
            &path,
            WriterOptions::for_family(&self.family),
        )?;
        let guard = crossbeam_epoch::pin();
        let mut cursor = snapshot.cursor(u64::MAX, &guard);
        cursor.seek(&Cell::first_on_row(b""))?;
        while let Some(cell) = cursor.peek() {
            if let Err(e) = writer.append(cell) {
                let _ = writer.abort();
                return Err(e.into());
            }
            cursor.advance()?;
        }
        writer.finish()?;
        let reader = Arc::new(StoreFileReader::open(self.fs.as_ref(), &path)?);
        self.publish(|v| {
            let mut files = v.files.clone();
            files.push(reader);
            StoreView {
                active: Arc::clone(&v.active),
                snapshot: None,
                files,
            }
        });
        Ok(())
    }
}
