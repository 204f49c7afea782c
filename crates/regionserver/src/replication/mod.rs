//! Replication to peer clusters (HBase's `ReplicationSourceManager` and `ReplicationSink`):
//! where peers are kept (`peers`), how far each queue has shipped (`queues`), the sources
//! that read the WAL and ship it (`source`), the entries on the wire (`wire`), the sink that
//! applies what peers ship here (`sink`), and what it all counts (`metrics`). See
//! `docs/design/replication.md`.
//!
//! A region server runs one [`Replication`]: every second it reads the peers, makes its own
//! queue for a new peer, drops the queues of a removed one, claims the queues of servers that
//! are gone, and keeps one source thread per queue.

pub mod barriers;
pub mod bulk;
pub mod metrics;
pub mod peers;
pub mod queues;
pub mod sink;
mod source;
pub mod wire;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError, RwLock};
use std::thread::JoinHandle;
use std::time::Duration;

use basalt_common::replication::{ClusterId, PeerDescription};
use basalt_common::{Error, Result};
use basalt_fs::FileSystem;

use crate::layout::{self, WAL_DIR};
use metrics::SourceMetrics;
use queues::Queue;

/// How sources read and ship.
#[derive(Debug, Clone)]
pub struct ReplicationConfig {
    /// At most this many bytes of WAL records per batch (HBase's
    /// `replication.source.size.capacity`), and no more than the peer's bandwidth.
    pub batch_bytes: usize,
    /// At most this many edits per batch (HBase's `replication.source.nb.capacity`).
    pub batch_entries: usize,
    /// How long a source that found nothing new waits before it looks again.
    pub poll: Duration,
    /// The longest wait between tries while the peer does not take batches.
    pub max_backoff: Duration,
    /// How long a call to the peer may take.
    pub rpc_timeout: Duration,
    /// How often peers and queues are looked at.
    pub tick: Duration,
}

impl Default for ReplicationConfig {
    fn default() -> Self {
        ReplicationConfig {
            batch_bytes: 4 << 20,
            batch_entries: 25_000,
            poll: Duration::from_millis(100),
            max_backoff: Duration::from_secs(10),
            rpc_timeout: Duration::from_secs(30),
            tick: Duration::from_millis(250),
        }
    }
}

/// A queue and its source's figures, as the metrics and status show them.
#[derive(Debug, Clone)]
pub struct SourceStatus {
    /// `<peer>` or, claimed from a gone server, `<peer>-<server>`.
    pub queue: String,
    pub peer: String,
    /// Claimed from a gone server (HBase's recovered queue).
    pub recovered: bool,
    pub metrics: Arc<SourceMetrics>,
}

struct Running {
    peer: String,
    recovered: bool,
    metrics: Arc<SourceMetrics>,
    thread: JoinHandle<()>,
}

/// A region server's replication; see the module documentation.
pub struct Replication {
    pub(crate) fs: Arc<dyn FileSystem>,
    pub(crate) root: PathBuf,
    /// This server's name, as its WAL directory is named.
    pub(crate) server: String,
    pub config: ReplicationConfig,
    cluster_id: Mutex<Option<ClusterId>>,
    peers: RwLock<HashMap<String, Arc<PeerDescription>>>,
    sources: Mutex<HashMap<String, Running>>,
    stopping: AtomicBool,
    wake: (Mutex<()>, Condvar),
    ticker: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Replication {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replication")
            .field("server", &self.server)
            .field("root", &self.root)
            .finish_non_exhaustive()
    }
}

impl Replication {
    /// Starts replication for the server whose WAL directory is `WALs/<server>` under `root`.
    pub fn start(
        fs: Arc<dyn FileSystem>,
        root: &Path,
        server: &str,
        config: ReplicationConfig,
    ) -> Arc<Replication> {
        let repl = Arc::new(Replication {
            fs,
            root: root.to_owned(),
            server: server.to_owned(),
            config,
            cluster_id: Mutex::new(None),
            peers: RwLock::new(HashMap::new()),
            sources: Mutex::new(HashMap::new()),
            stopping: AtomicBool::new(false),
            wake: (Mutex::new(()), Condvar::new()),
            ticker: Mutex::new(None),
        });
        let weak = Arc::downgrade(&repl);
        let ticker = std::thread::Builder::new()
            .name("basalt-replication".into())
            .spawn(move || {
                loop {
                    let Some(repl) = weak.upgrade() else {
                        return;
                    };
                    if repl.stopping() {
                        return;
                    }
                    // A failed look (the file system, a damaged file) is tried again.
                    if let Err(e) = repl.tick() {
                        use std::io::Write as _;
                        let _ = writeln!(std::io::stderr(), "replication: {e}");
                    }
                    let tick = repl.config.tick;
                    repl.sleep(tick);
                }
            })
            .ok();
        *repl.ticker.lock().unwrap_or_else(PoisonError::into_inner) = ticker;
        repl
    }

    pub(crate) fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Acquire)
    }

    /// Waits `d`, or less if replication stops.
    pub(crate) fn sleep(&self, d: Duration) {
        let guard = self.wake.0.lock().unwrap_or_else(PoisonError::into_inner);
        if self.stopping() {
            return;
        }
        let _ = self.wake.1.wait_timeout(guard, d);
    }

    /// Stops every source and the ticker. Waits for the ticker, not for the sources: one may be
    /// in a call to a peer that hangs (up to the RPC timeout); each ends when it next looks, and
    /// a batch it ships meanwhile only moves its queue's position.
    pub fn stop(&self) {
        {
            let _g = self.wake.0.lock().unwrap_or_else(PoisonError::into_inner);
            self.stopping.store(true, Ordering::Release);
            self.wake.1.notify_all();
        }
        let ticker = self
            .ticker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(t) = ticker
            && t.thread().id() != std::thread::current().id()
        {
            let _ = t.join();
        }
        // Finished ones are joined; the rest are left to end by themselves.
        let running: Vec<Running> = self
            .sources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .drain()
            .map(|(_, r)| r)
            .collect();
        for r in running.into_iter().filter(|r| r.thread.is_finished()) {
            let _ = r.thread.join();
        }
    }

    /// This cluster's id; the nil id until the directory has one.
    pub(crate) fn cluster_id(&self) -> ClusterId {
        self.cluster_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unwrap_or(ClusterId(0))
    }

    pub(crate) fn peer(&self, id: &str) -> Option<Arc<PeerDescription>> {
        self.peers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Every queue this server ships, with its source's figures.
    pub fn sources(&self) -> Vec<SourceStatus> {
        let mut out: Vec<SourceStatus> = self
            .sources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(name, r)| SourceStatus {
                queue: name.clone(),
                peer: r.peer.clone(),
                recovered: r.recovered,
                metrics: Arc::clone(&r.metrics),
            })
            .collect();
        out.sort_by(|a, b| a.queue.cmp(&b.queue));
        out
    }

    /// One look at peers and queues (see the module documentation).
    fn tick(self: &Arc<Self>) -> Result<()> {
        let fs = self.fs.as_ref();
        let Some(id) = layout::read_cluster_id(fs, &self.root)? else {
            // No id yet (a new cluster's master makes it): nothing can be marked.
            return Ok(());
        };
        *self
            .cluster_id
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(ClusterId::of(&id));
        let peers: HashMap<String, Arc<PeerDescription>> = peers::read_all(fs, &self.root)?
            .into_iter()
            .map(|p| (p.id.clone(), Arc::new(p)))
            .collect();
        *self.peers.write().unwrap_or_else(PoisonError::into_inner) = peers.clone();
        let dir = queues::queues_dir(&self.root, &self.server);
        let mine = queues::list(fs, &self.root, &self.server)?;
        // A new peer gets a queue from this server's oldest segment not yet archived: it holds
        // every edit not yet flushed, so nothing written since the peer was added is missed.
        for id in peers.keys() {
            if mine
                .iter()
                .any(|(_, q)| q.peer == *id && q.source == self.server)
            {
                continue;
            }
            let own = basalt_wal::segments_in(fs, &self.root.join(WAL_DIR).join(&self.server))
                .map_err(|e| Error::storage(e.to_string()))?;
            let first = own
                .first()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned());
            let Some(first) = first else {
                continue;
            };
            let q = Queue {
                peer: id.clone(),
                source: self.server.clone(),
                wal: Some(first),
                offset: 0,
            };
            queues::write(fs, &dir.join(id), &q)?;
        }
        // A removed peer's queues go; their sources end on their own.
        for (name, q) in &mine {
            if !peers.contains_key(&q.peer) {
                let _ = fs.delete(&dir.join(name));
            }
        }
        for server in queues::servers(fs, &self.root)? {
            if server != self.server && queues::is_gone(fs, &self.root, &server)? {
                queues::claim(fs, &self.root, &self.server, &server)?;
            }
        }
        self.start_sources()
    }

    /// One source thread for each queue without one.
    fn start_sources(self: &Arc<Self>) -> Result<()> {
        let queues = queues::list(self.fs.as_ref(), &self.root, &self.server)?;
        let mut running = self.sources.lock().unwrap_or_else(PoisonError::into_inner);
        running.retain(|_, r| !r.thread.is_finished());
        for (name, q) in queues {
            if running.contains_key(&name) || !self.peer_known(&q.peer) {
                continue;
            }
            let metrics = Arc::new(SourceMetrics::default());
            let recovered = q.source != self.server;
            let peer = q.peer.clone();
            let source =
                source::Source::new(name.clone(), Arc::clone(self), q, Arc::clone(&metrics));
            let thread = std::thread::Builder::new()
                .name(format!("basalt-replication-{name}"))
                .spawn(move || source.run())
                .map_err(|e| Error::storage(format!("starting a replication source: {e}")))?;
            running.insert(
                name,
                Running {
                    peer,
                    recovered,
                    metrics,
                    thread,
                },
            );
        }
        Ok(())
    }

    fn peer_known(&self, id: &str) -> bool {
        self.peers
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains_key(id)
    }
}
