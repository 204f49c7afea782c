//! Region server groups as HBase's messages (`RSGroupInfo`; a server named by host and port).

use basalt_common::rsgroup::RsGroupInfo;
use basalt_common::{Error, Result, TableName};

use crate::pb;

/// A `host:port` address as a ServerName without a start code.
pub fn server_pb(address: &str) -> pb::ServerName {
    let (host, port) = address.rsplit_once(':').unwrap_or((address, "0"));
    pb::ServerName {
        host_name: host.to_owned(),
        port: port.parse().ok(),
        start_code: None,
    }
}

/// A ServerName's `host:port`.
pub fn address_of(s: &pb::ServerName) -> Result<String> {
    let port = s
        .port
        .ok_or_else(|| Error::InvalidArgument(format!("server {} names no port", s.host_name)))?;
    Ok(format!("{}:{port}", s.host_name))
}

/// A group as HBase's RSGroupInfo (its namespaces in Basalt's field 1000).
pub fn info_pb(g: &RsGroupInfo) -> pb::RsGroupInfo {
    pb::RsGroupInfo {
        name: g.name.clone(),
        servers: g.servers.iter().map(|s| server_pb(s)).collect(),
        tables: g.tables.iter().map(crate::schema::pb_table_name).collect(),
        configuration: g
            .config
            .iter()
            .map(|(k, v)| pb::NameStringPair {
                name: k.clone(),
                value: v.clone(),
            })
            .collect(),
        namespaces: g.namespaces.clone(),
    }
}

/// An RSGroupInfo read back.
pub fn info_of(g: &pb::RsGroupInfo) -> Result<RsGroupInfo> {
    Ok(RsGroupInfo {
        name: g.name.clone(),
        servers: g.servers.iter().map(address_of).collect::<Result<_>>()?,
        tables: g
            .tables
            .iter()
            .map(|t| {
                TableName::new(
                    &String::from_utf8_lossy(&t.namespace),
                    &String::from_utf8_lossy(&t.qualifier),
                )
            })
            .collect::<Result<_>>()?,
        namespaces: g.namespaces.clone(),
        config: g
            .configuration
            .iter()
            .map(|p| (p.name.clone(), p.value.clone()))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_group_goes_through_its_message_unchanged() {
        let g = RsGroupInfo {
            name: "batch".into(),
            servers: vec!["h1:16020".into(), "h2:16021".into()],
            tables: vec![TableName::parse("ns:t").unwrap()],
            namespaces: vec!["ns2".into()],
            config: [("k".to_owned(), "v".to_owned())].into_iter().collect(),
        };
        assert_eq!(info_of(&info_pb(&g)).unwrap(), g);
    }
}
