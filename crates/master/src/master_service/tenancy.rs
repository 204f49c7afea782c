//! MasterService's calls for many tenants (issue 48): quotas (SetQuota, the throttle
//! switches, space use) and region server groups (HBase 3's RSGroup calls, and Basalt's
//! MoveNamespaces).

use basalt_common::rsgroup::RsGroupChange;
use basalt_proto::pb::{self, ExceptionResponse};
use basalt_proto::schema::table_name;
use basalt_proto::{decode, from_error as fail};
use prost::Message;

use super::{MasterService, Outcome};

/// The `host:port` of each server named.
fn addresses(servers: &[pb::ServerName]) -> Result<Vec<String>, ExceptionResponse> {
    servers
        .iter()
        .map(basalt_proto::rsgroup::address_of)
        .collect::<basalt_common::Result<Vec<_>>>()
        .map_err(|e| fail(&e))
}

impl MasterService {
    /// Applies a change to the region server groups.
    fn rsgroup_change(&self, change: RsGroupChange) -> Result<(), ExceptionResponse> {
        crate::rsgroup_admin::change(&self.master, &change).map_err(|e| fail(&e))
    }

    /// Runs a quota or region server group call; None for any other method.
    pub(super) fn tenancy_call(&self, method: &str, param: Option<&[u8]>) -> Option<Outcome> {
        Some(match method {
            "SetQuota" => decode::<pb::SetQuotaRequest>(param).and_then(|r| {
                let (subject, change) =
                    basalt_proto::quota::set_quota_of(&r).map_err(|e| fail(&e))?;
                crate::quota_store::set(&self.master, &subject, &change).map_err(|e| fail(&e))?;
                Ok(pb::SetQuotaResponse {}.encode_to_vec())
            }),
            "ListRSGroupInfos" => decode::<pb::ListRsGroupInfosRequest>(param).and_then(|_| {
                let groups = crate::rsgroup_admin::list(&self.master).map_err(|e| fail(&e))?;
                Ok(pb::ListRsGroupInfosResponse {
                    r_s_group_info: groups.iter().map(basalt_proto::rsgroup::info_pb).collect(),
                }
                .encode_to_vec())
            }),
            "GetRSGroupInfo" => decode::<pb::GetRsGroupInfoRequest>(param).and_then(|r| {
                let groups = crate::rsgroup_admin::list(&self.master).map_err(|e| fail(&e))?;
                Ok(pb::GetRsGroupInfoResponse {
                    r_s_group_info: groups
                        .iter()
                        .find(|g| g.name == r.r_s_group_name)
                        .map(basalt_proto::rsgroup::info_pb),
                }
                .encode_to_vec())
            }),
            "GetRSGroupInfoOfTable" => {
                decode::<pb::GetRsGroupInfoOfTableRequest>(param).and_then(|r| {
                    let table = table_name(&r.table_name)?;
                    let groups = crate::rsgroup_admin::list(&self.master).map_err(|e| fail(&e))?;
                    Ok(pb::GetRsGroupInfoOfTableResponse {
                        r_s_group_info: groups
                            .iter()
                            .find(|g| g.tables.contains(&table))
                            .map(basalt_proto::rsgroup::info_pb),
                    }
                    .encode_to_vec())
                })
            }
            "GetRSGroupInfoOfServer" => decode::<pb::GetRsGroupInfoOfServerRequest>(param)
                .and_then(|r| {
                    let address =
                        basalt_proto::rsgroup::address_of(&r.server).map_err(|e| fail(&e))?;
                    let groups = crate::rsgroup_admin::list(&self.master).map_err(|e| fail(&e))?;
                    Ok(pb::GetRsGroupInfoOfServerResponse {
                        r_s_group_info: groups
                            .iter()
                            .find(|g| g.servers.contains(&address))
                            .map(basalt_proto::rsgroup::info_pb),
                    }
                    .encode_to_vec())
                }),
            "AddRSGroup" => decode::<pb::AddRsGroupRequest>(param).and_then(|r| {
                self.rsgroup_change(RsGroupChange::Add(r.r_s_group_name))?;
                Ok(pb::AddRsGroupResponse {}.encode_to_vec())
            }),
            "RemoveRSGroup" => decode::<pb::RemoveRsGroupRequest>(param).and_then(|r| {
                self.rsgroup_change(RsGroupChange::Remove(r.r_s_group_name))?;
                Ok(pb::RemoveRsGroupResponse {}.encode_to_vec())
            }),
            "RenameRSGroup" => decode::<pb::RenameRsGroupRequest>(param).and_then(|r| {
                self.rsgroup_change(RsGroupChange::Rename {
                    from: r.old_rsgroup_name,
                    to: r.new_rsgroup_name,
                })?;
                Ok(pb::RenameRsGroupResponse {}.encode_to_vec())
            }),
            "MoveServers" => decode::<pb::MoveServersRequest>(param).and_then(|r| {
                let servers = addresses(&r.servers)?;
                self.rsgroup_change(RsGroupChange::MoveServers {
                    to: r.target_group,
                    servers,
                })?;
                Ok(pb::MoveServersResponse {}.encode_to_vec())
            }),
            "MoveTables" => decode::<pb::MoveTablesRequest>(param).and_then(|r| {
                let tables = r
                    .table_name
                    .iter()
                    .map(table_name)
                    .collect::<Result<Vec<_>, _>>()?;
                self.rsgroup_change(RsGroupChange::MoveTables {
                    to: r.target_group,
                    tables,
                })?;
                Ok(pb::MoveTablesResponse {}.encode_to_vec())
            }),
            "MoveNamespaces" => decode::<pb::MoveNamespacesRequest>(param).and_then(|r| {
                self.rsgroup_change(RsGroupChange::MoveNamespaces {
                    to: r.target_group,
                    namespaces: r.namespace,
                })?;
                Ok(pb::MoveNamespacesResponse {}.encode_to_vec())
            }),
            "RemoveServers" => decode::<pb::RemoveServersRequest>(param).and_then(|r| {
                let servers = addresses(&r.servers)?;
                self.rsgroup_change(RsGroupChange::RemoveServers(servers))?;
                Ok(pb::RemoveServersResponse {}.encode_to_vec())
            }),
            "UpdateRSGroupConfig" => {
                decode::<pb::UpdateRsGroupConfigRequest>(param).and_then(|r| {
                    self.rsgroup_change(RsGroupChange::Configure {
                        name: r.group_name,
                        config: r
                            .configuration
                            .into_iter()
                            .map(|p| (p.name, p.value))
                            .collect(),
                    })?;
                    Ok(pb::UpdateRsGroupConfigResponse {}.encode_to_vec())
                })
            }
            "BalanceRSGroup" => decode::<pb::BalanceRsGroupRequest>(param).and_then(|r| {
                if r.dry_run() {
                    return Err(basalt_proto::refused(
                        "BalanceRSGroupRequest.dry_run",
                        "Basalt's balancer plans and moves in one step",
                    ));
                }
                let moved = crate::balancer::balance_group(&self.master, &r.r_s_group_name)
                    .map_err(|e| fail(&e))?;
                Ok(pb::BalanceRsGroupResponse {
                    balance_ran: moved.is_some(),
                    moves_calculated: None,
                    moves_executed: moved.and_then(|n| u32::try_from(n).ok()),
                }
                .encode_to_vec())
            }),
            "SwitchRpcThrottle" => decode::<pb::SwitchRpcThrottleRequest>(param).and_then(|r| {
                let was =
                    crate::quota_store::switch_rpc_throttle(&self.master, r.rpc_throttle_enabled)
                        .map_err(|e| fail(&e))?;
                Ok(pb::SwitchRpcThrottleResponse {
                    previous_rpc_throttle_enabled: was,
                }
                .encode_to_vec())
            }),
            "IsRpcThrottleEnabled" => decode::<pb::IsRpcThrottleEnabledRequest>(param).map(|_| {
                pb::IsRpcThrottleEnabledResponse {
                    rpc_throttle_enabled: crate::quota_store::rpc_throttle_enabled(&self.master),
                }
                .encode_to_vec()
            }),
            "SwitchExceedThrottleQuota" => decode::<pb::SwitchExceedThrottleQuotaRequest>(param)
                .and_then(|r| {
                    let was = crate::quota_store::switch_exceed_throttle(
                        &self.master,
                        r.exceed_throttle_quota_enabled,
                    )
                    .map_err(|e| fail(&e))?;
                    Ok(pb::SwitchExceedThrottleQuotaResponse {
                        previous_exceed_throttle_quota_enabled: was,
                    }
                    .encode_to_vec())
                }),
            "GetSpaceQuotaRegionSizes" => {
                decode::<pb::GetSpaceQuotaRegionSizesRequest>(param).map(|_| {
                    let before = self
                        .master
                        .space_use
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .sizes
                        .clone();
                    pb::GetSpaceQuotaRegionSizesResponse {
                        sizes: crate::quota_store::table_sizes(&self.master, &before)
                            .into_iter()
                            .map(|(t, size)| {
                                pb::get_space_quota_region_sizes_response::RegionSizes {
                                    table_name: Some(basalt_proto::schema::pb_table_name(&t)),
                                    size: Some(size),
                                }
                            })
                            .collect(),
                    }
                    .encode_to_vec()
                })
            }
            "GetQuotaStates" => decode::<pb::GetQuotaStatesRequest>(param).map(|_| {
                use pb::get_quota_states_response::{NamespaceQuotaSnapshot, TableQuotaSnapshot};
                let used = self
                    .master
                    .space_use
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                pb::GetQuotaStatesResponse {
                    table_snapshots: used
                        .tables
                        .iter()
                        .map(|(t, s)| TableQuotaSnapshot {
                            table_name: Some(basalt_proto::schema::pb_table_name(t)),
                            snapshot: Some(basalt_proto::quota::snapshot_pb(s)),
                        })
                        .collect(),
                    ns_snapshots: used
                        .namespaces
                        .iter()
                        .map(|(ns, s)| NamespaceQuotaSnapshot {
                            namespace: Some(ns.clone()),
                            snapshot: Some(basalt_proto::quota::snapshot_pb(s)),
                        })
                        .collect(),
                }
                .encode_to_vec()
            }),
            _ => return None,
        })
    }
}
