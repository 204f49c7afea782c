//! The server's memstore budget (HBase's `hbase.regionserver.global.memstore.size`): every
//! region counts the bytes its memstores hold here. Above the low mark (95% of the limit) the
//! flushers are asked to flush the largest regions; at the limit, and when one region holds
//! more than its flush size times the block multiplier, writers wait for flushes, for a
//! bounded time, then fail with RegionTooBusy.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_common::{Error, Result};

/// HBase's `hbase.hregion.memstore.block.multiplier`.
pub const BLOCK_MULTIPLIER: usize = 4;

/// Shared by every region of a server.
#[derive(Debug)]
pub struct MemstoreBudget {
    limit: usize,
    low: usize,
    block_wait: Duration,
    used: AtomicUsize,
    /// Writers waiting for room, woken when a flush releases bytes.
    room_lock: Mutex<()>,
    room: Condvar,
    /// Flushers waiting for work; the flag says work was asked for since they last looked.
    work_lock: Mutex<bool>,
    work: Condvar,
    /// Set when the server shuts down: flushers stop waiting.
    stopping: std::sync::atomic::AtomicBool,
}

impl MemstoreBudget {
    /// A budget of `limit` bytes; writers wait at most `block_wait` for room.
    pub fn new(limit: usize, block_wait: Duration) -> Self {
        MemstoreBudget {
            limit,
            low: limit / 20 * 19,
            block_wait,
            used: AtomicUsize::new(0),
            room_lock: Mutex::new(()),
            room: Condvar::new(),
            work_lock: Mutex::new(false),
            work: Condvar::new(),
            stopping: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Bytes held in memstores now.
    pub fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Whether the flushers should flush the largest regions to bring the total down.
    pub fn above_low_mark(&self) -> bool {
        self.used() > self.low
    }

    pub(crate) fn add(&self, bytes: usize) {
        let used = self.used.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if used > self.low {
            self.request_flush();
        }
    }

    pub(crate) fn release(&self, bytes: usize) {
        // Never below zero, even if a region released more than it counted.
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
        let _guard = self
            .room_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.room.notify_all();
    }

    /// Wakes a flusher.
    pub fn request_flush(&self) {
        let mut asked = self
            .work_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *asked = true;
        self.work.notify_one();
    }

    /// For flushers: waits until a flush is asked for, the server stops, or `timeout`
    /// passes. Returns false once the server stops.
    pub fn wait_for_work(&self, timeout: Duration) -> bool {
        let asked = self
            .work_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (mut asked, _) = self
            .work
            .wait_timeout_while(asked, timeout, |asked| !*asked && !self.is_stopping())
            .unwrap_or_else(PoisonError::into_inner);
        *asked = false;
        !self.is_stopping()
    }

    fn is_stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// Wakes every flusher for good: the server is shutting down.
    pub fn stop(&self) {
        let _guard = self
            .work_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        self.stopping.store(true, Ordering::Release);
        self.work.notify_all();
    }

    /// Waits until the server is under its limit and `region_full` is false, asking for
    /// flushes meanwhile; after the blocking wait, fails with RegionTooBusy.
    pub(crate) fn wait_for_room(&self, region: &str, region_full: impl Fn() -> bool) -> Result<()> {
        let over = || self.used() >= self.limit || region_full();
        if !over() {
            return Ok(());
        }
        let deadline = Instant::now() + self.block_wait;
        let mut guard = self
            .room_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while over() {
            self.request_flush();
            let now = Instant::now();
            if now >= deadline {
                let reason = if self.used() >= self.limit {
                    format!(
                        "the server's memstores hold {} bytes, at their limit of {}; \
                         flushes did not catch up within {:?}",
                        self.used(),
                        self.limit,
                        self.block_wait
                    )
                } else {
                    format!(
                        "its memstores are over {BLOCK_MULTIPLIER} times the flush size; \
                         flushes did not catch up within {:?}",
                        self.block_wait
                    )
                };
                return Err(Error::RegionTooBusy {
                    region: region.to_owned(),
                    reason,
                });
            }
            let wait = (deadline - now).min(Duration::from_millis(10));
            guard = self
                .room
                .wait_timeout(guard, wait)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        Ok(())
    }
}
