//! The operations clients send and the results they get back: [`Put`], [`Delete`], [`Get`],
//! [`Scan`], [`RowResult`]. They live here, below both the engine and the client API, so that
//! the region executes exactly what the client built (as HBase's server executes its client
//! types) and every gateway translates onto the same structs.

mod mutation;
mod query;
mod result;
mod rmw;

pub use mutation::{Delete, DeleteEntry, Put, PutCell};
pub use query::{FamilyMap, Get, Scan, TimeRange};
pub use result::RowResult;
pub use rmw::{
    Append, Check, CheckAction, CheckAndMutate, CheckAndMutateResult, ColumnUpdates,
    CompareOperator, Condition, Increment, Mutation, RowMutations, RowOp,
};
