//! `basalt hbck`, after HBase's HBCK2: a report of what is inconsistent between `hbase:meta`,
//! the region directories, the live servers and the WAL directories, and one subcommand per
//! repair. Over RPC it asks the master's HbckService; with `--data` it runs the same checks
//! on the data directory opened here (no server running).

use std::sync::Arc;

use anyhow::{Result, bail};
use basalt_embedded::TableName;
use basalt_embedded::remote::RemoteConnection;
use basalt_master::Master;
use basalt_master::hbck::{self, Finding, Kind, Report};
use basalt_proto::pb;

use crate::connect::{ClientArgs, Session};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
    #[command(subcommand)]
    op: Option<Op>,
}

#[derive(Debug, clap::Subcommand)]
enum Op {
    /// Report every inconsistency and the repair for each (the default); exits 1 if any
    Report,
    /// Open regions, by encoded name: regions of enabled tables left closed, or placed on a
    /// server that is gone
    Assigns {
        #[arg(required = true)]
        regions: Vec<String>,
    },
    /// Close regions, by encoded name, and leave them closed
    Unassigns {
        #[arg(required = true)]
        regions: Vec<String>,
    },
    /// Repair hbase:meta: rows of regions whose directory is gone are dropped, each hole in a
    /// table's regions gets a new empty region, and overlapping regions are merged into one
    /// (which keeps the rows of both)
    #[command(name = "fixMeta")]
    FixMeta,
    /// Put region directories that have no row in hbase:meta back in it (from their
    /// .regioninfo) and open them; of the tables named, or all. Run fixMeta after, if that
    /// makes regions overlap
    #[command(name = "addFsRegionsMissingInMeta")]
    AddFsRegionsMissingInMeta { tables: Vec<String> },
    /// Move region directories that have no row in hbase:meta to <data>/archive/hbck (nothing
    /// is deleted): leftovers out of the way; of the tables named, or all
    #[command(name = "archiveOrphans")]
    ArchiveOrphans { tables: Vec<String> },
    /// Give up procedures (`list_procedures` ids) stuck for good: one waiting for the
    /// master's DDL lock ends without doing anything; one holding it is recorded as finished
    /// and lets the others run, while it goes on alone. Use with care, as HBCK2's
    Bypass {
        #[arg(required = true)]
        procedures: Vec<u64>,
    },
    /// Split the WAL directories of servers that are gone (host,port,startcode) into their
    /// regions, and reopen those regions so they replay the edits (a server crash procedure)
    #[command(name = "scheduleRecoveries")]
    ScheduleRecoveries {
        #[arg(required = true)]
        servers: Vec<String>,
    },
}

/// Where the checks and repairs run.
enum Target {
    Local(Arc<Master>),
    Remote(Arc<RemoteConnection>),
}

fn tables(names: &[String]) -> Result<Vec<TableName>> {
    names
        .iter()
        .map(|n| TableName::parse(n).map_err(|e| anyhow::anyhow!("{n}: {e}")))
        .collect()
}

fn specs(regions: &[String]) -> Vec<pb::RegionSpecifier> {
    regions
        .iter()
        .map(|r| basalt_proto::region(r.as_bytes()))
        .collect()
}

fn outcomes(what: &str, names: &[String], results: Vec<basalt_embedded::Result<()>>) -> Result<()> {
    let mut failed = Vec::new();
    for (name, r) in names.iter().zip(results) {
        match r {
            Ok(()) => println!("{what} {name}: done"),
            Err(e) => failed.push(format!("{name}: {e}")),
        }
    }
    if !failed.is_empty() {
        bail!("{what} failed for {}", failed.join("; "));
    }
    Ok(())
}

impl Target {
    fn report(&self) -> Result<Report> {
        Ok(match self {
            Target::Local(m) => hbck::check(m)?,
            Target::Remote(c) => {
                let r: pb::GetHbckReportResponse =
                    c.hbck_call("GetHbckReport", &pb::GetHbckReportRequest {})?;
                Report {
                    checked_at_ms: r.checked_at,
                    findings: r
                        .finding
                        .into_iter()
                        .map(|f| {
                            let kind = Kind::parse(&f.kind).ok_or_else(|| {
                                anyhow::anyhow!("the master reports an unknown kind {:?}", f.kind)
                            })?;
                            Ok(Finding {
                                kind,
                                table: f.table,
                                subject: f.subject,
                                detail: f.detail,
                            })
                        })
                        .collect::<Result<_>>()?,
                }
            }
        })
    }

    fn run(&self, op: &Op) -> Result<()> {
        match (self, op) {
            (_, Op::Report) => unreachable!("handled by the caller"),
            (Target::Local(m), Op::Assigns { regions }) => {
                outcomes("assign", regions, hbck::assigns(m, regions))
            }
            (Target::Local(m), Op::Unassigns { regions }) => {
                outcomes("unassign", regions, hbck::unassigns(m, regions))
            }
            (Target::Local(m), Op::FixMeta) => {
                for line in hbck::fix_meta(m)? {
                    println!("{line}");
                }
                Ok(())
            }
            (Target::Local(m), Op::AddFsRegionsMissingInMeta { tables: t }) => {
                for line in hbck::add_fs_regions_missing_in_meta(m, &tables(t)?)? {
                    println!("{line}");
                }
                Ok(())
            }
            (Target::Local(m), Op::ArchiveOrphans { tables: t }) => {
                for line in hbck::archive_orphans(m, &tables(t)?)? {
                    println!("moved {line}");
                }
                Ok(())
            }
            (Target::Local(m), Op::Bypass { procedures }) => {
                let done: Vec<bool> = procedures
                    .iter()
                    .map(|p| m.procedure_log.bypass(*p))
                    .collect();
                bypassed(procedures, &done)
            }
            (Target::Remote(c), Op::Bypass { procedures }) => {
                let r: pb::BypassProcedureResponse = c.hbck_call(
                    "BypassProcedure",
                    &pb::BypassProcedureRequest {
                        proc_id: procedures.clone(),
                        ..pb::BypassProcedureRequest::default()
                    },
                )?;
                bypassed(procedures, &r.bypassed)
            }
            (Target::Local(m), Op::ScheduleRecoveries { servers }) => {
                for (server, n) in hbck::schedule_recoveries(m, servers)? {
                    println!("{server}: log split, {n} region(s) reopened");
                }
                Ok(())
            }
            (Target::Remote(c), Op::Assigns { regions }) => {
                let _: pb::AssignsResponse = c.hbck_call(
                    "Assigns",
                    &pb::AssignsRequest {
                        region: specs(regions),
                        r#override: None,
                    },
                )?;
                regions.iter().for_each(|r| println!("assign {r}: done"));
                Ok(())
            }
            (Target::Remote(c), Op::Unassigns { regions }) => {
                let _: pb::UnassignsResponse = c.hbck_call(
                    "Unassigns",
                    &pb::UnassignsRequest {
                        region: specs(regions),
                        r#override: None,
                    },
                )?;
                regions.iter().for_each(|r| println!("unassign {r}: done"));
                Ok(())
            }
            (Target::Remote(c), Op::FixMeta) => {
                let _: pb::FixMetaResponse = c.hbck_call("FixMeta", &pb::FixMetaRequest {})?;
                println!("fixMeta done (the master's log says what it changed)");
                Ok(())
            }
            (Target::Remote(c), Op::AddFsRegionsMissingInMeta { tables: t }) => {
                let r: pb::HbckDoneResponse =
                    c.hbck_call("AddFsRegionsMissingInMeta", &tables_request(t)?)?;
                r.done.iter().for_each(|l| println!("{l}"));
                Ok(())
            }
            (Target::Remote(c), Op::ArchiveOrphans { tables: t }) => {
                let r: pb::HbckDoneResponse = c.hbck_call("ArchiveOrphans", &tables_request(t)?)?;
                r.done.iter().for_each(|l| println!("moved {l}"));
                Ok(())
            }
            (Target::Remote(c), Op::ScheduleRecoveries { servers }) => {
                let mut names = Vec::new();
                for s in servers {
                    let name = basalt_embedded::ServerName::parse(s).ok_or_else(|| {
                        anyhow::anyhow!("{s:?} is not a server name (host,port,startcode)")
                    })?;
                    let (host, port) = name.host_and_port().unwrap_or(("", 0));
                    names.push(pb::ServerName {
                        host_name: host.to_owned(),
                        port: Some(u32::from(port)),
                        start_code: u64::try_from(name.start_code).ok(),
                    });
                }
                let _: pb::ScheduleServerCrashProcedureResponse = c.hbck_call(
                    "ScheduleServerCrashProcedure",
                    &pb::ScheduleServerCrashProcedureRequest { server_name: names },
                )?;
                servers
                    .iter()
                    .for_each(|s| println!("{s}: log split, its regions reopened"));
                Ok(())
            }
        }
    }
}

/// Prints each procedure's outcome; fails naming those that were not running.
fn bypassed(procedures: &[u64], done: &[bool]) -> Result<()> {
    let mut missing = Vec::new();
    for (id, ok) in procedures.iter().zip(done) {
        if *ok {
            println!("procedure {id}: bypassed");
        } else {
            missing.push(id.to_string());
        }
    }
    if !missing.is_empty() {
        bail!("not running, so not bypassed: {}", missing.join(", "));
    }
    Ok(())
}

fn tables_request(names: &[String]) -> Result<pb::HbckTablesRequest> {
    Ok(pb::HbckTablesRequest {
        table_name: tables(names)?
            .iter()
            .map(basalt_proto::schema::pb_table_name)
            .collect(),
    })
}

/// Prints a report grouped by kind, each with its repair; false if it found anything.
fn print(report: &Report) -> bool {
    if report.findings.is_empty() {
        println!("hbck: no inconsistencies");
        return true;
    }
    println!("hbck: {} inconsistencies", report.findings.len());
    for kind in Kind::ALL {
        let found: Vec<&Finding> = report.findings.iter().filter(|f| f.kind == kind).collect();
        if found.is_empty() {
            continue;
        }
        println!();
        println!(
            "{} ({}) - fix: {}",
            kind.name().to_uppercase(),
            found.len(),
            kind.fix()
        );
        for f in found {
            let table = if f.table.is_empty() {
                String::new()
            } else {
                format!("{} ", f.table)
            };
            println!("  {table}{}: {}", f.subject, f.detail);
        }
    }
    false
}

/// Runs it; the exit code is 1 when a report found inconsistencies.
pub fn run(args: &Args) -> Result<std::process::ExitCode> {
    let (session, place) = args.client.open()?;
    let target = match &session {
        Session::Embedded(c) => Target::Local(c.engine().master()),
        Session::Remote(c) => Target::Remote(Arc::clone(c)),
    };
    eprintln!("hbck on {place}");
    let outcome = match args.op.as_ref().unwrap_or(&Op::Report) {
        Op::Report => {
            let clean = print(&target.report()?);
            Ok(if clean {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::from(1)
            })
        }
        op => target.run(op).map(|()| std::process::ExitCode::SUCCESS),
    };
    session.close()?;
    outcome
}
