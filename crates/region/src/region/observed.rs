//! A coprocessor's hooks as a layer ([`Observed`]) around the region's operations
//! (`crate::RegionObserver`). Only a user table's region has an observer, so rows here are
//! never in meta order.

use basalt_common::Durability;
use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::error::{Error, Result};
use basalt_common::ops::Scan;
use basalt_common::ops::{
    Append, CheckAction, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put,
    RowMutations, RowOp, RowResult,
};
use std::sync::{Arc, PoisonError};

use bytes::Bytes;

use super::ops::RegionOps;
use super::{Region, RowMutation};
use crate::{RegionObserver, RegionScanner};

/// Refuses a hook's change of the row an operation writes: the row chose the region.
fn same_row(before: &Bytes, after: &Bytes) -> Result<()> {
    if before == after {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "A coprocessor changed the row of an operation from {} to {}: a row cannot change \
         (it chose the region)",
        BinaryDisplay::new(before),
        BinaryDisplay::new(after)
    )))
}

fn observe_put(observer: &dyn RegionObserver, put: &Put) -> Result<Put> {
    let mut changed = put.clone();
    observer.pre_put(&mut changed)?;
    same_row(&put.row, &changed.row)?;
    Ok(changed)
}

fn observe_delete(observer: &dyn RegionObserver, delete: &Delete) -> Result<Delete> {
    let mut changed = delete.clone();
    observer.pre_delete(&mut changed)?;
    same_row(&delete.row, &changed.row)?;
    Ok(changed)
}

fn observe_increment(observer: &dyn RegionObserver, inc: &Increment) -> Result<Increment> {
    let mut changed = inc.clone();
    observer.pre_increment(&mut changed)?;
    same_row(&inc.row, &changed.row)?;
    Ok(changed)
}

fn observe_append(observer: &dyn RegionObserver, append: &Append) -> Result<Append> {
    let mut changed = append.clone();
    observer.pre_append(&mut changed)?;
    same_row(&append.row, &changed.row)?;
    Ok(changed)
}

/// The pre hooks of each mutation of a row mutation.
fn observe_row_mutations(observer: &dyn RegionObserver, m: &RowMutations) -> Result<RowMutations> {
    let mutations = m
        .mutations
        .iter()
        .map(|op| {
            Ok(match op {
                RowOp::Put(p) => RowOp::Put(observe_put(observer, p)?),
                RowOp::Delete(d) => RowOp::Delete(observe_delete(observer, d)?),
                RowOp::Increment(i) => RowOp::Increment(observe_increment(observer, i)?),
                RowOp::Append(a) => RowOp::Append(observe_append(observer, a)?),
            })
        })
        .collect::<Result<_>>()?;
    Ok(RowMutations {
        row: m.row.clone(),
        mutations,
    })
}

/// The post hooks of each mutation of a row mutation, with each one's result (an
/// increment's or append's new cells; where the caller has none, an empty row).
fn after_row_mutations(
    observer: &dyn RegionObserver,
    m: &RowMutations,
    results: &mut [RowResult],
) -> Result<()> {
    let mut none = RowResult::default();
    for (i, op) in m.mutations.iter().enumerate() {
        let result = match results.get_mut(i) {
            Some(r) => r,
            None => &mut none,
        };
        match op {
            RowOp::Put(p) => observer.post_put(p)?,
            RowOp::Delete(d) => observer.post_delete(d)?,
            RowOp::Increment(inc) => observer.post_increment(inc, result)?,
            RowOp::Append(a) => observer.post_append(a, result)?,
        }
    }
    Ok(())
}

/// The write hooks of a check-and-mutate's action, once its check passed.
pub(super) fn observe_action(
    observer: &dyn RegionObserver,
    action: &CheckAction,
) -> Result<CheckAction> {
    Ok(match action {
        CheckAction::Put(p) => CheckAction::Put(observe_put(observer, p)?),
        CheckAction::Delete(d) => CheckAction::Delete(observe_delete(observer, d)?),
        CheckAction::RowMutations(m) => {
            CheckAction::RowMutations(observe_row_mutations(observer, m)?)
        }
        CheckAction::Increment(i) => CheckAction::Increment(observe_increment(observer, i)?),
        CheckAction::Append(a) => CheckAction::Append(observe_append(observer, a)?),
    })
}

/// The post hooks of a check-and-mutate's action, with its result (an increment's or append's
/// new cells).
pub(super) fn after_action(
    observer: &dyn RegionObserver,
    action: &CheckAction,
    result: Option<&mut RowResult>,
) -> Result<()> {
    let mut none = RowResult::default();
    let result = result.unwrap_or(&mut none);
    match action {
        CheckAction::Put(p) => observer.post_put(p),
        CheckAction::Delete(d) => observer.post_delete(d),
        CheckAction::RowMutations(m) => after_row_mutations(observer, m, &mut []),
        CheckAction::Increment(i) => observer.post_increment(i, result),
        CheckAction::Append(a) => observer.post_append(a, result),
    }
}

impl Region {
    /// Runs a write and its post hook as one, as far as flushes go (`Region::observing`);
    /// the flush a full memstore asks for comes after.
    fn observed<T>(&self, write: impl FnOnce() -> Result<T>) -> Result<T> {
        let outcome = {
            let _observing = self
                .observing
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            write()
        };
        self.flush_if_full();
        outcome
    }
}

/// The operations of `O` with `observer`'s hooks around them.
pub(super) struct Observed<'a, O> {
    region: &'a Region,
    observer: &'a Arc<dyn RegionObserver>,
    inner: O,
}

impl<'a, O: RegionOps> Observed<'a, O> {
    pub(super) fn new(region: &'a Region, observer: &'a Arc<dyn RegionObserver>, inner: O) -> Self {
        Observed {
            region,
            observer,
            inner,
        }
    }
}

impl<O: RegionOps> RegionOps for Observed<'_, O> {
    fn put(&self, put: &Put) -> Result<()> {
        let put = observe_put(self.observer.as_ref(), put)?;
        self.region.observed(|| {
            self.inner.put(&put)?;
            self.observer.post_put(&put)
        })
    }

    /// A multi-row mutation (meta's) runs no hooks.
    fn mutate_rows(&self, mutations: &[RowMutation], durability: Durability) -> Result<()> {
        self.inner.mutate_rows(mutations, durability)
    }

    fn delete(&self, delete: &Delete) -> Result<()> {
        let delete = observe_delete(self.observer.as_ref(), delete)?;
        self.region.observed(|| {
            self.inner.delete(&delete)?;
            self.observer.post_delete(&delete)
        })
    }

    fn get(&self, get: &Get) -> Result<RowResult> {
        if let Some(answer) = self.observer.pre_get(get)? {
            return Ok(answer);
        }
        let mut row = self.inner.get(get)?;
        self.observer.post_get(get, &mut row)?;
        Ok(row)
    }

    fn scan(&self, scan: &Scan) -> Result<RegionScanner> {
        self.observer.pre_scan_open(scan)?;
        let scanner = self.inner.scan(scan)?;
        Ok(if self.observer.observes_scans() {
            scanner.observed_by(Arc::clone(self.observer))
        } else {
            scanner
        })
    }

    fn increment(&self, inc: &Increment) -> Result<RowResult> {
        let inc = observe_increment(self.observer.as_ref(), inc)?;
        self.region.observed(|| {
            let mut result = self.inner.increment(&inc)?;
            self.observer.post_increment(&inc, &mut result)?;
            Ok(result)
        })
    }

    fn append(&self, append: &Append) -> Result<RowResult> {
        let append = observe_append(self.observer.as_ref(), append)?;
        self.region.observed(|| {
            let mut result = self.inner.append(&append)?;
            self.observer.post_append(&append, &mut result)?;
            Ok(result)
        })
    }

    fn mutate_row(&self, mutations: &RowMutations) -> Result<Vec<RowResult>> {
        let changed = observe_row_mutations(self.observer.as_ref(), mutations)?;
        self.region.observed(|| {
            let mut results = self.inner.mutate_row(&changed)?;
            after_row_mutations(self.observer.as_ref(), &changed, &mut results)?;
            Ok(results)
        })
    }

    /// The check-and-mutate's own hooks around it, and its action's write hooks (passed
    /// down) once the check passed.
    fn check_and_mutate(
        &self,
        cam: &CheckAndMutate,
        _hooks: Option<&dyn RegionObserver>,
    ) -> Result<CheckAndMutateResult> {
        let mut changed = cam.clone();
        self.observer.pre_check_and_mutate(&mut changed)?;
        same_row(&cam.row, &changed.row)?;
        self.region.observed(|| {
            let mut out = self
                .inner
                .check_and_mutate(&changed, Some(self.observer.as_ref()))?;
            self.observer.post_check_and_mutate(&changed, &mut out)?;
            Ok(out)
        })
    }
}
