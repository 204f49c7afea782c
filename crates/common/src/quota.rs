//! RPC throttles as HBase's quota manager keeps them (issue 48): who a quota is for (a user, a
//! table, a namespace, a user within a table or namespace, the region servers), which kind of
//! request it limits and how much per time unit. Stored in `hbase:quota` with HBase's row
//! keys and qualifiers (`docs/design/quotas.md`).

use std::fmt;

use crate::{Error, Result, TableName};

/// The system table quotas live in, and its families (settings; usage).
pub const QUOTA_TABLE: &str = "hbase:quota";
pub const QUOTA_FAMILY: &[u8] = b"q";
pub const USAGE_FAMILY: &[u8] = b"u";

/// Who a quota is for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Subject {
    User(String),
    UserOnTable(String, TableName),
    UserOnNamespace(String, String),
    Table(TableName),
    Namespace(String),
    /// A region server (`all`: each of them).
    RegionServer(String),
}

impl Subject {
    /// HBase's row key and settings qualifier for it (`QuotaTableUtil`).
    pub fn row_and_qualifier(&self) -> (String, String) {
        match self {
            Subject::User(u) => (format!("u.{u}"), "s".into()),
            Subject::UserOnTable(u, t) => (format!("u.{u}"), format!("s:{t}")),
            Subject::UserOnNamespace(u, ns) => (format!("u.{u}"), format!("s:{ns}:")),
            Subject::Table(t) => (format!("t.{t}"), "s".into()),
            Subject::Namespace(ns) => (format!("n.{ns}"), "s".into()),
            Subject::RegionServer(s) => (format!("r.{s}"), "s".into()),
        }
    }

    /// The subject a row key and settings qualifier name; None for others (usage cells).
    pub fn from_row_and_qualifier(row: &str, qualifier: &str) -> Option<Subject> {
        let (kind, name) = row.split_once('.')?;
        let scoped = qualifier.strip_prefix("s:");
        if qualifier != "s" && scoped.is_none() {
            return None;
        }
        Some(match (kind, scoped) {
            ("u", None) => Subject::User(name.to_owned()),
            ("u", Some(ns)) if ns.ends_with(':') => {
                Subject::UserOnNamespace(name.to_owned(), ns.trim_end_matches(':').to_owned())
            }
            ("u", Some(t)) => Subject::UserOnTable(name.to_owned(), TableName::parse(t).ok()?),
            ("t", None) => Subject::Table(TableName::parse(name).ok()?),
            ("n", None) => Subject::Namespace(name.to_owned()),
            ("r", None) => Subject::RegionServer(name.to_owned()),
            _ => return None,
        })
    }
}

impl fmt::Display for Subject {
    /// HBase's owner text (`USER => u1, TABLE => t1`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::User(u) => write!(f, "USER => {u}"),
            Subject::UserOnTable(u, t) => write!(f, "USER => {u}, TABLE => {t}"),
            Subject::UserOnNamespace(u, ns) => write!(f, "USER => {u}, NAMESPACE => {ns}"),
            Subject::Table(t) => write!(f, "TABLE => {t}"),
            Subject::Namespace(ns) => write!(f, "NAMESPACE => {ns}"),
            Subject::RegionServer(s) => write!(f, "REGIONSERVER => {s}"),
        }
    }
}

/// What a throttle counts (HBase's ThrottleType; its protobuf numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    RequestNumber = 1,
    RequestSize = 2,
    WriteNumber = 3,
    WriteSize = 4,
    ReadNumber = 5,
    ReadSize = 6,
    RequestCapacityUnit = 7,
    WriteCapacityUnit = 8,
    ReadCapacityUnit = 9,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::RequestNumber,
        Kind::RequestSize,
        Kind::WriteNumber,
        Kind::WriteSize,
        Kind::ReadNumber,
        Kind::ReadSize,
        Kind::RequestCapacityUnit,
        Kind::WriteCapacityUnit,
        Kind::ReadCapacityUnit,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::RequestNumber => "REQUEST_NUMBER",
            Kind::RequestSize => "REQUEST_SIZE",
            Kind::WriteNumber => "WRITE_NUMBER",
            Kind::WriteSize => "WRITE_SIZE",
            Kind::ReadNumber => "READ_NUMBER",
            Kind::ReadSize => "READ_SIZE",
            Kind::RequestCapacityUnit => "REQUEST_CAPACITY_UNIT",
            Kind::WriteCapacityUnit => "WRITE_CAPACITY_UNIT",
            Kind::ReadCapacityUnit => "READ_CAPACITY_UNIT",
        }
    }

    pub fn from_number(n: i32) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| *k as i32 == n)
    }

    /// What its limit counts: requests, bytes or capacity units.
    fn measure(self) -> Measure {
        match self {
            Kind::RequestNumber | Kind::WriteNumber | Kind::ReadNumber => Measure::Requests,
            Kind::RequestSize | Kind::WriteSize | Kind::ReadSize => Measure::Bytes,
            _ => Measure::CapacityUnits,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    Requests,
    Bytes,
    CapacityUnits,
}

/// A time unit of a limit (HBase's TimeUnit; its protobuf numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    Seconds = 4,
    Minutes = 5,
    Hours = 6,
    Days = 7,
}

impl Unit {
    pub fn secs(self) -> u64 {
        match self {
            Unit::Seconds => 1,
            Unit::Minutes => 60,
            Unit::Hours => 3600,
            Unit::Days => 86_400,
        }
    }

    fn short(self) -> &'static str {
        match self {
            Unit::Seconds => "sec",
            Unit::Minutes => "min",
            Unit::Hours => "hour",
            Unit::Days => "day",
        }
    }

    pub fn from_number(n: i32) -> Option<Unit> {
        [Unit::Seconds, Unit::Minutes, Unit::Hours, Unit::Days]
            .into_iter()
            .find(|u| *u as i32 == n)
    }
}

/// One throttle: a kind of request and how many (or bytes, or units) per time unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Throttle {
    pub kind: Kind,
    pub limit: u64,
    pub unit: Unit,
}

impl fmt::Display for Throttle {
    /// HBase's text: `TYPE => THROTTLE, THROTTLE_TYPE => REQUEST_NUMBER, LIMIT => 10req/sec,
    /// SCOPE => MACHINE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let amount = match self.kind.measure() {
            Measure::Requests => format!("{}req", self.limit),
            Measure::CapacityUnits => format!("{}CU", self.limit),
            Measure::Bytes => size_text(self.limit),
        };
        write!(
            f,
            "TYPE => THROTTLE, THROTTLE_TYPE => {}, LIMIT => {amount}/{}, SCOPE => MACHINE",
            self.kind.name(),
            self.unit.short()
        )
    }
}

/// Bytes as HBase prints a size limit (`10M`, `512K`, `100B`).
fn size_text(bytes: u64) -> String {
    const UNITS: [(&str, u64); 5] = [
        ("P", 1 << 50),
        ("T", 1 << 40),
        ("G", 1 << 30),
        ("M", 1 << 20),
        ("K", 1 << 10),
    ];
    for (name, size) in UNITS {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{}{name}", bytes / size);
        }
    }
    format!("{bytes}B")
}

/// Which requests a `THROTTLE_TYPE` names: `READ`, `WRITE`, or (none) all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    All,
    Read,
    Write,
}

impl Direction {
    pub fn parse(name: Option<&str>) -> Result<Direction> {
        Ok(match name.map(str::to_ascii_uppercase).as_deref() {
            None | Some("REQUEST") => Direction::All,
            Some("READ") => Direction::Read,
            Some("WRITE") => Direction::Write,
            Some(other) => {
                return Err(Error::InvalidArgument(format!(
                    "THROTTLE_TYPE {other} is not READ, WRITE or REQUEST"
                )));
            }
        })
    }
}

/// A throttle from HBase's LIMIT text (`10req/sec`, `10M/min`, `5CU/hour`, `100/day`: a bare
/// number counts requests) and THROTTLE_TYPE.
pub fn parse_limit(text: &str, direction: Direction) -> Result<Throttle> {
    let bad = |why: &str| {
        Error::InvalidArgument(format!(
            "LIMIT {text:?}: {why} (write e.g. '10req/sec', '10M/min', '5CU/hour')"
        ))
    };
    let (amount, per) = text
        .trim()
        .split_once('/')
        .ok_or_else(|| bad("no time unit"))?;
    let unit = match per.trim().to_ascii_lowercase().as_str() {
        "sec" | "second" | "s" => Unit::Seconds,
        "min" | "minute" | "m" => Unit::Minutes,
        "hour" | "h" => Unit::Hours,
        "day" | "d" => Unit::Days,
        _ => return Err(bad("the time unit is sec, min, hour or day")),
    };
    let amount = amount.trim();
    let digits: String = amount.chars().take_while(char::is_ascii_digit).collect();
    let suffix = &amount[digits.len()..];
    let number: u64 = digits.parse().map_err(|_| bad("no number"))?;
    let (measure, limit) = match suffix.to_ascii_uppercase().as_str() {
        "" | "REQ" => (Measure::Requests, number),
        "CU" => (Measure::CapacityUnits, number),
        size => {
            let shift = match size {
                "B" => 0,
                "K" => 10,
                "M" => 20,
                "G" => 30,
                "T" => 40,
                "P" => 50,
                _ => return Err(bad("the amount is a number of req, CU or B/K/M/G/T/P")),
            };
            (
                Measure::Bytes,
                number
                    .checked_mul(1 << shift)
                    .ok_or_else(|| bad("too large"))?,
            )
        }
    };
    if limit == 0 {
        return Err(bad(
            "a limit of 0 lets nothing through (LIMIT => NONE removes one)",
        ));
    }
    let kind = match (measure, direction) {
        (Measure::Requests, Direction::All) => Kind::RequestNumber,
        (Measure::Requests, Direction::Read) => Kind::ReadNumber,
        (Measure::Requests, Direction::Write) => Kind::WriteNumber,
        (Measure::Bytes, Direction::All) => Kind::RequestSize,
        (Measure::Bytes, Direction::Read) => Kind::ReadSize,
        (Measure::Bytes, Direction::Write) => Kind::WriteSize,
        (Measure::CapacityUnits, Direction::All) => Kind::RequestCapacityUnit,
        (Measure::CapacityUnits, Direction::Read) => Kind::ReadCapacityUnit,
        (Measure::CapacityUnits, Direction::Write) => Kind::WriteCapacityUnit,
    };
    Ok(Throttle { kind, limit, unit })
}

/// A subject's stored quotas: its throttles (one per kind) and whether it bypasses the
/// global ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quotas {
    pub bypass_globals: bool,
    pub throttles: Vec<Throttle>,
}

impl Quotas {
    /// Sets a throttle, replacing one of its kind.
    pub fn set(&mut self, t: Throttle) {
        self.throttles.retain(|x| x.kind != t.kind);
        self.throttles.push(t);
        self.throttles.sort();
    }

    /// Removes the throttles of `kinds` (all of them if none).
    pub fn remove(&mut self, kinds: &[Kind]) {
        self.throttles
            .retain(|t| !kinds.is_empty() && !kinds.contains(&t.kind));
    }

    pub fn is_empty(&self) -> bool {
        !self.bypass_globals && self.throttles.is_empty()
    }
}

/// What a `set_quota` does to its subject's quotas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Sets one throttle.
    Throttle(Throttle),
    /// Removes the throttles of these kinds (every kind: none named).
    Unthrottle(Vec<Kind>),
    /// Sets whether the subject (a user) bypasses the global quotas.
    BypassGlobals(bool),
}

/// The kinds `LIMIT => NONE` with a THROTTLE_TYPE removes (none given: every kind).
pub fn kinds_of(direction: Direction) -> Vec<Kind> {
    match direction {
        Direction::All => Vec::new(),
        Direction::Read => vec![Kind::ReadNumber, Kind::ReadSize, Kind::ReadCapacityUnit],
        Direction::Write => vec![Kind::WriteNumber, Kind::WriteSize, Kind::WriteCapacityUnit],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_parse_as_hbase_writes_them() {
        let t = parse_limit("10req/sec", Direction::All).unwrap();
        assert_eq!(
            (t.kind, t.limit, t.unit),
            (Kind::RequestNumber, 10, Unit::Seconds)
        );
        assert_eq!(
            t.to_string(),
            "TYPE => THROTTLE, THROTTLE_TYPE => REQUEST_NUMBER, LIMIT => 10req/sec, SCOPE => MACHINE"
        );
        let t = parse_limit("10M/min", Direction::Write).unwrap();
        assert_eq!((t.kind, t.limit), (Kind::WriteSize, 10 << 20));
        assert!(t.to_string().contains("LIMIT => 10M/min"));
        let t = parse_limit("5CU/hour", Direction::Read).unwrap();
        assert_eq!(t.kind, Kind::ReadCapacityUnit);
        assert_eq!(parse_limit("100/day", Direction::All).unwrap().limit, 100);
        for bad in ["10req", "10req/week", "x/sec", "10Q/sec", "0req/sec"] {
            assert!(parse_limit(bad, Direction::All).is_err(), "{bad}");
        }
    }

    #[test]
    fn subjects_map_to_hbase_rows_and_back() {
        let t = TableName::parse("ns:t").unwrap();
        for s in [
            Subject::User("u1".into()),
            Subject::UserOnTable("u1".into(), t.clone()),
            Subject::UserOnNamespace("u1".into(), "ns".into()),
            Subject::Table(t),
            Subject::Namespace("ns".into()),
            Subject::RegionServer("all".into()),
        ] {
            let (row, q) = s.row_and_qualifier();
            assert_eq!(Subject::from_row_and_qualifier(&row, &q), Some(s));
        }
        assert_eq!(Subject::from_row_and_qualifier("t.x", "usage"), None);
    }

    #[test]
    fn quotas_merge_and_remove_by_kind() {
        let mut q = Quotas::default();
        q.set(parse_limit("10req/sec", Direction::All).unwrap());
        q.set(parse_limit("1M/sec", Direction::Write).unwrap());
        q.set(parse_limit("20req/sec", Direction::All).unwrap());
        assert_eq!(q.throttles.len(), 2);
        assert_eq!(q.throttles[0].limit, 20);
        q.remove(&kinds_of(Direction::Write));
        assert_eq!(q.throttles.len(), 1);
        q.remove(&[]);
        assert!(q.is_empty());
    }
}
