//! Which groups a user belongs to, for `@group` grants and superusers (Hadoop's group
//! mapping, which HBase uses): the groups of the operating system's account of that name on
//! the server (Hadoop's default `ShellBasedUnixGroupsMapping`, read here from `/etc/passwd`
//! and `/etc/group`), and fixed lists that replace them for named users (Hadoop's
//! `hadoop.user.group.static.mapping.overrides`, `user1=group1,group2;user2=`).

use std::collections::BTreeMap;
use std::path::PathBuf;

/// How users' groups are found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMapping {
    /// Where the system's accounts are (`/etc/passwd`, `/etc/group`); None: not looked up.
    system: Option<(PathBuf, PathBuf)>,
    overrides: BTreeMap<String, Vec<String>>,
}

impl Default for GroupMapping {
    /// The system's groups, no overrides.
    fn default() -> Self {
        GroupMapping {
            system: Some(("/etc/passwd".into(), "/etc/group".into())),
            overrides: BTreeMap::new(),
        }
    }
}

impl GroupMapping {
    /// Nobody has a group.
    pub fn none() -> Self {
        GroupMapping {
            system: None,
            overrides: BTreeMap::new(),
        }
    }

    /// The system's groups, read from these files (of `/etc/passwd`'s and `/etc/group`'s
    /// formats) instead.
    pub fn system_files(passwd: impl Into<PathBuf>, group: impl Into<PathBuf>) -> Self {
        GroupMapping {
            system: Some((passwd.into(), group.into())),
            overrides: BTreeMap::new(),
        }
    }

    /// Adds fixed groups: `user1=group1,group2;user2=` (Hadoop's overrides format); a user
    /// named there has exactly those groups. An error names what was wrong.
    pub fn with_overrides(mut self, text: &str) -> Result<Self, String> {
        for entry in text.split(';').map(str::trim).filter(|e| !e.is_empty()) {
            let (user, groups) = entry
                .split_once('=')
                .ok_or_else(|| format!("bad group override {entry:?}: expected user=groups"))?;
            let user = user.trim();
            if user.is_empty() {
                return Err(format!("bad group override {entry:?}: no user"));
            }
            let groups = groups
                .split(',')
                .map(str::trim)
                .filter(|g| !g.is_empty())
                .map(str::to_owned)
                .collect();
            self.overrides.insert(user.to_owned(), groups);
        }
        Ok(self)
    }

    /// `user`'s groups: its override, or its system account's primary group and the groups
    /// listing it (none if it has no account or the files cannot be read).
    pub fn groups_of(&self, user: &str) -> Vec<String> {
        if let Some(groups) = self.overrides.get(user) {
            return groups.clone();
        }
        let Some((passwd, group)) = &self.system else {
            return Vec::new();
        };
        let passwd = std::fs::read_to_string(passwd).unwrap_or_default();
        let group = std::fs::read_to_string(group).unwrap_or_default();
        system_groups(&passwd, &group, user)
    }
}

/// The groups of `user` in files of `/etc/passwd`'s (`name:x:uid:gid:...`) and `/etc/group`'s
/// (`name:x:gid:member,member`) formats: its primary group first, then the others in file
/// order.
fn system_groups(passwd: &str, group: &str, user: &str) -> Vec<String> {
    let fields = |line: &str| line.split(':').map(str::to_owned).collect::<Vec<_>>();
    let primary_gid = passwd
        .lines()
        .map(fields)
        .find(|f| f.first().is_some_and(|n| n == user))
        .and_then(|f| f.get(3).cloned());
    let mut groups = Vec::new();
    for line in group.lines() {
        let f = fields(line);
        let (Some(name), Some(gid)) = (f.first(), f.get(2)) else {
            continue;
        };
        let member = f
            .get(3)
            .is_some_and(|m| m.split(',').any(|m| m.trim() == user));
        if primary_gid.as_deref() == Some(gid.as_str()) {
            groups.insert(0, name.clone());
        } else if member {
            groups.push(name.clone());
        }
    }
    groups.dedup();
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str =
        "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n";
    const GROUP: &str =
        "root:x:0:\nalice:x:1000:\nops:x:2000:bob,alice\ndev:x:2001:alice\nbroken\n";

    #[test]
    fn system_groups_are_the_primary_then_memberships() {
        assert_eq!(
            system_groups(PASSWD, GROUP, "alice"),
            ["alice", "ops", "dev"]
        );
        // No account, but listed in a group: that group.
        assert_eq!(system_groups(PASSWD, GROUP, "bob"), ["ops"]);
        assert!(system_groups(PASSWD, GROUP, "nobody").is_empty());
    }

    #[test]
    fn overrides_replace_the_system_groups() {
        let dir = tempfile::tempdir().unwrap();
        let (p, g) = (dir.path().join("passwd"), dir.path().join("group"));
        std::fs::write(&p, PASSWD).unwrap();
        std::fs::write(&g, GROUP).unwrap();
        let mapping = GroupMapping::system_files(&p, &g)
            .with_overrides("alice=admins; carol = a, b ;dave=")
            .unwrap();
        assert_eq!(mapping.groups_of("alice"), ["admins"]);
        assert_eq!(mapping.groups_of("carol"), ["a", "b"]);
        assert!(mapping.groups_of("dave").is_empty());
        assert_eq!(mapping.groups_of("bob"), ["ops"]);
        assert!(GroupMapping::none().groups_of("alice").is_empty());
        assert!(GroupMapping::none().with_overrides("x").is_err());
        assert!(GroupMapping::none().with_overrides("=g").is_err());
    }
}
