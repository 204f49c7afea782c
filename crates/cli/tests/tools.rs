//! Issue 33's data-moving commands on data directories: `basalt export` then `basalt import`
//! give identical cells (versions and timestamps included, delete markers in a raw export),
//! `copytable` copies with renamed families, `rowcounter` counts, and `basalt snapshot
//! export` carries a snapshot to another data directory where a clone of it reads the same.

mod support;

use basalt_embedded::prelude::*;
use std::path::Path;

use basalt_embedded::{
    Bytes, Client, ColumnFamilyDescriptor, Connection, DataClient, Delete, Put, Scan,
    TableDescriptor, TableName,
};
use support::basalt;

fn open(dir: &Path) -> Connection {
    Connection::open(dir).expect("open")
}

fn create(conn: &Connection, name: &str, families: &[&str], splits: &[&str]) {
    let mut d = TableDescriptor::named(name).expect("name");
    for f in families {
        let mut family = ColumnFamilyDescriptor::new(f.to_string());
        family.max_versions = 3;
        d = d.with_family(family);
    }
    let splits: Vec<Bytes> = splits.iter().map(|s| Bytes::from(s.to_string())).collect();
    conn.admin()
        .create_table_with_splits(d, &splits)
        .expect("create");
}

/// [`create`] in the data directory `dir`, closed again.
fn create_in(dir: &Path, name: &str, families: &[&str], splits: &[&str]) {
    let conn = open(dir);
    create(&conn, name, families, splits);
    conn.close().expect("close");
}

/// Every cell of a table, markers too with `raw`, as text.
fn cells(conn: &Connection, table: &str, raw: bool) -> Vec<String> {
    let mut scan = Scan::new();
    scan.max_versions = u32::MAX;
    scan.raw = raw;
    conn.table(table)
        .expect("table")
        .scan(&scan)
        .expect("scan")
        .flat_map(|r| {
            r.expect("row")
                .cells
                .iter()
                .map(|c| {
                    format!(
                        "{}/{}:{}/{}/{:?}={}",
                        String::from_utf8_lossy(c.row()),
                        String::from_utf8_lossy(c.family()),
                        String::from_utf8_lossy(c.qualifier()),
                        c.timestamp,
                        c.cell_type,
                        String::from_utf8_lossy(c.value())
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Table `t` in `dir`: two regions, families `f` and `g`, three versions of some cells at
/// given timestamps, a deleted column and a deleted row.
fn source(dir: &Path) -> Vec<String> {
    let conn = open(dir);
    create(&conn, "t", &["f", "g"], &["m"]);
    let t = conn.table("t").expect("table");
    for i in 0..300u32 {
        let row = format!("{}{i:04}", if i % 2 == 0 { 'a' } else { 'x' });
        for v in 0..3i64 {
            t.put(&Put::new(row.clone()).add_column_at("f", "q", 1_000 + v, format!("{row}-v{v}")))
                .expect("put");
        }
        t.put(&Put::new(row.clone()).add_column_at("g", "r", 5_000, "g"))
            .expect("put g");
    }
    t.delete(&Delete::new("a0000").add_columns_at("g", "r", 6_000))
        .expect("delete column");
    t.delete(
        &Delete::new("x0001")
            .add_family_at("f", 7_000)
            .add_family_at("g", 7_000),
    )
    .expect("delete row");
    let all = cells(&conn, "t", false);
    conn.close().expect("close");
    all
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn an_export_imported_elsewhere_has_identical_cells() {
    let a = tempfile::tempdir().expect("dir");
    let b = tempfile::tempdir().expect("dir");
    let out = tempfile::tempdir().expect("dir");
    let want = source(a.path());
    let export_dir = out.path().join("t-export");
    let (ok, stdout, stderr) = basalt(&[
        "export",
        "--data",
        path(a.path()),
        "t",
        path(&export_dir),
        "3",
    ]);
    assert!(ok, "{stdout}{stderr}");
    assert!(
        stdout.contains("(2 files)"),
        "one file per region: {stdout}"
    );
    assert!(stdout.contains("299 rows"), "{stdout}");

    create_in(b.path(), "t2", &["f", "g"], &[]);
    let (ok, stdout, stderr) =
        basalt(&["import", "--data", path(b.path()), "t2", path(&export_dir)]);
    assert!(ok, "{stdout}{stderr}");
    let conn = open(b.path());
    assert_eq!(
        cells(&conn, "t2", false),
        want,
        "versions and timestamps kept"
    );
    conn.close().expect("close");

    // A raw export carries the delete markers: imported, they delete what they deleted.
    let raw_dir = out.path().join("raw");
    let (ok, stdout, stderr) = basalt(&[
        "export",
        "--data",
        path(a.path()),
        "-D",
        "hbase.mapreduce.include.deleted.rows=true",
        "t",
        path(&raw_dir),
        "3",
    ]);
    assert!(ok, "{stdout}{stderr}");
    let raw_source = {
        let conn = open(a.path());
        let raw = cells(&conn, "t", true);
        conn.close().expect("close");
        raw
    };
    assert!(raw_source.iter().any(|c| c.contains("DeleteFamily")));
    create_in(b.path(), "t3", &["f", "g"], &[]);
    let (ok, stdout, stderr) = basalt(&["import", "--data", path(b.path()), "t3", path(&raw_dir)]);
    assert!(ok, "{stdout}{stderr}");
    let conn = open(b.path());
    assert_eq!(cells(&conn, "t3", true), raw_source, "markers and all");
    assert_eq!(cells(&conn, "t3", false), want);
    conn.close().expect("close");

    // Only some rows and a family renamed on the way in.
    let part = out.path().join("part");
    let (ok, stdout, stderr) = basalt(&[
        "export",
        "--data",
        path(a.path()),
        "-D",
        "hbase.mapreduce.scan.row.start=x",
        "-D",
        "hbase.mapreduce.scan.column.family=f",
        "t",
        path(&part),
    ]);
    assert!(ok, "{stdout}{stderr}");
    create_in(b.path(), "t4", &["h"], &[]);
    let (ok, stdout, stderr) = basalt(&[
        "import",
        "--data",
        path(b.path()),
        "-D",
        "HBASE_IMPORTER_RENAME_CFS=f:h",
        "t4",
        path(&part),
    ]);
    assert!(ok, "{stdout}{stderr}");
    let conn = open(b.path());
    let got = cells(&conn, "t4", false);
    assert_eq!(
        got.len(),
        149,
        "one version of f:q of each x row but the deleted one"
    );
    assert!(
        got.iter()
            .all(|c| c.starts_with('x') && c.contains("/h:q/1002/")),
        "{got:?}"
    );
    conn.close().expect("close");

    // Bad input is named.
    let (ok, _, stderr) = basalt(&["export", "--data", path(a.path()), "t", path(&export_dir)]);
    assert!(!ok && stderr.contains("not empty"), "{stderr}");
    let (ok, _, stderr) = basalt(&[
        "export",
        "--data",
        path(a.path()),
        "-D",
        "nope=1",
        "t",
        path(&out.path().join("x")),
    ]);
    assert!(!ok && stderr.contains("nope"), "{stderr}");
    let junk = out.path().join("junk");
    std::fs::create_dir_all(&junk).expect("mkdir");
    std::fs::write(junk.join("part-m-00000"), b"not a sequence file").expect("write");
    let (ok, _, stderr) = basalt(&["import", "--data", path(b.path()), "t2", path(&junk)]);
    assert!(
        !ok && stderr.contains("not an HBase export file"),
        "{stderr}"
    );
}

#[test]
fn copytable_and_rowcounter() {
    let a = tempfile::tempdir().expect("dir");
    let want = source(a.path());
    create_in(a.path(), "c", &["h", "g"], &[]);
    let (ok, stdout, stderr) = basalt(&[
        "copytable",
        "--data",
        path(a.path()),
        "--new.name=c",
        "--families=f:h,g",
        "--versions=3",
        "t",
    ]);
    assert!(ok, "{stdout}{stderr}");
    let conn = open(a.path());
    let renamed: Vec<String> = want.iter().map(|c| c.replace("/f:", "/h:")).collect();
    let mut got = cells(&conn, "c", false);
    let mut expected = renamed;
    got.sort();
    expected.sort();
    assert_eq!(got, expected);
    conn.close().expect("close");

    let (ok, stdout, stderr) = basalt(&["rowcounter", "--data", path(a.path()), "t"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("ROWS=299"), "{stdout}");
    let (ok, stdout, stderr) = basalt(&[
        "rowcounter",
        "--data",
        path(a.path()),
        "--range=a0100,a0200;x0001,",
        "t",
    ]);
    assert!(ok, "{stdout}{stderr}");
    // a0100..a0198 (50 rows), then x0003..x0299 (149 rows; x0001 is deleted).
    assert!(stdout.contains("ROWS=199"), "{stdout}");
    let (ok, stdout, stderr) = basalt(&["rowcounter", "--data", path(a.path()), "t", "g:r"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("ROWS=298"), "{stdout}");
    let (ok, _, stderr) = basalt(&["copytable", "--data", path(a.path()), "t"]);
    assert!(!ok && stderr.contains("onto itself"), "{stderr}");
}

#[test]
fn an_exported_snapshot_clones_elsewhere() {
    let a = tempfile::tempdir().expect("dir");
    let b = tempfile::tempdir().expect("dir");
    let want = source(a.path());
    {
        let conn = open(a.path());
        SnapshotAdmin::snapshot(&conn, "s", &TableName::parse("t").expect("name"))
            .expect("snapshot");
        conn.close().expect("close");
    }
    let (ok, stdout, stderr) = basalt(&[
        "snapshot",
        "export",
        "--data",
        path(a.path()),
        "--to",
        path(b.path()),
        "s",
    ]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("Exported snapshot s"), "{stdout}");
    let conn = open(b.path());
    assert_eq!(SnapshotAdmin::list_snapshots(&conn).expect("list").len(), 1);
    SnapshotAdmin::restore_snapshot(&conn, "s").expect("a missing table is cloned");
    assert_eq!(cells(&conn, "t", false), want);
    assert_eq!(
        conn.admin()
            .regions(&TableName::parse("t").expect("name"))
            .expect("regions")
            .len(),
        2
    );
    conn.close().expect("close");
    // Once only, and only snapshots that exist.
    let (ok, _, stderr) = basalt(&[
        "snapshot",
        "export",
        "--data",
        path(a.path()),
        "--to",
        path(b.path()),
        "s",
    ]);
    assert!(!ok && stderr.contains("already has a snapshot"), "{stderr}");
    let (ok, _, stderr) = basalt(&[
        "snapshot",
        "export",
        "--data",
        path(a.path()),
        "--to",
        path(b.path()),
        "nope",
    ]);
    assert!(!ok && stderr.contains("no snapshot named nope"), "{stderr}");
}

/// Issue 33's bulk load proof: a million cells of TSV (100,000 rows of ten columns, and bad
/// lines that are skipped) through puts, and through `importtsv -Dimporttsv.bulk.output`
/// written for an unsplit table (in several sorted runs) then `bulkload`ed into a table split
/// four times, so files straddle its boundaries and are split: the two tables hold the same
/// cells.
#[test]
fn a_million_cells_bulk_loaded_equal_the_same_put() {
    const ROWS: usize = 100_000;
    let a = tempfile::tempdir().expect("dir");
    let work = tempfile::tempdir().expect("dir");
    let tsv = work.path().join("input.tsv");
    {
        use std::io::Write;
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tsv).expect("tsv"));
        for i in 0..ROWS {
            // Rows in no particular order, as real input is.
            let row = format!("{:08x}", (i as u64).wrapping_mul(0x9E37_79B9) % (1 << 32));
            write!(out, "{row}").expect("write");
            for c in 0..10 {
                write!(out, ",v{i}-{c}").expect("write");
            }
            writeln!(out).expect("write");
            if i % 40_000 == 0 {
                writeln!(out, "a bad line,with too few fields").expect("write");
            }
        }
    }
    {
        let conn = open(a.path());
        create(&conn, "puts", &["f"], &[]);
        create(&conn, "staging", &["f"], &[]);
        create(&conn, "bulk", &["f"], &["3", "6", "9", "c"]);
        conn.close().expect("close");
    }
    let columns = format!(
        "importtsv.columns=HBASE_ROW_KEY,{}",
        (0..10)
            .map(|c| format!("f:c{c}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let data = path(a.path());
    let (ok, stdout, stderr) = basalt(&[
        "importtsv",
        "--data",
        data,
        "-D",
        &columns,
        "-D",
        "importtsv.separator=,",
        "-D",
        "importtsv.timestamp=1000",
        "puts",
        path(&tsv),
    ]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("100000 rows, 1000000 cells"), "{stdout}");
    assert!(stdout.contains("3 bad lines skipped"), "{stdout}");

    let out = work.path().join("hfiles");
    let bulk_output = format!("importtsv.bulk.output={}", path(&out));
    let (ok, stdout, stderr) = basalt(&[
        "importtsv",
        "--data",
        data,
        "-D",
        &columns,
        "-D",
        "importtsv.separator=,",
        "-D",
        "importtsv.timestamp=1000",
        "-D",
        &bulk_output,
        "-D",
        "importtsv.buffer.mb=16",
        "staging",
        path(&tsv),
    ]);
    assert!(ok, "{stdout}{stderr}");
    let files = std::fs::read_dir(out.join("f"))
        .expect("family dir")
        .count();
    assert!(files >= 2, "sorted runs: {files} files");
    let (ok, stdout, stderr) = basalt(&["bulkload", "--data", data, path(&out), "bulk"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("into 5 regions"), "{stdout}");
    assert!(
        stdout.contains(&format!("{files} split at region boundaries")),
        "{stdout}"
    );
    assert!(!out.join("_tmp").exists());

    let conn = open(a.path());
    let puts = cells(&conn, "puts", false);
    assert_eq!(puts.len(), 1_000_000);
    assert_eq!(cells(&conn, "bulk", false), puts, "bulk loaded as put");
    assert!(
        cells(&conn, "staging", false).is_empty(),
        "importtsv to files puts nothing"
    );
    conn.close().expect("close");

    // A bad line is an error when bad lines are not skipped, naming its place.
    let (ok, _, stderr) = basalt(&[
        "importtsv",
        "--data",
        data,
        "-D",
        &columns,
        "-D",
        "importtsv.separator=,",
        "-D",
        "importtsv.skip.bad.lines=false",
        "puts",
        path(&tsv),
    ]);
    assert!(!ok && stderr.contains("input.tsv:2"), "{stderr}");
    let (ok, _, stderr) = basalt(&["importtsv", "--data", data, "puts", path(&tsv)]);
    assert!(!ok && stderr.contains("importtsv.columns"), "{stderr}");
}

/// The same commands against a running server, over the native RPC: rowcounter, copytable,
/// export and import, importtsv with its bulk output and bulkload (BulkLoadHFile).
#[test]
fn the_tools_work_against_a_running_server() {
    let server = support::Server::start();
    let remote = std::sync::Arc::new(
        basalt_embedded::remote::RemoteConnection::connect(
            server.rpc.parse().expect("address"),
            basalt_embedded::remote::RemoteConfig::default(),
        )
        .expect("connect"),
    );
    let table = |name: &str, splits: &[&str]| {
        let d = TableDescriptor::named(name)
            .expect("name")
            .with_family(ColumnFamilyDescriptor::new("f"));
        let splits: Vec<Bytes> = splits.iter().map(|s| Bytes::from(s.to_string())).collect();
        remote.create_table(d, &splits).expect("create");
    };
    table("t", &["m"]);
    for name in ["t2", "t3", "t4"] {
        table(name, &["g", "p"]);
    }
    let t = TableName::parse("t").expect("name");
    for i in 0..100 {
        let row = format!("{}{i:03}", if i % 2 == 0 { 'a' } else { 'x' });
        remote
            .put(&t, &Put::new(row.clone()).add_column_at("f", "q", 7, row))
            .expect("put");
    }
    let rows = |name: &str| -> Vec<(Bytes, Vec<u8>, i64)> {
        std::sync::Arc::clone(&remote)
            .scan(&TableName::parse(name).expect("name"), &Scan::new())
            .expect("scan")
            .map(|r| {
                let r = r.expect("row");
                let c = &r.cells[0];
                (r.row.clone(), c.value().to_vec(), c.timestamp)
            })
            .collect()
    };
    let rpc = server.rpc.as_str();
    let (ok, stdout, stderr) = basalt(&["rowcounter", "--connect", rpc, "t"]);
    assert!(ok && stdout.contains("ROWS=100"), "{stdout}{stderr}");
    let (ok, stdout, stderr) = basalt(&["copytable", "--connect", rpc, "--new.name=t2", "t"]);
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(rows("t2"), rows("t"));

    let work = tempfile::tempdir().expect("dir");
    let export = work.path().join("export");
    let (ok, stdout, stderr) = basalt(&["export", "--connect", rpc, "t", path(&export)]);
    assert!(ok, "{stdout}{stderr}");
    let (ok, stdout, stderr) = basalt(&["import", "--connect", rpc, "t3", path(&export)]);
    assert!(ok, "{stdout}{stderr}");
    assert_eq!(rows("t3"), rows("t"));

    let tsv = work.path().join("in.tsv");
    let lines: String = (0..100)
        .map(|i| {
            let row = format!("{}{i:03}", if i % 2 == 0 { 'a' } else { 'x' });
            format!("{row}\t{row}\n")
        })
        .collect();
    std::fs::write(&tsv, lines).expect("tsv");
    let hfiles = work.path().join("hfiles");
    let output = format!("importtsv.bulk.output={}", path(&hfiles));
    let (ok, stdout, stderr) = basalt(&[
        "importtsv",
        "--connect",
        rpc,
        "-Dimporttsv.columns=HBASE_ROW_KEY,f:q",
        "-Dimporttsv.timestamp=7",
        "-D",
        &output,
        "t4",
        path(&tsv),
    ]);
    assert!(ok, "{stdout}{stderr}");
    let (ok, stdout, stderr) = basalt(&["bulkload", "--connect", rpc, path(&hfiles), "t4"]);
    assert!(ok, "{stdout}{stderr}");
    assert!(stdout.contains("into 2 regions"), "{stdout}");
    assert_eq!(rows("t4"), rows("t"));
}

/// The tools read and write tables with a key layout by their logical keys: copytable from
/// a plain table into a salted one, export of the salted table imported into a hash-prefixed
/// one, and importtsv's store files bulk loaded into a salted table all read back as the
/// plain source does.
#[test]
fn the_tools_move_rows_between_key_layouts() {
    use basalt_embedded::LayoutClient;
    let a = tempfile::tempdir().expect("dir");
    let work = tempfile::tempdir().expect("dir");
    let with_layout = |name: &str, layout: &str| {
        let conn = open(a.path());
        let mut d = TableDescriptor::named(name)
            .expect("name")
            .with_family(ColumnFamilyDescriptor::new("f"));
        d.metadata.insert("KEY_LAYOUT".into(), layout.into());
        conn.admin().create_table(d).expect("create");
        conn.close().expect("close");
    };
    create_in(a.path(), "src", &["f"], &[]);
    with_layout("salted", "SALT BUCKETS=4");
    with_layout("hashed", "HASH_PREFIX BYTES=2");
    with_layout("loaded", "SALT BUCKETS=4");
    let mut tsv = String::new();
    {
        let conn = open(a.path());
        let t = conn.table("src").expect("table");
        for i in 0..200 {
            let row = format!("row{i:04}");
            t.put(&Put::new(row.clone()).add_column_at("f", "q", 5, row.clone()))
                .expect("put");
            tsv.push_str(&format!("{row}\t{row}\n"));
        }
        conn.close().expect("close");
    }
    let data = path(a.path());
    let (ok, stdout, stderr) = basalt(&["copytable", "--data", data, "--new.name=salted", "src"]);
    assert!(ok, "{stdout}{stderr}");
    let export = work.path().join("export");
    let (ok, stdout, stderr) = basalt(&["export", "--data", data, "salted", path(&export)]);
    assert!(ok, "{stdout}{stderr}");
    let (ok, stdout, stderr) = basalt(&["import", "--data", data, "hashed", path(&export)]);
    assert!(ok, "{stdout}{stderr}");
    let input = work.path().join("in.tsv");
    std::fs::write(&input, tsv).expect("tsv");
    let hfiles = work.path().join("hfiles");
    let output = format!("importtsv.bulk.output={}", path(&hfiles));
    let (ok, stdout, stderr) = basalt(&[
        "importtsv",
        "--data",
        data,
        "-Dimporttsv.columns=HBASE_ROW_KEY,f:q",
        "-Dimporttsv.timestamp=5",
        "-D",
        &output,
        "loaded",
        path(&input),
    ]);
    assert!(ok, "{stdout}{stderr}");
    let (ok, stdout, stderr) = basalt(&["bulkload", "--data", data, path(&hfiles), "loaded"]);
    assert!(ok, "{stdout}{stderr}");

    let conn = std::sync::Arc::new(open(a.path()));
    let logical = std::sync::Arc::new(LayoutClient::new(
        std::sync::Arc::clone(&conn) as std::sync::Arc<dyn Client>
    ));
    let read = |table: &str| -> Vec<String> {
        std::sync::Arc::clone(&logical)
            .scan(&TableName::parse(table).expect("name"), &Scan::new())
            .expect("scan")
            .map(|r| {
                let r = r.expect("row");
                let c = &r.cells[0];
                format!(
                    "{}={}@{}",
                    String::from_utf8_lossy(&r.row),
                    String::from_utf8_lossy(c.value()),
                    c.timestamp
                )
            })
            .collect()
    };
    let want = read("src");
    assert_eq!(want.len(), 200);
    for table in ["salted", "hashed", "loaded"] {
        assert_eq!(read(table), want, "{table}");
    }
    // Stored keys differ from the logical ones underneath.
    let raw: Vec<Bytes> = std::sync::Arc::clone(&conn)
        .scan(&TableName::parse("salted").expect("name"), &Scan::new())
        .expect("scan")
        .map(|r| r.expect("row").row)
        .collect();
    assert!(
        raw.iter().all(|r| !r.starts_with(b"row")),
        "salted keys are stored prefixed"
    );
    conn.close().expect("close");
}
