//! Regions and the balancer: moving, assigning, splitting and merging regions, the balancer
//! and the split and merge switches (global ADMIN to change, open to read).

use basalt_common::{Error, ErrorKind, Result, TableName};
use basalt_proto::pb;
use basalt_proto::schema::pb_table_name;

use crate::declare::{calls, operations};
use crate::{Changed, need};

/// A region the catalog does not know is one no server serves: NotServingRegionException, as
/// HBase's master answers, so the client looks it up again.
pub fn not_serving(e: &Error) -> pb::ExceptionResponse {
    match e.kind() {
        ErrorKind::NotFound => basalt_proto::exception(
            "org.apache.hadoop.hbase.NotServingRegionException",
            e.to_string(),
            false,
        ),
        _ => basalt_proto::from_error(e),
    }
}

operations! {
    /// Regions and the balancer.
    area Regions, handler RegionHandler;
    /// Moves a region to a server (or one the balancer picks).
    MoveRegion(pb::MoveRegionRequest) -> pb::MoveRegionResponse = move_region,
        need need::admin, errors not_serving;
    /// Opens a region on a server.
    AssignRegion(pb::AssignRegionRequest) -> pb::AssignRegionResponse = assign_region,
        need need::admin, errors not_serving;
    /// Closes a region (it is opened again elsewhere).
    UnassignRegion(pb::UnassignRegionRequest) -> pb::UnassignRegionResponse = unassign_region,
        need need::admin, errors not_serving;
    /// Splits a region at a row (or its middle).
    SplitRegion(pb::SplitTableRegionRequest) -> pb::ProcedureResponse = split_region,
        need need::admin, nonce;
    /// Empties a region: a fresh region over the same rows takes its place (HBase 2.6's
    /// Admin.truncateRegion).
    TruncateRegion(pb::TruncateRegionRequest) -> pb::ProcedureResponse = truncate_region,
        need need::admin, nonce, errors not_serving;
    /// Merges two adjacent regions.
    MergeTableRegions(pb::MergeTableRegionsRequest) -> pb::ProcedureResponse
        = merge_table_regions, need need::admin, nonce, errors not_serving;
    /// Runs the balancer once.
    Balance(pb::BalanceRequest) -> pb::BalanceResponse = balance, need need::admin;
    /// Switches the balancer on or off.
    SetBalancerRunning(pb::SetBalancerRunningRequest) -> pb::SetBalancerRunningResponse
        = set_balancer_running, need need::admin;
    /// Whether the balancer runs.
    IsBalancerEnabled(pb::IsBalancerEnabledRequest) -> pb::IsBalancerEnabledResponse
        = is_balancer_enabled, need need::anyone;
    /// Switches splits or merges on or off.
    SetSplitOrMergeEnabled(pb::SetSplitOrMergeEnabledRequest)
        -> pb::SetSplitOrMergeEnabledResponse = set_split_or_merge_enabled, need need::admin;
    /// Whether splits or merges are on.
    IsSplitOrMergeEnabled(pb::IsSplitOrMergeEnabledRequest) -> pb::IsSplitOrMergeEnabledResponse
        = is_split_or_merge_enabled, need need::anyone;
    /// Runs the normalizer on some tables.
    Normalize(pb::NormalizeRequest) -> pb::NormalizeResponse = normalize, need need::admin;
    /// Flushes a table's regions (HBase 2.6's route for Admin.flush), as a procedure.
    FlushTable(pb::FlushTableRequest) -> pb::FlushTableResponse = flush_table,
        need |r: &pb::FlushTableRequest| crate::Need::admin_or_create(&r.table_name), nonce;
    /// Runs a named procedure: "flush-table-proc" flushes the table its instance names (the
    /// route to Admin.flush before HBase 2.6); another signature is refused.
    ExecProcedure(pb::ExecProcedureRequest) -> pb::ExecProcedureResponse = exec_procedure,
        need exec_need;
    /// ExecProcedure, answered with the procedure's return data (a flush has none).
    ExecProcedureWithRet(pb::ExecProcedureRequest) -> pb::ExecProcedureResponse
        = exec_procedure_with_ret, need exec_need;
    /// Whether a procedure ExecProcedure ran is done (Basalt's are, once it answers).
    IsProcedureDone(pb::IsProcedureDoneRequest) -> pb::IsProcedureDoneResponse
        = is_procedure_done, need need::anyone;
    /// When a table's last major compaction finished: the oldest of its regions', 0 when one
    /// has had none.
    MajorCompactionTimestamp as "getLastMajorCompactionTimestamp"
        (pb::MajorCompactionTimestampRequest) -> pb::MajorCompactionTimestampResponse
        = last_major_compaction, need need::anyone;
    /// When a region's last major compaction finished, 0 when it has had none.
    MajorCompactionTimestampForRegion as "getLastMajorCompactionTimestampForRegion"
        (pb::MajorCompactionTimestampForRegionRequest) -> pb::MajorCompactionTimestampResponse
        = last_major_compaction_of_region, need need::anyone;
}

/// The one procedure ExecProcedure runs.
pub const FLUSH_TABLE_PROCEDURE: &str = "flush-table-proc";

/// ADMIN or CREATE on the table a flush procedure names, as HBase's flush procedure manager
/// asks; global ADMIN for any other procedure (refused anyway).
fn exec_need(r: &pb::ExecProcedureRequest) -> Result<Option<crate::Need>> {
    use basalt_common::acl::{Action, Scope};
    let p = &r.procedure;
    if p.signature == FLUSH_TABLE_PROCEDURE {
        let table = TableName::parse(p.instance.as_deref().unwrap_or_default())?;
        return Ok(Some(crate::Need {
            actions: vec![Action::Admin, Action::Create],
            scope: Scope::table(&table),
        }));
    }
    Ok(Some(crate::Need::global(Action::Admin)))
}

/// A server named `host,port,startcode` or `host:port`, or none: another server.
fn destination(to: Option<&str>) -> Result<Option<pb::ServerName>> {
    to.map(basalt_proto::server_name).transpose()
}

fn switch_type(split: bool) -> pb::MasterSwitchType {
    if split {
        pb::MasterSwitchType::Split
    } else {
        pb::MasterSwitchType::Merge
    }
}

calls! {
    /// Regions and the balancer.
    RegionAdmin, AsyncRegionAdmin;

    /// Switches the balancer; returns whether it was on.
    async fn balance_switch(c, on: bool) -> Result<bool> {
        let request = pb::SetBalancerRunningRequest {
            on,
            synchronous: Some(true),
        };
        let r = c.call::<SetBalancerRunning>(None, request).await?;
        Ok(r.prev_balance_value.unwrap_or(false))
    }

    /// Whether the balancer is on.
    async fn balancer_enabled(c) -> Result<bool> {
        let r = c
            .call::<IsBalancerEnabled>(None, pb::IsBalancerEnabledRequest {})
            .await?;
        Ok(r.enabled)
    }

    /// Runs the balancer once; false if it is switched off.
    async fn balancer(c) -> Result<bool> {
        let r = c.call::<Balance>(None, pb::BalanceRequest::default()).await?;
        c.changed(Changed::Regions);
        Ok(r.balancer_ran)
    }

    /// How many moves the balancer would make now, making none (HBase's dry run; planned
    /// also when the balancer is switched off).
    async fn balancer_dry_run(c) -> Result<u32> {
        let request = pb::BalanceRequest {
            dry_run: Some(true),
            ..pb::BalanceRequest::default()
        };
        let r = c.call::<Balance>(None, request).await?;
        Ok(r.moves_calculated.unwrap_or(0))
    }

    /// Moves a region, named by its full name, to `to` (`host,port,startcode` or
    /// `host:port`), or to another server.
    async fn move_region(c, region: &[u8], to: Option<&str>) -> Result<()> {
        let request = pb::MoveRegionRequest {
            region: basalt_proto::region(region),
            dest_server_name: destination(to)?,
        };
        c.call::<MoveRegion>(None, request).await?;
        c.changed(Changed::Regions);
        Ok(())
    }

    /// Opens a closed region.
    async fn assign(c, region: &[u8]) -> Result<()> {
        let request = pb::AssignRegionRequest {
            region: basalt_proto::region(region),
            r#override: None,
        };
        c.call::<AssignRegion>(None, request).await?;
        c.changed(Changed::Regions);
        Ok(())
    }

    /// Closes a region and leaves it closed.
    async fn unassign(c, region: &[u8]) -> Result<()> {
        let request = pb::UnassignRegionRequest {
            region: basalt_proto::region(region),
            force: None,
        };
        c.call::<UnassignRegion>(None, request).await?;
        c.changed(Changed::Regions);
        Ok(())
    }

    /// Switches splits (`split`) or merges; returns whether they were on.
    async fn split_or_merge_switch(c, split: bool, on: bool) -> Result<bool> {
        let request = pb::SetSplitOrMergeEnabledRequest {
            enabled: on,
            synchronous: None,
            switch_types: vec![switch_type(split) as i32],
        };
        let r = c.call::<SetSplitOrMergeEnabled>(None, request).await?;
        Ok(r.prev_value.first().copied().unwrap_or(true))
    }

    /// Whether splits (`split`) or merges are on.
    async fn split_or_merge_enabled(c, split: bool) -> Result<bool> {
        let request = pb::IsSplitOrMergeEnabledRequest {
            switch_type: switch_type(split) as i32,
        };
        Ok(c.call::<IsSplitOrMergeEnabled>(None, request).await?.enabled)
    }

    /// Runs the normalizer now, over `tables` (none: every table); whether it ran.
    async fn normalize(c, tables: &[TableName]) -> Result<bool> {
        let request = pb::NormalizeRequest {
            table_names: tables.iter().map(pb_table_name).collect(),
            regex: None,
            namespace: None,
        };
        let r = c.call::<Normalize>(None, request).await?;
        c.changed(Changed::Regions);
        Ok(r.normalizer_ran)
    }
}
