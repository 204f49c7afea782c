//! A store: one column family of one region. Today it holds a memstore; store files join it
//! when persistence arrives.

use basalt_common::ColumnFamilyDescriptor;

use crate::memstore::MemStore;

/// One family's cells in one region.
#[derive(Debug)]
pub struct Store {
    family: ColumnFamilyDescriptor,
    memstore: MemStore,
}

impl Store {
    pub fn new(family: ColumnFamilyDescriptor) -> Self {
        Store {
            memstore: MemStore::new(family.name.clone()),
            family,
        }
    }

    pub fn family(&self) -> &ColumnFamilyDescriptor {
        &self.family
    }

    pub fn memstore(&self) -> &MemStore {
        &self.memstore
    }
}
