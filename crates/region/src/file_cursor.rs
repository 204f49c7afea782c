//! The files a store reads, cursors over them, and the merge of several cursors into one.

use std::ops::Bound;
use std::path::PathBuf;
use std::sync::Arc;

use basalt_common::cell::compare_in_store;
use basalt_common::{Bytes, Cell, Result};
use basalt_storefile::{StoreFileReader, StoreFileScanner};

use crate::cursor::CellCursor;
use crate::reference::RowRange;

/// A file a store reads: one of its own store files, or a reference to the rows of a parent
/// region's file that fall in this region (after a split or merge).
#[derive(Debug)]
pub struct StoreFile {
    pub reader: Arc<StoreFileReader>,
    /// The file in this store's directory: the store file itself, or the reference file.
    pub path: PathBuf,
    /// For a reference: the rows it reads, and the parent region's encoded name.
    pub reference: Option<(RowRange, String)>,
}

impl StoreFile {
    /// The name in the store's directory.
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    pub fn range(&self) -> Option<&RowRange> {
        self.reference.as_ref().map(|(r, _)| r)
    }

    pub fn max_seq_id(&self) -> u64 {
        self.reader.info().max_seq_id
    }

    pub fn file_size(&self) -> u64 {
        self.reader.file_size()
    }
}

/// Walks one store file, hiding cells above the reader's read point (a file flushed while a
/// scan runs may hold writes the scan must not see), and, for a reference, the rows outside
/// its range.
#[derive(Debug)]
pub struct StoreFileCursor<'r> {
    scanner: StoreFileScanner<'r>,
    read_point: u64,
    range: Option<&'r RowRange>,
}

impl<'r> StoreFileCursor<'r> {
    /// A cursor over `file`; with `only_row`, over that row's cells alone (a Get's).
    pub fn new(
        file: &'r StoreFile,
        read_point: u64,
        cache_blocks: bool,
        only_row: Option<&[u8]>,
    ) -> Self {
        let scanner = file.reader.scanner_caching(cache_blocks);
        StoreFileCursor {
            scanner: match only_row {
                Some(row) => scanner.only_row(row),
                None => scanner,
            },
            read_point,
            range: file.range(),
        }
    }

    /// Whether the current cell lies past the end of a reference's range.
    fn past_end(&self) -> bool {
        match (self.range, self.scanner.current()) {
            (Some(r), Some(c)) => !r.end.is_empty() && c.row() >= &r.end[..],
            _ => false,
        }
    }

    fn skip_invisible(&mut self) -> Result<()> {
        while self
            .scanner
            .current()
            .is_some_and(|c| c.seq_id > self.read_point)
        {
            self.scanner.advance()?;
        }
        Ok(())
    }
}

impl CellCursor for StoreFileCursor<'_> {
    fn seek(&mut self, key: &Cell) -> Result<()> {
        match self.range {
            Some(r) if key.row() < &r.start[..] => {
                self.scanner.seek(&Cell::first_on_row(&r.start))?;
            }
            _ => self.scanner.seek(key)?,
        }
        self.skip_invisible()
    }

    fn peek(&self) -> Option<&Cell> {
        if self.past_end() {
            return None;
        }
        self.scanner.current()
    }

    fn advance(&mut self) -> Result<()> {
        if self.past_end() {
            return Ok(());
        }
        self.scanner.advance()?;
        self.skip_invisible()
    }

    fn last_row_before(&mut self, bound: Bound<&[u8]>) -> Result<Option<Bytes>> {
        // A row whose only cells are above the read point may be returned; reading it then
        // yields nothing, and the scan moves on below it.
        let Some(range) = self.range else {
            return Ok(self.scanner.last_row_before(bound)?);
        };
        // A reference reads below its end row only.
        let bound = match bound {
            _ if range.end.is_empty() => bound,
            Bound::Unbounded => Bound::Excluded(&range.end[..]),
            Bound::Included(r) | Bound::Excluded(r) if r >= &range.end[..] => {
                Bound::Excluded(&range.end[..])
            }
            b => b,
        };
        Ok(self
            .scanner
            .last_row_before(bound)?
            .filter(|row| range.contains(row)))
    }
}

/// The merge of several cursors of one store (memstores and files) into one, in store order.
/// Cells are unique across the sources (a cell lives in exactly one of them); were two equal,
/// the earlier source's would come first. As HBase's KeyValueHeap: the source with the smallest cell is `current`, the others
/// with a cell wait in a binary min-heap by their cells. A step advances `current` and
/// compares it with the heap's top alone (one comparison while one source's cells run on, as
/// a row's cells mostly do); only when the top is smaller do the two trade places, with a sift
/// of about two comparisons per level, rather than a comparison with every source.
pub struct MergeCursor<'a> {
    sources: Vec<Box<dyn CellCursor + 'a>>,
    /// The source with the smallest cell; None past the end.
    current: Option<usize>,
    /// The other sources that have a cell, a min-heap by those cells in store order.
    heap: Vec<usize>,
}

impl std::fmt::Debug for MergeCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergeCursor")
            .field("sources", &self.sources.len())
            .field("current", &self.current)
            .field("heap", &self.heap)
            .finish()
    }
}

impl<'a> MergeCursor<'a> {
    pub fn new(sources: Vec<Box<dyn CellCursor + 'a>>) -> Self {
        let heap = Vec::with_capacity(sources.len());
        MergeCursor {
            sources,
            current: None,
            heap,
        }
    }

    /// Whether source `a`'s cell sorts before source `b`'s (a source past its end sorts last;
    /// equal cells, were there any, by the sources' order, as the merge always took them).
    fn before(&self, a: usize, b: usize) -> bool {
        match (self.sources[a].peek(), self.sources[b].peek()) {
            (Some(x), Some(y)) => compare_in_store(x, y).then(a.cmp(&b)).is_lt(),
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Moves the heap's entry at `at` down to its place.
    fn sift_down(&mut self, mut at: usize) {
        loop {
            let left = 2 * at + 1;
            if left >= self.heap.len() {
                return;
            }
            let right = left + 1;
            let child = if right < self.heap.len() && self.before(self.heap[right], self.heap[left])
            {
                right
            } else {
                left
            };
            if !self.before(self.heap[child], self.heap[at]) {
                return;
            }
            self.heap.swap(child, at);
            at = child;
        }
    }

    /// The heap again from every source's position (after a seek).
    fn rebuild(&mut self) {
        self.heap.clear();
        let sources = &self.sources;
        self.heap
            .extend((0..sources.len()).filter(|&i| sources[i].peek().is_some()));
        for at in (0..self.heap.len() / 2).rev() {
            self.sift_down(at);
        }
        self.current = self.pop();
    }

    /// Takes the heap's smallest source out.
    fn pop(&mut self) -> Option<usize> {
        if self.heap.is_empty() {
            return None;
        }
        let top = self.heap.swap_remove(0);
        self.sift_down(0);
        Some(top)
    }
}

impl CellCursor for MergeCursor<'_> {
    fn seek(&mut self, key: &Cell) -> Result<()> {
        for s in &mut self.sources {
            s.seek(key)?;
        }
        self.rebuild();
        Ok(())
    }

    fn peek(&self) -> Option<&Cell> {
        self.current.and_then(|i| self.sources[i].peek())
    }

    fn advance(&mut self) -> Result<()> {
        let Some(current) = self.current else {
            return Ok(());
        };
        self.sources[current].advance()?;
        if self.sources[current].peek().is_none() {
            self.current = self.pop();
        } else if let Some(&top) = self.heap.first()
            && self.before(top, current)
        {
            self.heap[0] = current;
            self.current = Some(top);
            self.sift_down(0);
        }
        Ok(())
    }

    fn last_row_before(&mut self, bound: Bound<&[u8]>) -> Result<Option<Bytes>> {
        let mut row: Option<Bytes> = None;
        for s in &mut self.sources {
            if let Some(r) = s.last_row_before(bound)? {
                row = row.max(Some(r));
            }
        }
        self.heap.clear();
        self.current = None;
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells in store order, walked from a position.
    struct Cells {
        cells: Vec<Cell>,
        at: usize,
    }

    impl CellCursor for Cells {
        fn seek(&mut self, key: &Cell) -> Result<()> {
            self.at = self
                .cells
                .partition_point(|c| compare_in_store(c, key).is_lt());
            Ok(())
        }

        fn peek(&self) -> Option<&Cell> {
            self.cells.get(self.at)
        }

        fn advance(&mut self) -> Result<()> {
            self.at += 1;
            Ok(())
        }

        fn last_row_before(&mut self, _: Bound<&[u8]>) -> Result<Option<Bytes>> {
            Ok(None)
        }
    }

    fn cell(i: usize) -> Cell {
        Cell::put(format!("row{i:05}").as_bytes(), b"f", b"q", 1, b"v")
    }

    #[test]
    fn the_merge_of_many_sources_is_in_store_order_after_every_seek() {
        for sources in [1, 2, 3, 8, 32] {
            // Source k holds the rows i with i % sources == k, and every fifth source is
            // empty past its first few rows: uneven lengths.
            let all: Vec<Cell> = (0..500).map(cell).collect();
            let cursors: Vec<Box<dyn CellCursor>> = (0..sources)
                .map(|k| {
                    let mut cells: Vec<Cell> =
                        all.iter().skip(k).step_by(sources).cloned().collect();
                    if k % 5 == 4 {
                        cells.truncate(3);
                    }
                    Box::new(Cells { cells, at: 0 }) as Box<dyn CellCursor>
                })
                .collect();
            let mut want: Vec<Cell> = (0..sources)
                .flat_map(|k| {
                    let mut cells: Vec<Cell> =
                        all.iter().skip(k).step_by(sources).cloned().collect();
                    if k % 5 == 4 {
                        cells.truncate(3);
                    }
                    cells
                })
                .collect();
            want.sort_by(compare_in_store);
            let mut merge = MergeCursor::new(cursors);
            for from in [0, 137, 499, 500] {
                merge.seek(&cell(from)).unwrap();
                let mut got = Vec::new();
                while let Some(c) = merge.peek() {
                    got.push(c.clone());
                    merge.advance().unwrap();
                }
                let expected: Vec<Cell> = want
                    .iter()
                    .filter(|c| compare_in_store(c, &cell(from)).is_ge())
                    .cloned()
                    .collect();
                assert_eq!(got, expected, "{sources} sources from row {from}");
            }
        }
    }
}
