//! A region's flushes and compactions, and the replay of its log: when its memstores are
//! full, writing them out, recording the sequence id, and asking for compactions.

use super::*;
use basalt_common::table_descriptor::DEFAULT_MEMSTORE_FLUSHSIZE;

impl Region {
    /// Applies an edit read back from the WAL while the region opens, unless the store files
    /// already hold it. Cells of families the table no longer has are skipped, as HBase
    /// does. Returns whether anything was applied.
    pub fn replay(&self, edit: &WalEdit) -> Result<bool> {
        if edit.seq_id <= self.flushed_seq_id.load(Ordering::Acquire) {
            return Ok(false);
        }
        // The server that logged it stamped by a clock that read this (its stamps never
        // below): a write here must not land behind them, whatever this server's clock says.
        // (Cells' own timestamps would not do: a client may have chosen them.)
        self.stamp_floor
            .fetch_max(edit.write_time_ms, Ordering::AcqRel);
        if let Some(observer) = self.observer() {
            self.log_hook("pre_wal_restore", observer.pre_wal_restore(&edit.cells));
        }
        let mut size = 0;
        let mut applied = false;
        for cell in &edit.cells {
            let Ok(store) = self.store_index(cell.family()) else {
                continue;
            };
            if self
                .replay_after
                .get(store)
                .is_some_and(|&after| edit.seq_id <= after)
            {
                continue;
            }
            applied = true;
            size += MemStore::accounted_size(cell);
            self.stores[store].insert(cell.clone().with_seq_id(edit.seq_id));
        }
        self.unflushed.fetch_add(size, Ordering::Relaxed);
        if let Some(budget) = &self.config.budget {
            budget.add(size);
        }
        self.mvcc.advance_to(edit.seq_id);
        if let Some(observer) = self.observer() {
            self.log_hook("post_wal_restore", observer.post_wal_restore(&edit.cells));
        }
        Ok(applied || edit.cells.is_empty())
    }

    /// Flushes when the memstores have reached MEMSTORE_FLUSHSIZE and no flush is running.
    /// A failed automatic flush leaves its snapshot readable, and the next flush retries it;
    /// [`Region::flush`] reports errors.
    pub(super) fn flush_if_full(&self) {
        if !self.needs_flush() {
            return;
        }
        if let Some(budget) = &self.config.budget {
            budget.request_flush();
        } else if let Ok(_flushing) = self.flushing.try_lock() {
            let _ = self.flush_observed(false);
        }
    }

    /// The memstore size at which this region flushes: the table's MEMSTORE_FLUSHSIZE, or
    /// when the table leaves it at its default, the server's live
    /// `hbase.hregion.memstore.flush.size` (which `update_config` can change).
    pub fn flush_size(&self) -> u64 {
        if self.descriptor.memstore_flushsize == DEFAULT_MEMSTORE_FLUSHSIZE {
            self.config.settings.memstore_flush_size().max(1)
        } else {
            self.descriptor.memstore_flushsize
        }
    }

    /// Whether a minor and whether a major compaction of this region runs now.
    pub fn compaction_state(&self) -> (bool, bool) {
        let running = |i: usize| self.compacting[i].load(Ordering::Acquire) > 0;
        (running(0), running(1))
    }

    /// Whether the memstores have reached the flush size since the last flush.
    pub fn needs_flush(&self) -> bool {
        let limit = usize::try_from(self.flush_size()).unwrap_or(usize::MAX);
        self.unflushed.load(Ordering::Relaxed) >= limit
    }

    /// Bytes the memstores hold (active and snapshot), as the memstore budget counts them.
    pub fn memstore_bytes(&self) -> usize {
        self.unflushed.load(Ordering::Relaxed) + self.snapshot_bytes.load(Ordering::Relaxed)
    }

    /// Flushes unless a flush is running already (then returns Ok(false)): for flushers.
    pub fn try_flush(&self) -> Result<bool> {
        match self.flushing.try_lock() {
            Ok(_flushing) => self.flush_locked().map(|()| true),
            Err(_) => Ok(false),
        }
    }

    /// Writes every store's memstore to a new store file, while reads and writes go on.
    pub fn flush(&self) -> Result<()> {
        let _flushing = self.flushing.lock().unwrap_or_else(PoisonError::into_inner);
        self.flush_locked()
    }

    pub(super) fn flush_locked(&self) -> Result<()> {
        self.flush_observed(true)
    }

    /// A flush, between the observer's flush hooks (whose errors are only logged: a flush
    /// is never vetoed). With an observer, it first waits for the writes whose post hooks
    /// still run (`Region::observing`): an edit is never flushed, and so never left out of a
    /// WAL replay, before its observer has seen it. Without `wait` (a writer's own check,
    /// which holds that lock shared) it leaves the flush to the next check instead.
    fn flush_observed(&self, wait: bool) -> Result<()> {
        let Some(observer) = self.observer() else {
            return self.flush_unobserved();
        };
        let _quiet = if wait {
            self.observing
                .write()
                .unwrap_or_else(PoisonError::into_inner)
        } else {
            match self.observing.try_write() {
                Ok(quiet) => quiet,
                Err(_) => return Ok(()),
            }
        };
        self.log_hook("pre_flush", observer.pre_flush());
        let flushed = self.flush_unobserved();
        if flushed.is_ok() {
            self.log_hook("post_flush", observer.post_flush());
        }
        flushed
    }

    /// Logs what a hook whose answer cannot change anything returned, if it failed.
    pub(super) fn log_hook(&self, hook: &str, outcome: Result<()>) {
        if let Err(e) = outcome {
            basalt_common::log::log("coprocessor", basalt_common::log::Level::Warn, || {
                format!("{hook} of region {}: {e}", self.encoded_name)
            });
        }
    }

    fn flush_unobserved(&self) -> Result<()> {
        let started = std::time::Instant::now();
        basalt_common::log::log("flush", basalt_common::log::Level::Debug, || {
            format!(
                "flushing {} ({} bytes in memstores)",
                String::from_utf8_lossy(&self.info.region_name()),
                self.memstore_bytes()
            )
        });
        let _task = self.config.metrics.tasks.start(
            "flush",
            format!(
                "flushing {} ({} bytes in memstores)",
                String::from_utf8_lossy(&self.info.region_name()),
                self.memstore_bytes()
            ),
        );
        let flushed = {
            let _no_updates = self.updates.write().unwrap_or_else(PoisonError::into_inner);
            let retrying = self.stores.iter().any(Store::has_snapshot);
            for store in &self.stores {
                store.snapshot();
            }
            let taken = self.unflushed.swap(0, Ordering::Relaxed);
            self.snapshot_bytes.fetch_add(taken, Ordering::Relaxed);
            if retrying {
                // A store kept the snapshot of a failed flush and did not take a new one: its
                // active memstore still holds later ids, so this flush covers only the ids
                // of that earlier snapshot (other stores flushing more is harmless: replay
                // skips nothing it should not, and re-applying an edit is idempotent).
                self.snapshot_seq_id.load(Ordering::Acquire)
            } else {
                // No mutation is in flight under this lock: the snapshots hold every id so far.
                let seq = self.mvcc.last_assigned();
                self.snapshot_seq_id.store(seq, Ordering::Release);
                seq
            }
        };
        let now = self.now();
        for store in &self.stores {
            store.flush_snapshot(now)?;
        }
        let released = self.snapshot_bytes.swap(0, Ordering::Relaxed);
        if let Some(budget) = &self.config.budget {
            budget.release(released);
        }
        self.config.metrics.flushes.since(started);
        self.config.metrics.flushed_bytes.add(released as u64);
        self.flushed_seq_id.fetch_max(flushed, Ordering::AcqRel);
        self.record_seqid()?;
        if let Some(wal) = &self.config.wal {
            wal.region_flushed(&self.encoded_name, flushed)?;
        }
        if self.wants_compaction() {
            let listener = self
                .compaction_listener
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if let Some(tx) = listener.as_ref() {
                // A gone listener only means nobody compacts in the background any more.
                let _ = tx.send(());
            }
        }
        Ok(())
    }

    /// Writes the highest sequence id the store files account for to `.seqid`, and the newest
    /// clock time the region stamped at to `.clock`.
    pub(super) fn record_seqid(&self) -> Result<()> {
        let _one_writer = self
            .recording_seqid
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let text = format!(
            "basalt-seqid 1\n{}\n",
            self.flushed_seq_id.load(Ordering::Acquire)
        );
        basalt_fs::write_atomically(
            self.fs.as_ref(),
            &self.dir.join(SEQID_FILE),
            text.as_bytes(),
        )
        .map_err(Error::storage_from)?;
        write_clock(
            self.fs.as_ref(),
            &self.dir,
            self.stamp_floor.load(Ordering::Acquire),
        )
    }

    /// Sends a message on `tx` whenever a flush leaves a minor compaction to do.
    pub fn set_compaction_listener(&self, tx: Sender<()>) {
        *self
            .compaction_listener
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(tx);
    }

    pub(super) fn compaction_config(&self) -> CompactionConfig {
        self.compaction.clone()
    }

    /// Milliseconds since the last major compaction (or since the region opened).
    pub fn millis_since_major_compaction(&self) -> i64 {
        self.now() - self.last_major_compaction.load(Ordering::Relaxed)
    }

    /// Whether some store has files the exploring policy would merge.
    pub fn wants_compaction(&self) -> bool {
        let config = self.compaction_config();
        self.descriptor.compaction_enabled
            && self
                .stores
                .iter()
                .any(|s| s.has_references() || select_minor(&s.file_sizes(), &config).is_some())
    }

    /// Compacts every store: minor (the exploring policy's pick, every cell kept) or major
    /// (all files rewritten without deleted, surplus and expired cells). Returns how many
    /// stores compacted.
    /// A closed region does not compact (its files belong to whoever closed it).
    pub fn compact(&self, major: bool) -> Result<usize> {
        let _running = self
            .compactions
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if self.is_closed() {
            return Ok(0);
        }
        if self.space_policy() == Some(basalt_common::quota::SpacePolicy::NoWritesCompactions) {
            return Err(Error::SpaceLimited(
                "NO_WRITES_COMPACTIONS Compactions are disallowed due to a space quota.".into(),
            ));
        }
        if let Some(observer) = self.observer() {
            observer.pre_compact(major)?;
        }
        let _state = Compacting::new(&self.compacting[usize::from(major)]);
        let config = self.compaction_config();
        let now = self.now();
        let mut compacted = 0;
        for store in &self.stores {
            let started = std::time::Instant::now();
            let before = store.file_sizes().iter().sum::<u64>();
            let _task = self.config.metrics.tasks.start(
                "compaction",
                format!(
                    "{} compaction of {} family {} ({before} bytes in store files)",
                    if major { "major" } else { "minor" },
                    String::from_utf8_lossy(&self.info.region_name()),
                    store.family().name_str(),
                ),
            );
            if store.compact(major, &config, now)? {
                basalt_common::log::log("compaction", basalt_common::log::Level::Debug, || {
                    format!(
                        "{} compaction of {} family {} done in {:?}",
                        if major { "major" } else { "minor" },
                        String::from_utf8_lossy(&self.info.region_name()),
                        store.family().name_str(),
                        started.elapsed()
                    )
                });
                compacted += 1;
                self.config.metrics.compactions.since(started);
                self.config.metrics.compacted_bytes.add(before);
            }
        }
        if major {
            self.last_major_compaction.store(now, Ordering::Relaxed);
            self.major_compacted_at.store(now, Ordering::Relaxed);
        }
        self.record_seqid()?;
        if let Some(observer) = self.observer() {
            self.log_hook("post_compact", observer.post_compact(major));
        }
        Ok(compacted)
    }

    /// Store files per family, in family order.
    pub fn store_file_counts(&self) -> Vec<usize> {
        self.stores.iter().map(Store::file_count).collect()
    }
}

/// Counts a compaction as running while it lives.
struct Compacting<'a>(&'a std::sync::atomic::AtomicUsize);

impl<'a> Compacting<'a> {
    fn new(count: &'a std::sync::atomic::AtomicUsize) -> Self {
        count.fetch_add(1, Ordering::AcqRel);
        Compacting(count)
    }
}

impl Drop for Compacting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}
