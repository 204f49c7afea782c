//! Region server groups (HBase 3's RSGroup calls, and Basalt's MoveNamespaces): every call
//! needs global ADMIN, reads too, as HBase's AccessController has it.

use basalt_common::Result;
use basalt_common::rsgroup::{RsGroupChange, RsGroupInfo};
use basalt_proto::schema::pb_table_name;
use basalt_proto::{pb, rsgroup};

use crate::declare::{calls, operations};
use crate::need;

operations! {
    /// Region server groups.
    area RsGroups, handler RsGroupHandler;
    /// Every group.
    ListRsGroupInfos as "ListRSGroupInfos" (pb::ListRsGroupInfosRequest)
        -> pb::ListRsGroupInfosResponse = list_rs_group_infos, need need::admin;
    /// A group by name.
    GetRsGroupInfo as "GetRSGroupInfo" (pb::GetRsGroupInfoRequest) -> pb::GetRsGroupInfoResponse
        = get_rs_group_info, need need::admin;
    /// The group a table is in.
    GetRsGroupInfoOfTable as "GetRSGroupInfoOfTable" (pb::GetRsGroupInfoOfTableRequest)
        -> pb::GetRsGroupInfoOfTableResponse = get_rs_group_info_of_table, need need::admin;
    /// The group a server is in.
    GetRsGroupInfoOfServer as "GetRSGroupInfoOfServer" (pb::GetRsGroupInfoOfServerRequest)
        -> pb::GetRsGroupInfoOfServerResponse = get_rs_group_info_of_server, need need::admin;
    /// Adds a group.
    AddRsGroup as "AddRSGroup" (pb::AddRsGroupRequest) -> pb::AddRsGroupResponse
        = add_rs_group, need need::admin;
    /// Removes an empty group.
    RemoveRsGroup as "RemoveRSGroup" (pb::RemoveRsGroupRequest) -> pb::RemoveRsGroupResponse
        = remove_rs_group, need need::admin;
    /// Renames a group.
    RenameRsGroup as "RenameRSGroup" (pb::RenameRsGroupRequest) -> pb::RenameRsGroupResponse
        = rename_rs_group, need need::admin;
    /// Moves servers into a group.
    MoveServers(pb::MoveServersRequest) -> pb::MoveServersResponse = move_servers,
        need need::admin;
    /// Moves tables into a group.
    MoveTables(pb::MoveTablesRequest) -> pb::MoveTablesResponse = move_tables,
        need need::admin;
    /// Moves namespaces (their tables, and those made later) into a group.
    MoveNamespaces(pb::MoveNamespacesRequest) -> pb::MoveNamespacesResponse = move_namespaces,
        need need::admin;
    /// Forgets dead servers' group membership.
    RemoveServers(pb::RemoveServersRequest) -> pb::RemoveServersResponse = remove_servers,
        need need::admin;
    /// Replaces a group's configuration.
    UpdateRsGroupConfig as "UpdateRSGroupConfig" (pb::UpdateRsGroupConfigRequest)
        -> pb::UpdateRsGroupConfigResponse = update_rs_group_config, need need::admin;
    /// Balances one group's regions over its servers.
    BalanceRsGroup as "BalanceRSGroup" (pb::BalanceRsGroupRequest) -> pb::BalanceRsGroupResponse
        = balance_rs_group, need need::admin;
}

/// Servers by their `host:port` names, as a request carries them; a bad address is named
/// here, as the server would, not sent as port 0.
fn servers(list: &[String]) -> Result<Vec<pb::ServerName>> {
    list.iter()
        .map(|s| basalt_common::rsgroup::address(s).map(|a| rsgroup::server_pb(&a)))
        .collect()
}

calls! {
    /// Region server groups.
    RsGroupAdmin, AsyncRsGroupAdmin;

    /// Every group.
    async fn list_rsgroups(c) -> Result<Vec<RsGroupInfo>> {
        let r = c
            .call::<ListRsGroupInfos>(None, pb::ListRsGroupInfosRequest {})
            .await?;
        r.r_s_group_info.iter().map(rsgroup::info_of).collect()
    }

    /// Changes the groups: adds, removes or renames one, moves servers, tables or namespaces
    /// into one, forgets dead servers, or replaces a group's configuration.
    async fn change_rsgroups(c, change: &RsGroupChange) -> Result<()> {
        match change {
            RsGroupChange::Add(name) => {
                let request = pb::AddRsGroupRequest {
                    r_s_group_name: name.clone(),
                };
                c.call::<AddRsGroup>(None, request).await?;
            }
            RsGroupChange::Remove(name) => {
                let request = pb::RemoveRsGroupRequest {
                    r_s_group_name: name.clone(),
                };
                c.call::<RemoveRsGroup>(None, request).await?;
            }
            RsGroupChange::Rename { from, to } => {
                let request = pb::RenameRsGroupRequest {
                    old_rsgroup_name: from.clone(),
                    new_rsgroup_name: to.clone(),
                };
                c.call::<RenameRsGroup>(None, request).await?;
            }
            RsGroupChange::MoveServers { to, servers: list } => {
                let request = pb::MoveServersRequest {
                    target_group: to.clone(),
                    servers: servers(list)?,
                };
                c.call::<MoveServers>(None, request).await?;
            }
            RsGroupChange::MoveTables { to, tables } => {
                let request = pb::MoveTablesRequest {
                    target_group: to.clone(),
                    table_name: tables.iter().map(pb_table_name).collect(),
                };
                c.call::<MoveTables>(None, request).await?;
            }
            RsGroupChange::MoveNamespaces { to, namespaces } => {
                let request = pb::MoveNamespacesRequest {
                    target_group: to.clone(),
                    namespace: namespaces.clone(),
                };
                c.call::<MoveNamespaces>(None, request).await?;
            }
            RsGroupChange::RemoveServers(list) => {
                let request = pb::RemoveServersRequest {
                    servers: servers(list)?,
                };
                c.call::<RemoveServers>(None, request).await?;
            }
            RsGroupChange::Configure { name, config } => {
                let configuration = config
                    .iter()
                    .map(|(k, v)| pb::NameStringPair {
                        name: k.clone(),
                        value: v.clone(),
                    })
                    .collect();
                let request = pb::UpdateRsGroupConfigRequest {
                    group_name: name.clone(),
                    configuration,
                };
                c.call::<UpdateRsGroupConfig>(None, request).await?;
            }
        }
        Ok(())
    }

    /// Balances one group; whether the balancer ran.
    async fn balance_rsgroup(c, name: &str) -> Result<bool> {
        let request = pb::BalanceRsGroupRequest {
            r_s_group_name: name.to_owned(),
            ignore_rit: None,
            dry_run: None,
        };
        Ok(c.call::<BalanceRsGroup>(None, request).await?.balance_ran)
    }
}
