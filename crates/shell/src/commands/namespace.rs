//! namespace: create, drop, alter, describe and list namespaces and their tables.

use super::*;

pub(super) fn create_namespace(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
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

pub(super) fn drop_namespace(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    on_named(shell, args, "namespace name", |c, name| {
        c.delete_namespace(name)
    })
}

pub(super) fn alter_namespace(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "namespace name")?;
    let mut ns = client(shell, args, shell.client.namespace(&name))?;
    alter_properties(&a, &mut ns.configuration, "namespace properties")?;
    client(shell, args, shell.client.modify_namespace(ns))?;
    Ok(None)
}

pub(super) fn describe_namespace(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
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

pub(super) fn list_namespace(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
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
    print_names(shell, out, "NAMESPACE", &names)
}

pub(super) fn list_namespace_tables(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
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
    print_names(shell, out, "TABLE", &names)
}
