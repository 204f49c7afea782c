//! Quotas: setting one and the throttle switches need global ADMIN; reading the switches
//! and the space in use is open to all.

use basalt_proto::pb;

use crate::declare::operations;
use crate::need;

operations! {
    /// Quotas and throttles.
    area Quotas, handler QuotaHandler;
    /// Sets, changes or removes a throttle or a space quota.
    SetQuota(pb::SetQuotaRequest) -> pb::SetQuotaResponse = set_quota, need need::admin;
    /// Switches throttling.
    SwitchRpcThrottle(pb::SwitchRpcThrottleRequest) -> pb::SwitchRpcThrottleResponse
        = switch_rpc_throttle, need need::admin;
    /// Whether throttling is on.
    IsRpcThrottleEnabled(pb::IsRpcThrottleEnabledRequest) -> pb::IsRpcThrottleEnabledResponse
        = is_rpc_throttle_enabled, need need::anyone;
    /// Switches whether throttles may be exceeded while the servers have room.
    SwitchExceedThrottleQuota(pb::SwitchExceedThrottleQuotaRequest)
        -> pb::SwitchExceedThrottleQuotaResponse = switch_exceed_throttle_quota,
        need need::admin;
    /// Each table's size, as space quotas count it.
    GetSpaceQuotaRegionSizes(pb::GetSpaceQuotaRegionSizesRequest)
        -> pb::GetSpaceQuotaRegionSizesResponse = get_space_quota_region_sizes,
        need need::anyone;
    /// Each space quota's use and whether its policy is in force.
    GetQuotaStates(pb::GetQuotaStatesRequest) -> pb::GetQuotaStatesResponse
        = get_quota_states, need need::anyone;
}
