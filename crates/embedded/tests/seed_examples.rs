//! The seed documents' own examples of HBase's data model, run against Basalt.

mod support;

use basalt_common::md5::md5;
use basalt_embedded::{Get, Put, Scan};
use support::{cells, connection_at, create_table, scan_rows};

/// The HBase book's webtable: row `com.cnn.www` with `contents:html` at t3, t5 and t6 and
/// anchors at t8 and t9; families contents, anchor, people.
#[test]
fn webtable() {
    let (conn, _) = connection_at(1_000);
    let t = create_table(&conn, "webtable", &["contents", "anchor", "people"]);
    let (t3, t5, t6, t8, t9) = (3, 5, 6, 8, 9);
    t.put(&Put::new("com.cnn.www").add_column_at("contents", "html", t3, "<html>v3"))
        .unwrap();
    t.put(&Put::new("com.cnn.www").add_column_at("contents", "html", t5, "<html>v5"))
        .unwrap();
    t.put(&Put::new("com.cnn.www").add_column_at("contents", "html", t6, "<html>v6"))
        .unwrap();
    t.put(&Put::new("com.cnn.www").add_column_at("anchor", "my.look.ca", t8, "CNN.com"))
        .unwrap();
    t.put(&Put::new("com.cnn.www").add_column_at("anchor", "cnnsi.com", t9, "CNN"))
        .unwrap();
    t.put(
        &Put::new("com.example.www")
            .add_column_at("contents", "html", t5, "<html>ex")
            .add_column_at("people", "author", t5, "John Doe"),
    )
    .unwrap();

    // "a request for the value of contents:html at time t8 would return no value"
    let at_t8 = t.get(
        &Get::new("com.cnn.www")
            .add_column("contents", "html")
            .with_timestamp(t8),
    );
    assert!(at_t8.unwrap().is_empty());
    // "a request for an anchor:my.look.ca value at time stamp t9 would return no value"
    let at_t9 = t.get(
        &Get::new("com.cnn.www")
            .add_column("anchor", "my.look.ca")
            .with_timestamp(t9),
    );
    assert!(at_t9.unwrap().is_empty());
    // Without a timestamp: contents:html from t6, anchor:cnnsi.com from t9, my.look.ca from t8.
    let row = t.get(&Get::new("com.cnn.www")).unwrap();
    assert_eq!(
        cells(&row),
        [
            "anchor:cnnsi.com@9=CNN",
            "anchor:my.look.ca@8=CNN.com",
            "contents:html@6=<html>v6"
        ]
    );
    // Every stored version of contents:html, newest first.
    let all = t.get(
        &Get::new("com.cnn.www")
            .add_column("contents", "html")
            .read_all_versions(),
    );
    assert_eq!(
        cells(&all.unwrap()),
        [
            "contents:html@6=<html>v6",
            "contents:html@5=<html>v5",
            "contents:html@3=<html>v3"
        ]
    );
    // The empty people family of com.cnn.www holds nothing; com.example.www's does.
    assert!(
        t.get(&Get::new("com.cnn.www").add_family("people"))
            .unwrap()
            .is_empty()
    );
    let ex = t
        .get(&Get::new("com.example.www").add_family("people"))
        .unwrap();
    assert_eq!(cells(&ex), ["people:author@5=John Doe"]);
}

/// Row `00001` with a Personal and an Office family, and two versions of Residence Phone.
#[test]
fn personal_and_office_contact() {
    let (conn, clock) = connection_at(1_383_859_182_000);
    let t = create_table(&conn, "contacts", &["Personal", "Office"]);
    t.put(
        &Put::new("00001")
            .add_column("Personal", "Name", "John Dole")
            .add_column("Personal", "Residence Phone", "415-111-1111")
            .add_column("Office", "Phone", "415-212-5544")
            .add_column("Office", "Address", "1021 Market St"),
    )
    .unwrap();
    clock.advance(1_000);
    t.put(&Put::new("00001").add_column("Personal", "Residence Phone", "415-111-1234"))
        .unwrap();

    let row = t.get(&Get::new("00001")).unwrap();
    assert_eq!(
        row.value(b"Personal", b"Residence Phone").unwrap(),
        b"415-111-1234"
    );
    assert_eq!(row.value(b"Office", b"Address").unwrap(), b"1021 Market St");
    assert_eq!(row.len(), 4, "one version per column by default");

    let phones = t
        .get(
            &Get::new("00001")
                .add_column("Personal", "Residence Phone")
                .read_versions(2),
        )
        .unwrap();
    assert_eq!(
        cells(&phones),
        [
            "Personal:Residence Phone@1383859183000=415-111-1234",
            "Personal:Residence Phone@1383859182000=415-111-1111"
        ]
    );
    let office = t.get(&Get::new("00001").add_family("Office")).unwrap();
    assert_eq!(
        cells(&office),
        [
            "Office:Address@1383859182000=1021 Market St",
            "Office:Phone@1383859182000=415-212-5544"
        ]
    );
}

/// Design 1: one wide row per user, a column per followed user and a follower counter.
#[test]
fn follows_wide_row_with_counter() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "follows", &["f"]);
    for name in ["TheRealMT", "MTFanBoy", "Olivia"] {
        // Read-modify-write of the counter; Increment arrives with the full data API.
        let count = t
            .get(&Get::new("TheFakeMT").add_column("f", "count"))
            .unwrap()
            .value(b"f", b"count")
            .map(|v| i64::from_be_bytes(v[..].try_into().unwrap()))
            .unwrap_or(0);
        let next = count + 1;
        t.put(
            &Put::new("TheFakeMT")
                .add_column("f", next.to_string(), name)
                .add_column("f", "count", next.to_be_bytes().to_vec()),
        )
        .unwrap();
    }
    let row = t.get(&Get::new("TheFakeMT")).unwrap();
    assert_eq!(row.value(b"f", b"count").unwrap()[..], 3i64.to_be_bytes());
    let followed: Vec<_> = row
        .cells
        .iter()
        .filter(|c| c.qualifier() != b"count")
        .map(|c| String::from_utf8_lossy(c.value()).into_owned())
        .collect();
    assert_eq!(followed, ["TheRealMT", "MTFanBoy", "Olivia"]);
}

/// Design 2: followed users' ids as qualifiers, so "does A follow B" is one Get.
#[test]
fn follows_user_ids_as_qualifiers() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "follows", &["f"]);
    t.put(
        &Put::new("TheFakeMT")
            .add_column("f", "TheRealMT", "1")
            .add_column("f", "Olivia", "1"),
    )
    .unwrap();
    assert!(
        t.exists(&Get::new("TheFakeMT").add_column("f", "TheRealMT"))
            .unwrap()
    );
    assert!(
        !t.exists(&Get::new("TheFakeMT").add_column("f", "MTFanBoy"))
            .unwrap()
    );
    let row = t.get(&Get::new("TheFakeMT")).unwrap();
    let names: Vec<_> = row.cells.iter().map(|c| c.qualifier().to_vec()).collect();
    assert_eq!(
        names,
        [b"Olivia".to_vec(), b"TheRealMT".to_vec()],
        "qualifiers come back sorted"
    );
}

/// Design 3: a tall table keyed `follower+followed`; who a user follows is a prefix scan.
#[test]
fn follows_tall_table_prefix_scan() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "follows", &["f"]);
    for (a, b) in [
        ("TheFakeMT", "TheRealMT"),
        ("TheFakeMT", "Olivia"),
        ("TheFakeMTX", "Someone"),
        ("Olivia", "TheFakeMT"),
        ("TheFakeM", "Nobody"),
    ] {
        t.put(&Put::new(format!("{a}+{b}")).add_column("f", "followed", b))
            .unwrap();
    }
    let rows = scan_rows(&t, &Scan::new().with_row_prefix("TheFakeMT+"));
    assert_eq!(rows, ["TheFakeMT+Olivia", "TheFakeMT+TheRealMT"]);
    // Reversed, the same rows come last-first.
    let rev = scan_rows(
        &t,
        &Scan::new()
            .with_start_row_inclusive("TheFakeMT,", false)
            .with_stop_row("TheFakeMT+")
            .reversed(true),
    );
    assert_eq!(rev, ["TheFakeMT+TheRealMT", "TheFakeMT+Olivia"]);
}

/// Design 4: fixed-length keys `md5(follower) md5(followed)`; names kept in columns.
#[test]
fn follows_hashed_fixed_length_keys() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "follows", &["f"]);
    let key = |a: &str, b: &str| [md5(a.as_bytes()), md5(b.as_bytes())].concat();
    for (a, b) in [
        ("TheFakeMT", "TheRealMT"),
        ("TheFakeMT", "Olivia"),
        ("Olivia", "TheFakeMT"),
    ] {
        let row = key(a, b);
        assert_eq!(row.len(), 32);
        t.put(
            &Put::new(row)
                .add_column("f", "follower", a)
                .add_column("f", "followed", b),
        )
        .unwrap();
    }
    let prefix = md5(b"TheFakeMT").to_vec();
    let mut followed: Vec<String> = t
        .scan(&Scan::new().with_row_prefix(prefix))
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            assert_eq!(r.row.len(), 32);
            String::from_utf8_lossy(r.value(b"f", b"followed").unwrap()).into_owned()
        })
        .collect();
    followed.sort();
    assert_eq!(followed, ["Olivia", "TheRealMT"]);
}

/// Row keys are compared as bytes: 1..100 sort as 1, 10, 100, 11, ...
#[test]
fn numeric_row_keys_sort_lexicographically() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "nums", &["cf"]);
    for i in 1..=100 {
        t.put(&Put::new(i.to_string()).add_column("cf", "v", i.to_string()))
            .unwrap();
    }
    let rows = scan_rows(&t, &Scan::new());
    assert_eq!(rows.len(), 100);
    assert_eq!(&rows[..6], ["1", "10", "100", "11", "12", "13"]);
    assert_eq!(rows.last().unwrap(), "99");
    let mut sorted = rows.clone();
    sorted.sort();
    assert_eq!(rows, sorted);
}

/// Scanning July 2008 with start `20080700` and stop `20080800` (the stop row is excluded).
#[test]
fn july_2008_scan() {
    let (conn, _) = connection_at(1);
    let t = create_table(&conn, "events", &["cf"]);
    for day in [
        "20080630", "20080700", "20080701", "20080715", "20080731", "20080800", "20080801",
    ] {
        t.put(&Put::new(day).add_column("cf", "e", day)).unwrap();
    }
    let rows = scan_rows(
        &t,
        &Scan::new()
            .with_start_row("20080700")
            .with_stop_row("20080800"),
    );
    assert_eq!(rows, ["20080700", "20080701", "20080715", "20080731"]);
}
