//! The remote backend: a server reached over HBase's native RPC (HBase's `AsyncConnectionImpl`,
//! region locator and retrying callers). [`RemoteConnection`] finds a table's regions in `hbase:meta` and caches them; each
//! [`RemoteTable`] call goes to the region holding its row, and is retried with backoff (the
//! region cache dropped first) when the server answers that the region moved, is not served,
//! or is busy, or when the connection breaks, until the operation timeout. Calls take and
//! return `basalt_client`'s types (Get, Put, Delete, Scan, Increment, Append, RowMutations,
//! CheckAndMutate, RowResult), and it implements [`crate::Client`], so tools and gateways run
//! on it as on an embedded connection. Filters travel in HBase's protobuf form.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::{Duration, Instant};

use basalt_proto::filters::{comparator_pb, compare_type, filter_pb};
use basalt_proto::schema::pb_table_name;
use basalt_proto::{cellblock, region};

use crate::{
    Append, BatchOp, BatchOutcome, Bytes, Check, CheckAction, CheckAndMutate, CheckAndMutateResult,
    Comparator, Delete, Durability, Error, Get, Increment, Put, Result, RowMutations, RowOp,
    RowResult, Scan, TableName, TimeRange,
};

/// The calls of a blocking handle and its async twin, one of each per call, both running the
/// one body `calls()` gives (`RemoteTable` and `AsyncTable`, `RemoteAdmin` and `AsyncAdmin`).
macro_rules! both_faces {
    (
        $Blocking:ty, $Async:ty;
        $($(#[$doc:meta])* fn $name:ident(&self $(, $arg:ident: $ty:ty)*) -> $out:ty;)*
    ) => {
        impl $Blocking {
            $($(#[$doc])* pub fn $name(&self $(, $arg: $ty)*) -> $out {
                block(self.calls().$name($($arg),*))
            })*
        }

        impl $Async {
            $($(#[$doc])* pub async fn $name(&self $(, $arg: $ty)*) -> $out {
                self.calls().$name($($arg),*).await
            })*
        }
    };
}

mod admin;
mod client_impl;
mod convert;

mod asynchronous;
mod laid;
mod scanner;
mod table;
mod transport;

pub use admin::RemoteAdmin;
mod admin_ops;
use basalt_transport as rpc_client;
/// The async connections ([`basalt_transport::aio`]).
pub use basalt_transport::aio;

pub use asynchronous::{AsyncAdmin, AsyncConnection, AsyncScanner, AsyncTable};
use basalt_ops::{Changed, MasterRequest, MasterResponse};
pub use laid::{AsyncLaidScanner, AsyncLaidTable};
use transport::{Blocking, Encoded, Transport, block, join_all};

pub use basalt_transport::{
    DEFAULT_USER, HANDSHAKE, Location, RpcClient, RpcError, TlsClient, locate,
};
pub use scanner::RemoteScanner;
pub use table::RemoteTable;

use convert::*;

use basalt_proto::pb::{
    self, GetRequest, GetResponse, MultiRequest, MultiResponse, MutateRequest, MutateResponse,
    MutationProto, ScanRequest, ScanResponse, mutation_proto,
};

/// Timeouts and backoff of a [`RemoteConnection`].
#[derive(Debug, Clone)]
pub struct RemoteConfig {
    /// How long one operation may take, retries included (HBase's
    /// `hbase.client.operation.timeout`).
    pub operation_timeout: Duration,
    /// How long one call may wait for its answer (HBase's `hbase.rpc.timeout`).
    pub rpc_timeout: Duration,
    /// The first pause between retries, doubled each time up to `max_pause` (HBase's
    /// `hbase.client.pause`).
    pub pause: Duration,
    /// The longest pause between retries.
    pub max_pause: Duration,
    /// Connections to the server that calls share (HBase's `hbase.client.ipc.pool.size`; 1 by
    /// default, as there). Threads are dealt to them in turn, each keeping to its own, as
    /// HBase's `ThreadLocal` pool type does: 16 threads of gets over two connections measured
    /// faster this way than with each call taking the next connection (BENCHMARKS.md).
    pub pool_size: usize,
    /// The user every connection names (HBase's SIMPLE authentication; the server decides
    /// whether to believe it).
    pub user: String,
    /// TLS to every server (HBase's `hbase.client.netty.tls.enabled`): whom to trust, and the
    /// client certificate to show, which names the user to servers that ask for one.
    pub tls: Option<TlsClient>,
    /// Kerberos (HBase's `hbase.security.authentication=kerberos`): the servers' principal
    /// (`hbase/host@REALM`); the user is then the one `kinit` gave a ticket to. Needs the
    /// `kerberos` feature.
    pub kerberos: Option<String>,
}

impl Default for RemoteConfig {
    fn default() -> Self {
        RemoteConfig {
            operation_timeout: Duration::from_secs(60),
            rpc_timeout: Duration::from_secs(60),
            pause: Duration::from_millis(100),
            max_pause: Duration::from_secs(2),
            pool_size: 1,
            user: DEFAULT_USER.to_owned(),
            tls: None,
            kerberos: None,
        }
    }
}

/// A connection to a cluster (or one server), blocking: its region cache, and connections to
/// each region server's ClientService. Threads share it, and their calls share its sockets
/// (see [`RpcClient`]), as HBase's clients do: [`RemoteConfig::pool_size`] connections per
/// server, each thread keeping to one. [`AsyncConnection`] is the same client on tokio.
#[derive(Debug)]
pub struct RemoteConnection {
    core: Core<Blocking>,
}

/// What a connection holds, blocking or async (see `transport`): where meta and the master
/// are, connections to each server, and each table's regions.
#[derive(Debug)]
pub(crate) struct Core<T: Transport> {
    /// The server holding `hbase:meta` (and, connected to one server, everything).
    addr: RwLock<SocketAddr>,
    /// Found through ZooKeeper: regions are served where meta says, and meta and the master
    /// are where ZooKeeper says (looked up again when they move).
    quorum: Option<String>,
    config: RemoteConfig,
    /// Each server's pool of ClientService connections; a slot is None after a broken call
    /// (the next call on it connects again) or before its first call.
    /// (Read on every call; written only when a server is first called.)
    pools: RwLock<HashMap<SocketAddr, Arc<Pool<T>>>>,
    /// MasterService, opened on first use, and each server's AdminService.
    master: Slot<T>,
    admins: Mutex<HashMap<SocketAddr, Arc<Slot<T>>>>,
    regions: Mutex<HashMap<TableName, Arc<Vec<Location>>>>,
}

/// One connection, opened when first used and again after it breaks.
type Slot<T> = Mutex<Option<Arc<<T as Transport>::Conn>>>;
/// A server's ClientService connections.
type Pool<T> = Vec<Slot<T>>;

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a failed call means for the operation.
pub(crate) enum Failure {
    /// Try again after dropping cached locations (a broken socket was dropped already).
    Retry(String),
    /// A server's throttle refused the call: try again after the wait it named.
    Throttled(Duration, String),
    Fatal(Error),
}

/// The wait an RpcThrottlingException names (`... - wait 1sec, 5ms`, `... - wait 20ms`, as
/// HBase writes it); a second if it names none.
fn throttle_wait(message: &str) -> Duration {
    let Some((_, wait)) = message.rsplit_once(" - wait ") else {
        return Duration::from_secs(1);
    };
    let mut total = Duration::ZERO;
    for part in wait.split(',') {
        let part = part.trim();
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        let Ok(n) = digits.parse::<u64>() else {
            continue;
        };
        total += match &part[digits.len()..] {
            "ms" => Duration::from_millis(n),
            "sec" => Duration::from_secs(n),
            "mins" | "min" => Duration::from_secs(n * 60),
            "hrs" | "hr" => Duration::from_secs(n * 3600),
            _ => Duration::ZERO,
        };
    }
    if total.is_zero() {
        Duration::from_millis(1)
    } else {
        total
    }
}

/// HBase's exception classes a client retries after relocating the region.
fn retriable(class: &str) -> bool {
    [
        "NotServingRegionException",
        "RegionMovedException",
        "RegionTooBusyException",
        "RegionOpeningException",
        "ServerNotRunningYetException",
        "CallQueueTooBigException",
    ]
    .iter()
    .any(|c| class.ends_with(c))
}

fn classify(table: &TableName, e: RpcError) -> Failure {
    match e {
        RpcError::Remote { class, message } if class.ends_with("RpcThrottlingException") => {
            Failure::Throttled(throttle_wait(&message), message)
        }
        RpcError::Remote { class, message } if retriable(&class) => {
            Failure::Retry(format!("{class}: {message}"))
        }
        RpcError::Remote { class, message } => {
            Failure::Fatal(Error::from_exception(&class, message, table))
        }
        RpcError::Frame(f) => Failure::Retry(f.to_string()),
        RpcError::Decode(d) => Failure::Fatal(Error::corrupt(format!("a response: {d}"))),
    }
}

/// A failure as the caller sees it, when the call is not retried.
fn settled(table: &TableName, e: RpcError) -> Error {
    match classify(table, e) {
        Failure::Fatal(e) => e,
        Failure::Retry(reason) => Error::NotServingRegion(reason),
        Failure::Throttled(_, reason) => Error::Refused(format!("throttled: {reason}")),
    }
}

/// The retries of one operation: since when it runs, and the next pause.
struct Retry {
    started: Instant,
    pause: Duration,
}

/// Runs the attempt `$body` (an async block's body, `?` giving a [`Failure`]) with the table's
/// regions in `$regions`, until it succeeds, fails for good, or the operation timeout passes;
/// between tries the cache is dropped and the pause doubles (HBase's backoff).
macro_rules! retrying {
    ($conn:expr, $table:expr, |$regions:ident| $body:expr) => {{
        let conn = $conn;
        let table = $table;
        let mut retry = conn.retry();
        loop {
            let attempt: std::result::Result<_, Failure> = async {
                let found = conn.locations(table).await?;
                let $regions: &[Location] = &found;
                $body
            }
            .await;
            match attempt {
                Ok(v) => break Ok(v),
                Err(failure) => {
                    if let Err(e) = conn.again(table, &mut retry, failure).await {
                        break Err(e);
                    }
                }
            }
        }
    }};
}
pub(crate) use retrying;

impl RemoteConnection {
    /// Connects to a server's RPC port (`basalt standalone --rpc-port`).
    pub fn connect(addr: SocketAddr, config: RemoteConfig) -> Result<RemoteConnection> {
        Ok(RemoteConnection {
            core: block(Core::start(addr, None, config))?,
        })
    }

    /// Finds the cluster through ZooKeeper (`host:port` of the quorum), as HBase's clients
    /// do: `/hbase/meta-region-server` names meta's server, `/hbase/master` the master, and
    /// meta says where each region is served.
    pub fn through_zookeeper(quorum: &str, config: RemoteConfig) -> Result<RemoteConnection> {
        Ok(RemoteConnection {
            core: block(Core::through_zookeeper(quorum, config))?,
        })
    }

    /// Connects to the cluster a replication peer's cluster key names (its ZooKeeper, or
    /// the first of its servers that answers).
    pub fn to_cluster_key(key: &str, config: RemoteConfig) -> Result<RemoteConnection> {
        use basalt_common::replication::{ClusterKey, ZNODE_PARENT};
        match ClusterKey::parse(key)? {
            ClusterKey::ZooKeeper { quorum, znode } => {
                if znode != ZNODE_PARENT {
                    return Err(Error::InvalidArgument(format!(
                        "cluster key {key:?}: Basalt finds clusters under {ZNODE_PARENT}, not {znode}"
                    )));
                }
                Self::through_zookeeper(&quorum, config)
            }
            ClusterKey::Rpc { servers } => {
                let mut last =
                    Error::InvalidArgument(format!("cluster key {key:?} names no server"));
                for server in servers {
                    let addrs = std::net::ToSocketAddrs::to_socket_addrs(&server.as_str())
                        .map_err(|e| Error::storage(format!("resolving {server}: {e}")))?;
                    for addr in addrs {
                        match Self::connect(addr, config.clone()) {
                            Ok(c) => return Ok(c),
                            Err(e) => last = e,
                        }
                    }
                }
                Err(last)
            }
        }
    }

    /// The pool's connections now open (at most [`RemoteConfig::pool_size`]; one opens when
    /// a thread dealt to it first calls).
    pub fn open_connections(&self) -> usize {
        self.core.open_connections()
    }

    /// One HbckService call to the active master (HBCK2's calls, and Basalt's hbck report
    /// and repairs; `basalt hbck`).
    pub fn hbck_call<Q: prost::Message, R: prost::Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> Result<R> {
        let meta = TableName::parse("hbase:meta")?;
        block(
            self.core
                .call_master_service("HbckService", method, request),
        )
        .map_err(|e| settled(&meta, e))
    }

    /// Table administration over MasterService (and AdminService for flushes).
    pub fn admin(&self) -> RemoteAdmin<'_> {
        RemoteAdmin { conn: self }
    }

    /// A table of the server (`ns:table` or `table`). Nothing is asked of the server until
    /// the first call; a table that does not exist fails then.
    pub fn table(&self, name: &str) -> Result<RemoteTable<'_>> {
        Ok(RemoteTable {
            conn: self,
            name: TableName::parse(name)?,
        })
    }
}

impl<T: Transport> Core<T> {
    async fn start(addr: SocketAddr, quorum: Option<String>, config: RemoteConfig) -> Result<Self> {
        let client = T::open(addr, "ClientService", &config)
            .await
            .map_err(|e| Error::storage(format!("cannot connect to {addr}: {e}")))?;
        let mut pool: Pool<T> = vec![Mutex::new(Some(Arc::new(client)))];
        pool.resize_with(config.pool_size.max(1), || Mutex::new(None));
        Ok(Core {
            addr: RwLock::new(addr),
            quorum,
            config,
            pools: RwLock::new(HashMap::from([(addr, Arc::new(pool))])),
            master: Mutex::new(None),
            admins: Mutex::new(HashMap::new()),
            regions: Mutex::new(HashMap::new()),
        })
    }

    async fn through_zookeeper(quorum: &str, config: RemoteConfig) -> Result<Self> {
        let addr = T::lookup(quorum, false, config.rpc_timeout)
            .await
            .map_err(|e| Error::storage(format!("finding the server in ZooKeeper: {e}")))?;
        Self::start(addr, Some(quorum.to_owned()), config).await
    }

    fn open_connections(&self) -> usize {
        self.pool(self.meta_addr())
            .iter()
            .filter(|slot| locked(slot).as_ref().is_some_and(|c| !T::is_broken(c)))
            .count()
    }

    /// The server holding `hbase:meta`.
    fn meta_addr(&self) -> SocketAddr {
        *self.addr.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Where the region `loc` is served: where meta says (through ZooKeeper), or the one
    /// server this connection was given.
    fn server_of(&self, loc: &Location) -> SocketAddr {
        match (&self.quorum, loc.server) {
            (Some(_), Some(server)) => server,
            _ => self.meta_addr(),
        }
    }

    /// Where the active master is: ZooKeeper's `/hbase/master`, or the one server given.
    async fn master_addr(&self) -> std::result::Result<SocketAddr, RpcError> {
        let Some(quorum) = &self.quorum else {
            return Ok(self.meta_addr());
        };
        T::lookup(quorum, true, self.config.rpc_timeout)
            .await
            .map_err(RpcError::from)
    }

    /// After a failure: meta and the master may have moved (through ZooKeeper only).
    async fn relocate(&self) {
        let Some(quorum) = &self.quorum else {
            return;
        };
        if let Ok(addr) = T::lookup(quorum, false, self.config.rpc_timeout).await {
            *self.addr.write().unwrap_or_else(PoisonError::into_inner) = addr;
        }
        locked(&self.master).take();
    }

    /// A server's pool of ClientService connections.
    fn pool(&self, server: SocketAddr) -> Arc<Pool<T>> {
        if let Some(pool) = self
            .pools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&server)
        {
            return Arc::clone(pool);
        }
        let size = self.config.pool_size.max(1);
        Arc::clone(
            self.pools
                .write()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(server)
                .or_insert_with(|| Arc::new((0..size).map(|_| Mutex::new(None)).collect())),
        )
    }

    /// A server's AdminService connection.
    fn admin_slot(&self, server: SocketAddr) -> Arc<Slot<T>> {
        Arc::clone(locked(&self.admins).entry(server).or_default())
    }

    /// One ClientService call to `server` on this caller's connection of its pool, opened
    /// (again) if no call made it yet or an earlier call broke it.
    async fn call<Q: prost::Message, R: prost::Message + Default>(
        &self,
        server: SocketAddr,
        method: &str,
        request: &Q,
    ) -> std::result::Result<R, RpcError> {
        self.call_with_cells(server, method, request, &[]).await
    }

    /// A ClientService call to `server` whose mutations' cells follow in `cells`, the parts of
    /// a KeyValueCodec block (a plain call when they are empty).
    async fn call_with_cells<Q: prost::Message, R: prost::Message + Default>(
        &self,
        server: SocketAddr,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> std::result::Result<R, RpcError> {
        let pool = self.pool(server);
        let slot = &pool[T::slot() % pool.len()];
        self.call_on(slot, server, "ClientService", method, request, cells)
            .await
    }

    /// One MasterService call, to the active master.
    async fn call_master<Q: prost::Message, R: prost::Message + Default>(
        &self,
        method: &str,
        request: &Q,
    ) -> std::result::Result<R, RpcError> {
        let addr = self.master_addr().await?;
        let out = self
            .call_on(&self.master, addr, "MasterService", method, request, &[])
            .await;
        let moved = match &out {
            Err(RpcError::Frame(_)) => true,
            Err(RpcError::Remote { class, .. }) => retriable(class),
            _ => false,
        };
        if moved {
            // The next call looks for the master again.
            self.relocate().await;
        }
        out
    }

    /// One MasterService operation: its request as the operation encodes it, its answer as
    /// the operation decodes it; `on` names the table a failure is about.
    async fn master_operation(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> Result<MasterResponse> {
        let method = request.name();
        let answer: std::result::Result<Encoded, RpcError> =
            self.call_master(method, &Encoded(request.encode())).await;
        match answer {
            Ok(bytes) => MasterResponse::decode(method, &bytes.0),
            Err(e) => match on {
                Some(table) => Err(settled(table, e)),
                None => Err(settled(&TableName::parse("hbase:meta")?, e)),
            },
        }
    }

    /// Drops what is cached of what an operation changed.
    fn changed(&self, what: Changed<'_>) {
        match what {
            Changed::Table(table) => self.forget(table),
            Changed::Regions => self.forget_all(),
        }
    }

    /// One call to another service of the active master than MasterService (HbckService),
    /// on a connection of its own: such calls are rare.
    async fn call_master_service<Q: prost::Message, R: prost::Message + Default>(
        &self,
        service: &'static str,
        method: &str,
        request: &Q,
    ) -> std::result::Result<R, RpcError> {
        let addr = self.master_addr().await?;
        let slot: Slot<T> = Mutex::new(None);
        self.call_on(&slot, addr, service, method, request, &[])
            .await
    }

    /// One AdminService call to `server`.
    async fn call_admin<Q: prost::Message, R: prost::Message + Default>(
        &self,
        server: SocketAddr,
        method: &str,
        request: &Q,
    ) -> std::result::Result<R, RpcError> {
        let slot = self.admin_slot(server);
        self.call_on(&slot, server, "AdminService", method, request, &[])
            .await
    }

    /// One call on the connection to `service` at `addr` kept in `slot`, opening it if an
    /// earlier call broke it (or none was made); a call that breaks it drops it, since the
    /// stream may hold half a frame. Other calls run on the same connection meanwhile.
    async fn call_on<Q: prost::Message, R: prost::Message + Default>(
        &self,
        slot: &Slot<T>,
        addr: SocketAddr,
        service: &'static str,
        method: &str,
        request: &Q,
        cells: &[&[u8]],
    ) -> std::result::Result<R, RpcError> {
        let current = locked(slot)
            .as_ref()
            .filter(|c| !T::is_broken(c) && T::peer(c) == addr)
            .cloned();
        let client = match current {
            Some(c) => c,
            None => {
                let opened = Arc::new(T::open(addr, service, &self.config).await?);
                *locked(slot) = Some(Arc::clone(&opened));
                opened
            }
        };
        let out = T::call(&client, method, request, cells).await;
        if matches!(out, Err(RpcError::Frame(_))) {
            let mut slot = locked(slot);
            if slot.as_ref().is_some_and(|c| Arc::ptr_eq(c, &client)) {
                *slot = None;
            }
        }
        out
    }

    /// The table's regions, from the cache or from `hbase:meta`.
    async fn locations(
        &self,
        table: &TableName,
    ) -> std::result::Result<Arc<Vec<Location>>, Failure> {
        if let Some(l) = locked(&self.regions).get(table) {
            return Ok(Arc::clone(l));
        }
        let response: ScanResponse = self
            .call(
                self.meta_addr(),
                "Scan",
                &rpc_client::meta_scan(&table.to_string()),
            )
            .await
            .map_err(|e| classify(table, e))?;
        let found = rpc_client::regions_in(&response).map_err(|e| classify(table, e))?;
        if found.is_empty() {
            // No region serves: the table is missing or disabled (HBase's clients then say
            // TableNotFound / TableNotEnabled), or its regions are moving.
            let state: std::result::Result<pb::GetTableStateResponse, RpcError> = self
                .call_master(
                    "GetTableState",
                    &pb::GetTableStateRequest {
                        table_name: pb_table_name(table),
                    },
                )
                .await;
            return Err(match state {
                Ok(s) if s.table_state.state == pb::table_state::State::Enabled as i32 => {
                    Failure::Retry(format!("no region of {table} is open"))
                }
                Ok(_) => Failure::Fatal(Error::TableNotEnabled(table.clone())),
                Err(e) => classify(table, e),
            });
        }
        let found = Arc::new(found);
        locked(&self.regions).insert(table.clone(), Arc::clone(&found));
        Ok(found)
    }

    /// Drops every table's cached locations (a region moved).
    fn forget_all(&self) {
        locked(&self.regions).clear();
    }

    fn forget(&self, table: &TableName) {
        locked(&self.regions).remove(table);
    }

    fn retry(&self) -> Retry {
        Retry {
            started: Instant::now(),
            pause: self.config.pause,
        }
    }

    /// After a failed attempt of an operation on `table`: the error that ends it (a fatal one,
    /// or the operation timeout passed), or Ok after the pause, the cache dropped, to try again.
    async fn again(&self, table: &TableName, retry: &mut Retry, failure: Failure) -> Result<()> {
        let reason = match failure {
            Failure::Fatal(e) => return Err(e),
            Failure::Throttled(wait, reason) => {
                // The server said how long: no relocation, no doubling (HBase's client backs
                // off by the throttle's wait too).
                if retry.started.elapsed() + wait > self.config.operation_timeout {
                    return Err(Error::Refused(format!(
                        "throttled on {table}, gave up after {:.1?}: {reason}",
                        retry.started.elapsed()
                    )));
                }
                T::sleep(wait).await;
                return Ok(());
            }
            Failure::Retry(reason) => reason,
        };
        self.forget(table);
        self.relocate().await;
        if retry.started.elapsed() + retry.pause > self.config.operation_timeout {
            return Err(Error::NotServingRegion(format!(
                "{table} (gave up after {:.1?}: {reason})",
                retry.started.elapsed()
            )));
        }
        T::sleep(retry.pause).await;
        retry.pause = (retry.pause * 2).min(self.config.max_pause);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    /// A server's error keeps its causes across the wire: the server writes them into the
    /// exception's stack trace, and the client's error has them as its `source()` chain.
    #[test]
    fn errors_keep_their_causes_across_the_wire() {
        let below = std::io::Error::other("No space left on device");
        let sent = Error::storage_in("flushing region t,,1", below);
        let exception = basalt_proto::from_error(&sent);
        let remote = RpcError::Remote {
            class: exception.exception_class_name.unwrap_or_default(),
            message: exception.stack_trace.unwrap_or_default(),
        };
        let table = TableName::parse("t").unwrap_or_else(|e| panic!("{e}"));
        let Failure::Fatal(got) = classify(&table, remote) else {
            panic!("an I/O error is not retried");
        };
        assert_eq!(got.kind(), crate::ErrorKind::Io, "{got}");
        assert!(got.to_string().contains("flushing region t,,1"), "{got}");
        assert!(!got.to_string().contains("Caused by"), "{got}");
        let cause = got.source().map(ToString::to_string);
        assert_eq!(
            cause.as_deref(),
            Some("java.io.IOException: No space left on device")
        );
        // A connection's failure is the I/O error's, as its source.
        let broken = RpcError::Frame(basalt_proto::frame::FrameError::Io(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset by peer",
        )));
        let io = broken
            .source()
            .and_then(|s| s.source())
            .and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            io.map(std::io::Error::kind),
            Some(std::io::ErrorKind::ConnectionReset)
        );
    }
}
