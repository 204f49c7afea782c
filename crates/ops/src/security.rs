//! Grants (HBase 2's `Admin.grant`, `revoke`, `getUserPermissions`): each needs ADMIN on the
//! scope it concerns.

use basalt_common::acl::{Action, Scope};
use basalt_common::{Error, Result};
use basalt_proto::{acl, pb};

use crate::Need;
use crate::declare::operations;

fn admin_on(scope: std::result::Result<Scope, String>) -> Result<Option<Need>> {
    Ok(Some(Need {
        actions: vec![Action::Admin],
        scope: scope.map_err(Error::Refused)?,
    }))
}

operations! {
    /// Grants.
    area Security, handler SecurityHandler;
    /// Grants a user or group actions on a scope.
    Grant(pb::GrantRequest) -> pb::GrantResponse = grant,
        need |r: &pb::GrantRequest| admin_on(acl::permission_of(&r.user_permission).map(|p| p.scope));
    /// Takes a user's or group's grant on a scope away.
    Revoke(pb::RevokeRequest) -> pb::RevokeResponse = revoke,
        need |r: &pb::RevokeRequest| admin_on(acl::permission_of(&r.user_permission).map(|p| p.scope));
    /// The grants on a scope (of one user, if named).
    GetUserPermissions(pb::GetUserPermissionsRequest) -> pb::GetUserPermissionsResponse
        = get_user_permissions,
        need |r: &pb::GetUserPermissionsRequest| admin_on(acl::request_scope(r));
}
