//! The sides the remote suites run on: the table operations the embedded, blocking remote and
//! async remote tables offer alike (`Ops`), the async client driven from a test's thread
//! (`Async`), and a row as the transcripts show it.
#![allow(dead_code, reason = "each test binary uses some of these")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_embedded::remote::{AsyncConnection, AsyncTable, RemoteConfig, RemoteTable};
use basalt_embedded::{
    Append, BatchOp, BatchOutcome, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment,
    Put, Result, RowMutations, RowResult, Scan, Table,
};

/// The table operations both modes offer, as the suite uses them.
pub trait Ops {
    fn put(&self, p: &Put) -> Result<()>;
    fn delete(&self, d: &Delete) -> Result<()>;
    fn get(&self, g: &Get) -> Result<RowResult>;
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>>;
    fn increment(&self, i: &Increment) -> Result<RowResult>;
    fn append(&self, a: &Append) -> Result<RowResult>;
    fn mutate_row(&self, m: &RowMutations) -> Result<Vec<RowResult>>;
    fn check_and_mutate(&self, c: &CheckAndMutate) -> Result<CheckAndMutateResult>;
    fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>>;
}

/// The table calls whose embedded and remote forms have the same names and signatures.
macro_rules! same_table_calls {
    ($t:ty) => {
        fn put(&self, p: &Put) -> Result<()> {
            <$t>::put(self, p)
        }
        fn delete(&self, d: &Delete) -> Result<()> {
            <$t>::delete(self, d)
        }
        fn get(&self, g: &Get) -> Result<RowResult> {
            <$t>::get(self, g)
        }
        fn increment(&self, i: &Increment) -> Result<RowResult> {
            <$t>::increment(self, i)
        }
        fn append(&self, a: &Append) -> Result<RowResult> {
            <$t>::append(self, a)
        }
        fn mutate_row(&self, m: &RowMutations) -> Result<Vec<RowResult>> {
            <$t>::mutate_row(self, m)
        }
        fn check_and_mutate(&self, c: &CheckAndMutate) -> Result<CheckAndMutateResult> {
            <$t>::check_and_mutate(self, c)
        }
        fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
            <$t>::batch(self, ops)
        }
    };
}

impl Ops for Table {
    same_table_calls!(Table);
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>> {
        Table::scan(self, s)?.collect()
    }
}

impl Ops for RemoteTable<'_> {
    same_table_calls!(RemoteTable<'_>);
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>> {
        RemoteTable::scan(self, s)
    }
}

/// The async client, each call run to its end on a runtime of the test's own.
pub struct Async {
    pub runtime: std::rc::Rc<tokio::runtime::Runtime>,
    pub conn: AsyncConnection,
}

impl Async {
    pub fn connect(addr: std::net::SocketAddr, config: RemoteConfig) -> Result<Async> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let conn = runtime.block_on(AsyncConnection::connect(addr, config))?;
        Ok(Async {
            runtime: std::rc::Rc::new(runtime),
            conn,
        })
    }

    pub fn on(&self, table: &str) -> AsyncOps {
        AsyncOps {
            runtime: self.runtime.clone(),
            table: self.conn.table(table).unwrap(),
        }
    }
}

pub struct AsyncOps {
    runtime: std::rc::Rc<tokio::runtime::Runtime>,
    table: AsyncTable,
}

impl Ops for AsyncOps {
    fn put(&self, p: &Put) -> Result<()> {
        self.runtime.block_on(self.table.put(p))
    }
    fn delete(&self, d: &Delete) -> Result<()> {
        self.runtime.block_on(self.table.delete(d))
    }
    fn get(&self, g: &Get) -> Result<RowResult> {
        self.runtime.block_on(self.table.get(g))
    }
    fn scan(&self, s: &Scan) -> Result<Vec<RowResult>> {
        self.runtime.block_on(self.table.scan(s))
    }
    fn increment(&self, i: &Increment) -> Result<RowResult> {
        self.runtime.block_on(self.table.increment(i))
    }
    fn append(&self, a: &Append) -> Result<RowResult> {
        self.runtime.block_on(self.table.append(a))
    }
    fn mutate_row(&self, m: &RowMutations) -> Result<Vec<RowResult>> {
        self.runtime.block_on(self.table.mutate_row(m))
    }
    fn check_and_mutate(&self, c: &CheckAndMutate) -> Result<CheckAndMutateResult> {
        self.runtime.block_on(self.table.check_and_mutate(c))
    }
    fn batch(&self, ops: &[BatchOp]) -> Vec<Result<BatchOutcome>> {
        self.runtime.block_on(self.table.batch(ops))
    }
}

/// A row as `row: family:qualifier@ts=value ...`.
pub fn show(r: &RowResult) -> String {
    let cells: Vec<String> = r
        .cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp,
                String::from_utf8_lossy(c.value())
            )
        })
        .collect();
    format!("{}: {}", String::from_utf8_lossy(&r.row), cells.join(" "))
}

pub fn rows(ops: &dyn Ops, s: &Scan) -> Vec<String> {
    ops.scan(s).unwrap().iter().map(show).collect()
}
