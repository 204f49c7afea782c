//! The RPC server's handler threads (HBase's `hbase.regionserver.handler.count`): slow
//! mutations (waiting for `fdatasync` or a row lock) run here when other calls of their
//! connection wait behind them, so that the calls of threads sharing one connection wait
//! together, and their FSYNC_WAL puts join one group commit instead of syncing in turn. The
//! server decides what comes here (`server.rs`); this is the pool.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

/// A call to run on a handler thread.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

#[derive(Default)]
struct Queue {
    jobs: VecDeque<Job>,
    /// Handler threads waiting for a job.
    idle: usize,
    stopped: bool,
}

/// A fixed set of handler threads and their queue.
pub(crate) struct Handlers {
    queue: Mutex<Queue>,
    ready: Condvar,
    /// Jobs queued beyond this are refused ([`Handlers::submit`] hands them back).
    max_queued: usize,
}

impl std::fmt::Debug for Handlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handlers")
            .field("max_queued", &self.max_queued)
            .finish_non_exhaustive()
    }
}

impl Handlers {
    /// A pool whose queue holds at most `max_queued` jobs; its threads are started with
    /// [`Handlers::start`].
    pub(crate) fn new(max_queued: usize) -> Handlers {
        Handlers {
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            max_queued,
        }
    }

    /// Starts `count` threads running queued jobs until [`Handlers::stop`]. Fewer when the
    /// system refuses a thread (then the queue is served by those that started).
    pub(crate) fn start(self: &std::sync::Arc<Self>, count: usize) -> Vec<JoinHandle<()>> {
        (0..count)
            .map_while(|i| {
                let pool = std::sync::Arc::clone(self);
                std::thread::Builder::new()
                    .name(format!("rpc-handler-{i}"))
                    .spawn(move || pool.run())
                    .ok()
            })
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues `job`, or hands it back if the queue is full or stopped (the caller then
    /// runs it itself).
    pub(crate) fn submit(&self, job: Job) -> Result<(), Job> {
        let mut q = self.lock();
        if q.stopped || q.jobs.len() >= self.max_queued {
            return Err(job);
        }
        q.jobs.push_back(job);
        let wake = q.idle > 0;
        drop(q);
        if wake {
            self.ready.notify_one();
        }
        Ok(())
    }

    /// Lets the threads finish the queued jobs and end.
    pub(crate) fn stop(&self) {
        self.lock().stopped = true;
        self.ready.notify_all();
    }

    fn run(&self) {
        let mut q = self.lock();
        loop {
            if let Some(job) = q.jobs.pop_front() {
                drop(q);
                job();
                q = self.lock();
            } else if q.stopped {
                return;
            } else {
                q.idle += 1;
                q = self.ready.wait(q).unwrap_or_else(PoisonError::into_inner);
                q.idle -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn runs_every_job_then_stops() {
        let pool = Arc::new(Handlers::new(100));
        let threads = pool.start(3);
        assert_eq!(threads.len(), 3);
        let done = Arc::new(AtomicUsize::new(0));
        for _ in 0..50 {
            let done = Arc::clone(&done);
            assert!(
                pool.submit(Box::new(move || {
                    done.fetch_add(1, Ordering::SeqCst);
                }))
                .is_ok()
            );
        }
        pool.stop();
        for t in threads {
            t.join().expect("handler thread");
        }
        assert_eq!(done.load(Ordering::SeqCst), 50);
    }

    #[test]
    fn a_full_or_stopped_queue_hands_the_job_back() {
        // No threads: nothing takes jobs off the queue.
        let pool = Handlers::new(1);
        assert!(pool.submit(Box::new(|| {})).is_ok());
        assert!(pool.submit(Box::new(|| {})).is_err());
        let pool = Handlers::new(10);
        pool.stop();
        assert!(pool.submit(Box::new(|| {})).is_err());
    }
}
