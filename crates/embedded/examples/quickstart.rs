//! A tour of Basalt's embedded API on a data directory: create a table (two regions), put,
//! get, scan, delete, list the regions, close. Run it twice: the second run finds the table and its rows from the first.
//!
//! `cargo run --release -p basalt-embedded --example quickstart [DATA_DIR]` (default
//! `./basalt-data`)

use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, Delete, Get, Put, Result, RowResult, Scan,
    TableDescriptor, parse_filter,
};

fn show(r: &RowResult) {
    for c in &r.cells {
        println!(
            "  {:<14} column={}:{}, timestamp={}, value={}",
            String::from_utf8_lossy(&r.row),
            String::from_utf8_lossy(c.family()),
            String::from_utf8_lossy(c.qualifier()),
            c.timestamp,
            String::from_utf8_lossy(c.value())
        );
    }
}

fn main() -> Result<()> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "./basalt-data".into());
    let conn = Connection::open(&dir)?;
    let name = "webtable".parse()?;
    if conn.admin().table_exists(&name) {
        let rows = conn.table("webtable")?.scan(&Scan::new())?.count();
        println!("Opened {dir}: webtable is there from an earlier run, with {rows} row(s).\n");
    } else {
        // create 'webtable', {NAME => 'contents', VERSIONS => 3}, 'anchor', SPLITS => ['com.d']
        let desc = TableDescriptor::named("webtable")?
            .with_family(ColumnFamilyDescriptor::new("contents").with_max_versions(3))
            .with_family(ColumnFamilyDescriptor::new("anchor"));
        conn.admin()
            .create_table_with_splits(desc, &[Bytes::from_static(b"com.d")])?;
        println!(
            "Created table webtable in {dir}:\n{}\n",
            conn.admin().describe_table(&name)?
        );
    }

    let table = conn.table("webtable")?;
    for (ts, html) in [(3, "<html>v1"), (5, "<html>v2"), (6, "<html>v3")] {
        table.put(&Put::new("com.cnn.www").add_column_at("contents", "html", ts, html))?;
    }
    table.put(
        &Put::new("com.cnn.www")
            .add_column_at("anchor", "cnnsi.com", 9, "CNN")
            .add_column_at("anchor", "my.look.ca", 8, "CNN.com"),
    )?;
    table.put(&Put::new("com.example.www").add_column("contents", "html", "<html>ex"))?;

    println!("get 'webtable', 'com.cnn.www'");
    show(&table.get(&Get::new("com.cnn.www"))?);

    println!("\nget 'webtable', 'com.cnn.www', {{COLUMN => 'contents:html', VERSIONS => 3}}");
    show(
        &table.get(
            &Get::new("com.cnn.www")
                .add_column("contents", "html")
                .read_versions(3),
        )?,
    );

    println!("\nget at exactly t8 (nothing: contents:html has no version at t8)");
    let at_t8 = table.get(
        &Get::new("com.cnn.www")
            .add_column("contents", "html")
            .with_timestamp(8),
    )?;
    println!("  {} cell(s)", at_t8.len());

    println!("\nscan 'webtable'");
    for row in table.scan(&Scan::new())? {
        show(&row?);
    }

    let filter = "ColumnPrefixFilter('cnn') OR ValueFilter(=, 'regexstring:^<html')";
    println!("\nscan 'webtable', {{FILTER => \"{filter}\"}}");
    for row in table.scan(&Scan::new().with_filter(parse_filter(filter)?))? {
        show(&row?);
    }

    println!("\ndelete 'webtable', 'com.cnn.www', 'contents:html'  (the newest version)");
    table.delete(&Delete::new("com.cnn.www").add_column("contents", "html"))?;
    show(&table.get(&Get::new("com.cnn.www").add_family("contents"))?);

    println!("\nlist_regions 'webtable'  (rows are routed to the region holding them)");
    for r in conn.admin().regions(&name)? {
        println!(
            "  {:<60} start={:?} end={:?}",
            String::from_utf8_lossy(&r.name),
            String::from_utf8_lossy(&r.start_key),
            String::from_utf8_lossy(&r.end_key)
        );
    }

    // Writes are logged first, and reach store files when memstores flush; close flushes
    // everything.
    conn.close()?;
    println!("\nClosed {dir}; run again to read it back.");
    Ok(())
}
