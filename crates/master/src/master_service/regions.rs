//! Regions and the balancer, as MasterService serves them.

use basalt_common::chore::Chore;
use basalt_common::{Bytes, Error, RegionInfo, Result, TableName};
use basalt_ops::regions::{FLUSH_TABLE_PROCEDURE, RegionHandler};
use basalt_proto::pb;
use basalt_proto::refusal;
use basalt_proto::schema::parse_table_name;

use super::MasterService;

/// The name of the region a RegionInfo describes: table, start key and id are all a region
/// name holds (a region not serving is the split's UnknownRegionException).
fn region_name(info: &pb::RegionInfo) -> Result<Bytes> {
    if info.replica_id.is_some_and(|r| r > 0) {
        return Err(refusal(
            "RegionInfo.replica_id",
            "Basalt keeps one replica of each region (replica 0)",
        ));
    }
    let table = parse_table_name(&info.table_name)?;
    let start = Bytes::from(info.start_key.clone().unwrap_or_default());
    let id = i64::try_from(info.region_id).unwrap_or(-1);
    Ok(RegionInfo::new(table, start, Bytes::new(), id).region_name())
}

/// Refuses a procedure other than the table flush, the one ExecProcedure runs.
fn flush_procedure(call: &str, p: &pb::ProcedureDescription) -> Result<()> {
    if p.signature == FLUSH_TABLE_PROCEDURE {
        return Ok(());
    }
    Err(refusal(
        &format!("{call} {:?}", p.signature),
        &format!("Basalt runs one procedure by name, {FLUSH_TABLE_PROCEDURE:?}"),
    ))
}

/// A region's last major compaction as its load reports it; 0 when none did, or no load.
fn major_compacted_at(load: Option<&pb::RegionLoad>) -> i64 {
    load.and_then(|l| l.last_major_compaction_ts)
        .map_or(0, |ts| i64::try_from(ts).unwrap_or(i64::MAX))
}

impl RegionHandler for MasterService {
    fn move_region(&self, r: pb::MoveRegionRequest) -> Result<pb::MoveRegionResponse> {
        let to = r.dest_server_name.map(|s| match s.start_code {
            Some(code) => format!("{},{},{code}", s.host_name, s.port.unwrap_or(0)),
            None => format!("{}:{}", s.host_name, s.port.unwrap_or(0)),
        });
        self.admin().move_region(&r.region.value, to.as_deref())?;
        Ok(pb::MoveRegionResponse {})
    }

    fn assign_region(&self, r: pb::AssignRegionRequest) -> Result<pb::AssignRegionResponse> {
        self.admin().assign(&r.region.value)?;
        Ok(pb::AssignRegionResponse {})
    }

    fn unassign_region(&self, r: pb::UnassignRegionRequest) -> Result<pb::UnassignRegionResponse> {
        self.admin().unassign(&r.region.value)?;
        Ok(pb::UnassignRegionResponse {})
    }

    fn split_region(&self, r: pb::SplitTableRegionRequest) -> Result<pb::ProcedureResponse> {
        let name = region_name(&r.region_info)?;
        self.admin().split_region(&name, r.split_row.as_deref())?;
        Ok(self.procedure_done())
    }

    fn truncate_region(&self, r: pb::TruncateRegionRequest) -> Result<pb::ProcedureResponse> {
        let name = region_name(&r.region_info)?;
        self.admin().truncate_region(&name)?;
        Ok(self.procedure_done())
    }

    fn merge_table_regions(
        &self,
        r: pb::MergeTableRegionsRequest,
    ) -> Result<pb::ProcedureResponse> {
        if r.forcible() {
            return Err(refusal(
                "MergeTableRegionsRequest.forcible",
                "Basalt merges adjacent regions only",
            ));
        }
        let [a, b] = r.region.as_slice() else {
            return Err(Error::Refused(format!(
                "MergeTableRegions takes two regions, not {}",
                r.region.len()
            )));
        };
        self.admin().merge_regions(&a.value, &b.value)?;
        Ok(self.procedure_done())
    }

    fn balance(&self, r: pb::BalanceRequest) -> Result<pb::BalanceResponse> {
        // `ignore_rit` changes nothing: Basalt's moves finish within the call that makes
        // them, so no region is in transition when the balancer runs.
        if r.dry_run() {
            let planned = self.admin().balance_dry_run()?;
            return Ok(pb::BalanceResponse {
                balancer_ran: true,
                moves_calculated: u32::try_from(planned).ok(),
                moves_executed: Some(0),
            });
        }
        Ok(pb::BalanceResponse {
            balancer_ran: self.admin().balance()?,
            moves_calculated: None,
            moves_executed: None,
        })
    }

    fn set_balancer_running(
        &self,
        r: pb::SetBalancerRunningRequest,
    ) -> Result<pb::SetBalancerRunningResponse> {
        Ok(pb::SetBalancerRunningResponse {
            prev_balance_value: Some(self.admin().balance_switch(r.on)),
        })
    }

    fn is_balancer_enabled(
        &self,
        _: pb::IsBalancerEnabledRequest,
    ) -> Result<pb::IsBalancerEnabledResponse> {
        Ok(pb::IsBalancerEnabledResponse {
            enabled: self.admin().is_balancer_enabled(),
        })
    }

    fn set_split_or_merge_enabled(
        &self,
        r: pb::SetSplitOrMergeEnabledRequest,
    ) -> Result<pb::SetSplitOrMergeEnabledResponse> {
        let admin = self.admin();
        Ok(pb::SetSplitOrMergeEnabledResponse {
            prev_value: r
                .switch_types
                .iter()
                .map(|t| {
                    let split = *t == pb::MasterSwitchType::Split as i32;
                    admin.split_or_merge_switch(split, r.enabled)
                })
                .collect(),
        })
    }

    fn is_split_or_merge_enabled(
        &self,
        r: pb::IsSplitOrMergeEnabledRequest,
    ) -> Result<pb::IsSplitOrMergeEnabledResponse> {
        let split = r.switch_type == pb::MasterSwitchType::Split as i32;
        Ok(pb::IsSplitOrMergeEnabledResponse {
            enabled: self.admin().split_or_merge_enabled(split),
        })
    }

    fn normalize(&self, r: pb::NormalizeRequest) -> Result<pb::NormalizeResponse> {
        let admin = self.admin();
        let mut tables: Vec<TableName> = r
            .table_names
            .iter()
            .map(parse_table_name)
            .collect::<Result<_>>()?;
        if r.regex.is_some() || r.namespace.is_some() {
            tables.extend(self.names(r.regex.as_deref(), false, r.namespace.as_deref())?);
            if tables.is_empty() {
                // Nothing matched: nothing to normalize (not every table).
                return Ok(pb::NormalizeResponse {
                    normalizer_ran: admin.chore_enabled(Chore::Normalizer),
                });
            }
        }
        Ok(pb::NormalizeResponse {
            normalizer_ran: admin.normalize(&tables)?,
        })
    }

    fn flush_table(&self, r: pb::FlushTableRequest) -> Result<pb::FlushTableResponse> {
        // Every family is flushed, also when the request names some: the same cells land in
        // store files either way (fields.md).
        self.admin().flush(&parse_table_name(&r.table_name)?)?;
        Ok(pb::FlushTableResponse {
            proc_id: Some(self.procedure()),
        })
    }

    fn exec_procedure(&self, r: pb::ExecProcedureRequest) -> Result<pb::ExecProcedureResponse> {
        let p = &r.procedure;
        flush_procedure("ExecProcedure", p)?;
        self.admin().flush(&TableName::parse(
            p.instance.as_deref().unwrap_or_default(),
        )?)?;
        // Done when answered; the client's wait is bounded by the timeout given.
        Ok(pb::ExecProcedureResponse {
            expected_timeout: Some(60_000),
            return_data: None,
        })
    }

    fn exec_procedure_with_ret(
        &self,
        r: pb::ExecProcedureRequest,
    ) -> Result<pb::ExecProcedureResponse> {
        self.exec_procedure(r)
    }

    fn is_procedure_done(
        &self,
        r: pb::IsProcedureDoneRequest,
    ) -> Result<pb::IsProcedureDoneResponse> {
        if let Some(p) = &r.procedure {
            flush_procedure("IsProcedureDone", p)?;
        }
        Ok(pb::IsProcedureDoneResponse {
            done: Some(true),
            snapshot: None,
        })
    }

    fn last_major_compaction(
        &self,
        r: pb::MajorCompactionTimestampRequest,
    ) -> Result<pb::MajorCompactionTimestampResponse> {
        let table = self.master.table(&parse_table_name(&r.table_name)?)?;
        let loads = self.master.servers.region_loads();
        // The oldest of the regions' (HBase's ClusterMetrics.getLastMajorCompactionTimestamp):
        // one never compacted, or not reporting, makes it 0.
        let oldest = table
            .placed()
            .iter()
            .map(|p| major_compacted_at(loads.get(&p.info.region_name()[..])))
            .min()
            .unwrap_or(0);
        Ok(pb::MajorCompactionTimestampResponse {
            compaction_timestamp: oldest,
        })
    }

    fn last_major_compaction_of_region(
        &self,
        r: pb::MajorCompactionTimestampForRegionRequest,
    ) -> Result<pb::MajorCompactionTimestampResponse> {
        let (_, placed) = self.master.find_placed(&r.region.value)?;
        let name = placed.info.region_name();
        // Only the region's own server is asked.
        let loads = placed.server.region_loads().unwrap_or_default();
        let load = loads.iter().find(|l| l.region_specifier.value == name[..]);
        Ok(pb::MajorCompactionTimestampResponse {
            compaction_timestamp: major_compacted_at(load),
        })
    }
}
