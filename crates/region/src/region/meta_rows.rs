//! The region's public reads and writes. Most regions pass them straight to the engine;
//! `hbase:meta`'s region stores its rows in meta order (`crate::meta_keys`), so its
//! operations' rows are encoded on the way in and its results' rows decoded on the way out.

use basalt_common::cell::validate_row;
use basalt_common::error::{Error, Result};
use basalt_common::filter::{Filter, FilterSpec};
use basalt_common::metrics::Op;
use basalt_common::ops::{
    Append, CheckAction, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put,
    RowMutations, RowOp, RowResult, Scan,
};
use basalt_common::{Bytes, Durability};

use super::{Region, RowMutation};
use crate::RegionScanner;
use crate::meta_keys::{self, MAX_KEY_LENGTH, MetaRowsFilter};

/// Meta's stored key of `row`.
fn key(row: &Bytes) -> Result<Bytes> {
    let key = meta_keys::encode(row);
    if key.len() > MAX_KEY_LENGTH {
        return Err(Error::RowTooLong {
            len: key.len(),
            max: MAX_KEY_LENGTH,
        });
    }
    Ok(Bytes::from(key))
}

/// A scan bound: empty means unbounded, and stays so.
fn bound(row: &Bytes) -> Result<Bytes> {
    if row.is_empty() {
        Ok(Bytes::new())
    } else {
        key(row)
    }
}

fn put_key(p: &Put) -> Result<Put> {
    Ok(Put {
        row: key(&p.row)?,
        ..p.clone()
    })
}

fn delete_key(d: &Delete) -> Result<Delete> {
    Ok(Delete {
        row: key(&d.row)?,
        ..d.clone()
    })
}

fn increment_key(i: &Increment) -> Result<Increment> {
    Ok(Increment {
        row: key(&i.row)?,
        ..i.clone()
    })
}

fn append_key(a: &Append) -> Result<Append> {
    Ok(Append {
        row: key(&a.row)?,
        ..a.clone()
    })
}

fn row_mutations_key(m: &RowMutations) -> Result<RowMutations> {
    Ok(RowMutations {
        row: key(&m.row)?,
        mutations: m
            .mutations
            .iter()
            .map(|op| {
                Ok(match op {
                    RowOp::Put(p) => RowOp::Put(put_key(p)?),
                    RowOp::Delete(d) => RowOp::Delete(delete_key(d)?),
                    RowOp::Increment(i) => RowOp::Increment(increment_key(i)?),
                    RowOp::Append(a) => RowOp::Append(append_key(a)?),
                })
            })
            .collect::<Result<_>>()?,
    })
}

/// A stored result as the world sees it.
pub(crate) fn shown(r: RowResult) -> RowResult {
    RowResult {
        row: match meta_keys::decode(&r.row) {
            Ok(row) => Bytes::from(row),
            Err(_) => r.row,
        },
        cells: r.cells.iter().map(meta_keys::decode_cell).collect(),
        partial: r.partial,
    }
}

impl Region {
    /// Checks a row as stored: a row key's limits, or for meta the cell format's (a region
    /// name can be longer than a row key).
    pub(crate) fn check_row(&self, row: &[u8]) -> Result<()> {
        if !self.meta {
            return validate_row(row);
        }
        if row.is_empty() {
            return Err(Error::EmptyRow);
        }
        if row.len() > MAX_KEY_LENGTH {
            return Err(Error::RowTooLong {
                len: row.len(),
                max: MAX_KEY_LENGTH,
            });
        }
        Ok(())
    }

    /// The filter a read of this region runs: meta's sees rows as they are, not as stored.
    pub(crate) fn build_filter(
        &self,
        spec: &FilterSpec,
        reversed: bool,
    ) -> Result<Box<dyn Filter>> {
        let filter = spec.build(reversed)?;
        Ok(if self.meta {
            Box::new(MetaRowsFilter(filter))
        } else {
            filter
        })
    }

    /// Whether this region stores its rows in meta order.
    pub fn is_meta(&self) -> bool {
        self.meta
    }

    /// Writes every cell of `put` atomically.
    pub fn put(&self, put: &Put) -> Result<()> {
        let _timer = self.time(Op::Put);
        if let Some(observer) = self.observer() {
            return self.put_observed(observer.as_ref(), put);
        }
        if !self.meta {
            return self.put_stored(put);
        }
        validate_row(&put.row)?;
        self.put_stored(&put_key(put)?)
    }

    /// Applies puts and deletes of several rows as one atomic mutation: one sequence id, one
    /// WAL record, all visible at once (HBase's `mutateRowsWithLocks`, which `hbase:meta`
    /// changes use). Deletes must name their timestamps or delete whole columns or families:
    /// a "newest version" delete would have to read first.
    pub fn mutate_rows(&self, mutations: &[RowMutation], durability: Durability) -> Result<()> {
        if !self.meta {
            return self.mutate_rows_stored(mutations, durability);
        }
        let stored = mutations
            .iter()
            .map(|m| {
                Ok(match m {
                    RowMutation::Put(p) => RowMutation::Put(put_key(p)?),
                    RowMutation::Delete(d) => RowMutation::Delete(delete_key(d)?),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.mutate_rows_stored(&stored, durability)
    }

    /// Writes the delete markers of `delete` atomically. A whole-row delete writes one
    /// DeleteFamily marker per family; a single-version delete without a timestamp masks the
    /// newest version there is (or "now" when there is none), as HBase's
    /// `prepareDeleteTimestamps` does.
    pub fn delete(&self, delete: &Delete) -> Result<()> {
        let _timer = self.time(Op::Delete);
        if let Some(observer) = self.observer() {
            return self.delete_observed(observer.as_ref(), delete);
        }
        if !self.meta {
            return self.delete_stored(delete);
        }
        validate_row(&delete.row)?;
        self.delete_stored(&delete_key(delete)?)
    }

    /// Reads one row.
    pub fn get(&self, get: &Get) -> Result<RowResult> {
        let _timer = self.time(Op::Get);
        if let Some(observer) = self.observer() {
            return self.get_observed(observer.as_ref(), get);
        }
        if !self.meta {
            return self.get_stored(get);
        }
        validate_row(&get.row)?;
        let stored = Get {
            row: key(&get.row)?,
            ..get.clone()
        };
        let mut out = shown(self.get_stored(&stored)?);
        out.row = get.row.clone();
        Ok(out)
    }

    /// Reads one row without the region's observer (a coprocessor's own read).
    pub fn get_unobserved(&self, get: &Get) -> Result<RowResult> {
        if self.meta {
            return self.get(get);
        }
        self.get_stored(get)
    }

    /// [`Region::get_unobserved`] as a raw read: delete markers and the cells they mask too,
    /// as a raw scan returns them (a coprocessor's look at what a delete removed).
    pub fn get_raw_unobserved(&self, get: &Get) -> Result<RowResult> {
        let mut scan = Scan::new()
            .with_start_row(get.row.clone())
            .with_stop_row_inclusive(get.row.clone(), true)
            .raw(true);
        scan.families = get.families.clone();
        scan.time_range = get.time_range;
        scan.max_versions = get.max_versions;
        let mut rows = if self.meta {
            self.scan(&scan)?
        } else {
            self.scan_stored(&scan)?.without_observer()
        };
        Ok(rows.next().transpose()?.unwrap_or(RowResult {
            row: get.row.clone(),
            cells: Vec::new(),
            partial: false,
        }))
    }

    /// Opens a scanner over the rows `scan` selects, at the current read point.
    pub fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        if let Some(observer) = self.observer() {
            observer.pre_scan_open(scan)?;
        }
        if !self.meta {
            return self.scan_stored(scan);
        }
        scan.validate()?;
        let stored = Scan {
            start_row: bound(&scan.start_row)?,
            stop_row: bound(&scan.stop_row)?,
            ..scan.clone()
        };
        self.scan_stored(&stored)
    }

    /// Adds to counters of one row and returns their new cells, atomically (HBase's
    /// `increment`): each counter is read (its newest version within the time range; missing
    /// counts as 0) and written at `max(its timestamp + 1, now)`, all under the row's
    /// exclusive lock, so concurrent increments lose nothing. A counter that is not 8 bytes
    /// fails the whole Increment. Overflow wraps, as Java's long arithmetic does.
    pub fn increment(&self, inc: &Increment) -> Result<RowResult> {
        let _timer = self.time(Op::Increment);
        if let Some(observer) = self.observer() {
            return self.increment_observed(observer.as_ref(), inc);
        }
        if !self.meta {
            return self.increment_stored(inc);
        }
        validate_row(&inc.row)?;
        self.increment_stored(&increment_key(inc)?).map(shown)
    }

    /// Appends to cells of one row and returns their new cells, atomically (HBase's `append`);
    /// timestamps as for increments.
    pub fn append(&self, append: &Append) -> Result<RowResult> {
        let _timer = self.time(Op::Append);
        if let Some(observer) = self.observer() {
            return self.append_observed(observer.as_ref(), append);
        }
        if !self.meta {
            return self.append_stored(append);
        }
        validate_row(&append.row)?;
        self.append_stored(&append_key(append)?).map(shown)
    }

    /// Applies puts, deletes, increments and appends of one row atomically (HBase's
    /// `mutateRow`): one sequence id, all visible together. Every read (deletes of "the newest
    /// version", increments, appends) sees the row as it was before. Returns one result per
    /// mutation, in order: an increment's or append's new cells, empty for a put or delete.
    pub fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        if let Some(observer) = self.observer() {
            return self.mutate_row_observed(observer.as_ref(), mutations);
        }
        if !self.meta {
            return self.mutate_row_stored(mutations);
        }
        validate_row(&mutations.row)?;
        let results = self.mutate_row_stored(&row_mutations_key(mutations)?)?;
        Ok(results.into_iter().map(shown).collect())
    }

    /// Applies `cam.action` if `cam.condition` holds on the row's current data, atomically
    /// (HBase's `checkAndMutate`). A Put's cells without a timestamp are written at
    /// `max(now, the checked cell's timestamp)`, as HBase does.
    pub fn check_and_mutate(&self, cam: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        let _timer = self.time(Op::CheckAndMutate);
        if let Some(observer) = self.observer() {
            return self.check_and_mutate_observed(observer.as_ref(), cam);
        }
        if !self.meta {
            return self.check_and_mutate_stored(cam);
        }
        validate_row(&cam.row)?;
        let action = match &cam.action {
            CheckAction::Put(p) => CheckAction::Put(put_key(p)?),
            CheckAction::Delete(d) => CheckAction::Delete(delete_key(d)?),
            CheckAction::Increment(i) => CheckAction::Increment(increment_key(i)?),
            CheckAction::Append(a) => CheckAction::Append(append_key(a)?),
            CheckAction::RowMutations(m) => CheckAction::RowMutations(row_mutations_key(m)?),
        };
        let stored = CheckAndMutate {
            row: key(&cam.row)?,
            check: cam.check.clone(),
            action,
        };
        let mut out = self.check_and_mutate_stored(&stored)?;
        out.result = out.result.map(shown);
        Ok(out)
    }
}

/// Rows as stored in a scanner's results, decoded when the scanner reads meta.
pub(crate) fn shown_if(meta: bool, r: RowResult) -> RowResult {
    if meta { shown(r) } else { r }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_scan_bound_stays_unbounded() {
        assert_eq!(bound(&Bytes::new()).unwrap(), Bytes::new());
        assert_eq!(
            bound(&Bytes::from_static(b"t,")).unwrap(),
            Bytes::from_static(b"t\x00\x01\x00\x01")
        );
    }

    #[test]
    fn a_row_too_long_to_store_is_refused() {
        let long = Bytes::from(vec![0u8; 40_000]);
        assert!(matches!(key(&long), Err(Error::RowTooLong { .. })));
    }
}
