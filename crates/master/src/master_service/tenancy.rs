//! MasterService's calls for many tenants (issue 48): quotas (SetQuota, the throttle
//! switches, space use) and region server groups (HBase 3's RSGroup calls, and Basalt's
//! MoveNamespaces).

use basalt_common::rsgroup::{RsGroupChange, RsGroupInfo};
use basalt_common::{Error, Result, TableName};
use basalt_ops::quotas::QuotaHandler;
use basalt_ops::rsgroups::RsGroupHandler;
use basalt_proto::pb;
use basalt_proto::rsgroup::{address_of, info_pb};
use basalt_proto::schema::{parse_table_name, pb_table_name};

use super::MasterService;

/// The `host:port` of each server named.
fn addresses(servers: &[pb::ServerName]) -> Result<Vec<String>> {
    servers.iter().map(address_of).collect()
}

impl MasterService {
    /// Applies a change to the region server groups.
    fn rsgroup_change(&self, change: RsGroupChange) -> Result<()> {
        crate::rsgroup_admin::change(&self.master, &change)
    }

    /// The first group `pick` chooses.
    fn rsgroup_where(
        &self,
        pick: impl Fn(&RsGroupInfo) -> bool,
    ) -> Result<Option<pb::RsGroupInfo>> {
        let groups = crate::rsgroup_admin::list(&self.master)?;
        Ok(groups.iter().find(|g| pick(g)).map(info_pb))
    }
}

impl RsGroupHandler for MasterService {
    fn list_rs_group_infos(
        &self,
        _: pb::ListRsGroupInfosRequest,
    ) -> Result<pb::ListRsGroupInfosResponse> {
        let groups = crate::rsgroup_admin::list(&self.master)?;
        Ok(pb::ListRsGroupInfosResponse {
            r_s_group_info: groups.iter().map(info_pb).collect(),
        })
    }

    fn get_rs_group_info(
        &self,
        r: pb::GetRsGroupInfoRequest,
    ) -> Result<pb::GetRsGroupInfoResponse> {
        Ok(pb::GetRsGroupInfoResponse {
            r_s_group_info: self.rsgroup_where(|g| g.name == r.r_s_group_name)?,
        })
    }

    fn get_rs_group_info_of_table(
        &self,
        r: pb::GetRsGroupInfoOfTableRequest,
    ) -> Result<pb::GetRsGroupInfoOfTableResponse> {
        let table = parse_table_name(&r.table_name)?;
        Ok(pb::GetRsGroupInfoOfTableResponse {
            r_s_group_info: self.rsgroup_where(|g| g.tables.contains(&table))?,
        })
    }

    fn get_rs_group_info_of_server(
        &self,
        r: pb::GetRsGroupInfoOfServerRequest,
    ) -> Result<pb::GetRsGroupInfoOfServerResponse> {
        let address = address_of(&r.server)?;
        Ok(pb::GetRsGroupInfoOfServerResponse {
            r_s_group_info: self.rsgroup_where(|g| g.servers.contains(&address))?,
        })
    }

    fn add_rs_group(&self, r: pb::AddRsGroupRequest) -> Result<pb::AddRsGroupResponse> {
        self.rsgroup_change(RsGroupChange::Add(r.r_s_group_name))?;
        Ok(pb::AddRsGroupResponse {})
    }

    fn remove_rs_group(&self, r: pb::RemoveRsGroupRequest) -> Result<pb::RemoveRsGroupResponse> {
        self.rsgroup_change(RsGroupChange::Remove(r.r_s_group_name))?;
        Ok(pb::RemoveRsGroupResponse {})
    }

    fn rename_rs_group(&self, r: pb::RenameRsGroupRequest) -> Result<pb::RenameRsGroupResponse> {
        self.rsgroup_change(RsGroupChange::Rename {
            from: r.old_rsgroup_name,
            to: r.new_rsgroup_name,
        })?;
        Ok(pb::RenameRsGroupResponse {})
    }

    fn move_servers(&self, r: pb::MoveServersRequest) -> Result<pb::MoveServersResponse> {
        let servers = addresses(&r.servers)?;
        self.rsgroup_change(RsGroupChange::MoveServers {
            to: r.target_group,
            servers,
        })?;
        Ok(pb::MoveServersResponse {})
    }

    fn move_tables(&self, r: pb::MoveTablesRequest) -> Result<pb::MoveTablesResponse> {
        let tables = r
            .table_name
            .iter()
            .map(parse_table_name)
            .collect::<Result<Vec<TableName>>>()?;
        self.rsgroup_change(RsGroupChange::MoveTables {
            to: r.target_group,
            tables,
        })?;
        Ok(pb::MoveTablesResponse {})
    }

    fn move_namespaces(&self, r: pb::MoveNamespacesRequest) -> Result<pb::MoveNamespacesResponse> {
        self.rsgroup_change(RsGroupChange::MoveNamespaces {
            to: r.target_group,
            namespaces: r.namespace,
        })?;
        Ok(pb::MoveNamespacesResponse {})
    }

    fn remove_servers(&self, r: pb::RemoveServersRequest) -> Result<pb::RemoveServersResponse> {
        let servers = addresses(&r.servers)?;
        self.rsgroup_change(RsGroupChange::RemoveServers(servers))?;
        Ok(pb::RemoveServersResponse {})
    }

    fn update_rs_group_config(
        &self,
        r: pb::UpdateRsGroupConfigRequest,
    ) -> Result<pb::UpdateRsGroupConfigResponse> {
        self.rsgroup_change(RsGroupChange::Configure {
            name: r.group_name,
            config: r
                .configuration
                .into_iter()
                .map(|p| (p.name, p.value))
                .collect(),
        })?;
        Ok(pb::UpdateRsGroupConfigResponse {})
    }

    fn balance_rs_group(&self, r: pb::BalanceRsGroupRequest) -> Result<pb::BalanceRsGroupResponse> {
        if r.dry_run() {
            return Err(basalt_proto::refusal(
                "BalanceRSGroupRequest.dry_run",
                "Basalt's balancer plans and moves in one step",
            ));
        }
        let moved = crate::balancer::balance_group(&self.master, &r.r_s_group_name)?;
        Ok(pb::BalanceRsGroupResponse {
            balance_ran: moved.is_some(),
            moves_calculated: None,
            moves_executed: moved.and_then(|n| u32::try_from(n).ok()),
        })
    }
}

impl QuotaHandler for MasterService {
    fn set_quota(&self, r: pb::SetQuotaRequest) -> Result<pb::SetQuotaResponse> {
        let (subject, change) = basalt_ops::quotas::change_of(&r)?;
        crate::quota_store::set(&self.master, &subject, &change)?;
        Ok(pb::SetQuotaResponse {})
    }

    fn switch_rpc_throttle(
        &self,
        r: pb::SwitchRpcThrottleRequest,
    ) -> Result<pb::SwitchRpcThrottleResponse> {
        let was = crate::quota_store::switch_rpc_throttle(&self.master, r.rpc_throttle_enabled)?;
        Ok(pb::SwitchRpcThrottleResponse {
            previous_rpc_throttle_enabled: was,
        })
    }

    fn is_rpc_throttle_enabled(
        &self,
        _: pb::IsRpcThrottleEnabledRequest,
    ) -> Result<pb::IsRpcThrottleEnabledResponse> {
        Ok(pb::IsRpcThrottleEnabledResponse {
            rpc_throttle_enabled: crate::quota_store::rpc_throttle_enabled(&self.master),
        })
    }

    fn switch_exceed_throttle_quota(
        &self,
        r: pb::SwitchExceedThrottleQuotaRequest,
    ) -> Result<pb::SwitchExceedThrottleQuotaResponse> {
        let on = r.exceed_throttle_quota_enabled;
        // As HBase, refused on unless a REGIONSERVER throttle exists to bound it.
        if on && !crate::quota_store::bounded(&self.master)? {
            return Err(Error::InvalidArgument(
                "exceeding throttles needs a REGIONSERVER throttle to bound it: set one with \
                 set_quota TYPE => THROTTLE, REGIONSERVER => 'all', LIMIT => ..."
                    .into(),
            ));
        }
        let was = crate::quota_store::switch_exceed_throttle(&self.master, on)?;
        Ok(pb::SwitchExceedThrottleQuotaResponse {
            previous_exceed_throttle_quota_enabled: was,
        })
    }

    fn get_space_quota_region_sizes(
        &self,
        _: pb::GetSpaceQuotaRegionSizesRequest,
    ) -> Result<pb::GetSpaceQuotaRegionSizesResponse> {
        use pb::get_space_quota_region_sizes_response::RegionSizes;
        let before = self
            .master
            .space_use
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .sizes
            .clone();
        Ok(pb::GetSpaceQuotaRegionSizesResponse {
            sizes: crate::quota_store::table_sizes(&self.master, &before)
                .into_iter()
                .map(|(t, size)| RegionSizes {
                    table_name: Some(pb_table_name(&t)),
                    size: Some(size),
                })
                .collect(),
        })
    }

    fn get_quota_states(&self, _: pb::GetQuotaStatesRequest) -> Result<pb::GetQuotaStatesResponse> {
        use pb::get_quota_states_response::{NamespaceQuotaSnapshot, TableQuotaSnapshot};
        let used = self
            .master
            .space_use
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Ok(pb::GetQuotaStatesResponse {
            table_snapshots: used
                .tables
                .iter()
                .map(|(t, s)| TableQuotaSnapshot {
                    table_name: Some(pb_table_name(t)),
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
        })
    }
}
