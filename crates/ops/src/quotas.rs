//! Quotas: setting one and the throttle switches need global ADMIN; reading the switches
//! and the space in use is open to all.

use basalt_common::quota::{Change, Kind, QuotaSwitch, SpaceQuota, SpaceUse, Subject};
use basalt_common::{Error, Result, TableName};
use basalt_proto::{pb, quota};

use crate::declare::{calls, operations};
use crate::need;

operations! {
    /// Quotas and throttles.
    area Quotas, handler QuotaHandler;
    /// Sets, changes or removes a throttle or a space quota.
    SetQuota(pb::SetQuotaRequest) -> pb::SetQuotaResponse = set_quota, need need::admin;
    /// Switches throttling.
    SwitchRpcThrottle(pb::SwitchRpcThrottleRequest) -> pb::SwitchRpcThrottleResponse
        = switch_rpc_throttle, need need::admin;
    /// Whether throttling is on.
    IsRpcThrottleEnabled(pb::IsRpcThrottleEnabledRequest) -> pb::IsRpcThrottleEnabledResponse
        = is_rpc_throttle_enabled, need need::anyone;
    /// Switches whether throttles may be exceeded while the servers have room.
    SwitchExceedThrottleQuota(pb::SwitchExceedThrottleQuotaRequest)
        -> pb::SwitchExceedThrottleQuotaResponse = switch_exceed_throttle_quota,
        need need::admin;
    /// Each table's size, as space quotas count it.
    GetSpaceQuotaRegionSizes(pb::GetSpaceQuotaRegionSizesRequest)
        -> pb::GetSpaceQuotaRegionSizesResponse = get_space_quota_region_sizes,
        need need::anyone;
    /// Each space quota's use and whether its policy is in force.
    GetQuotaStates(pb::GetQuotaStatesRequest) -> pb::GetQuotaStatesResponse
        = get_quota_states, need need::anyone;
}

/// The request that makes `change` to `subject`'s quotas.
pub fn request(subject: &Subject, change: &Change) -> pb::SetQuotaRequest {
    let mut r = pb::SetQuotaRequest::default();
    match subject {
        Subject::User(u) => r.user_name = Some(u.clone()),
        Subject::UserOnTable(u, t) => {
            r.user_name = Some(u.clone());
            r.table_name = Some(basalt_proto::schema::pb_table_name(t));
        }
        Subject::UserOnNamespace(u, ns) => {
            r.user_name = Some(u.clone());
            r.namespace = Some(ns.clone());
        }
        Subject::Table(t) => r.table_name = Some(basalt_proto::schema::pb_table_name(t)),
        Subject::Namespace(ns) => r.namespace = Some(ns.clone()),
        Subject::RegionServer(s) => r.region_server = Some(s.clone()),
    }
    match change {
        Change::Throttle(t) => {
            r.throttle = Some(pb::ThrottleRequest {
                r#type: Some(t.kind as i32),
                timed_quota: Some(quota::timed(t)),
            });
        }
        Change::Unthrottle(kinds) => match kinds.as_slice() {
            // HBase removes one kind with a ThrottleRequest carrying no limit.
            [kind] => {
                r.throttle = Some(pb::ThrottleRequest {
                    r#type: Some(*kind as i32),
                    timed_quota: None,
                });
            }
            _ => r.remove_all = Some(true),
        },
        Change::BypassGlobals(on) => r.bypass_globals = Some(*on),
        Change::Space(q) => {
            r.space_limit = Some(pb::SpaceLimitRequest {
                quota: Some(quota::space_pb(q)),
            });
        }
        Change::Unspace => {
            r.space_limit = Some(pb::SpaceLimitRequest {
                quota: Some(pb::SpaceQuota {
                    remove: Some(true),
                    ..pb::SpaceQuota::default()
                }),
            });
        }
    }
    r
}

/// The subject and change a quota request names.
pub fn change_of(r: &pb::SetQuotaRequest) -> Result<(Subject, Change)> {
    let table = r.table_name.as_ref().map(quota::table_of).transpose()?;
    let subject = match (&r.user_name, &table, &r.namespace, &r.region_server) {
        (Some(u), None, None, None) => Subject::User(u.clone()),
        (Some(u), Some(t), None, None) => Subject::UserOnTable(u.clone(), t.clone()),
        (Some(u), None, Some(ns), None) => Subject::UserOnNamespace(u.clone(), ns.clone()),
        (None, Some(t), None, None) => Subject::Table(t.clone()),
        (None, None, Some(ns), None) => Subject::Namespace(ns.clone()),
        (None, None, None, Some(s)) => Subject::RegionServer(s.clone()),
        _ => {
            return Err(Error::InvalidArgument(
                "a quota is for a USER (optionally with a TABLE or NAMESPACE), a TABLE, a \
                 NAMESPACE or a REGIONSERVER"
                    .into(),
            ));
        }
    };
    if r.user_group.is_some() {
        return Err(Error::InvalidArgument(
            "quotas for a user group are not supported yet (USER, TABLE, NAMESPACE, REGIONSERVER)"
                .into(),
        ));
    }
    let change = if let Some(space) = &r.space_limit {
        if !matches!(subject, Subject::Table(_) | Subject::Namespace(_)) {
            return Err(Error::InvalidArgument(
                "a space quota is for a TABLE or a NAMESPACE".into(),
            ));
        }
        let quota = space.quota.unwrap_or_default();
        if quota.remove == Some(true) {
            Change::Unspace
        } else {
            let limit = quota.soft_limit.filter(|l| *l > 0).ok_or_else(|| {
                Error::InvalidArgument("a space quota needs a LIMIT above zero".into())
            })?;
            Change::Space(SpaceQuota {
                limit,
                policy: quota::policy_of(quota.violation_policy)?,
            })
        }
    } else if r.remove_all == Some(true) {
        Change::Unthrottle(Vec::new())
    } else if let Some(on) = r.bypass_globals {
        Change::BypassGlobals(on)
    } else if let Some(t) = &r.throttle {
        match (t.r#type, &t.timed_quota) {
            // A throttle request of no kind clears every throttle (the Java client's
            // `QuotaSettingsFactory.unthrottleUser` and its kin send this).
            (None, None) => Change::Unthrottle(Vec::new()),
            (kind, limit) => {
                let kind = kind.and_then(Kind::from_number).ok_or_else(|| {
                    Error::InvalidArgument("a throttle names no THROTTLE_TYPE".into())
                })?;
                match limit {
                    Some(q) => Change::Throttle(quota::throttle_of(kind, q)?),
                    None => Change::Unthrottle(vec![kind]),
                }
            }
        }
    } else {
        return Err(Error::InvalidArgument(
            "the quota request names no throttle, removal or bypass".into(),
        ));
    };
    Ok((subject, change))
}

/// A table a quota answer names (none, or an unreadable one, is the server's fault).
fn named_table(t: &Option<pb::TableName>) -> Result<TableName> {
    let t = t
        .as_ref()
        .ok_or_else(|| Error::corrupt("a quota state names no table"))?;
    TableName::new(
        &String::from_utf8_lossy(&t.namespace),
        &String::from_utf8_lossy(&t.qualifier),
    )
}

calls! {
    /// Quotas and throttles.
    QuotaAdmin, AsyncQuotaAdmin;

    /// Changes a subject's quotas (HBase's `set_quota`).
    async fn set_quota(c, subject: &Subject, change: &Change) -> Result<()> {
        // HBase's request removes one kind of throttle, or all: several kinds are several
        // requests.
        let changes = match change {
            Change::Unthrottle(kinds) if kinds.len() > 1 => {
                kinds.iter().map(|k| Change::Unthrottle(vec![*k])).collect()
            }
            other => vec![other.clone()],
        };
        for change in &changes {
            c.call::<SetQuota>(None, request(subject, change)).await?;
        }
        Ok(())
    }

    /// Switches throttling, or exceeding throttles while the servers have room; returns
    /// whether it was on.
    async fn quota_switch(c, switch: QuotaSwitch, on: bool) -> Result<bool> {
        Ok(match switch {
            QuotaSwitch::RpcThrottle => {
                let request = pb::SwitchRpcThrottleRequest {
                    rpc_throttle_enabled: on,
                };
                c.call::<SwitchRpcThrottle>(None, request)
                    .await?
                    .previous_rpc_throttle_enabled
            }
            QuotaSwitch::ExceedThrottle => {
                let request = pb::SwitchExceedThrottleQuotaRequest {
                    exceed_throttle_quota_enabled: on,
                };
                c.call::<SwitchExceedThrottleQuota>(None, request)
                    .await?
                    .previous_exceed_throttle_quota_enabled
            }
        })
    }

    /// Whether throttles are enforced.
    async fn rpc_throttle_enabled(c) -> Result<bool> {
        let r = c
            .call::<IsRpcThrottleEnabled>(None, pb::IsRpcThrottleEnabledRequest {})
            .await?;
        Ok(r.rpc_throttle_enabled)
    }

    /// Each table's size and the space quotas' snapshots, of tables and of namespaces.
    async fn space_use(c) -> Result<SpaceUse> {
        let sizes = c
            .call::<GetSpaceQuotaRegionSizes>(None, pb::GetSpaceQuotaRegionSizesRequest {})
            .await?;
        let states = c
            .call::<GetQuotaStates>(None, pb::GetQuotaStatesRequest {})
            .await?;
        let mut out = SpaceUse::default();
        for s in &sizes.sizes {
            out.sizes.insert(named_table(&s.table_name)?, s.size.unwrap_or(0));
        }
        for s in &states.table_snapshots {
            let snapshot = quota::snapshot_of(&s.snapshot.unwrap_or_default())?;
            out.tables.insert(named_table(&s.table_name)?, snapshot);
        }
        for s in &states.ns_snapshots {
            let snapshot = quota::snapshot_of(&s.snapshot.unwrap_or_default())?;
            out.namespaces
                .insert(s.namespace.clone().unwrap_or_default(), snapshot);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn throttle(kind: Option<Kind>) -> pb::SetQuotaRequest {
        pb::SetQuotaRequest {
            user_name: Some("bob".into()),
            throttle: Some(pb::ThrottleRequest {
                r#type: kind.map(|k| k as i32),
                timed_quota: None,
            }),
            ..pb::SetQuotaRequest::default()
        }
    }

    #[test]
    fn a_throttle_request_of_no_kind_clears_every_throttle() {
        let (subject, change) = change_of(&throttle(None)).unwrap();
        assert_eq!(subject, Subject::User("bob".into()));
        assert_eq!(change, Change::Unthrottle(Vec::new()));
        let (_, one) = change_of(&throttle(Some(Kind::ReadNumber))).unwrap();
        assert_eq!(one, Change::Unthrottle(vec![Kind::ReadNumber]));
        // A limit with no kind is still refused by name.
        let mut limit_only = throttle(None);
        limit_only.throttle.as_mut().unwrap().timed_quota = Some(pb::TimedQuota::default());
        let err = change_of(&limit_only).unwrap_err().to_string();
        assert!(err.contains("THROTTLE_TYPE"), "{err}");
    }
}
