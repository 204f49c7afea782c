//! What a region's stores read: their files' sizes and names, and the references a split or
//! merge left (the split policy, the cleanup of parents, and snapshots look at these).

use std::collections::BTreeSet;

use basalt_common::Bytes;

use super::Region;
use crate::store::Store;

/// One file a store reads, as [`Region::store_files`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreFileEntry {
    pub path: std::path::PathBuf,
    pub size: u64,
    /// A reference to a parent region's file (after a split or merge), not a file of its own.
    pub reference: bool,
}

impl Region {
    /// Bytes of the largest store's files: what the split policy compares with its size.
    pub fn largest_store_size(&self) -> u64 {
        self.stores.iter().map(Store::size).max().unwrap_or(0)
    }

    /// Bytes of all store files.
    pub fn store_files_size(&self) -> u64 {
        self.stores.iter().map(Store::size).sum()
    }

    /// Whether some store still reads a parent region's files through references (such a
    /// region neither splits nor merges until compaction has rewritten them).
    pub fn has_references(&self) -> bool {
        self.stores.iter().any(Store::has_references)
    }

    /// The files each store reads now, by family. What a snapshot links.
    pub fn store_files(&self) -> Vec<(Bytes, Vec<StoreFileEntry>)> {
        self.stores
            .iter()
            .map(|s| {
                let files = s
                    .view()
                    .files
                    .iter()
                    .map(|f| StoreFileEntry {
                        path: f.path.clone(),
                        size: f.file_size(),
                        reference: f.reference.is_some(),
                    })
                    .collect();
                (s.family().name.clone(), files)
            })
            .collect()
    }

    /// The encoded names of the parent regions this region's references point into.
    pub fn referenced_parents(&self) -> BTreeSet<String> {
        self.stores
            .iter()
            .flat_map(Store::referenced_parents)
            .collect()
    }
}
