//! Grants (HBase 2's `Admin.grant`, `revoke`, `getUserPermissions`): each needs ADMIN on the
//! scope it concerns.

use basalt_common::acl::{Action, Actions, Permission, Scope};
use basalt_common::{Error, Result};
use basalt_proto::{acl, pb};

use crate::Need;
use crate::declare::{calls, operations};

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

calls! {
    /// Grants.
    SecurityAdmin, AsyncSecurityAdmin;

    /// Grants a permission, adding to what the principal holds there if `merge`.
    async fn grant(c, p: &Permission, merge: bool) -> Result<()> {
        let request = pb::GrantRequest {
            user_permission: acl::user_permission(p),
            merge_existing_permissions: Some(merge),
        };
        c.call::<Grant>(None, request).await?;
        Ok(())
    }

    /// Revokes what `principal` holds at `scope`.
    async fn revoke(c, principal: &str, scope: &Scope) -> Result<()> {
        let p = Permission {
            principal: principal.to_owned(),
            scope: scope.clone(),
            // The actions do not matter to a revoke; HBase's message needs some.
            actions: Actions::of(&[Action::Read]),
        };
        let request = pb::RevokeRequest {
            user_permission: acl::user_permission(&p),
        };
        c.call::<Revoke>(None, request).await?;
        Ok(())
    }

    /// The grants at `scope` and inside it.
    async fn user_permissions(c, scope: &Scope) -> Result<Vec<Permission>> {
        let r = c
            .call::<GetUserPermissions>(None, acl::permissions_request(scope))
            .await?;
        r.user_permission
            .iter()
            .map(|u| acl::permission_of(u).map_err(Error::corrupt))
            .collect()
    }
}
