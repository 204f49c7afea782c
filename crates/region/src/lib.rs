//! A Basalt region: the rows of a key range of one table, with one store per column family,
//! each a memstore and store files (flushed, compacted, split by reference files). It owns
//! the engine's semantics: MVCC and row locks for atomic, isolated row mutations, and the
//! read path that applies HBase's version, delete, TTL and time-range rules, with filters and
//! an observer's hooks (coprocessors) where HBase calls them.
//!
//! It does no networking and knows no protocol; the client API and every gateway sit above it.

mod budget;
mod compaction;
mod cursor;
mod file_cursor;
mod flat;
mod flush_writer;
mod key;
mod matcher;
mod memstore;
pub mod meta_keys;
mod mslab;
mod mvcc;
pub mod nvb;
mod observer;
mod reference;
mod region;
mod row_lock;
mod scanner;
mod store;
mod view;

pub use budget::{BLOCK_MULTIPLIER, MemstoreBudget};
pub use compaction::{CompactionConfig, select_minor};
pub use observer::RegionObserver;
pub use reference::{holds_own_files, parents_on_disk};
pub use region::{Region, RegionConfig, RequestCounts, RowMutation, StoreFileEntry, write_clock};
pub use scanner::RegionScanner;

/// The decoder of reference files, for the fuzz targets and the never-panic tests.
#[doc(hidden)]
pub mod fuzzing {
    /// Decodes `bytes` as a reference file; the result is dropped (only panics matter).
    pub fn reference(bytes: &[u8]) {
        let _ = crate::reference::decode(bytes);
    }

    /// A valid reference file for the range `[start, end)`.
    pub fn reference_bytes(start: &[u8], end: &[u8]) -> Vec<u8> {
        crate::reference::encode(&crate::reference::RowRange {
            start: basalt_common::Bytes::copy_from_slice(start),
            end: basalt_common::Bytes::copy_from_slice(end),
        })
    }
}

/// Internals exposed for benchmarks comparing the engine with its bare data structure.
#[doc(hidden)]
pub mod bench_support {
    pub use crate::memstore::MemStore;
}
