//! [`AsyncLaidTable`]: an async table by its logical row keys, whatever key layout it declares
//! (issue 34's layouts; the blocking side is [`crate::LayoutClient`]). Operations take logical
//! keys and send the stored ones; results come back with logical keys. A scan of a salted or
//! time-bucketed table reads each bucket with its own scanner and merges them into logical
//! order; a scan of a hash-prefixed or reversed table reads the table whole and sorts what is
//! in range (up to [`crate::layout::SORTED_SCAN_LIMIT`] rows). The translations are
//! `LayoutClient`'s own.

use basalt_common::key_layout::KeyLayout;

use super::{AsyncScanner, AsyncTable};
use crate::layout::{
    at_stored_row, bucket_scan, keep_in_range, logical_outcome, logical_result, next_head,
    physical_batch_op, physical_check_and_mutate, physical_mutations, sorted_in_range, whole_table,
};
use crate::{
    Append, BatchOp, BatchOutcome, CheckAndMutate, CheckAndMutateResult, Delete, Error, Get,
    Increment, Put, Result, RowMutations, RowResult, Scan,
};

/// A table of an [`super::AsyncConnection`] by logical row keys; see the module documentation.
/// Made by [`super::AsyncConnection::logical_table`], which reads the table's layout once.
#[derive(Debug, Clone)]
pub struct AsyncLaidTable {
    pub(super) table: AsyncTable,
    pub(super) layout: Option<KeyLayout>,
}

impl AsyncLaidTable {
    /// The table's layout, None for a plain table (whose calls pass through untouched).
    pub fn layout(&self) -> Option<KeyLayout> {
        self.layout
    }

    /// The table underneath: stored keys, no translation.
    pub fn raw(&self) -> &AsyncTable {
        &self.table
    }

    /// Writes the put's cells under its logical row.
    pub async fn put(&self, put: &Put) -> Result<()> {
        self.table.put(&at_stored_row(self.layout, put)?).await
    }

    /// Deletes what the delete names in its logical row.
    pub async fn delete(&self, delete: &Delete) -> Result<()> {
        self.table
            .delete(&at_stored_row(self.layout, delete)?)
            .await
    }

    /// The logical row's cells as the get selects them.
    pub async fn get(&self, get: &Get) -> Result<RowResult> {
        let got = self.table.get(&at_stored_row(self.layout, get)?).await?;
        logical_result(self.layout, got)
    }

    /// Whether the get finds any cell.
    pub async fn exists(&self, get: &Get) -> Result<bool> {
        Ok(!self.get(get).await?.cells.is_empty())
    }

    /// Adds to counters of the logical row, atomically: the new values.
    pub async fn increment(&self, inc: &Increment) -> Result<RowResult> {
        let got = self
            .table
            .increment(&at_stored_row(self.layout, inc)?)
            .await?;
        logical_result(self.layout, got)
    }

    /// Appends to values of the logical row, atomically: the new values.
    pub async fn append(&self, append: &Append) -> Result<RowResult> {
        let got = self
            .table
            .append(&at_stored_row(self.layout, append)?)
            .await?;
        logical_result(self.layout, got)
    }

    /// Mutations of one logical row applied together.
    pub async fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        let sent = physical_mutations(self.layout, mutations)?;
        self.table
            .mutate_row(&sent)
            .await?
            .into_iter()
            .map(|r| logical_result(self.layout, r))
            .collect()
    }

    /// A mutation of a logical row applied only if the condition holds, atomically.
    pub async fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let done = self
            .table
            .check_and_mutate(&physical_check_and_mutate(self.layout, cam)?)
            .await?;
        Ok(CheckAndMutateResult {
            success: done.success,
            result: done
                .result
                .map(|r| logical_result(self.layout, r))
                .transpose()?,
        })
    }

    /// Operations of any kind and logical rows, each on its own: one outcome per operation,
    /// in order. An operation whose key does not fit the layout fails alone.
    pub async fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        let mut out: Vec<Option<Result<BatchOutcome>>> = Vec::with_capacity(ops.len());
        let mut sent = Vec::new();
        let mut at = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            match physical_batch_op(self.layout, op) {
                Ok(p) => {
                    sent.push(p);
                    at.push(i);
                    out.push(None);
                }
                Err(e) => out.push(Some(Err(e))),
            }
        }
        for (i, r) in at.into_iter().zip(self.table.batch(&sent).await) {
            out[i] = Some(r.and_then(|o| logical_outcome(self.layout, o)));
        }
        out.into_iter()
            .map(|r| r.unwrap_or_else(|| Err(Error::storage("a batch answered too few ops"))))
            .collect()
    }

    /// Opens a scan over logical keys (each bucket's scanner opens now).
    pub async fn scanner(&self, scan: &Scan) -> Result<AsyncLaidScanner> {
        let Some(layout) = self.layout else {
            return Ok(AsyncLaidScanner(Rows::Plain(Box::new(
                self.table.scanner(scan).await?,
            ))));
        };
        let Some(buckets) = layout.buckets() else {
            let mut rows = Vec::new();
            let mut all = self.table.scanner(&whole_table(scan)).await?;
            while let Some(row) = all.next_row().await {
                let row = logical_result(Some(layout), row?)?;
                keep_in_range(&mut rows, row, scan, self.table.name(), layout)?;
            }
            return Ok(AsyncLaidScanner(Rows::Sorted(
                sorted_in_range(rows, scan).into_iter(),
            )));
        };
        let mut sources = Vec::with_capacity(usize::from(buckets));
        for bucket in 0..buckets {
            let bucket = u8::try_from(bucket).unwrap_or(u8::MAX);
            sources.push(
                self.table
                    .scanner(&bucket_scan(layout, bucket, scan))
                    .await?,
            );
        }
        Ok(AsyncLaidScanner(Rows::Merged(Merge {
            layout,
            reversed: scan.reversed,
            limit: scan.limit,
            returned: 0,
            heads: vec![None; sources.len()],
            sources,
            started: false,
            failed: false,
        })))
    }

    /// Every row of the scan, in logical order.
    pub async fn scan(&self, scan: &Scan) -> Result<Vec<RowResult>> {
        let mut scanner = self.scanner(scan).await?;
        let mut rows = Vec::new();
        while let Some(row) = scanner.next_row().await {
            rows.push(row?);
        }
        Ok(rows)
    }
}

/// The rows of a scan over logical keys; [`AsyncLaidScanner::next_row`] hands them out.
#[derive(Debug)]
pub struct AsyncLaidScanner(Rows);

#[derive(Debug)]
enum Rows {
    /// A plain table's scan.
    Plain(Box<AsyncScanner>),
    /// A salted or time-bucketed table's buckets, merged.
    Merged(Merge),
    /// A hash-prefixed or reversed table's rows in range, sorted.
    Sorted(std::vec::IntoIter<RowResult>),
}

/// The buckets' scanners of a salted or time-bucketed table, merged into logical order.
#[derive(Debug)]
struct Merge {
    layout: KeyLayout,
    reversed: bool,
    limit: Option<usize>,
    returned: usize,
    sources: Vec<AsyncScanner>,
    heads: Vec<Option<RowResult>>,
    started: bool,
    failed: bool,
}

impl Merge {
    async fn fill(&mut self, i: usize) -> Result<()> {
        self.heads[i] = match self.sources[i].next_row().await {
            Some(row) => Some(logical_result(Some(self.layout), row?)?),
            None => None,
        };
        Ok(())
    }

    async fn next_row(&mut self) -> Option<Result<RowResult>> {
        if self.failed || self.limit.is_some_and(|l| self.returned >= l) {
            return None;
        }
        if !self.started {
            self.started = true;
            for i in 0..self.sources.len() {
                if let Err(e) = self.fill(i).await {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
        let i = next_head(&self.heads, self.reversed)?;
        let row = self.heads[i].take()?;
        if let Err(e) = self.fill(i).await {
            self.failed = true;
            return Some(Err(e));
        }
        if !row.partial {
            self.returned += 1;
        }
        Some(Ok(row))
    }
}

impl AsyncLaidScanner {
    /// The next row (a part of one, with `allow_partial_results`), None at the end.
    pub async fn next_row(&mut self) -> Option<Result<RowResult>> {
        match &mut self.0 {
            Rows::Plain(s) => s.next_row().await,
            Rows::Merged(m) => m.next_row().await,
            Rows::Sorted(rows) => rows.next().map(Ok),
        }
    }
}
