//! A cluster's master (HBase's `HMaster` with its `ActiveMasterManager`, `ServerManager`,
//! `AssignmentManager` and `ServerCrashProcedure`): it becomes active through ZooKeeper
//! (`/hbase/master`; the others wait under `/hbase/backup-masters`), finds the region servers
//! under `/hbase/rs`, splits the logs of servers that are gone, assigns `hbase:meta` and then
//! every region of an enabled table, and keeps watching: a server that goes is fenced, its log
//! split, its regions opened elsewhere (meta first). Everything it asks of a region server goes
//! over AdminService, and the catalog is read and written on meta's server
//! (`docs/design/cluster.md`).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_common::{Clock, Error, Result, ServerName, TableName};
use basalt_coord::{
    BACKUP_MASTERS_DIR, BALANCER_NODE, CLUSTER_ID_NODE, DRAINING_DIR, MASTER_NODE, META_NODE,
    NodeKind, RS_DIR, SWITCH_DIR, ZkSession,
};
use basalt_fs::{FileSystem, FsError};
use basalt_layout as layout;
use basalt_layout::meta_schema;

use crate::janitor;
use crate::master::{HostedTable, Master, Placed};
use crate::meta::{self, MetaStore, TableState};
use crate::servers::{LinkConfig, RemoteMeta, RemoteServer};

/// How a cluster's master is set up.
#[derive(Debug, Clone)]
pub struct ClusterSettings {
    pub zookeeper: String,
    /// How long after a server stops answering ZooKeeper it counts as dead.
    pub session_timeout: Duration,
    /// How long one call to a region server may take.
    pub call_timeout: Duration,
    /// TLS to the region servers (their certificates verified; this master's shown).
    pub tls: Option<basalt_transport::TlsClient>,
    /// Access control (HBase's `hbase.security.authorization`): the superusers; None: off.
    /// Grants live in `hbase:acl` and go to the region servers through `/hbase/acl`.
    pub superusers: Option<Vec<String>>,
    pub fs: Arc<dyn FileSystem>,
    pub root: PathBuf,
    pub clock: Arc<dyn Clock>,
    /// Where this master's MasterService listens (`host:port`).
    pub host_port: String,
    pub start_code: i64,
    /// The settings that change live: how often the balancer runs (HBase's
    /// `hbase.balancer.period`, 5 minutes; it also runs when a region server joins), the
    /// normalizer and the catalog janitor.
    pub live: Arc<basalt_common::site::LiveSettings>,
}

impl ClusterSettings {
    fn link(&self) -> LinkConfig {
        LinkConfig {
            timeout: self.call_timeout,
            tls: self.tls.clone(),
        }
    }
}

/// Why the master stopped waiting or serving.
fn io(e: std::io::Error) -> Error {
    Error::storage(e.to_string())
}

/// The master of a cluster; see the module documentation.
#[derive(Debug)]
pub struct ClusterMaster {
    pub master: Arc<Master>,
    zk: ZkSession,
    settings: ClusterSettings,
    /// The region servers this master knows are live, by name.
    known: Mutex<BTreeSet<String>>,
    /// Where meta is served.
    meta_server: Mutex<Option<ServerName>>,
    /// The balancer switch as `/hbase/balancer` last said.
    balancer_written: AtomicBool,
    /// `/hbase/acl`'s data as this master last wrote it.
    acl_written: Mutex<Vec<u8>>,
    /// `/hbase/quota` as last written, and when the space observer last ran.
    quota_written: Mutex<Vec<u8>>,
    /// Regions (by name) a server recovery left unassigned: their group had no live server.
    waiting: Mutex<BTreeSet<Vec<u8>>>,
    /// The master's chores, the balancer's first (`crate::chores`).
    chores: crate::chores::ChoreRunner,
}

impl ClusterMaster {
    /// Waits until this master is the active one (or `stop` is set: None), then takes over the
    /// cluster: waits for a region server, splits the logs of gone servers, assigns meta and
    /// every region. `progress` hears what it is doing.
    pub fn start(
        settings: ClusterSettings,
        stop: &AtomicBool,
        progress: &dyn Fn(&str),
    ) -> Result<Option<Arc<ClusterMaster>>> {
        let zk = ZkSession::connect(
            &settings.zookeeper,
            settings.session_timeout,
            Duration::from_secs(15),
        )
        .map_err(io)?;
        let name = ServerName {
            host_port: settings.host_port.clone(),
            start_code: settings.start_code,
        };
        let (host, port) = name
            .host_and_port()
            .ok_or_else(|| Error::InvalidArgument(format!("bad address {}", settings.host_port)))?;
        let code = u64::try_from(settings.start_code).unwrap_or(0);
        let data = basalt_coord::master_data(host, port, code);
        zk.ensure(BACKUP_MASTERS_DIR).map_err(io)?;
        let backup = format!("{BACKUP_MASTERS_DIR}/{name}");
        let mut waiting = false;
        while !zk
            .create(MASTER_NODE, &data, NodeKind::Ephemeral)
            .map_err(io)?
        {
            if !waiting {
                zk.create(&backup, &data, NodeKind::Ephemeral).map_err(io)?;
                progress("another master is active: waiting as a backup master");
                waiting = true;
            }
            if stop.load(Ordering::Acquire) {
                return Ok(None);
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        zk.delete(&backup).map_err(io)?;
        progress("active master");
        let fs = settings.fs.as_ref();
        let root = settings.root.clone();
        layout::init_root(fs, &root, false)?;
        let cluster_id = layout::cluster_id(fs, &root)?;
        zk.put(
            CLUSTER_ID_NODE,
            &basalt_coord::cluster_id_data(host, &cluster_id),
            NodeKind::Persistent,
        )
        .map_err(io)?;
        let mut master = Master::new(
            Arc::new(Unassigned),
            Arc::clone(&settings.clock),
            Arc::clone(&settings.fs),
            root,
            None,
            janitor::Settings::default(),
        );
        master.settings = Arc::clone(&settings.live);
        if let Some(superusers) = &settings.superusers {
            master.access = Arc::new(basalt_common::acl::AccessControl::enabled(
                superusers.clone(),
            ));
        }
        let cm = ClusterMaster {
            master: Arc::new(master),
            zk,
            settings,
            known: Mutex::new(BTreeSet::new()),
            meta_server: Mutex::new(None),
            balancer_written: AtomicBool::new(true),
            acl_written: Mutex::new(Vec::new()),
            quota_written: Mutex::new(Vec::new()),
            waiting: Mutex::default(),
            chores: crate::chores::ChoreRunner::new(
                std::iter::once(crate::chores::BALANCER)
                    .chain(crate::chores::CHORES.iter().copied()),
            ),
        };
        // The switch as the last active master left it.
        if let Some(on) = cm
            .zk
            .get(BALANCER_NODE)
            .map_err(io)?
            .and_then(|d| basalt_coord::read_balancer(&d))
        {
            cm.master.balancer_on.store(on, Ordering::Release);
            cm.balancer_written.store(on, Ordering::Release);
        }
        // The servers out of service and the switches, as the last active master left them.
        for name in cm.zk.children(DRAINING_DIR).map_err(io)? {
            cm.master.servers.set_decommissioned(&name, true);
        }
        for off in cm.zk.children(SWITCH_DIR).map_err(io)? {
            match off.as_str() {
                "split" => cm.master.split_on.store(false, Ordering::Release),
                "merge" => cm.master.merge_on.store(false, Ordering::Release),
                _ => {}
            }
        }
        let mut told = false;
        loop {
            if stop.load(Ordering::Acquire) {
                return Ok(None);
            }
            let live = cm.zk.children(RS_DIR).map_err(io)?;
            if !live.is_empty() {
                break;
            }
            if !told {
                progress("waiting for a region server to register");
                told = true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        for name in cm.zk.children(RS_DIR).map_err(io)? {
            cm.server_arrived(&name)?;
        }
        let dead = cm.dead_wal_dirs()?;
        for name in &dead {
            progress(&format!("splitting the log of gone server {name}"));
            cm.split_wal(name)?;
        }
        let meta_at = cm.assign_meta()?;
        progress(&format!("hbase:meta is on {meta_at}"));
        cm.load_catalog()?;
        progress("every region is assigned");
        if cm.master.access.is_enabled() {
            crate::acl_store::start(&cm.master, &cm.master.access)?;
            cm.publish_acl()?;
            progress("access control on: grants from hbase:acl published to /hbase/acl");
        }
        Ok(Some(Arc::new(cm)))
    }

    fn server_arrived(&self, name: &str) -> Result<()> {
        let Some(server) = ServerName::parse(name) else {
            return Ok(());
        };
        let admin = RemoteServer::new(server, self.settings.link())?;
        self.master.servers.add(Arc::new(admin));
        self.known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned());
        Ok(())
    }

    /// Directories under `WALs/` of servers not alive: not registered, and (where the
    /// storage can tell) not locked by a running process.
    fn dead_wal_dirs(&self) -> Result<Vec<String>> {
        let fs = self.settings.fs.as_ref();
        let wal_root = self.settings.root.join(layout::WAL_DIR);
        let known = self
            .known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut dead = Vec::new();
        for entry in layout::list(fs, &wal_root)? {
            let name = entry.strip_suffix(SPLITTING).unwrap_or(&entry).to_owned();
            if known.contains(&name) {
                continue;
            }
            if !entry.ends_with(SPLITTING) {
                let dir = wal_root.join(&entry);
                // Nothing to split. It may be a server starting up: one that created its
                // directory and has not locked it yet (it writes no log before it has), whose
                // directory a split would rename from under it. A gone server's empty
                // directory goes when a region recorded on it is recovered.
                if basalt_wal::segments_in(fs, &dir)?.is_empty() {
                    continue;
                }
                if let Err(FsError::Locked(_)) = fs.lock(&dir.join("LOCK")) {
                    // A server starting up, not registered yet.
                    continue;
                }
            }
            dead.push(name);
        }
        dead.sort();
        dead.dedup();
        Ok(dead)
    }

    /// Fences a gone server and splits its log (`hbck::split_dead_wal`).
    fn split_wal(&self, name: &str) -> Result<()> {
        crate::hbck::split_dead_wal(&self.master, name, false).map(|_| ())
    }

    /// The server a region recorded on `recorded` opens on: that one if it lives; else another,
    /// once `recorded`'s log is split. A server that is not registered may still run (cut off
    /// from ZooKeeper, its WAL directory locked), and its log may hold edits of the region
    /// that no store file has: opening the region elsewhere before the split would lose them.
    /// The split fences it first (its directory renamed), so it acknowledges nothing more.
    fn live_or_split(
        &self,
        recorded: Option<&ServerName>,
    ) -> Result<Arc<dyn crate::servers::RegionServerAdmin>> {
        if let Some(recorded) = recorded {
            let name = recorded.to_string();
            if let Some(server) = self.master.servers.get(&name) {
                return Ok(server);
            }
            self.split_wal(&name)?;
        }
        self.master.servers.pick()
    }

    /// Opens meta on its recorded server if that one lives, else on another, and says where
    /// in ZooKeeper. Its server's log must have been split already.
    fn assign_meta(&self) -> Result<ServerName> {
        let info = meta_schema::meta_region_info()?;
        let recorded = self
            .zk
            .get(META_NODE)
            .map_err(io)?
            .and_then(|d| basalt_coord::read_server(&d, true))
            .map(|(host, port, code)| ServerName {
                host_port: format!("{host}:{port}"),
                start_code: i64::try_from(code).unwrap_or(0),
            });
        let server = self.live_or_split(recorded.as_ref())?;
        server.open_region(&info)?;
        let name = server.name().clone();
        let (host, port) = name.host_and_port().unwrap_or((&name.host_port, 0));
        self.zk
            .put(
                META_NODE,
                &basalt_coord::meta_data(host, port, u64::try_from(name.start_code).unwrap_or(0)),
                NodeKind::Persistent,
            )
            .map_err(io)?;
        let catalog = RemoteMeta::new(name.clone(), self.settings.link())?;
        self.master.set_catalog(Arc::new(catalog));
        *self
            .meta_server
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(name.clone());
        let meta_table = HostedTable::new(
            meta_schema::meta_descriptor()?,
            true,
            vec![Placed {
                info,
                server,
                region: None,
            }],
        );
        self.master
            .tables_mut()
            .insert(meta_table.name.clone(), meta_table);
        Ok(name)
    }

    /// Reads the catalog and opens every region of every enabled table: on the server that
    /// holds it if that one lives (opening an open region changes nothing), else on another.
    fn load_catalog(&self) -> Result<()> {
        let master = &self.master;
        let catalog = master.catalog();
        master.continue_after(catalog.newest_timestamp()?);
        let mut namespaces = meta::read_namespaces(catalog.as_ref())?;
        if namespaces.is_empty() {
            let mut batch = master.meta_batch();
            for ns in meta::builtin_namespaces() {
                batch.namespace(&ns);
            }
            batch.commit(catalog.as_ref())?;
            namespaces = meta::read_namespaces(catalog.as_ref())?;
        }
        *master.namespaces_mut() = namespaces
            .into_iter()
            .map(|n| (n.name.clone(), n))
            .collect();
        let states = meta::read_table_states(catalog.as_ref())?;
        let rows = meta::read_regions(catalog.as_ref())?;
        for (name, state) in &states {
            // A restore a crash interrupted: its schema, if its catalog commit is in.
            crate::snapshots::settle_journal(master.fs.as_ref(), &master.table_dir(name), &rows)?;
            let descriptor = layout::read_descriptor(master.fs.as_ref(), &master.table_dir(name))?;
            let enabled = *state == TableState::Enabled;
            let mut placed = Vec::new();
            let mut batch = master.meta_batch();
            for row in rows
                .iter()
                .filter(|r| &r.info.table == name && r.is_serving())
            {
                let server = self.live_or_split(row.server.as_ref())?;
                if enabled {
                    let seq_id = server.open_region(&row.info)?;
                    if row.server.as_ref() != Some(server.name())
                        || row.state.as_deref() != Some("OPEN")
                    {
                        batch
                            .region(&row.info, "OPEN", server.name())
                            .opened(&row.info, seq_id);
                    }
                }
                placed.push(Placed {
                    info: row.info.clone(),
                    server,
                    region: None,
                });
            }
            batch.commit(catalog.as_ref())?;
            master
                .tables_mut()
                .insert(name.clone(), HostedTable::new(descriptor, enabled, placed));
        }
        Ok(())
    }

    /// One look at the cluster (every few hundred milliseconds): servers that registered are
    /// taken on, servers whose session ended are recovered. Fails when this master's own
    /// session is lost: it must stop, a backup takes over.
    pub fn tick(&self) -> Result<()> {
        if self.zk.is_lost() {
            return Err(Error::storage(
                "this master's ZooKeeper session is lost: another master takes over",
            ));
        }
        let live: BTreeSet<String> = self.zk.children(RS_DIR).map_err(io)?.into_iter().collect();
        let backups: Vec<ServerName> = self
            .zk
            .children(BACKUP_MASTERS_DIR)
            .map_err(io)?
            .iter()
            .filter_map(|n| ServerName::parse(n))
            .collect();
        *self
            .master
            .backup_masters
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = backups;
        let known = self
            .known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let mut arrived = false;
        for name in live.difference(&known) {
            self.server_arrived(name)?;
            arrived = true;
        }
        for name in known.difference(&live) {
            self.server_gone(name)?;
        }
        if !arrived {
            self.assign_waiting()?;
        }
        let on = self.master.balancer_on.load(Ordering::Acquire);
        if self.balancer_written.swap(on, Ordering::AcqRel) != on {
            self.zk
                .put(
                    BALANCER_NODE,
                    &basalt_coord::balancer_data(self.host(), on),
                    NodeKind::Persistent,
                )
                .map_err(io)?;
        }
        if arrived {
            // A server that came gets its share of the regions at once.
            self.chores.hurry(crate::chores::BALANCER.name);
        }
        self.chores.tick(&self.master, &self.settings.live);
        if self.master.access.is_enabled() {
            self.publish_acl()?;
        }
        // Quotas wait while hbase:quota cannot be read (its region is moving): the servers
        // keep the state last published.
        let _ = self.publish_quota();
        self.publish_draining()
    }

    /// Keeps `/hbase/draining` the set of servers out of service, and `/hbase/switch` the
    /// switches that are off, for the next active master.
    fn publish_draining(&self) -> Result<()> {
        for (name, flag) in [
            ("split", &self.master.split_on),
            ("merge", &self.master.merge_on),
        ] {
            let path = format!("{SWITCH_DIR}/{name}");
            let on = flag.load(Ordering::Acquire);
            match (on, self.zk.exists(&path).map_err(io)?) {
                (false, false) => {
                    self.zk
                        .put(&path, b"off", NodeKind::Persistent)
                        .map_err(io)?;
                }
                (true, true) => self.zk.delete(&path).map_err(io)?,
                _ => {}
            }
        }
        let wanted = self.master.servers.decommissioned();
        let there = self.zk.children(DRAINING_DIR).map_err(io)?;
        for name in wanted.iter().filter(|n| !there.contains(n)) {
            self.zk
                .put(&format!("{DRAINING_DIR}/{name}"), b"", NodeKind::Persistent)
                .map_err(io)?;
        }
        for name in there.iter().filter(|n| !wanted.contains(n)) {
            self.zk
                .delete(&format!("{DRAINING_DIR}/{name}"))
                .map_err(io)?;
        }
        Ok(())
    }

    /// Writes the grants in force to `/hbase/acl` if they changed since last written: a grant
    /// or revoke reaches the region servers within a tick and their next look.
    fn publish_acl(&self) -> Result<()> {
        let grants = self
            .master
            .access
            .acl()
            .grants()
            .cloned()
            .collect::<Vec<_>>();
        let data = basalt_coord::acl_data(self.host(), &grants);
        self.publish(basalt_coord::ACL_NODE, data, &self.acl_written)
    }

    /// Writes the quota state to `/hbase/quota` if it changed since last written: a quota,
    /// switch or space policy reaches the region servers within a tick and their next look.
    fn publish_quota(&self) -> Result<()> {
        let state = crate::quota_store::state(&self.master)?;
        let data = basalt_coord::quota_data(self.host(), &state);
        self.publish(basalt_coord::QUOTA_NODE, data, &self.quota_written)
    }

    /// This master's host, which the data it publishes names.
    fn host(&self) -> &str {
        self.settings
            .host_port
            .rsplit_once(':')
            .map_or("", |(h, _)| h)
    }

    /// Writes `data` to `node` unless it is what was `written` there last. The framing's id
    /// (pid@host) is the same every time, so equal bytes mean equal contents.
    fn publish(&self, node: &str, data: Vec<u8>, written: &Mutex<Vec<u8>>) -> Result<()> {
        let mut written = written.lock().unwrap_or_else(PoisonError::into_inner);
        if *written != data {
            self.zk.put(node, &data, NodeKind::Persistent).map_err(io)?;
            *written = data;
        }
        Ok(())
    }

    /// Opens the regions a server recovery left unassigned (their region server group had no
    /// live server then) once a server of their group is there.
    fn assign_waiting(&self) -> Result<()> {
        let waiting = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if waiting.is_empty() {
            return Ok(());
        }
        let tables: Vec<Arc<HostedTable>> = self.master.tables().values().cloned().collect();
        for table in tables
            .iter()
            .filter(|t| !t.name.is_meta() && t.is_enabled())
        {
            let waiting: Vec<Placed> = table
                .placed()
                .into_iter()
                .filter(|p| waiting.contains(&p.info.region_name()[..]))
                .collect();
            if waiting.is_empty() {
                continue;
            }
            let _ddl = self.master.ddl();
            for p in waiting {
                // Still no server of its group: it waits for the next tick.
                let Ok(server) = crate::rsgroup::pick(&self.master, &table.name) else {
                    return Ok(());
                };
                let seq_id = server.open_region(&p.info)?;
                let mut batch = self.master.meta_batch();
                batch
                    .region(&p.info, "OPEN", server.name())
                    .opened(&p.info, seq_id);
                batch.commit(self.master.catalog().as_ref())?;
                table.replace_regions(
                    std::slice::from_ref(&p.info),
                    vec![self.master.placed(&p.info, &server)],
                );
                self.waiting
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&p.info.region_name()[..]);
                eprintln!(
                    "region {} of {} assigned to {} in its RSGroup",
                    p.info.encoded_name(),
                    table.name,
                    server.name()
                );
            }
        }
        Ok(())
    }

    /// HBase's ServerCrashProcedure: the server is fenced and its log split; meta (if it was
    /// there) and then its regions are opened on the live servers and the catalog updated.
    fn server_gone(&self, name: &str) -> Result<()> {
        let params = vec![("serverName".into(), name.to_owned())];
        self.master.procedure_log.track(
            "ServerCrashProcedure",
            crate::procedure_log::Resource::Server(name.to_owned()),
            params,
            || self.recover_server(name),
        )
    }

    /// [`ClusterMaster::server_gone`]'s work.
    fn recover_server(&self, name: &str) -> Result<()> {
        let _ddl = self.master.ddl();
        let Some(gone) = ServerName::parse(name) else {
            return Ok(());
        };
        self.master.servers.remove(name);
        self.split_wal(name)?;
        let had_meta = self
            .meta_server
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            == Some(&gone);
        if had_meta {
            self.assign_meta()?;
        }
        let catalog = self.master.catalog();
        let tables: Vec<Arc<HostedTable>> = self.master.tables().values().cloned().collect();
        for table in tables.iter().filter(|t| !t.name.is_meta()) {
            let mut batch = self.master.meta_batch();
            for p in table
                .placed()
                .into_iter()
                .filter(|p| *p.server.name() == gone)
            {
                let server = match crate::rsgroup::pick(&self.master, &table.name) {
                    Ok(s) => s,
                    // Its group has no live server: the region waits for one (`assign_waiting`).
                    Err(Error::Refused(why)) => {
                        eprintln!(
                            "WARNING: region {} stays unassigned: {why}",
                            p.info.encoded_name()
                        );
                        batch.region_state(&p.info, "CLOSED");
                        self.waiting
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner)
                            .insert(p.info.region_name().to_vec());
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                if table.is_enabled() {
                    let seq_id = server.open_region(&p.info)?;
                    batch
                        .region(&p.info, "OPEN", server.name())
                        .opened(&p.info, seq_id);
                }
                let moved = Placed {
                    info: p.info.clone(),
                    server,
                    region: None,
                };
                table.replace_regions(std::slice::from_ref(&p.info), vec![moved]);
            }
            batch.commit(catalog.as_ref())?;
        }
        self.known
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name);
        let mut dead = self
            .master
            .dead_servers
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        dead.push(gone);
        // HBase lists dead servers until they come back; a bounded list here.
        let excess = dead.len().saturating_sub(MAX_DEAD_LISTED);
        dead.drain(..excess);
        Ok(())
    }

    /// Gives up the active role: the session ends, a backup master takes over.
    pub fn resign(self: Arc<Self>) {
        match Arc::try_unwrap(self) {
            Ok(cm) => cm.zk.close(),
            Err(shared) => {
                let _ = shared.zk.delete(MASTER_NODE);
            }
        }
    }

    /// Where meta is served.
    pub fn meta_server(&self) -> Option<ServerName> {
        self.meta_server
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until every region of `table` is served (for tools and tests), at most `within`.
    pub fn wait_for_table(&self, table: &TableName, within: Duration) -> Result<()> {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if self.master.tables().contains_key(table) {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(Error::TableNotFound(table.clone()))
    }
}

/// Dead servers the cluster status lists, at most.
const MAX_DEAD_LISTED: usize = 100;

/// The suffix of a fenced server's WAL directory being split.
const SPLITTING: &str = "-splitting";

/// The catalog before meta is assigned: every call fails.
#[derive(Debug)]
struct Unassigned;

impl MetaStore for Unassigned {
    fn mutate_rows(&self, _: &[basalt_region::RowMutation]) -> Result<()> {
        Err(Error::storage("hbase:meta is not assigned yet"))
    }

    fn scan_family(&self, _: &[u8]) -> Result<Vec<basalt_common::RowResult>> {
        Err(Error::storage("hbase:meta is not assigned yet"))
    }

    fn newest_timestamp(&self) -> Result<i64> {
        Err(Error::storage("hbase:meta is not assigned yet"))
    }
}
