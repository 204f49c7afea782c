//! Region server groups (HBase 3's RSGroup calls, and Basalt's MoveNamespaces): every call
//! needs global ADMIN, reads too, as HBase's AccessController has it.

use basalt_proto::pb;

use crate::declare::operations;
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
