//! The region server's side of assignment and of splits and merges (HBase's
//! `AssignRegionHandler` and `UnassignRegionHandler`, and the region work of its split and merge
//! procedures), each asked for by what the master knows of a region, its `RegionInfo`, so that
//! the master asks the same of the region server in its own process and of one across the
//! network (AdminService: `docs/design/cluster.md`).
//!
//! A split or merge the region server has prepared keeps its parents, closed, until the master
//! says whether its catalog commit went through ([`RegionServer::settle`]): then the new regions
//! open and the parents are forgotten, or the new regions' files go and the parents serve again.

use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError};

use basalt_common::{Bytes, Error, RegionInfo, Result, TableDescriptor, TableName};
use basalt_region::Region;

use crate::layout;
use crate::meta_schema;
use crate::server::RegionServer;

fn name_of(info: &RegionInfo) -> String {
    String::from_utf8_lossy(&info.region_name()).into_owned()
}

fn not_serving(info: &RegionInfo) -> Error {
    Error::NotServingRegion(name_of(info))
}

fn has_references(info: &RegionInfo) -> Error {
    Error::Refused(format!(
        "Region {} has references to its parent's files; it cannot split or merge until a \
         compaction has rewritten them",
        name_of(info)
    ))
}

impl RegionServer {
    /// The schema a region of `table` opens with: meta's own, or the table's `.tabledesc`.
    pub fn descriptor_of(&self, table: &TableName) -> Result<TableDescriptor> {
        let meta = meta_schema::meta_region_info()?;
        if *table == meta.table {
            return meta_schema::meta_descriptor();
        }
        layout::read_descriptor(self.fs.as_ref(), &layout::table_dir(&self.root, table))
    }

    /// The online region `info` names, if it is this very region (not another region that
    /// reuses its encoded name).
    fn online(&self, info: &RegionInfo) -> Option<Arc<Region>> {
        self.online_region(&layout::encoded_name(info))
            .filter(|r| r.info().start_key == info.start_key && r.info().end_key == info.end_key)
    }

    /// Whether the region `info` names is online here.
    pub fn is_online(&self, info: &RegionInfo) -> bool {
        self.online(info).is_some()
    }

    /// Opens the region the master assigns to this server, with its table's schema as stored,
    /// and puts it online. A region already online here stays as it is (HBase's
    /// ALREADY_OPENED).
    pub fn assign(&self, info: &RegionInfo) -> Result<Arc<Region>> {
        if let Some(region) = self.online(info) {
            return Ok(region);
        }
        self.open_stored(info)
    }

    /// Opens a region with its table's schema as stored, deleting the directories of
    /// families the schema no longer has (an alter that dropped them, perhaps interrupted),
    /// and replaying the edits a split of a dead server's log left for it.
    fn open_stored(&self, info: &RegionInfo) -> Result<Arc<Region>> {
        let descriptor = self.descriptor_of(&info.table)?;
        // Online only once the edits a dead server's log left for the region (its split by
        // the master) are in: a read served before would miss them (the fault campaign saw
        // reads answer values from before the edits, once after kill-zk).
        let region = self.open_region_offline(info.clone(), &descriptor, &[])?;
        let ready = self.remove_dropped_families(&region).and_then(|()| {
            crate::recovery::replay_recovered_edits(self.fs.as_ref(), &region).map(|_| ())
        });
        if let Err(e) = ready {
            let _ = region.close();
            return Err(e);
        }
        self.put_online(&region);
        Ok(region)
    }

    fn remove_dropped_families(&self, region: &Region) -> Result<()> {
        let fs = self.fs.as_ref();
        let families: BTreeSet<String> = region
            .descriptor()
            .families()
            .iter()
            .map(|f| f.name_str())
            .collect();
        for entry in layout::list(fs, region.dir())? {
            let store = !entry.starts_with('.') && entry != crate::RECOVERED_EDITS;
            if store && !families.contains(&entry) {
                layout::delete_dir(fs, &region.dir().join(entry))?;
            }
        }
        Ok(())
    }

    /// Closes a region and opens it again with its table's schema as now stored (an alter).
    /// A region held without serving stays so. If the new one cannot open, the old one serves
    /// (or is held) as before and the error says why.
    pub fn reopen(&self, info: &RegionInfo) -> Result<Arc<Region>> {
        let encoded = layout::encoded_name(info);
        let held = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&encoded);
        let was_held = held.is_some();
        let old = held
            .or_else(|| self.online(info))
            .ok_or_else(|| not_serving(info))?;
        let restore = |region: &Arc<Region>| {
            if was_held {
                self.hold(region);
            } else {
                self.put_online(region);
            }
        };
        if let Err(e) = self.close_region(&old) {
            restore(&old);
            return Err(e);
        }
        match self.open_stored(info) {
            Ok(new) => {
                if was_held {
                    self.take_offline(&new);
                    self.hold(&new);
                }
                Ok(new)
            }
            Err(e) => {
                old.reopen();
                restore(&old);
                Err(e)
            }
        }
    }

    /// Closes the region (its memstore flushed first) and takes it offline. False when it was
    /// not online here.
    pub fn unassign(&self, info: &RegionInfo) -> Result<bool> {
        let Some(region) = self.online(info) else {
            return Ok(false);
        };
        self.close_region(&region)?;
        Ok(true)
    }

    /// Stops or starts serving a region that stays open (the embedded engine's disabled
    /// tables); starting one that is not open opens it.
    pub fn set_serving(&self, info: &RegionInfo, serving: bool) -> Result<()> {
        let encoded = layout::encoded_name(info);
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if serving {
            match held.remove(&encoded) {
                Some(region) => self.put_online(&region),
                None => {
                    drop(held);
                    self.assign(info)?;
                }
            }
        } else if let Some(region) = self.online(info) {
            self.take_offline(&region);
            // As HBase's closing of a disabled table's regions does.
            region.evict_blocks_on_close();
            held.insert(encoded, region);
        }
        Ok(())
    }

    /// A region this server holds open but does not serve, by encoded name.
    pub fn held_region(&self, encoded: &str) -> Option<Arc<Region>> {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(encoded)
            .cloned()
    }

    /// Closes a region of a table being deleted: offline at once, its memstore dropped with
    /// it (a flush of a region about to be deleted is wasted), and the log told that nothing
    /// needs its edits.
    pub fn drop_region(&self, info: &RegionInfo) -> Result<()> {
        let encoded = layout::encoded_name(info);
        let region = self
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&encoded)
            .or_else(|| self.online(info));
        if let Some(region) = region {
            self.take_offline(&region);
            let _ = region.close();
            self.forget_edits(&region)?;
        }
        Ok(())
    }

    /// Flushes an online region's memstore to store files.
    pub fn flush_named(&self, info: &RegionInfo) -> Result<()> {
        self.online(info).ok_or_else(|| not_serving(info))?.flush()
    }

    /// Compacts an open region's stores (every file of each when `major`). Held regions (a
    /// disabled table's, in the embedded engine) compact too.
    pub fn compact_named(&self, info: &RegionInfo, major: bool) -> Result<()> {
        self.check_compactions()?;
        let region = self
            .online(info)
            .or_else(|| self.held_region(&layout::encoded_name(info)))
            .ok_or_else(|| not_serving(info))?;
        region.compact(major)?;
        self.wake_background();
        Ok(())
    }

    /// The region server's half of a split of `parent` (at `at`, or its split point) into
    /// daughters with region id `id`: see [`RegionServer::prepare_split`]. The parent, closed,
    /// waits for [`RegionServer::settle`].
    pub fn split_region(
        &self,
        parent: &RegionInfo,
        at: Option<Bytes>,
        id: i64,
    ) -> Result<[RegionInfo; 2]> {
        let region = self.online(parent).ok_or_else(|| not_serving(parent))?;
        if region.has_references() {
            return Err(has_references(parent));
        }
        let metrics = std::sync::Arc::clone(&self.config.metrics);
        let _task = metrics.tasks.start(
            "split",
            format!(
                "splitting {}",
                String::from_utf8_lossy(&parent.region_name())
            ),
        );
        metrics.splits.inc();
        // The bulk of the memstore goes to files while the region still serves.
        region.flush()?;
        let split_key = match at {
            Some(key) => key,
            None => region.split_point()?.ok_or_else(|| {
                Error::Refused(format!(
                    "Region {} has no split point: it is empty or holds a single row",
                    name_of(parent)
                ))
            })?,
        };
        let prepared = self.prepare_split(&region, split_key, id)?;
        self.hold(&region);
        Ok(prepared.daughters)
    }

    /// The region server's half of a merge of adjacent `lo` and `hi` into `merged`: see
    /// [`RegionServer::prepare_merge`]. The parents, closed, wait for
    /// [`RegionServer::settle`].
    pub fn merge_regions(
        &self,
        lo: &RegionInfo,
        hi: &RegionInfo,
        merged: &RegionInfo,
    ) -> Result<()> {
        let a = self.online(lo).ok_or_else(|| not_serving(lo))?;
        let b = self.online(hi).ok_or_else(|| not_serving(hi))?;
        for (region, info) in [(&a, lo), (&b, hi)] {
            if region.has_references() {
                return Err(has_references(info));
            }
        }
        let metrics = std::sync::Arc::clone(&self.config.metrics);
        let _task = metrics.tasks.start(
            "merge",
            format!(
                "merging {} and {}",
                String::from_utf8_lossy(&lo.region_name()),
                String::from_utf8_lossy(&hi.region_name())
            ),
        );
        metrics.merges.inc();
        self.prepare_merge(&a, &b, merged)?;
        self.hold(&a);
        self.hold(&b);
        Ok(())
    }

    fn hold(&self, region: &Arc<Region>) {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(region.encoded_name().to_owned(), Arc::clone(region));
    }

    /// Ends a prepared split or merge with the master's verdict. Committed: the new regions
    /// open here and the log forgets the parents' edits (the parents' files hold them all).
    /// Not committed: the new regions' files go and the parents serve again.
    pub fn settle(
        &self,
        parents: &[RegionInfo],
        children: &[RegionInfo],
        committed: bool,
    ) -> Result<Vec<Arc<Region>>> {
        let held: Vec<Arc<Region>> = {
            let mut map = self.held.lock().unwrap_or_else(PoisonError::into_inner);
            parents
                .iter()
                .filter_map(|p| map.remove(&layout::encoded_name(p)))
                .collect()
        };
        let held: Vec<&Arc<Region>> = held.iter().collect();
        if !committed {
            self.abort_children(&held, children);
            return Ok(Vec::new());
        }
        let descriptor = match children.first() {
            Some(c) => self.descriptor_of(&c.table)?,
            None => return Ok(Vec::new()),
        };
        let opened = self.open_children(&held, children, &descriptor)?;
        self.wake_background();
        Ok(opened)
    }
}
