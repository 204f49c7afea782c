//! The region's operations with an observer attached (`crate::RegionObserver`): its hooks
//! around the stored operations. Only a user table's region has one, so rows here are never
//! in meta order.

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::error::{Error, Result};
use basalt_common::ops::{
    Append, CheckAction, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put,
    RowMutations, RowOp, RowResult,
};
use std::sync::PoisonError;

use bytes::Bytes;

use super::Region;
use crate::RegionObserver;

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

    pub(super) fn put_observed(&self, observer: &dyn RegionObserver, put: &Put) -> Result<()> {
        let put = observe_put(observer, put)?;
        self.observed(|| {
            self.put_stored(&put)?;
            observer.post_put(&put)
        })
    }

    pub(super) fn delete_observed(
        &self,
        observer: &dyn RegionObserver,
        delete: &Delete,
    ) -> Result<()> {
        let delete = observe_delete(observer, delete)?;
        self.observed(|| {
            self.delete_stored(&delete)?;
            observer.post_delete(&delete)
        })
    }

    pub(super) fn increment_observed(
        &self,
        observer: &dyn RegionObserver,
        inc: &Increment,
    ) -> Result<RowResult> {
        let inc = observe_increment(observer, inc)?;
        self.observed(|| {
            let mut result = self.increment_stored(&inc)?;
            observer.post_increment(&inc, &mut result)?;
            Ok(result)
        })
    }

    pub(super) fn append_observed(
        &self,
        observer: &dyn RegionObserver,
        append: &Append,
    ) -> Result<RowResult> {
        let append = observe_append(observer, append)?;
        self.observed(|| {
            let mut result = self.append_stored(&append)?;
            observer.post_append(&append, &mut result)?;
            Ok(result)
        })
    }

    pub(super) fn get_observed(
        &self,
        observer: &dyn RegionObserver,
        get: &Get,
    ) -> Result<RowResult> {
        if let Some(answer) = observer.pre_get(get)? {
            return Ok(answer);
        }
        let mut row = self.get_stored(get)?;
        observer.post_get(get, &mut row)?;
        Ok(row)
    }

    pub(super) fn mutate_row_observed(
        &self,
        observer: &dyn RegionObserver,
        mutations: &RowMutations,
    ) -> Result<Vec<RowResult>> {
        let changed = observe_row_mutations(observer, mutations)?;
        self.observed(|| {
            let mut results = self.mutate_row_stored(&changed)?;
            after_row_mutations(observer, &changed, &mut results)?;
            Ok(results)
        })
    }

    pub(super) fn check_and_mutate_observed(
        &self,
        observer: &dyn RegionObserver,
        cam: &CheckAndMutate,
    ) -> Result<CheckAndMutateResult> {
        let mut changed = cam.clone();
        observer.pre_check_and_mutate(&mut changed)?;
        same_row(&cam.row, &changed.row)?;
        self.observed(|| {
            let mut out = self.check_and_mutate_stored(&changed)?;
            observer.post_check_and_mutate(&changed, &mut out)?;
            Ok(out)
        })
    }
}
