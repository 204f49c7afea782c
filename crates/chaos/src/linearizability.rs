//! A linearizability checker (issue 45): is there an order of a history's operations, each
//! taking effect at one instant between its call and its return, in which a sequential model
//! gives every operation the output it observed?
//!
//! The search is Wing and Gong's, with Lowe's improvements as the Porcupine and Knossos
//! checkers use them:
//!
//! - **Per-key independence** (P-compositionality): a model may split a history by key; each
//!   part is checked alone, and the whole is linearizable if every part is.
//! - **Just-in-time linearization**: the history is a list of call and return events in time
//!   order. The search walks it from the front; at a call it tries to make that operation take
//!   effect now (the model accepts its output from the current state), removing its two events
//!   from the list and pushing it on a stack; at a return whose call was not linearized yet, no
//!   order of what came before works, so it backtracks: pops the last linearized operation,
//!   puts its events back, and tries the next call after it.
//! - **Memoization**: a set of (operations linearized so far, model state) already explored
//!   is never explored again. The set keeps a 128-bit fingerprint of each pair (two SipHash
//!   keys), not the pair: a list's state is the whole list, and a long history's explored
//!   lists took gigabytes. Two pairs sharing a fingerprint (a chance near 2^-128 per pair
//!   of pairs) would have the second left unexplored.
//!
//! Operations whose outcome the client does not know (a timeout, Jepsen's `:info`) have an
//! unknown output, which the model accepts whatever it would have returned: the operation may
//! take effect at any time after its call, or never. They have no return event: the search is
//! done when every operation that returned is linearized, the unknown ones left over taking
//! effect after everything (where nothing observes them). So the search never linearizes an
//! unknown operation where it would leave the state as it was (a check-and-set whose check
//! fails): placed last instead it explains the same, and trying both would double the search
//! for each such operation.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A sequential specification of the system under test.
pub trait Model {
    /// What the system holds (per key, when the model splits histories by key).
    type State: Clone + Eq + Hash;
    /// An operation as called.
    type Input;
    /// What it returned, or that its outcome is unknown.
    type Output;

    /// The state before any operation.
    fn init(&self) -> Self::State;

    /// The state after `input` is applied to `state`, if the system could have answered
    /// `output`; None if it could not have.
    fn step(
        &self,
        state: &Self::State,
        input: &Self::Input,
        output: &Self::Output,
    ) -> Option<Self::State>;

    /// The key whose operations are checked apart from the others' (the whole history is one
    /// part when every operation gives the same key).
    fn key(&self, input: &Self::Input) -> String {
        let _ = input;
        String::new()
    }
}

/// One operation of a history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation<I, O> {
    /// The client (Jepsen's process) that made it.
    pub client: u64,
    pub input: I,
    /// When it was called, and when it returned (`u64::MAX`: it never did, as far as the
    /// client knows; see [`Operation::unknown`]).
    pub call: u64,
    pub ret: u64,
    pub output: O,
}

impl<I, O> Operation<I, O> {
    /// An operation whose outcome the client never learned: it may take effect at any time
    /// after `call`, or never.
    pub fn unknown(client: u64, input: I, call: u64, output: O) -> Self {
        Operation {
            client,
            input,
            call,
            ret: u64::MAX,
            output,
        }
    }
}

/// A checker's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every part has an order that explains it.
    Linearizable,
    /// The part of `key` has none: the operations of the longest prefix the search
    /// linearized, in the order found (indices into the history), and the first operation it
    /// could not place.
    Illegal {
        key: String,
        linearized: Vec<usize>,
        stuck_at: Option<usize>,
    },
    /// The search ran out of its time budget before an answer.
    Unknown { key: String },
}

impl Verdict {
    pub fn is_linearizable(&self) -> bool {
        matches!(self, Verdict::Linearizable)
    }
}

/// Checks `history` against `model`, each key's part alone, giving up on a part after
/// `budget`. Parts are checked on as many threads as the machine has, and the first part
/// found illegal ends the check (as Porcupine does: a bad history is often quick to refute in
/// one part and slow in another).
pub fn check<M>(model: &M, history: &[Operation<M::Input, M::Output>], budget: Duration) -> Verdict
where
    M: Model + Sync,
    M::Input: Sync,
    M::Output: Sync,
{
    let mut parts: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, op) in history.iter().enumerate() {
        parts.entry(model.key(&op.input)).or_default().push(i);
    }
    let mut parts: Vec<(String, Vec<usize>)> = parts.into_iter().collect();
    // Small parts first: they are decided quickly, and may refute the whole.
    parts.sort_by(|a, b| (a.1.len(), &a.0).cmp(&(b.1.len(), &b.0)));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Vec<Mutex<Option<Part>>> = parts.iter().map(|_| Mutex::new(None)).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(parts.len())
        .max(1);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= parts.len() || stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let part = check_part(model, history, &parts[i].1, budget, &stop);
                    if matches!(part, Part::Illegal { .. }) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    *results[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(part);
                }
            });
        }
    });
    let mut unknown = None;
    for ((key, _), result) in parts.into_iter().zip(results) {
        match result.into_inner().unwrap_or_else(PoisonError::into_inner) {
            Some(Part::Illegal {
                linearized,
                stuck_at,
            }) => {
                return Verdict::Illegal {
                    key,
                    linearized,
                    stuck_at,
                };
            }
            Some(Part::OutOfTime) => unknown = unknown.or(Some(key)),
            Some(Part::Ok | Part::Stopped) | None => {}
        }
    }
    match unknown {
        Some(key) => Verdict::Unknown { key },
        None => Verdict::Linearizable,
    }
}

enum Part {
    Ok,
    Illegal {
        linearized: Vec<usize>,
        stuck_at: Option<usize>,
    },
    OutOfTime,
    /// Another part was found illegal first.
    Stopped,
}

/// One event of the walked list: an operation's call or return.
#[derive(Debug, Clone, Copy)]
struct Event {
    /// Index into the part's operations.
    op: usize,
    is_call: bool,
    /// For a call, the position of its return event.
    matching: usize,
    prev: usize,
    next: usize,
}

/// The list's head sentinel's position; events follow from 1.
const HEAD: usize = 0;
/// How often (in steps) the clock is looked at.
const CLOCK_EVERY: u64 = 4096;

fn check_part<M: Model>(
    model: &M,
    history: &[Operation<M::Input, M::Output>],
    ops: &[usize],
    budget: Duration,
    stop: &AtomicBool,
) -> Part {
    let n = ops.len();
    // Events in time order; at equal times calls first (they overlap what returns then).
    let mut order: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * n);
    for (i, &at) in ops.iter().enumerate() {
        let op = &history[at];
        order.push((op.call, true, i));
        // An unknown operation has no return (see the module documentation).
        if op.ret != u64::MAX {
            order.push((op.ret.max(op.call), false, i));
        }
    }
    order.sort_by_key(|&(time, is_call, i)| (time, !is_call, i));
    let mut events: Vec<Event> = Vec::with_capacity(2 * n + 1);
    events.push(Event {
        op: usize::MAX,
        is_call: false,
        matching: 0,
        prev: HEAD,
        next: 1,
    });
    // 0: none (an unknown operation's).
    let mut return_at = vec![0usize; n];
    for (pos, &(_, is_call, op)) in order.iter().enumerate() {
        let here = pos + 1;
        if !is_call {
            return_at[op] = here;
        }
        events.push(Event {
            op,
            is_call,
            matching: 0,
            prev: here - 1,
            next: here + 1,
        });
    }
    let end = events.len();
    for e in events.iter_mut().skip(1) {
        if e.is_call {
            e.matching = return_at[e.op];
        }
    }

    let words = n.div_ceil(64);
    let mut linearized = vec![0u64; words];
    let mut seen = Fingerprints::default();
    // (call event's position, the state before it)
    let mut stack: Vec<(usize, M::State)> = Vec::new();
    let mut state = model.init();
    let mut best: Vec<usize> = Vec::new();
    let mut stuck_at = None;
    let started = Instant::now();
    let mut steps = 0u64;
    let mut at = events[HEAD].next;
    while at != end {
        steps += 1;
        if steps.is_multiple_of(CLOCK_EVERY) {
            if stop.load(Ordering::Relaxed) {
                return Part::Stopped;
            }
            if started.elapsed() > budget {
                return Part::OutOfTime;
            }
        }
        let event = events[at];
        if event.is_call {
            let op = &history[ops[event.op]];
            let unknown = op.ret == u64::MAX;
            let applied = model.step(&state, &op.input, &op.output).and_then(|next| {
                if unknown && next == state {
                    return None;
                }
                let mut with = linearized.clone();
                with[event.op / 64] |= 1 << (event.op % 64);
                let fresh = seen.insert(&with, &next);
                fresh.then_some((with, next))
            });
            match applied {
                Some((with, next)) => {
                    stack.push((at, std::mem::replace(&mut state, next)));
                    linearized = with;
                    lift(&mut events, at);
                    if stack.len() > best.len() {
                        best = stack.iter().map(|&(p, _)| ops[events[p].op]).collect();
                        stuck_at = None;
                    }
                    at = events[HEAD].next;
                }
                None => at = event.next,
            }
        } else {
            // A return whose call is still in the list: what precedes cannot be ordered.
            if stuck_at.is_none() && stack.len() == best.len() {
                stuck_at = Some(ops[event.op]);
            }
            let Some((call, before)) = stack.pop() else {
                return Part::Illegal {
                    linearized: best,
                    stuck_at,
                };
            };
            state = before;
            let op = events[call].op;
            linearized[op / 64] &= !(1 << (op % 64));
            unlift(&mut events, call);
            at = events[call].next;
        }
    }
    Part::Ok
}

/// The call at `call` and its return, if it has one (0: none).
fn call_and_return(events: &[Event], call: usize) -> impl Iterator<Item = usize> {
    let ret = events[call].matching;
    [call, ret].into_iter().filter(|&at| at != HEAD)
}

/// The explored (operations linearized, state) pairs, by fingerprint.
#[derive(Default)]
struct Fingerprints {
    keys: [std::hash::RandomState; 2],
    seen: HashSet<u128>,
}

impl Fingerprints {
    /// Records the pair; false if it was there already.
    fn insert<S: Hash>(&mut self, linearized: &[u64], state: &S) -> bool {
        use std::hash::BuildHasher;
        let [a, b] = self
            .keys
            .each_ref()
            .map(|k| k.hash_one((linearized, state)));
        self.seen.insert((u128::from(a) << 64) | u128::from(b))
    }
}

/// Takes the call at `call` and its return out of the list.
fn lift(events: &mut [Event], call: usize) {
    for at in call_and_return(events, call).collect::<Vec<_>>() {
        let (prev, next) = (events[at].prev, events[at].next);
        events[prev].next = next;
        if next < events.len() {
            events[next].prev = prev;
        }
    }
}

/// Puts the call at `call` and its return back where they were (the reverse of [`lift`]).
fn unlift(events: &mut [Event], call: usize) {
    let both: Vec<usize> = call_and_return(events, call).collect();
    for at in both.into_iter().rev() {
        let (prev, next) = (events[at].prev, events[at].next);
        events[prev].next = at;
        if next < events.len() {
            events[next].prev = at;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One register: Some(v) writes v, None reads (the output is what was read).
    struct Register;

    impl Model for Register {
        type State = u32;
        type Input = Option<u32>;
        type Output = u32;

        fn init(&self) -> u32 {
            0
        }

        fn step(&self, state: &u32, input: &Option<u32>, output: &u32) -> Option<u32> {
            match input {
                Some(v) => Some(*v),
                None => (output == state).then_some(*state),
            }
        }
    }

    fn op(
        client: u64,
        input: Option<u32>,
        call: u64,
        ret: u64,
        output: u32,
    ) -> Operation<Option<u32>, u32> {
        Operation {
            client,
            input,
            call,
            ret,
            output,
        }
    }

    #[test]
    fn overlapping_operations_may_take_effect_in_either_order() {
        // A read overlapping a write may see it or not.
        let h = [
            op(0, Some(1), 0, 10, 0),
            op(1, None, 1, 5, 1),
            op(2, None, 2, 6, 0),
        ];
        assert!(check(&Register, &h, Duration::from_secs(1)).is_linearizable());
    }

    #[test]
    fn a_read_of_an_overwritten_value_after_the_fact_is_illegal() {
        // Write 1 then (after it returns) write 2; a read starting after both sees 1: stale.
        let h = [
            op(0, Some(1), 0, 1, 0),
            op(0, Some(2), 2, 3, 0),
            op(1, None, 4, 5, 1),
        ];
        let v = check(&Register, &h, Duration::from_secs(1));
        assert!(matches!(v, Verdict::Illegal { .. }), "{v:?}");
    }

    #[test]
    fn an_unknown_write_may_take_effect_late_or_never() {
        let h = [
            Operation::unknown(0, Some(7), 0, 0),
            op(1, None, 5, 6, 0),
            op(1, None, 7, 8, 7),
        ];
        assert!(check(&Register, &h, Duration::from_secs(1)).is_linearizable());
        let never = [Operation::unknown(0, Some(7), 0, 0), op(1, None, 5, 6, 0)];
        assert!(check(&Register, &never, Duration::from_secs(1)).is_linearizable());
        // But not before it was called.
        let early = [op(1, None, 0, 1, 7), Operation::unknown(0, Some(7), 2, 0)];
        assert!(!check(&Register, &early, Duration::from_secs(1)).is_linearizable());
    }

    /// Unknown operations that would change nothing where they are tried (here writes of the
    /// value already there) are left for the end: forty of them, among reads, are decided at
    /// once instead of trying their 2^40 subsets.
    #[test]
    fn unknown_operations_that_change_nothing_do_not_multiply_the_search() {
        let mut h: Vec<_> = (0..40)
            .map(|i| Operation::unknown(i, Some(0), i, 0))
            .collect();
        for t in 0..200 {
            h.push(op(50, None, 100 + 2 * t, 101 + 2 * t, 0));
        }
        h.push(op(51, Some(3), 600, 601, 0));
        h.push(op(50, None, 602, 603, 3));
        // Undecided (out of time) before.
        assert_eq!(
            check(&Register, &h, Duration::from_secs(5)),
            Verdict::Linearizable
        );
    }
}
