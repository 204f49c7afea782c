//! The workload: clients work on keys of four kinds through Basalt's remote client (see
//! [`CellOp`]): registers (read, write, check-and-put), lists (Append, read whole), counters
//! (Increment, read) and two-column rows (RowMutations, read), each operation recorded with
//! when it was called and when it returned. A read that fails changed nothing and is left out;
//! anything else that fails may or may not have been applied (its answer was lost, or a retry
//! gave up), so its outcome is unknown, as Jepsen's `:info`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_client::remote::RemoteConnection;
use basalt_client::{
    Append, BatchOp, BatchOutcome, Bytes, CheckAction, CheckAndMutate, CompareOperator, Condition,
    DataClient, Durability, Get, Increment, Put, RowMutations, RowOp, RowResult, TableName,
};

use crate::linearizability::Operation;
use crate::models::{CellOp, CellOperation, CellOut};

/// The family of every key's cells; registers, lists and counters are column `v`, a row's two
/// columns are `a` and `b`.
const FAMILY: &str = "f";
const QUALIFIER: &str = "v";

/// The row of `key`.
pub fn row(key: usize) -> Bytes {
    Bytes::from(name(key))
}

/// How a history names `key`.
pub fn name(key: usize) -> String {
    format!("k{key:03}")
}

/// What a key holds: keys take the four kinds in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Register,
    List,
    Counter,
    Row,
}

pub fn kind(key: usize) -> Kind {
    match key % 4 {
        0 => Kind::Register,
        1 => Kind::List,
        2 => Kind::Counter,
        _ => Kind::Row,
    }
}

/// The operation that reads `key` whole.
pub fn read_of(key: usize) -> CellOp {
    match kind(key) {
        Kind::Register => CellOp::Read,
        Kind::List => CellOp::ReadList,
        Kind::Counter => CellOp::ReadCounter,
        Kind::Row => CellOp::ReadRow,
    }
}

/// Operations as they happen, timed from one instant.
#[derive(Debug)]
pub struct Recorder {
    start: Instant,
    ops: Mutex<Vec<CellOperation>>,
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

    pub fn record(&self, op: CellOperation) {
        self.ops
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(op);
    }

    pub fn history(&self) -> Vec<CellOperation> {
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

fn int(value: Option<&[u8]>) -> Option<i64> {
    value
        .and_then(|v| <[u8; 8]>::try_from(v).ok())
        .map(i64::from_be_bytes)
}

/// A list cell (`,1,2,3`) as numbers; a part that is not one shows as `i64::MIN`, which no
/// model state holds.
fn list(value: Option<&[u8]>) -> Vec<i64> {
    String::from_utf8_lossy(value.unwrap_or_default())
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| p.parse().unwrap_or(i64::MIN))
        .collect()
}

fn column(result: &RowResult, qualifier: &str) -> Option<i64> {
    int(result.value(FAMILY.as_bytes(), qualifier.as_bytes()))
}

/// A campaign client: Basalt's remote client, or hbase-driver.
#[derive(Debug)]
pub enum Actor {
    Basalt(Box<RemoteConnection>),
    Driver(crate::driver::DriverClient),
}

impl Actor {
    fn send(&mut self, table: &TableName, key: usize, op: &CellOp) -> Result<CellOut, String> {
        match self {
            Actor::Basalt(conn) => send(conn, table, key, op),
            Actor::Driver(driver) => driver.send(&name(key), op),
        }
    }
}

/// Sends `op` on `key` through `conn`: what it returned.
fn send(
    conn: &RemoteConnection,
    table: &TableName,
    key: usize,
    op: &CellOp,
) -> Result<CellOut, String> {
    let row = row(key);
    let value = |v: i64| v.to_be_bytes().to_vec();
    let get = || {
        conn.get(table, &Get::new(row.clone()))
            .map_err(|e| e.to_string())
    };
    match op {
        CellOp::Read => get().map(|r| CellOut::Read(column(&r, QUALIFIER))),
        CellOp::ReadList => get()
            .map(|r| CellOut::List(list(r.value(b"f", b"v"))))
            .map_err(|e| e.to_string()),
        CellOp::ReadCounter => get().map(|r| CellOut::Counter(column(&r, QUALIFIER).unwrap_or(0))),
        CellOp::ReadRow => get().map(|r| CellOut::Row(column(&r, "a"), column(&r, "b"))),
        // Every other write asks for its WAL edit synced to disk (HBase's FSYNC_WAL), so a
        // disk that stalls or fails is felt at once.
        CellOp::Write(v) => conn
            .put(
                table,
                &Put::new(row.clone())
                    .add_column(FAMILY, QUALIFIER, value(*v))
                    .with_durability(if v % 2 == 0 {
                        Durability::FsyncWal
                    } else {
                        Durability::UseDefault
                    }),
            )
            .map(|()| CellOut::Written)
            .map_err(|e| e.to_string()),
        CellOp::Cas { from, to } => conn
            .check_and_mutate(
                table,
                &CheckAndMutate::new(
                    row.clone(),
                    Condition::matches(FAMILY, QUALIFIER, CompareOperator::Equal, value(*from)),
                    CheckAction::Put(Put::new(row.clone()).add_column(
                        FAMILY,
                        QUALIFIER,
                        value(*to),
                    )),
                ),
            )
            .map(|r| CellOut::Cas(r.success))
            .map_err(|e| e.to_string()),
        CellOp::Append(v) => conn
            .append(
                table,
                &Append::new(row.clone()).add_column(
                    FAMILY,
                    QUALIFIER,
                    Bytes::from(format!(",{v}")),
                ),
            )
            .map(|r| CellOut::List(list(r.value(b"f", b"v"))))
            .map_err(|e| e.to_string()),
        // Every other one through a batch: its Multi call, and the retry on its own when the
        // Multi fails, must carry the same nonce.
        CellOp::Increment(d) => {
            let inc = Increment::new(row.clone()).add_column(FAMILY, QUALIFIER, *d);
            let one = if d % 2 == 0 {
                conn.increment(table, &inc)
            } else {
                match conn.batch(table, &[BatchOp::Increment(inc)]).pop() {
                    Some(Ok(BatchOutcome::Row(r))) => Ok(r),
                    Some(Err(e)) => Err(e),
                    other => {
                        return Err(format!("a batch of one increment answered {other:?}"));
                    }
                }
            };
            one.map(|r| CellOut::Counter(column(&r, QUALIFIER).unwrap_or(i64::MIN)))
                .map_err(|e| e.to_string())
        }
        CellOp::MutateRow(v) => {
            let both = RowMutations {
                row: row.clone(),
                mutations: vec![
                    RowOp::Put(Put::new(row.clone()).add_column(FAMILY, "a", value(*v))),
                    RowOp::Put(Put::new(row.clone()).add_column(FAMILY, "b", value(-*v))),
                ],
            };
            match conn.batch(table, &[BatchOp::RowMutations(both)]).pop() {
                Some(Ok(_)) => Ok(CellOut::Written),
                Some(Err(e)) => Err(e.to_string()),
                None => Err("a batch of one RowMutations answered nothing".to_owned()),
            }
        }
    }
}

/// One operation on `key` of `table`, as client `client` makes it; recorded. What it
/// returned, when it succeeded.
pub fn apply(
    actor: &mut Actor,
    table: &TableName,
    recorder: &Recorder,
    client: u64,
    key: usize,
    op: CellOp,
) -> Option<CellOut> {
    let call = recorder.now();
    let out = actor.send(table, key, &op);
    let read = matches!(
        op,
        CellOp::Read | CellOp::ReadList | CellOp::ReadCounter | CellOp::ReadRow
    );
    let input = (name(key), op);
    match out {
        Ok(output) => {
            recorder.record(Operation {
                client,
                input,
                call,
                ret: recorder.now(),
                output: output.clone(),
            });
            Some(output)
        }
        // A failed read is left out: it changed nothing.
        Err(_) if read => None,
        Err(_) => {
            recorder.record(Operation::unknown(client, input, call, CellOut::Unknown));
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

/// The next operation a client makes on `key`: half of them reads; a write, append or row
/// mutation writes `fresh`, a value no one else writes; a check-and-put swaps the value the
/// client last saw for `fresh`.
fn choose(rng: &mut Rng, key: usize, fresh: i64, seen: Option<i64>) -> CellOp {
    let dice = rng.below(10);
    if dice < 5 {
        return read_of(key);
    }
    match kind(key) {
        Kind::Register if dice < 8 => CellOp::Write(fresh),
        Kind::Register => CellOp::Cas {
            from: seen.unwrap_or(0),
            to: fresh,
        },
        Kind::List => CellOp::Append(fresh),
        Kind::Counter => CellOp::Increment(1 + i64::try_from(rng.below(7)).unwrap_or(0)),
        Kind::Row => CellOp::MutateRow(fresh),
    }
}

/// Runs `shape.clients` clients until `stop`, each made by `connect(client)` on the client's
/// own thread (so it can first move the thread onto a host of its own); a client that cannot
/// be made yet tries again after a second. A driver client only reads and appends.
pub fn run(
    connect: &(dyn Fn(usize) -> std::io::Result<Actor> + Sync),
    table: &TableName,
    recorder: &Arc<Recorder>,
    shape: &Shape,
    stop: &Arc<AtomicBool>,
) {
    std::thread::scope(|s| {
        for client in 0..shape.clients {
            let (recorder, stop) = (Arc::clone(recorder), Arc::clone(stop));
            let table = table.clone();
            let shape = shape.clone();
            s.spawn(move || {
                let mut actor = loop {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    match connect(client) {
                        Ok(actor) => break actor,
                        Err(e) => {
                            eprintln!("chaos: client {client} cannot connect yet: {e}");
                            std::thread::sleep(Duration::from_secs(1));
                        }
                    }
                };
                let mut rng = Rng::new(shape.seed ^ ((client as u64 + 1) << 32));
                let mut seq = 0i64;
                let mut seen: Vec<Option<i64>> = vec![None; shape.keys];
                while !stop.load(Ordering::Relaxed) {
                    let key = usize::try_from(rng.below(shape.keys as u64)).unwrap_or(0);
                    seq += 1;
                    let fresh = (client as i64 + 1) * 1_000_000_000 + seq;
                    let op = choose(&mut rng, key, fresh, seen[key]);
                    // hbase-driver does not retry: a write of any kind that meets a fault
                    // comes back unknown, by the hundred in a campaign, and every subset of
                    // unknown writes before a known one is a search state of its own. It reads
                    // every kind of key, and appends (an unknown append no list shows is taken
                    // out before the check).
                    let op = match op {
                        CellOp::Append(_) => op,
                        _ if matches!(actor, Actor::Driver(_)) => read_of(key),
                        op => op,
                    };
                    if let CellOp::Write(v) = op {
                        seen[key] = Some(v);
                    }
                    if let Some(CellOut::Read(v)) =
                        apply(&mut actor, &table, &recorder, client as u64, key, op)
                    {
                        seen[key] = v;
                    }
                    std::thread::sleep(shape.think);
                }
            });
        }
    });
}
