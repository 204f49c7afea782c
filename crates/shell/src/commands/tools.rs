//! HBase's `tools` group: flushes, compactions, splits and merges, the balancer, region moves
//! and assignments, decommissioning, dead and live servers, the split/merge, compaction,
//! catalog janitor, normalizer, cleaner and snapshot-cleanup switches, the slow and large
//! logs, the balancer's decisions, procedures and locks, `zk_dump`, and Basalt's `hotspots`.

use super::*;

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

pub(super) fn flush(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
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

pub(super) fn compact(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    compact_with(shell, args, false)
}

pub(super) fn major_compact(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    compact_with(shell, args, true)
}

pub(super) fn split(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
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

pub(super) fn merge_region(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
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

pub(super) fn truncate_region(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let name = Args::new(args).string(0, "region name")?;
    let (table, region) = find_region(shell, name.as_bytes())?;
    let region = region.ok_or("truncate_region takes a region name")?;
    client(
        shell,
        args,
        shell.client.truncate_region(&table, &region.name),
    )?;
    Ok(None)
}

/// `true` / `false`, as the shell writes them (or a string of them).
fn switch(v: Option<&Value>) -> R<bool> {
    match v {
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::Str(s)) if s.eq_ignore_ascii_case(b"true") => Ok(true),
        Some(Value::Str(s)) if s.eq_ignore_ascii_case(b"false") => Ok(false),
        _ => Err("balance_switch takes true or false".into()),
    }
}

pub(super) fn balance_switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = switch(args.first())?;
    let was = client(shell, args, shell.client.balance_switch(on))?;
    w!(out, "Previous balancer state : {was}");
    Ok(None)
}

pub(super) fn balancer(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let ran = client(shell, args, shell.client.balancer())?;
    w!(out, "{ran}");
    Ok(None)
}

pub(super) fn balancer_enabled(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = client(shell, args, shell.client.balancer_enabled())?;
    w!(out, "{on}");
    Ok(None)
}

pub(super) fn move_region(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let region = a.string(0, "encoded region name")?;
    let to = a.opt_string(1, "server name")?;
    client(
        shell,
        args,
        shell.client.move_region(region.as_bytes(), to.as_deref()),
    )?;
    Ok(None)
}

pub(super) fn assign(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    on_named(shell, args, "region name", |c, region| {
        c.assign(region.as_bytes())
    })
}

pub(super) fn unassign(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    on_named(shell, args, "region name", |c, region| {
        c.unassign(region.as_bytes())
    })
}

pub(super) fn hotspots(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    let table = a.table(0)?;
    let seconds = a.int(1, "seconds")?.unwrap_or(0);
    let over = std::time::Duration::from_secs(
        u64::try_from(seconds).map_err(|_| "the seconds are not negative".to_owned())?,
    );
    let report = client(
        shell,
        args,
        basalt_client::hotspots::HotspotReport::take(shell.client.as_ref(), &table, over),
    )?;
    w!(out, "{report}");
    Ok(None)
}

/// `decommission_regionservers 'server'` or `['s1', 's2']`, then whether to move their regions
/// off now (true unless false is given).
pub(super) fn decommission_regionservers(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let servers = args
        .first()
        .and_then(list)
        .ok_or("missing argument: a server name, or an array of them")?
        .into_iter()
        .map(|s| String::from_utf8_lossy(&s).into_owned())
        .collect::<Vec<_>>();
    let offload = args.len() < 2 || bool_at(args, 1, "offload")?;
    client(
        shell,
        args,
        shell.client.decommission_region_servers(&servers, offload),
    )?;
    Ok(None)
}

/// `recommission_regionserver 'server'`, then optionally the encoded names of regions to move
/// back onto it.
pub(super) fn recommission_regionserver(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let server = Args::all(args).string(0, "server name")?;
    let regions = match args.get(1) {
        None => Vec::new(),
        Some(v) => list(v).ok_or("the regions must be an array of encoded region names")?,
    };
    client(
        shell,
        args,
        shell.client.recommission_region_server(&server, &regions),
    )?;
    Ok(None)
}

pub(super) fn list_decommissioned_regionservers(
    shell: &mut Shell,
    _: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let servers = shell
        .client
        .decommissioned_region_servers()
        .map_err(|e| e.to_string())?;
    print_names(shell, out, "DECOMMISSIONED REGION SERVERS", &servers)
}

pub(super) fn list_deadservers(
    shell: &mut Shell,
    _: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    print_names(shell, out, "SERVERNAME", &summary.dead)
}

pub(super) fn list_liveservers(
    shell: &mut Shell,
    _: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    let names: Vec<String> = summary.servers.iter().map(|s| s.name.clone()).collect();
    print_names(shell, out, "SERVERNAME", &names)
}

/// `clear_deadservers` (every dead server) or `clear_deadservers 'server', ...`: `true`, or the
/// servers that were not cleared, as HBase prints them.
pub(super) fn clear_deadservers(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let names = args
        .iter()
        .map(|v| text(v).ok_or_else(|| format!("not a server name: {}", v.inspect())))
        .collect::<R<Vec<String>>>()?;
    let kept = client(shell, args, shell.client.clear_dead_servers(&names))?;
    let mut f = Formatter::new(shell.options.width);
    if kept.is_empty() {
        f.row1(out, "true").map_err(io)?;
        return Ok(None);
    }
    f.row1(out, "Some dead server clear failed").map_err(io)?;
    print_names(shell, out, "SERVERNAME", &kept)
}

pub(super) fn stop_regionserver(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let server = Args::all(args).string(0, "server (host:port)")?;
    client(shell, args, shell.client.stop_region_server(&server))?;
    Ok(None)
}

pub(super) fn stop_master(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    client(shell, args, shell.client.stop_master())?;
    Ok(None)
}

/// `'SPLIT'` or `'MERGE'` (the first argument of the split-or-merge switch's commands).
fn switch_type(args: &[Value]) -> R<bool> {
    match args.first().and_then(text).as_deref() {
        Some("SPLIT") => Ok(true),
        Some("MERGE") => Ok(false),
        _ => Err("the switch type must be 'SPLIT' or 'MERGE'".into()),
    }
}

pub(super) fn splitormerge_switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let split = switch_type(args)?;
    let on = bool_at(args, 1, "the switch's state")?;
    let was = client(shell, args, shell.client.split_or_merge_switch(split, on))?;
    w!(out, "{was}");
    Ok(Some(Returned::Value(Value::Bool(was))))
}

pub(super) fn splitormerge_enabled(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let split = switch_type(args)?;
    let on = client(shell, args, shell.client.split_or_merge_enabled(split))?;
    w!(out, "{on}");
    Ok(Some(Returned::Value(Value::Bool(on))))
}

pub(super) fn wal_roll(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let server = Args::all(args).string(0, "server (host:port or host,port,startcode)")?;
    client(shell, args, shell.client.roll_wal_writer(&server))?;
    Ok(None)
}

/// `compaction_switch true|false` (every live server) or `compaction_switch false, ['h:p']`:
/// each server's previous state.
pub(super) fn compaction_switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = bool_at(args, 0, "compactions' state")?;
    let servers = match args.get(1) {
        None => Vec::new(),
        Some(v) => list(v)
            .ok_or("the servers must be an array of names")?
            .into_iter()
            .map(|s| String::from_utf8_lossy(&s).into_owned())
            .collect(),
    };
    let prev = client(shell, args, shell.client.compaction_switch(on, &servers))?;
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &["SERVER", "PREV_STATE"]).map_err(io)?;
    for (server, was) in &prev {
        f.row2(out, server, &was.to_string()).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

/// `compact_rs 'host:port'` (and `true` for major): every region of the server.
pub(super) fn compact_rs(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let server = Args::all(args).string(0, "server (host:port or host,port,startcode)")?;
    let major = matches!(args.get(1), Some(Value::Bool(true)));
    let want = basalt_client::ServerName::host_port_of;
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    let found = summary
        .servers
        .iter()
        .find(|s| want(&s.name) == want(&server))
        .ok_or_else(|| format!("{server} is not a live region server"))?;
    for region in &found.regions {
        // Meta's region goes by HBase's fixed name.
        let name: &[u8] = if region.name.starts_with(b"hbase:meta,") {
            b"hbase:meta,,1"
        } else {
            &region.name
        };
        client(shell, args, shell.client.compact_region(name, major))?;
    }
    Ok(None)
}

/// `clear_block_cache 't'`: the table's blocks leave its servers' block caches.
pub(super) fn clear_block_cache(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let table = Args::all(args).table(0)?;
    let (blocks, _, capacity) = client(shell, args, shell.client.clear_block_cache(&table))?;
    let mut f = Formatter::new(shell.options.width);
    f.row1(
        out,
        &format!(
            "Stats: CacheEvictionStats{{evictedBlocks={blocks}, maxCacheSize={capacity}, \
             failedRegionsSize=0, failedRegions=}}"
        ),
    )
    .map_err(io)?;
    Ok(None)
}

pub(super) fn list_security_capabilities(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let caps = client(shell, args, shell.client.security_capabilities())?;
    let mut f = Formatter::new(shell.options.width);
    for c in &caps {
        f.row1(out, c).map_err(io)?;
    }
    Ok(Some(names_list(&caps)))
}

pub(super) fn is_in_maintenance_mode(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = client(shell, args, shell.client.in_maintenance_mode())?;
    w!(out, "{on}");
    Ok(Some(Returned::Value(Value::Bool(on))))
}

/// Every user table's region, with the server meta places it on.
fn placements(shell: &Shell) -> R<Vec<basalt_client::RegionSummary>> {
    let mut out = Vec::new();
    for t in shell.client.table_names().map_err(|e| e.to_string())? {
        out.extend(shell.client.regions(&t).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// `{ENCODED => ..., NAME => '...', STARTKEY => '...', ENDKEY => '...'}`, as HBase's
/// RegionInfo prints itself.
fn region_text(r: &basalt_client::RegionSummary) -> String {
    format!(
        "{{ENCODED => {}, NAME => '{}', STARTKEY => '{}', ENDKEY => '{}'}}",
        r.encoded_name(),
        binary(&r.name),
        binary(&r.start_key),
        binary(&r.end_key)
    )
}

/// `regioninfo 'name'` (full or encoded): the region's description.
pub(super) fn regioninfo(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let name = Args::all(args).bytes(0, "region name (full or encoded)")?;
    let (_, region) = find_region(shell, &name)?;
    let region = region.ok_or("not a region")?;
    w!(out, "{}", region_text(&region));
    Ok(None)
}

/// Whether `server` (a region's placement) is one of `names` (`host,port,startcode`).
fn listed(names: &[String], server: &str) -> bool {
    names.iter().any(|n| n == server)
}

/// `rit`: the regions placed on servers that are not live, waiting to be opened again.
pub(super) fn rit(shell: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    let live: Vec<String> = summary.servers.iter().map(|s| s.name.clone()).collect();
    let waiting: Vec<String> = placements(shell)?
        .iter()
        .filter(|r| r.server.as_deref().is_some_and(|s| !listed(&live, s)))
        .map(|r| {
            format!(
                "{} state=OFFLINE, server={}",
                region_text(r),
                r.server.as_deref().unwrap_or_default()
            )
        })
        .collect();
    let mut f = Formatter::new(shell.options.width);
    for w in &waiting {
        f.row1(out, w).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(None)
}

/// `list_unknownservers`: servers meta places regions on that are neither live nor known
/// dead.
pub(super) fn list_unknownservers(
    shell: &mut Shell,
    _: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    let live: Vec<String> = summary.servers.iter().map(|s| s.name.clone()).collect();
    let mut unknown: Vec<String> = placements(shell)?
        .into_iter()
        .filter_map(|r| r.server)
        .filter(|s| !listed(&live, s) && !listed(&summary.dead, s))
        .collect();
    unknown.sort();
    unknown.dedup();
    print_names(shell, out, "SERVERNAME", &unknown)
}

/// `YYYY-MM-DD HH:MM:SS` in UTC.
fn stamp(ms: i64) -> String {
    let (y, m, d, h, mi, s, _) = crate::format::utc(ms);
    format!("{y:04}-{m:02}-{d:02} {h:02}:{mi:02}:{s:02}")
}

/// `processlist`: the tasks every live server runs now (flushes, compactions, splits,
/// merges), as HBase's lists its servers' monitored tasks.
pub(super) fn processlist(shell: &mut Shell, _: &[Value], out: &mut dyn Write) -> CommandResult {
    let summary = shell.client.cluster_summary().map_err(|e| e.to_string())?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    let tasks: Vec<(&str, &basalt_client::TaskSummary)> = summary
        .servers
        .iter()
        .flat_map(|s| s.tasks.iter().map(move |t| (s.name.as_str(), t)))
        .collect();
    w!(out, "{} tasks as of: {}", tasks.len(), stamp(now));
    if !tasks.is_empty() {
        let mut f = Formatter::new(shell.options.width);
        f.header(out, &["Host", "Start", "State", "Description"])
            .map_err(io)?;
        for (host, t) in &tasks {
            f.row_n(
                out,
                &[host, &stamp(t.started_ms), "RUNNING", &t.description],
            )
            .map_err(io)?;
        }
    }
    Ok(None)
}

/// `update_config 'host:port'`: the server reads its settings file again.
pub(super) fn update_config(shell: &mut Shell, args: &[Value], _: &mut dyn Write) -> CommandResult {
    let server = Args::all(args).string(0, "server (host:port or host,port,startcode)")?;
    client(shell, args, shell.client.update_config(&server))?;
    Ok(None)
}

/// A chore's switch: prints its previous state, as HBase's `*_switch` commands do.
pub(super) fn chore_switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    chore: Chore,
) -> CommandResult {
    let on = bool_at(args, 0, &format!("the {}'s state", chore.name()))?;
    let was = client(shell, args, shell.client.chore_switch(chore, on))?;
    w!(out, "{was}");
    Ok(Some(Returned::Value(Value::Bool(was))))
}

pub(super) fn chore_enabled(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    chore: Chore,
) -> CommandResult {
    let on = client(shell, args, shell.client.chore_enabled(chore))?;
    w!(out, "{on}");
    Ok(Some(Returned::Value(Value::Bool(on))))
}

/// `hbck_chore_run`: the master checks the catalog and the data directory now; prints
/// whether it ran (`basalt hbck` prints what it found).
pub(super) fn hbck_chore_run(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    Args::all(args).at_most(0, "hbck_chore_run")?;
    let ran = client(shell, args, shell.client.run_hbck_chore())?;
    w!(out, "{ran}");
    Ok(None)
}

/// `normalize` (every table asking for it), or `normalize {TABLE_NAME => 't'}`,
/// `{TABLE_NAMES => ['t1', 't2']}`, `{REGEX => 't.*'}`, `{NAMESPACE => 'ns'}`: prints
/// whether the normalizer ran.
pub(super) fn normalize(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    let a = Args::new(args);
    a.unknown_options(&["TABLE_NAME", "TABLE_NAMES", "REGEX", "NAMESPACE"])?;
    let mut named: Vec<String> = Vec::new();
    named.extend(a.opt_text("TABLE_NAME")?);
    for t in a.opt_list("TABLE_NAMES")?.unwrap_or_default() {
        named.push(String::from_utf8_lossy(&t).into_owned());
    }
    let mut tables: Vec<TableName> = Vec::new();
    for n in &named {
        tables.push(n.parse().map_err(|e| format!("{n}: {e}"))?);
    }
    let regex = matcher(a.opt_text("REGEX")?)?;
    let namespace = a.opt_text("NAMESPACE")?;
    if regex.is_some() || namespace.is_some() {
        let all = shell.client.table_names().map_err(|e| e.to_string())?;
        let picked: Vec<TableName> = all
            .into_iter()
            .filter(|t| regex.as_ref().is_none_or(|r| r.is_match(&t.to_string())))
            .filter(|t| namespace.as_ref().is_none_or(|ns| t.namespace() == ns))
            .collect();
        if picked.is_empty() {
            // Nothing matched: there is nothing to normalize (rather than every table).
            w!(out, "false");
            return Ok(None);
        }
        tables.extend(picked);
    }
    let ran = client(shell, args, shell.client.normalize(&tables))?;
    w!(out, "{ran}");
    Ok(Some(Returned::Value(Value::Bool(ran))))
}

/// `compaction_state 't1'`: NONE, MINOR, MAJOR or MAJOR_AND_MINOR.
pub(super) fn compaction_state(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let name = Args::all(args).table(0)?;
    let state = client(shell, args, shell.client.compaction_state(&name))?;
    w!(out, "{state}");
    Ok(None)
}

/// `clear_compaction_queues 'host:port'` (both queues) or with `'long'`, `'short'` or
/// `['long', 'short']`.
pub(super) fn clear_compaction_queues(
    shell: &mut Shell,
    args: &[Value],
    _: &mut dyn Write,
) -> CommandResult {
    let server = Args::all(args).string(0, "server (host:port or host,port,startcode)")?;
    let queues: Vec<String> = match args.get(1) {
        None => vec!["long".into(), "short".into()],
        Some(v) => match list(v) {
            Some(names) => names
                .into_iter()
                .map(|n| String::from_utf8_lossy(&n).into_owned())
                .collect(),
            None => vec![text(v).ok_or("the queue must be 'long' or 'short'")?],
        },
    };
    client(
        shell,
        args,
        shell.client.clear_compaction_queues(&server, &queues),
    )?;
    Ok(None)
}

/// The servers a log command names: `'*'` or nothing (every live server), one name, or a list.
fn servers_arg(v: Option<&Value>) -> R<Vec<String>> {
    let names: Vec<String> = match v {
        None => Vec::new(),
        Some(v) => list(v)
            .ok_or("servers are '*', a name or a list of names")?
            .into_iter()
            .map(|n| String::from_utf8_lossy(&n).into_owned())
            .collect(),
    };
    Ok(if names.iter().any(|n| n == "*") {
        Vec::new()
    } else {
        names
    })
}

fn json_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `get_slowlog_responses` and `get_largelog_responses`: HBase's filter hash, and each record
/// as the JSON HBase prints.
fn log_responses(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
    large: bool,
) -> CommandResult {
    let servers = servers_arg(args.first())?;
    let a = Args::new(args.get(1..).unwrap_or_default());
    a.unknown_options(&[
        "REGION_NAME",
        "TABLE_NAME",
        "CLIENT_IP",
        "USER",
        "LIMIT",
        "FILTER_BY_OP",
    ])?;
    let and = match a.opt_text("FILTER_BY_OP")?.as_deref() {
        None | Some("OR") => false,
        Some("AND") => true,
        Some(other) => return Err(format!("FILTER_BY_OP is AND or OR, not {other}")),
    };
    let filter = basalt_common::slowlog::Filter {
        region: a.opt_text("REGION_NAME")?,
        table: a.opt_text("TABLE_NAME")?,
        client_address: a.opt_text("CLIENT_IP")?,
        user: a.opt_text("USER")?,
        and,
        large,
        limit: usize::try_from(a.opt_int("LIMIT")?.unwrap_or(10)).unwrap_or(10),
    };
    let calls = client(shell, args, shell.client.slow_log(&servers, &filter))?;
    w!(
        out,
        "Retrieved {} Responses from RegionServers",
        if large { "LargeLog" } else { "SlowLog" }
    );
    let records: Vec<Vec<(&str, String)>> = calls
        .iter()
        .map(|(_, c)| {
            vec![
                ("startTime", c.start_time_ms.to_string()),
                ("processingTime", c.processing_ms.to_string()),
                ("queueTime", c.queue_ms.to_string()),
                ("responseSize", c.response_size.to_string()),
                ("clientAddress", json_text(&c.client_address)),
                ("serverClass", json_text("HRegionServer")),
                ("methodName", json_text(&c.method)),
                ("callDetails", json_text(&c.call_details())),
                ("regionName", json_text(c.region.as_deref().unwrap_or(""))),
                ("userName", json_text(&c.user)),
            ]
        })
        .collect();
    print_json_records(out, &records)?;
    Ok(None)
}

pub(super) fn get_slowlog_responses(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    log_responses(shell, args, out, false)
}

pub(super) fn get_largelog_responses(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    log_responses(shell, args, out, true)
}

/// `clear_slowlog_responses` (every live server) or with a list of servers.
pub(super) fn clear_slowlog_responses(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let servers = servers_arg(args.first())?;
    let (cleared, of) = client(shell, args, shell.client.clear_slow_log(&servers))?;
    w!(
        out,
        "Cleared Slowlog responses from {cleared}/{of} RegionServers"
    );
    Ok(None)
}

/// `{LIMIT => n}` of the balancer log commands (all of them if not given).
fn balancer_limit(args: &[Value]) -> R<usize> {
    let a = Args::new(args);
    a.unknown_options(&["LIMIT"])?;
    Ok(a.opt_int("LIMIT")?
        .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(0)))
}

fn json_list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| json_text(i)).collect();
    format!("[{}]", quoted.join(", "))
}

/// Prints records as a JSON array of objects, each a list of (key, JSON value).
fn print_json_records(out: &mut dyn Write, records: &[Vec<(&str, String)>]) -> R<()> {
    w!(out, "[");
    for (i, fields) in records.iter().enumerate() {
        w!(out, "  {{");
        for (j, (k, v)) in fields.iter().enumerate() {
            let comma = if j + 1 < fields.len() { "," } else { "" };
            w!(out, "    \"{k}\": {v}{comma}");
        }
        w!(out, "  }}{}", if i + 1 < records.len() { "," } else { "" });
    }
    w!(out, "]");
    Ok(())
}

/// `get_balancer_decisions [{LIMIT => n}]`: the balancer's recent runs that moved regions.
pub(super) fn get_balancer_decisions(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let limit = balancer_limit(args)?;
    let (decisions, _) = client(shell, args, shell.client.balancer_log(limit))?;
    w!(out, "Retrieved BalancerDecision Responses");
    let records: Vec<Vec<(&str, String)>> = decisions
        .iter()
        .map(|d| {
            vec![
                ("initTotalCost", format!("{:?}", d.init_total_cost)),
                ("finalTotalCost", format!("{:?}", d.computed_total_cost)),
                ("initialFunctionCosts", json_text(&d.initial_function_costs)),
                ("finalFunctionCosts", json_text(&d.final_function_costs)),
                ("computedSteps", d.computed_steps.to_string()),
                ("regionPlans", json_list(&d.region_plans)),
            ]
        })
        .collect();
    print_json_records(out, &records)?;
    Ok(None)
}

/// `get_balancer_rejections [{LIMIT => n}]`: the balancer's recent runs that moved nothing.
pub(super) fn get_balancer_rejections(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let limit = balancer_limit(args)?;
    let (_, rejections) = client(shell, args, shell.client.balancer_log(limit))?;
    w!(out, "Retrieved BalancerRejection Responses");
    let records: Vec<Vec<(&str, String)>> = rejections
        .iter()
        .map(|r| {
            vec![
                ("reason", json_text(&r.reason)),
                ("costFuncInfoList", json_list(&r.cost_func_info)),
            ]
        })
        .collect();
    print_json_records(out, &records)?;
    Ok(None)
}

/// `list_procedures`: the master's running and recent procedures, as HBase's shell lists them
/// (`PID Name State Submitted Last_Update Parameters`).
pub(super) fn list_procedures(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    Args::all(args).at_most(0, "list_procedures")?;
    let procedures = client(shell, args, shell.client.procedures())?;
    let mut f = Formatter::new(shell.options.width);
    f.header(
        out,
        &[
            "PID",
            "Name",
            "State",
            "Submitted",
            "Last_Update",
            "Parameters",
        ],
    )
    .map_err(io)?;
    for p in &procedures {
        let params: Vec<String> = p
            .parameters
            .iter()
            .map(|(k, v)| format!("{}=>{}", json_text(k), json_text(v)))
            .collect();
        let mut params = format!("[{{{}}}]", params.join(", "));
        if let Some(e) = &p.error {
            params.push_str(&format!(" exception: {e}"));
        }
        f.row_n(
            out,
            &[
                &p.id.to_string(),
                &p.class_name,
                p.state.name(),
                &super::snapshot::creation_time(p.submitted_ms),
                &super::snapshot::creation_time(p.last_update_ms),
                &params,
            ],
        )
        .map_err(io)?;
    }
    f.footer(out, Some(procedures.len())).map_err(io)?;
    Ok(None)
}

/// `list_locks`: each lock a procedure holds, and the procedures waiting for it.
pub(super) fn list_locks(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    Args::all(args).at_most(0, "list_locks")?;
    let locks = client(shell, args, shell.client.locks())?;
    for l in &locks {
        w!(out, "{}({})", l.resource.kind(), l.resource.name());
        w!(out, "Lock type: EXCLUSIVE, procedure: {}", l.owner.id);
        if !l.waiting.is_empty() {
            w!(out, "Waiting procedures:");
            let mut f = Formatter::new(shell.options.width);
            f.header(out, &["Lock type", "Procedure Id"]).map_err(io)?;
            for p in &l.waiting {
                f.row2(out, "EXCLUSIVE", &p.id.to_string()).map_err(io)?;
            }
            f.footer(out, Some(l.waiting.len())).map_err(io)?;
        }
        w!(out, "");
    }
    Ok(None)
}

/// `zk_dump`: what the cluster keeps in ZooKeeper.
pub(super) fn zk_dump(shell: &mut Shell, args: &[Value], out: &mut dyn Write) -> CommandResult {
    Args::all(args).at_most(0, "zk_dump")?;
    let text = client(shell, args, shell.client.zk_dump())?;
    write!(out, "{text}").map_err(io)?;
    Ok(None)
}

/// `snapshot_cleanup_switch true|false`: prints the previous state, as HBase's does.
pub(super) fn snapshot_cleanup_switch(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    let on = bool_at(args, 0, "the snapshot cleanup's state")?;
    let was = client(
        shell,
        args,
        shell.client.chore_switch(Chore::SnapshotCleanup, on),
    )?;
    w!(out, "Previous snapshot cleanup state : {was}");
    Ok(Some(Returned::Value(Value::Bool(was))))
}

pub(super) fn snapshot_cleanup_enabled(
    shell: &mut Shell,
    args: &[Value],
    out: &mut dyn Write,
) -> CommandResult {
    chore_enabled(shell, args, out, Chore::SnapshotCleanup)
}
