//! Row atomicity under concurrency: readers never see part of a multi-column mutation.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use basalt_embedded::{Get, Put, Scan};
use support::{connection_at, create_table};

const COLUMNS: [&str; 4] = ["a", "b", "c", "d"];

#[test]
fn readers_see_whole_mutations() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "t", &["cf", "cg"]);
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..2)
        .map(|w| {
            let t = t.clone();
            std::thread::spawn(move || {
                for i in 0..2_000u32 {
                    let value = format!("{w}-{i}");
                    let mut put = Put::new(format!("row{}", i % 3));
                    for c in COLUMNS {
                        put = put.add_column("cf", c, value.clone()).add_column(
                            "cg",
                            c,
                            value.clone(),
                        );
                    }
                    t.put(&put).unwrap();
                }
            })
        })
        .collect();
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let t = t.clone();
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut checked = 0u32;
                while !stop.load(Ordering::Relaxed) || checked == 0 {
                    for r in ["row0", "row1", "row2"] {
                        let row = t.get(&Get::new(r)).unwrap();
                        if !row.is_empty() {
                            assert_eq!(row.len(), 8);
                            let first = row.cells[0].value();
                            assert!(
                                row.cells.iter().all(|c| c.value() == first),
                                "torn row {row:?}"
                            );
                            checked += 1;
                        }
                    }
                    for row in t.scan(&Scan::new()).unwrap() {
                        let row = row.unwrap();
                        let first = row.cells[0].value();
                        assert!(
                            row.cells.iter().all(|c| c.value() == first),
                            "torn row in scan"
                        );
                    }
                }
                checked
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().unwrap() > 0);
    }
}
