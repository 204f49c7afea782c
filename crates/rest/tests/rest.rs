//! The REST gateway over real HTTP, against an embedded engine: the representations clients
//! do not cover (XML, protobuf), scanners with JSON filters, checks, and the error codes.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use basalt_embedded::{
    Client, ColumnFamilyDescriptor, Connection, Get, Put, TableDescriptor, TableName,
};
use basalt_rest::{RestConfig, RestServer};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use prost::Message;

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size");
        let size = usize::from_str_radix(
            std::str::from_utf8(&body[..line_end])
                .expect("utf-8")
                .trim(),
            16,
        )
        .expect("hex size");
        body = &body[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    s.write_all(req.as_bytes()).expect("write");
    s.write_all(body).expect("write body");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("header end");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v == "chunked")
    {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn b64(b: &[u8]) -> String {
    STANDARD.encode(b)
}

struct Fixture {
    conn: Arc<Connection>,
    server: Option<RestServer>,
    addr: SocketAddr,
}

impl Fixture {
    fn new() -> Self {
        Self::with(RestConfig::default())
    }

    fn with(config: RestConfig) -> Self {
        let conn = Arc::new(Connection::in_memory());
        let desc = TableDescriptor::named("t")
            .expect("name")
            .with_family(ColumnFamilyDescriptor::new("cf").with_max_versions(3));
        conn.admin().create_table(desc).expect("create");
        let server = RestServer::start(
            Arc::clone(&conn) as Arc<dyn Client>,
            RestConfig {
                bind: SocketAddr::from(([127, 0, 0, 1], 0)),
                ..config
            },
        )
        .expect("start");
        let addr = server.local_addr();
        Fixture {
            conn,
            server: Some(server),
            addr,
        }
    }

    fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        http(self.addr, method, path, headers, body)
    }

    /// A call with a JSON body.
    fn json_call(&self, method: &str, path: &str, body: &[u8]) -> Reply {
        self.call(method, path, &[("Content-Type", "application/json")], body)
    }

    fn put(&self, row: &str, column: &str, value: &str, ts: i64) {
        let (f, q) = column.split_once(':').expect("column");
        self.conn
            .table("t")
            .expect("table")
            .put(&Put::new(row.to_owned()).add_column_at(
                f.to_owned(),
                q.to_owned(),
                ts,
                value.to_owned(),
            ))
            .expect("put");
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(s) = self.server.take() {
            s.shutdown();
        }
    }
}

const JSON: (&str, &str) = ("Accept", "application/json");
const XML: (&str, &str) = ("Accept", "text/xml");
const PB: (&str, &str) = ("Accept", "application/x-protobuf");

#[test]
fn tables_version_and_status_in_each_representation() {
    let f = Fixture::new();
    let r = f.call("GET", "/", &[JSON], b"");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["table"][0]["name"], "t");
    let r = f.call("GET", "/", &[XML], b"");
    assert!(
        r.text()
            .contains(r#"<TableList><table name="t"/></TableList>"#),
        "{}",
        r.text()
    );
    let r = f.call("GET", "/", &[("Accept", "text/plain")], b"");
    assert_eq!(r.text(), "t\n");
    // TableList protobuf: field 1, a string per table.
    let r = f.call("GET", "/", &[PB], b"");
    assert_eq!(r.body, b"\x0a\x01t");

    let r = f.call("GET", "/version/cluster", &[JSON], b"");
    assert_eq!(r.json()["Version"], basalt_embedded::HBASE_VERSION);
    let r = f.call("GET", "/version", &[XML], b"");
    assert!(r.text().contains("<Version REST=\"0.0.3\""), "{}", r.text());

    f.put("r1", "cf:a", "v", 1);
    f.call("GET", "/t/r1", &[JSON], b"");
    let r = f.call("GET", "/status/cluster", &[JSON], b"");
    assert_eq!(r.status, 200);
    let status = r.json();
    assert_eq!(status["LiveNodes"].as_array().map(Vec::len), Some(1));
    let regions = status["LiveNodes"][0]["Region"]
        .as_array()
        .expect("regions")
        .clone();
    let t = regions
        .iter()
        .find(|r| {
            STANDARD
                .decode(r["name"].as_str().unwrap_or(""))
                .is_ok_and(|n| n.starts_with(b"t,"))
        })
        .expect("t's region");
    assert!(t["readRequestsCount"].as_i64() >= Some(1), "{t}");
    assert!(t["writeRequestsCount"].as_i64() >= Some(1), "{t}");

    let r = f.call("GET", "/t/regions", &[JSON], b"");
    assert_eq!(r.json()["name"], "t");
    assert_eq!(r.json()["Region"][0]["startKey"], "");
    assert_eq!(f.call("GET", "/t/exists", &[], b"").status, 200);
    assert_eq!(f.call("GET", "/nope/exists", &[], b"").status, 404);
    assert_eq!(
        f.call("GET", "/", &[("Accept", "image/png")], b"").status,
        406
    );
}

#[test]
fn schema_create_alter_and_delete() {
    let f = Fixture::new();
    let body = br#"<?xml version="1.0"?><TableSchema name="s"><ColumnSchema name="a" VERSIONS="5"/></TableSchema>"#;
    let r = f.call("PUT", "/s/schema", &[("Content-Type", "text/xml")], body);
    assert_eq!(r.status, 201, "{}", r.text());
    let d = f
        .conn
        .admin()
        .describe_table(&TableName::parse("s").unwrap())
        .expect("created");
    assert_eq!(d.family(b"a").map(|f| f.max_versions), Some(5));
    // POST adds a family and keeps the others.
    let r = f.json_call(
        "POST",
        "/s/schema",
        br#"{"name":"s","ColumnSchema":[{"name":"b","BLOOMFILTER":"ROWCOL"}]}"#,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = f.call("GET", "/s/schema", &[JSON], b"");
    let names: Vec<_> = r.json()["ColumnSchema"]
        .as_array()
        .expect("families")
        .iter()
        .map(|c| c["name"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert_eq!(r.json()["ColumnSchema"][1]["BLOOMFILTER"], "ROWCOL");
    // Protobuf schema: name, and a ColumnSchema per family.
    let r = f.call("GET", "/s/schema", &[PB], b"");
    assert_eq!(r.status, 200);
    assert!(r.body.starts_with(b"\x0a\x01s"), "{:?}", r.body);
    let bad = f.json_call(
        "PUT",
        "/s/schema",
        br#"{"name":"s","ColumnSchema":[{"name":"a","VERSIONS":"lots"}]}"#,
    );
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert_eq!(f.call("DELETE", "/s/schema", &[], b"").status, 200);
    assert_eq!(f.call("GET", "/s/schema", &[JSON], b"").status, 404);
}

#[test]
fn cells_in_xml_json_protobuf_and_binary() {
    let f = Fixture::new();
    let xml = format!(
        r#"<CellSet><Row key="{}"><Cell column="{}" timestamp="5">{}</Cell></Row></CellSet>"#,
        b64(b"r1"),
        b64(b"cf:a"),
        b64(b"one")
    );
    let r = f.call(
        "PUT",
        "/t/r1/cf:a",
        &[("Content-Type", "text/xml")],
        xml.as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // JSON, multi-row, to a fake row: the CellSet's keys win.
    let json = serde_json::json!({"Row": [
        {"key": b64(b"r2"), "Cell": [{"column": b64(b"cf:a"), "$": b64(b"two")}]},
        {"key": b64(b"r3"), "Cell": [{"column": b64(b"cf:b"), "$": b64(b"three")}]},
    ]});
    let r = f.json_call("PUT", "/t/fakerow", json.to_string().as_bytes());
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(f.call("GET", "/t/fakerow", &[JSON], b"").status, 404);
    // Protobuf CellSet: row 1 { key 1, values 2 { column 2, data 4 } }.
    let cell = [b"\x12\x04cf:c".as_slice(), b"\x22\x04four"].concat();
    let row = [b"\x0a\x02r4\x12".as_slice(), &[cell.len() as u8], &cell].concat();
    let set = [b"\x0a".as_slice(), &[row.len() as u8], &row].concat();
    let r = f.call(
        "POST",
        "/t/r4",
        &[("Content-Type", "application/x-protobuf")],
        &set,
    );
    assert_eq!(r.status, 200, "{}", r.text());
    // Binary with X-Timestamp.
    let r = f.call(
        "PUT",
        "/t/r5/cf:d",
        &[
            ("Content-Type", "application/octet-stream"),
            ("X-Timestamp", "77"),
        ],
        b"\x00raw\xff",
    );
    assert_eq!(r.status, 200, "{}", r.text());

    let table = f.conn.table("t").expect("table");
    for (row, col, value) in [
        ("r1", "a", &b"one"[..]),
        ("r2", "a", b"two"),
        ("r3", "b", b"three"),
        ("r4", "c", b"four"),
        ("r5", "d", b"\x00raw\xff"),
    ] {
        let got = table.get(&Get::new(row.to_owned())).expect("get");
        assert_eq!(got.value(b"cf", col.as_bytes()), Some(value), "{row}");
    }

    let r = f.call("GET", "/t/r1/cf:a", &[XML], b"");
    assert!(
        r.text().contains(&format!(
            r#"<Row key="{}"><Cell column="{}" timestamp="5">{}</Cell></Row>"#,
            b64(b"r1"),
            b64(b"cf:a"),
            b64(b"one")
        )),
        "{}",
        r.text()
    );
    let r = f.call(
        "GET",
        "/t/r5/cf:d",
        &[("Accept", "application/octet-stream")],
        b"",
    );
    assert_eq!(r.body, b"\x00raw\xff");
    assert_eq!(r.header("X-Timestamp"), Some("77"));
    let r = f.call("GET", "/t/r4", &[PB], b"");
    assert_eq!(r.status, 200);
    assert!(r.body.windows(4).any(|w| w == b"four"));
    // A range (end exclusive) and a prefix glob.
    let r = f.call("GET", "/t/r1,r3/cf", &[JSON], b"");
    let keys: Vec<_> = r.json()["Row"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["key"].clone())
        .collect();
    assert_eq!(keys, [b64(b"r1"), b64(b"r2")]);
    let r = f.call("GET", "/t/r*", &[JSON], b"");
    assert_eq!(r.json()["Row"].as_array().map(Vec::len), Some(5));
    // Versions and time ranges.
    f.put("v", "cf:a", "old", 10);
    f.put("v", "cf:a", "new", 20);
    let r = f.call("GET", "/t/v/cf:a?v=2", &[JSON], b"");
    assert_eq!(r.json()["Row"][0]["Cell"].as_array().map(Vec::len), Some(2));
    let r = f.call("GET", "/t/v/cf:a/10", &[JSON], b"");
    assert_eq!(r.json()["Row"][0]["Cell"][0]["$"], b64(b"old"));
    let r = f.call("GET", "/t/v/cf:a/0,15", &[JSON], b"");
    assert_eq!(r.json()["Row"][0]["Cell"][0]["timestamp"], 10);
    let r = f.call("GET", "/t/v/cf:a", &[JSON], b"");
    assert_eq!(r.json()["Row"][0]["Cell"][0]["$"], b64(b"new"));
    // Multi-get returns the rows that exist.
    let r = f.call("GET", "/t/multiget?row=r1&row=nope&row=r2", &[JSON], b"");
    assert_eq!(r.json()["Row"].as_array().map(Vec::len), Some(2));
    // Deletes: a column, then a row.
    assert_eq!(f.call("DELETE", "/t/r3/cf:b", &[], b"").status, 200);
    assert_eq!(f.call("GET", "/t/r3", &[JSON], b"").status, 404);
    assert_eq!(f.call("DELETE", "/t/r1", &[], b"").status, 200);
    assert!(table.get(&Get::new("r1")).expect("get").is_empty());
}

#[test]
fn errors_carry_hbase_s_status_codes() {
    let f = Fixture::new();
    assert_eq!(f.call("GET", "/nope/r1", &[JSON], b"").status, 404);
    assert_eq!(f.call("GET", "/t/missing", &[JSON], b"").status, 404);
    let json = serde_json::json!({"Row": [{"key": b64(b"r"), "Cell": [{"column": b64(b"zz:a"), "$": b64(b"v")}]}]});
    let r = f.json_call("PUT", "/t/r", json.to_string().as_bytes());
    assert_eq!(r.status, 404, "unknown family: {}", r.text());
    let r = f.json_call("PUT", "/t/r", b"{not json");
    assert_eq!(r.status, 400);
    let r = f.json_call("PUT", "/t/r?check=blah", b"{}");
    assert_eq!(r.status, 400);
    let r = f.call("PUT", "/t/r", &[("Content-Type", "image/png")], b"x");
    assert_eq!(r.status, 415);
    assert_eq!(f.call("GET", "/t/r/cf/notatime", &[JSON], b"").status, 400);
    assert_eq!(f.call("PATCH", "/t/schema", &[], b"").status, 405);
    let r = f.call("GET", "/t/r1", &[JSON], b"");
    assert!(r.text().starts_with("Not found"), "{}", r.text());
    // A disabled table cannot serve its rows.
    f.put("r1", "cf:a", "v", 1);
    f.conn
        .admin()
        .disable_table(&TableName::parse("t").unwrap())
        .expect("disable");
    assert_eq!(f.call("GET", "/t/r1", &[JSON], b"").status, 503);
}

#[test]
fn check_and_put_and_check_and_delete() {
    let f = Fixture::new();
    f.put("r", "cf:a", "1", 1);
    let body = |cells: &[(&str, &str)]| {
        serde_json::json!({"Row": [{"key": b64(b"r"), "Cell": cells.iter().map(|(c, v)|
            serde_json::json!({"column": b64(c.as_bytes()), "$": b64(v.as_bytes())})).collect::<Vec<_>>()}]})
        .to_string()
    };
    let ct = [("Content-Type", "application/json")];
    let put = |path: &str, cells: &[(&str, &str)]| f.call("PUT", path, &ct, body(cells).as_bytes());
    // Put cf:a=2 and cf:b=x if cf:a is 1 (the last cell is the check).
    let r = put(
        "/t/r?check=put",
        &[("cf:a", "2"), ("cf:b", "x"), ("cf:a", "1")],
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let r = put("/t/r?check=put", &[("cf:a", "3"), ("cf:a", "1")]);
    assert_eq!(r.status, 304);
    let got = f.conn.table("t").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(got.value(b"cf", b"a"), Some(&b"2"[..]));
    assert_eq!(got.value(b"cf", b"b"), Some(&b"x"[..]));
    // The checked column must be among those written.
    let r = put("/t/r?check=put", &[("cf:b", "y"), ("cf:a", "2")]);
    assert_eq!(r.status, 400);
    // Delete cf:b if cf:a is 2; then nothing if cf:a is 9.
    let r = put("/t/r?check=delete", &[("cf:b", ""), ("cf:a", "2")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let got = f.conn.table("t").unwrap().get(&Get::new("r")).unwrap();
    assert_eq!(got.value(b"cf", b"b"), None);
    let r = put("/t/r?check=delete", &[("cf:a", "9")]);
    assert_eq!(r.status, 304);

    // Increment (amounts as decimal text) and append, with and without the result.
    let r = put("/t/r?check=increment", &[("cf:n", "5")]);
    assert_eq!(r.status, 200, "{}", r.text());
    let r = f.call(
        "PUT",
        "/t/r?check=increment&returnResult=true",
        &[ct[0], JSON],
        body(&[("cf:n", "-2")]).as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["Row"][0]["Cell"][0]["$"], b64(&3i64.to_be_bytes()));
    let r = put("/t/r?check=increment", &[("cf:n", "x")]);
    assert_eq!(r.status, 400);
    let r = f.call(
        "PUT",
        "/t/r?check=append&returnResult=true",
        &[ct[0], JSON],
        body(&[("cf:a", "+more")]).as_bytes(),
    );
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["Row"][0]["Cell"][0]["$"], b64(b"2+more"));
}

#[test]
fn scanners_with_filters_batches_and_leases() {
    let f = Fixture::with(RestConfig {
        scanner_lease: Duration::from_secs(2),
        ..RestConfig::default()
    });
    for i in 0..10 {
        f.put(&format!("row{i}"), "cf:a", &format!("v{i}"), 1);
        f.put(&format!("row{i}"), "cf:b", "b", 1);
    }
    // XML scanner with a JSON filter: rows with a prefix, batch of 3 cells.
    let filter = serde_json::json!({"type": "FilterList", "op": "MUST_PASS_ALL", "filters": [
        {"type": "PrefixFilter", "value": b64(b"row")},
        {"type": "RowFilter", "op": "GREATER_OR_EQUAL", "comparator": {"type": "BinaryComparator", "value": b64(b"row5")}},
    ]});
    let scanner = format!(
        r#"<Scanner batch="3"><column>{}</column><filter>{}</filter></Scanner>"#,
        b64(b"cf"),
        quick_escape(&filter.to_string())
    );
    let r = f.call(
        "POST",
        "/t/scanner",
        &[("Content-Type", "text/xml")],
        scanner.as_bytes(),
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let location = r.header("Location").expect("location").to_owned();
    let path = location
        .split_once(&f.addr.to_string())
        .expect("absolute")
        .1
        .to_owned();
    let mut cells = 0;
    let mut rows = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let r = f.call("GET", &path, &[JSON], b"");
        if r.status == 204 {
            break;
        }
        assert_eq!(r.status, 200, "{}", r.text());
        let batch: usize = r.json()["Row"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|row| {
                rows.insert(row["key"].as_str().unwrap_or("").to_owned());
                row["Cell"].as_array().map_or(0, Vec::len)
            })
            .sum();
        assert!(batch <= 3 && batch > 0, "batch of {batch}");
        cells += batch;
    }
    assert_eq!(cells, 10, "rows 5..9, two cells each");
    assert_eq!(rows.len(), 5);
    assert_eq!(f.call("DELETE", &path, &[], b"").status, 200);
    assert_eq!(f.call("GET", &path, &[JSON], b"").status, 404);

    // Protobuf scanner model, protobuf batches.
    let model = [b"\x0a\x04row8".as_slice(), b"\x20\x64"].concat(); // startRow, batch 100
    let r = f.call(
        "PUT",
        "/t/scanner",
        &[("Content-Type", "application/x-protobuf")],
        &model,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let path = r
        .header("Location")
        .expect("location")
        .split_once(&f.addr.to_string())
        .expect("abs")
        .1
        .to_owned();
    let r = f.call("GET", &path, &[PB], b"");
    assert_eq!(r.status, 200);
    assert!(r.body.windows(4).any(|w| w == b"row9"), "{:?}", r.body);
    assert_eq!(f.call("GET", &path, &[PB], b"").status, 204);

    // A scanner left idle past its lease is gone.
    let r = f.json_call("POST", "/t/scanner", br#"{"batch":1}"#);
    let path = r
        .header("Location")
        .expect("location")
        .split_once(&f.addr.to_string())
        .expect("abs")
        .1
        .to_owned();
    assert_eq!(f.call("GET", &path, &[JSON], b"").status, 200);
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let mut status = 200;
    while status == 200 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(500));
        if f.server.as_ref().map(RestServer::open_scanners) == Some(0) {
            status = f.call("GET", &path, &[JSON], b"").status;
        }
    }
    assert_eq!(status, 404);

    // Bad filters and missing tables.
    let r = f.json_call("POST", "/t/scanner", br#"{"filter":"{\"type\":\"Nope\"}"}"#);
    assert_eq!(r.status, 400);
    let r = f.json_call("POST", "/nope/scanner", b"{}");
    assert_eq!(r.status, 404);

    // A stateless scan with the filter language.
    let r = f.call(
        "GET",
        "/t/*?startrow=row2&endrow=row4&column=cf:a&filter=KeyOnlyFilter()",
        &[JSON],
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text());
    let rows = r.json()["Row"].as_array().expect("rows").clone();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["Cell"][0]["$"], "");
}

#[test]
fn namespaces_and_read_only_mode() {
    let f = Fixture::new();
    let r = f.json_call("POST", "/namespaces/ns1", br#"{"properties":{"k":"v"}}"#);
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(f.call("POST", "/namespaces/ns1", &[], b"").status, 403);
    let r = f.call("GET", "/namespaces", &[JSON], b"");
    let names = r.json()["Namespace"].clone();
    assert!(
        names
            .as_array()
            .is_some_and(|n| n.iter().any(|n| n == "ns1")),
        "{names}"
    );
    assert_eq!(
        f.call("GET", "/namespaces/ns1", &[JSON], b"").json()["properties"]["k"],
        "v"
    );
    let r = f.json_call(
        "PUT",
        "/ns1:t2/schema",
        br#"{"ColumnSchema":[{"name":"f"}]}"#,
    );
    assert_eq!(r.status, 201, "{}", r.text());
    let r = f.call("GET", "/namespaces/ns1/tables", &[JSON], b"");
    assert_eq!(r.json()["table"][0]["name"], "t2");
    assert_eq!(f.call("DELETE", "/ns1:t2/schema", &[], b"").status, 200);
    assert_eq!(f.call("DELETE", "/namespaces/ns1", &[], b"").status, 200);
    assert_eq!(f.call("DELETE", "/namespaces/ns1", &[], b"").status, 404);

    let ro = Fixture::with(RestConfig {
        read_only: true,
        ..RestConfig::default()
    });
    assert_eq!(ro.call("DELETE", "/t/schema", &[], b"").status, 403);
    assert_eq!(ro.call("GET", "/t/schema", &[JSON], b"").status, 200);
}

fn quick_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[test]
fn protobuf_cell_sets_decode_with_the_published_schema() {
    // The field numbers of HBase's CellSetMessage.proto, checked with prost's own decoder.
    #[derive(Clone, PartialEq, Message)]
    struct Cell {
        #[prost(bytes = "vec", optional, tag = "2")]
        column: Option<Vec<u8>>,
        #[prost(int64, optional, tag = "3")]
        timestamp: Option<i64>,
        #[prost(bytes = "vec", optional, tag = "4")]
        data: Option<Vec<u8>>,
    }
    #[derive(Clone, PartialEq, Message)]
    struct Row {
        #[prost(bytes = "vec", required, tag = "1")]
        key: Vec<u8>,
        #[prost(message, repeated, tag = "2")]
        values: Vec<Cell>,
    }
    #[derive(Clone, PartialEq, Message)]
    struct CellSet {
        #[prost(message, repeated, tag = "1")]
        rows: Vec<Row>,
    }
    let f = Fixture::new();
    f.put("pb", "cf:q", "value", 42);
    let r = f.call("GET", "/t/pb", &[("Accept", "application/protobuf")], b"");
    assert_eq!(r.header("content-type"), Some("application/protobuf"));
    let set = CellSet::decode(&r.body[..]).expect("decodes");
    assert_eq!(set.rows[0].key, b"pb");
    assert_eq!(set.rows[0].values[0].column.as_deref(), Some(&b"cf:q"[..]));
    assert_eq!(set.rows[0].values[0].timestamp, Some(42));
    assert_eq!(set.rows[0].values[0].data.as_deref(), Some(&b"value"[..]));
}

#[test]
fn access_control_refusals_are_403() {
    use basalt_common::acl::{Actions, Permission, Scope, User};
    let conn = Connection::builder()
        .authorization(vec!["admin".into()])
        .build();
    conn.admin()
        .create_table(
            TableDescriptor::named("t")
                .expect("name")
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .expect("create");
    conn.table("t")
        .expect("table")
        .put(&Put::new("r").add_column("cf", "q", "v"))
        .expect("put");
    let server = RestServer::start(
        Arc::new(conn.as_user(User::new("gw"))),
        RestConfig {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            ..RestConfig::default()
        },
    )
    .expect("start");
    let addr = server.local_addr();
    let r = http(addr, "GET", "/t/r", &[JSON], b"");
    assert_eq!(r.status, 403, "{}", r.text());
    assert!(
        r.text().contains("Insufficient permissions for user 'gw'"),
        "{}",
        r.text()
    );
    conn.admin()
        .grant(
            Permission {
                principal: "gw".into(),
                scope: Scope::table(&TableName::parse("t").expect("name")),
                actions: Actions::parse("R").expect("codes"),
            },
            false,
        )
        .expect("grant");
    assert_eq!(http(addr, "GET", "/t/r", &[JSON], b"").status, 200);
    let put = http(
        addr,
        "PUT",
        "/t/r/cf:q",
        &[("Content-Type", "application/octet-stream")],
        b"new",
    );
    assert_eq!(put.status, 403, "{}", put.text());
    server.shutdown();
}

/// No query parameter is silently ignored (issue 49): one a resource does not serve is 400
/// naming it; the ones it serves work (batchsize cuts rows, cacheblocks is read).
#[test]
fn unknown_query_parameters_are_refused_by_name() {
    let f = Fixture::new();
    f.put("r1", "cf:a", "1", 5);
    f.put("r1", "cf:b", "2", 5);
    for path in [
        "/t/r1?versions=2",
        "/t/*?startrow=r&stoprow=s",
        "/t/multiget?row=r1&columns=cf",
        "/version/cluster?x=1",
        "/t/schema?pretty",
    ] {
        let got = f.call("GET", path, &[JSON], b"");
        assert_eq!(got.status, 400, "{path}: {}", got.text());
        assert!(
            got.text().contains("query parameter"),
            "{path}: {}",
            got.text()
        );
    }
    let wrong = f.call("GET", "/t/*?stoprow=s", &[JSON], b"");
    assert!(wrong.text().contains("\"stoprow\""), "{}", wrong.text());
    // What the scan serves: two cells, one per row result with batchsize=1.
    let batched = f.call(
        "GET",
        "/t/*?startrow=r1&batchsize=1&cacheblocks=false",
        &[JSON],
        b"",
    );
    assert_eq!(batched.status, 200, "{}", batched.text());
    assert_eq!(batched.json()["Row"].as_array().map(Vec::len), Some(2));
    assert_eq!(f.call("GET", "/t/r1?v=2", &[JSON], b"").status, 200);
}

/// `docs/design/rest.md`'s table of query parameters is the gateway's (`params::ALL`), and
/// every parameter the sources read is in it.
#[test]
fn the_documented_query_parameters_are_the_served_ones() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../../docs/design/rest.md")).expect("rest.md");
    let mut documented = std::collections::BTreeMap::new();
    for line in doc.lines() {
        // | `GET /<table>/*` | `startrow`, `endrow`, ... |
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((resource, params)) = rest.split_once("` | ") else {
            continue;
        };
        if !resource.contains(" /") {
            continue;
        }
        let names: Vec<String> = params
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect();
        documented.insert(resource.to_owned(), names);
    }
    for (resource, served) in basalt_rest::params::ALL {
        let names = documented
            .get(*resource)
            .unwrap_or_else(|| panic!("rest.md does not list {resource}"));
        assert_eq!(names, served, "{resource}");
    }
    // Every literal the handlers read is served somewhere.
    let served: std::collections::BTreeSet<&str> = basalt_rest::params::ALL
        .iter()
        .flat_map(|(_, p)| p.iter().copied())
        .collect();
    for file in ["rows.rs", "scanners.rs", "routes.rs", "aggregate.rs"] {
        let source = std::fs::read_to_string(root.join("src").join(file)).expect("source");
        for call in ["query(\"", "query_all(\"", "number(\""] {
            for piece in source.split(call).skip(1) {
                let name = piece.split('"').next().unwrap_or_default();
                // rowspec's number() reads path pieces, with a description as its name.
                if file == "scanners.rs" || call != "number(\"" {
                    assert!(
                        served.contains(name),
                        "{file} reads {name:?}, not in params::ALL"
                    );
                }
            }
        }
    }
}

/// `GET /<table>/aggregate`: the aggregation endpoint over REST; without `op` the path is
/// still the row named `aggregate`.
#[test]
fn aggregations_over_rest() {
    let f = Fixture::new();
    let t = f.conn.table("t").expect("table");
    for (row, v) in [("a", 10i64), ("b", -4), ("c", 30)] {
        t.put(&Put::new(row.to_owned()).add_column("cf", "n", v.to_be_bytes().to_vec()))
            .expect("put");
    }
    f.put("aggregate", "cf:x", "a row", 5);
    let sum = f.call("GET", "/t/aggregate?column=cf:n&op=SUM", &[], b"");
    assert_eq!(
        (sum.status, sum.text().trim()),
        (200, "36"),
        "{}",
        sum.text()
    );
    let avg = f.call("GET", "/t/aggregate?column=cf:n&op=avg", &[JSON], b"");
    assert_eq!(avg.json()["value"], serde_json::json!(12.0));
    assert_eq!(avg.json()["op"], "AVG");
    let ranged = f.call(
        "GET",
        "/t/aggregate?column=cf:n&op=MAX&startrow=b",
        &[],
        b"",
    );
    assert_eq!(ranged.text().trim(), "30");
    let none = f.call(
        "GET",
        "/t/aggregate?column=cf:n&op=MAX&startrow=x",
        &[JSON],
        b"",
    );
    assert_eq!(none.json()["value"], serde_json::Value::Null);
    let bad = f.call("GET", "/t/aggregate?column=cf:n&op=MODE", &[], b"");
    assert_eq!(bad.status, 400, "{}", bad.text());
    assert!(bad.text().contains("MODE"), "{}", bad.text());
    let row = f.call("GET", "/t/aggregate", &[JSON], b"");
    assert_eq!(row.status, 200, "{}", row.text());
    assert!(row.text().contains("YSByb3c="), "{}", row.text());
}
