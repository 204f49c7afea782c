//! HBase's operation nonces (`ServerNonceManager`): a client gives a mutation a random
//! `(nonce group, nonce)` and sends the same pair when it retries, so an operation whose answer
//! was lost (the connection broke after the server applied it) is not applied a second time.
//! HBase's clients give nonces to increments, appends and check-and-mutates; Basalt's to every
//! mutation (a put applied again is stamped later, over the writes made in between).
//!
//! The server remembers each nonce for a grace period (HBase's
//! `hbase.server.hashNonce.gracePeriod`, 30 minutes), at most [`MAX_REMEMBERED`] of them. A
//! call whose nonce is already done is not applied again: the caller answers it from the
//! remembered outcome, an increment's or append's with the very cells the first attempt
//! answered. (HBase answers a repeated increment or append with the row's current values,
//! which may hold later operations' too: a client whose answer was lost would take another's
//! result for its own. Basalt remembers the answers, up to [`RESULT_BUDGET`] bytes of them,
//! newest kept; past that it answers as HBase does. See docs/design/chaos.md.) A call whose
//! nonce is still running waits for it; if that one failed, the retry runs. Nonces live in
//! memory: a restarted server has forgotten them (HBase also recovers them from its WAL; Basalt
//! does not yet).

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_common::RowResult;

/// HBase's `HConstants.NO_NONCE`: an operation without a nonce.
pub const NO_NONCE: u64 = 0;

/// How long a finished nonce is remembered (HBase's default grace period).
pub const DEFAULT_GRACE: Duration = Duration::from_secs(30 * 60);

/// How many bytes of increments' and appends' answers a server remembers for their retries.
pub const RESULT_BUDGET: usize = 32 << 20;

/// How many finished nonces a server remembers at most (about 100 MB): every mutation of
/// Basalt's client has one, so a busy server forgets the oldest before the grace period ends.
/// A retry comes within its client's operation timeout, seconds to minutes after the first
/// attempt; at 10,000 writes a second this still covers 100 seconds.
pub const MAX_REMEMBERED: usize = 1_000_000;

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    /// Run it, then [`Nonces::finish`] it.
    Run,
    /// It already ran: answer without applying it again; with the first attempt's answer
    /// when it is remembered.
    AlreadyDone {
        applied: bool,
        result: Option<RowResult>,
    },
}

/// Answers remembered for retries, oldest first out once over the budget.
#[derive(Debug, Default)]
struct Answers {
    by_nonce: HashMap<(u64, u64), RowResult>,
    order: VecDeque<((u64, u64), usize)>,
    bytes: usize,
}

impl Answers {
    fn size(result: &RowResult) -> usize {
        result
            .cells
            .iter()
            .map(|c| c.row().len() + c.family().len() + c.qualifier().len() + c.value().len() + 48)
            .sum()
    }

    fn keep(&mut self, key: (u64, u64), result: &RowResult, budget: usize) {
        let size = Self::size(result);
        if size > budget {
            return;
        }
        self.by_nonce.insert(key, result.clone());
        self.order.push_back((key, size));
        self.bytes += size;
        while self.bytes > budget {
            let Some((old, size)) = self.order.pop_front() else {
                break;
            };
            self.by_nonce.remove(&old);
            self.bytes -= size;
        }
    }
}

/// One shard of the nonces: those whose nonce falls to it.
#[derive(Debug, Default)]
struct Shard {
    seen: HashMap<(u64, u64), (State, Instant)>,
    /// Finished nonces, oldest first: past its share of [`MAX_REMEMBERED`], the oldest are
    /// forgotten.
    finished: VecDeque<(u64, u64)>,
    /// Retries waiting for a first attempt to finish (woken only when there are some).
    waiting: usize,
}

/// Shards of the nonces, each behind its own lock: every remote write passes here twice.
const SHARDS: usize = 64;

/// The nonces a server has seen.
#[derive(Debug)]
pub struct Nonces {
    shards: Box<[(Mutex<Shard>, Condvar)]>,
    answers: Mutex<Answers>,
    grace: Duration,
    budget: usize,
}

impl Default for Nonces {
    fn default() -> Self {
        Nonces::new(DEFAULT_GRACE)
    }
}

impl Nonces {
    pub fn new(grace: Duration) -> Self {
        Nonces::with_budget(grace, RESULT_BUDGET)
    }

    /// [`Nonces::new`], remembering at most `budget` bytes of answers.
    pub fn with_budget(grace: Duration, budget: usize) -> Self {
        Nonces {
            shards: (0..SHARDS)
                .map(|_| (Mutex::new(Shard::default()), Condvar::new()))
                .collect(),
            answers: Mutex::new(Answers::default()),
            grace,
            budget,
        }
    }

    /// The shard of `key` (nonces are random: their low bits spread them).
    fn shard(&self, key: (u64, u64)) -> &(Mutex<Shard>, Condvar) {
        &self.shards[usize::try_from((key.0 ^ key.1) % SHARDS as u64).unwrap_or(0)]
    }

    fn answer(&self, key: (u64, u64)) -> Option<RowResult> {
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .by_nonce
            .get(&key)
            .cloned()
    }

    /// Starts the operation with this nonce: run it, or it already ran. A call without a
    /// nonce always runs (and needs no `finish`).
    pub fn start(&self, group: u64, nonce: u64) -> Start {
        if nonce == NO_NONCE {
            return Start::Run;
        }
        let key = (group, nonce);
        let (lock, changed) = self.shard(key);
        let mut shard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut deadline = None;
        loop {
            match shard.seen.get(&key).map(|(s, _)| *s) {
                None => {
                    shard.seen.insert(key, (State::Running, Instant::now()));
                    return Start::Run;
                }
                Some(State::Done { applied }) => {
                    drop(shard);
                    return Start::AlreadyDone {
                        applied,
                        result: self.answer(key),
                    };
                }
                Some(State::Running) => {
                    let deadline = *deadline.get_or_insert_with(|| Instant::now() + WAIT_FOR_FIRST);
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        // The first attempt is stuck; this one runs (HBase gives up too).
                        return Start::Run;
                    }
                    shard.waiting += 1;
                    shard = changed
                        .wait_timeout(shard, left)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                    shard.waiting -= 1;
                }
            }
        }
    }

    /// Ends an operation [`Nonces::start`] let run: remembered as done if it succeeded
    /// (`applied` tells a check-and-mutate's outcome, `result` is what it answered), forgotten
    /// if it failed so a retry runs.
    pub fn finish(
        &self,
        group: u64,
        nonce: u64,
        outcome: Option<bool>,
        result: Option<&RowResult>,
    ) {
        if nonce == NO_NONCE {
            return;
        }
        let key = (group, nonce);
        if let (Some(_), Some(result)) = (outcome, result) {
            self.answers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .keep(key, result, self.budget);
        }
        let (lock, changed) = self.shard(key);
        let mut shard = lock.lock().unwrap_or_else(PoisonError::into_inner);
        match outcome {
            Some(applied) => {
                shard
                    .seen
                    .insert(key, (State::Done { applied }, Instant::now()));
                shard.finished.push_back(key);
                while shard.finished.len() > MAX_REMEMBERED / SHARDS {
                    let Some(old) = shard.finished.pop_front() else {
                        break;
                    };
                    if shard
                        .seen
                        .get(&old)
                        .is_some_and(|(s, _)| *s != State::Running)
                    {
                        shard.seen.remove(&old);
                    }
                }
            }
            None => {
                shard.seen.remove(&key);
            }
        }
        if shard.waiting > 0 {
            changed.notify_all();
        }
    }

    /// Forgets finished nonces older than the grace period; returns how many. Called often
    /// (the RPC server's lease chore): it looks only at the oldest finished nonces of each
    /// shard, in the order they finished, and stops at the first still in its grace period.
    pub fn expire(&self) -> usize {
        let now = Instant::now();
        let mut gone = std::collections::HashSet::new();
        for (lock, _) in self.shards.iter() {
            let mut shard = lock.lock().unwrap_or_else(PoisonError::into_inner);
            let Shard { seen, finished, .. } = &mut *shard;
            while let Some(&key) = finished.front() {
                match seen.get(&key) {
                    Some((State::Done { .. }, at))
                        if now.saturating_duration_since(*at) < self.grace =>
                    {
                        break;
                    }
                    Some((State::Done { .. }, _)) => {
                        seen.remove(&key);
                        gone.insert(key);
                    }
                    // Forgotten already, or (past the cap) started again: not this entry's.
                    _ => {}
                }
                finished.pop_front();
            }
        }
        if !gone.is_empty() {
            let mut answers = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
            let Answers {
                by_nonce,
                order,
                bytes,
            } = &mut *answers;
            // Answers are kept in the order their nonces finished, near enough: the oldest go.
            while let Some(&(key, size)) = order.front() {
                if !gone.contains(&key) {
                    break;
                }
                order.pop_front();
                by_nonce.remove(&key);
                *bytes -= size;
            }
        }
        gone.len()
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
        n.finish(7, 1, Some(true), None);
        assert_eq!(
            n.start(7, 1),
            Start::AlreadyDone {
                applied: true,
                result: None
            }
        );
        assert_eq!(n.start(8, 1), Start::Run, "another group");
        n.finish(8, 1, None, None);
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
        n.finish(1, 2, Some(false), None);
        assert_eq!(
            waiter.join().expect("waiter"),
            Start::AlreadyDone {
                applied: false,
                result: None
            }
        );
    }

    #[test]
    fn finished_nonces_expire_after_the_grace_period() {
        let n = Nonces::new(Duration::ZERO);
        assert_eq!(n.start(1, 1), Start::Run);
        assert_eq!(n.start(1, 2), Start::Run);
        n.finish(1, 1, Some(true), Some(&counter(b"c", 5)));
        assert_eq!(n.expire(), 1, "the running one stays");
        assert_eq!(n.start(1, 1), Start::Run);
        assert!(n.answers.lock().expect("answers").by_nonce.is_empty());
    }

    fn counter(row: &[u8], value: i64) -> RowResult {
        let cell = basalt_common::Cell::new(
            row,
            b"f",
            b"q",
            1,
            basalt_common::CellType::Put,
            &value.to_be_bytes(),
        );
        RowResult {
            row: basalt_common::Bytes::copy_from_slice(row),
            cells: vec![cell],
            ..RowResult::default()
        }
    }

    /// A retry is answered with the first attempt's own cells, not the row as it is now; the
    /// oldest answers go first when they outgrow the budget.
    #[test]
    fn a_retry_gets_the_first_attempts_answer() {
        let budget = 3 * Answers::size(&counter(b"c", 1));
        let n = Nonces::with_budget(DEFAULT_GRACE, budget);
        for nonce in 1..=4 {
            assert_eq!(n.start(1, nonce), Start::Run);
            n.finish(
                1,
                nonce,
                Some(true),
                Some(&counter(b"c", nonce as i64 * 10)),
            );
        }
        assert_eq!(
            n.start(1, 3),
            Start::AlreadyDone {
                applied: true,
                result: Some(counter(b"c", 30))
            }
        );
        assert_eq!(
            n.start(1, 1),
            Start::AlreadyDone {
                applied: true,
                result: None
            },
            "the oldest answer went over the budget"
        );
    }
}
