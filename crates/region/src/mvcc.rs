//! Multi-version concurrency control: every mutation of a region gets the next sequence id,
//! and readers see exactly the mutations whose ids are at or below the read point. The read
//! point only passes an id once every smaller id has completed, so a reader never sees a later
//! write without an earlier one, nor half of one mutation (all its cells share its id).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// How many times `complete` yields, waiting for earlier ids, before it sleeps.
const YIELDS: u32 = 16;

#[derive(Debug)]
struct Pending {
    /// The id the next `begin` hands out.
    next: u64,
    /// Ids handed out and not yet passed by the read point, oldest first, with "completed".
    in_flight: VecDeque<(u64, bool)>,
    /// Writers blocked in `complete` until the read point reaches them. Waking costs a system
    /// call even with nobody waiting, so it is skipped when this is zero.
    waiters: usize,
}

/// A region's sequence ids and read point (HBase's `MultiVersionConcurrencyControl`).
#[derive(Debug)]
pub struct Mvcc {
    pending: Mutex<Pending>,
    read_point: AtomicU64,
    advanced: Condvar,
}

impl Mvcc {
    /// Starts with every id up to `last_seq_id` visible; the next write gets `last_seq_id + 1`.
    pub fn new(last_seq_id: u64) -> Self {
        Mvcc {
            pending: Mutex::new(Pending {
                next: last_seq_id + 1,
                in_flight: VecDeque::new(),
                waiters: 0,
            }),
            read_point: AtomicU64::new(last_seq_id),
            advanced: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Pending> {
        // The state is a counter and a queue updated in single steps: a panic elsewhere while
        // holding the lock cannot leave it half-changed, so a poisoned lock is still usable.
        self.pending.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every mutation with id <= this is complete and visible.
    #[inline]
    pub fn read_point(&self) -> u64 {
        self.read_point.load(Ordering::Acquire)
    }

    /// The highest sequence id handed out so far.
    pub fn last_assigned(&self) -> u64 {
        self.lock().next - 1
    }

    /// Makes every id up to `seq_id` assigned and visible, for edits replayed from the WAL
    /// while the region opens (no mutation is in flight then).
    pub fn advance_to(&self, seq_id: u64) {
        let mut p = self.lock();
        if p.next <= seq_id {
            p.next = seq_id + 1;
        }
        if p.in_flight.is_empty() {
            self.read_point.fetch_max(seq_id, Ordering::AcqRel);
        }
    }

    /// Reserves the next sequence id for a mutation about to be applied.
    pub fn begin(&self) -> u64 {
        let mut p = self.lock();
        let id = p.next;
        p.next += 1;
        p.in_flight.push_back((id, false));
        id
    }

    /// Marks `id` applied, then waits until the read point has reached it, so that the writer's
    /// own later reads see it (HBase's `completeAndWait`).
    pub fn complete(&self, id: u64) {
        let mut p = self.lock();
        let Some(&(front, _)) = p.in_flight.front() else {
            return;
        };
        if let Some(slot) = usize::try_from(id.wrapping_sub(front))
            .ok()
            .and_then(|i| p.in_flight.get_mut(i))
        {
            slot.1 = true;
        }
        let mut advanced_to = None;
        while let Some(&(front_id, true)) = p.in_flight.front() {
            p.in_flight.pop_front();
            advanced_to = Some(front_id);
        }
        if let Some(rp) = advanced_to {
            self.read_point.store(rp, Ordering::Release);
            if p.waiters > 0 {
                self.advanced.notify_all();
            }
        }
        if self.read_point() < id {
            // The writers of the ids before this one are usually applying their cells right
            // now (a WAL group wakes them together): yield to them a few times before
            // sleeping, which costs a wake-up per waiter on every advance.
            drop(p);
            for _ in 0..YIELDS {
                if self.read_point() >= id {
                    return;
                }
                std::thread::yield_now();
            }
            p = self.lock();
        }
        while self.read_point() < id {
            p.waiters += 1;
            p = self
                .advanced
                .wait(p)
                .unwrap_or_else(PoisonError::into_inner);
            p.waiters -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn read_point_waits_for_gaps() {
        let m = Arc::new(Mvcc::new(0));
        let a = m.begin();
        let b = m.begin();
        assert_eq!((a, b), (1, 2));
        let m2 = Arc::clone(&m);
        let waiter = std::thread::spawn(move || {
            m2.complete(b);
            m2.read_point()
        });
        // b cannot become visible before a.
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(m.read_point(), 0);
        m.complete(a);
        assert_eq!(waiter.join().unwrap(), 2);
        assert_eq!(m.read_point(), 2);
    }
}
