//! The quotas group: `set_quota` and `list_quotas` (RPC throttles, issue 48).

use super::*;
use basalt_client::quota::{Change, Direction, Subject, kinds_of, parse_limit};

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
                return Err("space quotas (TYPE => SPACE) are not supported yet".into());
            }
            Some(other) => return Err(format!("TYPE {other} is not THROTTLE or SPACE")),
            None => return Err("set_quota needs TYPE => THROTTLE (or GLOBAL_BYPASS)".into()),
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
    shell.client.set_quota(&who, &change).map_err(|e| match e {
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
    }
    f.footer(out, Some(rows)).map_err(io)?;
    Ok(None)
}
