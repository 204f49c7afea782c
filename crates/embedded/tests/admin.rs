//! Table administration: create, list, describe, disable, enable, delete.

mod support;

use basalt_embedded::{
    ColumnFamilyDescriptor, Compression, Error, Get, Put, TableDescriptor, TableName,
};
use support::{connection_at, create_table};

#[test]
fn create_list_describe() {
    let (conn, _) = connection_at(1);
    let admin = conn.admin();
    let mut cf = ColumnFamilyDescriptor::new("cf1");
    cf.set_attribute("BLOCKSIZE", "65536").unwrap();
    cf.set_attribute("BLOCKCACHE", "FALSE").unwrap();
    cf.set_attribute("COMPRESSION", "SNAPPY").unwrap();
    admin
        .create_table(TableDescriptor::named("mytable").unwrap().with_family(cf))
        .unwrap();
    create_table(&conn, "another", &["x"]);
    let names: Vec<_> = admin
        .list_table_names()
        .iter()
        .map(|n| n.to_string())
        .collect();
    assert_eq!(names, ["another", "mytable"]);
    let name = TableName::parse("mytable").unwrap();
    assert!(admin.table_exists(&name));
    let desc = admin.describe_table(&name).unwrap();
    let cf = desc.family(b"cf1").unwrap();
    assert_eq!(
        (cf.block_size, cf.block_cache, cf.compression),
        (65_536, false, Compression::Snappy)
    );
    assert!(desc.to_string().contains("BLOCKCACHE => 'false'"));
}

#[test]
fn create_rejects_duplicates_and_bad_schemas() {
    let (conn, _) = connection_at(1);
    let admin = conn.admin();
    create_table(&conn, "t", &["cf"]);
    let again = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    assert_eq!(
        admin.create_table(again).unwrap_err().exception_name(),
        "TableExistsException"
    );
    let no_family = TableDescriptor::named("u").unwrap();
    assert!(admin.create_table(no_family).is_err());
    let bad = TableDescriptor::named("u")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf").with_min_versions(5));
    assert!(
        admin
            .create_table(bad)
            .unwrap_err()
            .to_string()
            .contains("MIN_VERSIONS")
    );
    assert!(!admin.table_exists(&TableName::parse("u").unwrap()));
    let other_ns = TableDescriptor::named("ns1:t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    assert_eq!(
        admin.create_table(other_ns),
        Err(Error::NamespaceNotFound("ns1".into()))
    );
}

#[test]
fn disabled_tables_refuse_io_and_keep_data() {
    let (conn, _) = connection_at(1);
    let admin = conn.admin();
    let t = create_table(&conn, "t", &["cf"]);
    let name = t.name().clone();
    t.put(&Put::new("r").add_column("cf", "q", "v")).unwrap();
    assert_eq!(
        admin.delete_table(&name),
        Err(Error::TableNotDisabled(name.clone()))
    );
    admin.disable_table(&name).unwrap();
    assert!(admin.is_table_disabled(&name).unwrap());
    assert_eq!(
        t.get(&Get::new("r")).unwrap_err().exception_name(),
        "TableNotEnabledException"
    );
    assert!(t.put(&Put::new("r").add_column("cf", "q", "v2")).is_err());
    assert_eq!(
        admin.disable_table(&name),
        Err(Error::TableNotEnabled(name.clone()))
    );
    admin.enable_table(&name).unwrap();
    assert_eq!(
        t.get(&Get::new("r")).unwrap().value(b"cf", b"q").unwrap(),
        b"v"
    );
    admin.disable_table(&name).unwrap();
    admin.delete_table(&name).unwrap();
    assert!(!admin.table_exists(&name));
    assert_eq!(t.get(&Get::new("r")), Err(Error::TableNotFound(name)));
}

#[test]
fn read_only_tables_refuse_writes() {
    let (conn, _) = connection_at(1);
    let mut desc = TableDescriptor::named("ro")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("cf"));
    desc.set_attribute("READONLY", "true").unwrap();
    conn.admin().create_table(desc).unwrap();
    let t = conn.table("ro").unwrap();
    let err = t
        .put(&Put::new("r").add_column("cf", "q", "v"))
        .unwrap_err();
    assert_eq!(err, Error::TableReadOnly(t.name().clone()));
    assert_eq!(err.exception_name(), "DoNotRetryIOException");
    assert!(t.delete(&basalt_embedded::Delete::new("r")).is_err());
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "reads still work"
    );
}
