//! security: grant, revoke and user_permission, as HBase's shell has them.

use basalt_common::acl::{Actions, Permission, Scope};

use super::*;

/// The scope named by the arguments from `at`: nothing (global), `'@ns'`, or
/// `'table'[, 'family'[, 'qualifier']]`.
fn scope(a: &Args<'_>, at: usize) -> R<Scope> {
    let Some(target) = a.opt_string(at, "table or @namespace")? else {
        return Ok(Scope::Global);
    };
    if let Some(ns) = target.strip_prefix('@') {
        return Ok(Scope::Namespace(ns.to_owned()));
    }
    let table = TableName::parse(&target).map_err(|e| e.to_string())?;
    let family = a.opt_string(at + 1, "column family")?;
    let qualifier = a.opt_string(at + 2, "column qualifier")?;
    if qualifier.is_some() && family.is_none() {
        return Err("a qualifier needs a family".into());
    }
    Ok(Scope::Table {
        table,
        family: family.map(|f| Bytes::from(f.into_bytes())),
        qualifier: qualifier.map(|q| Bytes::from(q.into_bytes())),
    })
}

pub(super) fn grant(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let principal = a.string(0, "user or @group")?;
    let actions =
        Actions::parse(&a.string(1, "permissions (RWXCA)")?).map_err(|e| e.to_string())?;
    let p = Permission {
        principal,
        scope: scope(&a, 2)?,
        actions,
    };
    client(shell, args, shell.client.grant(&p, false))?;
    Ok(None)
}

pub(super) fn revoke(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let principal = a.string(0, "user or @group")?;
    let scope = scope(&a, 1)?;
    client(shell, args, shell.client.revoke(&principal, &scope))?;
    Ok(None)
}

/// HBase's listing: `User  Namespace,Table,Family,Qualifier:Permission`, one line per grant.
pub(super) fn user_permission(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let scope = scope(&a, 0)?;
    let found = client(shell, args, shell.client.user_permissions(&scope))?;
    w!(
        out,
        "User{:28}Namespace,Table,Family,Qualifier:Permission",
        ""
    );
    for p in &found {
        let place = match &p.scope {
            Scope::Global => ",,,".to_owned(),
            Scope::Namespace(ns) => format!("{ns},,,"),
            Scope::Table {
                table,
                family,
                qualifier,
            } => format!(
                "{},{},{},{}",
                table.namespace(),
                table.qualifier(),
                family
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default(),
                qualifier
                    .as_deref()
                    .map(String::from_utf8_lossy)
                    .unwrap_or_default()
            ),
        };
        let names: Vec<&str> = p.actions.iter().map(|a| a.name()).collect();
        w!(
            out,
            " {:<31}{place}: [Permission: actions={}]",
            p.principal,
            names.join(",")
        );
    }
    w!(
        out,
        "{} row{}",
        found.len(),
        if found.len() == 1 { "" } else { "s" }
    );
    Ok(None)
}
