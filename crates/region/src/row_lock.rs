//! Row locks, striped: a row hashes to one of a fixed set of reader-writer locks. Plain puts
//! and deletes share a row's lock (their cells never interfere); operations that read before
//! they write (a delete of "the newest version", and later increments and check-and-mutate)
//! take it exclusively. Rows that share a stripe only wait for each other, never deadlock: an
//! operation holds one row's lock at a time.

use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

const STRIPES: usize = 1024;

/// A region's row locks.
#[derive(Debug)]
pub struct RowLocks {
    stripes: Box<[RwLock<()>]>,
}

impl Default for RowLocks {
    fn default() -> Self {
        RowLocks {
            stripes: (0..STRIPES).map(|_| RwLock::new(())).collect(),
        }
    }
}

impl RowLocks {
    fn stripe(&self, row: &[u8]) -> &RwLock<()> {
        // FNV-1a: rows are short and this runs on every write.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in row {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        &self.stripes[(h as usize) % STRIPES]
    }

    /// Shared lock on `row`.
    pub fn shared(&self, row: &[u8]) -> RwLockReadGuard<'_, ()> {
        // The lock guards no data, so poisoning carries no meaning here.
        self.stripe(row)
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Exclusive lock on `row`.
    pub fn exclusive(&self, row: &[u8]) -> RwLockWriteGuard<'_, ()> {
        self.stripe(row)
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
