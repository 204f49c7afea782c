//! `basalt standalone --object-store` (issue 35, fourth part) as a process against a real
//! S3-compatible server (`tests/s3/start.sh`): flushed cells live in the bucket, the WAL on
//! the data directory; a SIGKILLed server comes back with both. A store it cannot use stops
//! it at start, saying why.

mod support;

use basalt_embedded::prelude::*;
use std::sync::Arc;
use std::time::Duration;

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    ColumnFamilyDescriptor, DataClient, Put, Scan, ServerAdmin, TableDescriptor, TableName,
};
use basalt_fs::{ObjectFs, S3TestServer};
use support::Server;

fn connect(server: &Server) -> Arc<RemoteConnection> {
    let config = RemoteConfig {
        operation_timeout: Duration::from_secs(20),
        ..RemoteConfig::default()
    };
    Arc::new(
        RemoteConnection::connect(server.rpc.parse().expect("address"), config).expect("connect"),
    )
}

fn count_rows(conn: &Arc<RemoteConnection>, table: &TableName) -> usize {
    Arc::clone(conn)
        .scan(table, &Scan::new())
        .expect("scan")
        .inspect(|r| assert!(r.is_ok(), "row: {r:?}"))
        .count()
}

#[test]
fn a_killed_server_on_the_object_store_comes_back_whole() {
    let s3 = S3TestServer::start().expect("S3 test server");
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    let url = s3.url("standalone", Duration::from_secs(1));
    let flags = ["--object-store", url.as_str()];
    let env = S3TestServer::CREDENTIALS;
    let server = Server::start_in_env(&data, &flags, &env);
    let conn = connect(&server);
    let t = TableName::parse("t").expect("name");
    conn.create_table(
        TableDescriptor::named("t")
            .expect("name")
            .with_family(ColumnFamilyDescriptor::new("f")),
        &[],
    )
    .expect("create");
    for i in 0..3000u32 {
        conn.put(
            &t,
            &Put::new(format!("r{i:05}")).add_column("f", "q", format!("v{i}")),
        )
        .expect("put");
        if i == 1999 {
            conn.flush(&t).expect("flush");
        }
    }
    // 2000 rows in a store file on the store, 1000 only in the (local) WAL: killed.
    drop(server);
    let store = ObjectFs::connect(s3.config("standalone", Duration::ZERO)).expect("connect");
    let objects = store.object_keys().expect("list");
    assert!(!objects.is_empty(), "the flush went to the bucket");
    assert!(
        data.join("WALs").is_dir(),
        "the WAL is on the data directory"
    );

    let server = Server::start_in_env(&data, &flags, &env);
    let conn = connect(&server);
    assert_eq!(
        count_rows(&conn, &t),
        3000,
        "flushed and logged rows are back"
    );
    let row = conn
        .get(&t, &basalt_embedded::Get::new("r01234"))
        .expect("get");
    assert_eq!(row.value(b"f", b"q"), Some(&b"v1234"[..]));

    // The file tools read through the store: `hfile` reads a pointer's object...
    conn.flush(&t).expect("flush");
    let family = std::fs::read_dir(data.join("data/default/t"))
        .expect("table dir")
        .flatten()
        .map(|e| e.path().join("f"))
        .find(|p| p.is_dir())
        .expect("a region");
    let file = std::fs::read_dir(&family)
        .expect("family dir")
        .flatten()
        .map(|e| e.path())
        .next()
        .expect("a store file");
    let tool = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args(args)
            .envs(S3TestServer::CREDENTIALS)
            .output()
            .expect("run basalt");
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {text}");
        text
    };
    let path = file.to_string_lossy().into_owned();
    let shown = tool(&["hfile", "-m", "--object-store", &url, &path]);
    assert!(shown.contains("Trailer:"), "{shown}");
    // ...and `snapshot export` copies the objects' bytes into ordinary files.
    conn.snapshot("s", &t).expect("snapshot");
    let target = dir.path().join("exported");
    let data_dir = data.to_string_lossy().into_owned();
    let target_dir = target.to_string_lossy().into_owned();
    tool(&[
        "snapshot",
        "export",
        "s",
        "--data",
        &data_dir,
        "--to",
        &target_dir,
        "--object-store",
        &url,
    ]);
    let mut copies = vec![target.join(".hbase-snapshot/s")];
    let mut store_files = 0;
    while let Some(d) = copies.pop() {
        for e in std::fs::read_dir(&d).expect("exported dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                copies.push(p);
            } else if p.parent().and_then(|f| f.file_name()) == Some("f".as_ref()) {
                let bytes = std::fs::read(&p).expect("copy");
                assert!(
                    !bytes.starts_with(b"basalt-object"),
                    "{} is a pointer",
                    p.display()
                );
                store_files += 1;
            }
        }
    }
    assert!(store_files > 0, "the export holds the store files");
}

#[test]
fn a_store_it_cannot_use_stops_the_server_at_start() {
    let s3 = S3TestServer::start().expect("S3 test server");
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().join("data");
    let run = |url: &str, with_credentials: bool| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_basalt"));
        cmd.args(["standalone", "--data"])
            .arg(&data)
            .args([
                "--thrift-port",
                "0",
                "--info-port",
                "-1",
                "--object-store",
                url,
            ])
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY");
        if with_credentials {
            cmd.envs(S3TestServer::CREDENTIALS);
        }
        let out = cmd.output().expect("run basalt");
        assert!(!out.status.success(), "{url} was accepted");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let no_credentials = run(&s3.url("x", Duration::ZERO), false);
    assert!(
        no_credentials.contains("AWS_ACCESS_KEY_ID"),
        "{no_credentials}"
    );
    let bad_url = run("s3:/basalt", true);
    assert!(bad_url.contains("expected s3://BUCKET"), "{bad_url}");
    let no_bucket = run(&format!("s3://nope?endpoint={}", s3.endpoint()), true);
    assert!(no_bucket.contains("s3://nope/"), "{no_bucket}");
}
