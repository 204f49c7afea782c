//! Operating a cluster (issue 47) on a real one on this machine: decommissioning a region server
//! drains it, the balancer and new tables leave it empty until it is recommissioned, and the
//! next active master still knows it is out of service.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Get, Put, TableDescriptor, TableName,
};
use support::cluster::Cluster;

/// User regions per live server.
fn load(conn: &dyn Client) -> BTreeMap<String, usize> {
    conn.cluster_summary()
        .unwrap()
        .servers
        .iter()
        .map(|s| {
            let user = s
                .regions
                .iter()
                .filter(|r| !r.name.starts_with(b"hbase:"))
                .count();
            (s.name.clone(), user)
        })
        .collect()
}

fn create(conn: &dyn Client, name: &str, splits: usize) {
    let keys: Vec<Bytes> = (1..splits)
        .map(|i| Bytes::from(format!("r{i:02}")))
        .collect();
    conn.create_table(
        TableDescriptor::named(name)
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f")),
        &keys,
    )
    .unwrap();
}

#[test]
fn a_decommissioned_server_is_drained_and_stays_empty_until_recommissioned() {
    let cluster = Cluster::start(3, 2);
    let conn = cluster.connect();
    create(conn.as_ref(), "t", 9);
    let t = TableName::parse("t").unwrap();
    for i in 0..90 {
        conn.put(
            &t,
            &Put::new(format!("r{:02}x{i}", i % 10)).add_column("f", "q", "v"),
        )
        .unwrap();
    }
    conn.balancer().unwrap();
    let before = load(conn.as_ref());
    let (victim, held) = before
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(s, n)| (s.clone(), *n))
        .unwrap();
    assert!(held > 0, "{before:?}");

    conn.decommission_region_servers(std::slice::from_ref(&victim), true)
        .unwrap();
    assert_eq!(
        conn.decommissioned_region_servers().unwrap(),
        vec![victim.clone()]
    );
    assert_eq!(load(conn.as_ref())[&victim], 0, "not drained");
    // Every row still reads, the balancer and a new table leave the server empty.
    for i in 0..90 {
        let row = conn
            .get(&t, &Get::new(format!("r{:02}x{i}", i % 10)))
            .unwrap();
        assert!(!row.cells.is_empty());
    }
    conn.balancer().unwrap();
    create(conn.as_ref(), "u", 6);
    assert_eq!(
        load(conn.as_ref())[&victim],
        0,
        "the balancer or a new table used it"
    );
    let (ok, out, err) = support::basalt_with_input(
        &["shell", "--zookeeper", &cluster.quorum, "-n"],
        "list_decommissioned_regionservers\n",
    );
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("DECOMMISSIONED REGION SERVERS") && out.contains(&victim),
        "{out}"
    );

    // A new active master knows it too (it is kept in ZooKeeper).
    let active = conn.cluster_summary().unwrap().master;
    let pid = cluster.masters[&active.split(',').take(2).collect::<Vec<_>>().join(":")];
    Cluster::kill(pid);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        match conn.decommissioned_region_servers() {
            Ok(list) if conn.cluster_summary().is_ok_and(|s| s.master != active) => {
                assert_eq!(list, vec![victim.clone()]);
                break;
            }
            _ => {}
        }
        assert!(Instant::now() < deadline, "no master took over");
        std::thread::sleep(Duration::from_millis(200));
    }
    conn.balancer().unwrap();
    assert_eq!(load(conn.as_ref())[&victim], 0);

    conn.recommission_region_server(&victim, &[]).unwrap();
    assert!(conn.decommissioned_region_servers().unwrap().is_empty());
    conn.balancer().unwrap();
    assert!(
        load(conn.as_ref())[&victim] > 0,
        "recommissioned but still empty"
    );
}
