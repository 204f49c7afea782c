//! A ZooKeeper session as a cluster's servers use it (HBase's `ZKWatcher`, with what its
//! `RegionServerTracker`, `MasterAddressTracker` and `ActiveMasterManager` need): ephemeral
//! nodes that vanish with the session, reading nodes and children, and whether the session is
//! lost. Calls block the calling thread; the asynchronous client runs on a one-thread runtime
//! of the session's own, on a thread that keeps the session alive.

use std::io;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use zookeeper_client as zk;

use crate::err;

/// One ZooKeeper session; see the module documentation.
#[derive(Debug)]
pub struct ZkSession {
    /// None once closed: dropping the last client makes the session send CloseSession.
    client: Option<zk::Client>,
    handle: tokio::runtime::Handle,
    /// How long one call may take.
    timeout: Duration,
    session_timeout: Duration,
    stop: mpsc::Sender<()>,
    thread: Option<JoinHandle<()>>,
    /// Since when the session has been disconnected, if it is.
    disconnected: std::sync::Mutex<Option<Instant>>,
}

/// Whether a node is kept after the session that made it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Persistent,
    Ephemeral,
}

impl ZkSession {
    /// Connects to `quorum` (`host:port[,host:port...]`) with a session that ends
    /// `session_timeout` after this process stops answering. Fails if ZooKeeper cannot be
    /// reached within `timeout`.
    pub fn connect(
        quorum: &str,
        session_timeout: Duration,
        timeout: Duration,
    ) -> io::Result<ZkSession> {
        let (ready_tx, ready_rx) =
            mpsc::channel::<io::Result<(zk::Client, tokio::runtime::Handle)>>();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let quorum_owned = quorum.to_owned();
        let thread = std::thread::Builder::new()
            .name("zookeeper".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = ready_tx.send(Err(err("runtime", e)));
                        return;
                    }
                };
                let handle = runtime.handle().clone();
                runtime.block_on(async move {
                    let connect = zk::Client::connector()
                        .with_session_timeout(session_timeout)
                        .connect(&quorum_owned);
                    match tokio::time::timeout(timeout, connect).await {
                        Ok(Ok(c)) => {
                            let _ = ready_tx.send(Ok((c, handle)));
                        }
                        Ok(Err(e)) => {
                            let _ = ready_tx
                                .send(Err(err(&format!("connecting to {quorum_owned}"), e)));
                            return;
                        }
                        Err(_) => {
                            let _ = ready_tx.send(Err(err(
                                &format!("connecting to {quorum_owned}"),
                                "timed out",
                            )));
                            return;
                        }
                    }
                    // The session lives (the client pings it) while this thread drives it.
                    while let Err(mpsc::TryRecvError::Empty) = stop_rx.try_recv() {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    // The client is gone: the session says goodbye (its ephemeral nodes go at
                    // once) if given a moment.
                    tokio::time::sleep(Duration::from_millis(300)).await;
                });
            })?;
        match ready_rx.recv_timeout(timeout + Duration::from_secs(5)) {
            Ok(Ok((client, handle))) => Ok(ZkSession {
                client: Some(client),
                handle,
                timeout,
                session_timeout,
                stop: stop_tx,
                thread: Some(thread),
                disconnected: std::sync::Mutex::new(None),
            }),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(err(&format!("connecting to {quorum}"), "no answer")),
        }
    }

    fn client(&self) -> io::Result<&zk::Client> {
        self.client
            .as_ref()
            .ok_or_else(|| err("a call", "the session is closed"))
    }

    /// Runs one request: `make` starts it on the client, the session's runtime finishes it.
    /// The outer error is the session's (closed, timed out), the inner ZooKeeper's answer.
    fn request<'c, T, F>(
        &'c self,
        what: &str,
        make: impl FnOnce(&'c zk::Client) -> F,
    ) -> io::Result<Result<T, zk::Error>>
    where
        F: std::future::Future<Output = Result<T, zk::Error>>,
    {
        let future = make(self.client()?);
        let timeout = self.timeout;
        self.handle
            .block_on(async move { tokio::time::timeout(timeout, future).await })
            .map_err(|_| err(what, "timed out"))
    }

    /// [`ZkSession::request`] with every ZooKeeper error an error.
    fn run<'c, T, F>(&'c self, what: &str, make: impl FnOnce(&'c zk::Client) -> F) -> io::Result<T>
    where
        F: std::future::Future<Output = Result<T, zk::Error>>,
    {
        self.request(what, make)?.map_err(|e| err(what, e))
    }

    /// Creates `path` as a persistent or ephemeral node; false if it exists already.
    fn create_node(&self, path: &str, data: &[u8], mode: zk::CreateMode) -> io::Result<bool> {
        let what = format!("creating {path}");
        let options = mode.with_acls(zk::Acls::anyone_all());
        match self.request(&what, |c| c.create(path, data, &options))? {
            Ok(_) => Ok(true),
            Err(zk::Error::NodeExists) => Ok(false),
            Err(e) => Err(err(&what, e)),
        }
    }

    /// Creates `path` (and, persistent and empty, its missing parents) with `data`. False if
    /// it exists already.
    pub fn create(&self, path: &str, data: &[u8], kind: NodeKind) -> io::Result<bool> {
        if let Some((parent, _)) = path.rsplit_once('/')
            && !parent.is_empty()
        {
            self.ensure(parent)?;
        }
        let mode = match kind {
            NodeKind::Persistent => zk::CreateMode::Persistent,
            NodeKind::Ephemeral => zk::CreateMode::Ephemeral,
        };
        self.create_node(path, data, mode)
    }

    /// Creates `path` and its parents as empty persistent nodes where missing.
    pub fn ensure(&self, path: &str) -> io::Result<()> {
        let mut at = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            at.push('/');
            at.push_str(part);
            if !self.exists(&at)? {
                self.create_node(&at, b"", zk::CreateMode::Persistent)?;
            }
        }
        Ok(())
    }

    /// Writes `path` with `data`, replacing what is there.
    pub fn put(&self, path: &str, data: &[u8], kind: NodeKind) -> io::Result<()> {
        self.delete(path)?;
        self.create(path, data, kind).map(|_| ())
    }

    /// Whether ZooKeeper answers a read of `path` within `limit`: a round trip on the
    /// session (what a region server's lease on serving is renewed by).
    pub fn round_trip(&self, path: &str, limit: Duration) -> io::Result<()> {
        let client = self.client()?;
        let what = format!("reading {path}");
        self.handle
            .block_on(async move { tokio::time::timeout(limit, client.check_stat(path)).await })
            .map_err(|_| err(&what, "timed out"))?
            .map(|_| ())
            .map_err(|e| err(&what, e))
    }

    pub fn exists(&self, path: &str) -> io::Result<bool> {
        let stat = self.run(&format!("reading {path}"), |c| c.check_stat(path))?;
        Ok(stat.is_some())
    }

    /// The node's data; None if there is no such node.
    pub fn get(&self, path: &str) -> io::Result<Option<Vec<u8>>> {
        let what = format!("reading {path}");
        match self.request(&what, |c| c.get_data(path))? {
            Ok((data, _)) => Ok(Some(data)),
            Err(zk::Error::NoNode) => Ok(None),
            Err(e) => Err(err(&what, e)),
        }
    }

    /// The names of the node's children, sorted; none if there is no such node.
    pub fn children(&self, path: &str) -> io::Result<Vec<String>> {
        let what = format!("listing {path}");
        match self.request(&what, |c| c.list_children(path))? {
            Ok(mut names) => {
                names.sort();
                Ok(names)
            }
            Err(zk::Error::NoNode) => Ok(Vec::new()),
            Err(e) => Err(err(&what, e)),
        }
    }

    /// Deletes the node if it is there.
    pub fn delete(&self, path: &str) -> io::Result<()> {
        let what = format!("deleting {path}");
        match self.request(&what, |c| c.delete(path, None))? {
            Ok(()) | Err(zk::Error::NoNode) => Ok(()),
            Err(e) => Err(err(&what, e)),
        }
    }

    /// Whether the session is gone for good: expired, closed, or cut off from ZooKeeper for a
    /// whole session timeout (by then ZooKeeper has expired it, and its ephemeral nodes are
    /// gone: the master treats this server as dead).
    pub fn is_lost(&self) -> bool {
        let Some(client) = &self.client else {
            return true;
        };
        let state = client.state();
        let mut since = self
            .disconnected
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match state {
            zk::SessionState::SyncConnected | zk::SessionState::ConnectedReadOnly => {
                *since = None;
                false
            }
            zk::SessionState::Disconnected => {
                let at = *since.get_or_insert_with(Instant::now);
                at.elapsed() >= self.session_timeout
            }
            _ => true,
        }
    }

    /// Whether ZooKeeper has ended the session (expired or refused it) or it was closed: the
    /// precise answer, known only once ZooKeeper is reached again. A session cut off from
    /// ZooKeeper is not expired yet, and may live on: ZooKeeper restarted within the session
    /// timeout keeps its sessions. A region server waits for this answer (HBase's do too): its
    /// lease stops it serving meanwhile, and a master that took it for dead fences its log.
    pub fn is_expired(&self) -> bool {
        self.client.as_ref().is_none_or(|c| {
            !matches!(
                c.state(),
                zk::SessionState::SyncConnected
                    | zk::SessionState::ConnectedReadOnly
                    | zk::SessionState::Disconnected
            )
        })
    }

    pub fn session_timeout(&self) -> Duration {
        self.session_timeout
    }

    /// Ends the session: its ephemeral nodes go at once.
    pub fn close(mut self) {
        self.shut();
    }

    fn shut(&mut self) {
        self.client = None;
        let _ = self.stop.send(());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for ZkSession {
    fn drop(&mut self) {
        self.shut();
    }
}
