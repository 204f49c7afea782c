//! What an operation needs of its caller under access control (HBase's AccessController
//! master hooks): any one of some actions, on a scope.

use basalt_common::Result;
use basalt_common::acl::{Action, Scope};
use basalt_proto::pb;

/// Any of `actions` on `scope`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    pub actions: Vec<Action>,
    pub scope: Scope,
}

impl Need {
    /// `action` over the whole cluster.
    pub fn global(action: Action) -> Need {
        Need {
            actions: vec![action],
            scope: Scope::Global,
        }
    }

    /// ADMIN or CREATE on the table a request names (HBase's table DDL).
    pub fn admin_or_create(table: &pb::TableName) -> Result<Option<Need>> {
        let table = basalt_proto::schema::parse_table_name(table)?;
        Ok(Some(Need {
            actions: vec![Action::Admin, Action::Create],
            scope: Scope::table(&table),
        }))
    }
}

/// Global ADMIN, whatever the request says.
pub fn admin<R>(_: &R) -> Result<Option<Need>> {
    Ok(Some(Need::global(Action::Admin)))
}

/// Nothing: reading descriptors, names, states and the cluster status is open to all, as in
/// HBase.
pub fn anyone<R>(_: &R) -> Result<Option<Need>> {
    Ok(None)
}
