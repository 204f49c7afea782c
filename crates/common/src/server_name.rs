//! A server's name as HBase gives it (`ServerName`): where it serves and when it started.

use std::fmt;

/// `host:port` where a server serves, and its start code (its start time in ms), which tells
/// a restarted server from the one before it. Shown as HBase writes it: `host,port,start code`
/// (the name of the server's WAL directory, and what AdminService reports).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ServerName {
    pub host_port: String,
    pub start_code: i64,
}

impl ServerName {
    pub fn new(host_port: impl Into<String>, start_code: i64) -> Self {
        ServerName {
            host_port: host_port.into(),
            start_code,
        }
    }

    /// The `host:port` a server is named by, given `host,port,startcode` or `host:port`
    /// (how operators' commands name servers: a restarted server keeps its host and port).
    pub fn host_port_of(name: &str) -> String {
        ServerName::parse(name).map_or_else(|| name.to_owned(), |s| s.host_port)
    }

    /// Parses HBase's form, `host,port,start code` (the inverse of `Display`).
    pub fn parse(name: &str) -> Option<Self> {
        let mut parts = name.rsplitn(3, ',');
        let start_code = parts.next()?.parse().ok()?;
        let port: u16 = parts.next()?.parse().ok()?;
        let host = parts.next()?;
        Some(ServerName::new(format!("{host}:{port}"), start_code))
    }

    /// The host and the port of `host_port`.
    pub fn host_and_port(&self) -> Option<(&str, u16)> {
        let (host, port) = self.host_port.rsplit_once(':')?;
        Some((host, port.parse().ok()?))
    }
}

impl fmt::Display for ServerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.host_port.rsplit_once(':') {
            Some((host, port)) => write!(f, "{host},{port},{}", self.start_code),
            None => write!(f, "{},{}", self.host_port, self.start_code),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ServerName;

    #[test]
    fn shown_as_hbase_writes_it() {
        assert_eq!(
            ServerName::new("db1.example:16020", 1_700_000_000_000).to_string(),
            "db1.example,16020,1700000000000"
        );
        assert_eq!(
            ServerName::new("[::1]:16020", 5).to_string(),
            "[::1],16020,5"
        );
        let parsed = ServerName::parse("db1.example,16020,1700000000000");
        assert_eq!(
            parsed,
            Some(ServerName::new("db1.example:16020", 1_700_000_000_000))
        );
        assert_eq!(
            parsed.and_then(|s| s.host_and_port().map(|(h, p)| (h.to_owned(), p))),
            Some(("db1.example".to_owned(), 16020))
        );
        assert!(ServerName::parse("db1.example,16020").is_none());
        assert!(ServerName::parse("nonsense").is_none());
    }
}
