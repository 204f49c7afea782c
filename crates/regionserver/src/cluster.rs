//! A region server's part in a cluster, beside serving its regions: it stays registered in
//! ZooKeeper, asks the active master to split the regions that grew past their split size
//! (HBase's `CompactSplit.requestSplit`), and follows the grants the master publishes in
//! `/hbase/acl` (HBase's `ZKPermissionWatcher`). It aborts when its ZooKeeper session ends or
//! a master fences its log. `basalt regionserver` runs it after starting the server and its
//! RPC.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use basalt_common::acl::AccessControl;
use basalt_coord::ZkSession;

use crate::process::RunningServer;

/// How often the role looks at its stop flag, its session and its log's fence.
const TICK: Duration = Duration::from_millis(100);

/// The chores of a region server in a cluster; see the module documentation.
#[derive(Debug)]
pub struct ClusterRole {
    splits: SplitRequests,
    grants: GrantFollower,
    quotas: QuotaFollower,
}

impl ClusterRole {
    /// The role of a server whose masters are found through ZooKeeper `quorum`, reached with
    /// `tls` when the cluster has it; the quotas the master publishes go into `quotas` (the
    /// cache its ClientService enforces).
    pub fn new(
        quorum: &str,
        tls: Option<basalt_client::remote::TlsClient>,
        quotas: std::sync::Arc<crate::quotas::QuotaCache>,
    ) -> Self {
        ClusterRole {
            splits: SplitRequests::new(quorum, tls),
            grants: GrantFollower::default(),
            quotas: QuotaFollower {
                cache: quotas,
                node: NodeFollower::new(basalt_coord::QUOTA_NODE),
            },
        }
    }

    /// Does the chores until `stop` is set (None: stop cleanly) or the server must abort
    /// (the reason).
    pub fn run(
        &mut self,
        server: &RunningServer,
        zk: &ZkSession,
        access: &AccessControl,
        stop: &AtomicBool,
    ) -> Option<&'static str> {
        // The lease on serving, renewed by round trips to ZooKeeper on a thread of its own
        // (a round trip may wait up to the session's call timeout).
        let lease = crate::standing::lease_for(zk.session_timeout());
        let standing = &server.rs.standing;
        standing.start(std::time::Instant::now(), lease);
        let done = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !done.load(Ordering::Acquire) {
                    let sent = std::time::Instant::now();
                    if zk.round_trip("/hbase", lease / 2).is_ok() {
                        standing.renew(sent, lease);
                    }
                    std::thread::sleep(lease / 8);
                }
            });
            let why = self.chores(server, zk, access, stop);
            done.store(true, Ordering::Release);
            why
        })
    }

    fn chores(
        &mut self,
        server: &RunningServer,
        zk: &ZkSession,
        access: &AccessControl,
        stop: &AtomicBool,
    ) -> Option<&'static str> {
        loop {
            if stop.load(Ordering::Acquire) {
                return None;
            }
            // Cut off from ZooKeeper, it waits to learn whether its session lives (its lease
            // has stopped it serving; a master that took it for dead fenced its log).
            if zk.is_expired() {
                return Some("its ZooKeeper session ended");
            }
            if server.is_fenced() {
                return Some("a master fenced its log (it was taken for dead)");
            }
            // As HBase's region server aborts when its WAL cannot be synced: its regions go to
            // servers whose disks work, which replay the log.
            if let Some(failure) = server.wal_failure() {
                eprintln!("its write-ahead log failed: {failure}");
                return Some("its write-ahead log failed");
            }
            self.splits.tick(&server.rs);
            if access.is_enabled() {
                self.grants.tick(zk, access);
            }
            self.quotas.tick(zk, &server.rs);
            std::thread::sleep(TICK);
        }
    }
}

/// How often the server looks for regions that grew past their split size.
const SPLIT_CHECK: Duration = Duration::from_secs(2);
/// How long a region asked about waits before it is asked about again.
const SPLIT_RETRY: Duration = Duration::from_secs(10);

/// The region server's split requests (HBase's `CompactSplit.requestSplit`, which asks the
/// master): regions that grew past their table's split size go to the active master's
/// MasterService SplitRegion, which splits them through this server's AdminService.
#[derive(Debug)]
struct SplitRequests {
    quorum: String,
    tls: Option<basalt_client::remote::TlsClient>,
    last_check: std::time::Instant,
    asked: std::collections::HashMap<Vec<u8>, std::time::Instant>,
}

impl SplitRequests {
    fn new(quorum: &str, tls: Option<basalt_client::remote::TlsClient>) -> Self {
        SplitRequests {
            quorum: quorum.to_owned(),
            tls,
            last_check: std::time::Instant::now(),
            asked: std::collections::HashMap::new(),
        }
    }

    fn tick(&mut self, rs: &crate::RegionServer) {
        if self.last_check.elapsed() < SPLIT_CHECK {
            return;
        }
        self.last_check = std::time::Instant::now();
        self.asked.retain(|_, at| at.elapsed() < SPLIT_RETRY);
        let grown: Vec<_> = rs
            .regions_to_split()
            .into_iter()
            .filter(|info| !self.asked.contains_key(&info.region_name()[..]))
            .collect();
        if grown.is_empty() {
            return;
        }
        // A split that cannot happen now (no master, no split point) is asked for again later.
        let Ok(master) = basalt_coord::master_server(&self.quorum, Duration::from_secs(5)) else {
            return;
        };
        let Ok(client) = basalt_client::remote::RpcClient::connect_with(
            master,
            "MasterService",
            basalt_client::remote::DEFAULT_USER,
            self.tls.as_ref(),
        ) else {
            return;
        };
        let _ = client.set_timeout(Some(Duration::from_secs(120)));
        for info in grown {
            self.asked
                .insert(info.region_name().to_vec(), std::time::Instant::now());
            let request = basalt_proto::pb::SplitTableRegionRequest {
                region_info: basalt_proto::schema::region_info_pb(&info),
                ..basalt_proto::pb::SplitTableRegionRequest::default()
            };
            let _: Result<basalt_proto::pb::ProcedureResponse, _> =
                client.call("SplitRegion", &request);
        }
    }
}

/// How often a region server looks at the nodes the master publishes for it.
const FOLLOW_CHECK: Duration = Duration::from_millis(500);

/// A znode the active master publishes, read every [`FOLLOW_CHECK`]: its data when it changed
/// since the last look.
#[derive(Debug)]
struct NodeFollower {
    node: &'static str,
    last_check: Option<std::time::Instant>,
    seen: Vec<u8>,
}

impl NodeFollower {
    fn new(node: &'static str) -> Self {
        NodeFollower {
            node,
            last_check: None,
            seen: Vec::new(),
        }
    }

    fn changed(&mut self, zk: &ZkSession) -> Option<Vec<u8>> {
        if self.last_check.is_some_and(|t| t.elapsed() < FOLLOW_CHECK) {
            return None;
        }
        self.last_check = Some(std::time::Instant::now());
        let data = zk.get(self.node).ok()??;
        if data == self.seen {
            return None;
        }
        self.seen = data.clone();
        Some(data)
    }
}

/// Keeps a region server's grants as the active master last wrote them to `/hbase/acl`
/// (HBase's ZKPermissionWatcher): a grant or revoke is in force here within a look. Until
/// the node exists (no master has loaded `hbase:acl` yet) only superusers get anything.
#[derive(Debug)]
struct GrantFollower(NodeFollower);

impl Default for GrantFollower {
    fn default() -> Self {
        GrantFollower(NodeFollower::new(basalt_coord::ACL_NODE))
    }
}

impl GrantFollower {
    fn tick(&mut self, zk: &ZkSession, access: &basalt_common::acl::AccessControl) {
        let Some(data) = self.0.changed(zk) else {
            return;
        };
        match basalt_coord::read_acl(&data) {
            Ok(grants) => access.set_grants(grants),
            // Kept as it was: a bad node is the master's to mend, not a reason to open up.
            Err(e) => eprintln!("WARNING: cannot read the grants in /hbase/acl: {e}"),
        }
    }
}

/// Keeps a region server's quotas as the active master last wrote them to `/hbase/quota`:
/// throttles and switches into its ClientService's cache, space policies onto its regions.
/// Until the node exists, no quota is in force.
#[derive(Debug)]
struct QuotaFollower {
    cache: std::sync::Arc<crate::quotas::QuotaCache>,
    node: NodeFollower,
}

impl QuotaFollower {
    fn tick(&mut self, zk: &ZkSession, rs: &crate::RegionServer) {
        let Some(data) = self.node.changed(zk) else {
            return;
        };
        match basalt_coord::read_quota(&data) {
            Ok(state) => {
                self.cache.apply(&state);
                rs.set_space_policies(&state.violations);
            }
            // Kept as it was: a bad node is the master's to mend.
            Err(e) => eprintln!("WARNING: cannot read the quotas in /hbase/quota: {e}"),
        }
    }
}
