//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod model;

use std::sync::Arc;

use basalt_client::{
    ColumnFamilyDescriptor, Connection, ManualClock, RowResult, Table, TableDescriptor,
};

/// An in-memory connection whose clock starts at `start` ms and moves only when told.
pub fn connection_at(start: i64) -> (Connection, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(start));
    (Connection::builder().clock(clock.clone()).build(), clock)
}

/// Creates table `name` with the given families (default attributes) and returns it.
pub fn create_table(conn: &Connection, name: &str, families: &[&str]) -> Table {
    let mut desc = TableDescriptor::named(name).expect("valid name");
    for f in families {
        desc.add_family(ColumnFamilyDescriptor::new(f.as_bytes().to_vec()));
    }
    create_with(conn, desc)
}

/// Creates the table `desc` describes and returns it.
pub fn create_with(conn: &Connection, desc: TableDescriptor) -> Table {
    let name = desc.name.to_string();
    conn.admin().create_table(desc).expect("create table");
    conn.table(&name).expect("table handle")
}

/// `family:qualifier@ts=value` for each cell, for compact assertions.
pub fn cells(r: &RowResult) -> Vec<String> {
    r.cells
        .iter()
        .map(|c| {
            format!(
                "{}:{}@{}={}",
                String::from_utf8_lossy(c.family()),
                String::from_utf8_lossy(c.qualifier()),
                c.timestamp,
                String::from_utf8_lossy(c.value())
            )
        })
        .collect()
}

/// The row keys of a whole scan, as strings.
pub fn scan_rows(table: &Table, scan: &basalt_client::Scan) -> Vec<String> {
    table
        .scan(scan)
        .expect("scan")
        .map(|r| String::from_utf8_lossy(&r.expect("row").row).into_owned())
        .collect()
}
