//! No request field silently ignored (issue 49): every field of every request message that
//! ClientService, AdminService, MasterService and HbckService serve, walked from the protobuf
//! descriptors of `proto/` (HBase's messages and numbers), must have a row in
//! `docs/design/fields.md` saying it is honoured or refused (with the error that names it).
//! The methods table there must also match what the services dispatch: every method name their
//! sources route, with the request type they decode. Coprocessor calls (ExecService's
//! endpoints) are listed as `Service.ExecService/Endpoint.Method` with their inner request.
//! Adding a proto field, or serving a new method, without its row fails here, and the
//! failure prints the rows to write.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use prost_types::field_descriptor_proto::Type;
use prost_types::{DescriptorProto, FileDescriptorSet};

/// The sources that route each service's methods (relative to `crates/`).
const DISPATCH: [(&str, &[&str]); 4] = [
    ("ClientService", &["regionserver/src/client_service/mod.rs"]),
    (
        "AdminService",
        &[
            "regionserver/src/admin_service.rs",
            "master/src/master_admin.rs",
        ],
    ),
    (
        "MasterService",
        // The operations' declarations (`basalt_ops`), and ExecMasterService's guard.
        &[
            "master/src/master_service.rs",
            "ops/src/tables.rs",
            "ops/src/namespaces.rs",
            "ops/src/regions.rs",
            "ops/src/snapshots.rs",
            "ops/src/replication.rs",
            "ops/src/cluster.rs",
            "ops/src/chores.rs",
            "ops/src/quotas.rs",
            "ops/src/rsgroups.rs",
            "ops/src/security.rs",
        ],
    ),
    ("HbckService", &["master/src/hbck_service.rs"]),
];

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn doc_path() -> PathBuf {
    crates_dir().join("../docs/design/fields.md")
}

/// Every message by its name inside package `hbase.pb` (`MutationProto.ColumnValue`).
fn messages() -> BTreeMap<String, DescriptorProto> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("proto");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("proto/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".proto"))
        .collect();
    files.sort();
    let fds: FileDescriptorSet = protox::compile(files, [dir]).expect("the protos compile");
    let mut out = BTreeMap::new();
    fn add(prefix: &str, m: &DescriptorProto, out: &mut BTreeMap<String, DescriptorProto>) {
        let name = format!("{prefix}{}", m.name());
        for nested in &m.nested_type {
            add(&format!("{name}."), nested, out);
        }
        out.insert(name, m.clone());
    }
    for file in &fds.file {
        for m in &file.message_type {
            add("", m, &mut out);
        }
    }
    out
}

/// One row of a table in the doc: its key (between the first backticks), the number in
/// parentheses after it if any, and the rest of the row's cells.
#[derive(Debug)]
struct Row {
    number: Option<i32>,
    cells: Vec<String>,
}

/// The rows of the doc's `## Methods` and `## Fields` sections, by key.
fn doc_tables() -> (BTreeMap<String, Row>, BTreeMap<String, Row>) {
    let text = std::fs::read_to_string(doc_path()).expect("docs/design/fields.md");
    let mut methods = BTreeMap::new();
    let mut fields = BTreeMap::new();
    let mut section = "";
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = if title.starts_with("Methods") {
                "methods"
            } else if title.starts_with("Fields") {
                "fields"
            } else {
                ""
            };
            continue;
        }
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((key, rest)) = rest.split_once('`') else {
            continue;
        };
        let mut cells: Vec<String> = rest.split(" | ").map(|c| c.trim().to_owned()).collect();
        let number = cells[0]
            .trim()
            .strip_prefix('(')
            .and_then(|n| n.split(')').next())
            .and_then(|n| n.parse().ok());
        cells.remove(0);
        if let Some(last) = cells.last_mut() {
            *last = last.trim_end_matches('|').trim().to_owned();
        }
        let row = Row { number, cells };
        let table = match section {
            "methods" => &mut methods,
            "fields" => &mut fields,
            _ => continue,
        };
        assert!(
            table.insert(key.to_owned(), row).is_none(),
            "docs/design/fields.md lists {key} twice"
        );
    }
    (methods, fields)
}

/// The method names each source routes (`"Get" =>`, `"A" | "B" =>`, or an operation's
/// declaration) with the request type decoded in the arm (`decode::<GetRequest>`) or
/// declared, where one is.
fn dispatched(service: &str) -> BTreeMap<String, BTreeSet<String>> {
    let arm = regex::Regex::new(r#"((?:"[A-Za-z]\w*"\s*\|\s*)*"[A-Za-z]\w*")\s*(?:if [^=]*)?=>"#)
        .expect("regex");
    let name = regex::Regex::new(r#""(\w+)""#).expect("regex");
    let decode = regex::Regex::new(r"decode::<(?:pb::)?(\w+)>").expect("regex");
    let next_arm = regex::Regex::new(r#"\n\s*"[A-Za-z]\w*"\s*(?:=>|\|)"#).expect("regex");
    let guard = regex::Regex::new(r#"if method == "(\w+)" \{\s*return Some\("#).expect("regex");
    let declared = regex::Regex::new(
        r#"(?m)^    ([A-Z]\w*)(?: as "(\w+)")?((?:\s*\|\s*"\w+")*)\s*\((?:pb::)?(\w+)\)\s*->"#,
    )
    .expect("regex");
    let files = DISPATCH
        .iter()
        .find(|(s, _)| *s == service)
        .map(|(_, f)| *f)
        .expect("a known service");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let source = std::fs::read_to_string(crates_dir().join(file)).expect("source");
        for m in arm.captures_iter(&source) {
            let end = m.get(0).expect("match").end();
            let tail = &source[end..source.len().min(end + 300)];
            let limit = next_arm.find(tail).map_or(tail.len(), |n| n.start());
            let decoded = decode.captures(&tail[..limit]).map(|d| d[1].to_owned());
            for n in name.captures_iter(&m[1]) {
                let entry = out.entry(n[1].to_owned()).or_default();
                entry.extend(decoded.clone());
            }
        }
        // A declared operation (`basalt_ops`): `Name [as "wire"] [| "alias"]* (pb::Request)`.
        for d in declared.captures_iter(&source) {
            let request = d[4].to_owned();
            let wire = d.get(2).map_or(&d[1], |w| w.as_str()).to_owned();
            out.entry(wire).or_default().insert(request.clone());
            for alias in name.captures_iter(d.get(3).map_or("", |a| a.as_str())) {
                out.entry(alias[1].to_owned())
                    .or_default()
                    .insert(request.clone());
            }
        }
        // A method answered before the match (`if method == "X" { return Some(...) }`).
        for m in guard.captures_iter(&source) {
            out.entry(m[1].to_owned()).or_default();
        }
    }
    out
}

/// Every field reachable from `message` through message-typed fields: `Message.field` to
/// its number.
fn walk(
    message: &str,
    all: &BTreeMap<String, DescriptorProto>,
    out: &mut BTreeMap<String, i32>,
    seen: &mut BTreeSet<String>,
) {
    if !seen.insert(message.to_owned()) {
        return;
    }
    let m = all
        .get(message)
        .unwrap_or_else(|| panic!("no message {message} in proto/"));
    for f in &m.field {
        out.insert(format!("{message}.{}", f.name()), f.number());
        if f.r#type() == Type::Message {
            let nested = f.type_name().trim_start_matches(".hbase.pb.");
            walk(nested, all, out, seen);
        }
    }
}

/// The methods the doc's `## Not routed` section lists (`Service.Method`).
fn not_routed() -> Vec<String> {
    let text = std::fs::read_to_string(doc_path()).expect("docs/design/fields.md");
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            inside = title.starts_with("Not routed");
            continue;
        }
        if let Some(key) = line
            .strip_prefix("| `")
            .and_then(|rest| rest.split_once('`'))
            .map(|(key, _)| key)
            .filter(|_| inside)
        {
            out.push(key.to_owned());
        }
    }
    out
}

#[test]
fn the_methods_listed_as_not_routed_are_not_routed() {
    let (methods, _) = doc_tables();
    let listed = not_routed();
    assert!(!listed.is_empty(), "fields.md has no `## Not routed` rows");
    let mut problems = Vec::new();
    for key in &listed {
        let (service, method) = key.split_once('.').expect("Service.Method");
        if methods.contains_key(key) {
            problems.push(format!("{key} is in both the methods table and Not routed"));
        }
        match DISPATCH.iter().find(|(s, _)| *s == service) {
            Some(_) if dispatched(service).contains_key(method) => problems.push(format!(
                "{key} is routed now: move its row to the methods table"
            )),
            Some(_) => {}
            None => problems.push(format!("{key}: no service {service} is audited")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_request_field_of_every_served_method_is_in_the_table() {
    let all = messages();
    let (methods, fields) = doc_tables();
    let mut problems = Vec::new();

    // The methods table against the services' dispatch.
    for (service, _) in DISPATCH {
        let routed = dispatched(service);
        // `Service.ExecService/Endpoint.Method` rows are coprocessor calls, routed inside
        // ExecService (their requests are walked like any other).
        let listed: BTreeSet<&str> = methods
            .keys()
            .filter_map(|k| k.strip_prefix(service)?.strip_prefix('.'))
            .filter(|m| !m.contains('/'))
            .collect();
        for (method, decoded) in &routed {
            let key = format!("{service}.{method}");
            match methods.get(&key) {
                None => problems.push(format!(
                    "method {key} is routed but not in the methods table: add\n| `{key}` | `{}` | served |",
                    decoded.iter().next().map_or("?", String::as_str)
                )),
                Some(row) => {
                    // prost's Rust names case acronyms as words (ReplicateWalEntryRequest).
                    let request = row.cells[0].trim_matches('`').to_lowercase();
                    if !decoded.is_empty() && !decoded.iter().any(|d| d.to_lowercase() == request) {
                        problems.push(format!(
                            "method {key}: the table says {request}, the source decodes {decoded:?}"
                        ));
                    }
                }
            }
        }
        for method in listed {
            if !routed.contains_key(method) {
                problems.push(format!(
                    "method {service}.{method} is in the table but no source routes it"
                ));
            }
        }
    }

    // The fields of every served method's request.
    let mut reachable = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for (key, row) in &methods {
        let served = &row.cells[1];
        assert!(
            served.starts_with("served") || served.starts_with("refused"),
            "method {key}: {served:?} is neither served nor refused"
        );
        if served.starts_with("served") {
            walk(
                row.cells[0].trim_matches('`'),
                &all,
                &mut reachable,
                &mut seen,
            );
        }
    }
    for (field, number) in &reachable {
        match fields.get(field) {
            None => problems.push(format!(
                "field {field} is missing: add\n| `{field}` ({number}) | honoured |"
            )),
            Some(row) if row.number != Some(*number) => problems.push(format!(
                "field {field} is number {number}, the table says {:?}",
                row.number
            )),
            Some(row) => {
                let served = row.cells.first().map_or("", String::as_str);
                if !(served.starts_with("honoured") || served.starts_with("refused")) {
                    problems.push(format!(
                        "field {field}: {served:?} is neither honoured nor refused"
                    ));
                }
                if served.starts_with("refused") && !served.contains("Exception") {
                    problems.push(format!(
                        "field {field} is refused without naming the exception: {served:?}"
                    ));
                }
            }
        }
    }
    for field in fields.keys() {
        if !reachable.contains_key(field) {
            problems.push(format!(
                "field {field} is in the table but no served request reaches it"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/design/fields.md is out of date ({} problems):\n{}",
        problems.len(),
        problems.join("\n")
    );
}
