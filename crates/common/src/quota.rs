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

/// What a table or namespace over its space quota may no longer do (HBase's
/// SpaceViolationPolicy, with its protobuf numbers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SpacePolicy {
    /// The table is disabled.
    Disable = 1,
    /// No writes and no compactions.
    NoWritesCompactions = 2,
    /// No writes (puts, deletes, increments, appends); compactions go on.
    NoWrites = 3,
    /// No new data (puts, increments, appends); deletes go on.
    NoInserts = 4,
}

impl SpacePolicy {
    pub const ALL: [SpacePolicy; 4] = [
        SpacePolicy::Disable,
        SpacePolicy::NoWritesCompactions,
        SpacePolicy::NoWrites,
        SpacePolicy::NoInserts,
    ];

    /// HBase's name (`NO_INSERTS`).
    pub fn name(self) -> &'static str {
        match self {
            SpacePolicy::Disable => "DISABLE",
            SpacePolicy::NoWritesCompactions => "NO_WRITES_COMPACTIONS",
            SpacePolicy::NoWrites => "NO_WRITES",
            SpacePolicy::NoInserts => "NO_INSERTS",
        }
    }

    pub fn from_number(n: i32) -> Option<SpacePolicy> {
        SpacePolicy::ALL.into_iter().find(|p| *p as i32 == n)
    }

    /// The policy a POLICY name gives; an error names the ones there are.
    pub fn parse(name: &str) -> Result<SpacePolicy> {
        SpacePolicy::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "POLICY {name} is not NO_INSERTS, NO_WRITES, NO_WRITES_COMPACTIONS or DISABLE"
                ))
            })
    }

    /// Whether a mutation is refused under this policy (`delete`: it only deletes).
    pub fn refuses_write(self, delete: bool) -> bool {
        !(self == SpacePolicy::NoInserts && delete)
    }
}

/// A space quota: how many bytes of store files a table or namespace may hold, and what
/// happens past it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceQuota {
    pub limit: u64,
    pub policy: SpacePolicy,
}

impl fmt::Display for SpaceQuota {
    /// HBase's text: `TYPE => SPACE, LIMIT => 1G, VIOLATION_POLICY => NO_INSERTS`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "TYPE => SPACE, LIMIT => {}, VIOLATION_POLICY => {}",
            size_text(self.limit),
            self.policy.name()
        )
    }
}

/// A space LIMIT (`1G`, `512M`, `100K`, a bare number of bytes).
pub fn parse_size(text: &str) -> Result<u64> {
    let bad = || {
        Error::InvalidArgument(format!(
            "space LIMIT {text} is not a size (a number with B, K, M, G, T or P)"
        ))
    };
    let t = text.trim();
    let (digits, unit) = match t.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => t.split_at(at),
        None => (t, "B"),
    };
    let n: u64 = digits.parse().map_err(|_| bad())?;
    let shift = match unit.to_ascii_uppercase().as_str() {
        "B" | "" => 0,
        "K" | "KB" => 10,
        "M" | "MB" => 20,
        "G" | "GB" => 30,
        "T" | "TB" => 40,
        "P" | "PB" => 50,
        _ => return Err(bad()),
    };
    n.checked_shl(shift)
        .filter(|v| *v >> shift == n && *v > 0)
        .ok_or_else(bad)
}

/// A table's space use as the master last computed it (HBase's SpaceQuotaSnapshot): its
/// usage, its limit, and the policy in force if it is over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceSnapshot {
    pub usage: u64,
    pub limit: u64,
    pub policy: SpacePolicy,
    pub in_violation: bool,
}

/// The master's view of space use (HBase's QuotaObserverChore): each table's store file
/// bytes and the snapshots worked out from them against the space quotas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpaceUse {
    /// Store file bytes per table, as the region servers last reported them (tables in the
    /// scope of some space quota only).
    pub sizes: std::collections::BTreeMap<TableName, u64>,
    /// Each table's snapshot: under its own quota, or its namespace's.
    pub tables: std::collections::BTreeMap<TableName, SpaceSnapshot>,
    /// Each namespace's snapshot, for namespaces with a space quota.
    pub namespaces: std::collections::BTreeMap<String, SpaceSnapshot>,
}

impl SpaceUse {
    /// The snapshots `sizes` give under `quotas`' space quotas. A table's own quota wins
    /// over its namespace's; a namespace is over when its tables together are. A table is
    /// over its quota when its usage is past the limit.
    pub fn observe(
        sizes: std::collections::BTreeMap<TableName, u64>,
        quotas: &[(Subject, Quotas)],
    ) -> SpaceUse {
        let mut out = SpaceUse::default();
        for (subject, q) in quotas {
            if let (Subject::Namespace(ns), Some(space)) = (subject, q.space) {
                let usage = sizes
                    .iter()
                    .filter(|(t, _)| t.namespace() == ns)
                    .map(|(_, b)| *b)
                    .sum::<u64>();
                out.namespaces
                    .insert(ns.clone(), SpaceSnapshot::of(usage, space));
            }
        }
        let own: std::collections::BTreeMap<&TableName, SpaceQuota> = quotas
            .iter()
            .filter_map(|(s, q)| match (s, q.space) {
                (Subject::Table(t), Some(space)) => Some((t, space)),
                _ => None,
            })
            .collect();
        for (table, usage) in &sizes {
            let snapshot = match own.get(table) {
                Some(space) => SpaceSnapshot::of(*usage, *space),
                None => match out.namespaces.get(table.namespace()) {
                    Some(ns) => SpaceSnapshot {
                        usage: *usage,
                        ..*ns
                    },
                    None => continue,
                },
            };
            out.tables.insert(table.clone(), snapshot);
        }
        out.sizes = sizes;
        out
    }

    /// The tables whose policy is in force.
    pub fn violations(&self) -> Vec<(TableName, SpacePolicy)> {
        self.tables
            .iter()
            .filter(|(_, s)| s.in_violation)
            .map(|(t, s)| (t.clone(), s.policy))
            .collect()
    }
}

impl SpaceSnapshot {
    fn of(usage: u64, quota: SpaceQuota) -> SpaceSnapshot {
        SpaceSnapshot {
            usage,
            limit: quota.limit,
            policy: quota.policy,
            in_violation: usage > quota.limit,
        }
    }
}

/// What every server needs to enforce quotas, as the active master last worked it out: the
/// throttles, the two switches, and the tables whose space policy is in force. Standalone
/// reads it in process; a cluster's region servers read it from ZooKeeper (`/hbase/quota`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuotaState {
    pub quotas: Vec<(Subject, Quotas)>,
    /// `enable_rpc_throttle` / `disable_rpc_throttle` (on unless switched off).
    pub rpc_throttle: bool,
    /// `enable_exceed_throttle_quota`: user, table and namespace throttles may be exceeded
    /// while the region server's own throttle has room.
    pub exceed_throttle: bool,
    /// The tables over their space quota and the policy each is under.
    pub violations: Vec<(TableName, SpacePolicy)>,
}

impl Default for QuotaState {
    fn default() -> Self {
        QuotaState {
            quotas: Vec::new(),
            rpc_throttle: true,
            exceed_throttle: false,
            violations: Vec::new(),
        }
    }
}

/// The quota switches (`enable_rpc_throttle`, `enable_exceed_throttle_quota`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuotaSwitch {
    /// Whether RPC throttles are enforced at all.
    RpcThrottle,
    /// Whether user, table and namespace throttles may be exceeded while the region
    /// server's throttle has room.
    ExceedThrottle,
}

/// A subject's stored quotas: its throttles (one per kind), whether it bypasses the global
/// ones, and its space quota (tables and namespaces).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Quotas {
    pub bypass_globals: bool,
    pub throttles: Vec<Throttle>,
    pub space: Option<SpaceQuota>,
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
        !self.bypass_globals && self.throttles.is_empty() && self.space.is_none()
    }
}

/// What a quota change does to its subject's quotas.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Sets one throttle.
    Throttle(Throttle),
    /// Removes the throttles of these kinds (every kind: none named).
    Unthrottle(Vec<Kind>),
    /// Sets whether the subject (a user) bypasses the global quotas.
    BypassGlobals(bool),
    /// Sets the subject's (a table's or namespace's) space quota.
    Space(SpaceQuota),
    /// Removes its space quota.
    Unspace,
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
    fn space_limits_and_policies_parse() {
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("512k").unwrap(), 512 << 10);
        assert_eq!(parse_size("100").unwrap(), 100);
        for bad in ["", "0", "1X", "G", "99999999P"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(
            SpacePolicy::parse("no_inserts").unwrap(),
            SpacePolicy::NoInserts
        );
        assert!(SpacePolicy::parse("NO_READS").is_err());
        assert!(!SpacePolicy::NoInserts.refuses_write(true));
        assert!(SpacePolicy::NoInserts.refuses_write(false));
        assert!(SpacePolicy::NoWrites.refuses_write(true));
        let q = SpaceQuota {
            limit: 1 << 30,
            policy: SpacePolicy::NoInserts,
        };
        assert_eq!(
            q.to_string(),
            "TYPE => SPACE, LIMIT => 1G, VIOLATION_POLICY => NO_INSERTS"
        );
    }

    #[test]
    fn space_use_puts_tables_over_their_own_quota_or_their_namespaces() {
        let t = |n: &str| TableName::parse(n).unwrap();
        let quota = |limit, policy| Quotas {
            space: Some(SpaceQuota { limit, policy }),
            ..Quotas::default()
        };
        let quotas = vec![
            (Subject::Table(t("own")), quota(100, SpacePolicy::NoInserts)),
            (
                Subject::Namespace("ns".into()),
                quota(150, SpacePolicy::NoWrites),
            ),
            (
                Subject::Table(t("ns:mine")),
                quota(1000, SpacePolicy::Disable),
            ),
        ];
        let sizes = [("own", 101), ("free", 5000), ("ns:a", 100), ("ns:mine", 60)]
            .into_iter()
            .map(|(n, b)| (t(n), b))
            .collect();
        let used = SpaceUse::observe(sizes, &quotas);
        assert_eq!(
            used.violations(),
            vec![
                (t("own"), SpacePolicy::NoInserts),
                (t("ns:a"), SpacePolicy::NoWrites)
            ]
        );
        assert_eq!(used.namespaces["ns"].usage, 160);
        assert!(!used.tables[&t("ns:mine")].in_violation);
        assert!(!used.tables.contains_key(&t("free")));
        let at_limit = SpaceUse::observe([(t("own"), 100)].into_iter().collect(), &quotas);
        assert!(at_limit.violations().is_empty());
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
