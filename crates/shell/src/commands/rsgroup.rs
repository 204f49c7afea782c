//! The rsgroup group (issue 48): region server groups, as HBase's shell prints them.

use super::*;
use basalt_client::rsgroup::{RsGroupChange, RsGroupInfo};

/// A list of names: one string or an array of them.
fn names(v: Option<&Value>, what: &str) -> R<Vec<String>> {
    let v = v.ok_or_else(|| format!("missing argument: {what}"))?;
    list(v)
        .map(|items| {
            items
                .into_iter()
                .map(|b| String::from_utf8_lossy(&b).into_owned())
                .collect()
        })
        .ok_or_else(|| format!("{what} must be a string or a list of strings"))
}

fn tables(v: Option<&Value>) -> R<Vec<TableName>> {
    names(v, "tables")?
        .iter()
        .map(|t| TableName::parse(t).map_err(|e| e.to_string()))
        .collect()
}

fn change(shell: &mut Shell, args: &[Value], c: RsGroupChange) -> CommandResult {
    client(shell, args, shell.client.change_rsgroups(&c))?;
    Ok(None)
}

fn group(shell: &mut Shell, args: &[Value], name: &str) -> R<RsGroupInfo> {
    client(shell, args, shell.client.list_rsgroups())?
        .into_iter()
        .find(|g| g.name == name)
        .ok_or_else(|| format!("RSGroup {name} does not exist"))
}

pub(super) fn add_rsgroup(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let name = Args::all(args).string(0, "group name")?;
    change(shell, args, RsGroupChange::Add(name))
}

pub(super) fn remove_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let name = Args::all(args).string(0, "group name")?;
    change(shell, args, RsGroupChange::Remove(name))
}

pub(super) fn rename_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::all(args);
    let (from, to) = (
        a.string(0, "old group name")?,
        a.string(1, "new group name")?,
    );
    change(shell, args, RsGroupChange::Rename { from, to })
}

/// `list_rsgroups` (optionally a regular expression): `NAME  SERVER / TABLE`, a row per
/// server and table, as HBase's shell prints them.
pub(super) fn list_rsgroups(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let a = Args::all(args);
    let pattern = matcher(a.opt_string(0, "regular expression")?)?;
    let groups = client(shell, args, shell.client.list_rsgroups())?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["NAME", "SERVER / TABLE"]).map_err(io)?;
    let mut shown = 0;
    for g in groups
        .iter()
        .filter(|g| pattern.as_ref().is_none_or(|p| p.is_match(&g.name)))
    {
        shown += 1;
        let mut name = g.name.as_str();
        let members = g
            .servers
            .iter()
            .map(|s| format!("server {s}"))
            .chain(g.tables.iter().map(|t| format!("table {t}")));
        let mut any = false;
        for member in members {
            f.row2(out, name, &member).map_err(io)?;
            name = "";
            any = true;
        }
        if !any {
            f.row2(out, &g.name, "").map_err(io)?;
        }
    }
    f.footer(out, Some(shown)).map_err(io)?;
    Ok(None)
}

/// `get_rsgroup 'name'`: its servers and its tables.
pub(super) fn get_rsgroup(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::all(args).string(0, "group name")?;
    let g = group(shell, args, &name)?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["SERVERS"]).map_err(io)?;
    for s in &g.servers {
        f.row1(out, s).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    f.header(out, &["TABLES"]).map_err(io)?;
    for t in &g.tables {
        f.row1(out, &t.to_string()).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

fn print_group(shell: &Shell, out: &mut dyn Write, name: &str) -> CommandResult {
    let mut f = Formatter::new(shell.options.width);
    f.row1(out, name).map_err(io)?;
    f.footer(out, None).map_err(io)?;
    Ok(Some(Returned::Value(Value::Str(name.as_bytes().to_vec()))))
}

pub(super) fn get_server_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let server = Args::all(args).string(0, "server (host:port)")?;
    let address = basalt_client::rsgroup::address(&server).map_err(|e| e.to_string())?;
    let groups = client(shell, args, shell.client.list_rsgroups())?;
    let g = groups
        .iter()
        .find(|g| g.servers.contains(&address))
        .ok_or_else(|| format!("Server {address} is in no RSGroup (is it running?)"))?;
    print_group(shell, out, &g.name)
}

pub(super) fn get_table_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let table = Args::all(args).table(0)?;
    let groups = client(shell, args, shell.client.list_rsgroups())?;
    let g = groups
        .iter()
        .find(|g| g.tables.contains(&table))
        .ok_or_else(|| format!("Unknown table {table}!"))?;
    print_group(shell, out, &g.name)
}

pub(super) fn get_namespace_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let ns = Args::all(args).string(0, "namespace")?;
    client(shell, args, shell.client.namespace(&ns))?;
    let groups = client(shell, args, shell.client.list_rsgroups())?;
    let name = groups
        .iter()
        .find(|g| g.namespaces.contains(&ns))
        .map_or(basalt_client::rsgroup::DEFAULT_GROUP, |g| g.name.as_str())
        .to_owned();
    print_group(shell, out, &name)
}

pub(super) fn move_servers_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let to = Args::all(args).string(0, "destination group")?;
    let servers = names(args.get(1), "servers")?;
    change(shell, args, RsGroupChange::MoveServers { to, servers })
}

pub(super) fn move_tables_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let to = Args::all(args).string(0, "destination group")?;
    let tables = tables(args.get(1))?;
    change(shell, args, RsGroupChange::MoveTables { to, tables })
}

pub(super) fn move_namespaces_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let to = Args::all(args).string(0, "destination group")?;
    let namespaces = names(args.get(1), "namespaces")?;
    change(
        shell,
        args,
        RsGroupChange::MoveNamespaces { to, namespaces },
    )
}

pub(super) fn move_servers_tables_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let to = Args::all(args).string(0, "destination group")?;
    let servers = names(args.get(1), "servers")?;
    let tables = tables(args.get(2))?;
    change(
        shell,
        args,
        RsGroupChange::MoveServers {
            to: to.clone(),
            servers,
        },
    )?;
    change(shell, args, RsGroupChange::MoveTables { to, tables })
}

pub(super) fn move_servers_namespaces_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let to = Args::all(args).string(0, "destination group")?;
    let servers = names(args.get(1), "servers")?;
    let namespaces = names(args.get(2), "namespaces")?;
    change(
        shell,
        args,
        RsGroupChange::MoveServers {
            to: to.clone(),
            servers,
        },
    )?;
    change(
        shell,
        args,
        RsGroupChange::MoveNamespaces { to, namespaces },
    )
}

pub(super) fn remove_servers_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let servers = names(args.first(), "servers")?;
    change(shell, args, RsGroupChange::RemoveServers(servers))
}

/// `balance_rsgroup 'name'`: HBase's `Ran the balancer.` or `Couldn't run the balancer.`
pub(super) fn balance_rsgroup(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let name = Args::all(args).string(0, "group name")?;
    let ran = client(shell, args, shell.client.balance_rsgroup(&name))?;
    if ran {
        w!(out, "Ran the balancer.");
    } else {
        w!(out, "Couldn't run the balancer.");
    }
    Ok(Some(Returned::Value(Value::Bool(ran))))
}

/// `alter_rsgroup_config 'name', {METHOD => 'set', 'key' => 'value'}` or `{METHOD =>
/// 'unset', NAME => 'key'}`.
pub(super) fn alter_rsgroup_config(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "group name")?;
    let mut config = group(shell, args, &name)?.config;
    alter_properties(&a, &mut config, "group properties")?;
    change(shell, args, RsGroupChange::Configure { name, config })
}

/// `show_rsgroup_config 'name'`: its properties, `KEY  VALUE`.
pub(super) fn show_rsgroup_config(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let name = Args::all(args).string(0, "group name")?;
    let g = group(shell, args, &name)?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["KEY", "VALUE"]).map_err(io)?;
    for (k, v) in &g.config {
        f.row2(out, k, v).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

/// `update_rsgroup_config 'name'`: each server of the group reads its settings file again.
pub(super) fn update_rsgroup_config(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let name = Args::all(args).string(0, "group name")?;
    let g = group(shell, args, &name)?;
    for server in &g.servers {
        client(shell, args, shell.client.update_config(server))?;
    }
    Ok(None)
}
