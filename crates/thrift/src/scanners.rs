//! Open scanners by id, each with a lease: a scanner not used for the lease period is closed
//! and its id becomes invalid, as HBase's Thrift server forgets idle scanners.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_client::{Result, ResultScanner, RowResult};

/// One open scanner.
#[derive(Debug)]
struct Entry {
    scanner: ResultScanner,
    sorted: bool,
    last_used: Instant,
}

/// The scanners of one server, shared by its connections.
#[derive(Debug)]
pub struct Scanners {
    open: Mutex<HashMap<i32, Arc<Mutex<Entry>>>>,
    next_id: AtomicI32,
    lease: Duration,
}

impl Scanners {
    pub fn new(lease: Duration) -> Self {
        Scanners {
            open: Mutex::new(HashMap::new()),
            next_id: AtomicI32::new(1),
            lease,
        }
    }

    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<i32, Arc<Mutex<Entry>>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a scanner; returns its id.
    pub fn add(&self, scanner: ResultScanner, sorted: bool) -> i32 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let entry = Entry {
            scanner,
            sorted,
            last_used: Instant::now(),
        };
        self.map().insert(id, Arc::new(Mutex::new(entry)));
        id
    }

    /// Up to `n` results of scanner `id`, and whether it sorts columns; `None` if the id is
    /// not an open scanner.
    pub fn next(&self, id: i32, n: usize) -> Option<Result<(Vec<RowResult>, bool)>> {
        let entry = self.map().get(&id).cloned()?;
        let mut entry = entry.lock().unwrap_or_else(PoisonError::into_inner);
        entry.last_used = Instant::now();
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
        self.map().remove(&id).is_some()
    }

    /// Closes every scanner idle for longer than the lease; returns how many.
    pub fn expire(&self) -> usize {
        let now = Instant::now();
        let mut map = self.map();
        let before = map.len();
        map.retain(|_, e| {
            // A scanner in use right now is not idle.
            e.try_lock()
                .map(|e| now.duration_since(e.last_used) <= self.lease)
                .unwrap_or(true)
        });
        before - map.len()
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Closes every scanner (at shutdown).
    pub fn clear(&self) {
        self.map().clear();
    }
}
