//! Operating a cluster (issue 47) on a real one on this machine: decommissioning a region server
//! drains it, the balancer and new tables leave it empty until it is recommissioned, and the
//! next active master still knows it is out of service.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use basalt_embedded::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, DataClient, Get, Put, ServerAdmin, TableDescriptor,
    TableName,
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
    let encoded = conn.regions(&t).unwrap()[0].encoded_name().to_owned();
    let (ok, out, err) = support::basalt_with_input(
        &["shell", "--zookeeper", &cluster.quorum, "-n"],
        &format!(
            "list_decommissioned_regionservers\nregioninfo '{encoded}'\nrit\nlist_unknownservers\n"
        ),
    );
    assert!(ok, "{out}{err}");
    assert!(
        out.contains("DECOMMISSIONED REGION SERVERS") && out.contains(&victim),
        "{out}"
    );
    assert!(
        out.contains(&format!("{{ENCODED => {encoded}, NAME => 't,,")),
        "{out}"
    );
    // Nothing in transition, no unknown server.
    assert_eq!(out.matches("0 row(s)").count(), 2, "{out}");

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

/// Processes started for a test, killed (with their process groups) when it ends.
struct Processes {
    pids_file: std::path::PathBuf,
    children: Vec<std::process::Child>,
}

impl Drop for Processes {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
        // The region servers the restart command started.
        if let Ok(pids) = std::fs::read_to_string(&self.pids_file) {
            for pid in pids.split_whitespace() {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", pid])
                    .status();
            }
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits (60 s at most) until the cluster lists `n` live region servers.
fn wait_live(conn: &dyn Client, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while conn.cluster_summary().map(|s| s.live_servers).unwrap_or(0) < n {
        assert!(Instant::now() < deadline, "fewer than {n} live servers");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `scripts/rolling-restart.sh` on a cluster of a master and three region servers started as
/// processes of their own, under a load of writes and reads from another thread: no client
/// call fails, every acknowledged write reads back, every server restarts; the longest call is
/// printed (a region's unavailability is at most one move).
#[test]
fn a_rolling_restart_under_load_fails_no_call() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = tempfile::tempdir().unwrap();
    let zk_dir = dir.path().join("zk");
    let out = std::process::Command::new(root.join("tests/zookeeper/start.sh"))
        .arg(&zk_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let started = String::from_utf8_lossy(&out.stdout).to_string();
    let mut words = started.split_whitespace();
    let (zk_port, zk_pid) = (
        words.next().unwrap().to_owned(),
        words.next().unwrap().to_owned(),
    );
    let quorum = format!("127.0.0.1:{zk_port}");
    let pids_file = dir.path().join("pids");
    std::fs::write(&pids_file, format!("{zk_pid}\n")).unwrap();
    let mut procs = Processes {
        pids_file: pids_file.clone(),
        children: Vec::new(),
    };
    let data = dir.path().join("data");
    let basalt = env!("CARGO_BIN_EXE_basalt");
    let server_args = |role: &str, port: u16| -> Vec<String> {
        [
            role,
            "--data",
            &data.display().to_string(),
            "--zookeeper",
            &quorum,
            "--port",
            &port.to_string(),
            "--info-port",
            "-1",
            "--session-timeout-ms",
            "3000",
        ]
        .map(str::to_owned)
        .to_vec()
    };
    let log = |name: &str| std::fs::File::create(dir.path().join(name)).unwrap();
    procs.children.push(
        std::process::Command::new(basalt)
            .args(server_args("master", free_port()))
            .stdout(log("master.log"))
            .stderr(log("master.err"))
            .spawn()
            .unwrap(),
    );
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    for (i, port) in ports.iter().enumerate() {
        procs.children.push(
            std::process::Command::new(basalt)
                .args(server_args("regionserver", *port))
                .stdout(log(&format!("rs{i}.log")))
                .stderr(log(&format!("rs{i}.err")))
                .spawn()
                .unwrap(),
        );
    }
    // Once meta is assigned (the master publishes where).
    let deadline = Instant::now() + Duration::from_secs(60);
    let conn: Arc<dyn Client> = loop {
        match basalt_embedded::remote::RemoteConnection::through_zookeeper(
            &quorum,
            basalt_embedded::remote::RemoteConfig {
                operation_timeout: Duration::from_secs(120),
                ..basalt_embedded::remote::RemoteConfig::default()
            },
        ) {
            Ok(c) => break Arc::new(c),
            Err(e) => assert!(Instant::now() < deadline, "no cluster: {e}"),
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    wait_live(conn.as_ref(), 3);
    create(conn.as_ref(), "t", 12);
    conn.balancer().unwrap();

    // The load: writes and reads of rows spread over every region, until told to stop.
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let worker = {
        let (conn, stop) = (Arc::clone(&conn), Arc::clone(&stop));
        std::thread::spawn(move || {
            let t = TableName::parse("t").unwrap();
            let (mut acked, mut failures, mut longest) = (Vec::new(), Vec::new(), Duration::ZERO);
            let mut i = 0u32;
            while !stop.load(std::sync::atomic::Ordering::Acquire) && i < 200_000 {
                let row = format!("r{:02}x{i:06}", i % 12);
                let started = Instant::now();
                match conn.put(&t, &Put::new(row.clone()).add_column("f", "q", "v")) {
                    Ok(()) => acked.push(row.clone()),
                    Err(e) => failures.push(format!("put {row}: {e}")),
                }
                if i.is_multiple_of(3)
                    && let Some(back) = acked.get(acked.len() / 2)
                    && let Err(e) = conn.get(&t, &Get::new(back.clone()))
                {
                    failures.push(format!("get {back}: {e}"));
                }
                longest = longest.max(started.elapsed());
                i += 1;
            }
            (acked, failures, longest)
        })
    };
    std::thread::sleep(Duration::from_secs(2));
    let restart = format!(
        "{basalt} regionserver --data {} --zookeeper {quorum} --info-port -1 \
         --session-timeout-ms 3000 --port \"${{1##*:}}\" >>{}/restarted.log 2>&1 & echo $! >>{}",
        data.display(),
        dir.path().display(),
        pids_file.display()
    );
    let script = std::process::Command::new(root.join("scripts/rolling-restart.sh"))
        .args([&quorum, &restart])
        .env("BASALT", basalt)
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&script.stdout),
        String::from_utf8_lossy(&script.stderr)
    );
    std::thread::sleep(Duration::from_secs(1));
    stop.store(true, std::sync::atomic::Ordering::Release);
    let (acked, failures, longest) = worker.join().unwrap();
    assert!(script.status.success(), "{said}");
    assert_eq!(said.matches("restarted 127.0.0.1:").count(), 3, "{said}");
    println!(
        "{said}{} writes acknowledged; the longest call took {longest:?}",
        acked.len()
    );
    assert!(
        failures.is_empty(),
        "{} calls failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert!(acked.len() > 100, "{} writes", acked.len());
    let t = TableName::parse("t").unwrap();
    for row in &acked {
        assert!(
            !conn
                .get(&t, &Get::new(row.clone()))
                .unwrap()
                .cells
                .is_empty(),
            "acknowledged write {row} lost"
        );
    }
    wait_live(conn.as_ref(), 3);
    // Each server came back on its port, with its regions.
    let loads = load(conn.as_ref());
    for port in &ports {
        let (_, n) = loads
            .iter()
            .find(|(name, _)| name.contains(&format!(",{port},")))
            .unwrap_or_else(|| panic!("no server on port {port}: {loads:?}"));
        assert!(*n > 0, "{loads:?}");
    }
    drop(procs);
}

/// `wal_roll` on a standalone server: its WAL directory holds one more segment after; and
/// `compact_rs` compacts its regions.
#[test]
fn wal_roll_starts_a_new_segment() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let server = support::Server::start_in(&data, &[]);
    let segments = || -> usize {
        std::fs::read_dir(data.join("WALs"))
            .unwrap()
            .filter_map(Result::ok)
            .flat_map(|d| std::fs::read_dir(d.path()).unwrap())
            .filter_map(Result::ok)
            .filter(|f| f.file_name().to_string_lossy().starts_with("wal."))
            .count()
    };
    let before = segments();
    let (ok, out, err) = support::basalt_with_input(
        &["shell", "--connect", &server.rpc, "-n"],
        &format!(
            "wal_roll '{0}'\ncreate 'c', 'f'\nput 'c', 'r', 'f:q', 'v'\nflush 'c'\n\
             put 'c', 'r', 'f:q', 'w'\nflush 'c'\n",
            server.rpc
        ),
    );
    assert!(ok, "{out}{err}");
    assert_eq!(segments(), before + 1, "{out}");
    let store_files = || -> u64 {
        let (_, jmx) = support::http_get(&server.info, "/jmx");
        jmx.split("\"storeFileCount\"")
            .nth(1)
            .and_then(|r| {
                r.trim_start_matches([' ', ':'])
                    .split([',', '\n'])
                    .next()?
                    .trim()
                    .parse()
                    .ok()
            })
            .unwrap()
    };
    let files = store_files();
    let (ok, out, err) = support::basalt_with_input(
        &["shell", "--connect", &server.rpc, "-n"],
        &format!("compact_rs '{}', true\n", server.rpc),
    );
    assert!(ok, "{out}{err}");
    assert!(
        store_files() < files,
        "{files} store files before compact_rs and after"
    );
}

/// Store files of the table's regions, from the cluster status.
fn store_files(conn: &dyn Client, table: &str) -> u32 {
    conn.cluster_summary()
        .unwrap()
        .servers
        .iter()
        .flat_map(|s| &s.regions)
        .filter(|r| r.name.starts_with(format!("{table},").as_bytes()))
        .map(|r| r.store_files)
        .sum()
}

#[test]
fn update_config_changes_the_balancer_period_and_the_flush_size_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hbase-site.xml");
    support::write_site(&path, &[("hbase.balancer.period", "3600000")]);
    let cluster = Cluster::start_with(2, 1, &["--site", path.to_str().unwrap()]);
    let conn = cluster.connect();
    create(conn.as_ref(), "t", 6);
    let t = TableName::parse("t").unwrap();

    // Every region onto one server; with an hour between runs, the balancer leaves it so.
    let crowded = load(conn.as_ref()).keys().next().unwrap().clone();
    for r in conn.regions(&t).unwrap() {
        if r.server.as_deref() != Some(crowded.as_str()) {
            conn.move_region(r.encoded_name().as_bytes(), Some(&crowded))
                .unwrap();
        }
    }
    std::thread::sleep(Duration::from_secs(4));
    let crowded_load = load(conn.as_ref());
    assert_eq!(crowded_load[&crowded], 6, "{crowded_load:?}");

    // The master reads the file again: the balancer runs every second from now on.
    support::write_site(
        &path,
        &[
            ("hbase.balancer.period", "1000"),
            ("hbase.hregion.memstore.flush.size", "1048576"),
        ],
    );
    let master = cluster.masters.keys().next().unwrap().clone();
    conn.update_config(&master).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = load(conn.as_ref());
        if now.values().all(|n| *n == 3) {
            break;
        }
        assert!(Instant::now() < deadline, "never balanced: {now:?}");
        std::thread::sleep(Duration::from_millis(200));
    }
    // The run that spread them is in the balancer's log, with its moves.
    let (decisions, _) = conn.balancer_log(50).unwrap();
    let spread = decisions
        .iter()
        .find(|d| d.computed_steps == 3)
        .unwrap_or_else(|| panic!("no run moved 3 regions: {decisions:?}"));
    assert_eq!(spread.region_plans.len(), 3, "{spread:?}");
    assert!(
        (spread.init_total_cost - 6.0).abs() < f64::EPSILON,
        "{spread:?}"
    );
    assert!(
        spread.computed_total_cost.abs() < f64::EPSILON,
        "{spread:?}"
    );
    // No more moves (each flushes what it moves) while the flush size is watched.
    conn.balance_switch(false).unwrap();

    // 8 MiB written, about 1.3 MiB a region: past the new 1 MiB flush size, but the region
    // servers have not read the file again and still flush at 128 MiB.
    let value = vec![1u8; 4096];
    let write = |from: usize, n: usize| {
        for i in from..from + n {
            conn.put(
                &t,
                &Put::new(format!("r{:02}x{i}", i % 6)).add_column("f", "q", value.clone()),
            )
            .unwrap();
        }
    };
    let flushed_before = store_files(conn.as_ref(), "t");
    write(0, 2048);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(store_files(conn.as_ref(), "t"), flushed_before);
    // Once they have, their flushers find the regions due, with no further write.
    conn.update_all_config().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while store_files(conn.as_ref(), "t") == flushed_before {
        assert!(Instant::now() < deadline, "nothing flushed at 1 MiB");
        std::thread::sleep(Duration::from_millis(200));
    }

    // zk_dump shows the masters, meta's server, the region servers and ZooKeeper's statistics.
    let dump = conn.zk_dump().unwrap();
    let summary = conn.cluster_summary().unwrap();
    assert!(
        dump.contains(&format!("Active master address: {}", summary.master)),
        "{dump}"
    );
    for s in &summary.servers {
        assert!(dump.contains(&format!("\n {}\n", s.name)), "{dump}");
    }
    assert!(
        dump.contains("Region server holding hbase:meta: "),
        "{dump}"
    );
    assert!(dump.contains("Balancer on: false"), "{dump}");
    assert!(dump.contains("Zookeeper version"), "{dump}");

    // A bad value changes nothing and says which key.
    support::write_site(&path, &[("hbase.balancer.period", "soon")]);
    let err = conn.update_config(&master).unwrap_err().to_string();
    assert!(err.contains("hbase.balancer.period"), "{err}");
}

#[test]
fn the_slow_log_keeps_calls_past_the_thresholds_and_update_config_moves_them() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("hbase-site.xml");
    // Every call is slow (0 ms) and every answer large (1 byte) to start with.
    support::write_site(
        &path,
        &[
            ("hbase.ipc.warn.response.time", "0"),
            ("hbase.ipc.warn.response.size", "1"),
        ],
    );
    let server = support::Server::start_with(&["--site", path.to_str().unwrap()]);
    let shell = |input: &str| {
        let (ok, out, err) =
            support::basalt_with_input(&["shell", "--connect", &server.rpc, "-n"], input);
        assert!(ok, "{out}{err}");
        out
    };
    shell("create 't', 'f'\nput 't', 'r1', 'f:q', 'v'\nget 't', 'r1'\n");
    let out = shell("get_slowlog_responses '*', {TABLE_NAME => 't', LIMIT => 50}\n");
    assert!(out.contains("Retrieved SlowLog Responses"), "{out}");
    assert!(out.contains("\"methodName\": \"Get\""), "{out}");
    assert!(out.contains("\"methodName\": \"Mutate\""), "{out}");
    assert!(out.contains("\"regionName\": \"t,,"), "{out}");
    assert!(
        out.contains("ClientProtos$GetRequest"),
        "HBase's call details: {out}"
    );
    let out = shell("get_largelog_responses '*', {TABLE_NAME => 't'}\n");
    assert!(out.contains("\"methodName\": \"Get\""), "{out}");
    // Filters: a user nobody is, alone or with AND, finds nothing.
    let out = shell("get_slowlog_responses '*', {USER => 'nobody'}\n");
    assert!(!out.contains("methodName"), "{out}");
    let out = shell(
        "get_slowlog_responses '*', {TABLE_NAME => 't', USER => 'nobody', FILTER_BY_OP => 'AND'}\n",
    );
    assert!(!out.contains("methodName"), "{out}");

    let out = shell("clear_slowlog_responses\n");
    assert!(
        out.contains("Cleared Slowlog responses from 1/1 RegionServers"),
        "{out}"
    );
    // Back to HBase's thresholds, live: a get is neither slow nor large any more.
    support::write_site(
        &path,
        &[
            ("hbase.ipc.warn.response.time", "10000"),
            ("hbase.ipc.warn.response.size", "104857600"),
        ],
    );
    shell(&format!("update_config '{}'\nget 't', 'r1'\n", server.rpc));
    let out = shell("get_slowlog_responses '*', {TABLE_NAME => 't'}\n");
    assert!(!out.contains("\"methodName\": \"Get\""), "{out}");
}
