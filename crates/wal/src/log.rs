//! The server's write-ahead log: one current segment that every region appends to, group
//! commit, the durability levels, rolling by size, and archiving segments every region has
//! flushed past.
//!
//! Group commit: an append encodes its record, queues it and takes a ticket (a transaction
//! number). A waiter that finds nobody writing becomes the leader: it takes everything queued,
//! writes it with one call (and one `sync` if any waiter asked for FSYNC_WAL), then wakes the
//! others, whose tickets that write covered. So concurrent writers share writes and syncs.
//!
//! A failed write or sync fails every append that waited on it, and the log refuses all
//! later appends: it never acknowledges what it could not log.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use basalt_common::replication::ClusterId;
use basalt_common::{Bytes, Cell, Durability};
use basalt_fs::FileSystem;

use crate::error::{Result, WalError};
use crate::record::WalEdit;
use crate::record::encode_body;
use crate::segment::{SegmentWriter, frame_record};

/// A round's buffer larger than this is freed rather than kept for the next round.
const SPARE_LIMIT: usize = 1 << 20;

/// Segment file names: this prefix and a zero-padded number, so names sort in write order.
const SEGMENT_PREFIX: &str = "wal.";

#[derive(Debug, Clone)]
pub struct WalConfig {
    /// A segment is closed and a new one started once it holds this many bytes (HBase rolls at
    /// half the WAL block size; 64 MiB here).
    pub roll_size: u64,
    /// How often ASYNC_WAL appends are written out when nothing else writes them.
    pub async_interval: Duration,
    /// Rolled segments kept before the regions holding the oldest one back are asked to
    /// flush (HBase's `hbase.regionserver.maxlogs`, 32).
    pub max_segments: usize,
    /// How long an archived segment is kept before [`Wal::clean_archive`] deletes it
    /// (HBase's `hbase.master.logcleaner.ttl`, 10 minutes); `None` keeps them forever.
    pub archive_ttl: Option<Duration>,
    /// Whether each write round checks, after writing and before acknowledging, that the
    /// log's directory is still there: a cluster's master renames a dead server's directory
    /// before it splits the log (fencing), and a server that was only paused must not
    /// acknowledge an edit the split did not see. The log refuses writes from then on.
    pub fenced_by_rename: bool,
    /// Where appends and group writes are counted (the region server's metrics).
    pub metrics: std::sync::Arc<basalt_common::metrics::ServerMetrics>,
}

impl Default for WalConfig {
    fn default() -> Self {
        WalConfig {
            roll_size: 64 << 20,
            async_interval: Duration::from_secs(1),
            max_segments: 32,
            archive_ttl: Some(Duration::from_secs(600)),
            fenced_by_rename: false,
            metrics: basalt_common::metrics::ServerMetrics::new(),
        }
    }
}

impl WalConfig {
    /// The disk reserved for each segment: the roll size and an eighth more, since the group
    /// write that crosses the roll size finishes in the same segment.
    fn segment_capacity(&self) -> u64 {
        self.roll_size.saturating_add(self.roll_size / 8)
    }
}

/// An enqueued edit's place in the log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(u64);

/// A segment and, per region, the highest sequence id it holds.
#[derive(Debug)]
struct Segment {
    path: PathBuf,
    max_seq_ids: HashMap<String, u64>,
}

#[derive(Debug)]
struct State {
    /// `None` while a leader writes with it.
    writer: Option<SegmentWriter>,
    current: Segment,
    next_number: u64,
    /// Rolled segments not yet archived, oldest first.
    closed: Vec<Segment>,
    /// Encoded records not yet handed to the writer.
    queued: Vec<u8>,
    /// Archived segments, oldest first, with when they were archived (or, for those an
    /// earlier run archived, when this log started).
    archived: std::collections::VecDeque<(Instant, PathBuf)>,
    /// The last round's emptied buffer, kept so the next round's queue does not grow from
    /// nothing (a reallocation or two on every SYNC_WAL put otherwise).
    spare: Vec<u8>,
    /// Tickets: appended, written to the operating system, synced.
    appended: u64,
    written: u64,
    synced: u64,
    /// The highest ticket whose append asked for FSYNC_WAL.
    fsync_wanted: u64,
    leader: bool,
    /// Appends waiting for a leader's round, each parked until a leader wakes it: covered by
    /// the round (it returns without taking the lock, so a round's waiters do not all contend
    /// for it), or to lead the next one.
    parked: Vec<Parked>,
    failure: Option<String>,
    /// Per region, the highest sequence id its flushed store files hold.
    flushed: HashMap<String, u64>,
}

/// An append parked until a leader's round covers it.
#[derive(Debug)]
struct Parked {
    ticket: u64,
    fsync: bool,
    thread: std::thread::Thread,
}

/// The write-ahead log of one server; see the module documentation.
#[derive(Debug)]
pub struct Wal {
    fs: Arc<dyn FileSystem>,
    dir: PathBuf,
    /// `oldWALs`: archived segments go to a directory in it named as the one they were
    /// written in (`oldWALs/<server>/`), so servers' segment numbers never collide.
    archive_root: PathBuf,
    config: WalConfig,
    state: Mutex<State>,
    /// The synced ticket, readable without the lock (see `written_hint`).
    synced_hint: std::sync::atomic::AtomicU64,
    /// A copy of the written ticket and of whether a leader runs, readable without the lock:
    /// a SYNC_WAL writer spins on them briefly before sleeping (a write to the operating
    /// system takes microseconds, less than a sleep and a wake-up).
    written_hint: std::sync::atomic::AtomicU64,
    leading_hint: std::sync::atomic::AtomicBool,
    /// Writers spinning now; at most one fewer than the CPUs, so spinners never crowd out
    /// the leader they wait for.
    spinners: std::sync::atomic::AtomicUsize,
    max_spinners: usize,
    /// Appended tickets (a copy readable without the lock), and how many records the last
    /// synced group held: an FSYNC_WAL leader waits a moment for as many before it syncs.
    appended_hint: std::sync::atomic::AtomicU64,
    last_group: std::sync::atomic::AtomicU64,
    /// Tells the background thread to end (set by `close` and on drop).
    stop: Arc<Stop>,
    /// The background thread, joined by `close`: while it writes it holds a reference, and
    /// the open segment must be cut to its records when `close`'s caller drops the log.
    background: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// The background thread's stop flag. It waits on this, not on the log, so between its
/// writes it holds no reference to the log.
#[derive(Debug, Default)]
struct Stop {
    stopped: Mutex<bool>,
    signal: Condvar,
}

impl Stop {
    fn stop(&self) {
        *self.stopped.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.signal.notify_all();
    }

    /// Waits `interval`; false if stopped meanwhile (or before).
    fn wait(&self, interval: Duration) -> bool {
        let deadline = Instant::now() + interval;
        let mut stopped = self.stopped.lock().unwrap_or_else(PoisonError::into_inner);
        // Spurious wake-ups are waited out.
        loop {
            let now = Instant::now();
            if *stopped {
                return false;
            }
            if now >= deadline {
                return true;
            }
            stopped = self
                .signal
                .wait_timeout(stopped, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

/// How many times a SYNC_WAL writer checks whether the leader's write is done before it
/// sleeps (a few microseconds).
const SPINS: u32 = 4000;

/// How long an FSYNC_WAL leader waits for the writers of the last group to append again.
const GATHER_FOR: std::time::Duration = std::time::Duration::from_micros(50);

fn segment_path(dir: &Path, number: u64) -> PathBuf {
    dir.join(format!("{SEGMENT_PREFIX}{number:020}"))
}

/// The segments in `dir`, oldest first (what recovery replays); none if `dir` does not exist.
pub fn segments_in(fs: &dyn FileSystem, dir: &Path) -> Result<Vec<PathBuf>> {
    if !fs.exists(dir)? {
        return Ok(Vec::new());
    }
    Ok(fs
        .list(dir)?
        .into_iter()
        .filter(|name| segment_number(name).is_some())
        .map(|name| dir.join(name))
        .collect())
}

fn segment_number(name: &str) -> Option<u64> {
    name.strip_prefix(SEGMENT_PREFIX)?.parse().ok()
}

impl Wal {
    /// Starts a log in `dir` (a server's, `WALs/<server>`) with a new segment numbered after
    /// any already there (those are left alone: recovery reads them, then archives them with
    /// [`Wal::archive`]). Rolled segments go to `archive_root/<dir's name>/` once every
    /// region has flushed past them. Segments archived earlier, by any server, are found and
    /// given their time to live from now.
    pub fn create(
        fs: Arc<dyn FileSystem>,
        dir: &Path,
        archive_root: &Path,
        config: WalConfig,
    ) -> Result<Arc<Wal>> {
        fs.create_dir_all(dir)?;
        fs.create_dir_all(archive_root)?;
        let existing = segments_in(fs.as_ref(), dir)?;
        let number = existing
            .iter()
            .filter_map(|p| segment_number(&p.file_name()?.to_string_lossy()))
            .max()
            .map_or(1, |n| n + 1);
        let path = segment_path(dir, number);
        let started = Instant::now();
        // Flat (before segments were archived by server), then each server's directory.
        let mut archived: std::collections::VecDeque<(Instant, PathBuf)> =
            segments_in(fs.as_ref(), archive_root)?
                .into_iter()
                .map(|p| (started, p))
                .collect();
        for server in fs.list(archive_root)? {
            if segment_number(&server).is_none() {
                let server = archive_root.join(server);
                archived.extend(
                    segments_in(fs.as_ref(), &server)?
                        .into_iter()
                        .map(|p| (started, p)),
                );
            }
        }
        let writer = SegmentWriter::create_log(fs.as_ref(), &path, config.segment_capacity())?;
        let wal = Arc::new(Wal {
            fs,
            dir: dir.to_owned(),
            archive_root: archive_root.to_owned(),
            config,
            state: Mutex::new(State {
                writer: Some(writer),
                current: Segment {
                    path,
                    max_seq_ids: HashMap::new(),
                },
                next_number: number + 1,
                closed: Vec::new(),
                queued: Vec::new(),
                archived,
                spare: Vec::new(),
                appended: 0,
                written: 0,
                synced: 0,
                fsync_wanted: 0,
                leader: false,
                parked: Vec::new(),
                failure: None,
                flushed: HashMap::new(),
            }),
            synced_hint: std::sync::atomic::AtomicU64::new(0),
            written_hint: std::sync::atomic::AtomicU64::new(0),
            leading_hint: std::sync::atomic::AtomicBool::new(false),
            spinners: std::sync::atomic::AtomicUsize::new(0),
            appended_hint: std::sync::atomic::AtomicU64::new(0),
            last_group: std::sync::atomic::AtomicU64::new(0),
            max_spinners: std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .saturating_sub(1),
            stop: Arc::new(Stop::default()),
            background: Mutex::new(None),
        });
        let weak = Arc::downgrade(&wal);
        let stop = Arc::clone(&wal.stop);
        let interval = wal.config.async_interval;
        let handle = std::thread::Builder::new()
            .name("wal-async".into())
            .spawn(move || write_async_appends(&weak, &stop, interval))
            .map_err(|e| WalError::Unloggable(format!("cannot start the WAL's thread: {e}")))?;
        *wal.background
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(handle);
        Ok(wal)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Why the log refuses appends, once a write or a sync of it failed.
    pub fn failure(&self) -> Option<String> {
        self.lock().failure.clone()
    }

    /// Where this log counts its appends and writes.
    pub fn metrics(&self) -> &Arc<basalt_common::metrics::ServerMetrics> {
        &self.config.metrics
    }

    /// Logs `edit` and returns once it is as durable as `durability` asks: SKIP_WAL logs
    /// nothing; ASYNC_WAL returns at once (a background write follows within the configured
    /// interval); SYNC_WAL (and USE_DEFAULT) once the record reached the operating system;
    /// FSYNC_WAL once it is on stable storage.
    pub fn append(&self, edit: &WalEdit, durability: Durability) -> Result<()> {
        if durability == Durability::SkipWal {
            return Ok(());
        }
        let ticket = self.enqueue(edit)?;
        self.wait_for(ticket, durability)
    }

    /// Queues `edit` without waiting; [`Wal::wait_for`] then waits for the returned ticket. A
    /// region enqueues in sequence-id order, so that no edit waits on a later group write
    /// than an edit with a higher id (whose writer would then wait on it in MVCC).
    pub fn enqueue(&self, edit: &WalEdit) -> Result<Ticket> {
        self.enqueue_cells(
            &edit.region,
            &edit.table,
            edit.seq_id,
            edit.write_time_ms,
            (&edit.origin.cluster_ids, &edit.origin.replicated_families),
            edit.cells.iter(),
        )
    }

    /// [`Wal::enqueue`] from borrowed parts: the region's encoded name, the table's name, the
    /// sequence id every cell takes, the write time, the edit's origin (its cluster ids and the
    /// table's replicated families, [`crate::EditOrigin`]) and the cells.
    pub fn enqueue_cells<'c>(
        &self,
        region: &str,
        table: &str,
        seq_id: u64,
        write_time_ms: i64,
        origin: (&[ClusterId], &[Bytes]),
        cells: impl ExactSizeIterator<Item = &'c Cell>,
    ) -> Result<Ticket> {
        let mut st = self.lock();
        if let Some(failure) = &st.failure {
            return Err(WalError::Failed(failure.clone()));
        }
        // Encoded straight into the queue.
        let before = st.queued.len();
        frame_record(&mut st.queued, |body| {
            encode_body(region, table, seq_id, write_time_ms, origin, cells, body)
        })?;
        self.config.metrics.wal_appends.inc();
        self.config
            .metrics
            .wal_append_bytes
            .add((st.queued.len() - before) as u64);
        st.appended += 1;
        let ticket = st.appended;
        self.appended_hint
            .store(ticket, std::sync::atomic::Ordering::Release);
        match st.current.max_seq_ids.get_mut(region) {
            Some(max) => *max = (*max).max(seq_id),
            None => {
                st.current.max_seq_ids.insert(region.to_owned(), seq_id);
            }
        }
        Ok(Ticket(ticket))
    }

    /// Waits until the enqueued edit is as durable as `durability` asks (see [`Wal::append`]).
    pub fn wait_for(&self, ticket: Ticket, durability: Durability) -> Result<()> {
        match durability {
            Durability::SkipWal | Durability::AsyncWal => Ok(()),
            Durability::FsyncWal => self.wait(self.lock(), ticket.0, true),
            _ => self.wait(self.lock(), ticket.0, false),
        }
    }

    /// Writes (and, with `fsync`, syncs) everything appended so far.
    pub fn sync(&self, fsync: bool) -> Result<()> {
        let st = self.lock();
        let ticket = st.appended;
        self.wait(st, ticket, fsync)
    }

    /// Waits until `ticket` is written (synced, with `fsync`), leading a write when nobody is.
    fn wait<'a>(&'a self, mut st: MutexGuard<'a, State>, ticket: u64, fsync: bool) -> Result<()> {
        if fsync {
            st.fsync_wanted = st.fsync_wanted.max(ticket);
        }
        loop {
            let done = if fsync { st.synced } else { st.written };
            if done >= ticket {
                return Ok(());
            }
            if let Some(failure) = &st.failure {
                return Err(WalError::Failed(failure.clone()));
            }
            if st.leader && !fsync && self.may_spin() {
                drop(st);
                self.spin(ticket);
                st = self.lock();
                if st.written >= ticket || !st.leader {
                    continue;
                }
            }
            if st.leader {
                let me = std::thread::current();
                let id = me.id();
                st.parked.push(Parked {
                    ticket,
                    fsync,
                    thread: me,
                });
                drop(st);
                std::thread::park();
                if self.done_hint(fsync) >= ticket {
                    return Ok(());
                }
                // Woken to lead, by a failure, or spuriously: look again under the lock.
                st = self.lock();
                st.parked.retain(|p| p.thread.id() != id);
            } else {
                st = self.lead(st);
            }
        }
    }

    /// Whether fewer writers spin than the limit (a hint: [`Wal::spin`] checks again).
    fn may_spin(&self) -> bool {
        self.spinners.load(std::sync::atomic::Ordering::Acquire) < self.max_spinners
    }

    /// Spins, without the lock, while the leader writes and `ticket` is not written yet; if
    /// enough others spin already, returns at once.
    fn spin(&self, ticket: u64) {
        use std::sync::atomic::Ordering;
        if self.spinners.fetch_add(1, Ordering::AcqRel) >= self.max_spinners {
            self.spinners.fetch_sub(1, Ordering::AcqRel);
            return;
        }
        let mut spins = 0;
        while spins < SPINS
            && self.leading_hint.load(Ordering::Acquire)
            && self.written_hint.load(Ordering::Acquire) < ticket
        {
            std::hint::spin_loop();
            spins += 1;
        }
        self.spinners.fetch_sub(1, Ordering::AcqRel);
    }

    /// Before a sync: if the last synced group was larger than what waits now, lets the
    /// other writers (busy with their previous put) append for a moment, up to
    /// [`GATHER_FOR`], so one sync covers them too. The caller is the leader.
    fn gather<'a>(&'a self, st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        use std::sync::atomic::Ordering;
        let target = st.synced + self.last_group.load(Ordering::Relaxed);
        if st.appended >= target {
            return st;
        }
        drop(st);
        let start = std::time::Instant::now();
        while self.appended_hint.load(Ordering::Acquire) < target && start.elapsed() < GATHER_FOR {
            std::thread::yield_now();
        }
        self.lock()
    }

    /// One group write: everything queued, one write, one sync if anyone wants it.
    fn lead<'a>(&'a self, mut st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        let Some(mut writer) = st.writer.take() else {
            // Only a leader takes the writer, and it puts it back before stepping down.
            st.failure = Some("the WAL writer is missing".into());
            self.wake_parked(&mut st);
            return st;
        };
        st.leader = true;
        self.leading_hint
            .store(true, std::sync::atomic::Ordering::Release);
        if st.fsync_wanted > st.synced {
            st = self.gather(st);
        }
        let spare = std::mem::take(&mut st.spare);
        let mut batch = std::mem::replace(&mut st.queued, spare);
        let upto = st.appended;
        let fsync = st.fsync_wanted > st.synced;
        let synced_before = st.synced;
        drop(st);

        let started = std::time::Instant::now();
        let mut result = writer
            .append_encoded(&batch)
            .and_then(|_| if fsync { writer.sync() } else { writer.flush() });
        self.config.metrics.wal_syncs.since(started);
        // Fenced: the edits just written reached the file before this check, so a split that
        // starts after the rename reads them; after the rename nothing more is acknowledged.
        if result.is_ok()
            && self.config.fenced_by_rename
            && !self.fs.exists(&self.dir).unwrap_or(false)
        {
            result = Err(WalError::Failed(format!(
                "{} was renamed: a master took this server for dead and split its log",
                self.dir.display()
            )));
        }
        let mut rolled = None;
        if result.is_ok() && writer.len() >= self.config.roll_size {
            match self.roll(&mut writer) {
                Ok(segment) => rolled = Some(segment),
                Err(e) => result = Err(e),
            }
        }

        let mut st = self.lock();
        match result {
            Ok(()) => {
                st.written = upto;
                self.written_hint
                    .store(upto, std::sync::atomic::Ordering::Release);
                if fsync {
                    st.synced = upto;
                    self.synced_hint
                        .store(upto, std::sync::atomic::Ordering::Release);
                    self.last_group
                        .store(upto - synced_before, std::sync::atomic::Ordering::Relaxed);
                }
            }
            Err(e) => {
                st.failure = Some(format!("writing {} failed: {e}", st.current.path.display()));
            }
        }
        if let Some(path) = rolled {
            Self::rolled_to(&mut st, path);
        }
        if batch.capacity() <= SPARE_LIMIT {
            batch.clear();
            st.spare = batch;
        }
        st.writer = Some(writer);
        st.leader = false;
        self.leading_hint
            .store(false, std::sync::atomic::Ordering::Release);
        self.wake_parked(&mut st);
        st
    }

    /// After a round: wakes the parked appends it covered (and all of them after a failure),
    /// and one that it did not, to lead the next round; the others stay parked for that one.
    fn wake_parked(&self, st: &mut State) {
        let failed = st.failure.is_some();
        let mut woke_next_leader = false;
        for p in std::mem::take(&mut st.parked) {
            let done = if p.fsync { st.synced } else { st.written };
            if failed || done >= p.ticket || !woke_next_leader {
                woke_next_leader |= done < p.ticket;
                p.thread.unpark();
            } else {
                st.parked.push(p);
            }
        }
    }

    /// The written (or, with `fsync`, synced) ticket, read without the lock.
    fn done_hint(&self, fsync: bool) -> u64 {
        let hint = if fsync {
            &self.synced_hint
        } else {
            &self.written_hint
        };
        hint.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Records that the log now appends to the new segment `path`, the current one rolled.
    fn rolled_to(st: &mut State, path: PathBuf) {
        let old = std::mem::replace(
            &mut st.current,
            Segment {
                path,
                max_seq_ids: HashMap::new(),
            },
        );
        st.closed.push(old);
        st.next_number += 1;
    }

    /// Rolls the log now (HBase's `wal_roll`): everything appended so far is written and synced
    /// in the current segment, and appends go to a new one from here. Returns the new segment.
    pub fn roll_now(&self) -> Result<PathBuf> {
        loop {
            self.sync(false)?;
            let mut st = self.lock();
            if let Some(failure) = &st.failure {
                return Err(WalError::Failed(failure.clone()));
            }
            // Taken as a leader takes it: appends meanwhile queue for the next round.
            if st.leader {
                drop(st);
                std::thread::yield_now();
                continue;
            }
            let Some(mut writer) = st.writer.take() else {
                drop(st);
                std::thread::yield_now();
                continue;
            };
            st.leader = true;
            drop(st);
            let rolled = self.roll(&mut writer);
            let mut st = self.lock();
            st.writer = Some(writer);
            st.leader = false;
            let result = match rolled {
                Ok(path) => {
                    Self::rolled_to(&mut st, path.clone());
                    Ok(path)
                }
                Err(e) => {
                    st.failure = Some(format!("rolling {} failed: {e}", st.current.path.display()));
                    Err(e)
                }
            };
            // Appends that parked meanwhile need a leader.
            self.wake_parked(&mut st);
            return result;
        }
    }

    /// Syncs the full segment and starts the next one in `writer`'s place; returns its path.
    fn roll(&self, writer: &mut SegmentWriter) -> Result<PathBuf> {
        writer.sync()?;
        let number = self.lock().next_number;
        let path = segment_path(&self.dir, number);
        *writer =
            SegmentWriter::create_log(self.fs.as_ref(), &path, self.config.segment_capacity())?;
        Ok(path)
    }

    /// Records that `region`'s store files now hold everything up to `seq_id`, and archives
    /// the rolled segments no region needs any more.
    pub fn region_flushed(&self, region: &str, seq_id: u64) -> Result<()> {
        let archivable: Vec<PathBuf> = {
            let mut st = self.lock();
            let flushed = st.flushed.entry(region.to_owned()).or_default();
            *flushed = (*flushed).max(seq_id);
            let State {
                closed, flushed, ..
            } = &mut *st;
            let (done, kept): (Vec<Segment>, Vec<Segment>) =
                std::mem::take(closed).into_iter().partition(|s| {
                    s.max_seq_ids
                        .iter()
                        .all(|(r, max)| flushed.get(r).is_some_and(|f| f >= max))
                });
            *closed = kept;
            done.into_iter().map(|s| s.path).collect()
        };
        self.archive(&archivable)
    }

    /// Moves segments to the archive, each to `archive_root/<the name of the directory it was
    /// written in>/` (recovery does this with the segments it replayed, this server's or a
    /// dead one's, once their edits are flushed).
    pub fn archive(&self, segments: &[PathBuf]) -> Result<()> {
        let mut touched: Vec<PathBuf> = Vec::new();
        for path in segments {
            let (Some(name), Some(from)) = (path.file_name(), path.parent()) else {
                continue;
            };
            let server = from.file_name().unwrap_or(name);
            let to_dir = self.archive_root.join(server);
            if !touched.contains(&to_dir) {
                self.fs.create_dir_all(&to_dir)?;
                touched.push(to_dir.clone());
            }
            if !touched.iter().any(|d| d == from) {
                touched.push(from.to_owned());
            }
            let to = to_dir.join(name);
            self.fs.rename(path, &to)?;
            self.lock().archived.push_back((Instant::now(), to));
        }
        if !segments.is_empty() {
            self.fs.sync_dir(&self.archive_root)?;
        }
        for dir in &touched {
            self.fs.sync_dir(dir)?;
        }
        Ok(())
    }

    /// Deletes the archived segments older than [`WalConfig::archive_ttl`] (HBase's log
    /// cleaner); returns how many went. Nothing reads an archived segment: the archive is
    /// only a grace period for inspection (`basalt wal`), not part of recovery.
    pub fn clean_archive(&self) -> Result<usize> {
        self.clean_archive_keeping(&|_| false)
    }

    /// [`Wal::clean_archive`], keeping the segments `keep` says something still needs (a
    /// replication queue that has not shipped them): they are looked at again next time.
    pub fn clean_archive_keeping(&self, keep: &dyn Fn(&Path) -> bool) -> Result<usize> {
        let Some(ttl) = self.config.archive_ttl else {
            return Ok(0);
        };
        let mut deleted = 0;
        let mut dirs: Vec<PathBuf> = Vec::new();
        let mut kept = Vec::new();
        let result = self.delete_due(ttl, keep, &mut kept, &mut deleted, &mut dirs);
        {
            let mut st = self.lock();
            for entry in kept.into_iter().rev() {
                st.archived.push_front(entry);
            }
        }
        result?;
        for dir in &dirs {
            self.fs.sync_dir(dir)?;
        }
        Ok(deleted)
    }

    fn delete_due(
        &self,
        ttl: Duration,
        keep: &dyn Fn(&Path) -> bool,
        kept: &mut Vec<(Instant, PathBuf)>,
        deleted: &mut usize,
        dirs: &mut Vec<PathBuf>,
    ) -> Result<()> {
        loop {
            // One at a time, so the log's lock is never held across a delete.
            let next = {
                let mut st = self.lock();
                match st.archived.front() {
                    Some((at, _)) if at.elapsed() >= ttl => st.archived.pop_front(),
                    _ => None,
                }
            };
            let Some((at, path)) = next else {
                return Ok(());
            };
            if keep(&path) {
                kept.push((at, path));
                continue;
            }
            match self.fs.delete(&path) {
                // Someone deleted it already: as good.
                Ok(()) | Err(basalt_fs::FsError::NotFound(_)) => {
                    *deleted += 1;
                    if let Some(dir) = path.parent()
                        && !dirs.iter().any(|d| d == dir)
                    {
                        dirs.push(dir.to_owned());
                    }
                }
                Err(e) => {
                    // Still due: the next call tries again.
                    kept.push((at, path));
                    return Err(e.into());
                }
            }
        }
    }

    /// When more than `max_segments` rolled segments wait to be archived: the regions that
    /// keep the oldest one, which should flush so it can go. Empty otherwise.
    pub fn regions_to_flush(&self) -> Vec<String> {
        let st = self.lock();
        if st.closed.len() <= self.config.max_segments {
            return Vec::new();
        }
        let mut regions: Vec<String> = st.closed[0]
            .max_seq_ids
            .iter()
            .filter(|(r, max)| st.flushed.get(*r).is_none_or(|f| f < *max))
            .map(|(r, _)| r.clone())
            .collect();
        regions.sort();
        regions
    }

    /// Where the log ends now, once everything appended so far is written: the segment being
    /// appended to and its length. Every edit appended before the call lies before it (a
    /// replication barrier: `docs/design/replication.md`).
    pub fn position(&self) -> Result<(PathBuf, u64)> {
        loop {
            self.sync(false)?;
            let st = self.lock();
            if let Some(w) = &st.writer {
                return Ok((st.current.path.clone(), w.len()));
            }
            // A leader is writing with it: the next look finds it back.
            drop(st);
            std::thread::yield_now();
        }
    }

    /// The segment being appended to.
    pub fn current_segment(&self) -> PathBuf {
        self.lock().current.path.clone()
    }

    /// Rolled segments not yet archived, oldest first.
    pub fn rolled_segments(&self) -> Vec<PathBuf> {
        self.lock().closed.iter().map(|s| s.path.clone()).collect()
    }

    /// Writes and syncs everything appended, then stops the background thread. Later
    /// appends still work; closing only makes sure nothing is left in memory.
    pub fn close(&self) -> Result<()> {
        let result = self.sync(true);
        self.stop.stop();
        let background = self
            .background
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(handle) = background
            && handle.thread().id() != std::thread::current().id()
        {
            let _ = handle.join();
        }
        result
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        // The background thread need not wait out its interval to notice.
        self.stop.stop();
    }
}

/// The background thread: writes ASYNC_WAL appends that nobody else wrote, every `interval`,
/// until the log is closed or dropped. It holds the log only while it looks and writes.
fn write_async_appends(wal: &Weak<Wal>, stop: &Stop, interval: Duration) {
    while stop.wait(interval) {
        let Some(wal) = wal.upgrade() else { return };
        let st = wal.lock();
        if st.appended > st.written && st.failure.is_none() {
            let ticket = st.appended;
            // A failure is recorded in the log, which refuses further appends.
            let _ = wal.wait(st, ticket, false);
        }
    }
}
