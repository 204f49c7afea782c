//! The register workload: clients read, write and check-and-put registers (one row and column
//! per key) through Basalt's remote client, each operation recorded with when it was called
//! and when it returned. A read that fails changed nothing and is left out; a write or a
//! check-and-put that fails may or may not have been applied (its answer was lost, or a retry
//! gave up), so its outcome is unknown, as Jepsen's `:info`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_client::remote::RemoteConnection;
use basalt_client::{
    Bytes, CheckAction, CheckAndMutate, Client, CompareOperator, Condition, Get, Put, TableName,
};

use crate::linearizability::Operation;
use crate::models::{RegisterOp, RegisterOperation, RegisterOut};

/// The family and qualifier of every register.
const FAMILY: &str = "f";
const QUALIFIER: &str = "v";

/// The row of register `key`.
pub fn row(key: usize) -> Bytes {
    Bytes::from(format!("k{key:03}"))
}

/// Operations as they happen, timed from one instant.
#[derive(Debug)]
pub struct Recorder {
    start: Instant,
    ops: Mutex<Vec<RegisterOperation>>,
}

impl Recorder {
    pub fn new(start: Instant) -> Recorder {
        Recorder {
            start,
            ops: Mutex::new(Vec::new()),
        }
    }

    /// Nanoseconds since the start.
    pub fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX - 1)
    }

    pub fn record(&self, op: RegisterOperation) {
        self.ops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(op);
    }

    pub fn history(&self) -> Vec<RegisterOperation> {
        let mut ops = self
            .ops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        ops.sort_by_key(|o| o.call);
        ops
    }
}

/// xorshift64*, seeded: the clients' choices.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// One operation on register `key` of `table`, as client `client` makes it; recorded. A
/// read that succeeded returns what it read.
pub fn apply(
    conn: &RemoteConnection,
    table: &TableName,
    recorder: &Recorder,
    client: u64,
    key: usize,
    op: RegisterOp,
) -> Option<Option<i64>> {
    let row = row(key);
    let call = recorder.now();
    let out: Result<RegisterOut, basalt_client::Error> = match &op {
        RegisterOp::Read => conn.get(table, &Get::new(row.clone())).map(|r| {
            RegisterOut::Read(
                r.value(FAMILY.as_bytes(), QUALIFIER.as_bytes())
                    .and_then(|v| <[u8; 8]>::try_from(v).ok())
                    .map(i64::from_be_bytes),
            )
        }),
        RegisterOp::Write(v) => conn
            .put(
                table,
                &Put::new(row.clone()).add_column(FAMILY, QUALIFIER, v.to_be_bytes().to_vec()),
            )
            .map(|()| RegisterOut::Written),
        RegisterOp::Cas { from, to } => conn
            .check_and_mutate(
                table,
                &CheckAndMutate::new(
                    row.clone(),
                    Condition::matches(
                        FAMILY,
                        QUALIFIER,
                        CompareOperator::Equal,
                        from.to_be_bytes().to_vec(),
                    ),
                    CheckAction::Put(Put::new(row.clone()).add_column(
                        FAMILY,
                        QUALIFIER,
                        to.to_be_bytes().to_vec(),
                    )),
                ),
            )
            .map(|r| RegisterOut::Cas(r.success)),
    };
    let input = (format!("k{key:03}"), op);
    match out {
        Ok(output) => {
            let read = match output {
                RegisterOut::Read(v) => Some(v),
                _ => None,
            };
            recorder.record(Operation {
                client,
                input,
                call,
                ret: recorder.now(),
                output,
            });
            read
        }
        // A failed read is left out: it changed nothing.
        Err(_) if matches!(input.1, RegisterOp::Read) => None,
        Err(_) => {
            recorder.record(Operation::unknown(
                client,
                input,
                call,
                RegisterOut::Unknown,
            ));
            None
        }
    }
}

/// The workload's shape.
#[derive(Debug, Clone)]
pub struct Shape {
    pub clients: usize,
    pub keys: usize,
    /// The pause between one client's operations.
    pub think: Duration,
    pub seed: u64,
}

/// Runs the clients until `stop`: each picks a register and reads (half the time), writes a
/// value no one else writes, or swaps the value it last saw for a new one.
pub fn run(
    conn: &Arc<RemoteConnection>,
    table: &TableName,
    recorder: &Arc<Recorder>,
    shape: &Shape,
    stop: &Arc<AtomicBool>,
) {
    std::thread::scope(|s| {
        for client in 0..shape.clients {
            let (conn, recorder, stop) = (Arc::clone(conn), Arc::clone(recorder), Arc::clone(stop));
            let table = table.clone();
            let shape = shape.clone();
            s.spawn(move || {
                let mut rng = Rng::new(shape.seed ^ ((client as u64 + 1) << 32));
                let mut seq = 0i64;
                let mut seen: Vec<Option<i64>> = vec![None; shape.keys];
                while !stop.load(Ordering::Relaxed) {
                    let key = usize::try_from(rng.below(shape.keys as u64)).unwrap_or(0);
                    seq += 1;
                    let fresh = (client as i64 + 1) * 1_000_000_000 + seq;
                    let op = match rng.below(10) {
                        0..=4 => RegisterOp::Read,
                        5..=7 => RegisterOp::Write(fresh),
                        _ => RegisterOp::Cas {
                            from: seen[key].unwrap_or(0),
                            to: fresh,
                        },
                    };
                    if let RegisterOp::Write(v) = op {
                        seen[key] = Some(v);
                    }
                    if let Some(read) = apply(&conn, &table, &recorder, client as u64, key, op) {
                        seen[key] = read;
                    }
                    std::thread::sleep(shape.think);
                }
            });
        }
    });
}
