//! Quotas as HBase's messages: a subject's stored `Quotas` (`"PBUF"` + the message, as
//! `hbase:quota` holds it) and the SetQuota request that changes one.

use basalt_common::quota::{Change, Kind, Quotas, Subject, Throttle, Unit};
use basalt_common::{Error, Result, TableName};
use prost::Message;

use crate::pb;

fn timed(t: &Throttle) -> pb::TimedQuota {
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

fn throttle_of(kind: Kind, q: &pb::TimedQuota) -> Result<Throttle> {
    let unit = Unit::from_number(q.time_unit).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "a {} throttle's time unit {} is not seconds, minutes, hours or days",
            kind.name(),
            q.time_unit
        ))
    })?;
    Ok(Throttle {
        kind,
        limit: q.soft_limit.unwrap_or(0),
        unit,
    })
}

/// The stored form: "PBUF" + Quotas.
pub fn quotas_data(q: &Quotas) -> Vec<u8> {
    let mut throttle = pb::Throttle::default();
    for t in &q.throttles {
        *slot(&mut throttle, t.kind) = Some(timed(t));
    }
    let message = pb::Quotas {
        bypass_globals: Some(q.bypass_globals),
        throttle: (!q.throttles.is_empty()).then_some(throttle),
        space: None,
    };
    let mut out = b"PBUF".to_vec();
    out.extend_from_slice(&message.encode_to_vec());
    out
}

/// The stored form read back.
pub fn quotas_from_data(data: &[u8]) -> Result<Quotas> {
    let body = data
        .strip_prefix(b"PBUF")
        .ok_or_else(|| Error::corrupt("a quota's settings do not start with PBUF"))?;
    let message = pb::Quotas::decode(body)
        .map_err(|e| Error::corrupt(format!("a quota's settings do not decode: {e}")))?;
    let mut out = Quotas {
        bypass_globals: message.bypass_globals.unwrap_or(false),
        throttles: Vec::new(),
    };
    if let Some(mut throttle) = message.throttle {
        for kind in Kind::ALL {
            if let Some(q) = slot(&mut throttle, kind).take() {
                out.set(throttle_of(kind, &q)?);
            }
        }
    }
    Ok(out)
}

/// A SetQuota request for `subject`.
pub fn set_quota_request(subject: &Subject, change: &Change) -> pb::SetQuotaRequest {
    let mut r = pb::SetQuotaRequest::default();
    match subject {
        Subject::User(u) => r.user_name = Some(u.clone()),
        Subject::UserOnTable(u, t) => {
            r.user_name = Some(u.clone());
            r.table_name = Some(crate::schema::pb_table_name(t));
        }
        Subject::UserOnNamespace(u, ns) => {
            r.user_name = Some(u.clone());
            r.namespace = Some(ns.clone());
        }
        Subject::Table(t) => r.table_name = Some(crate::schema::pb_table_name(t)),
        Subject::Namespace(ns) => r.namespace = Some(ns.clone()),
        Subject::RegionServer(s) => r.region_server = Some(s.clone()),
    }
    match change {
        Change::Throttle(t) => {
            r.throttle = Some(pb::ThrottleRequest {
                r#type: Some(t.kind as i32),
                timed_quota: Some(timed(t)),
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
    }
    r
}

/// The subject and change a SetQuota request names.
pub fn set_quota_of(r: &pb::SetQuotaRequest) -> Result<(Subject, Change)> {
    let table = r
        .table_name
        .as_ref()
        .map(|t| {
            TableName::new(
                &String::from_utf8_lossy(&t.namespace),
                &String::from_utf8_lossy(&t.qualifier),
            )
        })
        .transpose()?;
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
    if r.space_limit.is_some() {
        return Err(Error::InvalidArgument(
            "space quotas are not supported yet (TYPE => THROTTLE only)".into(),
        ));
    }
    let change = if r.remove_all == Some(true) {
        Change::Unthrottle(Vec::new())
    } else if let Some(on) = r.bypass_globals {
        Change::BypassGlobals(on)
    } else if let Some(t) = &r.throttle {
        let kind = t
            .r#type
            .and_then(Kind::from_number)
            .ok_or_else(|| Error::InvalidArgument("a throttle names no THROTTLE_TYPE".into()))?;
        match &t.timed_quota {
            Some(q) => Change::Throttle(throttle_of(kind, q)?),
            None => Change::Unthrottle(vec![kind]),
        }
    } else {
        return Err(Error::InvalidArgument(
            "SetQuota names no throttle, removal or bypass".into(),
        ));
    };
    Ok((subject, change))
}
