//! The operators' pages: procedures and locks, snapshots, the ZooKeeper dump, the slow log,
//! `/conf`, `/logLevel`, `/stacks` and `/dump` (docs/design/web.md).

use basalt_client::prelude::*;
use std::fmt::Write as _;

use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use basalt_client::log::{self as levels, Level};
use basalt_net::http::axum;

use crate::pages::{self, esc};
use crate::{Shared, failed, html, not_found, off_thread, query_param};

fn text(body: String) -> Response {
    ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

/// Milliseconds since the epoch as `YYYY-MM-DD hh:mm:ss` UTC.
fn when(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let (days, day_secs) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = basalt_client::clock::civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        day_secs / 3600,
        day_secs % 3600 / 60,
        day_secs % 60
    )
}

pub(crate) async fn procedures(State(info): Shared) -> Response {
    off_thread(move || {
        let Some(client) = &info.sources.client else {
            return not_found("this server is not a master".into());
        };
        let (procs, locks) = match (client.procedures(), client.locks()) {
            (Ok(p), Ok(l)) => (p, l),
            (Err(e), _) | (_, Err(e)) => return failed(e),
        };
        let mut body = String::from(
            "<h2>Procedures</h2><table id=\"procedures\"><tr><th>Id</th><th>Name</th>\
             <th>State</th><th>Submitted</th><th>Last update</th><th>Parameters</th>\
             <th>Error</th></tr>",
        );
        for p in procs.iter().rev() {
            let params: Vec<String> = p
                .parameters
                .iter()
                .map(|(k, v)| format!("{}={}", esc(k), esc(v)))
                .collect();
            let short = p.class_name.rsplit('.').next().unwrap_or(&p.class_name);
            let _ = write!(
                body,
                "<tr class=\"procedure\"><td class=\"num\">{}</td><td>{}</td>\
                 <td class=\"state\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                p.id,
                esc(short),
                p.state.name(),
                when(p.submitted_ms),
                when(p.last_update_ms),
                params.join(", "),
                esc(p.error.as_deref().unwrap_or(""))
            );
        }
        body.push_str("</table><h2>Locks</h2>");
        if locks.is_empty() {
            body.push_str("<p id=\"no-locks\" class=\"muted\">No procedure holds a lock now.</p>");
        } else {
            body.push_str(
                "<table id=\"locks\"><tr><th>Resource</th><th>Lock</th><th>Held by</th>\
                 <th>Waiting</th></tr>",
            );
            for l in &locks {
                let waiting: Vec<String> = l.waiting.iter().map(|p| p.id.to_string()).collect();
                let _ = write!(
                    body,
                    "<tr><td>{}({})</td><td>EXCLUSIVE</td><td>{}</td><td>{}</td></tr>",
                    l.resource.kind(),
                    esc(l.resource.name()),
                    l.owner.id,
                    waiting.join(", ")
                );
            }
            body.push_str("</table>");
        }
        html(pages::page("Procedures and locks", &info.nav(), &body))
    })
    .await
}

pub(crate) async fn snapshots(State(info): Shared) -> Response {
    off_thread(move || {
        let Some(client) = &info.sources.client else {
            return not_found("this server is not a master".into());
        };
        let list = match client.list_snapshots() {
            Ok(l) => l,
            Err(e) => return failed(e),
        };
        let mut body = String::from(
            "<table id=\"snapshots\"><tr><th>Snapshot</th><th>Table</th><th>Created</th></tr>",
        );
        for s in &list {
            let _ = write!(
                body,
                "<tr class=\"snapshot\"><td>{}</td><td><a href=\"/table.jsp?name={}\">{}</a>\
                 </td><td>{}</td></tr>",
                esc(&s.name),
                pages::url_encode(&s.table.to_string()),
                esc(&s.table.to_string()),
                when(s.creation_time)
            );
        }
        let _ = write!(body, "</table><p>{} snapshot(s)</p>", list.len());
        html(pages::page("Snapshots", &info.nav(), &body))
    })
    .await
}

/// `/quotas.jsp` (HBase's quotas page): the throttle switch, every quota, each table's space
/// use against its quota, and (on a region server) each user's calls and throttled calls.
pub(crate) async fn quotas(State(info): Shared) -> Response {
    off_thread(move || {
        let Some(client) = &info.sources.client else {
            return not_found("this server is not a master".into());
        };
        let (quotas, throttling) = match (client.list_quotas(), client.rpc_throttle_enabled()) {
            (Ok(q), Ok(t)) => (q, t),
            (Err(e), _) | (_, Err(e)) => return failed(e),
        };
        let mut body = format!(
            "<p>RPC throttles are <b id=\"rpc-throttle\">{}</b>.</p>\
             <h2>Quotas</h2><table id=\"quotas\"><tr><th>Owner</th><th>Quota</th></tr>",
            if throttling {
                "enforced"
            } else {
                "not enforced"
            }
        );
        let mut rows = 0;
        for (who, q) in &quotas {
            let mut texts: Vec<String> = q.throttles.iter().map(ToString::to_string).collect();
            if q.bypass_globals {
                texts.push("GLOBAL_BYPASS => true".into());
            }
            if let Some(space) = &q.space {
                texts.push(space.to_string());
            }
            for t in texts {
                rows += 1;
                let _ = write!(
                    body,
                    "<tr class=\"quota\"><td>{}</td><td>{}</td></tr>",
                    esc(&who.to_string()),
                    esc(&t)
                );
            }
        }
        let _ = write!(body, "</table><p>{rows} quota(s)</p>");
        let master_status = info.sources.master.as_ref().map(|m| m.master_status());
        let space = master_status.map(|s| s.space).unwrap_or_default();
        body.push_str(
            "<h2>Space use</h2><table id=\"space\"><tr><th>Table</th><th>Usage (bytes)</th>\
             <th>Limit (bytes)</th><th>In violation</th><th>Policy</th></tr>",
        );
        for (table, s) in &space {
            let _ = write!(
                body,
                "<tr class=\"space\"><td>{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"violation\">{}</td><td>{}</td></tr>",
                esc(table),
                s.usage,
                s.limit,
                s.in_violation,
                s.policy.name()
            );
        }
        body.push_str("</table>");
        if let Some(server) = &info.sources.server {
            body.push_str(
                "<h2>Calls by user (this region server)</h2><table id=\"users\"><tr>\
                 <th>User</th><th>Calls</th><th>Throttled</th></tr>",
            );
            for u in server.server_status().users {
                let _ = write!(
                    body,
                    "<tr class=\"user\"><td>{}</td><td class=\"num\">{}</td>\
                     <td class=\"num throttled\">{}</td></tr>",
                    esc(&u.user),
                    u.requests,
                    u.throttled
                );
            }
            body.push_str("</table>");
        }
        html(pages::page("Quotas", &info.nav(), &body))
    })
    .await
}

pub(crate) async fn zk(State(info): Shared) -> Response {
    off_thread(move || {
        let Some(client) = &info.sources.client else {
            return not_found("this server is not a master".into());
        };
        let body = match client.zk_dump() {
            Ok(d) => format!("<pre id=\"zk-dump\">{}</pre>", esc(&d)),
            Err(e) => format!("<p id=\"zk-none\">{}</p>", esc(&e.to_string())),
        };
        html(pages::page("ZooKeeper", &info.nav(), &body))
    })
    .await
}

pub(crate) async fn slowlog(State(info): Shared) -> Response {
    off_thread(move || {
        let Some(log) = &info.sources.slow_log else {
            return not_found("this server keeps no slow log".into());
        };
        let mut body = String::new();
        for (large, title) in [(false, "Slow calls"), (true, "Large calls")] {
            let calls = log.read(&basalt_client::slowlog::Filter {
                large,
                limit: usize::MAX,
                ..Default::default()
            });
            let _ = write!(
                body,
                "<h2>{title}</h2><table id=\"{}\"><tr><th>Started</th><th>Method</th>\
                 <th>Region</th><th>Time (ms)</th><th>Answer (bytes)</th><th>Client</th>\
                 <th>User</th></tr>",
                if large { "large-log" } else { "slow-log" }
            );
            for c in &calls {
                let _ = write!(
                    body,
                    "<tr class=\"call\"><td>{}</td><td>{}.{}</td><td>{}</td>\
                     <td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                    when(c.start_time_ms),
                    esc(&c.service),
                    esc(&c.method),
                    esc(c.region.as_deref().unwrap_or("")),
                    c.processing_ms,
                    c.response_size,
                    esc(&c.client_address),
                    esc(&c.user)
                );
            }
            body.push_str("</table>");
        }
        html(pages::page("Slow log", &info.nav(), &body))
    })
    .await
}

/// `/conf`: the settings, as HBase's `/conf` serves them (XML, or `?format=json`).
pub(crate) async fn conf(State(info): Shared, uri: Uri) -> Response {
    let json = query_param(&uri, "format").is_some_and(|f| f == "json");
    let Some(settings) = &info.sources.settings else {
        return not_found("this server has no settings".into());
    };
    let source = settings
        .site()
        .map_or_else(|| "defaults".to_owned(), |p| p.display().to_string());
    let mut props: std::collections::BTreeMap<String, (String, String)> = settings
        .file_values()
        .into_iter()
        .map(|(k, v)| (k, (v, source.clone())))
        .collect();
    // The live values, as they are now (a flag or update_config may have changed them).
    for (key, _) in basalt_client::site::LIVE_KEYS {
        if let Some(v) = settings.get(key) {
            let from = props
                .get(*key)
                .map_or("defaults", |(_, s)| s.as_str())
                .to_owned();
            props.insert((*key).to_owned(), (v.to_string(), from));
        }
    }
    if json {
        let list: Vec<serde_json::Value> = props
            .iter()
            .map(|(k, (v, s))| {
                serde_json::json!({"key": k, "value": v, "isFinal": false, "resource": s})
            })
            .collect();
        return (
            [(header::CONTENT_TYPE, "application/json; charset=utf-8")],
            serde_json::json!({ "properties": list }).to_string(),
        )
            .into_response();
    }
    let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?><configuration>");
    for (k, (v, s)) in &props {
        let _ = write!(
            xml,
            "<property><name>{}</name><value>{}</value><final>false</final>\
             <source>{}</source></property>",
            esc(k),
            esc(v),
            esc(s)
        );
    }
    xml.push_str("</configuration>");
    ([(header::CONTENT_TYPE, "text/xml; charset=utf-8")], xml).into_response()
}

/// `/logLevel[?log=MODULE[&level=LEVEL]]`: each module's level, and a change to one.
pub(crate) async fn log_level(State(info): Shared, uri: Uri) -> Response {
    let module = query_param(&uri, "log");
    let level = query_param(&uri, "level");
    let mut body = String::new();
    let mut status = StatusCode::OK;
    if let Some(m) = &module {
        match level.as_deref().map(|l| (l, Level::parse(l))) {
            None => {
                let _ = write!(
                    body,
                    "<p id=\"result\">Log: {} Effective level: {}</p>",
                    esc(m),
                    levels::level(m).name()
                );
            }
            Some((_, Some(l))) => match levels::set_level(m, l) {
                Ok(()) => {
                    let _ = write!(
                        body,
                        "<p id=\"result\">Setting Level to {} ... Effective level: {}</p>",
                        l.name(),
                        levels::level(m).name()
                    );
                }
                Err(e) => {
                    status = StatusCode::BAD_REQUEST;
                    let _ = write!(body, "<p id=\"result\">{}</p>", esc(&e));
                }
            },
            Some((bad, None)) => {
                status = StatusCode::BAD_REQUEST;
                let _ = write!(
                    body,
                    "<p id=\"result\">{} is not a level: ERROR, WARN, INFO, DEBUG or TRACE</p>",
                    esc(bad)
                );
            }
        }
    }
    body.push_str("<table id=\"levels\"><tr><th>Module</th><th>Level</th><th>Logs</th></tr>");
    for (m, what) in levels::MODULES {
        let _ = write!(
            body,
            "<tr><td>{m}</td><td id=\"level-{m}\">{}</td><td>{}</td></tr>",
            levels::level(m).name(),
            esc(what)
        );
    }
    body.push_str(
        "</table><form method=\"get\" action=\"/logLevel\"><label>Module <input name=\"log\" \
         id=\"log\"></label> <label>Level <input name=\"level\" id=\"level\"></label> \
         <button type=\"submit\" id=\"set\">Set</button></form>",
    );
    (status, html(pages::page("Log levels", &info.nav(), &body))).into_response()
}

/// The process's threads: name, id, state and what the kernel says each waits in (Rust
/// cannot walk another thread's stack without stopping it; `/proc` says where it sleeps).
pub fn threads() -> String {
    let mut out = String::new();
    let mut tasks: Vec<u64> = std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    tasks.sort_unstable();
    let _ = writeln!(out, "Process Thread Dump: {} active threads", tasks.len());
    for tid in tasks {
        let dir = format!("/proc/self/task/{tid}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).unwrap_or_default();
        let name = read("comm");
        let stat = read("stat");
        // The state follows the parenthesized name.
        let state = stat
            .rsplit_once(") ")
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .unwrap_or("?");
        let _ = writeln!(out, "Thread {tid} ({}):", name.trim());
        let _ = writeln!(out, "  State: {state}");
        let wchan = read("wchan");
        if !wchan.trim().is_empty() && wchan.trim() != "0" {
            let _ = writeln!(out, "  Waiting in: {}", wchan.trim());
        }
        let stack = read("stack");
        for frame in stack.lines().filter(|l| !l.trim().is_empty()) {
            let _ = writeln!(out, "    {}", frame.trim());
        }
    }
    out
}

pub(crate) async fn stacks() -> Response {
    text(threads())
}

/// `/dump`: everything a person debugging the server asks for first, as text.
pub(crate) async fn dump(State(info): Shared) -> Response {
    off_thread(move || {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "Basalt {} (HBase {}) dump\n",
            env!("CARGO_PKG_VERSION"),
            basalt_client::HBASE_VERSION
        );
        if let Some(server) = &info.sources.server {
            let s = server.server_status();
            let _ = writeln!(out, "Region server {}", s.name);
            let _ = writeln!(out, "  Regions: {}", s.regions.len());
            let _ = writeln!(out, "  Open scanners: {}", s.open_scanners);
            let _ = writeln!(out, "  WAL files: {}", s.wal_files);
            let _ = writeln!(
                out,
                "  Flush queue: {}, compaction queue: {}",
                s.flush_queue, s.compaction_queue
            );
            let _ = writeln!(out, "\nTasks:");
            for t in &s.tasks {
                let _ = writeln!(
                    out,
                    "  {} {} since {}",
                    t.kind,
                    t.description,
                    when(i64::try_from(t.started_ms).unwrap_or(0))
                );
            }
        }
        if let Some(master) = &info.sources.master {
            let m = master.master_status();
            let _ = writeln!(out, "\nMaster {}", m.name);
            let _ = writeln!(out, "  Live servers: {}", m.live_servers);
            let _ = writeln!(out, "  Regions in transition: {}", m.regions_in_transition);
        }
        if let Some(client) = &info.sources.client
            && let Ok(procs) = client.procedures()
        {
            let _ = writeln!(out, "\nProcedures:");
            for p in procs.iter().rev().take(20) {
                let _ = writeln!(out, "  {} {} {}", p.id, p.class_name, p.state.name());
            }
        }
        let _ = writeln!(out, "\nLog levels:");
        for (m, _) in levels::MODULES {
            let _ = writeln!(out, "  {m}: {}", levels::level(m).name());
        }
        if let Some(settings) = &info.sources.settings {
            let _ = writeln!(out, "\nConfiguration:");
            for (k, _) in basalt_client::site::LIVE_KEYS {
                if let Some(v) = settings.get(k) {
                    let _ = writeln!(out, "  {k} = {v}");
                }
            }
            for (k, v) in settings.file_values() {
                let _ = writeln!(out, "  {k} = {v} (file)");
            }
        }
        let _ = writeln!(out, "\n{}", threads());
        text(out)
    })
    .await
}
