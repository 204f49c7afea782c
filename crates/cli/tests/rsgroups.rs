//! Region server groups (issue 48) on a real cluster of four region servers: tables moved to a
//! group of two servers end up only there, stay there through the balancer and a kill -9 of
//! one of them, and other tables stay off those servers. With both gone the group's regions
//! wait unassigned (the master says so), and a server moved into the group takes them.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use basalt_embedded::{Client, DataClient, Get, Put, TableName};
use support::basalt_with_input;
use support::cluster::Cluster;

/// The `host:port` of each region of `table`, as the client sees them (none while no region
/// of it is open).
fn homes(conn: &dyn Client, table: &str) -> Vec<String> {
    conn.regions(&TableName::parse(table).unwrap())
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let server = r.server.clone().unwrap_or_default();
            basalt_embedded::rsgroup::address(&server).unwrap_or(server)
        })
        .collect()
}

fn eventually(what: &str, cluster: &Cluster, f: impl Fn() -> bool) {
    let started = Instant::now();
    while !f() {
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "{what}: {:?}",
            cluster.lines()
        );
        std::thread::sleep(Duration::from_millis(250));
    }
}

#[test]
fn a_groups_tables_stay_on_its_servers_through_the_balancer_and_a_crash() {
    let cluster = Cluster::start(4, 1);
    let admin = cluster.connect();
    let shell = |input: &str| {
        let (ok, out, err) =
            basalt_with_input(&["shell", "--zookeeper", &cluster.quorum, "-n"], input);
        assert!(ok, "{out}{err}");
        out
    };
    let addrs: Vec<String> = cluster.servers.keys().cloned().collect();
    let (group, rest): (BTreeSet<String>, BTreeSet<String>) = (
        addrs[..2].iter().cloned().collect(),
        addrs[2..].iter().cloned().collect(),
    );
    shell(
        "create 'pinned', 'f', SPLITS => ['b', 'd', 'f', 'h', 'j', 'l', 'n']\n\
         create 'other', 'f', SPLITS => ['b', 'd', 'f', 'h', 'j', 'l', 'n']\n\
         add_rsgroup 'grp'\n",
    );
    let out = shell(&format!(
        "move_servers_rsgroup 'grp', ['{}', '{}']\nmove_tables_rsgroup 'grp', ['pinned']\n\
         balance_rsgroup 'grp'\nlist_rsgroups\nget_table_rsgroup 'pinned'\n",
        addrs[0], addrs[1]
    ));
    assert!(out.contains("table pinned"), "{out}");
    let only_in = |table: &str, servers: &BTreeSet<String>| {
        let homes = homes(admin.as_ref(), table);
        !homes.is_empty() && homes.iter().all(|h| servers.contains(h))
    };
    let pinned = homes(admin.as_ref(), "pinned");
    assert!(
        only_in("pinned", &group),
        "pinned on {pinned:?}, not only {group:?}"
    );
    assert_eq!(
        pinned.iter().collect::<BTreeSet<_>>().len(),
        2,
        "the group's balancer spreads pinned over both: {pinned:?}"
    );
    assert!(
        only_in("other", &rest),
        "other on {:?}",
        homes(admin.as_ref(), "other")
    );

    let t = TableName::parse("pinned").unwrap();
    let o = TableName::parse("other").unwrap();
    for i in 0..100 {
        let row = format!("{}{i:02}", (b'a' + (i % 16) as u8) as char);
        admin
            .put(&t, &Put::new(row.clone()).add_column("f", "q", "v"))
            .unwrap();
        admin
            .put(&o, &Put::new(row).add_column("f", "q", "v"))
            .unwrap();
    }
    // The cluster-wide balancer keeps each group to itself.
    assert!(shell("balancer\n").contains("true"));
    assert!(only_in("pinned", &group) && only_in("other", &rest));

    // kill -9 of one of the group's servers: its regions go to the other one alone.
    let first = addrs[0].clone();
    Cluster::kill(cluster.servers[&first]);
    let survivor: BTreeSet<String> = [addrs[1].clone()].into_iter().collect();
    eventually(
        "pinned never came back on the group's other server",
        &cluster,
        || only_in("pinned", &survivor),
    );
    assert!(
        only_in("other", &rest),
        "other on {:?}",
        homes(admin.as_ref(), "other")
    );
    let readable = |table: &TableName| {
        (0..100).all(|i| {
            let row = format!("{}{i:02}", (b'a' + (i % 16) as u8) as char);
            admin.get(table, &Get::new(row)).unwrap().cells.len() == 1
        })
    };
    assert!(readable(&t));

    // Both gone: the group's regions wait, and the master says so; other tables serve on.
    Cluster::kill(cluster.servers[&addrs[1]]);
    eventually("the master never said the regions wait", &cluster, || {
        cluster
            .lines()
            .iter()
            .any(|l| l.contains("stays unassigned") && l.contains("RSGroup grp"))
    });
    assert!(readable(&o));
    assert!(
        !homes(admin.as_ref(), "pinned")
            .iter()
            .any(|h| rest.contains(h)),
        "pinned went outside its group"
    );

    // A server moved into the group takes them; the rows are all there.
    shell(&format!("move_servers_rsgroup 'grp', ['{}']\n", addrs[2]));
    let newcomer: BTreeSet<String> = [addrs[2].clone()].into_iter().collect();
    eventually(
        "the waiting regions never opened on the group's new server",
        &cluster,
        || only_in("pinned", &newcomer),
    );
    assert!(readable(&t));
    let last: BTreeSet<String> = [addrs[3].clone()].into_iter().collect();
    assert!(
        only_in("other", &last),
        "other on {:?}",
        homes(admin.as_ref(), "other")
    );
}
