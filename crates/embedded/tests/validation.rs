//! Bad input gets a clear error naming what was wrong, and changes nothing.

mod support;

use basalt_embedded::{Connection, Delete, Error, ErrorKind, Get, Put, Scan};
use support::{connection_at, create_table};

#[test]
fn bad_rows() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    assert_eq!(
        t.put(&Put::new("").add_column("cf", "q", "v")),
        Err(Error::EmptyRow)
    );
    assert_eq!(t.get(&Get::new("")), Err(Error::EmptyRow));
    let long = vec![b'x'; 32_768];
    let err = t
        .put(&Put::new(long).add_column("cf", "q", "v"))
        .unwrap_err();
    assert_eq!(err.to_string(), "Row length 32768 is > 32767");
    assert!(
        t.put(&Put::new(vec![b'x'; 32_767]).add_column("cf", "q", "v"))
            .is_ok()
    );
}

#[test]
fn unknown_family_is_no_such_column_family() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    let put = Put::new("r")
        .add_column("cf", "q", "ok")
        .add_column("nope", "q", "v");
    let err = t.put(&put).unwrap_err();
    assert_eq!(err.exception_name(), "NoSuchColumnFamilyException");
    assert_eq!(
        err.to_string(),
        "Column family nope does not exist in table t"
    );
    assert!(
        t.get(&Get::new("r")).unwrap().is_empty(),
        "nothing of a rejected put is written"
    );
    assert!(t.delete(&Delete::new("r").add_family("nope")).is_err());
    assert!(t.get(&Get::new("r").add_family("nope")).is_err());
    assert!(t.scan(&Scan::new().add_column("nope", "q")).is_err());
}

#[test]
fn negative_timestamps_and_empty_puts() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["cf"]);
    let err = t
        .put(&Put::new("r").add_column_at("cf", "q", -1, "v"))
        .unwrap_err();
    assert_eq!(err, Error::NegativeTimestamp(-1));
    assert!(
        t.delete(&Delete::new("r").add_column_at("cf", "q", -5))
            .is_err()
    );
    assert_eq!(
        t.put(&Put::new("r")).unwrap_err().to_string(),
        "Invalid argument: No columns to insert"
    );
    assert!(t.scan(&Scan::new().read_versions(0)).is_err());
}

#[test]
fn cell_size_limit_is_configurable() {
    let conn = Connection::builder().max_cell_size(1_000).build();
    let t = create_table(&conn, "t", &["cf"]);
    assert!(
        t.put(&Put::new("r").add_column("cf", "q", vec![0u8; 900]))
            .is_ok()
    );
    let err = t
        .put(&Put::new("r").add_column("cf", "q", vec![0u8; 1_000]))
        .unwrap_err();
    assert!(
        matches!(err, Error::CellTooLarge { limit: 1_000, .. }),
        "{err}"
    );
    assert_eq!(err.kind(), ErrorKind::InvalidArgument);
    // The default is HBase's 10 MiB.
    let conn = Connection::in_memory();
    let t = create_table(&conn, "t", &["cf"]);
    assert!(
        t.put(&Put::new("r").add_column("cf", "q", vec![0u8; 10 * 1024 * 1024]))
            .is_err()
    );
    assert!(
        t.put(&Put::new("r").add_column("cf", "q", vec![0u8; 10 * 1024 * 1024 - 100]))
            .is_ok()
    );
}
