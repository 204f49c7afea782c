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
