//! `basalt pe --thrift HOST:PORT`: the same benchmarks through a running server's Thrift1
//! gateway, one connection per client thread (taken from a pool, so each thread keeps one).

use std::cell::RefCell;
use std::net::SocketAddr;

use anyhow::{Context, Result, bail};
use basalt_thrift::ThriftClient;

use super::{Args, Backend, RowSpec, family_name, table_name};

pub struct Remote {
    addr: SocketAddr,
    framed: bool,
    compact: bool,
    table: Vec<u8>,
    wal: bool,
}

thread_local! {
    /// Each client thread's connection (pe runs one Remote per process).
    static CLIENT: RefCell<Option<ThriftClient>> = const { RefCell::new(None) };
}

impl Remote {
    /// Connects, and creates the benchmark table if the server lacks it.
    pub fn open(args: &Args, addr: SocketAddr, families: &[Vec<u8>]) -> Result<Remote> {
        if args.presplit > 1 {
            bail!(
                "--presplit needs the embedded engine: Thrift1's createTable takes no split keys"
            );
        }
        let wal = match args.durability.to_ascii_uppercase().as_str() {
            "SKIP_WAL" => false,
            "SYNC_WAL" | "USE_DEFAULT" => true,
            other => bail!(
                "--durability {other}: over Thrift1 only SYNC_WAL and SKIP_WAL exist (writeToWAL)"
            ),
        };
        let remote = Remote {
            addr,
            framed: args.thrift_framed,
            compact: args.thrift_compact,
            table: table_name(args).into_bytes(),
            wal,
        };
        let exists = remote.with(|c| c.table_names())?.contains(&remote.table);
        if !exists {
            let specs: Vec<(&[u8], i32, &str)> = families
                .iter()
                .map(|f| (&f[..], 1, args.compression.as_str()))
                .collect();
            remote
                .with(|c| c.create_table(&remote.table, &specs))
                .context("creating the benchmark table over Thrift")?;
        }
        Ok(remote)
    }

    /// Runs `f` on this thread's connection (made on first use); a connection that failed is
    /// dropped, and the next call connects again.
    fn with<T>(
        &self,
        f: impl FnOnce(&mut ThriftClient) -> Result<T, basalt_thrift::ClientError>,
    ) -> Result<T> {
        CLIENT.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.is_none() {
                let c = ThriftClient::connect(self.addr, self.framed, self.compact)
                    .with_context(|| format!("connecting to {}", self.addr))?;
                *slot = Some(c);
            }
            let Some(c) = slot.as_mut() else {
                bail!("no connection");
            };
            match f(c) {
                Ok(v) => Ok(v),
                Err(e) => {
                    *slot = None;
                    Err(e.into())
                }
            }
        })
    }
}

impl Backend for Remote {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        self.with(|c| c.put_rows(&self.table, rows, self.wal))
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        self.with(|c| c.get_row(&self.table, row))
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        self.with(|c| c.scan(&self.table, start, rows))
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<i64> {
        let mut column = family.to_vec();
        column.push(b':');
        column.extend_from_slice(qualifier);
        self.with(|c| c.increment(&self.table, row, &column, 1))
    }
}

/// The families the benchmark table has.
pub fn families(args: &Args) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = (0..args.families)
        .map(|f| family_name(f).to_vec())
        .collect();
    if super::is_ycsb(args) {
        out.insert(0, super::ycsb::FAMILY.to_vec());
    }
    out
}
