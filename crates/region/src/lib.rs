//! A Basalt region: the rows of a key range of one table, with one store per column family,
//! each a memstore (and, later, store files). It owns the engine's semantics: MVCC and row
//! locks for atomic, isolated row mutations, and the read path that applies HBase's version,
//! delete, TTL and time-range rules.
//!
//! It does no networking and knows no protocol; the client API and every gateway sit above it.

mod budget;
mod compaction;
mod cursor;
mod file_cursor;
mod key;
mod matcher;
mod memstore;
mod mslab;
mod mvcc;
mod reference;
mod region;
mod row_lock;
mod scanner;
mod store;

pub use budget::{BLOCK_MULTIPLIER, MemstoreBudget};
pub use compaction::{CompactionConfig, select_minor};
pub use region::{Region, RegionConfig, RowMutation};
pub use scanner::RegionScanner;

/// Internals exposed for benchmarks comparing the engine with its bare data structure.
#[doc(hidden)]
pub mod bench_support {
    pub use crate::memstore::MemStore;
}
