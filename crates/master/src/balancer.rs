//! The balancer (HBase's `SimpleLoadBalancer`) and moving regions by hand: the plan keeps
//! every live server within one region of the average count of user regions (`hbase:meta`
//! stays where it is), moving as few regions as it can; a move closes the region on its
//! server (flushing it), opens it on the other and records the new place in `hbase:meta`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use basalt_common::{Error, RegionInfo, Result};

use basalt_common::rsgroup::{DEFAULT_GROUP, RsGroup};

use crate::master::{HostedTable, Master, Placed};
use crate::rsgroup;
use crate::servers::RegionServerAdmin;

/// One region to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub region: RegionInfo,
    pub from: String,
    pub to: String,
}

/// The moves that even out `load` (each server's name and the regions it holds): after them
/// every server holds the average count rounded down or up. The most loaded servers give
/// their last regions to the least loaded.
pub fn plan(load: &BTreeMap<String, Vec<RegionInfo>>) -> Vec<Move> {
    let servers = load.len();
    if servers < 2 {
        return Vec::new();
    }
    let total: usize = load.values().map(Vec::len).sum();
    let (floor, extra) = (total / servers, total % servers);
    // The most loaded keep the rounded-up counts.
    let mut order: Vec<(&String, &Vec<RegionInfo>)> = load.iter().collect();
    order.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let target = |rank: usize| floor + usize::from(rank < extra);
    let mut surplus: Vec<(String, Vec<RegionInfo>)> = Vec::new();
    let mut room: Vec<(String, usize)> = Vec::new();
    for (rank, (name, regions)) in order.iter().enumerate() {
        let want = target(rank);
        if regions.len() > want {
            surplus.push(((*name).clone(), regions[want..].to_vec()));
        } else if regions.len() < want {
            room.push(((*name).clone(), want - regions.len()));
        }
    }
    let mut moves = Vec::new();
    let mut takers = room
        .into_iter()
        .flat_map(|(name, n)| std::iter::repeat_n(name, n));
    for (from, regions) in surplus {
        for region in regions {
            let Some(to) = takers.next() else {
                return moves;
            };
            moves.push(Move {
                region,
                from: from.clone(),
                to,
            });
        }
    }
    moves
}

/// Each live server of region server group `group` with its user regions (of enabled tables
/// of the group), by server name.
fn load(master: &Master, groups: &[RsGroup], group: &str) -> BTreeMap<String, Vec<RegionInfo>> {
    // A decommissioned server neither gives nor takes in a plan.
    let mut load: BTreeMap<String, Vec<RegionInfo>> = rsgroup::live_servers(master, groups, group)
        .iter()
        .map(|s| (s.name().to_string(), Vec::new()))
        .collect();
    for table in master.tables().values() {
        if table.name.is_system()
            || !table.is_enabled()
            || rsgroup::group_of_table(master, groups, &table.name) != group
        {
            continue;
        }
        for p in table.placed() {
            if let Some(list) = load.get_mut(&p.server.name().to_string()) {
                list.push(p.info);
            }
        }
    }
    load
}

/// Runs the balancer once (HBase's `balancer`): false if it is switched off; otherwise the
/// moves it made. Regions on a server outside their table's group go to the group's servers
/// first; then each group is balanced over its own servers.
pub fn balance(master: &Master) -> Result<Option<usize>> {
    if !master.balancer_on.load(Ordering::Acquire) {
        return Ok(None);
    }
    master.metrics.balancer_runs.inc();
    run(master, true).map(|(_, done)| Some(done))
}

/// The moves a run would make now, made none of (HBase's `balance` with `dry_run`): it plans
/// whether or not the balancer is switched on, as HBase's does.
pub fn dry_run(master: &Master) -> Result<usize> {
    run(master, false).map(|(planned, _)| planned)
}

/// Every group's run under the DDL lock, moving only when `execute`: moves planned, made.
fn run(master: &Master, execute: bool) -> Result<(usize, usize)> {
    let _ddl = master.ddl();
    master.check_open()?;
    let groups = rsgroup::groups(master)?;
    let mut names = vec![DEFAULT_GROUP.to_owned()];
    names.extend(groups.iter().map(|g| g.name.clone()));
    let (mut planned, mut done) = (0, 0);
    for name in &names {
        let (p, d) = balance_locked(master, &groups, name, execute)?;
        planned += p;
        done += d;
    }
    Ok((planned, done))
}

/// Balances region server group `name` alone (HBase's `balance_rsgroup`): false if the
/// balancer is switched off.
pub fn balance_group(master: &Master, name: &str) -> Result<Option<usize>> {
    if !master.balancer_on.load(Ordering::Acquire) {
        return Ok(None);
    }
    let _ddl = master.ddl();
    master.check_open()?;
    master.metrics.balancer_runs.inc();
    let groups = rsgroup::groups(master)?;
    if name != DEFAULT_GROUP && !groups.iter().any(|g| g.name == name) {
        return Err(Error::InvalidArgument(format!(
            "RSGroup {name} does not exist"
        )));
    }
    balance_locked(master, &groups, name, true).map(|(_, done)| Some(done))
}

/// One group's run under the DDL lock: its tables' regions outside it come home, then its
/// servers are evened out (with `execute`; else only planned). Returns the moves planned and
/// those made.
fn balance_locked(
    master: &Master,
    groups: &[RsGroup],
    group: &str,
    execute: bool,
) -> Result<(usize, usize)> {
    let (mut planned, mut done) = (0, 0);
    let home = rsgroup::live_servers(master, groups, group);
    let tables: Vec<Arc<HostedTable>> = master.tables().values().cloned().collect();
    for table in tables.iter().filter(|t| {
        !t.name.is_meta()
            && t.is_enabled()
            && rsgroup::group_of_table(master, groups, &t.name) == group
    }) {
        for p in table.placed() {
            let inside = home.iter().any(|s| s.name() == p.server.name());
            // A region on a server that is not live waits for that server's recovery, which
            // splits its log first: moving it now would open it without the log's edits.
            let live = master.servers.get(&p.server.name().to_string()).is_some();
            if inside || home.is_empty() || !live {
                continue;
            }
            // Still outside after this run if it cannot move now.
            let Ok(to) = rsgroup::pick(master, &table.name) else {
                continue;
            };
            planned += 1;
            if execute && move_locked(master, &p.info, &to).is_ok() {
                done += 1;
            }
        }
    }
    let load = load(master, groups, group);
    let moves = plan(&load);
    planned += moves.len();
    if !execute {
        return Ok((planned, 0));
    }
    if !load.is_empty() {
        record(master, &load, &moves);
    }
    for m in moves {
        let Some(to) = master.servers.get(&m.to) else {
            continue;
        };
        // A region that cannot move now stays; the next run tries again.
        if move_locked(master, &m.region, &to).is_ok() {
            done += 1;
        }
    }
    master.metrics.regions_moved.add(done as u64);
    Ok((planned, done))
}

/// The spread of a load: the most and fewest regions a server holds.
fn spread(counts: impl Iterator<Item = usize>) -> (usize, usize) {
    counts.fold((0, usize::MAX), |(max, min), n| (max.max(n), min.min(n)))
}

fn costs(max: usize, min: usize) -> String {
    format!(
        "RegionCountSkew : (most {max}, fewest {} user regions a server); ",
        if min == usize::MAX { 0 } else { min }
    )
}

/// Keeps what a run decided in the master's balancer log: a decision with its moves, or a
/// rejection saying why nothing moves.
fn record(master: &Master, load: &BTreeMap<String, Vec<RegionInfo>>, moves: &[Move]) {
    let (max, min) = spread(load.values().map(Vec::len));
    basalt_common::log::log("balancer", basalt_common::log::Level::Debug, || {
        format!(
            "{} servers, {} moves planned; {}",
            load.len(),
            moves.len(),
            costs(max, min)
        )
    });
    if moves.is_empty() {
        let reason = if load.len() < 2 {
            format!(
                "Cluster has {} server(s) in service: nothing to balance",
                load.len()
            )
        } else {
            "The cluster is balanced: every server holds the average count of user regions \
             rounded down or up"
                .to_owned()
        };
        master
            .balancer_log
            .rejected(basalt_common::balancer_log::Rejection {
                reason,
                cost_func_info: vec![costs(max, min)],
            });
        return;
    }
    let mut after: BTreeMap<&str, isize> = load
        .iter()
        .map(|(s, r)| (s.as_str(), r.len() as isize))
        .collect();
    for m in moves {
        *after.entry(m.from.as_str()).or_default() -= 1;
        *after.entry(m.to.as_str()).or_default() += 1;
    }
    let (fmax, fmin) = spread(after.values().map(|n| usize::try_from(*n).unwrap_or(0)));
    let skew = |max: usize, min: usize| max.saturating_sub(if min == usize::MAX { 0 } else { min });
    master
        .balancer_log
        .decided(basalt_common::balancer_log::Decision {
            initial_function_costs: costs(max, min),
            final_function_costs: costs(fmax, fmin),
            init_total_cost: skew(max, min) as f64,
            computed_total_cost: skew(fmax, fmin) as f64,
            computed_steps: moves.len() as u64,
            region_plans: moves
                .iter()
                .map(|m| {
                    format!(
                        "region {} from {} to {}",
                        m.region.encoded_name(),
                        m.from,
                        m.to
                    )
                })
                .collect(),
        });
}

/// The placed region `info` of its table, if it is still the one placed at its start key.
fn placed(master: &Master, info: &RegionInfo) -> Result<(Arc<HostedTable>, Placed)> {
    let table = master.table(&info.table)?;
    let p = table.placed_for(&info.start_key)?;
    if p.info != *info {
        return Err(Error::UnknownRegion(
            String::from_utf8_lossy(&info.region_name()).into_owned(),
        ));
    }
    Ok((table, p))
}

/// Moves the region named `name` (full or encoded) to `to` (a live server's name,
/// `host,port,startcode`, or `host:port`), or, with no target, to another live server
/// (HBase's `move`).
fn move_region_run(master: &Master, name: &[u8], to: Option<&str>) -> Result<()> {
    let _ddl = master.ddl();
    let (table, p) = master.find_placed(name)?;
    if table.name.is_meta() {
        return Err(Error::Refused(
            "hbase:meta moves only when its server goes".into(),
        ));
    }
    let groups = rsgroup::groups(master)?;
    let group = rsgroup::group_of_table(master, &groups, &table.name);
    let target = match to {
        Some(wanted) => {
            let target = find_server(master, wanted)?;
            if !rsgroup::fits(master, &table.name, target.as_ref())? {
                return Err(Error::Refused(format!(
                    "Target server {} is not in RSGroup {group} of table {}",
                    target.name(),
                    table.name
                )));
            }
            target
        }
        None => rsgroup::live_servers(master, &groups, &group)
            .into_iter()
            .find(|s| s.name() != p.server.name())
            .ok_or_else(|| {
                Error::Refused(format!(
                    "no other live server of RSGroup {group} to move the region to"
                ))
            })?,
    };
    move_locked(master, &p.info, &target)
}

/// A live server by its name (`host,port,startcode`) or address (`host:port`).
fn find_server(master: &Master, wanted: &str) -> Result<Arc<dyn RegionServerAdmin>> {
    let server = live_server(master, wanted)?;
    if master.servers.is_decommissioned(&server.name().to_string()) {
        return Err(Error::Refused(format!(
            "Target server {} is decommissioned",
            server.name()
        )));
    }
    Ok(server)
}

/// The live server named `wanted` (`host,port,startcode` or `host:port`).
pub fn live_server(master: &Master, wanted: &str) -> Result<Arc<dyn RegionServerAdmin>> {
    master
        .servers
        .all()
        .into_iter()
        .find(|s| {
            let name = s.name();
            name.to_string() == wanted || name.host_port == wanted
        })
        .ok_or_else(|| Error::InvalidArgument(format!("{wanted} is not a live region server")))
}

/// Takes servers out of service (HBase's `decommission_regionservers`): they get no new
/// region, and with `offload` their user regions move to the servers in service. Returns the
/// regions moved.
pub fn decommission(master: &Master, servers: &[String], offload: bool) -> Result<usize> {
    let found = servers
        .iter()
        .map(|s| live_server(master, s))
        .collect::<Result<Vec<_>>>()?;
    for s in &found {
        master
            .servers
            .set_decommissioned(&s.name().to_string(), true);
    }
    if !offload {
        return Ok(0);
    }
    let _ddl = master.ddl();
    let mut moved = 0;
    for s in &found {
        for table in master.tables().values() {
            if table.name.is_meta() {
                continue;
            }
            for p in table
                .placed()
                .into_iter()
                .filter(|p| p.server.name() == s.name())
            {
                let to = rsgroup::pick(master, &p.info.table)?;
                move_locked(master, &p.info, &to)?;
                moved += 1;
            }
        }
    }
    master.metrics.regions_moved.add(moved as u64);
    Ok(moved)
}

/// Puts a server back in service (HBase's `recommission_regionserver`), and moves the regions
/// named (full or encoded names) back onto it.
pub fn recommission(master: &Master, server: &str, regions: &[Vec<u8>]) -> Result<()> {
    let s = live_server(master, server)?;
    master
        .servers
        .set_decommissioned(&s.name().to_string(), false);
    for region in regions {
        move_region(master, region, Some(&s.name().to_string()))?;
    }
    Ok(())
}

/// Moves a region to `to` under the DDL lock: closed where it is (flushed), opened there,
/// recorded in meta. If it cannot open there, it opens where it was and the error says why.
pub(crate) fn move_locked(
    master: &Master,
    info: &RegionInfo,
    to: &Arc<dyn RegionServerAdmin>,
) -> Result<()> {
    let (table, p) = placed(master, info)?;
    if p.server.name() == to.name() {
        return Ok(());
    }
    p.server.close_region(info)?;
    let seq_id = match to.open_region(info) {
        Ok(seq) => seq,
        Err(e) => {
            p.server.open_region(info)?;
            return Err(e);
        }
    };
    let mut batch = master.meta_batch();
    batch.region(info, "OPEN", to.name()).opened(info, seq_id);
    batch.commit(master.catalog().as_ref())?;
    table.replace_regions(std::slice::from_ref(info), vec![master.placed(info, to)]);
    Ok(())
}

/// Closes a region and leaves it closed (HBase's `unassign`): state CLOSED in meta; calls on
/// it fail (NotServingRegion) until it is assigned again.
fn unassign_run(master: &Master, name: &[u8]) -> Result<()> {
    let _ddl = master.ddl();
    let (table, p) = master.find_placed(name)?;
    if table.name.is_meta() {
        return Err(Error::Refused("hbase:meta cannot be unassigned".into()));
    }
    p.server.close_region(&p.info)?;
    let mut batch = master.meta_batch();
    batch.region_state(&p.info, "CLOSED");
    batch.commit(master.catalog().as_ref())
}

/// Opens a region (HBase's `assign`): on the server it was placed on if that one lives,
/// else on another; opening an open region changes nothing.
fn assign_run(master: &Master, name: &[u8]) -> Result<()> {
    let _ddl = master.ddl();
    let (table, p) = master.find_placed(name)?;
    if !table.is_enabled() {
        return Err(Error::TableNotEnabled(table.name.clone()));
    }
    let server = match master.servers.get(&p.server.name().to_string()) {
        Some(s) => s,
        None => rsgroup::pick(master, &table.name)?,
    };
    let seq_id = server.open_region(&p.info)?;
    let mut batch = master.meta_batch();
    batch
        .region(&p.info, "OPEN", server.name())
        .opened(&p.info, seq_id);
    batch.commit(master.catalog().as_ref())?;
    table.replace_regions(
        std::slice::from_ref(&p.info),
        vec![master.placed(&p.info, &server)],
    );
    Ok(())
}

/// [`move_region_run`] as a recorded procedure.
pub fn move_region(master: &Master, name: &[u8], to: Option<&str>) -> Result<()> {
    let params = vec![
        ("region".into(), String::from_utf8_lossy(name).into_owned()),
        ("to".into(), to.unwrap_or("any").to_owned()),
    ];
    master.procedure_log.track(
        "TransitRegionStateProcedure",
        crate::procedure_log::Resource::Region(String::from_utf8_lossy(name).into_owned()),
        params,
        || move_region_run(master, name, to),
    )
}

/// [`unassign_run`] as a recorded procedure.
pub fn unassign(master: &Master, name: &[u8]) -> Result<()> {
    let params = vec![
        ("region".into(), String::from_utf8_lossy(name).into_owned()),
        ("type".into(), "UNASSIGN".into()),
    ];
    master.procedure_log.track(
        "TransitRegionStateProcedure",
        crate::procedure_log::Resource::Region(String::from_utf8_lossy(name).into_owned()),
        params,
        || unassign_run(master, name),
    )
}

/// [`assign_run`] as a recorded procedure.
pub fn assign(master: &Master, name: &[u8]) -> Result<()> {
    let params = vec![
        ("region".into(), String::from_utf8_lossy(name).into_owned()),
        ("type".into(), "ASSIGN".into()),
    ];
    master.procedure_log.track(
        "TransitRegionStateProcedure",
        crate::procedure_log::Resource::Region(String::from_utf8_lossy(name).into_owned()),
        params,
        || assign_run(master, name),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::{Bytes, TableName};

    fn regions(n: usize, first: usize) -> Vec<RegionInfo> {
        (first..first + n)
            .map(|i| {
                RegionInfo::new(
                    TableName::parse("t").unwrap_or_else(|e| panic!("{e}")),
                    Bytes::from(format!("{i:04}")),
                    Bytes::from(format!("{:04}", i + 1)),
                    1,
                )
            })
            .collect()
    }

    fn after(load: &BTreeMap<String, Vec<RegionInfo>>, moves: &[Move]) -> BTreeMap<String, usize> {
        let mut counts: BTreeMap<String, usize> =
            load.iter().map(|(k, v)| (k.clone(), v.len())).collect();
        for m in moves {
            *counts.entry(m.from.clone()).or_default() -= 1;
            *counts.entry(m.to.clone()).or_default() += 1;
        }
        counts
    }

    #[test]
    fn a_new_server_gets_its_share_and_no_more_moves_than_needed() {
        let load = BTreeMap::from([
            ("a".to_owned(), regions(4, 0)),
            ("b".to_owned(), regions(3, 4)),
            ("c".to_owned(), regions(2, 7)),
            ("d".to_owned(), Vec::new()),
        ]);
        let moves = plan(&load);
        // Nine regions over four servers: 3, 2, 2, 2.
        let counts = after(&load, &moves);
        assert!(counts.values().all(|&n| n == 2 || n == 3), "{counts:?}");
        assert_eq!(counts["d"], 2);
        assert_eq!(moves.len(), 2, "{moves:?}");
        // Balanced already: nothing moves.
        assert!(
            plan(&BTreeMap::from([
                ("a".to_owned(), regions(2, 0)),
                ("b".to_owned(), regions(3, 2)),
            ]))
            .is_empty()
        );
        // One server: nothing to do.
        assert!(plan(&BTreeMap::from([("a".to_owned(), regions(5, 0))])).is_empty());
    }
}
