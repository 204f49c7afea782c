//! HBase's own Java client against Basalt (issue 62): the JUnit suites of `tests/java`, run
//! by `tests/java/run.sh` with the client jars Maven Central serves, each version against a
//! `basalt standalone` of its own that publishes itself to a private ZooKeeper, as an HBase
//! cluster does. The only setting the suites give the client is `hbase.zookeeper.quorum`.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use basalt_embedded::prelude::*;
use basalt_embedded::{ServerAdmin, TableName};
use support::cluster::Cluster;
use support::{Server, ZooKeeper};

/// One Maven run at a time: concurrent runs on a machine's first day would fetch the same
/// artifacts into the same local repository at once.
static MAVEN: Mutex<()> = Mutex::new(());

/// The client versions tested: the newest 2.6 and 2.5 Maven Central serves (the shaded
/// client applications depend on), and HBase 1.x's last (long-lived applications still run
/// it; HBase 2 servers serve it).
const VERSIONS: [(&str, &str); 3] = [
    ("hbase2", "2.6.4"),
    ("hbase2", "2.5.10"),
    ("hbase1", "1.7.2"),
];

#[test]
fn hbase_java_clients_pass_their_suites_against_basalt_standalone() {
    let runs: Vec<Run<'_>> = VERSIONS
        .iter()
        .map(|&(module, version)| Run::of(module, version))
        .collect();
    run_suites("the Java suites", &runs);
}

/// asynchbase 1.8 (OpenTSDB's client, `tests/java/asynchbase`): puts, batches, gets, scans
/// both ways, atomic and buffered increments, compare-and-set and deletes, against a server
/// that serves HBase 1.x's closest-row-before Get and against one that refuses it as HBase 2
/// does, which makes asynchbase look regions up by reversed scans of meta instead.
#[test]
fn asynchbase_passes_its_suite_finding_regions_either_way() {
    let site = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        site.path(),
        "<configuration><property><name>basalt.regionserver.closest.row.before</name>\
         <value>false</value></property></configuration>\n",
    )
    .unwrap();
    let site_args = ["--site", site.path().to_str().unwrap()];
    let get = Run {
        env: &[("BASALT_META_LOOKUP", "get")],
        ..Run::of("asynchbase", "1.8.2")
    };
    let scan = Run {
        server: &site_args,
        env: &[("BASALT_META_LOOKUP", "scan")],
        ..Run::of("asynchbase", "1.8.2")
    };
    run_suites("asynchbase's suite", &[get, scan]);
}

/// AccessControlClient (grant, revoke, getUserPermissions, hasPermission) from the 2.6 and
/// 2.5 clients against a `basalt standalone --authorization`: the superuser grants, users
/// connect as themselves and get what they were granted, and lose it when it is revoked.
#[test]
fn access_control_client_grants_reach_java_users() {
    let runs: Vec<Run<'_>> = ["2.6.4", "2.5.10"]
        .into_iter()
        .map(|version| Run {
            server: &["--authorization", "--superuser", "admin"],
            env: &[("BASALT_SUPERUSER", "admin")],
            maven: &["-Dtest=AccessControlTest"],
            ..Run::of("hbase2", version)
        })
        .collect();
    run_suites("AccessControlTest", &runs);
}

/// One run of a `tests/java` suite: its module and client version, the flags its
/// `basalt standalone` gets besides `--zookeeper`, the suite's environment and Maven's
/// arguments.
struct Run<'a> {
    module: &'a str,
    version: &'a str,
    server: &'a [&'a str],
    env: &'a [(&'a str, &'a str)],
    maven: &'a [&'a str],
}

impl<'a> Run<'a> {
    fn of(module: &'a str, version: &'a str) -> Run<'a> {
        Run {
            module,
            version,
            server: &[],
            env: &[],
            maven: &[],
        }
    }
}

/// Each run against a `basalt standalone` (and a ZooKeeper) of its own, one Maven at a time;
/// fails naming `what` with every failed run's output.
fn run_suites(what: &str, runs: &[Run<'_>]) {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut failures = Vec::new();
    for run in runs {
        let zookeeper = ZooKeeper::start();
        let mut args = vec!["--zookeeper", zookeeper.quorum.as_str()];
        args.extend_from_slice(run.server);
        let server = Server::start_with(&args);
        if let Err(failure) = run_suite(
            run.module,
            run.version,
            &zookeeper.quorum,
            &server.rpc,
            run.env,
            run.maven,
        ) {
            failures.push(failure);
        }
    }
    assert!(
        failures.is_empty(),
        "{what} failed:\n{}",
        failures.join("\n")
    );
}

/// Runs one of `tests/java`'s suites (`tests/java/run.sh MODULE VERSION MAVEN_ARGS...`)
/// against the Basalt publishing to `quorum` (and serving RPC at `rpc`), with `env` besides:
/// its counts line, or that line and everything Maven printed when it failed or ran nothing.
fn run_suite(
    module: &str,
    version: &str,
    quorum: &str,
    rpc: &str,
    env: &[(&str, &str)],
    maven_args: &[&str],
) -> Result<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("tests/java/run.sh"))
        .args([module, version])
        .args(maven_args)
        .env("BASALT_ZK", quorum)
        // For the suites that bootstrap from a server instead (RpcConnectionRegistry).
        .env("BASALT_RPC", rpc)
        .envs(env.iter().copied())
        .output()
        .expect("tests/java/run.sh could not start (is bash installed?)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The counts line, then what Maven printed of failures (its quiet mode prints only
    // those). (Maven's colour codes may lead the line.)
    let summary = stdout
        .lines()
        .rev()
        .find_map(|l| l.find(&format!("java {module}")).map(|at| &l[at..]))
        .unwrap_or("no summary line")
        .to_owned();
    println!("{summary}");
    // "java MODULE VERSION: N tests, F failed, S skipped": a run in which no test ran (none,
    // or every one skipped, as a suite whose setting went missing skips) is a failure too.
    let counts: Vec<u32> = summary
        .split(": ")
        .nth(1)
        .unwrap_or_default()
        .split(", ")
        .filter_map(|c| c.split(' ').next()?.parse().ok())
        .collect();
    let ran = match counts[..] {
        [tests, _, skipped] => tests.saturating_sub(skipped),
        _ => 0,
    };
    if output.status.success() && ran > 0 {
        Ok(summary)
    } else {
        Err(format!("{summary}\n{stdout}{stderr}"))
    }
}

/// `host:port` of a server named `host,port,startcode`.
fn addr_of(server: &str) -> String {
    basalt_embedded::ServerName::parse(server)
        .map(|n| n.host_port)
        .unwrap_or_else(|| server.to_owned())
}

/// The Java client on a cluster of three region servers keeps writing and reading while a
/// region of its table moves, one splits, and a region server holding one is killed with
/// SIGKILL: with no setting changed, every acknowledged write reads back (FaultLoadTest).
#[test]
fn the_java_client_follows_regions_through_a_move_a_split_and_a_crash() {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cluster = Cluster::start(3, 1);
    let table = "jfault";
    let mut java = Command::new("bash")
        .arg(root.join("tests/java/run.sh"))
        .args(["hbase2", "2.6.4", "-Dtest=FaultLoadTest"])
        .env("BASALT_ZK", &cluster.quorum)
        .env("BASALT_FAULT_TABLE", table)
        .env("BASALT_FAULT_SECONDS", "40")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tests/java/run.sh could not start");
    // Killed if the test fails before it ends.
    struct Reap(u32);
    impl Drop for Reap {
        fn drop(&mut self) {
            let _ = Command::new("pkill")
                .args(["-KILL", "-P", &self.0.to_string()])
                .status();
        }
    }
    let _reap = Reap(java.id());
    let conn = cluster.connect();
    let name: TableName = table.parse().unwrap();
    // The client creates its table (three regions) once its JVM is up: bounded wait.
    let deadline = Instant::now() + Duration::from_secs(240);
    while conn.regions(&name).map_or(true, |r| r.len() < 3) {
        assert!(
            Instant::now() < deadline,
            "the Java client made no table within 240 s"
        );
        assert!(
            java.try_wait().unwrap().is_none(),
            "the Java client ended before its table"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    std::thread::sleep(Duration::from_secs(4));
    // A move: the first region to another server.
    let regions = conn.regions(&name).unwrap();
    let first = &regions[0];
    let other = cluster
        .servers
        .keys()
        .find(|addr| {
            first
                .server
                .as_deref()
                .is_none_or(|s| !s.contains(addr.as_str()))
        })
        .unwrap()
        .clone();
    conn.move_region(first.encoded_name().as_bytes(), Some(&other))
        .unwrap();
    std::thread::sleep(Duration::from_secs(4));
    // A split, in the middle of the writes.
    conn.split(&name, Some(b"r5")).unwrap();
    std::thread::sleep(Duration::from_secs(4));
    // A crash: the server holding the last region.
    let regions = conn.regions(&name).unwrap();
    let victim = regions
        .last()
        .and_then(|r| r.server.as_deref())
        .map(addr_of)
        .expect("the last region is served");
    let pid = *cluster
        .servers
        .get(&victim)
        .expect("the victim is one of the cluster's servers");
    let addr = victim;
    Cluster::kill(pid);
    println!("killed region server {addr} (pid {pid})");
    let output = java.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let load = stdout
        .lines()
        .find_map(|l| l.find("fault load:").map(|at| &l[at..]))
        .unwrap_or("no fault load line");
    println!("{load}");
    assert!(
        output.status.success() && load.contains(" 0 missing"),
        "the Java client lost writes or failed through the faults:\n{stdout}{stderr}"
    );
    assert!(
        conn.regions(&name).unwrap().len() >= 4,
        "the split took: four regions"
    );
}

/// Runs one of HBase's tools (`tests/java/tool.sh`) against the quorum: whether it exited 0,
/// and what it printed.
fn tool(quorum: &str, args: &[&str]) -> (bool, String) {
    tool_from("tools", quorum, args)
}

/// [`tool`] with the jars of one of `tests/java`'s sets (`tools`, `shell`).
fn tool_from(set: &str, quorum: &str, args: &[&str]) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new("bash")
        .arg(root.join("tests/java/tool.sh"))
        .args(args)
        .env("BASALT_ZK", quorum)
        .env("BASALT_TOOLS", set)
        .output()
        .expect("tests/java/tool.sh could not start");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// HBase's own tools from Maven Central's jars, unchanged, against `basalt standalone`:
/// PerformanceEvaluation (`--nomapred` sequentialWrite, randomRead, scan), LoadTestTool
/// (write, update and read with its verification: no failures), and the MapReduce jobs
/// RowCounter, CellCounter and CopyTable in Hadoop's local runner over TableInputFormat and
/// TableOutputFormat, each checked by what it counted or copied.
#[test]
fn hbase_tools_and_mapreduce_jobs_run_against_basalt() {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let zookeeper = ZooKeeper::start();
    let _server = Server::start_with(&["--zookeeper", &zookeeper.quorum]);
    let q = zookeeper.quorum.as_str();
    let pe = "org.apache.hadoop.hbase.PerformanceEvaluation";
    for command in ["sequentialWrite", "randomRead", "scan"] {
        let (ok, out) = tool(q, &[pe, "--nomapred", "--rows=2000", command, "1"]);
        assert!(
            ok && out.contains("Finished TestClient-0"),
            "PerformanceEvaluation {command} failed:\n{out}"
        );
    }
    let load = "org.apache.hadoop.hbase.util.LoadTestTool";
    let (ok, out) = tool(
        q,
        &[
            load,
            "-tn",
            "loadtest",
            "-num_keys",
            "1000",
            "-write",
            "2:100:2",
            "-update",
            "20:2",
            "-read",
            "100:2",
        ],
    );
    assert!(
        ok && out.contains("Failed to write keys: 0") && out.contains("Failed to update keys: 0"),
        "LoadTestTool failed its verification:\n{out}"
    );
    let mapreduce = |class: &str| format!("org.apache.hadoop.hbase.mapreduce.{class}");
    let rows = |table: &str| -> String {
        let (ok, out) = tool(q, &[&mapreduce("RowCounter"), table]);
        assert!(ok, "RowCounter {table} failed:\n{out}");
        out.lines()
            .find_map(|l| l.trim().strip_prefix("ROWS="))
            .unwrap_or("none")
            .to_owned()
    };
    assert_eq!(rows("TestTable"), "2000", "RowCounter counts what PE wrote");
    let cells = tempfile::tempdir().unwrap();
    let counted = cells.path().join("out");
    let (ok, out) = tool(
        q,
        &[
            &mapreduce("CellCounter"),
            "TestTable",
            counted.to_str().unwrap(),
        ],
    );
    assert!(ok, "CellCounter failed:\n{out}");
    let report = std::fs::read_to_string(counted.join("part-r-00000")).unwrap();
    assert!(report.contains("Total ROWS\t2000"), "{report}");
    // CopyTable writes into an existing table (PE's family is info0).
    let (ok, _, err) = support::basalt_with_input(
        &["shell", "--zookeeper", q],
        "create 'TestTableCopy', 'info0'\n",
    );
    assert!(ok, "{err}");
    let (ok, out) = tool(
        q,
        &[
            &mapreduce("CopyTable"),
            "--new.name=TestTableCopy",
            "TestTable",
        ],
    );
    assert!(ok, "CopyTable failed:\n{out}");
    assert_eq!(rows("TestTableCopy"), "2000", "CopyTable copied every row");
}

/// A Spark job (spark-sql 3.5 in local mode, `tests/java/spark`) reads a table of three
/// regions through TableInputFormat, one partition per region, and writes every cell into a
/// second table through TableOutputFormat.
#[test]
fn a_spark_job_reads_by_region_and_writes_through_table_output_format() {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let zookeeper = ZooKeeper::start();
    let _server = Server::start_with(&["--zookeeper", &zookeeper.quorum]);
    let q = zookeeper.quorum.as_str();
    let mut script =
        String::from("create 'clicks', 'f', SPLITS => ['g', 'p']\ncreate 'clicks_copy', 'f'\n");
    // Rows a.. to z.., so that each region holds some: 24 before g, 36 in g..p, 40 after.
    for i in 0..100u8 {
        let row = format!("{}row{i:02}", char::from(b'a' + i % 26));
        script.push_str(&format!(
            "put 'clicks', '{row}', 'f:n', 'v{i}', {}\n",
            1_000 + u64::from(i)
        ));
    }
    let (ok, _, err) = support::basalt_with_input(&["shell", "--zookeeper", q], &script);
    assert!(ok, "{err}");
    let (ok, out) = tool_from(
        "spark",
        q,
        &["basalt.spark.CopyTableJob", "clicks", "clicks_copy"],
    );
    assert!(ok, "the Spark job failed:\n{out}");
    for line in [
        "partitions=3",
        "rows per partition=[24, 36, 40]",
        "rows=100",
        "copied into clicks_copy",
    ] {
        assert!(
            out.lines().any(|l| l == line),
            "the job should print {line}:\n{out}"
        );
    }
    let (ok, copied, err) = support::basalt_with_input(
        &["shell", "--zookeeper", q],
        "count 'clicks_copy'\nget 'clicks_copy', 'zrow25'\n",
    );
    assert!(ok, "{err}");
    assert!(copied.contains("100 row(s)"), "every row copied:\n{copied}");
    assert!(
        copied.contains("f:n timestamp=1970-01-01T00:00:01.025, value=v25"),
        "cells copied with their timestamps and values:\n{copied}"
    );
}

/// HBase's JRuby shell (`hbase-shell` and the `jruby-complete` it names, from Maven Central)
/// connected to Basalt through ZooKeeper runs the seed documents' sequence, the script Basalt's
/// own shell is checked with, and answers each command as it would against HBase.
#[test]
fn hbase_jruby_shell_runs_the_seed_documents_sequence() {
    let _maven = MAVEN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let zookeeper = ZooKeeper::start();
    let _server = Server::start_with(&["--zookeeper", &zookeeper.quorum]);
    let seeds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shell/tests/scripts/seeds.hb");
    let mut script: String = std::fs::read_to_string(seeds)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    script.push_str("exit\n");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("seeds.rb");
    std::fs::write(&file, &script).unwrap();
    let (ok, out) = tool_from(
        "shell",
        &zookeeper.quorum,
        &["org.jruby.JarBootstrapMain", "-n", file.to_str().unwrap()],
    );
    assert!(ok, "HBase's shell failed:\n{out}");
    assert!(
        !out.contains("ERROR"),
        "HBase's shell reported an error:\n{out}"
    );
    // Each command's answer, as the shell printed it: what must be there, what must not.
    let expected: [(&str, &[&str], &[&str]); 12] = [
        ("create 'mytable'", &["Created table mytable"], &[]),
        (
            "describe 'mytable'",
            &[
                "Table mytable is ENABLED",
                "{NAME => 'cf1'",
                "BLOCKSIZE => '65536'",
            ],
            &[],
        ),
        (
            "desc 'cachetest'",
            &["COMPRESSION => 'SNAPPY'", "BLOCKCACHE => 'false'"],
            &[],
        ),
        ("get 'cachetest'", &["cf:q", "value=snappy-compressed"], &[]),
        (
            "get 'webtable', 'com.cnn.www', {COLUMN => 'contents:html', VERSIONS => 5}",
            &["value=<html>v4", "value=<html>v3", "value=<html>v2"],
            &["value=<html>v1"],
        ),
        (
            "get 'webtable', 'com.cnn.www', {COLUMN => 'contents:html', TIMERANGE",
            &["value=<html>v2", "value=<html>v1"],
            &["value=<html>v3"],
        ),
        (
            "get 'webtable', 'com.cnn.www', 'anchor'",
            &[
                "anchor:cnnsi.com timestamp=2024-05-01T10:11:12.005, value=CNN anchor:my.look.ca",
                "value=CNN.com",
            ],
            &[],
        ),
        (
            "scan 'webtable'",
            &["column=anchor:cnnsi.com", "1 row(s)"],
            &["my.look.ca"],
        ),
        (
            "scan 'following'",
            &[
                "alice column=f:bob",
                "alice column=f:carol",
                "bob column=f:carol",
                "2 row(s)",
            ],
            &[],
        ),
        ("count 'followers'", &["2 row(s)", "=> 2"], &[]),
        (
            "scan 'followers', {FILTER",
            &["bob column=f:alice", "carol column=f:alice", "2 row(s)"],
            &["f:bob"],
        ),
        (
            "list",
            &[r#"=> ["cachetest", "followers", "following", "mytable", "webtable"]"#],
            &[],
        ),
    ];
    for (command, present, absent) in expected {
        let answer = shell_answer(&out, command)
            .unwrap_or_else(|| panic!("no answer to {command} in:\n{out}"));
        for text in present {
            assert!(
                answer.contains(&squeeze(text)),
                "{command} should print {text}:\n{out}"
            );
        }
        for text in absent {
            assert!(
                !answer.contains(&squeeze(text)),
                "{command} should not print {text}:\n{out}"
            );
        }
    }
}

/// What HBase's shell printed after the prompt line of the first command that starts with
/// `command`, up to the next prompt, with every space and line break taken out (the shell
/// pads its tables and wraps them at 80 columns).
fn shell_answer(out: &str, command: &str) -> Option<String> {
    let mut lines = out.lines().skip_while(|l| {
        !l.split_once("> ")
            .is_some_and(|(prompt, c)| prompt.starts_with("hbase:") && c.starts_with(command))
    });
    lines.next()?;
    let answer: String = lines.take_while(|l| !l.starts_with("hbase:")).collect();
    Some(squeeze(&answer))
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}
