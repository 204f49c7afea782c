//! MasterService under access control: what each call needs (HBase's AccessController
//! master hooks), and the Grant, Revoke and GetUserPermissions calls, as MasterService
//! methods (HBase 2's `Admin.grant`) and as HBase's `AccessControlService` coprocessor endpoint
//! through `ExecMasterService` (with its CheckPermissions).

use basalt_common::acl::{Action, Scope, User};
use basalt_proto::pb::{self, ExceptionResponse};
use basalt_proto::schema::table_name;
use basalt_proto::{acl, decode, from_error as fail};
use prost::Message;

use crate::Admin;
use crate::master::Master;

type Outcome = Result<Vec<u8>, ExceptionResponse>;

fn bad(what: impl Into<String>) -> ExceptionResponse {
    basalt_proto::exception(
        "org.apache.hadoop.hbase.DoNotRetryIOException",
        what.into(),
        true,
    )
}

/// What `method` needs of its caller: any of the actions, on the scope. `None`: nothing
/// (reading descriptors, names, states and the cluster status is open to all, as in HBase).
fn required(
    method: &str,
    param: Option<&[u8]>,
) -> Result<Option<(Vec<Action>, Scope)>, ExceptionResponse> {
    let table_scope = |t: &pb::TableName| table_name(t).map(|t| Scope::table(&t));
    Ok(Some(match method {
        "CreateTable" => {
            let r = decode::<pb::CreateTableRequest>(param)?;
            let t = table_name(
                r.table_schema
                    .table_name
                    .as_ref()
                    .ok_or_else(|| bad("CreateTable without a table name"))?,
            )?;
            (
                vec![Action::Create],
                Scope::Namespace(t.namespace().to_owned()),
            )
        }
        "DeleteTable" | "EnableTable" | "DisableTable" => {
            let r = decode::<pb::TableNameRequest>(param)?;
            (
                vec![Action::Admin, Action::Create],
                table_scope(&r.table_name)?,
            )
        }
        "TruncateTable" | "truncateTable" => {
            let r = decode::<pb::TruncateTableRequest>(param)?;
            (
                vec![Action::Admin, Action::Create],
                table_scope(&r.table_name)?,
            )
        }
        "ModifyTable" => {
            let r = decode::<pb::ModifyTableRequest>(param)?;
            (
                vec![Action::Admin, Action::Create],
                table_scope(&r.table_name)?,
            )
        }
        "AddColumn" | "ModifyColumn" => {
            let r = decode::<pb::AddColumnRequest>(param)?;
            (
                vec![Action::Admin, Action::Create],
                table_scope(&r.table_name)?,
            )
        }
        "DeleteColumn" => {
            let r = decode::<pb::DeleteColumnRequest>(param)?;
            (
                vec![Action::Admin, Action::Create],
                table_scope(&r.table_name)?,
            )
        }
        // HBase's AccessController: a snapshot needs ADMIN on its table; deleting one, ADMIN.
        "Snapshot" => {
            let r = decode::<pb::SnapshotRequest>(param)?;
            let table = r.snapshot.table.as_deref().unwrap_or_default();
            let table = basalt_common::TableName::parse(table).map_err(|e| fail(&e))?;
            (vec![Action::Admin], Scope::table(&table))
        }
        "DeleteSnapshot" | "CloneSnapshot" | "RestoreSnapshot" => {
            (vec![Action::Admin], Scope::Global)
        }
        "CreateNamespace" | "ModifyNamespace" | "DeleteNamespace" | "SetBalancerRunning"
        | "Balance" | "MoveRegion" | "AssignRegion" | "UnassignRegion" | "SplitRegion"
        | "MergeTableRegions" => (vec![Action::Admin], Scope::Global),
        // HBase's AccessController: every peer call needs global ADMIN, reads too.
        "AddReplicationPeer"
        | "RemoveReplicationPeer"
        | "EnableReplicationPeer"
        | "DisableReplicationPeer"
        | "UpdateReplicationPeerConfig"
        | "GetReplicationPeerConfig"
        | "ListReplicationPeers"
        | "SetSplitOrMergeEnabled"
        | "StopMaster"
        | "ClearDeadServers"
        | "DecommissionRegionServers"
        | "RecommissionRegionServer"
        | "ListDecommissionedRegionServers"
        | "ReplicationPeerModificationSwitch"
        | "IsReplicationPeerModificationEnabled"
        // The operators' calls (issue 47), as HBase's AccessController guards them.
        | "Normalize"
        | "SetNormalizerRunning"
        | "RunCatalogScan"
        | "EnableCatalogJanitor"
        | "RunCleanerChore"
        | "SetCleanerChoreRunning"
        | "SwitchSnapshotCleanup"
        | "FlushMasterStore"
        | "GetProcedures"
        | "GetLocks"
        | "GetLogEntries"
        | "SetQuota"
        | "SwitchRpcThrottle"
        | "SwitchExceedThrottleQuota"
        | "AddRSGroup"
        | "RemoveRSGroup"
        | "RenameRSGroup"
        | "MoveServers"
        | "MoveTables"
        | "MoveNamespaces"
        | "RemoveServers"
        | "UpdateRSGroupConfig"
        | "BalanceRSGroup"
        | "ListRSGroupInfos"
        | "GetRSGroupInfo"
        | "GetRSGroupInfoOfTable"
        | "GetRSGroupInfoOfServer" => (vec![Action::Admin], Scope::Global),
        "Grant" => {
            let r = decode::<pb::GrantRequest>(param)?;
            let p = acl::permission_of(&r.user_permission).map_err(bad)?;
            (vec![Action::Admin], p.scope)
        }
        "Revoke" => {
            let r = decode::<pb::RevokeRequest>(param)?;
            let p = acl::permission_of(&r.user_permission).map_err(bad)?;
            (vec![Action::Admin], p.scope)
        }
        "GetUserPermissions" => {
            let r = decode::<pb::GetUserPermissionsRequest>(param)?;
            (vec![Action::Admin], acl::request_scope(&r).map_err(bad)?)
        }
        _ => return Ok(None),
    }))
}

/// `Ok` if `user` may make this call (always, with access control off).
pub fn authorize(
    master: &Master,
    method: &str,
    param: Option<&[u8]>,
    user: Option<&User>,
) -> Result<(), ExceptionResponse> {
    if user.is_none() || !master.access.is_enabled() {
        return Ok(());
    }
    if let Some((actions, scope)) = required(method, param)? {
        master
            .access
            .check_any(user, &actions, &scope)
            .map_err(|e| fail(&e))?;
    }
    Ok(())
}

/// HBase's coprocessor endpoint name for access control.
const ACCESS_CONTROL_SERVICE: &str = "AccessControlService";

/// `ExecMasterService` carrying an `AccessControlService` call (Grant, Revoke,
/// GetUserPermissions, CheckPermissions), checked as the MasterService methods of the same
/// names; any other endpoint is an UnknownProtocolException.
pub fn exec(master: &std::sync::Arc<Master>, param: Option<&[u8]>, user: Option<&User>) -> Outcome {
    let req = decode::<pb::CoprocessorServiceRequest>(param)?;
    let endpoint = &req.call;
    let service = endpoint.service_name.rsplit('.').next().unwrap_or_default();
    let method = endpoint.method_name.as_str();
    let known = matches!(
        method,
        "Grant" | "Revoke" | "GetUserPermissions" | "CheckPermissions"
    );
    if service != ACCESS_CONTROL_SERVICE || !known {
        return Err(basalt_proto::exception(
            "org.apache.hadoop.hbase.exceptions.UnknownProtocolException",
            format!(
                "No registered master coprocessor service {}.{method} (Basalt serves \
                 {ACCESS_CONTROL_SERVICE}: Grant, Revoke, GetUserPermissions, CheckPermissions)",
                endpoint.service_name
            ),
            true,
        ));
    }
    let inner = Some(endpoint.request.as_slice());
    let reply = if method == "CheckPermissions" {
        check_permissions(master, inner, user)?
    } else {
        authorize(master, method, inner, user)?;
        call(master, method, inner).unwrap_or_else(|| Err(bad("unreachable")))?
    };
    Ok(pb::CoprocessorServiceResponse {
        region: req.region.clone(),
        value: pb::NameBytesPair {
            name: format!("hbase.pb.{method}Response"),
            value: Some(reply),
        },
    }
    .encode_to_vec())
}

/// CheckPermissions: AccessDenied unless the caller holds every permission listed.
fn check_permissions(master: &Master, param: Option<&[u8]>, user: Option<&User>) -> Outcome {
    let r = decode::<pb::CheckPermissionsRequest>(param)?;
    if let Some(user) = user.filter(|_| master.access.is_enabled()) {
        for permission in r.permission {
            let asked = acl::permission_of(&pb::UserPermission {
                user: user.name.clone().into_bytes(),
                permission,
            })
            .map_err(bad)?;
            for action in asked.actions.iter() {
                master
                    .access
                    .check(Some(user), action, &asked.scope)
                    .map_err(|e| fail(&e))?;
            }
        }
    }
    Ok(pb::CheckPermissionsResponse {}.encode_to_vec())
}

/// Grant, Revoke and GetUserPermissions; `None` for the other methods.
pub fn call(
    master: &std::sync::Arc<Master>,
    method: &str,
    param: Option<&[u8]>,
) -> Option<Outcome> {
    let admin = Admin::new(std::sync::Arc::clone(master));
    Some(match method {
        "Grant" => decode::<pb::GrantRequest>(param).and_then(|r| {
            let p = acl::permission_of(&r.user_permission).map_err(bad)?;
            admin
                .grant(p, r.merge_existing_permissions())
                .map_err(|e| fail(&e))?;
            Ok(pb::GrantResponse {}.encode_to_vec())
        }),
        "Revoke" => decode::<pb::RevokeRequest>(param).and_then(|r| {
            let p = acl::permission_of(&r.user_permission).map_err(bad)?;
            admin.revoke(&p.principal, &p.scope).map_err(|e| fail(&e))?;
            Ok(pb::RevokeResponse {}.encode_to_vec())
        }),
        "GetUserPermissions" => decode::<pb::GetUserPermissionsRequest>(param).and_then(|r| {
            let scope = acl::request_scope(&r).map_err(bad)?;
            let user = r
                .user_name
                .as_ref()
                .map(|u| String::from_utf8_lossy(u).into_owned());
            let found = admin.user_permissions(&scope).map_err(|e| fail(&e))?;
            Ok(pb::GetUserPermissionsResponse {
                user_permission: found
                    .iter()
                    .filter(|p| user.as_ref().is_none_or(|u| &p.principal == u))
                    .map(acl::user_permission)
                    .collect(),
            }
            .encode_to_vec())
        }),
        _ => return None,
    })
}
