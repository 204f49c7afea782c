//! Access control as HBase's AccessController has it: actions (READ, WRITE, EXEC, CREATE,
//! ADMIN) granted to users and `@groups` at global, namespace, table, family or qualifier
//! scope; superusers may do anything. A grant covers its scope and everything inside it: a
//! namespace grant covers its tables, a table grant its families, a family grant its
//! qualifiers. Grants live in `hbase:acl` (one cell each, [`Permission::to_cell`]); the master
//! and region servers keep an [`Acl`] of them in memory.

mod control;
mod groups;
mod principal;

use std::fmt;

use bytes::Bytes;

pub use control::AccessControl;
pub use groups::GroupMapping;
pub use principal::PrincipalRules;

use crate::{Error, Result, TableName};

/// One action (HBase's `Permission.Action`, with its one-letter codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Read,
    Write,
    Exec,
    Create,
    Admin,
}

impl Action {
    pub const ALL: [Action; 5] = [
        Action::Read,
        Action::Write,
        Action::Exec,
        Action::Create,
        Action::Admin,
    ];

    pub fn code(self) -> char {
        match self {
            Action::Read => 'R',
            Action::Write => 'W',
            Action::Exec => 'X',
            Action::Create => 'C',
            Action::Admin => 'A',
        }
    }

    /// HBase's name (`READ`, ...), as AccessDeniedException words it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Read => "READ",
            Action::Write => "WRITE",
            Action::Exec => "EXEC",
            Action::Create => "CREATE",
            Action::Admin => "ADMIN",
        }
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

/// A set of actions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Actions(u8);

impl Actions {
    pub fn of(actions: &[Action]) -> Self {
        Actions(actions.iter().fold(0, |bits, a| bits | a.bit()))
    }

    pub fn contains(self, a: Action) -> bool {
        self.0 & a.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn union(self, other: Actions) -> Actions {
        Actions(self.0 | other.0)
    }

    pub fn iter(self) -> impl Iterator<Item = Action> {
        Action::ALL.into_iter().filter(move |a| self.contains(*a))
    }

    /// Parses HBase's codes (`RWXCA`, any order, case-insensitive).
    pub fn parse(codes: &str) -> Result<Actions> {
        let mut out = Actions::default();
        for c in codes.chars() {
            let a = match c.to_ascii_uppercase() {
                'R' => Action::Read,
                'W' => Action::Write,
                'X' => Action::Exec,
                'C' => Action::Create,
                'A' => Action::Admin,
                _ => {
                    return Err(Error::InvalidArgument(format!(
                        "{codes:?} is not a set of permissions: each must be one of R, W, X, C, A"
                    )));
                }
            };
            out = out.union(Actions::of(&[a]));
        }
        if out.is_empty() {
            return Err(Error::InvalidArgument("no permissions given".into()));
        }
        Ok(out)
    }
}

impl fmt::Display for Actions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in self.iter() {
            write!(f, "{}", a.code())?;
        }
        Ok(())
    }
}

/// Where a permission applies.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Scope {
    Global,
    Namespace(String),
    Table {
        table: TableName,
        family: Option<Bytes>,
        qualifier: Option<Bytes>,
    },
}

impl Scope {
    pub fn table(table: &TableName) -> Scope {
        Scope::Table {
            table: table.clone(),
            family: None,
            qualifier: None,
        }
    }

    pub fn family(table: &TableName, family: &[u8]) -> Scope {
        Scope::Table {
            table: table.clone(),
            family: Some(Bytes::copy_from_slice(family)),
            qualifier: None,
        }
    }

    /// Whether this scope holds `inner` (itself included).
    pub fn covers(&self, inner: &Scope) -> bool {
        match (self, inner) {
            (Scope::Global, _) => true,
            (Scope::Namespace(ns), Scope::Namespace(other)) => ns == other,
            (Scope::Namespace(ns), Scope::Table { table, .. }) => table.namespace() == ns,
            (
                Scope::Table {
                    table,
                    family,
                    qualifier,
                },
                Scope::Table {
                    table: t2,
                    family: f2,
                    qualifier: q2,
                },
            ) => {
                table == t2
                    && match family {
                        None => true,
                        Some(f) => {
                            f2.as_ref() == Some(f) && (qualifier.is_none() || qualifier == q2)
                        }
                    }
            }
            _ => false,
        }
    }

    /// The `hbase:acl` row of this scope: `hbase:acl` for global, `@ns`, or the table's name.
    pub fn acl_row(&self) -> String {
        match self {
            Scope::Global => ACL_TABLE.to_owned(),
            Scope::Namespace(ns) => format!("@{ns}"),
            Scope::Table { table, .. } => table.to_string(),
        }
    }
}

impl fmt::Display for Scope {
    /// As HBase's AccessDeniedException names scopes: `global`, `namespace=ns`,
    /// `table=t, family=f, qualifier=q`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scope::Global => f.write_str("global"),
            Scope::Namespace(ns) => write!(f, "namespace={ns}"),
            Scope::Table {
                table,
                family,
                qualifier,
            } => {
                write!(f, "table={table}")?;
                if let Some(fam) = family {
                    write!(f, ", family={}", String::from_utf8_lossy(fam))?;
                }
                if let Some(q) = qualifier {
                    write!(f, ", qualifier={}", String::from_utf8_lossy(q))?;
                }
                Ok(())
            }
        }
    }
}

/// The name of the table grants are stored in, and the family they use.
pub const ACL_TABLE: &str = "hbase:acl";
pub const ACL_FAMILY: &[u8] = b"l";

/// Actions granted to a user (or `@group`) at a scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Permission {
    /// A user name, or `@group`.
    pub principal: String,
    pub scope: Scope,
    pub actions: Actions,
}

impl Permission {
    /// Its `hbase:acl` cell: row [`Scope::acl_row`], family `l`, qualifier
    /// `principal[,family[,qualifier]]`, value the action codes.
    pub fn to_cell(&self) -> (String, Vec<u8>, Vec<u8>) {
        let mut qualifier = self.principal.as_bytes().to_vec();
        if let Scope::Table {
            family: Some(f),
            qualifier: q,
            ..
        } = &self.scope
        {
            qualifier.push(b',');
            qualifier.extend_from_slice(f);
            if let Some(q) = q {
                qualifier.push(b',');
                qualifier.extend_from_slice(q);
            }
        }
        (
            self.scope.acl_row(),
            qualifier,
            self.actions.to_string().into_bytes(),
        )
    }

    /// A permission from its `hbase:acl` cell.
    pub fn from_cell(row: &[u8], qualifier: &[u8], value: &[u8]) -> Result<Permission> {
        let bad = |why: &str| {
            Error::corrupt(format!(
                "hbase:acl row {:?}, column l:{:?}: {why}",
                String::from_utf8_lossy(row),
                String::from_utf8_lossy(qualifier)
            ))
        };
        let row = std::str::from_utf8(row).map_err(|_| bad("the row is not UTF-8"))?;
        let mut parts = qualifier.splitn(3, |&b| b == b',');
        let principal = parts
            .next()
            .and_then(|p| std::str::from_utf8(p).ok())
            .filter(|p| !p.is_empty())
            .ok_or_else(|| bad("no user"))?
            .to_owned();
        let family = parts.next().map(Bytes::copy_from_slice);
        let qual = parts.next().map(Bytes::copy_from_slice);
        let scope = if row == ACL_TABLE {
            Scope::Global
        } else if let Some(ns) = row.strip_prefix('@') {
            Scope::Namespace(ns.to_owned())
        } else {
            Scope::Table {
                table: TableName::parse(row).map_err(|e| bad(&e.to_string()))?,
                family,
                qualifier: qual,
            }
        };
        let actions =
            Actions::parse(&String::from_utf8_lossy(value)).map_err(|e| bad(&e.to_string()))?;
        Ok(Permission {
            principal,
            scope,
            actions,
        })
    }
}

/// Who is calling: a user and their groups.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct User {
    pub name: String,
    pub groups: Vec<String>,
}

impl User {
    pub fn new(name: impl Into<String>) -> Self {
        User {
            name: name.into(),
            groups: Vec::new(),
        }
    }

    /// Whether `principal` (a name or `@group`) is this user.
    fn is(&self, principal: &str) -> bool {
        match principal.strip_prefix('@') {
            Some(group) => self.groups.iter().any(|g| g == group),
            None => principal == self.name,
        }
    }
}

/// The grants in force, and who is a superuser. Grants are kept by principal, so a check
/// looks only at the caller's own grants and their groups'.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Acl {
    grants: std::collections::BTreeMap<String, Vec<Permission>>,
    superusers: Vec<String>,
}

impl Acl {
    /// An ACL with these superusers (names, or `@groups`).
    pub fn with_superusers(superusers: Vec<String>) -> Self {
        Acl {
            grants: std::collections::BTreeMap::new(),
            superusers,
        }
    }

    pub fn is_superuser(&self, user: &User) -> bool {
        self.superusers.iter().any(|s| user.is(s))
    }

    /// The grants that apply to `user`: their own and their groups'.
    fn grants_of<'a>(&'a self, user: &'a User) -> impl Iterator<Item = &'a Permission> + 'a {
        let own = self.grants.get(&user.name).into_iter().flatten();
        let groups = user
            .groups
            .iter()
            .filter_map(|g| self.grants.get(&format!("@{g}")))
            .flatten();
        own.chain(groups)
    }

    /// Whether `user` may do `action` on `scope`.
    pub fn allows(&self, user: &User, action: Action, scope: &Scope) -> bool {
        self.is_superuser(user)
            || self
                .grants_of(user)
                .any(|g| g.actions.contains(action) && g.scope.covers(scope))
    }

    /// `Ok` if `user` may do `action` on `scope`; otherwise HBase's AccessDeniedException.
    pub fn check(&self, user: &User, action: Action, scope: &Scope) -> Result<()> {
        if self.allows(user, action, scope) {
            Ok(())
        } else {
            Err(denied(user, action, scope))
        }
    }

    /// Adds a grant. With `merge`, actions already granted at that scope stay; otherwise
    /// the grant replaces them (HBase's `grant`). Returns the grant now in force.
    pub fn grant(&mut self, p: Permission, merge: bool) -> &Permission {
        let list = self.grants.entry(p.principal.clone()).or_default();
        match list.iter().position(|g| g.scope == p.scope) {
            Some(i) => {
                let g = &mut list[i];
                g.actions = if merge {
                    g.actions.union(p.actions)
                } else {
                    p.actions
                };
                &list[i]
            }
            None => {
                list.push(p);
                let last = list.len() - 1;
                &list[last]
            }
        }
    }

    /// Removes `principal`'s grant at exactly `scope`; returns it.
    pub fn revoke(&mut self, principal: &str, scope: &Scope) -> Option<Permission> {
        let list = self.grants.get_mut(principal)?;
        let i = list.iter().position(|g| &g.scope == scope)?;
        let removed = list.remove(i);
        if list.is_empty() {
            self.grants.remove(principal);
        }
        Some(removed)
    }

    /// What `principal` holds at exactly `scope`.
    pub fn held(&self, principal: &str, scope: &Scope) -> Option<&Permission> {
        self.grants
            .get(principal)?
            .iter()
            .find(|g| &g.scope == scope)
    }

    /// Every grant, by principal.
    pub fn grants(&self) -> impl Iterator<Item = &Permission> + '_ {
        self.grants.values().flatten()
    }

    /// Replaces the grants (read back from `hbase:acl`).
    pub fn set_grants(&mut self, grants: Vec<Permission>) {
        self.grants.clear();
        for g in grants {
            self.grant(g, false);
        }
    }
}

/// HBase's AccessDeniedException for `user` wanting `action` on `scope`.
pub fn denied(user: &User, action: Action, scope: &Scope) -> Error {
    Error::AccessDenied(format!(
        "Insufficient permissions for user '{}' (action={}, {scope})",
        user.name,
        action.name()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str) -> TableName {
        TableName::parse(name).expect("name")
    }

    fn grant(acl: &mut Acl, who: &str, scope: Scope, codes: &str) {
        acl.grant(
            Permission {
                principal: who.into(),
                scope,
                actions: Actions::parse(codes).expect("codes"),
            },
            false,
        );
    }

    #[test]
    fn grants_cover_their_scope_and_what_is_inside_it() {
        let mut acl = Acl::with_superusers(vec!["root".into(), "@admins".into()]);
        grant(&mut acl, "alice", Scope::Namespace("ns".into()), "R");
        grant(&mut acl, "bob", Scope::family(&t("t"), b"cf"), "RW");
        grant(&mut acl, "@ops", Scope::table(&t("t")), "A");
        let alice = User::new("alice");
        let bob = User::new("bob");
        let carol = User {
            name: "carol".into(),
            groups: vec!["ops".into()],
        };
        assert!(acl.allows(&alice, Action::Read, &Scope::table(&t("ns:x"))));
        assert!(acl.allows(&alice, Action::Read, &Scope::family(&t("ns:x"), b"f")));
        assert!(!acl.allows(&alice, Action::Write, &Scope::table(&t("ns:x"))));
        assert!(!acl.allows(&alice, Action::Read, &Scope::table(&t("t"))));
        // A family grant covers the family, not the table.
        assert!(acl.allows(&bob, Action::Write, &Scope::family(&t("t"), b"cf")));
        assert!(!acl.allows(&bob, Action::Write, &Scope::table(&t("t"))));
        assert!(!acl.allows(&bob, Action::Read, &Scope::family(&t("t"), b"other")));
        assert!(acl.allows(&carol, Action::Admin, &Scope::table(&t("t"))));
        assert!(acl.allows(&User::new("root"), Action::Admin, &Scope::Global));
        let admin = User {
            name: "x".into(),
            groups: vec!["admins".into()],
        };
        assert!(acl.is_superuser(&admin));
        let err = acl
            .check(&alice, Action::Write, &Scope::table(&t("ns:x")))
            .expect_err("denied");
        assert_eq!(
            err.to_string(),
            "Insufficient permissions for user 'alice' (action=WRITE, table=ns:x)"
        );
        assert_eq!(
            err.java_class(),
            "org.apache.hadoop.hbase.security.AccessDeniedException"
        );
    }

    #[test]
    fn grant_replaces_unless_merging_and_revoke_removes() {
        let mut acl = Acl::default();
        grant(&mut acl, "u", Scope::Global, "RW");
        grant(&mut acl, "u", Scope::Global, "C");
        assert_eq!(
            acl.grants().next().map(|g| g.actions.to_string()),
            Some("C".into())
        );
        acl.grant(
            Permission {
                principal: "u".into(),
                scope: Scope::Global,
                actions: Actions::parse("r").expect("codes"),
            },
            true,
        );
        assert_eq!(
            acl.grants().next().map(|g| g.actions.to_string()),
            Some("RC".into())
        );
        assert!(acl.revoke("u", &Scope::Global).is_some());
        assert!(acl.grants().next().is_none());
        assert!(Actions::parse("RZ").is_err());
        assert!(Actions::parse("").is_err());
    }

    #[test]
    fn permissions_round_trip_through_acl_cells() {
        for scope in [
            Scope::Global,
            Scope::Namespace("ns".into()),
            Scope::table(&t("ns:t")),
            Scope::family(&t("t"), b"cf"),
            Scope::Table {
                table: t("t"),
                family: Some(Bytes::from_static(b"cf")),
                qualifier: Some(Bytes::from_static(b"q")),
            },
        ] {
            let p = Permission {
                principal: "@grp".into(),
                scope,
                actions: Actions::parse("RWXCA").expect("codes"),
            };
            let (row, qualifier, value) = p.to_cell();
            assert_eq!(
                Permission::from_cell(row.as_bytes(), &qualifier, &value).expect("back"),
                p
            );
        }
        assert!(Permission::from_cell(b"t", b"", b"R").is_err());
        assert!(Permission::from_cell(b"t", b"u", b"Q").is_err());
    }
}
