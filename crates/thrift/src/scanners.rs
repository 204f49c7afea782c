//! Open scanners by id, each with a lease: a scanner not used for the lease period is closed
//! and its id becomes invalid, as HBase's Thrift server forgets idle scanners.

use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use basalt_client::{Result, RowResult, Scanner};
use basalt_net::{Leases, lock_leased};

/// One open scanner.
#[derive(Debug)]
struct Entry {
    scanner: Scanner,
    sorted: bool,
}

/// The scanners of one server, shared by its connections.
#[derive(Debug)]
pub struct Scanners {
    open: Leases<i32, Entry>,
    next_id: AtomicI32,
}

impl Scanners {
    pub fn new(lease: Duration) -> Self {
        Scanners {
            open: Leases::new(lease),
            next_id: AtomicI32::new(1),
        }
    }

    /// Registers a scanner; returns its id.
    pub fn add(&self, scanner: Scanner, sorted: bool) -> i32 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.open.insert(id, Entry { scanner, sorted });
        id
    }

    /// Up to `n` results of scanner `id`, and whether it sorts columns; `None` if the id is
    /// not an open scanner.
    pub fn next(&self, id: i32, n: usize) -> Option<Result<(Vec<RowResult>, bool)>> {
        let entry = self.open.get(&id)?;
        let mut entry = lock_leased(&entry);
        let mut rows = Vec::with_capacity(n.min(1024));
        while rows.len() < n {
            match entry.scanner.next() {
                Some(Ok(row)) => rows.push(row),
                Some(Err(e)) => return Some(Err(e)),
                None => break,
            }
        }
        Some(Ok((rows, entry.sorted)))
    }

    /// Closes scanner `id`; false if it was not open.
    pub fn close(&self, id: i32) -> bool {
        self.open.remove(&id)
    }

    /// Closes every scanner idle for longer than the lease; returns how many.
    pub fn expire(&self) -> usize {
        self.open.expire()
    }

    pub fn len(&self) -> usize {
        self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.open.is_empty()
    }

    /// Closes every scanner (at shutdown).
    pub fn clear(&self) {
        self.open.clear();
    }
}
