//! general: status, version, whoami, help, table_help.

use super::*;

pub(super) fn status(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
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
            summary.dead_servers()
        ),
        "simple" | "detailed" => {
            // `host,port,startcode` -> `host:port startcode`, as HBase prints a server.
            let shown = |server: &str| match server.rsplit_once(',') {
                Some((host_port, code)) => format!("{} {code}", host_port.replacen(',', ":", 1)),
                None => server.to_owned(),
            };
            w!(out, "active master:  {}", shown(&summary.master));
            w!(out, "{} backup masters", summary.backup_masters);
            w!(out, "{} live servers", summary.live_servers);
            for server in &summary.servers {
                w!(out, "    {}", shown(&server.name));
                w!(
                    out,
                    "        numberOfOnlineRegions={}",
                    server.regions.len()
                );
                if kind == "detailed" {
                    for region in &server.regions {
                        w!(out, "        \"{}\"", String::from_utf8_lossy(&region.name));
                    }
                }
            }
            w!(out, "{} dead servers", summary.dead_servers());
            w!(out, "Aggregate load: 0, regions: {}", summary.regions);
        }
        "replication" => {
            let which = a.opt_string(1, "source or sink")?.unwrap_or_default();
            replication_status(out, &summary, &which.to_ascii_lowercase())?;
        }
        other => {
            return Err(format!(
                "unknown status format '{other}': use 'summary', 'simple', 'detailed' or \
                 'replication'"
            ));
        }
    }
    Ok(None)
}

/// `Fri Nov 27 22:50:21 UTC 2026`, as Java's `Date.toString` prints a time (in UTC).
fn java_date(ms: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (y, m, d, h, mi, s, weekday) = crate::format::utc(ms);
    format!(
        "{} {} {d:02} {h:02}:{mi:02}:{s:02} UTC {y}",
        DAYS[weekday],
        MONTHS[(m as usize).saturating_sub(1) % 12]
    )
}

/// `status 'replication'` (and `'replication', 'source'|'sink'`): each live server's queues
/// and sink, as HBase's shell prints them.
fn replication_status(
    out: &mut dyn Write,
    summary: &basalt_client::ClusterSummary,
    which: &str,
) -> R<()> {
    w!(out, "version {}", basalt_client::HBASE_VERSION);
    w!(out, "{} live servers", summary.live_servers);
    for server in &summary.servers {
        let host = server.name.split(',').next().unwrap_or_default();
        let started: i64 = server
            .name
            .rsplit(',')
            .next()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let mut source = String::from("       SOURCE:");
        for (i, q) in server.replication.iter().enumerate() {
            let kind = if q.recovered { "Recovered" } else { "Normal" };
            source.push_str(&format!(
                "{}PeerID={}, Queue({kind})={}, AgeOfLastShippedOp={}, TimeStampOfLastShippedOp={}, \
                 SizeOfLogQueue={}, EditsReadFromLogQueue={}, OpsShippedToTarget={}, \
                 Replication Lag={}",
                if i == 0 { " " } else { "\n                " },
                q.peer,
                q.queue,
                q.age_of_last_shipped_op_ms,
                java_date(q.last_shipped_at),
                q.size_of_log_queue,
                q.edits_read,
                q.shipped_ops,
                q.age_of_last_shipped_op_ms
            ));
        }
        let k = &server.sink;
        let sink = if k.applied_ops == 0 {
            format!("       SINK: TimeStampStarted={started}, Waiting for OPs... ")
        } else {
            format!(
                "       SINK: TimeStampStarted={started}, AgeOfLastAppliedOp={}, \
                 TimeStampsOfLastAppliedOp={}",
                k.age_of_last_applied_op_ms,
                java_date(k.last_applied_at)
            )
        };
        w!(out, "    {host}:");
        if which != "sink" {
            w!(out, "{source}");
        }
        if which != "source" {
            w!(out, "{sink}");
        }
    }
    Ok(())
}

pub(super) fn version(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    w!(
        out,
        "2.6.0, rbasalt-{0}, Basalt {0}",
        env!("CARGO_PKG_VERSION")
    );
    Ok(None)
}

pub(super) fn whoami(shell: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    if let Some((user, auth)) = &shell.options.identity {
        // The server maps the name to its groups; the shell does not know them.
        w!(out, "{user} (auth:{auth})");
        return Ok(None);
    }
    let user = std::env::var("USER").unwrap_or_else(|_| "basalt".into());
    w!(out, "{user} (auth:SIMPLE)");
    w!(out, "    groups: {user}");
    Ok(None)
}

/// Ruby's `p`: the value, shown as the shell shows what commands return.
pub(super) fn p(_: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    match args {
        [] => Ok(Some(Returned::Value(Value::Nil))),
        [one] => Ok(Some(Returned::Value(one.clone()))),
        many => Ok(Some(Returned::Value(Value::Array(many.to_vec())))),
    }
}

pub(super) fn help(_: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
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

pub(super) fn table_help(_: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
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

#[cfg(test)]
mod tests {
    #[test]
    fn times_print_as_java_s_date_prints_them() {
        assert_eq!(
            super::java_date(1_795_819_821_000),
            "Fri Nov 27 22:50:21 UTC 2026"
        );
        assert_eq!(super::java_date(0), "Thu Jan 01 00:00:00 UTC 1970");
    }
}
