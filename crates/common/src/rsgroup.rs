//! Region server groups (HBase's RSGroups, issue 48): named sets of region servers, each
//! table placed on its group's servers alone. A table's group is its descriptor's
//! `hbase.rsgroup.name`, else its namespace's, else `default`; `default` holds every server
//! no other group names (`docs/design/rsgroups.md`).

use std::collections::{BTreeMap, BTreeSet};

use crate::{Error, Result, TableName};

/// The group of every server and table no other group names.
pub const DEFAULT_GROUP: &str = "default";

/// The table descriptor value and namespace property naming a group (HBase's).
pub const GROUP_KEY: &str = "hbase.rsgroup.name";

/// A group: its servers (`host:port`) and its settings. Its tables and namespaces are those
/// whose descriptors name it; [`RsGroupInfo`] lists them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RsGroup {
    pub name: String,
    pub servers: BTreeSet<String>,
    pub config: BTreeMap<String, String>,
}

/// A group as listed: its servers, and the tables and namespaces that name it (for
/// `default`, every table no other group has).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RsGroupInfo {
    pub name: String,
    pub servers: Vec<String>,
    pub tables: Vec<TableName>,
    pub namespaces: Vec<String>,
    pub config: BTreeMap<String, String>,
}

/// A change to the groups, as the shell's commands ask for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RsGroupChange {
    Add(String),
    Remove(String),
    Rename {
        from: String,
        to: String,
    },
    /// Servers (`host:port`) into group `to`; their regions of other groups' tables move off.
    MoveServers {
        to: String,
        servers: Vec<String>,
    },
    /// Tables into group `to`; their regions move onto its servers.
    MoveTables {
        to: String,
        tables: Vec<TableName>,
    },
    /// Namespaces into group `to`; their tables' regions move onto its servers.
    MoveNamespaces {
        to: String,
        namespaces: Vec<String>,
    },
    /// Servers that are not live out of every group.
    RemoveServers(Vec<String>),
    /// A group's whole configuration.
    Configure {
        name: String,
        config: BTreeMap<String, String>,
    },
}

/// Refuses a group name HBase would: letters, digits and `_` only.
pub fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(Error::InvalidArgument(format!(
            "RSGroup name {name:?} should only contain alphanumeric characters and _"
        )));
    }
    Ok(())
}

/// A server address as groups name them: `host:port` (a full `host,port,startcode` name is
/// cut to it).
pub fn address(server: &str) -> Result<String> {
    let parts: Vec<&str> = server.split(',').collect();
    let (host, port) = match parts.as_slice() {
        [host, port, _] => (*host, *port),
        [hp] => hp.rsplit_once(':').ok_or_else(|| bad_server(server))?,
        _ => return Err(bad_server(server)),
    };
    if host.is_empty() || port.parse::<u16>().is_err() {
        return Err(bad_server(server));
    }
    Ok(format!("{host}:{port}"))
}

fn bad_server(server: &str) -> Error {
    Error::InvalidArgument(format!(
        "{server} is not a server address (host:port, or host,port,startcode)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_addresses_are_checked() {
        check_name("batch_1").unwrap();
        assert!(check_name("a-b").is_err());
        assert!(check_name("").is_err());
        assert_eq!(address("h1:16020").unwrap(), "h1:16020");
        assert_eq!(address("h1,16020,1700000000").unwrap(), "h1:16020");
        for bad in ["h1", "h1:x", ":1", "a,b"] {
            assert!(address(bad).is_err(), "{bad}");
        }
    }
}
