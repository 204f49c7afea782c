//! replication: peers, what they take, and the tables that replicate, as HBase 2.x's shell
//! has them (`add_peer` .. `update_peer_config`, `list_replicated_tables`,
//! `enable_table_replication`).

use basalt_client::prelude::*;
use std::collections::BTreeSet;

use basalt_client::replication::{
    PeerConfig, PeerDescription, TableCfs, append_table_cfs, namespaces_string, remove_table_cfs,
    table_cfs_string,
};

use super::*;

/// `{'t1' => [], 'ns:t2' => ['cf1', 'cf2']}` (a table with no family, or nil, is the whole
/// table).
fn table_cfs(v: &Value, what: &str) -> R<TableCfs> {
    let Value::Hash(pairs) = v else {
        return Err(format!(
            "{what} must be a hash of table names to families, as {{'t1' => [], 'ns:t2' => \
             ['cf1']}}, not {}",
            v.inspect()
        ));
    };
    let mut out = TableCfs::new();
    for (k, families) in pairs {
        let name = text(k).ok_or_else(|| format!("{what}: {} is not a table name", k.inspect()))?;
        let table = TableName::parse(&name).map_err(|e| e.to_string())?;
        let families = match families {
            Value::Nil => Vec::new(),
            other => list(other).ok_or_else(|| {
                format!(
                    "{what}: the families of {name} must be an array of names, not {}",
                    other.inspect()
                )
            })?,
        };
        out.entry(table)
            .or_default()
            .extend(families.into_iter().map(Bytes::from));
    }
    Ok(out)
}

/// `['ns1', 'ns2']`.
fn namespaces(v: &Value, what: &str) -> R<BTreeSet<String>> {
    list(v)
        .map(|names| {
            names
                .into_iter()
                .map(|n| String::from_utf8_lossy(&n).into_owned())
                .collect()
        })
        .ok_or_else(|| {
            format!(
                "{what} must be an array of namespace names, not {}",
                v.inspect()
            )
        })
}

/// A hash of strings (CONFIG, DATA).
fn string_pairs(v: &Value, what: &str) -> R<Vec<(String, String)>> {
    let Value::Hash(pairs) = v else {
        return Err(format!("{what} must be a hash, not {}", v.inspect()));
    };
    pairs
        .iter()
        .map(|(k, v)| match (text(k), bytes_of(v)) {
            (Some(k), Some(v)) => Ok((k, String::from_utf8_lossy(&v).into_owned())),
            _ => Err(format!("{what}: keys and values must be strings")),
        })
        .collect()
}

fn peer_id(a: &Args<'_>) -> R<String> {
    a.string(0, "peer id")
}

/// The shell's words for an error about peer `id`.
fn peer_call<T>(shell: &Shell, id: &str, r: basalt_client::Result<T>) -> R<T> {
    r.map_err(|e| match e {
        Error::TableNotFound(t) => format!("Unknown table {t}!"),
        e => hbase_error(shell, e, id),
    })
}

pub(super) fn add_peer(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let id = peer_id(&a)?;
    if a.opt("CLUSTER_KEY").is_none() && a.opt("ENDPOINT_CLASSNAME").is_none() {
        return Err(
            if args.len() > 1 && !matches!(args.last(), Some(Value::Hash(_))) {
                "args must be a Hash: add_peer 'ID', CLUSTER_KEY => 'zk:2181:/hbase'".into()
            } else {
                "Either ENDPOINT_CLASSNAME or CLUSTER_KEY must be specified.".into()
            },
        );
    }
    a.unknown_options(&[
        "CLUSTER_KEY",
        "ENDPOINT_CLASSNAME",
        "STATE",
        "TABLE_CFS",
        "NAMESPACES",
        "EXCLUDE_TABLE_CFS",
        "EXCLUDE_NAMESPACES",
        "SERIAL",
        "BANDWIDTH",
        "CONFIG",
        "DATA",
        "REPLICATE_ALL",
    ])?;
    let mut config = PeerConfig::new(a.opt_text("CLUSTER_KEY")?.unwrap_or_default());
    config.endpoint = a.opt_text("ENDPOINT_CLASSNAME")?;
    if let Some(v) = a.opt("TABLE_CFS").filter(|v| **v != Value::Nil) {
        config.table_cfs = table_cfs(v, "TABLE_CFS")?;
    }
    if let Some(v) = a.opt("NAMESPACES").filter(|v| **v != Value::Nil) {
        config.namespaces = namespaces(v, "NAMESPACES")?;
    }
    if let Some(v) = a.opt("EXCLUDE_TABLE_CFS").filter(|v| **v != Value::Nil) {
        config.exclude_table_cfs = table_cfs(v, "EXCLUDE_TABLE_CFS")?;
    }
    if let Some(v) = a.opt("EXCLUDE_NAMESPACES").filter(|v| **v != Value::Nil) {
        config.exclude_namespaces = namespaces(v, "EXCLUDE_NAMESPACES")?;
    }
    // As HBase 2's shell: naming tables or namespaces replicates only those.
    config.replicate_all = a
        .opt_bool("REPLICATE_ALL")?
        .unwrap_or(config.table_cfs.is_empty() && config.namespaces.is_empty());
    config.serial = a.opt_bool("SERIAL")?.unwrap_or(false);
    config.bandwidth = bandwidth(a.opt_int("BANDWIDTH")?.unwrap_or(0))?;
    if let Some(v) = a.opt("CONFIG") {
        config.configuration = string_pairs(v, "CONFIG")?.into_iter().collect();
    }
    if let Some(v) = a.opt("DATA") {
        config.data = string_pairs(v, "DATA")?
            .into_iter()
            .map(|(k, v)| (Bytes::from(k), Bytes::from(v)))
            .collect();
    }
    let enabled = match a.opt_text("STATE")?.as_deref() {
        None | Some("ENABLED") => true,
        Some("DISABLED") => false,
        Some(other) => {
            return Err(format!("STATE must be ENABLED or DISABLED, not {other:?}"));
        }
    };
    peer_call(shell, &id, shell.client.add_peer(&id, &config, enabled))?;
    Ok(None)
}

fn bandwidth(n: i64) -> R<u64> {
    u64::try_from(n).map_err(|_| format!("BANDWIDTH must not be negative, got {n}"))
}

pub(super) fn remove_peer(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let id = peer_id(&Args::new(args))?;
    peer_call(shell, &id, shell.client.remove_peer(&id))?;
    Ok(None)
}

pub(super) fn enable_peer(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let id = peer_id(&Args::new(args))?;
    peer_call(shell, &id, shell.client.set_peer_enabled(&id, true))?;
    Ok(None)
}

pub(super) fn disable_peer(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let id = peer_id(&Args::new(args))?;
    peer_call(shell, &id, shell.client.set_peer_enabled(&id, false))?;
    Ok(None)
}

fn peer_ids(peers: &[PeerDescription]) -> Returned {
    names_list(&peers.iter().map(|p| p.id.clone()).collect::<Vec<_>>())
}

pub(super) fn list_peers(shell: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    let peers = shell.client.list_peers().map_err(|e| e.to_string())?;
    let mut f = Formatter::new(shell.options.width);
    f.header(
        out,
        &[
            "PEER_ID",
            "CLUSTER_KEY",
            "ENDPOINT_CLASSNAME",
            "STATE",
            "REPLICATE_ALL",
            "NAMESPACES",
            "TABLE_CFS",
            "BANDWIDTH",
            "SERIAL",
        ],
    )
    .map_err(io)?;
    for p in &peers {
        let c = &p.config;
        let (namespaces, cfs) = if c.replicate_all {
            (&c.exclude_namespaces, &c.exclude_table_cfs)
        } else {
            (&c.namespaces, &c.table_cfs)
        };
        f.row_n(
            out,
            &[
                &p.id,
                &c.cluster_key,
                c.endpoint.as_deref().unwrap_or_default(),
                if p.enabled { "ENABLED" } else { "DISABLED" },
                &c.replicate_all.to_string(),
                &namespaces_string(namespaces),
                &table_cfs_string(cfs),
                &c.bandwidth.to_string(),
                &c.serial.to_string(),
            ],
        )
        .map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(Some(peer_ids(&peers)))
}

/// `Cluster Key`, the endpoint if any, then the peer's CONFIG, a row each (HBase's
/// `format_peer_config`).
fn print_peer_config(f: &mut Formatter, out: &mut dyn Write, c: &PeerConfig) -> R<()> {
    f.row2(out, "Cluster Key", &c.cluster_key).map_err(io)?;
    if let Some(e) = &c.endpoint {
        f.row2(out, "Replication Endpoint", e).map_err(io)?;
    }
    for (k, v) in &c.configuration {
        f.row2(out, k, v).map_err(io)?;
    }
    Ok(())
}

pub(super) fn get_peer_config(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let id = peer_id(&Args::new(args))?;
    let peer = peer_call(shell, &id, shell.client.peer(&id))?;
    let mut f = Formatter::new(shell.options.width);
    print_peer_config(&mut f, out, &peer.config)?;
    Ok(None)
}

pub(super) fn list_peer_configs(
    shell: &mut Shell,
    _: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let peers = shell.client.list_peers().map_err(|e| e.to_string())?;
    let mut f = Formatter::new(shell.options.width);
    for p in &peers {
        f.row2(out, "PeerId", &p.id).map_err(io)?;
        print_peer_config(&mut f, out, &p.config)?;
        f.row1(out, " ").map_err(io)?;
    }
    Ok(Some(peer_ids(&peers)))
}

/// Reads peer `id`, changes its config with `change`, and writes it back.
fn change_config(
    shell: &Shell,
    id: &str,
    change: impl FnOnce(&mut PeerConfig) -> R<()>,
) -> CommandResult {
    let mut config = peer_call(shell, id, shell.client.peer(id))?.config;
    change(&mut config)?;
    peer_call(shell, id, shell.client.update_peer_config(id, &config))?;
    Ok(None)
}

pub(super) fn update_peer_config(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let id = peer_id(&a)?;
    a.unknown_options(&["CONFIG", "DATA"])?;
    let config = a
        .opt("CONFIG")
        .map(|v| string_pairs(v, "CONFIG"))
        .transpose()?;
    let data = a.opt("DATA").map(|v| string_pairs(v, "DATA")).transpose()?;
    // As HBase's: CONFIG and DATA entries are added to (or replace) the peer's.
    change_config(shell, &id, |c| {
        c.configuration.extend(config.unwrap_or_default());
        c.data.extend(
            data.unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (Bytes::from(k), Bytes::from(v))),
        );
        Ok(())
    })
}

pub(super) fn show_peer_table_cfs(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let id = peer_id(&Args::new(args))?;
    let peer = peer_call(shell, &id, shell.client.peer(&id))?;
    let shown = table_cfs_string(&peer.config.table_cfs);
    w!(out, "{shown}");
    Ok(Some(Returned::Value(Value::Str(shown.into_bytes()))))
}

/// The second argument: a table-cfs hash.
fn table_cfs_arg(args: &[Value]) -> R<TableCfs> {
    let v = args.get(1).ok_or("missing argument: table-cfs hash")?;
    table_cfs(v, "table-cfs")
}

fn namespaces_arg(args: &[Value]) -> R<BTreeSet<String>> {
    let v = args.get(1).ok_or("missing argument: array of namespaces")?;
    namespaces(v, "namespaces")
}

/// Which of a peer's lists a command changes: its own, or its exclusions.
#[derive(Clone, Copy)]
enum Which {
    Included,
    Excluded,
}

fn cfs_of(c: &mut PeerConfig, which: Which) -> &mut TableCfs {
    match which {
        Which::Included => &mut c.table_cfs,
        Which::Excluded => &mut c.exclude_table_cfs,
    }
}

fn namespaces_of(c: &mut PeerConfig, which: Which) -> &mut BTreeSet<String> {
    match which {
        Which::Included => &mut c.namespaces,
        Which::Excluded => &mut c.exclude_namespaces,
    }
}

/// set_peer_tableCFs and set_peer_exclude_tableCFs. Setting table-cfs on a peer that
/// replicates everything is refused by the config check, as HBase's.
fn set_cfs(shell: &Shell, args: &[Value], which: Which) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let cfs = match args.get(1) {
        None | Some(Value::Nil) => TableCfs::new(),
        Some(_) => table_cfs_arg(args)?,
    };
    change_config(shell, &id, |c| {
        *cfs_of(c, which) = cfs;
        Ok(())
    })
}

fn append_cfs(shell: &Shell, args: &[Value], which: Which) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let cfs = table_cfs_arg(args)?;
    change_config(shell, &id, |c| {
        append_table_cfs(cfs_of(c, which), &cfs);
        Ok(())
    })
}

fn remove_cfs(shell: &Shell, args: &[Value], which: Which) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let cfs = table_cfs_arg(args)?;
    change_config(shell, &id, |c| {
        remove_table_cfs(cfs_of(c, which), &cfs, &id).map_err(|e| hbase_error(shell, e, &id))
    })
}

fn set_namespaces(shell: &Shell, args: &[Value], which: Which) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let names = namespaces_arg(args)?;
    change_config(shell, &id, |c| {
        *namespaces_of(c, which) = names;
        Ok(())
    })
}

fn append_namespaces(shell: &Shell, args: &[Value], which: Which) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let names = namespaces_arg(args)?;
    change_config(shell, &id, |c| {
        namespaces_of(c, which).extend(names);
        Ok(())
    })
}

fn remove_namespaces(shell: &Shell, args: &[Value], which: Which) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let names = namespaces_arg(args)?;
    change_config(shell, &id, |c| {
        let have = namespaces_of(c, which);
        for n in &names {
            have.remove(n);
        }
        Ok(())
    })
}

macro_rules! list_commands {
    ($($name:ident => $run:ident($which:ident);)*) => {
        $(pub(super) fn $name(
            shell: &mut Shell,
            args: &[Value],
            _: &mut dyn Write,
        ) -> CommandResult {
            $run(shell, args, Which::$which)
        })*
    };
}

list_commands! {
    set_peer_table_cfs => set_cfs(Included);
    append_peer_table_cfs => append_cfs(Included);
    remove_peer_table_cfs => remove_cfs(Included);
    set_peer_exclude_table_cfs => set_cfs(Excluded);
    append_peer_exclude_table_cfs => append_cfs(Excluded);
    remove_peer_exclude_table_cfs => remove_cfs(Excluded);
    set_peer_namespaces => set_namespaces(Included);
    append_peer_namespaces => append_namespaces(Included);
    remove_peer_namespaces => remove_namespaces(Included);
    set_peer_exclude_namespaces => set_namespaces(Excluded);
    append_peer_exclude_namespaces => append_namespaces(Excluded);
    remove_peer_exclude_namespaces => remove_namespaces(Excluded);
}

/// `set_peer_replicate_all 'id', true|false`.
pub(super) fn set_peer_replicate_all(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    set_flag(shell, args, "replicate_all", |c| &mut c.replicate_all)
}

pub(super) fn set_peer_serial(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    set_flag(shell, args, "serial", |c| &mut c.serial)
}

/// `<command> 'id', true|false`: sets the flag `field` picks.
fn set_flag(
    shell: &Shell,
    args: &[Value],
    what: &str,
    field: fn(&mut PeerConfig) -> &mut bool,
) -> CommandResult {
    let id = peer_id(&Args::all(args))?;
    let on = bool_at(args, 1, what)?;
    change_config(shell, &id, |c| {
        *field(c) = on;
        Ok(())
    })
}

pub(super) fn set_peer_bandwidth(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::all(args);
    let id = peer_id(&a)?;
    // No figure: no limit, as HBase's shell.
    let limit = bandwidth(a.int(1, "bandwidth")?.unwrap_or(0))?;
    change_config(shell, &id, |c| {
        c.bandwidth = limit;
        Ok(())
    })
}

pub(super) fn peer_modification_switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = bool_at(args, 0, "peer modification's state")?;
    let was = shell
        .client
        .peer_modification_switch(on)
        .map_err(|e| e.to_string())?;
    let mut f = Formatter::new(shell.options.width);
    f.row1(out, &format!("Previous peer modification state : {was}"))
        .map_err(io)?;
    Ok(Some(Returned::Value(Value::Bool(was))))
}

pub(super) fn peer_modification_enabled(
    shell: &mut Shell,
    _: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = shell
        .client
        .peer_modification_enabled()
        .map_err(|e| e.to_string())?;
    w!(out, "{on}");
    Ok(Some(Returned::Value(Value::Bool(on))))
}

/// Every family with a replication scope, of the tables matching `regex`: `t:cf  GLOBAL`.
pub(super) fn list_replicated_tables(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let re = matcher(Args::new(args).opt_string(0, "regular expression")?)?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["TABLE:COLUMNFAMILY", "ReplicationType"])
        .map_err(io)?;
    let mut found = Vec::new();
    for table in shell.client.table_names().map_err(|e| e.to_string())? {
        if re.as_ref().is_some_and(|r| !r.is_match(&table.to_string())) {
            continue;
        }
        let d = shell
            .client
            .describe_table(&table)
            .map_err(|e| e.to_string())?;
        for family in d.families().iter().filter(|f| f.replication_scope != 0) {
            let name = format!("{table}:{}", family.name_str());
            f.row2(out, &name, "GLOBAL").map_err(io)?;
            found.push(name);
        }
    }
    f.footer(out, None).map_err(io)?;
    Ok(Some(names_list(&found)))
}

/// Sets every family of the table to replicate (scope 1), after making the table on every
/// peer that lacks it, with the same families (HBase's `Admin.enableTableReplication`).
pub(super) fn enable_table_replication(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let table = Args::new(args).table(0)?;
    let d = client(shell, args, shell.client.describe_table(&table))?;
    for peer in shell.client.list_peers().map_err(|e| e.to_string())? {
        if !peer.config.replicates_table(&table) {
            continue;
        }
        let remote = basalt_client::remote::RemoteConnection::to_cluster_key(
            &peer.config.cluster_key,
            basalt_client::remote::RemoteConfig::default(),
        )
        .map_err(|e| format!("peer {}: {e}", peer.id))?;
        let admin = remote.admin();
        if admin.table_exists(&table).map_err(|e| e.to_string())? {
            let theirs = admin.describe_table(&table).map_err(|e| e.to_string())?;
            let names = |d: &TableDescriptor| -> Vec<Bytes> {
                d.families().iter().map(|f| f.name.clone()).collect()
            };
            if names(&theirs) != names(&d) {
                return Err(format!(
                    "Table {table} exists in peer cluster {}, but the table descriptors are \
                     not same when compared with source cluster. Thus can not enable the \
                     table's replication switch.",
                    peer.id
                ));
            }
        } else {
            let splits: Vec<Bytes> = shell
                .client
                .regions(&table)
                .map_err(|e| e.to_string())?
                .into_iter()
                .skip(1)
                .map(|r| r.start_key)
                .collect();
            admin
                .create_table(with_scope(&d, 0), &splits)
                .map_err(|e| format!("creating {table} on peer {}: {e}", peer.id))?;
        }
    }
    set_scope(shell, args, &d, 1)
}

pub(super) fn disable_table_replication(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let table = Args::new(args).table(0)?;
    let d = client(shell, args, shell.client.describe_table(&table))?;
    set_scope(shell, args, &d, 0)
}

/// `d` with every family's REPLICATION_SCOPE `scope`.
fn with_scope(d: &TableDescriptor, scope: u32) -> TableDescriptor {
    let mut out = d.clone();
    for f in d.families() {
        let mut f = f.clone();
        f.replication_scope = scope;
        out.remove_family(&f.name);
        out.add_family(f);
    }
    out
}

fn set_scope(shell: &Shell, args: &[Value], d: &TableDescriptor, scope: u32) -> CommandResult {
    if d.families().iter().all(|f| f.replication_scope == scope) {
        return Ok(None);
    }
    client(shell, args, shell.client.modify_table(with_scope(d, scope)))?;
    Ok(None)
}
