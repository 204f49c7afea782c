//! HbckService: what HBCK2 asks a master to do (HBase's numbers: RunHbckChore, Assigns,
//! Unassigns, ScheduleServerCrashProcedure, FixMeta), and Basalt's own calls behind
//! `basalt hbck` (GetHbckReport, AddFsRegionsMissingInMeta, ArchiveOrphans). Every call needs
//! a superuser (HBase's ADMIN permission) when access control is on.

use std::sync::Arc;

use basalt_common::Bytes;
use basalt_common::acl::{Action, Scope, User};
use basalt_proto::pb::{self, ExceptionResponse};
use basalt_proto::schema::table_name;
use basalt_proto::service::Service;
use basalt_proto::{decode, from_error};
use prost::Message;

use crate::hbck;
use crate::master::Master;

type Outcome = Result<Vec<u8>, ExceptionResponse>;

#[derive(Debug)]
pub struct HbckService {
    master: Arc<Master>,
}

impl HbckService {
    pub fn new(master: Arc<Master>) -> Self {
        HbckService { master }
    }
}

/// Encoded names from region specifiers (an encoded name, or a full name ending in one).
fn encoded_names(specs: &[pb::RegionSpecifier]) -> Vec<String> {
    specs
        .iter()
        .map(|s| {
            let name = &s.value;
            basalt_common::RegionInfo::encoded_part(name)
                .map_or_else(|| String::from_utf8_lossy(name), String::from_utf8_lossy)
                .into_owned()
        })
        .collect()
}

/// The outcome of one repair per region: an error naming each that failed.
fn all_done(
    what: &str,
    names: &[String],
    results: Vec<basalt_common::Result<()>>,
) -> Result<Vec<u64>, ExceptionResponse> {
    let failed: Vec<String> = names
        .iter()
        .zip(&results)
        .filter_map(|(n, r)| r.as_ref().err().map(|e| format!("{n}: {e}")))
        .collect();
    if failed.is_empty() {
        // Basalt runs each at once: there is no procedure to wait for (pid 0).
        Ok(vec![0; names.len()])
    } else {
        Err(from_error(&basalt_common::Error::Refused(format!(
            "{what} failed for {}",
            failed.join("; ")
        ))))
    }
}

fn tables(r: &pb::HbckTablesRequest) -> Result<Vec<basalt_common::TableName>, ExceptionResponse> {
    r.table_name.iter().map(table_name).collect()
}

fn done(lines: basalt_common::Result<Vec<String>>) -> Outcome {
    Ok(pb::HbckDoneResponse {
        done: lines.map_err(|e| from_error(&e))?,
    }
    .encode_to_vec())
}

impl HbckService {
    fn run(&self, method: &str, param: Option<&[u8]>) -> Option<Outcome> {
        let m = self.master.as_ref();
        Some(match method {
            // The check runs whenever its report is asked for (GetHbckReport, the info
            // pages): running it now only proves it can.
            "RunHbckChore" => decode::<pb::RunHbckChoreRequest>(param).and_then(|_| {
                hbck::check(m).map_err(|e| from_error(&e))?;
                Ok(pb::RunHbckChoreResponse { ran: true }.encode_to_vec())
            }),
            "GetHbckReport" => decode::<pb::GetHbckReportRequest>(param).and_then(|_| {
                let report = hbck::check(m).map_err(|e| from_error(&e))?;
                let response = pb::GetHbckReportResponse {
                    checked_at: report.checked_at_ms,
                    finding: report
                        .findings
                        .iter()
                        .map(|f| pb::HbckFinding {
                            kind: f.kind.name().to_owned(),
                            table: f.table.clone(),
                            subject: f.subject.clone(),
                            detail: f.detail.clone(),
                        })
                        .collect(),
                };
                Ok(response.encode_to_vec())
            }),
            "Assigns" => decode::<pb::AssignsRequest>(param).and_then(|r| {
                let names = encoded_names(&r.region);
                let pid = all_done("assign", &names, hbck::assigns(m, &names))?;
                Ok(pb::AssignsResponse { pid }.encode_to_vec())
            }),
            "Unassigns" => decode::<pb::UnassignsRequest>(param).and_then(|r| {
                let names = encoded_names(&r.region);
                let pid = all_done("unassign", &names, hbck::unassigns(m, &names))?;
                Ok(pb::UnassignsResponse { pid }.encode_to_vec())
            }),
            "ScheduleServerCrashProcedure" => {
                decode::<pb::ScheduleServerCrashProcedureRequest>(param).and_then(|r| {
                    let servers: Vec<String> = r
                        .server_name
                        .iter()
                        .map(|s| {
                            format!(
                                "{},{},{}",
                                s.host_name,
                                s.port.unwrap_or_default(),
                                s.start_code.unwrap_or_default()
                            )
                        })
                        .collect();
                    let recovered =
                        hbck::schedule_recoveries(m, &servers).map_err(|e| from_error(&e))?;
                    Ok(pb::ScheduleServerCrashProcedureResponse {
                        pid: vec![0; recovered.len()],
                    }
                    .encode_to_vec())
                })
            }
            "BypassProcedure" => decode::<pb::BypassProcedureRequest>(param).map(|r| {
                pb::BypassProcedureResponse {
                    bypassed: r
                        .proc_id
                        .iter()
                        .map(|id| m.procedure_log.bypass(*id))
                        .collect(),
                }
                .encode_to_vec()
            }),
            "FixMeta" => decode::<pb::FixMetaRequest>(param).and_then(|_| {
                for line in hbck::fix_meta(m).map_err(|e| from_error(&e))? {
                    use std::io::Write as _;
                    let _ = writeln!(std::io::stderr(), "hbck fixMeta: {line}");
                }
                Ok(pb::FixMetaResponse {}.encode_to_vec())
            }),
            "AddFsRegionsMissingInMeta" => decode::<pb::HbckTablesRequest>(param)
                .and_then(|r| done(hbck::add_fs_regions_missing_in_meta(m, &tables(&r)?))),
            "ArchiveOrphans" => decode::<pb::HbckTablesRequest>(param)
                .and_then(|r| done(hbck::archive_orphans(m, &tables(&r)?))),
            _ => return None,
        })
    }
}

impl Service for HbckService {
    fn name(&self) -> &'static str {
        "HbckService"
    }

    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        _cell_block: &Bytes,
        caller: Option<&User>,
    ) -> Option<Outcome> {
        if let Err(e) = self
            .master
            .access
            .check_any(caller, &[Action::Admin], &Scope::Global)
        {
            return Some(Err(from_error(&e)));
        }
        self.run(method, param)
    }
}
