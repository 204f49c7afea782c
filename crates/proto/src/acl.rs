//! Access control on the wire: Basalt's permissions as HBase's `UserPermission` (MasterService
//! Grant, Revoke, GetUserPermissions), both ways.

use basalt_common::Bytes;
use basalt_common::acl::{Action, Actions, Permission, Scope};

use crate::pb::{self, permission};
use crate::schema::{pb_table_name, table_name};

fn action_pb(a: Action) -> i32 {
    (match a {
        Action::Read => permission::Action::Read,
        Action::Write => permission::Action::Write,
        Action::Exec => permission::Action::Exec,
        Action::Create => permission::Action::Create,
        Action::Admin => permission::Action::Admin,
    }) as i32
}

fn actions_of(list: &[i32]) -> Result<Actions, String> {
    let mut out = Vec::new();
    for &a in list {
        out.push(match permission::Action::try_from(a) {
            Ok(permission::Action::Read) => Action::Read,
            Ok(permission::Action::Write) => Action::Write,
            Ok(permission::Action::Exec) => Action::Exec,
            Ok(permission::Action::Create) => Action::Create,
            Ok(permission::Action::Admin) => Action::Admin,
            Err(_) => return Err(format!("unknown permission action {a}")),
        });
    }
    if out.is_empty() {
        return Err("a permission with no actions".into());
    }
    Ok(Actions::of(&out))
}

/// `p` as HBase's UserPermission.
pub fn user_permission(p: &Permission) -> pb::UserPermission {
    let actions: Vec<i32> = p.actions.iter().map(action_pb).collect();
    let mut perm = pb::Permission::default();
    match &p.scope {
        Scope::Global => {
            perm.set_type(permission::Type::Global);
            perm.global_permission = Some(pb::GlobalPermission { action: actions });
        }
        Scope::Namespace(ns) => {
            perm.set_type(permission::Type::Namespace);
            perm.namespace_permission = Some(pb::NamespacePermission {
                namespace_name: Some(ns.as_bytes().to_vec()),
                action: actions,
            });
        }
        Scope::Table {
            table,
            family,
            qualifier,
        } => {
            perm.set_type(permission::Type::Table);
            perm.table_permission = Some(pb::TablePermission {
                table_name: Some(pb_table_name(table)),
                family: family.as_ref().map(|f| f.to_vec()),
                qualifier: qualifier.as_ref().map(|q| q.to_vec()),
                action: actions,
            });
        }
    }
    pb::UserPermission {
        user: p.principal.as_bytes().to_vec(),
        permission: perm,
    }
}

/// HBase's UserPermission as Basalt's; what is wrong with it otherwise.
pub fn permission_of(u: &pb::UserPermission) -> Result<Permission, String> {
    let principal = String::from_utf8(u.user.clone())
        .ok()
        .filter(|p| !p.is_empty())
        .ok_or("a permission without a user name")?;
    let p = &u.permission;
    let (scope, actions) = match p.r#type() {
        permission::Type::Global => {
            let g = p
                .global_permission
                .as_ref()
                .ok_or("a global permission without actions")?;
            (Scope::Global, actions_of(&g.action)?)
        }
        permission::Type::Namespace => {
            let n = p
                .namespace_permission
                .as_ref()
                .ok_or("a namespace permission without a namespace")?;
            let ns = n
                .namespace_name
                .as_ref()
                .and_then(|n| String::from_utf8(n.clone()).ok())
                .ok_or("a namespace permission without a namespace")?;
            (Scope::Namespace(ns), actions_of(&n.action)?)
        }
        permission::Type::Table => {
            let t = p
                .table_permission
                .as_ref()
                .ok_or("a table permission without a table")?;
            let table = table_name(
                t.table_name
                    .as_ref()
                    .ok_or("a table permission without a table")?,
            )
            .map_err(|e| e.stack_trace.unwrap_or_default())?;
            (
                Scope::Table {
                    table,
                    family: t
                        .family
                        .as_ref()
                        .filter(|f| !f.is_empty())
                        .map(|f| Bytes::copy_from_slice(f)),
                    qualifier: t
                        .qualifier
                        .as_ref()
                        .filter(|q| !q.is_empty())
                        .map(|q| Bytes::copy_from_slice(q)),
                },
                actions_of(&t.action)?,
            )
        }
    };
    Ok(Permission {
        principal,
        scope,
        actions,
    })
}

/// The scope a GetUserPermissions request asks about.
pub fn request_scope(r: &pb::GetUserPermissionsRequest) -> Result<Scope, String> {
    Ok(match r.r#type() {
        permission::Type::Global => Scope::Global,
        permission::Type::Namespace => Scope::Namespace(
            r.namespace_name
                .as_ref()
                .and_then(|n| String::from_utf8(n.clone()).ok())
                .ok_or("a namespace request without a namespace")?,
        ),
        permission::Type::Table => Scope::Table {
            table: table_name(
                r.table_name
                    .as_ref()
                    .ok_or("a table request without a table")?,
            )
            .map_err(|e| e.stack_trace.unwrap_or_default())?,
            family: r
                .column_family
                .as_ref()
                .filter(|f| !f.is_empty())
                .map(|f| Bytes::copy_from_slice(f)),
            qualifier: r
                .column_qualifier
                .as_ref()
                .filter(|q| !q.is_empty())
                .map(|q| Bytes::copy_from_slice(q)),
        },
    })
}

/// A GetUserPermissions request about `scope`.
pub fn permissions_request(scope: &Scope) -> pb::GetUserPermissionsRequest {
    let mut r = pb::GetUserPermissionsRequest::default();
    match scope {
        Scope::Global => r.set_type(permission::Type::Global),
        Scope::Namespace(ns) => {
            r.set_type(permission::Type::Namespace);
            r.namespace_name = Some(ns.as_bytes().to_vec());
        }
        Scope::Table {
            table,
            family,
            qualifier,
        } => {
            r.set_type(permission::Type::Table);
            r.table_name = Some(pb_table_name(table));
            r.column_family = family.as_ref().map(|f| f.to_vec());
            r.column_qualifier = qualifier.as_ref().map(|q| q.to_vec());
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_round_trip() {
        let t = basalt_common::TableName::parse("ns:t").expect("name");
        for scope in [
            Scope::Global,
            Scope::Namespace("ns".into()),
            Scope::table(&t),
            Scope::family(&t, b"f"),
        ] {
            let p = Permission {
                principal: "@g".into(),
                scope: scope.clone(),
                actions: Actions::parse("RWA").expect("codes"),
            };
            assert_eq!(permission_of(&user_permission(&p)).expect("back"), p);
            assert_eq!(
                request_scope(&permissions_request(&scope)).expect("back"),
                scope
            );
        }
    }
}
