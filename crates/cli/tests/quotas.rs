//! RPC throttles and space quotas (issue 48) on real servers. Standalone: a user throttled to
//! 100 requests a second gets 100 a second, within 10%, while another user on the same server
//! keeps its own rate; lifting the quota restores full speed within seconds. A cluster: its
//! region servers enforce the throttles and space policies the master publishes in ZooKeeper.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Client, DataClient, Delete, Error, Get, Put, ServerAdmin, TableName};
use support::cluster::Cluster;
use support::{Server, basalt_with_input};

fn shell(server: &Server, input: &str) -> String {
    let (ok, out, err) = basalt_with_input(&["shell", "--connect", &server.rpc, "-n"], input);
    assert!(ok, "{out}{err}");
    out
}

fn connect(server: &Server, user: &str) -> Arc<RemoteConnection> {
    let config = RemoteConfig {
        user: user.into(),
        ..RemoteConfig::default()
    };
    Arc::new(RemoteConnection::connect(server.rpc.parse().unwrap(), config).unwrap())
}

/// Gets a row flat out for `run`; how many answered.
fn gets(conn: &dyn Client, run: Duration) -> u64 {
    let t = TableName::parse("t").unwrap();
    let started = Instant::now();
    let mut done = 0;
    while started.elapsed() < run {
        conn.get(&t, &Get::new("r")).unwrap();
        done += 1;
    }
    done
}

#[test]
fn a_throttled_user_gets_its_rate_and_the_others_keep_theirs() {
    let server = Server::start();
    shell(
        &server,
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\n\
         set_quota TYPE => THROTTLE, USER => 'slow', LIMIT => '100req/sec'\n",
    );
    // The server reads the quotas every second.
    std::thread::sleep(Duration::from_millis(2500));
    let (slow, fast) = (connect(&server, "slow"), connect(&server, "fast"));
    // A bucket fills up to one time unit's worth while its user is idle (as HBase's
    // limiters do): spent first, so the rate measured is the steady one.
    gets(slow.as_ref(), Duration::from_millis(1500));
    let run = Duration::from_secs(10);
    let fast_thread = {
        let fast = Arc::clone(&fast);
        std::thread::spawn(move || gets(fast.as_ref(), run))
    };
    let slow_done = gets(slow.as_ref(), run);
    let fast_done = fast_thread.join().unwrap();
    let slow_rate = slow_done as f64 / run.as_secs_f64();
    let fast_rate = fast_done as f64 / run.as_secs_f64();
    eprintln!("throttled user: {slow_rate:.1}/s, the other: {fast_rate:.1}/s");
    assert!(
        (90.0..=110.0).contains(&slow_rate),
        "the throttled user got {slow_rate:.1}/s, not 100 +/- 10%"
    );
    assert!(
        fast_rate > 3.0 * slow_rate,
        "the other user was held back: {fast_rate:.1}/s"
    );

    // Lifted: full speed again within seconds.
    shell(
        &server,
        "set_quota TYPE => THROTTLE, USER => 'slow', LIMIT => NONE\n",
    );
    std::thread::sleep(Duration::from_millis(2500));
    let freed = gets(slow.as_ref(), Duration::from_secs(1));
    assert!(
        freed > 300,
        "still throttled after the quota went: {freed}/s"
    );
}

#[test]
fn a_table_throttle_holds_a_scan_call_by_call() {
    let server = Server::start();
    let mut input = String::from("create 'scanned', 'f'\n");
    for i in 0..12 {
        input.push_str(&format!("put 'scanned', 'r{i:02}', 'f:q', 'v'\n"));
    }
    input.push_str("set_quota TYPE => THROTTLE, TABLE => 'scanned', LIMIT => '4req/sec'\n");
    shell(&server, &input);
    std::thread::sleep(Duration::from_millis(2500));
    let conn = connect(&server, "reader");
    // A row per call: the first call opens the scanner on the region, the others name only
    // the scanner, and each counts against the table's throttle. Its bucket filled to one
    // second's worth (4) while idle; the 9 calls past those wait their turn.
    let started = Instant::now();
    let rows = Arc::clone(&conn)
        .scan(
            &TableName::parse("scanned").unwrap(),
            &basalt_embedded::Scan::new().with_caching(1),
        )
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let took = started.elapsed();
    assert_eq!(rows.len(), 12);
    // 9 calls at 4 a second: about 2.25 s (a slower machine only takes longer); with the
    // continuations not counted, the scan would take milliseconds.
    assert!(
        took >= Duration::from_millis(1800),
        "12 one-row scan calls under a 4 req/s table throttle took {took:?}"
    );
}

/// Retries `f` every 200 ms until it holds (at most 30 s).
fn eventually(what: &str, f: impl Fn() -> bool) {
    let started = Instant::now();
    while !f() {
        assert!(started.elapsed() < Duration::from_secs(30), "{what}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_clusters_region_servers_enforce_the_quotas_the_master_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hbase-site.xml");
    support::write_site(
        &path,
        &[("hbase.master.quotas.observer.chore.period", "1000")],
    );
    let cluster = Cluster::start_with(2, 1, &["--site", path.to_str().unwrap()]);
    let admin = cluster.connect();
    let shell = |input: &str| {
        let (ok, out, err) =
            basalt_with_input(&["shell", "--zookeeper", &cluster.quorum, "-n"], input);
        assert!(ok, "{out}{err}");
        out
    };
    shell(
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\n\
         set_quota TYPE => THROTTLE, USER => 'slow', LIMIT => '100req/sec'\n",
    );
    let user = |name: &str| {
        cluster.connect_with(RemoteConfig {
            user: name.into(),
            ..RemoteConfig::default()
        })
    };
    let (slow, fast) = (user("slow"), user("fast"));
    // In force within seconds: the bucket starts empty, so a throttled user's first second
    // answers about 100 calls.
    eventually("the throttle never reached the region server", || {
        gets(slow.as_ref(), Duration::from_secs(1)) < 150
    });
    let run = Duration::from_secs(5);
    let fast_thread = {
        let fast = Arc::clone(&fast);
        std::thread::spawn(move || gets(fast.as_ref(), run))
    };
    let slow_rate = gets(slow.as_ref(), run) as f64 / run.as_secs_f64();
    let fast_rate = fast_thread.join().unwrap() as f64 / run.as_secs_f64();
    eprintln!("cluster: throttled user {slow_rate:.1}/s, the other {fast_rate:.1}/s");
    assert!(
        (85.0..=115.0).contains(&slow_rate),
        "the throttled user got {slow_rate:.1}/s on the cluster"
    );
    assert!(
        fast_rate > 2.0 * slow_rate,
        "the other user: {fast_rate:.1}/s"
    );
    shell("disable_rpc_throttle\n");
    eventually("still throttled with throttling off", || {
        gets(slow.as_ref(), Duration::from_secs(1)) > 300
    });

    // A space quota: over it, no new rows; deletes and a major compaction bring it back.
    shell("create 'capped', 'f'\n");
    let t = TableName::parse("capped").unwrap();
    for i in 0..300 {
        admin
            .put(
                &t,
                &Put::new(format!("r{i:05}")).add_column("f", "q", vec![7u8; 1024]),
            )
            .unwrap();
    }
    admin.flush(&t).unwrap();
    shell("set_quota TYPE => SPACE, TABLE => 'capped', LIMIT => '100K', POLICY => NO_INSERTS\n");
    let insert = || admin.put(&t, &Put::new("new").add_column("f", "q", "v"));
    eventually(
        "the table over its space quota still takes rows",
        || matches!(insert(), Err(Error::SpaceLimited(m)) if m.starts_with("NO_INSERTS Puts")),
    );
    let listed = shell("list_quota_violations\n");
    assert!(
        listed.contains(" capped ") && listed.contains("NO_INSERTS"),
        "{listed}"
    );
    for i in 0..300 {
        admin.delete(&t, &Delete::new(format!("r{i:05}"))).unwrap();
    }
    admin.flush(&t).unwrap();
    admin.compact(&t, true).unwrap();
    eventually("the table back under its quota still refuses rows", || {
        insert().is_ok()
    });
    let sizes = shell("list_quota_table_sizes\n");
    assert!(sizes.contains(" capped "), "{sizes}");
}
