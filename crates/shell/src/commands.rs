//! The commands: what each takes, what it prints (as HBase 2.x's shell does), and its help.

use std::io::{self, Write};

use basalt_client::{
    Append, Bytes, ColumnFamilyDescriptor, Delete, Error, Get, Increment, NamespaceDescriptor, Put,
    RowResult, Scan, SplitAlgorithm, TableDescriptor, TableName, parse_filter,
};

use crate::args::{Args, R, bytes_of, key_is, list, text};
use crate::format::{Formatter, binary, cell_text, from_binary};
use crate::syntax::Value;
use crate::{CommandResult, Returned, Shell};

type Run = fn(&mut Shell, &[Value], &mut dyn Write) -> CommandResult;

/// A shell command: its name, group, help text and implementation.
#[derive(Debug)]
pub struct CommandInfo {
    pub name: &'static str,
    pub group: &'static str,
    pub help: &'static str,
    /// Whether `Took N seconds` follows it (not for `help`).
    pub timed: bool,
    pub(crate) run: Run,
}

macro_rules! commands {
    ($( $name:literal, $group:literal, $run:path, $timed:literal, $help:literal; )*) => {
        /// Every command, in help order.
        pub static COMMANDS: &[CommandInfo] = &[
            $( CommandInfo { name: $name, group: $group, help: $help, timed: $timed, run: $run }, )*
        ];
    };
}

commands! {
    "status", "general", status, true,
"Show cluster status: 'summary' (the default) or 'simple'.
  hbase> status
  hbase> status 'simple'";
    "version", "general", version, true, "Output the HBase version this server speaks, and Basalt's.";
    "whoami", "general", whoami, true, "Show the current user and groups.";
    "help", "general", help, false,
"Show the command groups, a group's commands, or one command's help.
  hbase> help
  hbase> help 'dml'
  hbase> help 'scan'";
    "table_help", "general", table_help, false, "Help on table handles: t = get_table 't'; t.put ...; t.scan.";
    "create", "ddl", create, true,
"Create a table: a name, then families as names or hashes of attributes, then table options.
  hbase> create 't1', 'f1', 'f2', 'f3'
  hbase> create 't1', {NAME => 'f1', VERSIONS => 5, TTL => 2592000, BLOCKCACHE => true}
  hbase> create 'ns1:t1', 'f1', SPLITS => ['10', '20', '30']
  hbase> create 't1', 'f1', SPLITS_FILE => 'splits.txt'
  hbase> create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}
  hbase> create 't1', 'f1', MAX_FILESIZE => '134217728', DURABILITY => 'ASYNC_WAL'";
    "alter", "ddl", alter, true,
"Add, modify or delete families, or change table attributes, online.
  hbase> alter 't1', NAME => 'f1', VERSIONS => 5
  hbase> alter 't1', 'f2'
  hbase> alter 't1', NAME => 'f1', METHOD => 'delete'
  hbase> alter 't1', 'delete' => 'f1'
  hbase> alter 't1', MAX_FILESIZE => '134217728'
  hbase> alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'";
    "describe", "ddl", describe, true, "Describe the named table.\n  hbase> describe 't1'";
    "desc", "ddl", describe, true, "Describe the named table (alias of describe).\n  hbase> desc 't1'";
    "disable", "ddl", disable, true, "Disable the named table.\n  hbase> disable 't1'";
    "enable", "ddl", enable, true, "Enable the named table.\n  hbase> enable 't1'";
    "drop", "ddl", drop, true, "Drop the named table; it must be disabled first.\n  hbase> drop 't1'";
    "exists", "ddl", exists, true, "Does the named table exist?\n  hbase> exists 't1'";
    "is_enabled", "ddl", is_enabled, true, "Is the named table enabled?\n  hbase> is_enabled 't1'";
    "is_disabled", "ddl", is_disabled, true, "Is the named table disabled?\n  hbase> is_disabled 't1'";
    "list", "ddl", list_tables, true,
"List the user tables, optionally those matching a regular expression.
  hbase> list
  hbase> list 'abc.*'
  hbase> list 'ns:.*'";
    "list_regions", "ddl", list_regions, true, "List the regions of a table.\n  hbase> list_regions 't1'";
    "get_table", "ddl", get_table, true,
"Get a handle on a table, to call commands on it.
  hbase> t1 = get_table 't1'
  hbase> t1.scan";
    "show_filters", "ddl", show_filters, true, "Show the filters the FILTER strings can use.";
    "create_namespace", "namespace", create_namespace, true,
"Create a namespace, with optional properties.
  hbase> create_namespace 'ns1'
  hbase> create_namespace 'ns1', {'PROPERTY_NAME' => 'PROPERTY_VALUE'}";
    "drop_namespace", "namespace", drop_namespace, true, "Drop an empty namespace.\n  hbase> drop_namespace 'ns1'";
    "alter_namespace", "namespace", alter_namespace, true,
"Set or unset a namespace property.
  hbase> alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}
  hbase> alter_namespace 'ns1', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}";
    "describe_namespace", "namespace", describe_namespace, true, "Describe a namespace.\n  hbase> describe_namespace 'ns1'";
    "list_namespace", "namespace", list_namespace, true, "List the namespaces, optionally matching a regular expression.\n  hbase> list_namespace\n  hbase> list_namespace 'abc.*'";
    "list_namespace_tables", "namespace", list_namespace_tables, true, "List the tables of a namespace.\n  hbase> list_namespace_tables 'ns1'";
    "put", "dml", put, true,
"Put a cell value at a row and column, optionally at a timestamp.
  hbase> put 't1', 'r1', 'c1', 'value'
  hbase> put 't1', 'r1', 'c1', 'value', ts1
  hbase> put 't1', 'r1', 'c1', 'value', {TTL => 100000}
  hbase> put 't1', \"r\\x00\", 'c1', \"\\x01\\x02\"";
    "get", "dml", get, true,
"Get a row, or some of its columns, versions or times.
  hbase> get 't1', 'r1'
  hbase> get 't1', 'r1', {TIMERANGE => [ts1, ts2]}
  hbase> get 't1', 'r1', {COLUMN => 'c1'}
  hbase> get 't1', 'r1', {COLUMN => ['c1', 'c2', 'c3']}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1, VERSIONS => 4}
  hbase> get 't1', 'r1', {FILTER => \"ValueFilter(=, 'binary:abc')\"}
  hbase> get 't1', 'r1', 'c1', 'c2'
  hbase> get 't1', 'r1', ['c1', 'c2']
  hbase> get 't1', 'r1', {COLUMN => 'cf:qualifier:toLong'}";
    "scan", "dml", scan, true,
"Scan a table. Options: COLUMNS, STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT, TIMESTAMP,
TIMERANGE, VERSIONS, RAW, REVERSED, FILTER, CACHE, CACHE_BLOCKS, BATCH, MAX_RESULT_SIZE,
ALLOW_PARTIAL_RESULTS, MAXLENGTH.
  hbase> scan 'hbase:meta'
  hbase> scan 't1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}
  hbase> scan 't1', {REVERSED => true}
  hbase> scan 't1', {ROWPREFIXFILTER => 'row2', FILTER => \"(QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter (123, 456))\"}
  hbase> scan 't1', {RAW => true, VERSIONS => 10}";
    "delete", "dml", delete, true,
"Delete one version of a cell: the newest, or the one at a timestamp.
  hbase> delete 't1', 'r1', 'c1'
  hbase> delete 't1', 'r1', 'c1', ts1";
    "deleteall", "dml", deleteall, true,
"Delete a row, a family or column of it (every version, up to a timestamp), or every row
with a prefix.
  hbase> deleteall 't1', 'r1'
  hbase> deleteall 't1', 'r1', 'c1'
  hbase> deleteall 't1', 'r1', 'c1', ts1
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix'}";
    "incr", "dml", incr, true,
"Increment a counter cell (8-byte big-endian) by 1 or a given amount.
  hbase> incr 't1', 'r1', 'c1'
  hbase> incr 't1', 'r1', 'c1', 10";
    "get_counter", "dml", get_counter, true, "Read a counter cell.\n  hbase> get_counter 't1', 'r1', 'c1'";
    "append", "dml", append, true, "Append a value to a cell.\n  hbase> append 't1', 'r1', 'c1', 'value'";
    "count", "dml", count, true,
"Count the rows of a table, reporting every INTERVAL rows (1000 by default).
  hbase> count 't1'
  hbase> count 't1', INTERVAL => 100000
  hbase> count 't1', {FILTER => \"PrefixFilter('r')\"}";
    "get_splits", "dml", get_splits, true, "The split points of a table.\n  hbase> get_splits 't1'";
    "truncate", "dml", truncate, true, "Disable, drop and recreate a table, empty.\n  hbase> truncate 't1'";
    "truncate_preserve", "dml", truncate_preserve, true, "Empty a table and keep its region boundaries.\n  hbase> truncate_preserve 't1'";
    "flush", "tools", flush, true, "Flush a table's memstores (or a region's, by name).\n  hbase> flush 't1'";
    "compact", "tools", compact, true, "Compact a table (or a region, by name): a minor compaction.\n  hbase> compact 't1'";
    "major_compact", "tools", major_compact, true, "Major-compact a table (or a region, by name).\n  hbase> major_compact 't1'";
    "split", "tools", split, true,
"Split a table's regions at their midpoints, or the region holding a row there.
  hbase> split 't1'
  hbase> split 't1', 'splitKey'";
    "merge_region", "tools", merge_region, true,
"Merge two adjacent regions, named by encoded or full names.
  hbase> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'";
}

/// The command named `name`.
pub(crate) fn find(name: &str) -> Option<&'static CommandInfo> {
    COMMANDS.iter().find(|c| c.name == name)
}

const GROUPS: &[(&str, &str)] = &[
    ("general", "general"),
    ("ddl", "ddl"),
    ("namespace", "namespace"),
    ("dml", "dml"),
    ("tools", "tools"),
];

fn io(e: io::Error) -> String {
    format!("writing output: {e}")
}

macro_rules! w {
    ($out:expr) => {
        writeln!($out).map_err(io)?
    };
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(io)?
    };
}

/// HBase's shell wording of an error about `first` (the command's first argument).
fn hbase_error(shell: &Shell, e: Error, first: &str) -> String {
    match e {
        Error::TableNotFound(_) => format!("Unknown table {first}!"),
        Error::TableExists(_) => format!("Table already exists: {first}!"),
        Error::NamespaceNotFound(ns) => format!("Unknown namespace {ns}!"),
        Error::TableNotEnabled(t) => format!("Table {t} is disabled!"),
        // The same words whether the engine or a server refused it.
        Error::InvalidArgument(m) => m,
        Error::NoSuchColumnFamily { table, .. } => {
            let valid = shell
                .client
                .describe_table(&table)
                .map(|d| {
                    d.families()
                        .iter()
                        .map(|f| format!("{}:*", f.name_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            format!("Unknown column family! Valid column names: {valid}")
        }
        other => other.to_string(),
    }
}

/// The first argument as text, for error messages.
fn first_text(args: &[Value]) -> String {
    args.first().and_then(text).unwrap_or_default()
}

/// Runs `f`, wording a Basalt error as the shell does.
fn client<T>(shell: &Shell, args: &[Value], r: basalt_client::Result<T>) -> R<T> {
    r.map_err(|e| hbase_error(shell, e, &first_text(args)))
}

/// `cf:q` -> (cf, Some(q)); `cf` -> (cf, None); `cf:` -> (cf, Some("")). A third part
/// (`cf:q:toLong`) is a converter.
fn parse_column(spec: &[u8]) -> (Bytes, Option<Bytes>, Option<String>) {
    match spec.iter().position(|&c| c == b':') {
        None => (Bytes::copy_from_slice(spec), None, None),
        Some(i) => {
            let family = Bytes::copy_from_slice(&spec[..i]);
            let rest = &spec[i + 1..];
            match rest.iter().position(|&c| c == b':') {
                Some(j) => (
                    family,
                    Some(Bytes::copy_from_slice(&rest[..j])),
                    Some(String::from_utf8_lossy(&rest[j + 1..]).into_owned()),
                ),
                None => (family, Some(Bytes::copy_from_slice(rest)), None),
            }
        }
    }
}

// ----------------------------------------------------------------------------------------
// general

fn status(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let kind = a
        .opt_string(0, "format")?
        .unwrap_or_else(|| "summary".into());
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    let load = summary.regions as f64 / summary.live_servers.max(1) as f64;
    match kind.as_str() {
        "summary" => w!(
            out,
            "1 active master, 0 backup masters, {} servers, {} dead, {load:.4} average load",
            summary.live_servers,
            summary.dead_servers
        ),
        "simple" | "detailed" => {
            let server = shell.client.server_name();
            w!(
                out,
                "active master:  {}",
                server.replace(',', ":").replacen(':', ",", 2)
            );
            w!(out, "0 backup masters");
            w!(out, "{} live servers", summary.live_servers);
            w!(out, "    {server}");
            w!(out, "        numberOfOnlineRegions={}", summary.regions);
            w!(out, "{} dead servers", summary.dead_servers);
            w!(out, "Aggregate load: 0, regions: {}", summary.regions);
        }
        other => {
            return Err(format!(
                "unknown status format '{other}': use 'summary' or 'simple'"
            ));
        }
    }
    Ok(None)
}

fn version(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    w!(
        out,
        "2.6.0, rbasalt-{0}, Basalt {0}",
        env!("CARGO_PKG_VERSION")
    );
    Ok(None)
}

fn whoami(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    let user = std::env::var("USER").unwrap_or_else(|_| "basalt".into());
    w!(out, "{user} (auth:SIMPLE)");
    w!(out, "    groups: {user}");
    Ok(None)
}

fn help(_: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    if let Some(topic) = a.opt_string(0, "command or group")? {
        if let Some(c) = find(&topic) {
            w!(out, "{}", c.help);
            return Ok(None);
        }
        if GROUPS.iter().any(|(g, _)| *g == topic) {
            w!(out, "Command: {topic}");
            for c in COMMANDS.iter().filter(|c| c.group == topic) {
                w!(out, "\nCommand: {}\n{}", c.name, c.help);
            }
            return Ok(None);
        }
        return Err(format!("no command or group named '{topic}'"));
    }
    w!(
        out,
        "HBase Shell, version 2.6.0 (Basalt {})",
        env!("CARGO_PKG_VERSION")
    );
    w!(
        out,
        "Type 'help \"COMMAND\"', (e.g. 'help \"get\"' -- the quotes are necessary) for help on a specific command."
    );
    w!(
        out,
        "Commands are grouped. Type 'help \"COMMAND_GROUP\"', (e.g. 'help \"general\"') for help on a command group."
    );
    w!(out);
    w!(out, "COMMAND GROUPS:");
    for (group, _) in GROUPS {
        let names: Vec<&str> = COMMANDS
            .iter()
            .filter(|c| c.group == *group)
            .map(|c| c.name)
            .collect();
        w!(out, "  Group name: {group}");
        w!(out, "  Commands: {}", names.join(", "));
        w!(out);
    }
    w!(out, "SHELL USAGE:");
    w!(
        out,
        "Quote all names in HBase Shell such as table and column names.  Commas delimit"
    );
    w!(
        out,
        "command parameters.  Type <RETURN> after entering a command to run it."
    );
    w!(
        out,
        "Dictionaries of configuration used in the creation and alteration of tables are"
    );
    w!(
        out,
        "Ruby Hashes. They look like this: {{'key1' => 'value1', 'key2' => 'value2', ...}}"
    );
    Ok(None)
}

fn table_help(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    w!(
        out,
        "A table handle runs table commands without naming the table each time:"
    );
    w!(out, "  hbase> t = get_table 't'");
    w!(out, "  hbase> t.put 'r', 'f:q', 'v'");
    w!(out, "  hbase> t.get 'r'");
    w!(out, "  hbase> t.scan LIMIT => 10");
    w!(
        out,
        "Table commands: put, get, scan, delete, deleteall, incr, get_counter, append, count,"
    );
    w!(
        out,
        "get_splits, describe, disable, enable, drop, flush, truncate, exists."
    );
    Ok(None)
}

// ----------------------------------------------------------------------------------------
// ddl

/// Applies a family hash (`{NAME => 'f', VERSIONS => 5, ...}`) to `family`.
fn apply_family(family: &mut ColumnFamilyDescriptor, pairs: &[(Value, Value)]) -> R<()> {
    for (k, v) in pairs {
        let key = text(k).ok_or_else(|| format!("bad family attribute key {}", k.inspect()))?;
        match (key.as_str(), v) {
            ("NAME", _) | ("METHOD", _) => {}
            ("METADATA" | "CONFIGURATION", Value::Hash(map)) => {
                for (mk, mv) in map {
                    let (Some(mk), Some(mv)) = (text(mk), text(mv)) else {
                        return Err(format!("{key} keys and values must be strings"));
                    };
                    if key == "METADATA" {
                        family.metadata.insert(mk, mv);
                    } else {
                        family.configuration.insert(mk, mv);
                    }
                }
            }
            _ => {
                let value =
                    text(v).ok_or_else(|| format!("bad value for {key}: {}", v.inspect()))?;
                family
                    .set_attribute(&key, &value)
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    family.validate().map_err(|e| e.to_string())
}

fn hash_name(pairs: &[(Value, Value)]) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| key_is(k, "NAME"))
        .and_then(|(_, v)| text(v))
}

/// Applies table options (`MAX_FILESIZE => ...`, `METADATA => {...}`) to `desc`; returns the
/// split keys if SPLITS, SPLITS_FILE or NUMREGIONS/SPLITALGO are among them.
fn apply_table_options(desc: &mut TableDescriptor, pairs: &[(Value, Value)]) -> R<Vec<Bytes>> {
    let mut splits = Vec::new();
    let mut numregions = None;
    let mut algo = None;
    for (k, v) in pairs {
        let key = text(k).ok_or_else(|| format!("bad table option key {}", k.inspect()))?;
        match (key.as_str(), v) {
            ("SPLITS", v) => {
                let keys = list(v).ok_or("SPLITS must be an array of strings")?;
                splits = keys.iter().map(|k| Bytes::from(from_binary(k))).collect();
            }
            ("SPLITS_FILE", v) => {
                let path = text(v).ok_or("SPLITS_FILE must be a file name")?;
                let body = std::fs::read(&path)
                    .map_err(|e| format!("cannot read SPLITS_FILE {path}: {e}"))?;
                splits = body
                    .split(|&c| c == b'\n')
                    .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
                    .filter(|l| !l.is_empty())
                    .map(|l| Bytes::from(from_binary(l)))
                    .collect();
            }
            ("NUMREGIONS", Value::Int(n)) => numregions = Some(*n),
            ("NUMREGIONS", _) => return Err("NUMREGIONS must be an integer".into()),
            ("SPLITALGO", v) => algo = text(v),
            ("METADATA" | "CONFIGURATION", Value::Hash(map)) => {
                for (mk, mv) in map {
                    let (Some(mk), Some(mv)) = (text(mk), text(mv)) else {
                        return Err(format!("{key} keys and values must be strings"));
                    };
                    if key == "METADATA" {
                        desc.metadata.insert(mk, mv);
                    } else {
                        desc.configuration.insert(mk, mv);
                    }
                }
            }
            ("REGION_REPLICATION", Value::Int(n)) if *n > 1 => {
                return Err(
                    "REGION_REPLICATION above 1 needs region replicas, which Basalt does not have"
                        .into(),
                );
            }
            _ => {
                let value =
                    text(v).ok_or_else(|| format!("bad value for {key}: {}", v.inspect()))?;
                desc.set_attribute(&key, &value)
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    match (numregions, algo) {
        (None, None) => {}
        (Some(n), Some(a)) => {
            if n < 2 {
                return Err("Number of regions must be greater than 1".into());
            }
            let algorithm = SplitAlgorithm::parse(&a).map_err(|e| e.to_string())?;
            splits = algorithm
                .split_keys(usize::try_from(n).unwrap_or(usize::MAX))
                .map_err(|e| e.to_string())?;
        }
        _ => return Err("Number of regions and split algorithm must both be given".into()),
    }
    Ok(splits)
}

fn create(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::all(args);
    let name = a.table(0)?;
    let mut desc = TableDescriptor::new(name.clone());
    let mut splits = Vec::new();
    for v in &args[1..] {
        match v {
            Value::Str(f) => desc.add_family(ColumnFamilyDescriptor::new(Bytes::from(f.clone()))),
            Value::Hash(pairs) => match hash_name(pairs) {
                Some(family) => {
                    let mut f = ColumnFamilyDescriptor::new(Bytes::from(family));
                    apply_family(&mut f, pairs)?;
                    desc.add_family(f);
                }
                None => splits = apply_table_options(&mut desc, pairs)?,
            },
            other => return Err(format!("bad argument {}", other.inspect())),
        }
    }
    if desc.families().is_empty() {
        return Err("Table must have at least one column family".into());
    }
    client(shell, args, shell.client.create_table(desc, &splits))?;
    w!(out, "Created table {name}");
    Ok(Some(Returned::Table(name)))
}

fn alter(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::all(args);
    let name = a.table(0)?;
    if args.len() < 2 {
        return Err("alter needs at least one family or table change".into());
    }
    let mut desc = client(shell, args, shell.client.describe_table(&name))?;
    for v in &args[1..] {
        match v {
            Value::Str(f) => {
                let f = ColumnFamilyDescriptor::new(Bytes::from(f.clone()));
                f.validate().map_err(|e| e.to_string())?;
                if desc.family(&f.name).is_none() {
                    desc.add_family(f);
                }
            }
            Value::Hash(pairs) => alter_one(&mut desc, pairs)?,
            other => return Err(format!("bad argument {}", other.inspect())),
        }
    }
    client(shell, args, shell.client.modify_table(desc))?;
    let regions = shell.client.regions(&name).map(|r| r.len()).unwrap_or(1);
    w!(out, "Updating all regions with the new schema...");
    w!(out, "{regions}/{regions} regions updated.");
    w!(out, "Done.");
    Ok(None)
}

fn alter_one(desc: &mut TableDescriptor, pairs: &[(Value, Value)]) -> R<()> {
    let find = |k: &str| pairs.iter().find(|(key, _)| key_is(key, k)).map(|(_, v)| v);
    let method = find("METHOD").and_then(text);
    if let Some(deleted) = find("delete") {
        let f = text(deleted).ok_or("'delete' takes a family name")?;
        return delete_family(desc, &f);
    }
    match method.as_deref() {
        Some("delete") => {
            let f = hash_name(pairs).ok_or("METHOD => 'delete' needs NAME => family")?;
            delete_family(desc, &f)
        }
        Some("table_att_unset") => {
            let names = find("NAME")
                .and_then(list)
                .ok_or("table_att_unset needs NAME")?;
            for n in names {
                desc.unset_attribute(&String::from_utf8_lossy(&n))
                    .map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        Some("table_conf_unset") => {
            let n = hash_name(pairs).ok_or("table_conf_unset needs NAME")?;
            desc.configuration.remove(&n);
            Ok(())
        }
        Some("table_att") => {
            let rest: Vec<(Value, Value)> = pairs
                .iter()
                .filter(|(k, _)| !key_is(k, "METHOD"))
                .cloned()
                .collect();
            apply_table_options(desc, &rest).map(|_| ())
        }
        Some(other) => Err(format!("Unknown method: {other}")),
        None => match hash_name(pairs) {
            Some(family) => {
                let mut f = desc
                    .family(family.as_bytes())
                    .cloned()
                    .unwrap_or_else(|| ColumnFamilyDescriptor::new(Bytes::from(family.clone())));
                apply_family(&mut f, pairs)?;
                desc.remove_family(family.as_bytes());
                desc.add_family(f);
                Ok(())
            }
            None => apply_table_options(desc, pairs).map(|_| ()),
        },
    }
}

fn delete_family(desc: &mut TableDescriptor, family: &str) -> R<()> {
    if desc.remove_family(family.as_bytes()).is_none() {
        return Err(format!(
            "Column family {family} does not exist in table {}",
            desc.name
        ));
    }
    Ok(())
}

fn describe(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(1, "describe 't1'")?;
    let name = a.table(0)?;
    let desc = client(shell, args, shell.client.describe_table(&name))?;
    let enabled = client(shell, args, shell.client.is_table_enabled(&name))?;
    let mut f = Formatter::new(shell.options.width);
    let state = if enabled { "ENABLED" } else { "DISABLED" };
    f.header(out, &[&format!("Table {name} is {state}")])
        .map_err(io)?;
    // `'t', {TABLE_ATTRIBUTES => ...}` and the families on their own lines: HBase prints the
    // name without quotes here.
    let full = desc.to_string();
    let first = full.lines().next().unwrap_or_default();
    let header = first
        .strip_prefix(&format!("'{name}'"))
        .map_or_else(|| first.to_owned(), |rest| format!("{name}{rest}"));
    f.row1(out, &header).map_err(io)?;
    f.header(out, &["COLUMN FAMILIES DESCRIPTION"])
        .map_err(io)?;
    for family in desc.families() {
        f.row1(out, &family.to_string()).map_err(io)?;
        w!(out);
    }
    f.footer(out, None).map_err(io)?;
    w!(out, "Quota is disabled");
    Ok(None)
}

fn disable(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    client(shell, args, shell.client.disable_table(&name))?;
    Ok(None)
}

fn enable(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    client(shell, args, shell.client.enable_table(&name))?;
    Ok(None)
}

fn drop(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    match shell.client.delete_table(&name) {
        Err(Error::TableNotDisabled(_)) => {
            Err(format!("Table {name} is enabled. Disable it first."))
        }
        other => client(shell, args, other).map(|()| None),
    }
}

fn exists(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let found = client(shell, args, shell.client.table_exists(&name))?;
    let does = if found { "does" } else { "does not" };
    w!(out, "Table {name} {does} exist");
    Ok(Some(Returned::Value(Value::Bool(found))))
}

fn is_enabled(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let on = client(shell, args, shell.client.is_table_enabled(&name))?;
    w!(out, "{on}");
    Ok(Some(Returned::Value(Value::Bool(on))))
}

fn is_disabled(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let off = !client(shell, args, shell.client.is_table_enabled(&name))?;
    w!(out, "{off}");
    Ok(Some(Returned::Value(Value::Bool(off))))
}

/// Names matching a whole-string regular expression (Java's `Pattern.matches`).
fn matcher(pattern: Option<String>) -> R<Option<regex::Regex>> {
    pattern
        .map(|p| {
            regex::Regex::new(&format!("^(?:{p})$"))
                .map_err(|e| format!("bad regular expression {p:?}: {e}"))
        })
        .transpose()
}

fn names_list(names: &[String]) -> Returned {
    Returned::Value(Value::Array(
        names
            .iter()
            .map(|n| Value::Str(n.clone().into_bytes()))
            .collect(),
    ))
}

fn list_tables(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let re = matcher(a.opt_string(0, "regular expression")?)?;
    let names: Vec<String> = shell
        .client
        .table_names()
        .map_err(|e| e.to_string())?
        .iter()
        .map(ToString::to_string)
        .filter(|n| re.as_ref().is_none_or(|r| r.is_match(n)))
        .collect();
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["TABLE"]).map_err(io)?;
    for n in &names {
        f.row1(out, n).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(Some(names_list(&names)))
}

fn list_regions(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let regions = client(shell, args, shell.client.regions(&name))?;
    let server = shell.client.server_name();
    let titles = [
        "SERVER_NAME",
        "REGION_NAME",
        "START_KEY",
        "END_KEY",
        "SIZE",
        "REQ",
        "LOCALITY",
    ];
    let rows: Vec<[String; 7]> = regions
        .iter()
        .map(|r| {
            [
                server.clone(),
                binary(&r.name),
                binary(&r.start_key),
                binary(&r.end_key),
                r.size.map_or_else(|| "-".into(), |s| (s >> 20).to_string()),
                "0".into(),
                "1.0".into(),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = titles.iter().map(|t| t.len()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: &[&str]| {
        let mut s = String::new();
        for (c, w) in cells.iter().zip(&widths) {
            s.push_str(&format!(" {c:>w$} |"));
        }
        s
    };
    w!(out, "{}", line(&titles));
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    w!(
        out,
        "{}",
        line(&dashes.iter().map(String::as_str).collect::<Vec<_>>())
    );
    for row in &rows {
        w!(
            out,
            "{}",
            line(&row.iter().map(String::as_str).collect::<Vec<_>>())
        );
    }
    w!(out, " {} rows", rows.len());
    Ok(None)
}

fn get_table(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    if !client(shell, args, shell.client.table_exists(&name))? {
        return Err(format!("Unknown table {name}!"));
    }
    Ok(Some(Returned::Table(name)))
}

fn show_filters(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    for f in [
        "DependentColumnFilter",
        "KeyOnlyFilter",
        "ColumnCountGetFilter",
        "SingleColumnValueFilter",
        "PrefixFilter",
        "SingleColumnValueExcludeFilter",
        "FirstKeyOnlyFilter",
        "ColumnRangeFilter",
        "ColumnValueFilter",
        "TimestampsFilter",
        "FamilyFilter",
        "QualifierFilter",
        "ColumnPrefixFilter",
        "RowFilter",
        "MultipleColumnPrefixFilter",
        "InclusiveStopFilter",
        "PageFilter",
        "ValueFilter",
        "ColumnPaginationFilter",
    ] {
        w!(out, "{f}");
    }
    Ok(None)
}

// ----------------------------------------------------------------------------------------
// namespaces

fn create_namespace(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "namespace name")?;
    let mut ns = NamespaceDescriptor::new(&name);
    for (k, v) in a.opts.unwrap_or_default() {
        let (Some(k), Some(v)) = (text(k), text(v)) else {
            return Err("namespace properties must be strings".into());
        };
        ns.configuration.insert(k, v);
    }
    shell.client.create_namespace(ns).map_err(|e| match e {
        Error::NamespaceExists(_) => format!("Namespace {name} already exists"),
        other => other.to_string(),
    })?;
    Ok(None)
}

fn drop_namespace(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).string(0, "namespace name")?;
    client(shell, args, shell.client.delete_namespace(&name))?;
    Ok(None)
}

fn alter_namespace(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "namespace name")?;
    let mut ns = client(shell, args, shell.client.namespace(&name))?;
    let method = a
        .opt_text("METHOD")?
        .ok_or("METHOD must be 'set' or 'unset'")?;
    match method.as_str() {
        "set" => {
            for (k, v) in a.opts.unwrap_or_default() {
                if key_is(k, "METHOD") {
                    continue;
                }
                let (Some(k), Some(v)) = (text(k), text(v)) else {
                    return Err("namespace properties must be strings".into());
                };
                ns.configuration.insert(k, v);
            }
        }
        "unset" => {
            let key = a.opt_text("NAME")?.ok_or("unset needs NAME => property")?;
            ns.configuration.remove(&key);
        }
        other => return Err(format!("Unknown method: {other}")),
    }
    client(shell, args, shell.client.modify_namespace(ns))?;
    Ok(None)
}

fn describe_namespace(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).string(0, "namespace name")?;
    let ns = client(shell, args, shell.client.namespace(&name))?;
    let mut text = format!("{{NAME => '{}'", ns.name);
    for (k, v) in &ns.configuration {
        text.push_str(&format!(", {k} => '{v}'"));
    }
    text.push('}');
    w!(out, "DESCRIPTION");
    w!(out, "{text}");
    w!(out, "Quota is disabled");
    Ok(None)
}

fn list_namespace(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let re = matcher(a.opt_string(0, "regular expression")?)?;
    let names: Vec<String> = shell
        .client
        .namespaces()
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|n| n.name)
        .filter(|n| re.as_ref().is_none_or(|r| r.is_match(n)))
        .collect();
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["NAMESPACE"]).map_err(io)?;
    for n in &names {
        f.row1(out, n).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(Some(names_list(&names)))
}

fn list_namespace_tables(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let ns = Args::new(args).string(0, "namespace name")?;
    client(shell, args, shell.client.namespace(&ns))?;
    let names: Vec<String> = shell
        .client
        .table_names()
        .map_err(|e| e.to_string())?
        .iter()
        .filter(|t| t.namespace() == ns)
        .map(|t| t.qualifier().to_owned())
        .collect();
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["TABLE"]).map_err(io)?;
    for n in &names {
        f.row1(out, n).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(Some(names_list(&names)))
}

// ----------------------------------------------------------------------------------------
// dml

fn put(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(5, "put 't1', 'r1', 'cf:q', 'value' [, ts] [, {TTL => ms}]")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let value = a.bytes(3, "value")?;
    let mut p = Put::new(row);
    p = match a.int(4, "timestamp")? {
        Some(ts) => p.add_column_at(family, qualifier.unwrap_or_default(), ts, value),
        None => p.add_column(family, qualifier.unwrap_or_default(), value),
    };
    if let Some(ttl) = a.opt_int("TTL")? {
        p = p.with_ttl_ms(u64::try_from(ttl).map_err(|_| "TTL must not be negative")?);
    }
    client(shell, args, shell.client.put(&table, &p))?;
    Ok(None)
}

/// Columns of a get or scan, and the converters named in them.
type Converters = Vec<(Bytes, Bytes, String)>;

fn converter<'c>(converters: &'c Converters, family: &[u8], qualifier: &[u8]) -> Option<&'c str> {
    converters
        .iter()
        .find(|(f, q, _)| f[..] == *family && q[..] == *qualifier)
        .map(|(_, _, c)| c.as_str())
}

/// What `get` and `scan` take alike (columns with their converters, TIMESTAMP, TIMERANGE,
/// VERSIONS, FILTER), applied to a Get or a Scan: the two share these builder methods.
macro_rules! select {
    ($query:expr, $a:expr, $columns:expr, $converters:expr) => {{
        let mut q = $query;
        for c in $columns {
            let (family, qualifier, conv) = parse_column(&c);
            q = match qualifier {
                Some(qual) => {
                    if let Some(conv) = conv {
                        $converters.push((family.clone(), qual.clone(), conv));
                    }
                    q.add_column(family, qual)
                }
                None => q.add_family(family),
            };
        }
        if let Some(ts) = $a.opt_int("TIMESTAMP")? {
            q = q.with_timestamp(ts);
        }
        if let Some((min, max)) = $a.opt_pair("TIMERANGE")? {
            q = q.with_time_range(min, max);
        }
        if let Some(v) = $a.opt_int("VERSIONS")? {
            q = q.read_versions(u32::try_from(v).map_err(|_| "VERSIONS must be positive")?);
        }
        if let Some(filter) = $a.opt_text("FILTER")? {
            q = q.with_filter(parse_filter(&filter).map_err(|e| e.to_string())?);
        }
        q
    }};
}

fn get(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let table = Args::new(args).table(0)?;
    let row = Args::new(args).bytes(1, "row")?;
    // After the row: column names, an array of them, or an options hash.
    let rest = &args[2.min(args.len())..];
    let a = Args::new(rest);
    let mut columns: Vec<Vec<u8>> = Vec::new();
    for v in a.pos {
        columns.extend(list(v).ok_or_else(|| format!("bad column {}", v.inspect()))?);
    }
    a.unknown_options(&[
        "COLUMN",
        "COLUMNS",
        "TIMESTAMP",
        "TIMERANGE",
        "VERSIONS",
        "FILTER",
        "MAXLENGTH",
        "ATTRIBUTES",
        "AUTHORIZATIONS",
        "CONSISTENCY",
        "REGION_REPLICA_ID",
        "FORMATTER",
        "FORMATTER_CLASS",
    ])?;
    if let Some(c) = a.opt_list("COLUMN")?.or(a.opt_list("COLUMNS")?) {
        columns.extend(c);
    }
    let mut converters = Converters::new();
    let g = select!(Get::new(row), a, columns, converters);
    let maxlength = a.opt_int("MAXLENGTH")?;
    let result = client(shell, args, shell.client.get(&table, &g))?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["COLUMN", "CELL"]).map_err(io)?;
    for cell in &result.cells {
        let column = format!("{}:{}", binary(cell.family()), binary(cell.qualifier()));
        let conv = converter(&converters, cell.family(), cell.qualifier());
        let text = clip(
            cell_text(cell, shell.options.epoch_timestamps, conv),
            maxlength,
        );
        f.row2(out, &column, &text).map_err(io)?;
    }
    f.footer(out, Some(usize::from(!result.cells.is_empty())))
        .map_err(io)?;
    Ok(None)
}

fn clip(text: String, maxlength: Option<i64>) -> String {
    match maxlength.and_then(|m| usize::try_from(m).ok()) {
        Some(m) => text.chars().take(m).collect(),
        None => text,
    }
}

/// The scan an options hash asks for, and its converters.
fn scan_of(a: &Args<'_>) -> R<(Scan, Converters)> {
    a.unknown_options(&[
        "COLUMNS",
        "COLUMN",
        "STARTROW",
        "STOPROW",
        "ROWPREFIXFILTER",
        "LIMIT",
        "TIMESTAMP",
        "TIMERANGE",
        "VERSIONS",
        "RAW",
        "REVERSED",
        "FILTER",
        "CACHE",
        "CACHE_BLOCKS",
        "BATCH",
        "MAX_RESULT_SIZE",
        "ALLOW_PARTIAL_RESULTS",
        "ISOLATION_LEVEL",
        "READ_TYPE",
        "CONSISTENCY",
        "REGION_REPLICA_ID",
        "ALL_METRICS",
        "METRICS",
        "FORMATTER",
        "FORMATTER_CLASS",
        "MAXLENGTH",
        "ATTRIBUTES",
        "AUTHORIZATIONS",
        "INTERVAL",
    ])?;
    let mut s = Scan::new();
    if let Some(start) = a.opt_bytes("STARTROW")? {
        s = s.with_start_row(start);
    }
    if let Some(stop) = a.opt_bytes("STOPROW")? {
        s = s.with_stop_row(stop);
    }
    if let Some(prefix) = a.opt_bytes("ROWPREFIXFILTER")? {
        s = s.with_row_prefix(prefix);
    }
    let mut converters = Converters::new();
    let columns = a
        .opt_list("COLUMNS")?
        .or(a.opt_list("COLUMN")?)
        .unwrap_or_default();
    s = select!(s, a, columns, converters);
    if let Some(limit) = a.opt_int("LIMIT")?
        && limit > 0
    {
        s = s.with_limit(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    if let Some(batch) = a.opt_int("BATCH")?
        && batch > 0
    {
        s = s.with_batch(usize::try_from(batch).unwrap_or(usize::MAX));
    }
    if let Some(cache) = a.opt_int("CACHE")?
        && cache > 0
    {
        s = s.with_caching(usize::try_from(cache).unwrap_or(usize::MAX));
    }
    if let Some(size) = a.opt_int("MAX_RESULT_SIZE")?
        && size > 0
    {
        s = s.with_max_result_size(u64::try_from(size).unwrap_or(u64::MAX));
    }
    s = s
        .raw(a.opt_bool("RAW")?.unwrap_or(false))
        .reversed(a.opt_bool("REVERSED")?.unwrap_or(false))
        .with_cache_blocks(a.opt_bool("CACHE_BLOCKS")?.unwrap_or(true))
        .with_allow_partial_results(a.opt_bool("ALLOW_PARTIAL_RESULTS")?.unwrap_or(false));
    s.validate().map_err(|e| e.to_string())?;
    Ok((s, converters))
}

fn scan(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(1, "scan 't1' [, {OPTIONS}]")?;
    let table = a.table(0)?;
    let (s, converters) = scan_of(&a)?;
    let maxlength = a.opt_int("MAXLENGTH")?;
    let epoch = shell.options.epoch_timestamps;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["ROW", "COLUMN+CELL"]).map_err(io)?;
    let rows = client(shell, args, shell.client.scan(&table, &s))?;
    // Each result counts, as in HBase: a row cut into batches counts once per batch.
    let mut count = 0usize;
    for row in rows {
        let row: RowResult = row.map_err(|e| hbase_error(shell, e, &first_text(args)))?;
        count += 1;
        for cell in &row.cells {
            let conv = converter(&converters, cell.family(), cell.qualifier());
            // MAXLENGTH cuts the cell's text, after the column.
            let text = format!(
                "column={}:{}, {}",
                binary(cell.family()),
                binary(cell.qualifier()),
                clip(cell_text(cell, epoch, conv), maxlength)
            );
            f.row2(out, &binary(&row.row), &text).map_err(io)?;
        }
    }
    f.footer(out, Some(count)).map_err(io)?;
    Ok(None)
}

fn delete(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(4, "delete 't1', 'r1', 'cf:q' [, ts]")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let ts = a.int(3, "timestamp")?;
    let d = match (qualifier, ts) {
        (Some(q), Some(ts)) => Delete::new(row).add_column_at(family, q, ts),
        (Some(q), None) => Delete::new(row).add_column(family, q),
        // A family alone deletes every column at exactly that time (DeleteFamilyVersion).
        (None, ts) => Delete::new(row)
            .add_family_version(family, ts.unwrap_or(basalt_client::LATEST_TIMESTAMP)),
    };
    client(shell, args, shell.client.delete(&table, &d))?;
    Ok(None)
}

fn deleteall(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let table = Args::new(args).table(0)?;
    // `deleteall 't', {ROWPREFIXFILTER => 'p'} [, column [, ts]]`
    if let Some(Value::Hash(pairs)) = args.get(1) {
        let opts = Args {
            pos: &[],
            opts: Some(pairs),
        };
        let prefix = opts
            .opt_bytes("ROWPREFIXFILTER")?
            .ok_or("deleteall with a hash needs ROWPREFIXFILTER")?;
        let rest = Args::all(&args[2..]);
        let column = rest.opt_string(0, "column")?;
        let ts = rest.int(1, "timestamp")?;
        let s = Scan::new()
            .with_row_prefix(prefix)
            .with_filter(parse_filter("KeyOnlyFilter()").map_err(|e| e.to_string())?);
        let rows: Vec<Bytes> = client(shell, args, shell.client.scan(&table, &s))?
            .map(|r| r.map(|r| r.row))
            .collect::<basalt_client::Result<_>>()
            .map_err(|e| e.to_string())?;
        for row in rows {
            let d = delete_all(row, column.as_deref().map(str::as_bytes), ts);
            client(shell, args, shell.client.delete(&table, &d))?;
        }
        let _ = out;
        return Ok(None);
    }
    let a = Args::new(args);
    a.at_most(4, "deleteall 't1', 'r1' [, 'cf:q'] [, ts]")?;
    let row = a.bytes(1, "row")?;
    let column = a.opt_string(2, "column")?;
    let ts = a.int(3, "timestamp")?;
    let d = delete_all(row, column.as_deref().map(str::as_bytes), ts);
    client(shell, args, shell.client.delete(&table, &d))?;
    Ok(None)
}

/// Every version (up to `ts`) of a row, a family or a column.
fn delete_all(row: Bytes, column: Option<&[u8]>, ts: Option<i64>) -> Delete {
    let mut d = Delete::new(row);
    if let Some(ts) = ts
        && column.is_none_or(<[u8]>::is_empty)
    {
        d = d.with_timestamp(ts);
    }
    match column.filter(|c| !c.is_empty()).map(parse_column) {
        None => d,
        Some((family, None, _)) => match ts {
            Some(ts) => d.add_family_at(family, ts),
            None => d.add_family(family),
        },
        Some((family, Some(q), _)) => match ts {
            Some(ts) => d.add_columns_at(family, q, ts),
            None => d.add_columns(family, q),
        },
    }
}

fn incr(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(4, "incr 't1', 'r1', 'cf:q' [, amount]")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let by = a.int(3, "amount")?.unwrap_or(1);
    let inc = Increment::new(row).add_column(family, qualifier.unwrap_or_default(), by);
    let result = client(shell, args, shell.client.increment(&table, &inc))?;
    let value = result
        .cells
        .first()
        .and_then(|c| <[u8; 8]>::try_from(c.value()).ok())
        .map(i64::from_be_bytes)
        .ok_or("the increment returned no counter")?;
    w!(out, "COUNTER VALUE = {value}");
    Ok(None)
}

fn get_counter(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let g = Get::new(row).add_column(family, qualifier.unwrap_or_default());
    let result = client(shell, args, shell.client.get(&table, &g))?;
    match result.cells.first() {
        None => w!(out, "No counter found at specified coordinates"),
        Some(cell) => {
            let value = <[u8; 8]>::try_from(cell.value()).map_err(|_| {
                format!(
                    "the cell holds {} bytes, not an 8-byte counter",
                    cell.value().len()
                )
            })?;
            w!(out, "COUNTER VALUE = {}", i64::from_be_bytes(value));
        }
    }
    Ok(None)
}

fn append(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(4, "append 't1', 'r1', 'cf:q', 'value'")?;
    let table = a.table(0)?;
    let row = a.bytes(1, "row")?;
    let (family, qualifier, _) = parse_column(&a.bytes(2, "column")?);
    let value = a.bytes(3, "value")?;
    let app = Append::new(row).add_column(family, qualifier.unwrap_or_default(), value);
    let result = client(shell, args, shell.client.append(&table, &app))?;
    let current = result.cells.first().map(|c| binary(c.value()));
    w!(out, "CURRENT VALUE = {}", current.unwrap_or_default());
    Ok(None)
}

fn count(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.at_most(1, "count 't1' [, {INTERVAL => 1000}]")?;
    let table = a.table(0)?;
    let interval = a.opt_int("INTERVAL")?.unwrap_or(1000).max(1);
    let interval = usize::try_from(interval).unwrap_or(usize::MAX);
    let (mut s, _) = scan_of(&a)?;
    if s.filter.is_none() {
        s = s.with_filter(
            parse_filter("FirstKeyOnlyFilter() AND KeyOnlyFilter()").map_err(|e| e.to_string())?,
        );
    }
    let mut n = 0usize;
    for row in client(shell, args, shell.client.scan(&table, &s))? {
        let row = row.map_err(|e| hbase_error(shell, e, &first_text(args)))?;
        n += 1;
        if n.is_multiple_of(interval) {
            w!(out, "Current count: {n}, row: {}", binary(&row.row));
        }
    }
    w!(out, "{n} row(s)");
    Ok(Some(Returned::Value(Value::Int(
        i64::try_from(n).unwrap_or(i64::MAX),
    ))))
}

fn get_splits(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let table = Args::new(args).table(0)?;
    let regions = client(shell, args, shell.client.regions(&table))?;
    let splits: Vec<String> = regions
        .iter()
        .map(|r| binary(&r.start_key))
        .filter(|k| !k.is_empty())
        .collect();
    w!(out, "Total number of splits = {}", splits.len() + 1);
    if splits.is_empty() {
        // Ruby's `puts []` prints an empty line.
        w!(out);
    }
    for s in &splits {
        w!(out, "{s}");
    }
    Ok(Some(names_list(&splits)))
}

fn truncate_table(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    keep: bool,
) -> CommandResult {
    let table = Args::new(args).table(0)?;
    w!(out, "Truncating '{table}' table (it may take a while):");
    if client(shell, args, shell.client.is_table_enabled(&table))? {
        w!(out, "Disabling table...");
        client(shell, args, shell.client.disable_table(&table))?;
    }
    w!(out, "Truncating table...");
    client(shell, args, shell.client.truncate_table(&table, keep))?;
    Ok(None)
}

fn truncate(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    truncate_table(shell, args, out, false)
}

fn truncate_preserve(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    truncate_table(shell, args, out, true)
}

// ----------------------------------------------------------------------------------------
// tools

/// The table a tool names: a table name, or a region's full or encoded name.
fn tool_target(shell: &Shell, name: &str) -> R<(TableName, Option<basalt_client::RegionSummary>)> {
    if let Ok(t) = TableName::parse(name)
        && shell.client.table_exists(&t).unwrap_or(false)
    {
        return Ok((t, None));
    }
    let region = find_region(shell, name.as_bytes())?;
    Ok(region)
}

fn find_region(shell: &Shell, name: &[u8]) -> R<(TableName, Option<basalt_client::RegionSummary>)> {
    let tables = shell.client.table_names().map_err(|e| e.to_string())?;
    for t in tables {
        for r in shell.client.regions(&t).map_err(|e| e.to_string())? {
            if r.name[..] == *name || r.encoded_name().as_bytes() == name {
                return Ok((t, Some(r)));
            }
        }
    }
    Err(format!(
        "Unknown table or region {}!",
        String::from_utf8_lossy(name)
    ))
}

fn flush(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).string(0, "table or region name")?;
    let (table, _) = tool_target(shell, &name)?;
    client(shell, args, shell.client.flush(&table))?;
    Ok(None)
}

fn compact_with(shell: &mut Shell, args: &[Value], major: bool) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "table or region name")?;
    let (table, _) = tool_target(shell, &name)?;
    if let Some(family) = a.opt_string(1, "column family")? {
        let desc = client(shell, args, shell.client.describe_table(&table))?;
        if desc.family(family.as_bytes()).is_none() {
            return Err(format!(
                "Column family {family} does not exist in table {table}"
            ));
        }
    }
    client(shell, args, shell.client.compact(&table, major))?;
    Ok(None)
}

fn compact(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    compact_with(shell, args, false)
}

fn major_compact(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    compact_with(shell, args, true)
}

fn split(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "table or region name")?;
    let at = match a.pos.get(1) {
        None | Some(Value::Nil) => None,
        Some(v) => Some(bytes_of(v).ok_or("the split key must be a string")?),
    };
    let (table, region) = tool_target(shell, &name)?;
    match (region, at) {
        (_, Some(at)) => client(shell, args, shell.client.split(&table, Some(&at)))?,
        (None, None) => client(shell, args, shell.client.split(&table, None))?,
        (Some(_), None) => {
            return Err("splitting one region needs a split key: split 'REGION', 'key'".into());
        }
    }
    Ok(None)
}

fn merge_region(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let first = a.string(0, "first region name")?;
    let second = a.string(1, "second region name")?;
    let (table, ra) = find_region(shell, first.as_bytes())?;
    let (table_b, rb) = find_region(shell, second.as_bytes())?;
    if table != table_b {
        return Err(format!(
            "regions {first} and {second} belong to different tables ({table}, {table_b})"
        ));
    }
    let (Some(ra), Some(rb)) = (ra, rb) else {
        return Err("merge_region takes region names".into());
    };
    client(
        shell,
        args,
        shell.client.merge_regions(&table, &ra.name, &rb.name),
    )?;
    Ok(None)
}
