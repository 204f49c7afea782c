//! The region's operations with an observer attached (`crate::RegionObserver`): its hooks
//! around the stored operations. Only a user table's region has one, so rows here are never
//! in meta order.

use basalt_common::bytes_display::BinaryDisplay;
use basalt_common::error::{Error, Result};
use basalt_common::ops::{
    CheckAction, CheckAndMutate, CheckAndMutateResult, Delete, Get, Put, RowMutations, RowOp,
    RowResult,
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

/// The pre hooks of the puts and deletes of a row mutation; increments and appends are
/// passed through (no hook of theirs is offered).
fn observe_row_mutations(observer: &dyn RegionObserver, m: &RowMutations) -> Result<RowMutations> {
    let mutations = m
        .mutations
        .iter()
        .map(|op| {
            Ok(match op {
                RowOp::Put(p) => RowOp::Put(observe_put(observer, p)?),
                RowOp::Delete(d) => RowOp::Delete(observe_delete(observer, d)?),
                other => other.clone(),
            })
        })
        .collect::<Result<_>>()?;
    Ok(RowMutations {
        row: m.row.clone(),
        mutations,
    })
}

fn after_row_mutations(observer: &dyn RegionObserver, m: &RowMutations) -> Result<()> {
    for op in &m.mutations {
        match op {
            RowOp::Put(p) => observer.post_put(p)?,
            RowOp::Delete(d) => observer.post_delete(d)?,
            RowOp::Increment(_) | RowOp::Append(_) => {}
        }
    }
    Ok(())
}

/// The put and delete hooks of a check-and-mutate's action, once its check passed.
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
        other => other.clone(),
    })
}

pub(super) fn after_action(observer: &dyn RegionObserver, action: &CheckAction) -> Result<()> {
    match action {
        CheckAction::Put(p) => observer.post_put(p),
        CheckAction::Delete(d) => observer.post_delete(d),
        CheckAction::RowMutations(m) => after_row_mutations(observer, m),
        CheckAction::Increment(_) | CheckAction::Append(_) => Ok(()),
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
            let results = self.mutate_row_stored(&changed)?;
            after_row_mutations(observer, &changed)?;
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
