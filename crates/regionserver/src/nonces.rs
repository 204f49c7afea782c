//! HBase's operation nonces (`ServerNonceManager`): a client gives each increment, append and
//! check-and-mutate a random `(nonce group, nonce)` and sends the same pair when it retries,
//! so an operation whose answer was lost (the connection broke after the server applied it)
//! is not applied a second time.
//!
//! The server remembers each nonce for a grace period (HBase's
//! `hbase.server.hashNonce.gracePeriod`, 30 minutes). A call whose nonce is already done is
//! not applied again: the caller answers it from the row's current state (an increment or
//! append becomes a Get of its columns, as in HBase) or from the remembered outcome (a
//! check-and-mutate). A call whose nonce is still running waits for it; if that one failed,
//! the retry runs. Nonces live in memory: a restarted server has forgotten them (HBase also
//! recovers them from its WAL; Basalt does not yet).

use std::collections::HashMap;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// HBase's `HConstants.NO_NONCE`: an operation without a nonce.
pub const NO_NONCE: u64 = 0;

/// How long a finished nonce is remembered (HBase's default grace period).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30 * 60);

/// How long a retry waits for the first attempt of its operation to finish.
const WAIT_FOR_FIRST: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    /// Applied; for a check-and-mutate, whether its condition held.
    Done {
        applied: bool,
    },
}

/// What a call with a nonce should do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Run it, then [`Nonces::finish`] it.
    Run,
    /// It already ran: answer without applying it again.
    AlreadyDone { applied: bool },
}

/// The nonces a server has seen.
#[derive(Debug)]
pub struct Nonces {
    seen: Mutex<HashMap<(u64, u64), (State, Instant)>>,
    changed: Condvar,
    grace: Duration,
}

impl Default for Nonces {
    fn default() -> Self {
        Nonces::new(DEFAULT_GRACE)
    }
}

impl Nonces {
    pub fn new(grace: Duration) -> Self {
        Nonces {
            seen: Mutex::new(HashMap::new()),
            changed: Condvar::new(),
            grace,
        }
    }

    /// Starts the operation with this nonce: run it, or it already ran. A call without a
    /// nonce always runs (and needs no `finish`).
    pub fn start(&self, group: u64, nonce: u64) -> Start {
        if nonce == NO_NONCE {
            return Start::Run;
        }
        let key = (group, nonce);
        let deadline = Instant::now() + WAIT_FOR_FIRST;
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            match seen.get(&key).map(|(s, _)| *s) {
                None => {
                    seen.insert(key, (State::Running, Instant::now()));
                    return Start::Run;
                }
                Some(State::Done { applied }) => return Start::AlreadyDone { applied },
                Some(State::Running) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        // The first attempt is stuck; this one runs (HBase gives up too).
                        return Start::Run;
                    }
                    seen = self
                        .changed
                        .wait_timeout(seen, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }

    /// Ends an operation [`Nonces::start`] let run: remembered as done if it succeeded
    /// (`applied` tells a check-and-mutate's outcome), forgotten if it failed so a retry runs.
    pub fn finish(&self, group: u64, nonce: u64, outcome: Option<bool>) {
        if nonce == NO_NONCE {
            return;
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        match outcome {
            Some(applied) => {
                seen.insert((group, nonce), (State::Done { applied }, Instant::now()));
            }
            None => {
                seen.remove(&(group, nonce));
            }
        }
        drop(seen);
        self.changed.notify_all();
    }

    /// Forgets finished nonces older than the grace period; returns how many.
    pub fn expire(&self) -> usize {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        let before = seen.len();
        let grace = self.grace;
        seen.retain(|_, (state, at)| *state == State::Running || at.elapsed() < grace);
        before - seen.len()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_nonce_runs_once_and_a_failed_one_runs_again() {
        let n = Nonces::default();
        assert_eq!(n.start(7, 1), Start::Run);
        n.finish(7, 1, Some(true));
        assert_eq!(n.start(7, 1), Start::AlreadyDone { applied: true });
        assert_eq!(n.start(8, 1), Start::Run, "another group");
        n.finish(8, 1, None);
        assert_eq!(n.start(8, 1), Start::Run, "a failed attempt is forgotten");
        assert_eq!(n.start(0, NO_NONCE), Start::Run);
        assert_eq!(n.start(0, NO_NONCE), Start::Run);
    }

    #[test]
    fn a_retry_waits_for_the_first_attempt() {
        let n = Arc::new(Nonces::default());
        assert_eq!(n.start(1, 2), Start::Run);
        let waiter = {
            let n = Arc::clone(&n);
            std::thread::spawn(move || n.start(1, 2))
        };
        std::thread::sleep(Duration::from_millis(50));
        n.finish(1, 2, Some(false));
        assert_eq!(
            waiter.join().expect("waiter"),
            Start::AlreadyDone { applied: false }
        );
    }

    #[test]
    fn finished_nonces_expire_after_the_grace_period() {
        let n = Nonces::new(Duration::ZERO);
        assert_eq!(n.start(1, 1), Start::Run);
        assert_eq!(n.start(1, 2), Start::Run);
        n.finish(1, 1, Some(true));
        assert_eq!(n.expire(), 1, "the running one stays");
        assert_eq!(n.start(1, 1), Start::Run);
    }
}
