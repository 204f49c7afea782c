//! Objects a gateway keeps open between calls (scanners), by id, each with a lease: one not
//! used for the lease period is dropped and its id becomes unknown, as HBase's servers forget
//! idle scanners. Each use renews the lease.

use std::collections::HashMap;
use std::hash::Hash;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// An open object and when it was last used.
#[derive(Debug)]
pub struct Leased<T> {
    value: T,
    last_used: Instant,
}

impl<T> Deref for Leased<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Leased<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

/// The open objects of one server, shared by its connections. Each entry has its own lock,
/// so a long call on one does not hold up the others.
#[derive(Debug)]
pub struct Leases<K, T> {
    open: Mutex<HashMap<K, Arc<Mutex<Leased<T>>>>>,
    lease: Duration,
    /// Where the number open is published (a server's open-scanner figure), if anywhere.
    gauge: Option<Arc<AtomicUsize>>,
}

impl<K: Hash + Eq, T> Leases<K, T> {
    pub fn new(lease: Duration) -> Self {
        Leases {
            open: Mutex::new(HashMap::new()),
            lease,
            gauge: None,
        }
    }

    /// Leases whose number open is kept in `gauge` as it changes.
    pub fn counted(lease: Duration, gauge: Arc<AtomicUsize>) -> Self {
        Leases {
            gauge: Some(gauge),
            ..Leases::new(lease)
        }
    }

    fn publish(&self, open: usize) {
        if let Some(g) = &self.gauge {
            g.store(open, Ordering::Relaxed);
        }
    }

    /// The lease period.
    pub fn lease(&self) -> Duration {
        self.lease
    }

    fn map(&self) -> MutexGuard<'_, HashMap<K, Arc<Mutex<Leased<T>>>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Opens `value` under `id` (the caller's protocol decides what ids look like).
    pub fn insert(&self, id: K, value: T) {
        let entry = Leased {
            value,
            last_used: Instant::now(),
        };
        let mut map = self.map();
        map.insert(id, Arc::new(Mutex::new(entry)));
        self.publish(map.len());
    }

    /// The object open under `id`, its lease renewed; `None` if there is none (never
    /// opened, closed, or expired).
    pub fn get(&self, id: &K) -> Option<Arc<Mutex<Leased<T>>>> {
        let entry = self.map().get(id).cloned()?;
        lock(&entry).last_used = Instant::now();
        Some(entry)
    }

    /// Closes `id`; false if it was not open.
    pub fn remove(&self, id: &K) -> bool {
        let mut map = self.map();
        let removed = map.remove(id).is_some();
        self.publish(map.len());
        removed
    }

    /// Drops every object idle for longer than the lease; returns how many.
    pub fn expire(&self) -> usize {
        let now = Instant::now();
        let mut map = self.map();
        let before = map.len();
        map.retain(|_, e| {
            // One in use right now is not idle.
            e.try_lock()
                .map(|e| now.duration_since(e.last_used) <= self.lease)
                .unwrap_or(true)
        });
        self.publish(map.len());
        before - map.len()
    }

    pub fn len(&self) -> usize {
        self.map().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every object (at shutdown).
    pub fn clear(&self) {
        self.map().clear();
        self.publish(0);
    }
}

/// Locks an entry; a call that panicked while holding it leaves it usable.
pub fn lock<T>(entry: &Mutex<Leased<T>>) -> MutexGuard<'_, Leased<T>> {
    entry.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_entries_expire_and_entries_in_use_stay() {
        let long: Leases<u32, &str> = Leases::new(Duration::from_secs(3600));
        long.insert(1, "kept");
        assert_eq!(long.expire(), 0, "within its lease");
        assert_eq!(long.get(&1).map(|e| lock(&e).value), Some("kept"));

        let none: Leases<u32, &str> = Leases::new(Duration::ZERO);
        none.insert(1, "idle");
        none.insert(2, "in use");
        std::thread::sleep(Duration::from_millis(2));
        let in_use = none.get(&2).expect("open");
        let guard = lock(&in_use);
        assert_eq!(none.expire(), 1);
        drop(guard);
        assert!(none.get(&1).is_none());
        assert!(none.remove(&2));
        assert!(!none.remove(&2));
        assert!(none.is_empty());
    }
}
