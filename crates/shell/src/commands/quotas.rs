//! The quotas group (issue 48): `set_quota` and `list_quotas` (RPC throttles and space
//! quotas), the throttle switches, and the space use listings.

use super::*;
use basalt_client::quota::{
    Change, Direction, QuotaSwitch, SpacePolicy, SpaceQuota, SpaceSnapshot, Subject, kinds_of,
    parse_limit, parse_size,
};

/// Who a `set_quota` names: USER (optionally with TABLE or NAMESPACE), TABLE, NAMESPACE or
/// REGIONSERVER.
fn subject(a: &Args<'_>) -> R<Subject> {
    let table = a
        .opt_text("TABLE")?
        .map(|t| TableName::parse(&t).map_err(|e| e.to_string()))
        .transpose()?;
    let user = a.opt_text("USER")?;
    let namespace = a.opt_text("NAMESPACE")?;
    let server = a.opt_text("REGIONSERVER")?;
    Ok(match (user, table, namespace, server) {
        (Some(u), None, None, None) => Subject::User(u),
        (Some(u), Some(t), None, None) => Subject::UserOnTable(u, t),
        (Some(u), None, Some(ns), None) => Subject::UserOnNamespace(u, ns),
        (None, Some(t), None, None) => Subject::Table(t),
        (None, None, Some(ns), None) => Subject::Namespace(ns),
        (None, None, None, Some(s)) => Subject::RegionServer(s),
        _ => {
            return Err(
                "a quota is for a USER (optionally with a TABLE or NAMESPACE), a TABLE, \
                        a NAMESPACE or a REGIONSERVER"
                    .into(),
            );
        }
    })
}

/// `set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10req/sec'` (and TABLE, NAMESPACE,
/// REGIONSERVER, THROTTLE_TYPE => READ | WRITE, LIMIT => NONE), or `set_quota USER => 'u1',
/// GLOBAL_BYPASS => true`.
pub(super) fn set_quota(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.unknown_options(&[
        "TYPE",
        "USER",
        "TABLE",
        "NAMESPACE",
        "REGIONSERVER",
        "THROTTLE_TYPE",
        "LIMIT",
        "GLOBAL_BYPASS",
        "POLICY",
    ])?;
    let who = subject(&a)?;
    let change = if let Some(bypass) = a.opt_bool("GLOBAL_BYPASS")? {
        Change::BypassGlobals(bypass)
    } else {
        match a.opt_text("TYPE")?.as_deref() {
            Some("THROTTLE") => {}
            Some("SPACE") => {
                let change = space_change(&a)?;
                return apply(shell, &who, &change);
            }
            Some(other) => return Err(format!("TYPE {other} is not THROTTLE or SPACE")),
            None => {
                return Err("set_quota needs TYPE => THROTTLE or SPACE (or GLOBAL_BYPASS)".into());
            }
        }
        let direction =
            Direction::parse(a.opt_text("THROTTLE_TYPE")?.as_deref()).map_err(|e| e.to_string())?;
        match a.opt_text("LIMIT")?.as_deref() {
            None => return Err("a throttle needs a LIMIT (e.g. '10req/sec', or NONE)".into()),
            Some("NONE") => Change::Unthrottle(kinds_of(direction)),
            Some(limit) => {
                Change::Throttle(parse_limit(limit, direction).map_err(|e| e.to_string())?)
            }
        }
    };
    apply(shell, &who, &change)
}

/// `set_quota TYPE => SPACE, TABLE => 't1', LIMIT => '1G', POLICY => NO_INSERTS` (or a
/// NAMESPACE; `LIMIT => NONE` removes it).
fn space_change(a: &Args<'_>) -> R<Change> {
    if a.opt_text("THROTTLE_TYPE")?.is_some() {
        return Err("THROTTLE_TYPE is for TYPE => THROTTLE, not SPACE".into());
    }
    match a.opt_text("LIMIT")?.as_deref() {
        None => Err("a space quota needs a LIMIT (e.g. '10G', or NONE)".into()),
        Some("NONE") => Ok(Change::Unspace),
        Some(limit) => {
            let policy = a.opt_text("POLICY")?.ok_or(
                "a space quota needs a POLICY (NO_INSERTS, NO_WRITES, NO_WRITES_COMPACTIONS or \
                 DISABLE)",
            )?;
            Ok(Change::Space(SpaceQuota {
                limit: parse_size(limit).map_err(|e| e.to_string())?,
                policy: SpacePolicy::parse(&policy).map_err(|e| e.to_string())?,
            }))
        }
    }
}

fn apply(shell: &mut Shell, who: &Subject, change: &Change) -> CommandResult {
    shell.client.set_quota(who, change).map_err(|e| match e {
        // The shell's usual wording names the first argument, here a hash.
        basalt_client::Error::TableNotFound(t) => format!("Unknown table {t}!"),
        e => e.to_string(),
    })?;
    Ok(None)
}

/// `list_quotas`: `OWNER  QUOTAS`, a row per throttle (and per bypass), as HBase prints them.
pub(super) fn list_quotas(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    Args::all(args).at_most(0, "list_quotas")?;
    let quotas = client(shell, args, shell.client.list_quotas())?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["OWNER", "QUOTAS"]).map_err(io)?;
    let mut rows = 0;
    for (who, q) in &quotas {
        let owner = who.to_string();
        if q.bypass_globals {
            f.row2(out, &owner, "GLOBAL_BYPASS => true").map_err(io)?;
            rows += 1;
        }
        for t in &q.throttles {
            f.row2(out, &owner, &t.to_string()).map_err(io)?;
            rows += 1;
        }
        if let Some(space) = &q.space {
            // HBase's SpaceLimitSettings names its owner again after the type.
            let text =
                space
                    .to_string()
                    .replacen("TYPE => SPACE", &format!("TYPE => SPACE, {owner}"), 1);
            f.row2(out, &owner, &text).map_err(io)?;
            rows += 1;
        }
    }
    f.footer(out, Some(rows)).map_err(io)?;
    Ok(None)
}

pub(super) fn switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    which: QuotaSwitch,
    on: bool,
) -> CommandResult {
    Args::all(args).at_most(0, "the switch")?;
    let was = client(shell, args, shell.client.quota_switch(which, on))?;
    match which {
        QuotaSwitch::RpcThrottle => w!(out, "Previous rpc throttle state : {was}"),
        QuotaSwitch::ExceedThrottle => w!(out, "Previous exceed throttle quota enabled : {was}"),
    }
    Ok(Some(Returned::Value(Value::Bool(was))))
}

/// `list_quota_table_sizes`: every user table's store file bytes as the region servers
/// report them (HBase's `TABLE  SIZE`).
pub(super) fn list_quota_table_sizes(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    Args::all(args).at_most(0, "list_quota_table_sizes")?;
    let used = client(shell, args, shell.client.space_use())?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["TABLE", "SIZE"]).map_err(io)?;
    for (table, size) in &used.sizes {
        f.row2(out, &table.to_string(), &size.to_string())
            .map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

/// The snapshot rows: `TABLE USAGE LIMIT IN_VIOLATION POLICY`, as HBase's
/// `list_quota_snapshots` prints them, for the tables `keep` picks.
fn snapshot_rows(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    keep: impl Fn(&TableName, &SpaceSnapshot) -> bool,
) -> CommandResult {
    let used = client(shell, args, shell.client.space_use())?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["TABLE", "USAGE", "LIMIT", "IN_VIOLATION", "POLICY"])
        .map_err(io)?;
    for (table, s) in used.tables.iter().filter(|(t, s)| keep(t, s)) {
        f.row_n(
            out,
            &[
                &table.to_string(),
                &s.usage.to_string(),
                &s.limit.to_string(),
                &s.in_violation.to_string(),
                if s.in_violation {
                    s.policy.name()
                } else {
                    "None"
                },
            ],
        )
        .map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

/// `list_quota_snapshots` (optionally `{TABLE => 't1'}` or `{NAMESPACE => 'ns1'}`): each
/// table's space use against its quota, as the master last worked it out.
pub(super) fn list_quota_snapshots(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    a.unknown_options(&["TABLE", "NAMESPACE"])?;
    let table = a
        .opt_text("TABLE")?
        .map(|t| TableName::parse(&t).map_err(|e| e.to_string()))
        .transpose()?;
    let namespace = a.opt_text("NAMESPACE")?;
    snapshot_rows(shell, args, out, |t, _| {
        table.as_ref().is_none_or(|want| want == t)
            && namespace.as_deref().is_none_or(|ns| ns == t.namespace())
    })
}

/// `list_quota_violations`: the tables whose space quota's policy is in force.
pub(super) fn list_quota_violations(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    Args::all(args).at_most(0, "list_quota_violations")?;
    snapshot_rows(shell, args, out, |_, s| s.in_violation)
}
