//! Cursors over store files, and the merge of several cursors into one.

use std::ops::Bound;

use basalt_common::cell::compare_in_store;
use basalt_common::{Bytes, Cell, Result};
use basalt_storefile::StoreFileScanner;

use crate::cursor::CellCursor;
use crate::reference::RowRange;
use crate::store::StoreFile;

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
/// Cells are unique across the sources (a cell lives in exactly one of them), so ties do not
/// arise. The smallest is found by a linear pass: a store has a handful of sources.
pub struct MergeCursor<'a> {
    sources: Vec<Box<dyn CellCursor + 'a>>,
    current: Option<usize>,
}

impl std::fmt::Debug for MergeCursor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MergeCursor")
            .field("sources", &self.sources.len())
            .field("current", &self.current)
            .finish()
    }
}

impl<'a> MergeCursor<'a> {
    pub fn new(sources: Vec<Box<dyn CellCursor + 'a>>) -> Self {
        MergeCursor {
            sources,
            current: None,
        }
    }

    fn pick(&mut self) {
        let mut best: Option<(usize, &Cell)> = None;
        for (i, s) in self.sources.iter().enumerate() {
            if let Some(c) = s.peek()
                && best.is_none_or(|(_, b)| compare_in_store(c, b).is_lt())
            {
                best = Some((i, c));
            }
        }
        self.current = best.map(|(i, _)| i);
    }
}

impl CellCursor for MergeCursor<'_> {
    fn seek(&mut self, key: &Cell) -> Result<()> {
        for s in &mut self.sources {
            s.seek(key)?;
        }
        self.pick();
        Ok(())
    }

    fn peek(&self) -> Option<&Cell> {
        self.current.and_then(|i| self.sources[i].peek())
    }

    fn advance(&mut self) -> Result<()> {
        if let Some(i) = self.current {
            self.sources[i].advance()?;
            self.pick();
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
        self.current = None;
        Ok(row)
    }
}
