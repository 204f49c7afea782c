//! `basalt pe --rpc HOST:PORT` (one server) or `--zookeeper HOST:PORT` (a cluster): the same
//! benchmarks over HBase's native RPC, through `basalt_embedded::remote` (region cache from
//! `hbase:meta`, retries; through ZooKeeper, each region's own server): one connection per
//! client thread, or one all threads share (`--one-con`), each over `--ipc-pool-size` sockets
//! per server.

use basalt_embedded::prelude::*;
use std::cell::RefCell;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{Context, Result};
use basalt_embedded::remote::{RemoteConfig, RemoteConnection, RemoteTable};
use basalt_embedded::{
    BatchOp, Bytes, Durability, Get, Increment, Scan, TableDescriptor, TableName,
};

use super::{Args, Backend, Buffered, RowSpec, put_of, table_name};

/// Where the benchmark's server or cluster is.
#[derive(Debug, Clone)]
pub enum Target {
    Server(SocketAddr),
    Zookeeper(String),
}

impl Target {
    pub fn connect(&self, config: RemoteConfig) -> basalt_embedded::Result<RemoteConnection> {
        match self {
            Target::Server(addr) => RemoteConnection::connect(*addr, config),
            Target::Zookeeper(quorum) => RemoteConnection::through_zookeeper(quorum, config),
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Server(addr) => write!(f, "{addr}"),
            Target::Zookeeper(quorum) => write!(f, "the cluster at ZooKeeper {quorum}"),
        }
    }
}

pub struct Native {
    target: Target,
    /// With `--one-con`, the connection every thread uses.
    shared: Option<Arc<RemoteConnection>>,
    config: RemoteConfig,
    table: String,
    durability: Durability,
}

thread_local! {
    static CONNECTION: RefCell<Option<RemoteConnection>> = const { RefCell::new(None) };
}

impl Native {
    /// Connects and creates the benchmark table (pre-split as asked) if it is missing.
    pub fn open(
        args: &Args,
        target: Target,
        descriptor: TableDescriptor,
        splits: &[Bytes],
    ) -> Result<Native> {
        let durability = args.durability()?;
        let config = RemoteConfig {
            pool_size: usize::from(args.ipc_pool_size),
            tls: args.tls.client()?,
            kerberos: args.kerberos_principal.clone(),
            ..RemoteConfig::default()
        };
        let conn = target
            .connect(config.clone())
            .with_context(|| format!("connecting to {target}"))?;
        let admin = conn.admin();
        let name = descriptor.name.clone();
        if !admin.table_exists(&name)? {
            admin
                .create_table(descriptor, splits)
                .context("creating the benchmark table over RPC")?;
        }
        Ok(Native {
            shared: args.one_con.then(|| Arc::new(conn)),
            target,
            config,
            table: table_name(args),
            durability,
        })
    }

    /// Runs `f` on this thread's connection to the benchmark table.
    fn with<T>(&self, f: impl FnOnce(&RemoteTable<'_>) -> basalt_embedded::Result<T>) -> Result<T> {
        if let Some(conn) = &self.shared {
            return Ok(f(&conn.table(&self.table)?)?);
        }
        CONNECTION.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.is_none() {
                *slot = Some(self.target.connect(self.config.clone())?);
            }
            let Some(conn) = slot.as_ref() else {
                unreachable!("the slot was filled above")
            };
            Ok(f(&conn.table(&self.table)?)?)
        })
    }
}

impl Backend for Native {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        let puts = rows.iter().map(|r| put_of(r, self.durability));
        self.with(|t| {
            if rows.len() == 1 {
                return puts.into_iter().try_for_each(|put| t.put(&put));
            }
            // A batch goes out as Multi calls, one per region server, as HBase's
            // `Table.put(List<Put>)`.
            let ops: Vec<BatchOp> = puts.map(BatchOp::Put).collect();
            t.batch(&ops).into_iter().try_for_each(|r| r.map(drop))
        })
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        self.with(|t| Ok(t.get(&Get::new(Bytes::copy_from_slice(row)))?.cells.len()))
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        self.with(|t| {
            let scan = Scan::new()
                .with_start_row(Bytes::copy_from_slice(start))
                .with_limit(rows)
                .with_caching(rows);
            Ok(t.scan(&scan)?.len())
        })
    }

    /// Over the shared connection with `--one-con`; otherwise over a connection of the
    /// mutator's own (a thread's other calls keep theirs).
    fn buffered(&self) -> Result<Buffered> {
        let conn: Arc<dyn basalt_embedded::Client> = match &self.shared {
            Some(conn) => conn.clone(),
            None => Arc::new(self.target.connect(self.config.clone())?),
        };
        Buffered::new(conn, TableName::parse(&self.table)?, self.durability)
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<i64> {
        self.with(|t| {
            let r = t.increment(&Increment::new(Bytes::copy_from_slice(row)).add_column(
                Bytes::copy_from_slice(family),
                Bytes::copy_from_slice(qualifier),
                1,
            ))?;
            let v = r.value(family, qualifier).unwrap_or_default();
            Ok(i64::from_be_bytes(v.try_into().unwrap_or([0; 8])))
        })
    }
}

/// Opens `count` connections to `addr` and leaves them idle past their connection header
/// (`basalt pe --idle-connections`); they close when dropped.
pub fn hold_idle(addr: std::net::SocketAddr, count: usize) -> Result<Vec<std::net::TcpStream>> {
    use std::io::Write as _;
    let start = basalt_rpc::frame::encode_connection_start(&basalt_rpc::pb::ConnectionHeader {
        user_info: Some(basalt_rpc::pb::UserInformation {
            effective_user: Some("idle".into()),
            real_user: None,
        }),
        service_name: Some("ClientService".into()),
        ..Default::default()
    });
    let held = (0..count)
        .map(|i| {
            let mut s = std::net::TcpStream::connect(addr)
                .with_context(|| format!("opening idle connection {} of {count}", i + 1))?;
            s.write_all(&start)?;
            Ok(s)
        })
        .collect::<Result<Vec<_>>>()?;
    // The server reads each one's header and parks it; the benchmark measures what follows.
    std::thread::sleep(std::time::Duration::from_secs(2));
    eprintln!("holding {count} idle connections to {addr}");
    Ok(held)
}
