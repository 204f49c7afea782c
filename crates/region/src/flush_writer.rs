//! The writer of a flush: a snapshot's cells into one store file, a large one encoded by
//! several threads at once, each taking key ranges in turn, and written in key order by the
//! flushing thread.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use basalt_common::{Bytes, Error, Result};
use basalt_storefile::{StoreFilePart, StoreFileWriter};

use crate::flat::{self, FlatSegment};

/// How many threads encode a large flush: one per core, at most four.
pub(crate) fn flush_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// Key ranges per flush thread: more ranges than threads keep every thread busy to the end,
/// and let this thread write each finished range while the others encode the next.
pub(crate) const RANGES_PER_THREAD: usize = 8;

/// Writes every cell of `segments` to `writer`. With `cuts` (ascending rows), the key ranges
/// they bound are encoded by this thread and up to `helpers` others, each range taken in
/// order by whichever thread is free. A range encoded ahead of its turn goes into a
/// [`StoreFilePart`] in memory; this thread writes the parts in key order as they finish, and
/// encodes a range straight into the file when all before it are written.
pub(crate) fn write_in_parts(
    segments: &[Arc<FlatSegment>],
    cuts: &[Bytes],
    helpers: usize,
    writer: &mut StoreFileWriter,
) -> Result<()> {
    if cuts.is_empty() || helpers == 0 {
        return flat::for_each_cell_in(segments, None, None, |cell| Ok(writer.append(cell)?));
    }
    let ranges = cuts.len() + 1;
    let bounds = |i: usize| {
        let from = i.checked_sub(1).map(|c| &cuts[c][..]);
        (from, cuts.get(i).map(|row| &row[..]))
    };
    // Parts are made from this one: the writer itself is busy on this thread.
    let template = writer.part();
    let encode = |i: usize| {
        let (from, to) = bounds(i);
        let mut part = template.sibling();
        flat::for_each_cell_in(segments, from, to, |cell| Ok(part.append(cell)?))?;
        Ok(part)
    };
    let board = PartBoard {
        next: AtomicU64::new(0),
        slots: Mutex::new((0..ranges).map(|_| None).collect()),
        filled: Condvar::new(),
    };
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            let (board, encode) = (&board, &encode);
            let _ = std::thread::Builder::new()
                .name("flush-part".into())
                .spawn_scoped(scope, move || {
                    while let Some(i) = board.take(ranges) {
                        // A panic must still fill the slot, or the writing thread waits
                        // for it forever.
                        let done =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| encode(i)))
                                .unwrap_or_else(|_| Err(Error::storage("a flush thread panicked")));
                        board.put(i, done);
                    }
                });
        }
        let result =
            (|| {
                for turn in 0..ranges {
                    // Encode ranges while the next one to write is not finished.
                    while !board.is_filled(turn) {
                        let Some(i) = board.take(ranges) else {
                            break;
                        };
                        if i == turn {
                            let (from, to) = bounds(i);
                            flat::for_each_cell_in(segments, from, to, |cell| {
                                Ok(writer.append(cell)?)
                            })?;
                            // Its slot holds an empty part: nothing is left to append.
                            board.put(i, Ok(template.sibling()));
                        } else {
                            board.put(i, encode(i));
                        }
                    }
                    writer.append_part(board.wait_for(turn)?)?;
                }
                Ok(())
            })();
        // On an error, the helpers stop at their next range.
        board.next.store(ranges as u64, Ordering::Release);
        result
    })
}

/// The ranges of a parallel flush: which one is next to take, and the finished ones.
struct PartBoard {
    next: AtomicU64,
    slots: Mutex<Vec<Option<Result<StoreFilePart>>>>,
    filled: Condvar,
}

impl PartBoard {
    /// The next range nobody has taken, if any is left.
    fn take(&self, ranges: usize) -> Option<usize> {
        let i = self.next.fetch_add(1, Ordering::AcqRel) as usize;
        (i < ranges).then_some(i)
    }

    fn put(&self, i: usize, done: Result<StoreFilePart>) {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(done);
        self.filled.notify_all();
    }

    fn is_filled(&self, i: usize) -> bool {
        self.slots.lock().unwrap_or_else(PoisonError::into_inner)[i].is_some()
    }

    /// Waits until range `i` is encoded, and takes it.
    fn wait_for(&self, i: usize) -> Result<StoreFilePart> {
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(done) = slots[i].take() {
                return done;
            }
            slots = self
                .filled
                .wait(slots)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use basalt_common::{Cell, CellType, ColumnFamilyDescriptor};
    use basalt_fs::{FileSystem, MemFs};
    use basalt_storefile::{StoreFileReader, WriterOptions};

    use super::*;
    use crate::cursor::CellCursor;
    use crate::memstore::MemStore;

    /// About 4 MiB of cells in scattered row order, in three flat segments (rows dealt
    /// round-robin, as memstores frozen one after another hold interleaved rows): several
    /// versions, deletes and two qualifiers per row, so that rows and their versions straddle
    /// the ranges' seams.
    fn segments() -> Vec<Arc<FlatSegment>> {
        let lists = [MemStore::new(), MemStore::new(), MemStore::new()];
        let mut seq = 0;
        for i in 0u64..6_000 {
            let m = &lists[(i % 3) as usize];
            let row = format!("row{:016x}", i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for ts in 1..=2 {
                for q in [&b"a"[..], b"b"] {
                    seq += 1;
                    let value = vec![b'v'; 100 + (i % 7) as usize];
                    m.insert(Cell::put(row.as_bytes(), b"cf", q, ts, &value).with_seq_id(seq));
                }
            }
            if i % 5 == 0 {
                seq += 1;
                m.insert(
                    Cell::new(row.as_bytes(), b"cf", b"a", 3, CellType::Delete, b"")
                        .with_seq_id(seq),
                );
            }
        }
        lists
            .iter()
            .map(|m| Arc::new(FlatSegment::flatten(m)))
            .collect()
    }

    /// The segments' cells in key order.
    fn cells_of(segments: &[Arc<FlatSegment>]) -> Vec<Cell> {
        let mut out = Vec::new();
        for s in segments {
            let mut cursor = s.cursor(u64::MAX);
            cursor.seek(&Cell::first_on_row(b"")).unwrap();
            while let Some(c) = cursor.peek() {
                out.push(c.clone());
                cursor.advance().unwrap();
            }
        }
        out.sort_by(basalt_common::cell::compare_in_store);
        out
    }

    fn writer(fs: &Arc<MemFs>, name: &str) -> StoreFileWriter {
        let fs_dyn: Arc<dyn FileSystem> = fs.clone();
        let family = ColumnFamilyDescriptor::new("cf");
        let path = Path::new("/s").join(name);
        StoreFileWriter::create(fs_dyn, &path, WriterOptions::for_family(&family)).unwrap()
    }

    /// The cells of every data block of the file, in index order.
    fn file_cells(fs: &MemFs, name: &str) -> Vec<Cell> {
        let reader = StoreFileReader::open(fs, &Path::new("/s").join(name)).unwrap();
        reader
            .block_refs()
            .unwrap()
            .iter()
            .flat_map(|b| reader.data_block(b).unwrap().cells().unwrap())
            .collect()
    }

    #[test]
    fn ranges_encoded_on_several_threads_make_the_same_file_contents() {
        let m = segments();
        let want = cells_of(&m);
        let cuts = flat::split_rows(&m, 16);
        assert!(cuts.len() >= 3, "{} cuts", cuts.len());
        assert!(cuts.windows(2).all(|w| w[0] < w[1]), "cuts ascend");
        let fs = Arc::new(MemFs::new());
        fs.create_dir_all(Path::new("/s")).unwrap();
        for helpers in [0, 1, 3] {
            let name = format!("f{helpers}");
            let mut w = writer(&fs, &name);
            write_in_parts(&m, &cuts, helpers, &mut w).unwrap();
            let info = w.finish().unwrap();
            assert_eq!(info.cell_count, want.len() as u64, "{helpers} helpers");
            assert_eq!(file_cells(&fs, &name), want, "{helpers} helpers");
        }
    }

    #[test]
    fn a_bad_cell_in_any_range_fails_the_flush() {
        let mut m = segments();
        let cuts = flat::split_rows(&m, 16);
        // A cell of another family, in the last range: its encoder refuses it.
        let bad = MemStore::new();
        bad.insert(Cell::put(b"\xff\xff", b"other", b"q", 1, b"").with_seq_id(1));
        m.push(Arc::new(FlatSegment::flatten(&bad)));
        let fs = Arc::new(MemFs::new());
        fs.create_dir_all(Path::new("/s")).unwrap();
        for helpers in [0, 1, 3] {
            let mut w = writer(&fs, "bad");
            let err = write_in_parts(&m, &cuts, helpers, &mut w).unwrap_err();
            assert!(err.to_string().contains("not of family"), "{err}");
            w.abort().unwrap();
        }
    }
}
