//! Quotas as HBase's messages: a subject's stored `Quotas` (`"PBUF"` + the message, as
//! `hbase:quota` holds it), and the parts of a quota request.

use basalt_common::quota::{
    Kind, QuotaState, Quotas, SpacePolicy, SpaceQuota, SpaceSnapshot, Subject, Throttle, Unit,
};
use basalt_common::{Error, Result, TableName};
use prost::Message;

use crate::pb;

pub fn timed(t: &Throttle) -> pb::TimedQuota {
    pb::TimedQuota {
        time_unit: t.unit as i32,
        soft_limit: Some(t.limit),
        share: None,
        scope: Some(pb::QuotaScope::Machine as i32),
    }
}

fn slot(throttle: &mut pb::Throttle, kind: Kind) -> &mut Option<pb::TimedQuota> {
    match kind {
        Kind::RequestNumber => &mut throttle.req_num,
        Kind::RequestSize => &mut throttle.req_size,
        Kind::WriteNumber => &mut throttle.write_num,
        Kind::WriteSize => &mut throttle.write_size,
        Kind::ReadNumber => &mut throttle.read_num,
        Kind::ReadSize => &mut throttle.read_size,
        Kind::RequestCapacityUnit => &mut throttle.req_capacity_unit,
        Kind::WriteCapacityUnit => &mut throttle.write_capacity_unit,
        Kind::ReadCapacityUnit => &mut throttle.read_capacity_unit,
    }
}

pub fn throttle_of(kind: Kind, q: &pb::TimedQuota) -> Result<Throttle> {
    let unit = Unit::from_number(q.time_unit).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "a {} throttle's time unit {} is not seconds, minutes, hours or days",
            kind.name(),
            q.time_unit
        ))
    })?;
    // Basalt's throttles count on each region server (HBase's MACHINE scope, the default).
    if q.scope == Some(pb::QuotaScope::Cluster as i32) {
        return Err(Error::InvalidArgument(format!(
            "TimedQuota.scope CLUSTER is not supported: a {} throttle counts on each region \
             server (MACHINE)",
            kind.name()
        )));
    }
    if q.share.is_some() {
        return Err(Error::InvalidArgument(
            "TimedQuota.share is not supported: a throttle is a limit, not a share".into(),
        ));
    }
    Ok(Throttle {
        kind,
        limit: q.soft_limit.unwrap_or(0),
        unit,
    })
}

pub fn space_pb(q: &SpaceQuota) -> pb::SpaceQuota {
    pb::SpaceQuota {
        soft_limit: Some(q.limit),
        violation_policy: Some(q.policy as i32),
        remove: None,
    }
}

pub fn policy_of(n: Option<i32>) -> Result<SpacePolicy> {
    n.and_then(SpacePolicy::from_number).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "space violation policy {n:?} is not DISABLE (1), NO_WRITES_COMPACTIONS (2), \
             NO_WRITES (3) or NO_INSERTS (4)"
        ))
    })
}

fn quotas_pb(q: &Quotas) -> pb::Quotas {
    let mut throttle = pb::Throttle::default();
    for t in &q.throttles {
        *slot(&mut throttle, t.kind) = Some(timed(t));
    }
    pb::Quotas {
        bypass_globals: Some(q.bypass_globals),
        throttle: (!q.throttles.is_empty()).then_some(throttle),
        space: q.space.as_ref().map(space_pb),
    }
}

fn quotas_of(message: pb::Quotas) -> Result<Quotas> {
    let mut out = Quotas {
        bypass_globals: message.bypass_globals.unwrap_or(false),
        throttles: Vec::new(),
        space: None,
    };
    if let Some(mut throttle) = message.throttle {
        for kind in Kind::ALL {
            if let Some(q) = slot(&mut throttle, kind).take() {
                out.set(throttle_of(kind, &q)?);
            }
        }
    }
    if let Some(space) = message.space.filter(|s| s.remove != Some(true)) {
        out.space = Some(SpaceQuota {
            limit: space.soft_limit.unwrap_or(0),
            policy: policy_of(space.violation_policy)?,
        });
    }
    Ok(out)
}

/// The stored form: "PBUF" + Quotas.
pub fn quotas_data(q: &Quotas) -> Vec<u8> {
    let mut out = b"PBUF".to_vec();
    out.extend_from_slice(&quotas_pb(q).encode_to_vec());
    out
}

/// The stored form read back.
pub fn quotas_from_data(data: &[u8]) -> Result<Quotas> {
    let body = data
        .strip_prefix(b"PBUF")
        .ok_or_else(|| Error::corrupt("a quota's settings do not start with PBUF"))?;
    let message = pb::Quotas::decode(body)
        .map_err(|e| Error::corrupt(format!("a quota's settings do not decode: {e}")))?;
    quotas_of(message)
}

/// A table's space snapshot as HBase's SpaceQuotaSnapshot.
pub fn snapshot_pb(s: &SpaceSnapshot) -> pb::SpaceQuotaSnapshot {
    pb::SpaceQuotaSnapshot {
        quota_status: Some(pb::SpaceQuotaStatus {
            violation_policy: Some(s.policy as i32),
            in_violation: Some(s.in_violation),
        }),
        quota_usage: Some(s.usage),
        quota_limit: Some(s.limit),
    }
}

/// A SpaceQuotaSnapshot read back.
pub fn snapshot_of(s: &pb::SpaceQuotaSnapshot) -> Result<SpaceSnapshot> {
    let status = s.quota_status.unwrap_or_default();
    Ok(SpaceSnapshot {
        usage: s.quota_usage.unwrap_or(0),
        limit: s.quota_limit.unwrap_or(0),
        policy: policy_of(status.violation_policy)?,
        in_violation: status.in_violation.unwrap_or(false),
    })
}

pub fn table_of(t: &pb::TableName) -> Result<TableName> {
    TableName::new(
        &String::from_utf8_lossy(&t.namespace),
        &String::from_utf8_lossy(&t.qualifier),
    )
}

/// The quota state as `/hbase/quota` carries it (Basalt's QuotaState message).
pub fn state_pb(state: &QuotaState) -> pb::QuotaState {
    pb::QuotaState {
        entry: state
            .quotas
            .iter()
            .map(|(subject, quotas)| {
                let (row, qualifier) = subject.row_and_qualifier();
                pb::QuotaStateEntry {
                    row,
                    qualifier,
                    quotas: quotas_pb(quotas),
                }
            })
            .collect(),
        rpc_throttle_enabled: Some(state.rpc_throttle),
        exceed_throttle_quota: Some(state.exceed_throttle),
        violation: state
            .violations
            .iter()
            .map(|(t, p)| pb::QuotaViolation {
                table_name: crate::schema::pb_table_name(t),
                policy: *p as i32,
            })
            .collect(),
    }
}

/// The quota state read back; an entry whose row names no subject is an error.
pub fn state_of(message: pb::QuotaState) -> Result<QuotaState> {
    let mut quotas = Vec::with_capacity(message.entry.len());
    for e in message.entry {
        let subject = Subject::from_row_and_qualifier(&e.row, &e.qualifier).ok_or_else(|| {
            Error::corrupt(format!(
                "quota state names no subject with row {} and qualifier {}",
                e.row, e.qualifier
            ))
        })?;
        quotas.push((subject, quotas_of(e.quotas)?));
    }
    let mut violations = Vec::with_capacity(message.violation.len());
    for v in message.violation {
        violations.push((table_of(&v.table_name)?, policy_of(Some(v.policy))?));
    }
    Ok(QuotaState {
        quotas,
        rpc_throttle: message.rpc_throttle_enabled.unwrap_or(true),
        exceed_throttle: message.exceed_throttle_quota.unwrap_or(false),
        violations,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use basalt_common::quota::{Direction, parse_limit};

    #[test]
    fn the_quota_state_goes_through_its_message_unchanged() {
        let t = TableName::parse("ns:t").unwrap();
        let mut throttled = Quotas::default();
        throttled.set(parse_limit("10req/sec", Direction::All).unwrap());
        let spaced = Quotas {
            space: Some(SpaceQuota {
                limit: 1 << 30,
                policy: SpacePolicy::NoInserts,
            }),
            ..Quotas::default()
        };
        let state = QuotaState {
            quotas: vec![
                (Subject::User("u".into()), throttled),
                (Subject::Table(t.clone()), spaced.clone()),
            ],
            rpc_throttle: false,
            exceed_throttle: true,
            violations: vec![(t, SpacePolicy::NoWritesCompactions)],
        };
        let bytes = state_pb(&state).encode_to_vec();
        let back = state_of(pb::QuotaState::decode(&bytes[..]).unwrap()).unwrap();
        assert_eq!(back, state);
        assert_eq!(quotas_from_data(&quotas_data(&spaced)).unwrap(), spaced);
        let bad = pb::QuotaState {
            entry: vec![pb::QuotaStateEntry {
                row: "x.y".into(),
                qualifier: "s".into(),
                quotas: pb::Quotas::default(),
            }],
            ..pb::QuotaState::default()
        };
        assert!(state_of(bad).is_err());
    }
}
