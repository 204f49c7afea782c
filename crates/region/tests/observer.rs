//! A region runs its observer's hooks around its operations: pre hooks change or veto them,
//! post hooks see what was written, scanned rows pass through it, and a check-and-mutate's
//! action is a put like any other once its check holds.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use basalt_common::ops::{CheckAction, CheckAndMutate, Condition};
use basalt_common::{Bytes, Delete, Error, Get, Put, Result, RowResult, Scan};
use basalt_region::RegionObserver;
use support::{cells, create_table, host_at, scan_rows};

/// Vetoes puts of the value "bad", adds `f:seen=1` to every other put, answers Gets of the
/// row "virtual" itself, drops scanned rows starting with "hidden", and counts what it saw.
#[derive(Debug, Default)]
struct Watcher {
    puts: AtomicUsize,
    deletes: AtomicUsize,
    scanned: AtomicUsize,
}

impl RegionObserver for Watcher {
    fn pre_put(&self, put: &mut Put) -> Result<()> {
        if put.cells.iter().any(|c| c.value == "bad") {
            return Err(Error::Coprocessor("no bad values".into()));
        }
        *put = put.clone().add_column("f", "seen", "1");
        Ok(())
    }

    fn post_put(&self, _put: &Put) -> Result<()> {
        self.puts.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn post_delete(&self, _delete: &Delete) -> Result<()> {
        self.deletes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn pre_get(&self, get: &Get) -> Result<Option<RowResult>> {
        Ok((get.row == "virtual").then(|| RowResult {
            row: get.row.clone(),
            cells: Vec::new(),
            partial: false,
        }))
    }

    fn observes_scans(&self) -> bool {
        true
    }

    fn post_scan_next(&self, row: RowResult) -> Result<Option<RowResult>> {
        self.scanned.fetch_add(1, Ordering::Relaxed);
        Ok((!row.row.starts_with(b"hidden")).then_some(row))
    }
}

#[test]
fn hooks_change_veto_and_see_operations() {
    let (host, _) = host_at(100);
    let region = create_table(&host, "t", &["f"]);
    let watcher = Arc::new(Watcher::default());
    region.set_observer(watcher.clone()).unwrap();

    region
        .put(&Put::new("a").add_column("f", "q", "1"))
        .unwrap();
    assert_eq!(
        cells(&region.get(&Get::new("a")).unwrap()),
        ["f:q@100=1", "f:seen@100=1"]
    );
    let vetoed = region
        .put(&Put::new("b").add_column("f", "q", "bad"))
        .unwrap_err();
    assert_eq!(vetoed, Error::Coprocessor("no bad values".into()));
    assert!(region.get(&Get::new("b")).unwrap().cells.is_empty());

    region
        .put(&Put::new("hidden1").add_column("f", "q", "2"))
        .unwrap();
    assert_eq!(scan_rows(&region, &Scan::new()), ["a"]);
    assert_eq!(watcher.scanned.load(Ordering::Relaxed), 2);

    // A check-and-mutate's put goes through the put hooks once its check holds.
    let cam = CheckAndMutate::new(
        "a",
        Condition::equals("f", "q", "1"),
        CheckAction::Put(Put::new("a").add_column("f", "q", "bad")),
    );
    assert!(matches!(
        region.check_and_mutate(&cam),
        Err(Error::Coprocessor(_))
    ));
    let failing = CheckAndMutate::new(
        "a",
        Condition::equals("f", "q", "other"),
        CheckAction::Put(Put::new("a").add_column("f", "q", "bad")),
    );
    assert!(!region.check_and_mutate(&failing).unwrap().success);

    region.delete(&Delete::new("a")).unwrap();
    assert_eq!(watcher.puts.load(Ordering::Relaxed), 2);
    assert_eq!(watcher.deletes.load(Ordering::Relaxed), 1);
    assert!(region.get(&Get::new("virtual")).unwrap().cells.is_empty());
}

/// Moves every put to another row: refused, since the row chose the region.
#[derive(Debug)]
struct RowChanger;

impl RegionObserver for RowChanger {
    fn pre_put(&self, put: &mut Put) -> Result<()> {
        put.row = Bytes::from_static(b"elsewhere");
        Ok(())
    }
}

#[test]
fn a_hook_cannot_change_the_row() {
    let (host, _) = host_at(100);
    let region = create_table(&host, "t", &["f"]);
    region.set_observer(Arc::new(RowChanger)).unwrap();
    let err = region
        .put(&Put::new("a").add_column("f", "q", "1"))
        .unwrap_err();
    assert!(err.to_string().contains("changed the row"), "{err}");
    assert!(region.set_observer(Arc::new(RowChanger)).is_err());
}

/// Counts flushes and compactions, and vetoes major compactions.
#[derive(Debug, Default)]
struct Housekeeping {
    flushes: AtomicUsize,
    compactions: AtomicUsize,
}

impl RegionObserver for Housekeeping {
    fn post_flush(&self) -> Result<()> {
        self.flushes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn pre_compact(&self, major: bool) -> Result<()> {
        if major {
            return Err(Error::Coprocessor("no major compactions here".into()));
        }
        Ok(())
    }

    fn post_compact(&self, _major: bool) -> Result<()> {
        self.compactions.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
}

#[test]
fn flush_and_compaction_hooks_run_and_a_compaction_can_be_vetoed() {
    let (host, _) = host_at(100);
    let region = create_table(&host, "t", &["f"]);
    let hooks = Arc::new(Housekeeping::default());
    region.set_observer(hooks.clone()).unwrap();
    for i in 0..3 {
        region
            .put(&Put::new(format!("r{i}")).add_column("f", "q", "v"))
            .unwrap();
        region.flush().unwrap();
    }
    assert_eq!(hooks.flushes.load(Ordering::Relaxed), 3);
    assert_eq!(
        region.compact(true).unwrap_err(),
        Error::Coprocessor("no major compactions here".into())
    );
    assert_eq!(region.store_file_counts(), [3]);
    region.compact(false).unwrap();
    assert_eq!(region.store_file_counts(), [1]);
    assert_eq!(hooks.compactions.load(Ordering::Relaxed), 1);
}

/// Doubles every increment, and shows appends' results upper-cased.
#[derive(Debug)]
struct Counters;

impl RegionObserver for Counters {
    fn pre_increment(&self, inc: &mut basalt_common::ops::Increment) -> Result<()> {
        for column in &mut inc.columns {
            column.2 *= 2;
        }
        Ok(())
    }

    fn post_append(
        &self,
        _append: &basalt_common::ops::Append,
        result: &mut RowResult,
    ) -> Result<()> {
        result.cells = result
            .cells
            .iter()
            .map(|c| {
                basalt_common::Cell::put(
                    c.row(),
                    c.family(),
                    c.qualifier(),
                    c.timestamp,
                    &c.value().to_ascii_uppercase(),
                )
            })
            .collect();
        Ok(())
    }
}

#[test]
fn increment_and_append_hooks_change_what_is_written_and_returned() {
    let (host, _) = host_at(100);
    let region = create_table(&host, "t", &["f"]);
    region.set_observer(Arc::new(Counters)).unwrap();
    let inc = basalt_common::ops::Increment::new("r").add_column("f", "n", 5);
    let written = region.increment(&inc).unwrap();
    assert_eq!(written.cells[0].value(), 10i64.to_be_bytes());
    let append = basalt_common::ops::Append::new("r").add_column("f", "s", Bytes::from("ab"));
    let shown = region.append(&append).unwrap();
    assert_eq!(shown.cells[0].value(), b"AB");
    // The hook changed what the append returned, not what it wrote.
    assert_eq!(
        cells(&region.get(&Get::new("r")).unwrap()),
        ["f:n@100=\0\0\0\0\0\0\0\n", "f:s@100=ab"]
    );
    // A row mutation's increment goes through the same hook.
    let mut m = basalt_common::ops::RowMutations::new("r");
    m.mutations.push(basalt_common::ops::RowOp::Increment(
        basalt_common::ops::Increment::new("r").add_column("f", "n", 1),
    ));
    let results = region.mutate_row(&m).unwrap();
    assert_eq!(results[0].cells[0].value(), 12i64.to_be_bytes());
}
