//! Grants on the master: Grant, Revoke and GetUserPermissions as MasterService methods
//! (HBase 2's `Admin.grant`), and HBase's `AccessControlService` coprocessor endpoint through
//! `ExecMasterService` (the same three, checked as those methods are, and CheckPermissions).
//! What every other call needs is its declaration's (`basalt_ops`).

use basalt_common::acl::{Action, Scope, User};
use basalt_common::{Error, Result};
use basalt_ops::MasterRequest;
use basalt_ops::security::SecurityHandler;
use basalt_proto::pb::{self, ExceptionResponse};
use basalt_proto::{acl, decode, from_error as fail};
use prost::Message;

use super::MasterService;
use crate::master::Master;

type Outcome = std::result::Result<Vec<u8>, ExceptionResponse>;

fn bad(what: impl Into<String>) -> ExceptionResponse {
    fail(&Error::Refused(what.into()))
}

/// HBase's coprocessor endpoint name for access control.
const ACCESS_CONTROL_SERVICE: &str = "AccessControlService";

/// `ExecMasterService` carrying an `AccessControlService` call (Grant, Revoke,
/// GetUserPermissions, CheckPermissions), checked as the MasterService methods of the same
/// names; any other endpoint is an UnknownProtocolException.
pub(super) fn exec(served: &MasterService, param: Option<&[u8]>, user: Option<&User>) -> Outcome {
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
    let inner = endpoint.request.as_slice();
    let reply = if method == "CheckPermissions" {
        check_permissions(&served.master, Some(inner), user)?
    } else {
        let request = MasterRequest::decode(method, inner)
            .ok_or_else(|| bad(format!("MasterService has no method {method}")))?
            .map_err(|e| fail(&e))?;
        served.serve(request, user)?
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

/// HasUserPermissions (HBase 2.2's `Admin.hasUserPermissions`, what AccessControlClient's
/// `hasPermission` calls): for each permission asked, whether the user holds it. The user is
/// the caller unless the request names another, which needs global ADMIN (HBase asks for a
/// superuser). A named user is judged by their own grants: the master does not know their
/// groups.
pub(super) fn has_user_permissions(
    master: &Master,
    param: Option<&[u8]>,
    user: Option<&User>,
) -> Outcome {
    let r = decode::<pb::HasUserPermissionsRequest>(param)?;
    let access = &master.access;
    if !access.is_enabled() {
        return Err(basalt_proto::exception(
            "org.apache.hadoop.hbase.DoNotRetryIOException",
            "HasUserPermissions needs authorization, which is off (start with --authorization)"
                .into(),
            true,
        ));
    }
    let named = r
        .user_name
        .as_ref()
        .map(|u| String::from_utf8_lossy(u).into_owned());
    let subject = match (named, user) {
        (Some(name), Some(caller)) if name != caller.name => {
            access
                .check(Some(caller), Action::Admin, &Scope::Global)
                .map_err(|e| fail(&e))?;
            User::new(name)
        }
        (Some(name), None) => User::new(name),
        (_, Some(caller)) => caller.clone(),
        (None, None) => return Err(bad("HasUserPermissions names no user")),
    };
    let acl = access.acl();
    let mut answers = Vec::with_capacity(r.permission.len());
    for permission in r.permission {
        let asked = acl::permission_of(&pb::UserPermission {
            user: subject.name.clone().into_bytes(),
            permission,
        })
        .map_err(bad)?;
        answers.push(
            asked
                .actions
                .iter()
                .all(|a| acl.allows(&subject, a, &asked.scope)),
        );
    }
    Ok(pb::HasUserPermissionsResponse {
        has_user_permission: answers,
    }
    .encode_to_vec())
}

impl SecurityHandler for MasterService {
    fn grant(&self, r: pb::GrantRequest) -> Result<pb::GrantResponse> {
        let p = acl::permission_of(&r.user_permission).map_err(Error::Refused)?;
        self.admin().grant(p, r.merge_existing_permissions())?;
        Ok(pb::GrantResponse {})
    }

    fn revoke(&self, r: pb::RevokeRequest) -> Result<pb::RevokeResponse> {
        let p = acl::permission_of(&r.user_permission).map_err(Error::Refused)?;
        self.admin().revoke(&p.principal, &p.scope)?;
        Ok(pb::RevokeResponse {})
    }

    fn get_user_permissions(
        &self,
        r: pb::GetUserPermissionsRequest,
    ) -> Result<pb::GetUserPermissionsResponse> {
        let scope = acl::request_scope(&r).map_err(Error::Refused)?;
        let user = r
            .user_name
            .as_ref()
            .map(|u| String::from_utf8_lossy(u).into_owned());
        let found = self.admin().user_permissions(&scope)?;
        Ok(pb::GetUserPermissionsResponse {
            user_permission: found
                .iter()
                .filter(|p| user.as_ref().is_none_or(|u| &p.principal == u))
                .map(acl::user_permission)
                .collect(),
        })
    }
}
