//! KEEP_DELETED_CELLS (reference §1.6): deleted cells stay readable by time ranges that end
//! before the marker.

mod support;

use basalt_embedded::{
    ColumnFamilyDescriptor, Delete, Get, KeepDeletedCells, Put, TableDescriptor,
};
use support::{cells, connection_at, create_with};

fn table(kdc: KeepDeletedCells) -> basalt_embedded::Table {
    let (conn, _) = connection_at(1_000);
    let desc = TableDescriptor::named("t")
        .expect("name")
        .with_family(ColumnFamilyDescriptor::new("cf").with_keep_deleted_cells(kdc));
    let t = create_with(&conn, desc);
    t.put(&Put::new("r").add_column_at("cf", "q", 5, "v5"))
        .expect("put");
    t.delete(&Delete::new("r").add_columns_at("cf", "q", 10))
        .expect("delete");
    t
}

#[test]
fn point_in_time_read_before_the_delete() {
    for kdc in [KeepDeletedCells::True, KeepDeletedCells::Ttl] {
        let t = table(kdc);
        assert!(
            t.get(&Get::new("r")).unwrap().is_empty(),
            "{kdc}: deleted now"
        );
        let before = t.get(&Get::new("r").with_time_range(0, 10)).unwrap();
        assert_eq!(
            cells(&before),
            ["cf:q@5=v5"],
            "{kdc}: visible before the marker"
        );
    }
}

#[test]
fn without_keep_deleted_cells_a_delete_reaches_back_in_time() {
    let t = table(KeepDeletedCells::False);
    assert!(
        t.get(&Get::new("r").with_time_range(0, 10))
            .unwrap()
            .is_empty()
    );
}
