//! The buffered mutator on the embedded engine: nothing is written before the buffer fills or
//! is flushed, a full buffer is sent without a flush, failures are reported by a later call
//! with every failed row, and dropping or closing sends what is left.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::{
    BufferedMutator, BufferedMutatorParams, Delete, Error, ErrorKind, Get, Put, Scan, TableName,
};
use support::{connection_at, create_table};

fn mutator(conn: &basalt_embedded::Connection, bytes: usize) -> BufferedMutator {
    BufferedMutator::new(
        Arc::new(conn.clone()),
        TableName::parse("t").unwrap(),
        BufferedMutatorParams {
            write_buffer_size: bytes,
        },
    )
    .unwrap()
}

fn put(row: &str) -> Put {
    Put::new(row.to_owned()).add_column("f", "q", format!("v-{row}"))
}

#[test]
fn mutations_wait_in_the_buffer_until_a_flush() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    let mut m = mutator(&conn, 1 << 20);
    for i in 0..10 {
        m.mutate(put(&format!("r{i}"))).unwrap();
    }
    assert!(m.buffered_bytes() > 0);
    assert!(t.get(&Get::new("r0")).unwrap().cells.is_empty());
    m.flush().unwrap();
    assert_eq!(m.buffered_bytes(), 0);
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 10);
    m.mutate(Delete::new("r3")).unwrap();
    assert_eq!(t.get(&Get::new("r3")).unwrap().cells.len(), 1);
    m.close().unwrap();
    assert!(t.get(&Get::new("r3")).unwrap().cells.is_empty());
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 9);
}

#[test]
fn a_full_buffer_is_sent_without_a_flush() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    // Each put weighs a little over 40 bytes: the tenth fills a 400-byte buffer.
    let mut m = mutator(&conn, 400);
    let mut n = 0;
    while m.buffered_bytes() > 0 || n == 0 {
        m.mutate(put(&format!("r{n:02}"))).unwrap();
        n += 1;
        assert!(n < 100, "the buffer never filled");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while t.scan(&Scan::new()).unwrap().count() < n {
        assert!(Instant::now() < deadline, "the full buffer was not sent");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), n);
    drop(m);
}

#[test]
fn failures_come_back_later_with_every_failed_row() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    let mut m = mutator(&conn, 1 << 20);
    m.mutate(put("a")).unwrap();
    m.mutate(Put::new("b").add_column("nope", "q", "v"))
        .unwrap();
    m.mutate(put("c")).unwrap();
    m.mutate(Put::new("d").add_column("nope", "q", "v"))
        .unwrap();
    let e = m.flush().unwrap_err();
    assert!(
        e.to_string().contains("2 buffered mutation(s)") && e.to_string().contains("row b"),
        "{e}"
    );
    // The good ones of the same batch were written.
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 2);
    // Until taken, the failure is reported again.
    assert!(m.mutate(put("e")).is_err());
    let failures = m.take_failures();
    let rows: Vec<_> = failures.iter().map(|(r, _)| &r[..]).collect();
    assert_eq!(rows, [&b"b"[..], b"d"]);
    assert!(
        failures
            .iter()
            .all(|(_, e)| matches!(e, Error::NoSuchColumnFamily { .. }))
    );
    m.mutate(put("e")).unwrap();
    m.close().unwrap();
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 3);
}

#[test]
fn bad_input_is_refused_at_once_and_a_missing_table_fails_the_flush() {
    let (conn, _) = connection_at(100);
    create_table(&conn, "t", &["f"]);
    let mut m = mutator(&conn, 1 << 20);
    assert_eq!(m.mutate(Put::new("")).unwrap_err(), Error::EmptyRow);
    let e = BufferedMutator::new(
        Arc::new(conn.clone()),
        TableName::parse("t").unwrap(),
        BufferedMutatorParams {
            write_buffer_size: 0,
        },
    )
    .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidArgument);
    let mut missing = conn.buffered_mutator("missing").unwrap();
    missing.mutate(put("a")).unwrap();
    missing.flush().unwrap_err();
    let failures = missing.take_failures();
    assert!(matches!(&failures[..], [(_, Error::TableNotFound(_))]));
}

#[test]
fn dropping_sends_what_is_buffered() {
    let (conn, _) = connection_at(100);
    let t = create_table(&conn, "t", &["f"]);
    let mut m = conn.buffered_mutator("t").unwrap();
    m.mutate_all((0..5).map(|i| put(&format!("r{i}")))).unwrap();
    drop(m);
    assert_eq!(t.scan(&Scan::new()).unwrap().count(), 5);
}
