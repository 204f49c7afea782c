//! The client on tokio: [`AsyncConnection`], its tables, administration and scans. The same
//! routing, retries and conversions as the blocking [`RemoteConnection`] (they are written
//! once, see `transport`), over [`super::aio::AsyncRpcClient`]: any number of requests in flight
//! on one connection per server, from any number of tasks.
//!
//! ```no_run
//! # async fn example() -> basalt_client::Result<()> {
//! use basalt_client::remote::{AsyncConnection, RemoteConfig};
//! use basalt_client::{Bytes, Get, Put, Scan};
//!
//! let conn = AsyncConnection::connect("127.0.0.1:16020".parse().unwrap(), RemoteConfig::default()).await?;
//! let table = conn.table("users")?;
//! table.put(&Put::new(Bytes::from("u1")).add_column("info", "name", "Ada")).await?;
//! let row = table.get(&Get::new(Bytes::from("u1"))).await?;
//! assert_eq!(row.value(b"info", b"name"), Some(&b"Ada"[..]));
//! let mut rows = table.scanner(&Scan::new()).await?;
//! while let Some(row) = rows.next_row().await {
//!     println!("{:?}", row?.row);
//! }
//! # Ok(())
//! # }
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;

use super::admin::AdminCalls;
use super::scanner::{ScanState, close_request};
use super::table::TableCalls;
use super::transport::Tokio;
use super::*;
use basalt_ops::prelude::AsyncTableAdmin;

/// A connection to a cluster (or one server) on tokio; see the module documentation. Clones
/// share one connection (its sockets and region cache), so a clone can move into each task.
/// Needs a runtime with its IO and time drivers (`enable_all`).
#[derive(Debug, Clone)]
pub struct AsyncConnection {
    core: Arc<Core<Tokio>>,
}

impl AsyncConnection {
    /// Connects to a server's RPC port (`basalt standalone --rpc-port`).
    pub async fn connect(addr: SocketAddr, config: RemoteConfig) -> Result<AsyncConnection> {
        Ok(AsyncConnection {
            core: Arc::new(Core::start(addr, None, config).await?),
        })
    }

    /// Finds the cluster through ZooKeeper (`host:port` of the quorum), as HBase's clients
    /// do; see [`RemoteConnection::through_zookeeper`].
    pub async fn through_zookeeper(quorum: &str, config: RemoteConfig) -> Result<AsyncConnection> {
        Ok(AsyncConnection {
            core: Arc::new(Core::through_zookeeper(quorum, config).await?),
        })
    }

    /// A table of the cluster (`ns:table` or `table`). Nothing is asked of the server until
    /// the first call; a table that does not exist fails then.
    pub fn table(&self, name: &str) -> Result<AsyncTable> {
        Ok(AsyncTable {
            core: Arc::clone(&self.core),
            name: TableName::parse(name)?,
        })
    }

    /// A table by its logical row keys, whatever key layout it declares (`SALT`,
    /// `TIME_BUCKETS`, `HASH_PREFIX`, `REVERSE`; read now from its descriptor, once): see
    /// [`super::AsyncLaidTable`]. A plain table's calls pass through untouched.
    ///
    /// ```no_run
    /// # async fn example(conn: basalt_client::remote::AsyncConnection) -> basalt_client::Result<()> {
    /// use basalt_client::{Put, Scan};
    /// // A table created with KEY_LAYOUT => 'SALT BUCKETS=16': rows by their own keys.
    /// let events = conn.logical_table("events").await?;
    /// events.put(&Put::new("2026-11-27T17:00:00Z#42").add_column("e", "kind", "click")).await?;
    /// let mut rows = events.scanner(&Scan::new().with_start_row("2026-11-27")).await?;
    /// while let Some(row) = rows.next_row().await {
    ///     println!("{:?}", row?.row); // in logical order, merged over the 16 buckets
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn logical_table(&self, name: &str) -> Result<super::AsyncLaidTable> {
        let table = self.table(name)?;
        let described = self.admin().describe_table(table.name()).await?;
        let layout = basalt_common::key_layout::KeyLayout::of(&described.metadata)?;
        Ok(super::AsyncLaidTable { table, layout })
    }

    /// Table, namespace, region and cluster administration.
    ///
    /// ```no_run
    /// # async fn example(conn: basalt_client::remote::AsyncConnection) -> basalt_client::Result<()> {
    /// use basalt_client::prelude::*;
    /// use basalt_client::{ColumnFamilyDescriptor, TableDescriptor};
    /// let admin = conn.admin();
    /// let t = TableDescriptor::named("users")?.with_family(ColumnFamilyDescriptor::new("info"));
    /// if !admin.table_exists(&t.name).await? {
    ///     admin.create_table(t, &[]).await?;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn admin(&self) -> AsyncAdmin {
        AsyncAdmin {
            core: Arc::clone(&self.core),
        }
    }

    /// The pool's connections to `hbase:meta`'s server now open.
    pub fn open_connections(&self) -> usize {
        self.core.open_connections()
    }
}

/// One table of an [`AsyncConnection`]: cheap to clone, `'static`, so it moves into tasks.
#[derive(Debug, Clone)]
pub struct AsyncTable {
    core: Arc<Core<Tokio>>,
    name: TableName,
}

impl AsyncTable {
    /// The table's name.
    pub fn name(&self) -> &TableName {
        &self.name
    }

    pub(super) fn calls(&self) -> TableCalls<'_, Tokio> {
        TableCalls {
            conn: &self.core,
            name: &self.name,
        }
    }

    /// Opens a scan with its first call (so a scan the server refuses fails here): its rows
    /// as a [`Stream`], fetched `caching` rows a call as they are read.
    ///
    /// ```no_run
    /// # async fn example(t: basalt_client::remote::AsyncTable) -> basalt_client::Result<()> {
    /// use basalt_client::Scan;
    /// let scan = Scan::new().with_start_row("a").with_stop_row("b").with_caching(500);
    /// let mut rows = t.scanner(&scan).await?;
    /// let mut n = 0;
    /// while let Some(row) = rows.next_row().await {
    ///     row?;
    ///     n += 1;
    /// }
    /// println!("{n} rows");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn scanner(&self, scan: &Scan) -> Result<AsyncScanner> {
        let state = ScanState::open(&self.core, self.name.clone(), scan.clone()).await?;
        Ok(AsyncScanner {
            core: Arc::clone(&self.core),
            state: Some(state),
            next: None,
        })
    }

    /// Every row of the scan, region after region.
    pub async fn scan(&self, scan: &Scan) -> Result<Vec<RowResult>> {
        let mut scanner = self.scanner(scan).await?;
        let mut rows = Vec::new();
        while let Some(row) = scanner.next_row().await {
            rows.push(row?);
        }
        Ok(rows)
    }
}

/// Administration over an [`AsyncConnection`]; the blocking [`RemoteAdmin`]'s calls, async.
#[derive(Debug, Clone)]
pub struct AsyncAdmin {
    core: Arc<Core<Tokio>>,
}

impl AsyncAdmin {
    pub(super) fn calls(&self) -> AdminCalls<'_, Tokio> {
        AdminCalls { conn: &self.core }
    }
}

impl basalt_ops::AsyncCaller for AsyncConnection {
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> impl Future<Output = Result<MasterResponse>> + Send {
        self.core.master_operation(on, request)
    }

    fn changed(&self, what: Changed<'_>) {
        self.core.changed(what);
    }
}

impl basalt_ops::AsyncCaller for AsyncAdmin {
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> impl Future<Output = Result<MasterResponse>> + Send {
        self.core.master_operation(on, request)
    }

    fn changed(&self, what: Changed<'_>) {
        self.core.changed(what);
    }
}

type NextRow = Pin<Box<dyn Future<Output = (ScanState, Option<Result<RowResult>>)> + Send>>;

/// The rows of one scan, as a [`Stream`] (or through [`AsyncScanner::next_row`]). Dropping it
/// before the end closes the server's scanner from a task of the runtime.
pub struct AsyncScanner {
    core: Arc<Core<Tokio>>,
    /// None while a fetch holds it.
    state: Option<ScanState>,
    next: Option<NextRow>,
}

impl std::fmt::Debug for AsyncScanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncScanner")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl AsyncScanner {
    /// The next row (a part of one, with `allow_partial_results`), None at the end.
    pub async fn next_row(&mut self) -> Option<Result<RowResult>> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for AsyncScanner {
    type Item = Result<RowResult>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        if this.next.is_none() {
            let Some(mut state) = this.state.take() else {
                return Poll::Ready(None);
            };
            let core = Arc::clone(&this.core);
            this.next = Some(Box::pin(async move {
                let row = state.next(&core).await;
                (state, row)
            }));
        }
        let Some(next) = this.next.as_mut() else {
            return Poll::Ready(None);
        };
        match next.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready((state, row)) => {
                this.next = None;
                this.state = Some(state);
                Poll::Ready(row)
            }
        }
    }
}

impl Drop for AsyncScanner {
    fn drop(&mut self) {
        // A fetch in flight is dropped with its state; the server's lease then ends it.
        let Some((id, location)) = self.state.as_mut().and_then(ScanState::take_open) else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let core = Arc::clone(&self.core);
        runtime.spawn(async move {
            let _: std::result::Result<ScanResponse, RpcError> = core
                .call(core.server_of(&location), "Scan", &close_request(id))
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TableDescriptor;
    use basalt_ops::prelude::AsyncSnapshotAdmin;

    fn send<T: Send>(_: &T) {}

    /// Every call's future can move to another thread (`tokio::spawn` needs it); a blocking
    /// lock held across an await would make this fail to compile.
    #[allow(dead_code)]
    fn futures_are_send(
        conn: AsyncConnection,
        table: AsyncTable,
        admin: AsyncAdmin,
        cam: CheckAndMutate,
        scanner: AsyncScanner,
        laid: super::super::AsyncLaidTable,
        mut laid_scanner: super::super::AsyncLaidScanner,
    ) {
        let config = RemoteConfig::default();
        send(&AsyncConnection::connect(
            "127.0.0.1:1".parse().unwrap(),
            config.clone(),
        ));
        send(&AsyncConnection::through_zookeeper("127.0.0.1:1", config));
        let row = Bytes::from("r");
        send(&table.get(&Get::new(row.clone())));
        send(&table.exists(&Get::new(row.clone())));
        send(&table.put(&Put::new(row.clone())));
        send(&table.delete(&Delete::new(row.clone())));
        send(&table.increment(&Increment::new(row.clone())));
        send(&table.append(&Append::new(row.clone())));
        send(&table.mutate_row(&RowMutations::new(row.clone())));
        send(&table.batch(&[]));
        send(&table.bulk_load(b"r", &[]));
        send(&table.scanner(&Scan::new()));
        send(&table.scan(&Scan::new()));
        send(&table.check_and_mutate(&cam));
        send(&admin.split(&table.name, None));
        send(&admin.compact_region(b"t,,1", true));
        send(&admin.create_table(TableDescriptor::new(table.name.clone()), &[]));
        send(&admin.cluster_summary());
        send(&admin.server_name());
        send(&admin.regions(&table.name));
        send(&admin.restore_snapshot("s"));
        send(&scanner);
        send(&conn.logical_table("t"));
        send(&laid.get(&Get::new(Bytes::from("r"))));
        send(&laid.batch(&[]));
        send(&laid.scanner(&Scan::new()));
        send(&laid.scan(&Scan::new()));
        send(&laid_scanner.next_row());
    }
}
