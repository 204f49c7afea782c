//! HBase's procedure nonces on the master. A call carrying `nonce_group` and `nonce` (create,
//! delete, enable, disable, truncate or modify a table or a family, split, merge, clone,
//! restore, and the namespace calls) that the master already ran, a client's retry after the
//! answer was lost, gets the first run's answer (the same procedure id, or the same exception)
//! without running again, as HBase's ProcedureExecutor hands back the procedure a nonce
//! registered. A repeat that arrives while the first is still running waits for it. The last
//! [`KEPT`] nonces are remembered (in memory: a new active master starts with none, as
//! HBase's does for procedures that finished before it took over).

use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Duration;

use basalt_proto::service::Outcome;

/// How many finished nonces are remembered.
pub const KEPT: usize = 4096;

/// A nonce (group, nonce); nonce 0 is "none" (HBase's NO_NONCE).
pub type Key = (u64, u64);

#[derive(Debug, Default)]
struct State {
    /// None while the first call runs.
    answers: HashMap<Key, Option<Outcome>>,
    /// Finished nonces, oldest first.
    order: VecDeque<Key>,
}

#[derive(Debug, Default)]
pub struct Nonces {
    state: Mutex<State>,
    finished: Condvar,
}

/// Forgets a nonce whose run did not finish (it panicked), so a retry runs it again rather
/// than waiting forever.
struct Running<'a> {
    nonces: &'a Nonces,
    key: Key,
    done: bool,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.nonces.lock().answers.remove(&self.key);
            self.nonces.finished.notify_all();
        }
    }
}

impl Nonces {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `run` once per nonce: a repeat gets the first run's answer.
    pub fn once(&self, key: Key, run: impl FnOnce() -> Outcome) -> Outcome {
        if key.1 == 0 {
            return run();
        }
        let mut state = self.lock();
        loop {
            match state.answers.get(&key) {
                Some(Some(answer)) => return answer.clone(),
                Some(None) => {
                    state = self
                        .finished
                        .wait_timeout(state, Duration::from_millis(200))
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                None => break,
            }
        }
        state.answers.insert(key, None);
        drop(state);
        let mut running = Running {
            nonces: self,
            key,
            done: false,
        };
        let answer = run();
        let mut state = self.lock();
        state.answers.insert(key, Some(answer.clone()));
        state.order.push_back(key);
        while state.order.len() > KEPT {
            if let Some(old) = state.order.pop_front() {
                state.answers.remove(&old);
            }
        }
        running.done = true;
        drop(state);
        self.finished.notify_all();
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_nonce_runs_once_and_its_repeat_gets_the_first_answer() {
        let nonces = Nonces::default();
        let runs = AtomicUsize::new(0);
        let run = |answer: u8| {
            runs.fetch_add(1, Ordering::SeqCst);
            Ok(vec![answer])
        };
        assert_eq!(nonces.once((1, 7), || run(1)), Ok(vec![1]));
        assert_eq!(nonces.once((1, 7), || run(2)), Ok(vec![1]));
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        // Another nonce, and no nonce, run.
        assert_eq!(nonces.once((1, 8), || run(3)), Ok(vec![3]));
        assert_eq!(nonces.once((1, 0), || run(4)), Ok(vec![4]));
        assert_eq!(nonces.once((1, 0), || run(5)), Ok(vec![5]));
        assert_eq!(runs.load(Ordering::SeqCst), 4);
    }

    #[test]
    fn only_the_newest_nonces_are_kept() {
        let nonces = Nonces::default();
        for n in 1..=(KEPT as u64 + 10) {
            let _ = nonces.once((0, n), || Ok(vec![]));
        }
        let state = nonces.lock();
        assert_eq!(state.answers.len(), KEPT);
        assert!(!state.answers.contains_key(&(0, 1)));
    }
}
