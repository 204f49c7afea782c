//! Space quotas and namespace limits on an embedded engine (issue 48): a table over its space
//! quota is held to its policy until deletes and a major compaction bring it back under; a
//! namespace refuses tables and regions past its limits, by name.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_client::prelude::*;
use std::time::{Duration, Instant};

use basalt_common::quota::{Change, SpacePolicy, SpaceQuota, SpaceSnapshot, Subject};
use basalt_common::site::QUOTA_OBSERVER_PERIOD;
use basalt_embedded::{
    ColumnFamilyDescriptor, Connection, DataClient, Delete, Error, Increment, NamespaceDescriptor,
    Put, ServerAdmin, TableDescriptor, TableName,
};

fn create(conn: &Connection, name: &str) -> TableName {
    let d = TableDescriptor::named(name)
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.create_table(d, &[]).unwrap();
    TableName::parse(name).unwrap()
}

/// `rows` rows of 1 KiB each, flushed into a store file.
fn fill(conn: &Connection, t: &TableName, rows: usize) {
    for i in 0..rows {
        conn.put(
            t,
            &Put::new(format!("r{i:05}")).add_column("f", "q", vec![7u8; 1024]),
        )
        .unwrap();
    }
    conn.flush(t).unwrap();
}

/// Waits (at most 20 s) until the master's snapshot of `t` satisfies `done`.
fn wait_for(
    conn: &Connection,
    t: &TableName,
    done: impl Fn(&SpaceSnapshot) -> bool,
) -> SpaceSnapshot {
    let started = Instant::now();
    loop {
        let used = conn.space_use().unwrap();
        if let Some(s) = used.tables.get(t)
            && done(s)
        {
            return *s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the snapshot of {t} never came: {used:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn space(conn: &Connection, t: &TableName, limit: u64, policy: SpacePolicy) {
    conn.set_quota(
        &Subject::Table(t.clone()),
        &Change::Space(SpaceQuota { limit, policy }),
    )
    .unwrap();
}

fn engine() -> (tempfile::TempDir, Connection) {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path()).unwrap();
    conn.engine()
        .settings
        .set(QUOTA_OBSERVER_PERIOD, 200)
        .unwrap();
    (dir, conn)
}

#[test]
fn no_inserts_refuses_rows_until_deletes_and_a_major_compaction_bring_the_table_under() {
    let (_dir, conn) = engine();
    let t = create(&conn, "capped");
    fill(&conn, &t, 300);
    space(&conn, &t, 100 << 10, SpacePolicy::NoInserts);
    let over = wait_for(&conn, &t, |s| s.in_violation);
    assert!(over.usage > 300 << 10, "{over:?}");
    assert_eq!(
        conn.space_use().unwrap().violations(),
        vec![(t.clone(), SpacePolicy::NoInserts)]
    );

    let refused = conn
        .put(&t, &Put::new("new").add_column("f", "q", "v"))
        .unwrap_err();
    assert_eq!(
        refused,
        Error::SpaceLimited("NO_INSERTS Puts are disallowed due to a space quota.".into())
    );
    assert_eq!(refused.exception_name(), "SpaceLimitingException");
    let refused = conn
        .increment(&t, &Increment::new("n").add_column("f", "c", 1))
        .unwrap_err();
    assert!(matches!(refused, Error::SpaceLimited(m) if m.starts_with("NO_INSERTS Increments")));

    // Deletes go through; with a major compaction they take the table back under.
    for i in 0..300 {
        conn.delete(&t, &Delete::new(format!("r{i:05}"))).unwrap();
    }
    conn.flush(&t).unwrap();
    conn.compact(&t, true).unwrap();
    let under = wait_for(&conn, &t, |s| !s.in_violation);
    assert!(under.usage < 100 << 10, "{under:?}");
    conn.put(&t, &Put::new("new").add_column("f", "q", "v"))
        .unwrap();
}

#[test]
fn stricter_policies_refuse_deletes_and_compactions_and_disable_takes_the_table_offline() {
    let (_dir, conn) = engine();
    let t = create(&conn, "frozen");
    fill(&conn, &t, 100);
    space(&conn, &t, 10 << 10, SpacePolicy::NoWritesCompactions);
    wait_for(&conn, &t, |s| s.in_violation);
    let refused = conn.delete(&t, &Delete::new("r00001")).unwrap_err();
    assert_eq!(
        refused,
        Error::SpaceLimited(
            "NO_WRITES_COMPACTIONS Deletes are disallowed due to a space quota.".into()
        )
    );
    assert!(matches!(
        conn.compact(&t, true),
        Err(Error::SpaceLimited(_))
    ));
    // Reads go on.
    assert_eq!(
        conn.get(&t, &basalt_embedded::Get::new("r00001"))
            .unwrap()
            .cells
            .len(),
        1
    );

    let d = create(&conn, "disabled");
    fill(&conn, &d, 100);
    space(&conn, &d, 10 << 10, SpacePolicy::Disable);
    let started = Instant::now();
    while conn.is_table_enabled(&d).unwrap() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never disabled"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Raised past its use, the table is enabled again, its rows there.
    space(&conn, &d, 10 << 20, SpacePolicy::Disable);
    let started = Instant::now();
    while !conn.is_table_enabled(&d).unwrap() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never enabled again"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        conn.get(&d, &basalt_embedded::Get::new("r00099"))
            .unwrap()
            .cells
            .len(),
        1
    );
}

#[test]
fn a_namespace_refuses_tables_and_regions_past_its_limits() {
    let conn = Connection::in_memory();
    conn.create_namespace(
        NamespaceDescriptor::new("small")
            .with_configuration("hbase.namespace.quota.maxtables", "2")
            .with_configuration("hbase.namespace.quota.maxregions", "4"),
    )
    .unwrap();
    create(&conn, "small:a");
    create(&conn, "small:b");
    let refused = conn
        .create_table(
            TableDescriptor::named("small:c")
                .unwrap()
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[],
        )
        .unwrap_err();
    let Error::QuotaExceeded(message) = &refused else {
        panic!("{refused:?}");
    };
    assert!(message.contains("small:c"), "{message}");
    assert!(message.contains("tables permitted is 2"), "{message}");
    assert_eq!(refused.exception_name(), "QuotaExceededException");
    assert!(
        !conn
            .table_exists(&TableName::parse("small:c").unwrap())
            .unwrap()
    );

    // Two regions so far; two splits make four, a third is refused.
    let a = TableName::parse("small:a").unwrap();
    for (i, at) in ["m", "t"].iter().enumerate() {
        conn.split(&a, Some(at.as_bytes())).unwrap();
        assert_eq!(conn.regions(&a).unwrap().len(), i + 2);
    }
    let refused = conn.split(&a, Some(b"c")).unwrap_err();
    assert!(
        matches!(&refused, Error::QuotaExceeded(m) if m.contains("regions permitted")),
        "{refused:?}"
    );
    assert_eq!(conn.regions(&a).unwrap().len(), 3);

    // A limit that is not a count is refused by name.
    let bad = conn
        .create_namespace(
            NamespaceDescriptor::new("odd")
                .with_configuration("hbase.namespace.quota.maxtables", "two"),
        )
        .unwrap_err();
    assert!(
        bad.to_string().contains("hbase.namespace.quota.maxtables"),
        "{bad}"
    );
}
