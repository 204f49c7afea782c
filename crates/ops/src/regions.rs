//! Regions and the balancer: moving, assigning, splitting and merging regions, the balancer
//! and the split and merge switches (global ADMIN to change, open to read).

use basalt_common::{Error, ErrorKind};
use basalt_proto::pb;

use crate::declare::operations;
use crate::need;

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
}
