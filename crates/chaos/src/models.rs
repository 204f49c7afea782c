//! The sequential models Basalt's histories are checked against: one register per key (put,
//! get, check-and-put), and the key-value model of the validation histories (get, put, append).

use crate::linearizability::Model;

/// What a register operation did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterOp {
    /// Read the value (None: nothing there).
    Read,
    /// Wrote the value.
    Write(i64),
    /// Wrote `to` if the value was `from` (HBase's check-and-put).
    Cas { from: i64, to: i64 },
}

/// What a register operation returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterOut {
    /// A read's value (None: nothing there).
    Read(Option<i64>),
    /// A write's acknowledgement.
    Written,
    /// Whether a check-and-put applied.
    Cas(bool),
    /// Nobody knows (the client timed out): any answer, or none.
    Unknown,
}

/// An operation on one of [`Registers`]' registers, as a history holds it.
pub type RegisterOperation = crate::linearizability::Operation<(String, RegisterOp), RegisterOut>;

/// An operation of a [`KeyValue`] history.
pub type KvOperation = crate::linearizability::Operation<(String, KvOp), String>;

/// One register per key: the input names the key.
#[derive(Debug, Clone, Copy, Default)]
pub struct Registers;

impl Model for Registers {
    type State = Option<i64>;
    type Input = (String, RegisterOp);
    type Output = RegisterOut;

    fn init(&self) -> Option<i64> {
        None
    }

    fn step(
        &self,
        state: &Option<i64>,
        (_, op): &(String, RegisterOp),
        out: &RegisterOut,
    ) -> Option<Option<i64>> {
        let unknown = *out == RegisterOut::Unknown;
        match op {
            RegisterOp::Read => (unknown || *out == RegisterOut::Read(*state)).then_some(*state),
            RegisterOp::Write(v) => (unknown || *out == RegisterOut::Written).then_some(Some(*v)),
            RegisterOp::Cas { from, to } => {
                let applies = *state == Some(*from);
                let fits = unknown || *out == RegisterOut::Cas(applies);
                fits.then_some(if applies { Some(*to) } else { *state })
            }
        }
    }

    fn key(&self, (key, _): &(String, RegisterOp)) -> String {
        key.clone()
    }
}

/// What a key-value operation did (the validation histories' model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KvOp {
    Get,
    Put(String),
    Append(String),
}

/// Strings by key: get, put, append (a get's output is the value; others' are ignored).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeyValue;

impl Model for KeyValue {
    type State = String;
    type Input = (String, KvOp);
    type Output = String;

    fn init(&self) -> String {
        String::new()
    }

    fn step(&self, state: &String, (_, op): &(String, KvOp), out: &String) -> Option<String> {
        match op {
            KvOp::Get => (out == state).then(|| state.clone()),
            KvOp::Put(v) => Some(v.clone()),
            KvOp::Append(v) => Some(format!("{state}{v}")),
        }
    }

    fn key(&self, (key, _): &(String, KvOp)) -> String {
        key.clone()
    }
}

/// What an operation of Basalt's workload did, on a key of one of four kinds: a register
/// (read, write, check-and-put), a list (Append of `,n` to one cell, read whole), a counter
/// (Increment, with its nonce; read) or a row of two columns written together by RowMutations
/// (`a = v`, `b = -v`; read both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellOp {
    Read,
    Write(i64),
    Cas { from: i64, to: i64 },
    Append(i64),
    ReadList,
    Increment(i64),
    ReadCounter,
    MutateRow(i64),
    ReadRow,
}

/// What a [`CellOp`] returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CellOut {
    /// A register's value (None: nothing there).
    Read(Option<i64>),
    /// A write's or a RowMutations' acknowledgement.
    Written,
    /// Whether a check-and-put applied.
    Cas(bool),
    /// A list: what an Append left (HBase answers the new value) or what a read found.
    List(Vec<i64>),
    /// A counter: what an Increment left (HBase answers the new value) or what a read found
    /// (0 when there is none).
    Counter(i64),
    /// A row's two columns as read.
    Row(Option<i64>, Option<i64>),
    /// Nobody knows (the client timed out): any answer, or none.
    Unknown,
}

/// What one key of [`Cells`] holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Value {
    /// Nothing yet: a register or row reads nil, a list is empty, a counter is 0.
    Absent,
    /// A register's value, a counter, or a row's `a` (its `b` is `-a`).
    Int(i64),
    List(Vec<i64>),
}

impl Value {
    fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }

    fn list(&self) -> &[i64] {
        match self {
            Value::List(l) => l,
            _ => &[],
        }
    }
}

/// An operation of a [`Cells`] history.
pub type CellOperation = crate::linearizability::Operation<(String, CellOp), CellOut>;

/// Basalt's workload: each key a register, a list, a counter or a two-column row, checked
/// apart from the others. Its registers behave as [`Registers`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Cells;

impl Model for Cells {
    type State = Value;
    type Input = (String, CellOp);
    type Output = CellOut;

    fn init(&self) -> Value {
        Value::Absent
    }

    fn step(&self, state: &Value, (key, op): &(String, CellOp), out: &CellOut) -> Option<Value> {
        let unknown = *out == CellOut::Unknown;
        let register = |op: RegisterOp, out: RegisterOut| {
            let out = if unknown { RegisterOut::Unknown } else { out };
            Registers
                .step(&state.int(), &(key.clone(), op), &out)
                .map(|v| v.map_or(Value::Absent, Value::Int))
        };
        match (op, out) {
            (CellOp::Read, CellOut::Read(v)) => register(RegisterOp::Read, RegisterOut::Read(*v)),
            (CellOp::Read, _) => None,
            (CellOp::Write(v), out) => {
                (unknown || *out == CellOut::Written).then_some(Value::Int(*v))
            }
            (CellOp::Cas { from, to }, CellOut::Cas(applied)) => register(
                RegisterOp::Cas {
                    from: *from,
                    to: *to,
                },
                RegisterOut::Cas(*applied),
            ),
            (CellOp::Cas { from, to }, _) => unknown
                .then(|| {
                    register(
                        RegisterOp::Cas {
                            from: *from,
                            to: *to,
                        },
                        RegisterOut::Unknown,
                    )
                })
                .flatten(),
            (CellOp::Append(v), out) => {
                let mut list = state.list().to_vec();
                list.push(*v);
                (unknown || *out == CellOut::List(list.clone())).then_some(Value::List(list))
            }
            (CellOp::ReadList, CellOut::List(l)) => (l == state.list()).then(|| state.clone()),
            (CellOp::Increment(d), out) => {
                let n = state.int().unwrap_or(0).wrapping_add(*d);
                (unknown || *out == CellOut::Counter(n)).then_some(Value::Int(n))
            }
            (CellOp::ReadCounter, CellOut::Counter(n)) => {
                (*n == state.int().unwrap_or(0)).then(|| state.clone())
            }
            (CellOp::MutateRow(v), out) => {
                (unknown || *out == CellOut::Written).then_some(Value::Int(*v))
            }
            (CellOp::ReadRow, CellOut::Row(a, b)) => {
                let want = state.int();
                (*a == want && *b == want.map(|v| -v)).then(|| state.clone())
            }
            (CellOp::ReadList | CellOp::ReadCounter | CellOp::ReadRow, _) => None,
        }
    }

    fn key(&self, (key, _): &(String, CellOp)) -> String {
        key.clone()
    }
}

/// Takes out of `history` each append whose outcome is unknown and whose value no list read or
/// answered ever holds: it did not take effect, or took effect after everything observed, and
/// either way the history is linearizable with it if and only if it is without it (placed
/// last, it changes no answer). Without this, every order of a run's unknown appends is a
/// different list, and the search tries them all. Returns how many were taken out.
pub fn drop_unseen_appends(history: &mut Vec<CellOperation>) -> usize {
    use std::collections::HashSet;
    let seen: HashSet<(&str, i64)> = history
        .iter()
        .filter_map(|op| match &op.output {
            CellOut::List(l) => Some(l.iter().map(move |v| (op.input.0.as_str(), *v))),
            _ => None,
        })
        .flatten()
        .collect();
    let unseen = |op: &CellOperation| {
        matches!(
            (&op.input.1, &op.output),
            (CellOp::Append(v), CellOut::Unknown) if !seen.contains(&(op.input.0.as_str(), *v))
        )
    };
    let keep: Vec<bool> = history.iter().map(|op| !unseen(op)).collect();
    let before = history.len();
    let mut keep = keep.into_iter();
    history.retain(|_| keep.next().unwrap_or(true));
    before - history.len()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::linearizability::{Operation, check};

    fn op(
        client: u64,
        key: &str,
        input: CellOp,
        call: u64,
        ret: u64,
        out: CellOut,
    ) -> CellOperation {
        Operation {
            client,
            input: (key.to_owned(), input),
            call,
            ret,
            output: out,
        }
    }

    fn linearizable(history: &[CellOperation]) -> bool {
        check(&Cells, history, Duration::from_secs(1)).is_linearizable()
    }

    #[test]
    fn an_append_lost_or_reordered_shows() {
        let appends = [
            op(0, "l", CellOp::Append(1), 0, 1, CellOut::List(vec![1])),
            op(1, "l", CellOp::Append(2), 2, 3, CellOut::List(vec![1, 2])),
        ];
        let mut good = appends.to_vec();
        good.push(op(
            2,
            "l",
            CellOp::ReadList,
            4,
            5,
            CellOut::List(vec![1, 2]),
        ));
        assert!(linearizable(&good));
        let mut lost = appends.to_vec();
        lost.push(op(2, "l", CellOp::ReadList, 4, 5, CellOut::List(vec![1])));
        assert!(!linearizable(&lost));
        let mut reordered = appends.to_vec();
        reordered.push(op(
            2,
            "l",
            CellOp::ReadList,
            4,
            5,
            CellOut::List(vec![2, 1]),
        ));
        assert!(!linearizable(&reordered));
        // An append whose answer was lost may have happened, once.
        let unknown = [
            Operation::unknown(0, ("l".to_owned(), CellOp::Append(7)), 0, CellOut::Unknown),
            op(1, "l", CellOp::ReadList, 4, 5, CellOut::List(vec![7])),
        ];
        assert!(linearizable(&unknown));
        let twice = [
            Operation::unknown(0, ("l".to_owned(), CellOp::Append(7)), 0, CellOut::Unknown),
            op(1, "l", CellOp::ReadList, 4, 5, CellOut::List(vec![7, 7])),
        ];
        assert!(!linearizable(&twice));
    }

    /// Unknown appends nobody saw are taken out; one seen stays, and must fit.
    #[test]
    fn unseen_unknown_appends_are_taken_out() {
        let unknown =
            |v| Operation::unknown(0, ("l".to_owned(), CellOp::Append(v)), 0, CellOut::Unknown);
        let mut h: Vec<CellOperation> = (1..=12).map(unknown).collect();
        h.push(unknown(13));
        h.push(op(1, "l", CellOp::ReadList, 4, 5, CellOut::List(vec![13])));
        h.push(op(1, "m", CellOp::Append(1), 6, 7, CellOut::List(vec![1])));
        assert_eq!(
            drop_unseen_appends(&mut h),
            12,
            "seen on another key does not count"
        );
        assert_eq!(h.len(), 3);
        assert!(linearizable(&h));
    }

    #[test]
    fn an_increment_applied_twice_or_lost_shows() {
        let inc = Operation::unknown(
            0,
            ("c".to_owned(), CellOp::Increment(3)),
            0,
            CellOut::Unknown,
        );
        for (read, ok) in [(0, true), (3, true), (6, false), (1, false)] {
            let h = [
                inc.clone(),
                op(1, "c", CellOp::ReadCounter, 4, 5, CellOut::Counter(read)),
            ];
            assert_eq!(linearizable(&h), ok, "a read of {read}");
        }
        // Acknowledged: it must show.
        let h = [
            op(0, "c", CellOp::Increment(3), 0, 1, CellOut::Counter(3)),
            op(1, "c", CellOp::ReadCounter, 2, 3, CellOut::Counter(0)),
        ];
        assert!(!linearizable(&h));
    }

    #[test]
    fn a_torn_row_shows() {
        let write = |v, call| {
            op(
                0,
                "m",
                CellOp::MutateRow(v),
                call,
                call + 1,
                CellOut::Written,
            )
        };
        let read = |a, b| op(1, "m", CellOp::ReadRow, 10, 11, CellOut::Row(a, b));
        assert!(linearizable(&[
            write(5, 0),
            write(6, 2),
            read(Some(6), Some(-6))
        ]));
        assert!(!linearizable(&[
            write(5, 0),
            write(6, 2),
            read(Some(6), Some(-5))
        ]));
        assert!(!linearizable(&[write(5, 0), read(Some(5), None)]));
        assert!(linearizable(&[read(None, None), write(5, 20)]));
    }

    #[test]
    fn registers_behave_as_the_validated_model() {
        let h = [
            op(0, "k", CellOp::Write(1), 0, 1, CellOut::Written),
            op(
                1,
                "k",
                CellOp::Cas { from: 1, to: 2 },
                2,
                3,
                CellOut::Cas(true),
            ),
            op(
                2,
                "k",
                CellOp::Cas { from: 1, to: 3 },
                4,
                5,
                CellOut::Cas(false),
            ),
            op(0, "k", CellOp::Read, 6, 7, CellOut::Read(Some(2))),
        ];
        assert!(linearizable(&h));
        let mut stale = h.to_vec();
        stale[3].output = CellOut::Read(Some(1));
        assert!(!linearizable(&stale));
    }
}
