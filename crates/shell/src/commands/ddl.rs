//! ddl: create, alter, describe, enable / disable / drop, exists, list, regions, table handles.

use super::*;

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
            // Key layouts (issue 34): `SALT => {BUCKETS => 16}`, `TIME_BUCKETS => {BUCKETS =>
            // 8}`, `HASH_PREFIX => {ALGORITHM => 'MD5', BYTES => 4}`, `REVERSE => true`.
            ("SALT" | "TIME_BUCKETS" | "HASH_PREFIX" | "REVERSE", v) => {
                let options = match v {
                    Value::Hash(map) => map
                        .iter()
                        .map(|(k, v)| match (text(k), text(v)) {
                            (Some(k), Some(v)) => Ok(format!(" {k}={v}")),
                            _ => Err(format!("{key} options are NAME => value")),
                        })
                        .collect::<R<String>>()?,
                    Value::Bool(true) => String::new(),
                    other => {
                        return Err(format!(
                            "{key} takes a hash of options (or true for REVERSE), not {}",
                            other.inspect()
                        ));
                    }
                };
                let layout =
                    basalt_common::key_layout::KeyLayout::parse(&format!("{key}{options}"))
                        .map_err(|e| e.to_string())?;
                desc.metadata.insert(
                    basalt_common::key_layout::METADATA_KEY.to_owned(),
                    layout.text(),
                );
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

pub(super) fn create(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
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

pub(super) fn alter(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = apply_alter(shell, args)?;
    w!(out, "Updating all regions with the new schema...");
    print_alter_status(shell, args, out, &name)
}

/// `alter_async`: the same change, without waiting to say how the regions took it (Basalt's
/// alter has reopened them all when it answers; `alter_status` says so).
pub(super) fn alter_async(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    apply_alter(shell, args)?;
    Ok(None)
}

/// `alter_status 't1'`: how many of the table's regions have the new schema.
pub(super) fn alter_status(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let name = Args::all(args).table(0)?;
    print_alter_status(shell, args, out, &name)
}

fn print_alter_status(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    name: &TableName,
) -> CommandResult {
    let (yet, total) = client(shell, args, shell.client.alter_status(name))?;
    w!(
        out,
        "{}/{total} regions updated.",
        total.saturating_sub(yet)
    );
    w!(out, "Done.");
    Ok(None)
}

fn apply_alter(shell: &mut Shell, args: &[Value]) -> R<TableName> {
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
    Ok(name)
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

pub(super) fn describe(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
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

pub(super) fn disable(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    client(shell, args, shell.client.disable_table(&name))?;
    Ok(None)
}

pub(super) fn enable(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    client(shell, args, shell.client.enable_table(&name))?;
    Ok(None)
}

pub(super) fn drop(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    match shell.client.delete_table(&name) {
        Err(Error::TableNotDisabled(_)) => {
            Err(format!("Table {name} is enabled. Disable it first."))
        }
        other => client(shell, args, other).map(|()| None),
    }
}

pub(super) fn exists(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let found = client(shell, args, shell.client.table_exists(&name))?;
    let does = if found { "does" } else { "does not" };
    w!(out, "Table {name} {does} exist");
    Ok(Some(Returned::Value(Value::Bool(found))))
}

pub(super) fn is_enabled(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let on = client(shell, args, shell.client.is_table_enabled(&name))?;
    w!(out, "{on}");
    Ok(Some(Returned::Value(Value::Bool(on))))
}

pub(super) fn is_disabled(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let off = !client(shell, args, shell.client.is_table_enabled(&name))?;
    w!(out, "{off}");
    Ok(Some(Returned::Value(Value::Bool(off))))
}

pub(super) fn list_tables(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
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
    print_names(shell, out, "TABLE", &names)
}

pub(super) fn list_regions(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let name = Args::new(args).table(0)?;
    let regions = client(shell, args, shell.client.regions(&name))?;
    let sizes = client(shell, args, shell.client.region_sizes(&name))?;
    // HBase's REQ: the region's read and write requests, as its server reports them.
    let requests: std::collections::HashMap<Bytes, u64> = shell
        .client
        .cluster_summary()
        .map(|s| {
            s.servers
                .iter()
                .flat_map(|server| &server.regions)
                .map(|r| (r.name.clone(), r.read_requests + r.write_requests))
                .collect()
        })
        .unwrap_or_default();
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
                r.server.clone().unwrap_or_else(|| server.clone()),
                binary(&r.name),
                binary(&r.start_key),
                binary(&r.end_key),
                sizes.get(&r.name).map_or(0, |s| s >> 20).to_string(),
                requests.get(&r.name).copied().unwrap_or(0).to_string(),
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

pub(super) fn get_table(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::new(args).table(0)?;
    if !client(shell, args, shell.client.table_exists(&name))? {
        return Err(format!("Unknown table {name}!"));
    }
    Ok(Some(Returned::Table(name)))
}

pub(super) fn show_filters(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
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

/// `clone_table_schema 't1', 't2'` (and `false` not to keep the split keys): a new empty table
/// with `t1`'s schema and, by default, its region boundaries.
pub(super) fn clone_table_schema(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::all(args);
    let from = a.table(0)?;
    let to = a.table(1)?;
    let keep_splits = match args.get(2) {
        None => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "preserve_splits must be true or false, not {}",
                other.inspect()
            ));
        }
    };
    let mut d = client(shell, args, shell.client.describe_table(&from))?;
    let splits: Vec<Bytes> = if keep_splits {
        client(shell, args, shell.client.regions(&from))?
            .into_iter()
            .skip(1)
            .map(|r| r.start_key)
            .collect()
    } else {
        Vec::new()
    };
    d.name = to;
    // Errors name the new table (the second argument), as HBase's do.
    client(
        shell,
        args.get(1..).unwrap_or(args),
        shell.client.create_table(d, &splits),
    )?;
    Ok(None)
}

/// `locate_region 't1', 'row'`: the server and region holding the row.
pub(super) fn locate_region(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let a = Args::all(args);
    let table = a.table(0)?;
    let row = a.bytes(1, "row key")?;
    let regions = client(shell, args, shell.client.regions(&table))?;
    let region = regions
        .iter()
        .rev()
        .find(|r| r.start_key <= row)
        .ok_or_else(|| format!("no region of {table} holds the row"))?;
    let host = region
        .server
        .clone()
        .unwrap_or_else(|| shell.client.server_name());
    let host_port = match host.split(',').collect::<Vec<_>>().as_slice() {
        [h, p, _] => format!("{h}:{p}"),
        _ => host,
    };
    let shown = format!(
        "{{ENCODED => {}, NAME => '{}', STARTKEY => '{}', ENDKEY => '{}'}}",
        region.encoded_name(),
        binary(&region.name),
        binary(&region.start_key),
        binary(&region.end_key)
    );
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["HOST", "REGION"]).map_err(io)?;
    f.row2(out, &host_port, &shown).map_err(io)?;
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

/// What `enable_all`, `disable_all` and `drop_all` do to each table.
#[derive(Clone, Copy)]
enum Bulk {
    Enable,
    Disable,
    Drop,
}

/// `enable_all`, `disable_all`, `drop_all 'regex'`: the matching tables listed, a question,
/// and on `y` the change to each, as HBase's shell does.
fn all_tables(shell: &mut Shell, args: &[Value], out: &mut dyn Write, what: Bulk) -> CommandResult {
    let a = Args::all(args);
    let pattern = a.string(0, "regular expression")?;
    let re = matcher(Some(pattern.clone()))?.ok_or("a regular expression is needed")?;
    let names: Vec<TableName> = client(shell, args, shell.client.table_names())?
        .into_iter()
        .filter(|t| re.is_match(&t.to_string()))
        .collect();
    if names.is_empty() {
        w!(out, "No tables matched the regex {pattern}");
        return Ok(None);
    }
    let (verb, done) = match what {
        Bulk::Enable => ("Enable", "enabled"),
        Bulk::Disable => ("Disable", "disabled"),
        Bulk::Drop => ("Drop", "dropped"),
    };
    if shell.answer.is_none() {
        for n in &names {
            w!(out, "{n}");
        }
    }
    let question = format!("\n{verb} the above {} tables (y/n)?", names.len());
    if !super::confirm(shell, out, &question)? {
        return Ok(None);
    }
    let mut failed = Vec::new();
    for n in &names {
        let r = match what {
            Bulk::Enable => shell.client.enable_table(n),
            Bulk::Disable => shell.client.disable_table(n),
            Bulk::Drop => shell.client.delete_table(n),
        };
        if r.is_err() {
            failed.push(n.to_string());
        }
    }
    w!(
        out,
        "{} tables successfully {done}",
        names.len() - failed.len()
    );
    if !failed.is_empty() {
        w!(
            out,
            "{} tables not {done} due to an exception: {}",
            failed.len(),
            failed.join(",")
        );
    }
    Ok(None)
}

pub(super) fn enable_all(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    all_tables(shell, args, out, Bulk::Enable)
}

pub(super) fn disable_all(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    all_tables(shell, args, out, Bulk::Disable)
}

pub(super) fn drop_all(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    all_tables(shell, args, out, Bulk::Drop)
}
