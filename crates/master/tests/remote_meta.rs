//! The catalog read and written on another server (`RemoteMeta`, as a cluster's master reaches
//! `hbase:meta`): it reads what the local catalog holds, and a change it makes over
//! MultiRowMutationService lands atomically in the meta region.

#[path = "../../rpc/tests/support/mod.rs"]
mod support;

use std::time::Duration;

use basalt_embedded::{NamespaceDescriptor, ServerName, TableName};
use basalt_master::meta::{self, MetaBatch, MetaStore};
use basalt_master::servers::{LinkConfig, RemoteMeta};
use support::{engine_with_table_t, serve};

#[test]
fn the_catalog_reads_and_writes_the_same_over_rpc() {
    let conn = engine_with_table_t();
    conn.admin()
        .create_table_with_splits(
            basalt_embedded::TableDescriptor::named("u")
                .unwrap()
                .with_family(basalt_embedded::ColumnFamilyDescriptor::new("f")),
            &["m".into()],
        )
        .unwrap();
    conn.admin()
        .disable_table(&TableName::parse("u").unwrap())
        .unwrap();
    let server = serve(&conn);
    let remote = RemoteMeta::new(
        ServerName {
            host_port: server.local_addr().to_string(),
            start_code: conn.region_server().name.start_code,
        },
        LinkConfig {
            timeout: Duration::from_secs(30),
            tls: None,
        },
    )
    .unwrap();
    let engine = conn.engine();
    let catalog = engine.catalog();
    let local = catalog.as_ref();

    let infos = |m: &dyn MetaStore| -> Vec<_> {
        meta::read_regions(m)
            .unwrap()
            .into_iter()
            .map(|r| r.info)
            .collect()
    };
    assert_eq!(infos(&remote), infos(local));
    assert_eq!(infos(&remote).len(), 3);
    assert_eq!(
        meta::read_table_states(&remote).unwrap(),
        meta::read_table_states(local).unwrap()
    );
    let names = |m: &dyn MetaStore| -> Vec<String> {
        meta::read_namespaces(m)
            .unwrap()
            .into_iter()
            .map(|n| n.name)
            .collect()
    };
    assert_eq!(names(&remote), names(local));
    let newest = local.newest_timestamp().unwrap();
    assert_eq!(remote.newest_timestamp().unwrap(), newest);

    // One batch, two rows: a namespace arrives and a table's row goes, together.
    let mut batch = MetaBatch::new(newest + 1);
    batch
        .namespace(&NamespaceDescriptor::new("over_rpc"))
        .delete_row(b"u".to_vec());
    batch.commit(&remote).unwrap();
    assert!(names(local).contains(&"over_rpc".to_owned()));
    let states = meta::read_table_states(local).unwrap();
    assert!(!states.contains_key(&TableName::parse("u").unwrap()));
    assert!(states.contains_key(&TableName::parse("t").unwrap()));
    assert!(local.newest_timestamp().unwrap() > newest);
    server.shutdown();
}
