//! Table, family, namespace and region administration, run three times: on an embedded
//! connection, and through the blocking `RemoteAdmin` and the async `AsyncAdmin` of a server
//! (native RPC); the transcripts must be equal, and each run checks HBase's answers as it goes.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use basalt_embedded::prelude::*;
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Bytes, ColumnFamilyDescriptor, Connection, ErrorKind, NamespaceDescriptor, Put, Result, Scan,
    TableDescriptor, TableName,
};
use sides::{Async, Ops, rows};
use support::serve as server;

mod sides;
mod support;

fn keys(start: &[u8], end: &[u8]) -> (String, String) {
    (
        String::from_utf8_lossy(start).into_owned(),
        String::from_utf8_lossy(end).into_owned(),
    )
}

/// The admin operations both modes offer, as the suite uses them.
trait AdminOps {
    fn create(&self, d: TableDescriptor, splits: &[Bytes]) -> Result<()>;
    fn disable(&self, n: &TableName) -> Result<()>;
    fn enable(&self, n: &TableName) -> Result<()>;
    fn delete(&self, n: &TableName) -> Result<()>;
    fn truncate(&self, n: &TableName, preserve: bool) -> Result<()>;
    fn describe(&self, n: &TableName) -> Result<TableDescriptor>;
    fn exists(&self, n: &TableName) -> Result<bool>;
    fn list(&self) -> Result<Vec<TableName>>;
    fn enabled(&self, n: &TableName) -> Result<bool>;
    fn modify(&self, d: TableDescriptor) -> Result<()>;
    fn flush(&self, n: &TableName) -> Result<()>;
    fn add_family(&self, n: &TableName, f: ColumnFamilyDescriptor) -> Result<()>;
    fn delete_family(&self, n: &TableName, f: &[u8]) -> Result<()>;
    fn create_ns(&self, ns: NamespaceDescriptor) -> Result<()>;
    fn delete_ns(&self, ns: &str) -> Result<()>;
    fn get_ns(&self, ns: &str) -> Result<NamespaceDescriptor>;
    fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>>;
    /// (name, start, end) of each serving region.
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>>;
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()>;
    fn merge(&self, n: &TableName, a: &[u8], b: &[u8]) -> Result<()>;
    fn major_compact(&self, n: &TableName) -> Result<()>;
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a>;
}

/// The admin calls whose embedded and remote forms have the same names and signatures.
macro_rules! same_admin_calls {
    () => {
        fn create(&self, d: TableDescriptor, splits: &[Bytes]) -> Result<()> {
            TableAdmin::create_table(self, d, splits)
        }
        fn disable(&self, n: &TableName) -> Result<()> {
            TableAdmin::disable_table(self, n)
        }
        fn enable(&self, n: &TableName) -> Result<()> {
            TableAdmin::enable_table(self, n)
        }
        fn delete(&self, n: &TableName) -> Result<()> {
            TableAdmin::delete_table(self, n)
        }
        fn truncate(&self, n: &TableName, preserve: bool) -> Result<()> {
            TableAdmin::truncate_table(self, n, preserve)
        }
        fn describe(&self, n: &TableName) -> Result<TableDescriptor> {
            TableAdmin::describe_table(self, n)
        }
        fn enabled(&self, n: &TableName) -> Result<bool> {
            TableAdmin::is_table_enabled(self, n)
        }
        fn modify(&self, d: TableDescriptor) -> Result<()> {
            TableAdmin::modify_table(self, d)
        }
        fn flush(&self, n: &TableName) -> Result<()> {
            self.admin().flush(n)
        }
        fn add_family(&self, n: &TableName, f: ColumnFamilyDescriptor) -> Result<()> {
            TableAdmin::add_column_family(self, n, f)
        }
        fn delete_family(&self, n: &TableName, f: &[u8]) -> Result<()> {
            TableAdmin::delete_column_family(self, n, f)
        }
        fn create_ns(&self, ns: NamespaceDescriptor) -> Result<()> {
            NamespaceAdmin::create_namespace(self, ns)
        }
        fn delete_ns(&self, ns: &str) -> Result<()> {
            NamespaceAdmin::delete_namespace(self, ns)
        }
        fn get_ns(&self, ns: &str) -> Result<NamespaceDescriptor> {
            NamespaceAdmin::namespace(self, ns)
        }
        fn exists(&self, n: &TableName) -> Result<bool> {
            TableAdmin::table_exists(self, n)
        }
        fn list(&self) -> Result<Vec<TableName>> {
            TableAdmin::table_names(self)
        }
        fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>> {
            NamespaceAdmin::namespaces(self)
        }
    };
}

impl AdminOps for Connection {
    same_admin_calls!();
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>> {
        Ok(self
            .admin()
            .regions(n)?
            .iter()
            .map(|r| {
                let (a, b) = keys(&r.start_key, &r.end_key);
                (r.name.to_vec(), a, b)
            })
            .collect())
    }
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()> {
        self.admin().split(n, Some(at))
    }
    fn merge(&self, _: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.admin().merge_regions(a, b).map(|_| ())
    }
    fn major_compact(&self, n: &TableName) -> Result<()> {
        self.admin().major_compact(n)
    }
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a> {
        Box::new(Connection::table(self, n).unwrap())
    }
}

impl AdminOps for RemoteConnection {
    same_admin_calls!();
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>> {
        Ok(self
            .admin()
            .regions(n)?
            .iter()
            .map(|r| {
                let (a, b) = keys(&r.start, &r.end);
                (r.name.clone(), a, b)
            })
            .collect())
    }
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()> {
        self.admin().split(n, Some(at))
    }
    fn merge(&self, n: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.admin().merge_regions(n, a, b)
    }
    fn major_compact(&self, n: &TableName) -> Result<()> {
        self.admin().compact(n, true)
    }
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a> {
        Box::new(RemoteConnection::table(self, n).unwrap())
    }
}

impl AdminOps for Async {
    fn create(&self, d: TableDescriptor, splits: &[Bytes]) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().create_table(d, splits))
    }
    fn disable(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().disable_table(n))
    }
    fn enable(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().enable_table(n))
    }
    fn delete(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().delete_table(n))
    }
    fn truncate(&self, n: &TableName, preserve: bool) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().truncate_table(n, preserve))
    }
    fn describe(&self, n: &TableName) -> Result<TableDescriptor> {
        self.runtime.block_on(self.conn.admin().describe_table(n))
    }
    fn exists(&self, n: &TableName) -> Result<bool> {
        self.runtime.block_on(self.conn.admin().table_exists(n))
    }
    fn list(&self) -> Result<Vec<TableName>> {
        self.runtime.block_on(self.conn.admin().table_names())
    }
    fn enabled(&self, n: &TableName) -> Result<bool> {
        self.runtime.block_on(self.conn.admin().is_table_enabled(n))
    }
    fn modify(&self, d: TableDescriptor) -> Result<()> {
        self.runtime.block_on(self.conn.admin().modify_table(d))
    }
    fn flush(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().flush(n))
    }
    fn add_family(&self, n: &TableName, f: ColumnFamilyDescriptor) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().add_column_family(n, f))
    }
    fn delete_family(&self, n: &TableName, f: &[u8]) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().delete_column_family(n, f))
    }
    fn create_ns(&self, ns: NamespaceDescriptor) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().create_namespace(ns))
    }
    fn delete_ns(&self, ns: &str) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().delete_namespace(ns))
    }
    fn get_ns(&self, ns: &str) -> Result<NamespaceDescriptor> {
        self.runtime.block_on(self.conn.admin().namespace(ns))
    }
    fn list_ns(&self) -> Result<Vec<NamespaceDescriptor>> {
        self.runtime.block_on(self.conn.admin().namespaces())
    }
    fn region_list(&self, n: &TableName) -> Result<Vec<(Vec<u8>, String, String)>> {
        Ok(self
            .runtime
            .block_on(self.conn.admin().regions(n))?
            .iter()
            .map(|r| {
                let (a, b) = keys(&r.start, &r.end);
                (r.name.clone(), a, b)
            })
            .collect())
    }
    fn split_at(&self, n: &TableName, at: &[u8]) -> Result<()> {
        self.runtime.block_on(self.conn.admin().split(n, Some(at)))
    }
    fn merge(&self, n: &TableName, a: &[u8], b: &[u8]) -> Result<()> {
        self.runtime
            .block_on(self.conn.admin().merge_regions(n, a, b))
    }
    fn major_compact(&self, n: &TableName) -> Result<()> {
        self.runtime.block_on(self.conn.admin().compact(n, true))
    }
    fn table<'a>(&'a self, n: &str) -> Box<dyn Ops + 'a> {
        Box::new(self.on(n))
    }
}

fn administer(side: &dyn AdminOps, log: &mut Vec<String>) {
    let name = |s: &str| TableName::parse(s).unwrap();
    let desc = |s: &str| {
        let mut d = TableDescriptor::named(s)
            .unwrap()
            .with_family(ColumnFamilyDescriptor::new("f").with_max_versions(2));
        d.max_filesize = 1 << 30;
        d
    };
    side.create(desc("a"), &[Bytes::from_static(b"k")]).unwrap();
    side.create(desc("b"), &[]).unwrap();
    assert_eq!(side.list().unwrap(), [name("a"), name("b")]);
    assert!(side.exists(&name("a")).unwrap() && !side.exists(&name("zz")).unwrap());
    let described = side.describe(&name("a")).unwrap();
    assert_eq!(described.max_filesize, 1 << 30);
    assert_eq!(described.families()[0].max_versions, 2);
    log.push(format!("{described:?}"));
    let e = side.create(desc("a"), &[]).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    assert_eq!(e.kind(), ErrorKind::AlreadyExists, "{e}");
    let e = side.describe(&name("zz")).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound, "{e}");

    let t = side.table("a");
    for r in ["c", "q"] {
        t.put(&Put::new(r).add_column_at("f", "q", 1, r)).unwrap();
    }
    side.flush(&name("a")).unwrap();
    side.disable(&name("a")).unwrap();
    assert!(!side.enabled(&name("a")).unwrap());
    let e = t.put(&Put::new("x").add_column("f", "q", "v")).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.enable(&name("a")).unwrap();
    assert_eq!(rows(t.as_ref(), &Scan::new()).len(), 2);
    let e = side.truncate(&name("a"), true).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.disable(&name("a")).unwrap();
    side.truncate(&name("a"), true).unwrap();
    assert!(side.enabled(&name("a")).unwrap());
    let t = side.table("a");
    assert!(rows(t.as_ref(), &Scan::new()).is_empty());
    t.put(&Put::new("q").add_column_at("f", "q", 1, "again"))
        .unwrap();
    log.extend(rows(t.as_ref(), &Scan::new()));

    // Online schema change: a second family.
    let wider = side
        .describe(&name("a"))
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("g"));
    side.modify(wider).unwrap();
    let t = side.table("a");
    t.put(&Put::new("q").add_column_at("g", "n", 1, "new"))
        .unwrap();
    log.extend(rows(t.as_ref(), &Scan::new()));
    log.push(format!("{:?}", side.describe(&name("a")).unwrap()));

    // Splits, compactions and merges by hand: the rows stay.
    let bounds = |side: &dyn AdminOps| -> Vec<(String, String)> {
        side.region_list(&name("a"))
            .unwrap()
            .into_iter()
            .map(|(_, a, b)| (a, b))
            .collect()
    };
    side.split_at(&name("a"), b"t").unwrap();
    assert_eq!(
        bounds(side),
        [
            ("".into(), "k".into()),
            ("k".into(), "t".into()),
            ("t".into(), "".into())
        ]
    );
    // Daughters hold references to their parent's files until a compaction rewrites them.
    side.major_compact(&name("a")).unwrap();
    let regions = side.region_list(&name("a")).unwrap();
    side.merge(&name("a"), &regions[1].0, &regions[2].0)
        .unwrap();
    assert_eq!(
        bounds(side),
        [("".into(), "k".into()), ("k".into(), "".into())]
    );
    side.major_compact(&name("a")).unwrap();
    let t = side.table("a");
    log.extend(rows(t.as_ref(), &Scan::new()));

    // Families one at a time.
    side.add_family(
        &name("a"),
        ColumnFamilyDescriptor::new("h").with_max_versions(4),
    )
    .unwrap();
    side.delete_family(&name("a"), b"g").unwrap();
    let families: Vec<String> = side
        .describe(&name("a"))
        .unwrap()
        .families()
        .iter()
        .map(|f| format!("{}/{}", String::from_utf8_lossy(&f.name), f.max_versions))
        .collect();
    assert_eq!(families, ["f/2", "h/4"]);
    log.extend(families);

    // Namespaces: created with properties, listed, refused while they hold a table.
    side.create_ns(NamespaceDescriptor::new("ops").with_configuration("owner", "team"))
        .unwrap();
    let e = side.create_ns(NamespaceDescriptor::new("ops")).unwrap_err();
    log.push(format!("{:?} {e}", e.kind()));
    let got = side.get_ns("ops").unwrap();
    assert_eq!(
        got.configuration.get("owner").map(String::as_str),
        Some("team")
    );
    let listed: Vec<String> = side
        .list_ns()
        .unwrap()
        .into_iter()
        .map(|n| n.name)
        .collect();
    assert_eq!(listed, ["default", "hbase", "ops"]);
    side.create(desc("ops:t"), &[]).unwrap();
    let e = side.delete_ns("ops").unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.disable(&name("ops:t")).unwrap();
    side.delete(&name("ops:t")).unwrap();
    side.delete_ns("ops").unwrap();
    let e = side.get_ns("ops").unwrap_err();
    log.push(format!("{:?} {e}", e.kind()));

    let e = side.delete(&name("b")).unwrap_err();
    log.push(format!("{:?}", e.kind()));
    side.disable(&name("b")).unwrap();
    side.delete(&name("b")).unwrap();
    assert_eq!(side.list().unwrap(), [name("a")]);
}

#[test]
fn administration_embedded_and_remote() {
    let embedded = Connection::in_memory();
    let mut local = Vec::new();
    administer(&embedded, &mut local);

    let served = Connection::in_memory();
    let server = server(&served);
    let remote = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let mut far = Vec::new();
    administer(&remote, &mut far);
    server.shutdown();
    assert_eq!(local, far, "embedded and remote disagree");

    let served = Connection::in_memory();
    let server = support::serve(&served);
    let remote = Async::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    let mut far = Vec::new();
    administer(&remote, &mut far);
    server.shutdown();
    assert_eq!(local, far, "embedded and remote async disagree");
}
