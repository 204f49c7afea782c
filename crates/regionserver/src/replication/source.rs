//! A replication source (HBase's `ReplicationSource` with its WAL reader and shipper): one
//! thread per queue, reading the source server's WAL segments behind the writers from the
//! queue's position, keeping the cells the peer takes, and shipping them in batches to the
//! peer's region servers with AdminService.ReplicateWALEntry, no faster than the peer's
//! bandwidth, retrying with backoff while the peer is down. The position moves (and is
//! written) only after a batch is acknowledged, so a crash ships edits again, never skips one.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use basalt_client::remote::{RemoteConfig, RemoteConnection, RpcClient};
use basalt_common::replication::{ClusterId, PeerDescription};
use basalt_common::{Cell, Error, Result, TableName};
use basalt_proto::pb;

use super::Replication;
use super::metrics::SourceMetrics;
use super::queues::{self, Queue, Segment};
use super::sink::outgoing_ids;
use super::wire;
use super::{barriers, bulk};

/// A peer cluster's region servers, and a connection to each that answered.
struct PeerLink {
    cluster_key: String,
    cluster_id: ClusterId,
    servers: Vec<SocketAddr>,
    clients: Vec<Option<RpcClient>>,
    next: usize,
    found_at: Instant,
}

/// How long a peer's list of servers is trusted before it is asked again.
const REFRESH_SERVERS: Duration = Duration::from_secs(60);

impl PeerLink {
    /// Finds the peer's id and its live region servers through its cluster key.
    fn find(cluster_key: &str, timeout: Duration) -> Result<PeerLink> {
        let config = RemoteConfig {
            rpc_timeout: timeout,
            ..RemoteConfig::default()
        };
        let conn = RemoteConnection::to_cluster_key(cluster_key, config)?;
        let summary = conn.admin().cluster_summary()?;
        let mut servers = Vec::new();
        for s in &summary.servers {
            let mut parts = s.name.split(',');
            let (Some(host), Some(port)) = (parts.next(), parts.next()) else {
                continue;
            };
            if let Ok(mut addrs) = format!("{host}:{port}").to_socket_addrs()
                && let Some(addr) = addrs.next()
            {
                servers.push(addr);
            }
        }
        if servers.is_empty() {
            return Err(Error::storage(format!(
                "peer cluster {cluster_key} has no live region server"
            )));
        }
        Ok(PeerLink {
            cluster_key: cluster_key.to_owned(),
            cluster_id: ClusterId::of(&summary.cluster_id),
            clients: servers.iter().map(|_| None).collect(),
            servers,
            next: 0,
            found_at: Instant::now(),
        })
    }

    /// Sends one batch to a region server of the peer, trying each once.
    fn ship(
        &mut self,
        req: &pb::ReplicateWalEntryRequest,
        block: &[u8],
        timeout: Duration,
    ) -> Result<()> {
        let mut last = None;
        for _ in 0..self.servers.len() {
            let i = self.next % self.servers.len();
            self.next = self.next.wrapping_add(1);
            let addr = self.servers[i];
            if self.clients[i].as_ref().is_none_or(RpcClient::is_broken) {
                match RpcClient::connect(addr, "AdminService") {
                    Ok(c) => {
                        let _ = c.set_timeout(Some(timeout));
                        self.clients[i] = Some(c);
                    }
                    Err(e) => {
                        last = Some(Error::storage(format!("connecting to {addr}: {e}")));
                        continue;
                    }
                }
            }
            let Some(client) = &self.clients[i] else {
                continue;
            };
            let sent: std::result::Result<pb::ReplicateWalEntryResponse, _> =
                client.call_with_cells("ReplicateWALEntry", req, &[block]);
            match sent {
                Ok(_) => return Ok(()),
                Err(e) => {
                    self.clients[i] = None;
                    last = Some(Error::storage(format!("ReplicateWALEntry to {addr}: {e}")));
                }
            }
        }
        Err(last.unwrap_or_else(|| Error::storage("the peer has no region server")))
    }
}

/// What was read for one batch.
struct Batch {
    entries: Vec<pb::WalEntry>,
    block: Vec<u8>,
    /// Edits read (shipped or filtered out), and the oldest and newest write times among them.
    read: u64,
    oldest_write_time: i64,
    newest_write_time: i64,
    /// Where the queue stands once the batch is shipped.
    next: Queue,
    /// A serial peer's batch that ends early: an edit waits for another queue.
    blocked: bool,
}

/// One queue's source.
pub(super) struct Source {
    pub name: String,
    repl: Arc<Replication>,
    queue: Queue,
    metrics: Arc<SourceMetrics>,
    link: Option<PeerLink>,
    /// Bytes shipped since `window` began, for the bandwidth limit.
    window: (Instant, u64),
}

impl Source {
    pub fn new(
        name: String,
        repl: Arc<Replication>,
        queue: Queue,
        metrics: Arc<SourceMetrics>,
    ) -> Source {
        Source {
            name,
            repl,
            queue,
            metrics,
            link: None,
            window: (Instant::now(), 0),
        }
    }

    fn path(&self) -> std::path::PathBuf {
        queues::queues_dir(&self.repl.root, &self.repl.server).join(&self.name)
    }

    /// Runs until the server stops, the peer goes, or (a claimed queue) every edit of the
    /// dead server has shipped.
    pub fn run(mut self) {
        let mut backoff = self.repl.config.poll;
        while !self.repl.stopping() {
            let Some(peer) = self.repl.peer(&self.queue.peer) else {
                return;
            };
            if !self.repl.fs.exists(&self.path()).unwrap_or(false) {
                return;
            }
            self.metrics.running.store(peer.enabled, Ordering::Relaxed);
            self.update_backlog();
            if !peer.enabled {
                self.repl.sleep(self.repl.config.poll);
                continue;
            }
            match self.step(&peer) {
                Ok(Step::Shipped) => backoff = self.repl.config.poll,
                Ok(Step::Idle) => self.repl.sleep(self.repl.config.poll),
                Ok(Step::Done) => {
                    let fs = self.repl.fs.as_ref();
                    let _ = fs.delete(&self.path());
                    // The gone server's segments go once no other queue needs them.
                    let _ = queues::release_gone(fs, &self.repl.root, &self.queue.source);
                    self.metrics.running.store(false, Ordering::Relaxed);
                    return;
                }
                Err(e) => {
                    self.metrics.failed_batches.fetch_add(1, Ordering::Relaxed);
                    *self
                        .metrics
                        .last_error
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) = Some(e.to_string());
                    self.link = None;
                    self.repl.sleep(backoff);
                    backoff = (backoff * 2).min(self.repl.config.max_backoff);
                }
            }
        }
    }

    /// The source server's segments not yet read (for sizeOfLogQueue).
    fn update_backlog(&self) {
        if let Ok(segments) =
            queues::segments_of(self.repl.fs.as_ref(), &self.repl.root, &self.queue.source)
        {
            let from = self.queue.wal.clone().unwrap_or_default();
            let n = segments.iter().filter(|s| s.name >= from).count();
            self.metrics.log_queue.store(n as u64, Ordering::Relaxed);
        }
    }

    fn step(&mut self, peer: &PeerDescription) -> Result<Step> {
        if let Err(e) = self.connect(peer) {
            // Waiting edits age while the peer cannot be reached.
            if let Ok(Some(waiting)) = self.read(peer)
                && waiting.oldest_write_time < i64::MAX
            {
                self.metrics
                    .age_ms
                    .store(now_ms() - waiting.oldest_write_time, Ordering::Relaxed);
            }
            return Err(e);
        }
        let Some(batch) = self.read(peer)? else {
            let done = self.finished()?;
            self.metrics.age_ms.store(0, Ordering::Relaxed);
            return Ok(if done { Step::Done } else { Step::Idle });
        };
        // A serial peer's batch that stopped before its first edit (waiting for another
        // queue): nothing to ship yet, and the queue is not done.
        if batch.blocked && batch.read == 0 && batch.next == self.queue {
            return Ok(Step::Idle);
        }
        if !batch.entries.is_empty()
            && let Err(e) = self.ship(peer, &batch)
        {
            {
                // Waiting edits age while the peer is away.
                self.metrics
                    .age_ms
                    .store(now_ms() - batch.oldest_write_time, Ordering::Relaxed);
                return Err(e);
            }
        }
        let m = &self.metrics;
        m.edits_read.fetch_add(batch.read, Ordering::Relaxed);
        if batch.newest_write_time > i64::MIN {
            m.age_ms
                .store(now_ms() - batch.newest_write_time, Ordering::Relaxed);
            m.last_shipped_write_time
                .fetch_max(batch.newest_write_time, Ordering::Relaxed);
        }
        self.queue = batch.next;
        queues::write(self.repl.fs.as_ref(), &self.path(), &self.queue)?;
        Ok(Step::Shipped)
    }

    /// Finds the peer's servers and id, the first time and every so often.
    fn connect(&mut self, peer: &PeerDescription) -> Result<()> {
        let stale = self.link.as_ref().is_none_or(|l| {
            l.cluster_key != peer.config.cluster_key || l.found_at.elapsed() > REFRESH_SERVERS
        });
        if !stale {
            return Ok(());
        }
        let link = PeerLink::find(&peer.config.cluster_key, self.repl.config.rpc_timeout)?;
        if link.cluster_id == self.repl.cluster_id() {
            return Err(Error::InvalidArgument(format!(
                "peer {} is this cluster ({}): replicating to itself",
                peer.id, link.cluster_id
            )));
        }
        self.link = Some(link);
        Ok(())
    }

    /// Whether a claimed queue has nothing left: its server is gone and every segment read.
    fn finished(&self) -> Result<bool> {
        if self.queue.source == self.repl.server {
            return Ok(false);
        }
        if !queues::is_gone(self.repl.fs.as_ref(), &self.repl.root, &self.queue.source)? {
            return Ok(false);
        }
        let segments =
            queues::segments_of(self.repl.fs.as_ref(), &self.repl.root, &self.queue.source)?;
        let from = self.queue.wal.clone().unwrap_or_default();
        Ok(segments.last().is_none_or(|s| s.name <= from))
    }

    /// Reads the next batch from the queue's position: None when nothing new was written.
    fn read(&self, peer: &PeerDescription) -> Result<Option<Batch>> {
        let fs = self.repl.fs.as_ref();
        let segments = queues::segments_of(fs, &self.repl.root, &self.queue.source)?;
        let mut q = self.queue.clone();
        let budget = match peer.config.bandwidth {
            0 => self.repl.config.batch_bytes,
            bw => self
                .repl
                .config
                .batch_bytes
                .min(usize::try_from(bw).unwrap_or(usize::MAX))
                .max(1),
        };
        loop {
            // The segment the queue is in: its own, or (it went meanwhile, or none was named
            // yet) the first one after.
            let at = match &q.wal {
                Some(name) => segments.iter().position(|s| s.name >= *name),
                None => (!segments.is_empty()).then_some(0),
            };
            let Some(i) = at else {
                return Ok(None);
            };
            let seg: &Segment = &segments[i];
            if q.wal.as_deref() != Some(seg.name.as_str()) {
                q.wal = Some(seg.name.clone());
                q.offset = 0;
            }
            let tail = basalt_wal::read_tail(fs, &seg.path, q.offset, budget)
                .map_err(|e| Error::storage(format!("reading {}: {e}", seg.path.display())))?;
            if tail.edits.is_empty() {
                // A later segment means the writers rolled past this one: it is complete.
                match segments.get(i + 1) {
                    Some(next) => {
                        q.wal = Some(next.name.clone());
                        q.offset = 0;
                        continue;
                    }
                    None if q != self.queue => {
                        return Ok(Some(self.empty_batch(q)));
                    }
                    None => return Ok(None),
                }
            }
            q.offset = tail.next;
            return self.batch(peer, tail.edits, q).map(Some);
        }
    }

    fn empty_batch(&self, next: Queue) -> Batch {
        Batch {
            entries: Vec::new(),
            block: Vec::new(),
            read: 0,
            oldest_write_time: i64::MAX,
            newest_write_time: i64::MIN,
            next,
            blocked: false,
        }
    }

    /// The edits the peer takes, as entries: not of system tables, not already through the
    /// peer's cluster, and only the cells of families that replicate to it.
    fn batch(
        &self,
        peer: &PeerDescription,
        edits: Vec<(u64, basalt_wal::WalEdit)>,
        next: Queue,
    ) -> Result<Batch> {
        let mut b = self.empty_batch(next);
        let own = self.repl.cluster_id();
        let peer_id = self.link.as_ref().map(|l| l.cluster_id);
        let mut serial = peer
            .config
            .serial
            .then(|| SerialCheck::new(&self.repl, &peer.id, &self.queue.source));
        for (offset, edit) in &edits {
            // A full batch ends before this edit; the next one starts there.
            if b.read as usize >= self.repl.config.batch_entries {
                b.next.offset = *offset;
                break;
            }
            // A serial peer gets a region's edits from here only once every earlier opening
            // of the region elsewhere has shipped: the batch ends before this edit.
            if let Some(check) = serial.as_mut()
                && !edit.origin.replicated_families.is_empty()
                && !check.can_push(&edit.region, edit.seq_id)?
            {
                b.next.offset = *offset;
                b.blocked = true;
                self.metrics.waiting.store(true, Ordering::Relaxed);
                return Ok(b);
            }
            b.read += 1;
            b.newest_write_time = b.newest_write_time.max(edit.write_time_ms);
            b.oldest_write_time = b.oldest_write_time.min(edit.write_time_ms);
            if edit.origin.replicated_families.is_empty() {
                continue;
            }
            if peer_id.is_some_and(|p| edit.origin.cluster_ids.contains(&p)) {
                continue;
            }
            let Ok(table) = TableName::parse(&edit.table) else {
                continue;
            };
            let bulk_loads = peer
                .config
                .configuration
                .get(bulk::ENABLED_KEY)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"));
            let cells: Vec<&Cell> = edit
                .cells
                .iter()
                .filter(|c| {
                    if bulk::is_marker(c) {
                        return bulk_loads && peer.config.replicates_table(&table);
                    }
                    edit.origin
                        .replicated_families
                        .iter()
                        .any(|f| f[..] == *c.family())
                        && peer.config.replicates(&table, c.family())
                })
                .collect();
            if cells.is_empty() {
                continue;
            }
            let ids = outgoing_ids(&edit.origin.cluster_ids, own);
            b.entries
                .push(wire::entry(edit, &cells, &ids, &mut b.block));
        }
        self.metrics.waiting.store(false, Ordering::Relaxed);
        Ok(b)
    }

    fn ship(&mut self, peer: &PeerDescription, batch: &Batch) -> Result<()> {
        let timeout = self.repl.config.rpc_timeout;
        let Some(link) = self.link.as_mut() else {
            return Err(Error::storage("no link to the peer"));
        };
        let req = pb::ReplicateWalEntryRequest {
            entry: batch.entries.clone(),
            replication_cluster_id: Some(self.repl.cluster_id().to_string()),
            // Where the peer's sink reads bulk-loaded files from.
            source_base_namespace_dir_path: Some(self.repl.root.to_string_lossy().into_owned()),
            source_h_file_archive_dir_path: None,
        };
        let started = Instant::now();
        link.ship(&req, &batch.block, timeout)?;
        let m = &self.metrics;
        m.shipped_batches.fetch_add(1, Ordering::Relaxed);
        m.shipped_ops
            .fetch_add(batch.entries.len() as u64, Ordering::Relaxed);
        m.shipped_bytes
            .fetch_add(batch.block.len() as u64, Ordering::Relaxed);
        m.ship_micros
            .fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
        m.last_shipped_at.store(now_ms(), Ordering::Relaxed);
        self.throttle(peer.config.bandwidth, batch.block.len() as u64);
        Ok(())
    }

    /// Sleeps as long as shipping `bytes` more would run over `bandwidth` bytes per second
    /// (HBase's ReplicationThrottler), over windows of a few seconds.
    fn throttle(&mut self, bandwidth: u64, bytes: u64) {
        if bandwidth == 0 {
            self.window = (Instant::now(), 0);
            return;
        }
        let (start, sent) = &mut self.window;
        *sent += bytes;
        let due = Duration::from_secs_f64(*sent as f64 / bandwidth as f64);
        let elapsed = start.elapsed();
        if due > elapsed {
            self.repl.sleep(due - elapsed);
        }
        if start.elapsed() > Duration::from_secs(5) {
            self.window = (Instant::now(), 0);
        }
    }
}

/// Whether a serial peer may have a region's edit from this queue now (HBase's
/// `SerialReplicationChecker`, over Basalt's barriers and queue positions): every opening of
/// the region before the one the edit was written in, on another server, must have shipped to
/// the peer. An opening has shipped when no queue of the peer ships that server's WAL any more,
/// or (the region closed there cleanly) when that queue's position is past where the server's
/// WAL ended at the close. Files are read once per batch.
struct SerialCheck<'a> {
    repl: &'a Replication,
    peer: &'a str,
    source: &'a str,
    barriers: std::collections::HashMap<String, Vec<barriers::Opening>>,
    /// Each server's queue position for the peer (the least, if several), or none.
    positions: Option<std::collections::HashMap<String, (String, u64)>>,
}

impl<'a> SerialCheck<'a> {
    fn new(repl: &'a Replication, peer: &'a str, source: &'a str) -> Self {
        SerialCheck {
            repl,
            peer,
            source,
            barriers: std::collections::HashMap::new(),
            positions: None,
        }
    }

    fn positions(&mut self) -> Result<&std::collections::HashMap<String, (String, u64)>> {
        if self.positions.is_none() {
            let fs = self.repl.fs.as_ref();
            let mut map: std::collections::HashMap<String, (String, u64)> =
                std::collections::HashMap::new();
            for server in queues::servers(fs, &self.repl.root)? {
                for (_, q) in queues::list(fs, &self.repl.root, &server)? {
                    if q.peer != self.peer {
                        continue;
                    }
                    let at = (q.wal.unwrap_or_default(), q.offset);
                    map.entry(q.source)
                        .and_modify(|have| {
                            if at < *have {
                                *have = at.clone();
                            }
                        })
                        .or_insert(at);
                }
            }
            self.positions = Some(map);
        }
        Ok(self.positions.get_or_insert_default())
    }

    fn can_push(&mut self, region: &str, seq: u64) -> Result<bool> {
        if !self.barriers.contains_key(region) {
            let read = barriers::read(self.repl.fs.as_ref(), &self.repl.root, region)?;
            self.barriers.insert(region.to_owned(), read);
        }
        let openings = self.barriers.get(region).cloned().unwrap_or_default();
        let Some(mine) = openings
            .iter()
            .rposition(|o| o.server == self.source && o.open_seq <= seq)
        else {
            return Ok(true);
        };
        for earlier in &openings[..mine] {
            if earlier.server == self.source {
                continue;
            }
            let Some(at) = self.positions()?.get(&earlier.server).cloned() else {
                continue;
            };
            match &earlier.closed {
                Some(closed) if at >= *closed => {}
                _ => return Ok(false),
            }
        }
        Ok(true)
    }
}

enum Step {
    Shipped,
    Idle,
    Done,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
