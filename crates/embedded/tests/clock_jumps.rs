//! A server whose clock jumps back, or a region reopened under a clock behind the one that
//! wrote it, never stamps a write below data the region already holds: the newest write is the
//! one read (issue 45: the fault campaign's clock skew hid acknowledged writes behind cells a
//! fast clock had stamped).

use basalt_embedded::{Get, Put, Table};

mod support;

fn value(t: &Table) -> Option<Vec<u8>> {
    t.get(&Get::new("r"))
        .expect("get")
        .value(b"f", b"q")
        .map(<[u8]>::to_vec)
}

#[test]
fn a_clock_that_jumps_back_does_not_hide_new_writes() {
    let (conn, clock) = support::connection_at(10_000_000);
    let t = support::create_table(&conn, "t", &["f"]);
    t.put(&Put::new("r").add_column("f", "q", "ahead"))
        .expect("put");
    // A minute back, as libfaketime skews a server.
    clock.set(10_000_000 - 60_000);
    t.put(&Put::new("r").add_column("f", "q", "after"))
        .expect("put");
    assert_eq!(value(&t).as_deref(), Some(&b"after"[..]));
    t.put(&Put::new("r").add_column("f", "q", "again"))
        .expect("put");
    assert_eq!(value(&t).as_deref(), Some(&b"again"[..]));
}

#[test]
fn a_region_reopened_under_a_clock_behind_keeps_new_writes_on_top() {
    let (conn, clock) = support::connection_at(10_000_000);
    let t = support::create_table(&conn, "t", &["f"]);
    t.put(&Put::new("r").add_column("f", "q", "fast clock"))
        .expect("put");
    // The region closes (flushed) and opens again, as it would on another server whose
    // clock is a minute behind the one that wrote it.
    let admin = conn.admin();
    admin.disable_table(t.name()).expect("disable");
    clock.set(10_000_000 - 60_000);
    admin.enable_table(t.name()).expect("enable");
    let t = conn.table("t").expect("table");
    t.put(&Put::new("r").add_column("f", "q", "slow clock"))
        .expect("put");
    assert_eq!(value(&t).as_deref(), Some(&b"slow clock"[..]));
}

#[test]
fn a_timestamp_a_client_chose_ahead_does_not_drag_server_stamps() {
    let (conn, _clock) = support::connection_at(10_000_000);
    let t = support::create_table(&conn, "t", &["f"]);
    // A client's own timestamp an hour ahead: server stamps follow the clock, not it.
    t.put(&Put::new("x").add_column_at("f", "q", 10_000_000 + 3_600_000, "chosen"))
        .expect("put");
    let admin = conn.admin();
    admin.disable_table(t.name()).expect("disable");
    admin.enable_table(t.name()).expect("enable");
    let t = conn.table("t").expect("table");
    t.put(&Put::new("r").add_column("f", "q", "now"))
        .expect("put");
    let got = t.get(&Get::new("r")).expect("get");
    assert_eq!(got.cells[0].timestamp, 10_000_000, "stamped by the clock");
}

#[test]
fn a_split_regions_daughters_keep_its_floor() {
    let (conn, clock) = support::connection_at(10_000_000);
    let t = support::create_table(&conn, "t", &["f"]);
    t.put(&Put::new("r").add_column("f", "q", "fast clock"))
        .expect("put");
    clock.set(10_000_000 - 60_000);
    conn.admin().split(t.name(), Some(b"m")).expect("split");
    let t = conn.table("t").expect("table");
    t.put(&Put::new("r").add_column("f", "q", "daughter"))
        .expect("put");
    assert_eq!(value(&t).as_deref(), Some(&b"daughter"[..]));
}

/// A region reopened after a crash, its newest writes only in the log, under a clock behind the
/// one that wrote them: the log's replay raises the region's floor to when they were logged,
/// so a new write still lands on top.
#[test]
fn a_region_replayed_from_its_log_under_a_clock_behind_keeps_new_writes_on_top() {
    let fs = basalt_fs::FaultyFs::new();
    let clock = std::sync::Arc::new(basalt_embedded::ManualClock::new(10_000_000));
    let open =
        || support::open_after_crash(&fs, |b| b.clock(clock.clone())).expect("the store opens");
    let conn = open();
    let t = support::create_table(&conn, "t", &["f"]);
    // Flushed once under the slow clock (the region's .clock says 9,940,000)...
    clock.set(10_000_000 - 60_000);
    t.put(&Put::new("r").add_column("f", "q", "flushed"))
        .expect("put");
    conn.admin().flush(t.name()).expect("flush");
    // ...then written under a clock a minute ahead, in the log only, and the process dies.
    clock.set(10_000_000);
    t.put(&Put::new("r").add_column("f", "q", "fast clock"))
        .expect("put");
    fs.kill();
    drop(t);
    drop(conn);
    clock.set(10_000_000 - 60_000 + 10);
    let conn = open();
    let t = conn.table("t").expect("table");
    assert_eq!(value(&t).as_deref(), Some(&b"fast clock"[..]), "replayed");
    t.put(&Put::new("r").add_column("f", "q", "slow clock"))
        .expect("put");
    assert_eq!(value(&t).as_deref(), Some(&b"slow clock"[..]));
}
