//! snapshots: snapshot, list_snapshots, list_table_snapshots, clone_snapshot, restore_snapshot,
//! delete_snapshot, as HBase's shell has them.

use super::*;

/// `Time.at(seconds).to_s` of Ruby, which HBase's listing prints: `2026-11-26 07:36:21 +0000`.
pub(super) fn creation_time(ms: i64) -> String {
    let (y, m, d, h, mi, s, _) = crate::format::utc(ms);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02} +0000")
}

pub(super) fn snapshot(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.unknown_options(&["TTL"])?;
    let table = TableName::parse(&a.string(0, "table name")?).map_err(|e| e.to_string())?;
    let name = a.string(1, "snapshot name")?;
    match a.opt_int("TTL")? {
        Some(ttl) => client(
            shell,
            args,
            shell.client.snapshot_with_ttl(&name, &table, ttl),
        )?,
        None => client(shell, args, shell.client.snapshot(&name, &table))?,
    }
    Ok(None)
}

pub(super) fn clone_snapshot(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let name = a.string(0, "snapshot name")?;
    let table = TableName::parse(&a.string(1, "table name")?).map_err(|e| e.to_string())?;
    // Errors name the new table (the second argument), as HBase's do.
    let table_first = args.get(1..).unwrap_or(args);
    client(
        shell,
        table_first,
        shell.client.clone_snapshot(&name, &table),
    )?;
    Ok(None)
}

pub(super) fn restore_snapshot(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    on_named(shell, args, "snapshot name", |c, name| {
        c.restore_snapshot(name)
    })
}

pub(super) fn delete_snapshot(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    on_named(shell, args, "snapshot name", |c, name| {
        c.delete_snapshot(name)
    })
}

/// `SNAPSHOT  TABLE + CREATION TIME`, one row per snapshot; returns their names.
fn print_snapshots(
    shell: &Shell,
    out: &mut dyn Write,
    keep: impl Fn(&basalt_client::SnapshotInfo) -> bool,
) -> CommandResult {
    let found: Vec<_> = shell
        .client
        .list_snapshots()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|s| keep(s))
        .collect();
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["SNAPSHOT", "TABLE + CREATION TIME"])
        .map_err(io)?;
    for s in &found {
        let when = format!("{} ({})", s.table, creation_time(s.creation_time));
        f.row2(out, &s.name, &when).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    let names: Vec<String> = found.into_iter().map(|s| s.name).collect();
    Ok(Some(names_list(&names)))
}

pub(super) fn list_snapshots(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let re = matcher(Args::new(args).opt_string(0, "regular expression")?)?;
    print_snapshots(shell, out, |s| {
        re.as_ref().is_none_or(|r| r.is_match(&s.name))
    })
}

pub(super) fn list_table_snapshots(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let tables = matcher(Some(a.string(0, "table name or regular expression")?))?;
    let names = matcher(a.opt_string(1, "snapshot name regular expression")?)?;
    print_snapshots(shell, out, |s| {
        tables
            .as_ref()
            .is_none_or(|r| r.is_match(&s.table.to_string()))
            && names.as_ref().is_none_or(|r| r.is_match(&s.name))
    })
}

/// Deletes the snapshots `keep` picks after listing them and asking (HBase's
/// `delete_all_snapshot`, `delete_table_snapshots`).
fn delete_picked(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    nothing: &str,
    keep: impl Fn(&basalt_client::SnapshotInfo) -> bool,
) -> CommandResult {
    let found: Vec<_> = client(shell, args, shell.client.list_snapshots())?
        .into_iter()
        .filter(|s| keep(s))
        .collect();
    if found.is_empty() {
        w!(out, "{nothing}");
        return Ok(None);
    }
    let table = |shell: &Shell, out: &mut dyn Write, list: &[&basalt_client::SnapshotInfo]| {
        let mut f = Formatter::new(shell.options.width);
        f.header(out, &["SNAPSHOT", "TABLE + CREATION TIME"])
            .map_err(io)?;
        for s in list {
            let when = format!("{} ({})", s.table, creation_time(s.creation_time));
            f.row2(out, &s.name, &when).map_err(io)?;
        }
        f.footer(out, None).map_err(io)
    };
    let all: Vec<&basalt_client::SnapshotInfo> = found.iter().collect();
    if shell.answer.is_none() {
        table(shell, out, &all)?;
    }
    let question = format!("\nDelete the above {} snapshots (y/n)?", found.len());
    if !super::confirm(shell, out, &question)? {
        return Ok(None);
    }
    let (mut deleted, mut failed) = (Vec::new(), Vec::new());
    for s in &found {
        match shell.client.delete_snapshot(&s.name) {
            Ok(()) => deleted.push(s),
            Err(_) => failed.push(s),
        }
    }
    if !deleted.is_empty() {
        table(shell, out, &deleted)?;
        w!(out, "{} snapshots successfully deleted.", deleted.len());
    }
    if !failed.is_empty() {
        w!(
            out,
            "\nFailed to delete the below {} snapshots.",
            failed.len()
        );
        table(shell, out, &failed)?;
    }
    Ok(None)
}

/// `delete_all_snapshot 'regex'`.
pub(super) fn delete_all_snapshot(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let pattern = Args::new(args).string(0, "snapshot name regular expression")?;
    let re = matcher(Some(pattern.clone()))?.ok_or("a regular expression is needed")?;
    let nothing = format!("No snapshots matched the regex {pattern}");
    delete_picked(shell, args, out, &nothing, |s| re.is_match(&s.name))
}

/// `delete_table_snapshots 'tableRegex'[, 'snapshotRegex']`.
pub(super) fn delete_table_snapshots(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let a = Args::new(args);
    let tables = matcher(Some(a.string(0, "table name regular expression")?))?;
    let names = matcher(a.opt_string(1, "snapshot name regular expression")?)?;
    delete_picked(shell, args, out, "No snapshots matched", |s| {
        tables
            .as_ref()
            .is_none_or(|r| r.is_match(&s.table.to_string()))
            && names.as_ref().is_none_or(|r| r.is_match(&s.name))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn creation_times_print_as_ruby_prints_them() {
        assert_eq!(
            super::creation_time(1_795_678_581_999),
            "2026-11-26 07:36:21 +0000"
        );
        assert_eq!(super::creation_time(0), "1970-01-01 00:00:00 +0000");
    }
}
