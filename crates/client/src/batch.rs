//! The operations of a batch and what each returned: the same over every kind of
//! connection.

use basalt_common::ops::{
    Append, CheckAndMutate, CheckAndMutateResult, Increment, Mutation, RowMutations,
};
use basalt_common::{Bytes, Delete, Get, Put, RowResult};

#[cfg(doc)]
use crate::{Client, DataClient, ServerAdmin};

/// One operation of a batch ([`Client::batch`]; an embedded table's `batch`).
#[derive(Debug, Clone)]
pub enum BatchOp {
    /// A read of one row.
    Get(Get),
    /// A write of one row.
    Put(Put),
    /// A delete in one row.
    Delete(Delete),
    /// Counters of one row, added to atomically.
    Increment(Increment),
    /// Values of one row, appended to atomically.
    Append(Append),
    /// Mutations of one row applied together.
    RowMutations(RowMutations),
    /// A mutation applied only if its condition holds.
    CheckAndMutate(CheckAndMutate),
}

impl BatchOp {
    /// The row the operation reads or writes.
    pub fn row(&self) -> &Bytes {
        match self {
            BatchOp::Get(g) => &g.row,
            BatchOp::Put(p) => &p.row,
            BatchOp::Delete(d) => &d.row,
            BatchOp::Increment(i) => &i.row,
            BatchOp::Append(a) => &a.row,
            BatchOp::RowMutations(m) => &m.row,
            BatchOp::CheckAndMutate(c) => &c.row,
        }
    }
}

impl From<Mutation> for BatchOp {
    fn from(m: Mutation) -> Self {
        match m {
            Mutation::Put(p) => BatchOp::Put(p),
            Mutation::Delete(d) => BatchOp::Delete(d),
        }
    }
}

/// What one operation of a batch returned: a row (Get, Increment, Append), nothing (Put,
/// Delete, RowMutations), or a check-and-mutate's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchOutcome {
    /// A get's row, or an increment's or append's new cells.
    Row(RowResult),
    /// A RowMutations' results, one per mutation.
    Rows(Vec<RowResult>),
    /// A put or a delete, applied.
    Done,
    /// A check-and-mutate's outcome.
    CheckAndMutate(CheckAndMutateResult),
}
