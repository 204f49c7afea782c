//! `hbase:meta`'s key order as a layer ([`MetaOrder`]) around the region's operations: meta's
//! region stores its rows in meta order (`crate::meta_keys`), so an operation's rows are
//! encoded on the way in and its results' rows decoded on the way out. The engine itself only
//! checks rows and builds filters for the order it stores.

use basalt_common::cell::validate_row;
use basalt_common::error::{Error, Result};
use basalt_common::filter::{Filter, FilterSpec};
use basalt_common::ops::{
    Append, CheckAction, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put,
    RowMutations, RowOp, RowResult, Scan,
};
use basalt_common::{Bytes, Durability};

use super::ops::RegionOps;
use super::{Region, RowMutation};
use crate::meta_keys::{self, MAX_KEY_LENGTH, MetaRowsFilter, shown};
use crate::{RegionObserver, RegionScanner};

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
}

/// The operations of `O`, a region storing its rows in meta order, with rows as the world
/// sees them.
pub(super) struct MetaOrder<O>(pub(super) O);

impl<O: RegionOps> RegionOps for MetaOrder<O> {
    fn put(&self, put: &Put) -> Result<()> {
        validate_row(&put.row)?;
        self.0.put(&put_key(put)?)
    }

    fn mutate_rows(&self, mutations: &[RowMutation], durability: Durability) -> Result<()> {
        let stored = mutations
            .iter()
            .map(|m| {
                Ok(match m {
                    RowMutation::Put(p) => RowMutation::Put(put_key(p)?),
                    RowMutation::Delete(d) => RowMutation::Delete(delete_key(d)?),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.0.mutate_rows(&stored, durability)
    }

    fn delete(&self, delete: &Delete) -> Result<()> {
        validate_row(&delete.row)?;
        self.0.delete(&delete_key(delete)?)
    }

    fn get(&self, get: &Get) -> Result<RowResult> {
        validate_row(&get.row)?;
        let stored = Get {
            row: key(&get.row)?,
            ..get.clone()
        };
        let mut out = shown(self.0.get(&stored)?);
        out.row = get.row.clone();
        Ok(out)
    }

    fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        scan.validate()?;
        let stored = Scan {
            start_row: bound(&scan.start_row)?,
            stop_row: bound(&scan.stop_row)?,
            ..scan.clone()
        };
        Ok(self.0.scan(&stored)?.in_meta_order())
    }

    fn increment(&self, inc: &Increment) -> Result<RowResult> {
        validate_row(&inc.row)?;
        self.0.increment(&increment_key(inc)?).map(shown)
    }

    fn append(&self, append: &Append) -> Result<RowResult> {
        validate_row(&append.row)?;
        self.0.append(&append_key(append)?).map(shown)
    }

    fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        validate_row(&mutations.row)?;
        let results = self.0.mutate_row(&row_mutations_key(mutations)?)?;
        Ok(results.into_iter().map(shown).collect())
    }

    fn check_and_mutate(
        &self,
        cam: &CheckAndMutate,
        hooks: Option<&dyn RegionObserver>,
    ) -> Result<CheckAndMutateResult> {
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
        let mut out = self.0.check_and_mutate(&stored, hooks)?;
        out.result = out.result.map(shown);
        Ok(out)
    }
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
