//! Access control in force on a server (HBase's AccessController): whether it is on
//! (`hbase.security.authorization`), the superusers, and the grants, shared by the master and
//! the region servers of a process. Calls from inside the process (the embedded API) carry no
//! user and are not checked; calls from the network carry the user their connection named.

use std::sync::{PoisonError, RwLock, RwLockReadGuard};

use super::{Acl, Action, Permission, Scope, User, denied};
use crate::ops::{CheckAction, FamilyMap, RowOp};
use crate::{Bytes, Result, TableName};

/// The access control of one process.
#[derive(Debug, Default)]
pub struct AccessControl {
    enabled: bool,
    acl: RwLock<Acl>,
}

impl AccessControl {
    /// Nothing is checked (HBase's default).
    pub fn disabled() -> Self {
        AccessControl::default()
    }

    /// Every call from the network is checked; `superusers` (names or `@groups`) may do
    /// anything.
    pub fn enabled(superusers: Vec<String>) -> Self {
        AccessControl {
            enabled: true,
            acl: RwLock::new(Acl::with_superusers(superusers)),
        }
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    pub fn acl(&self) -> RwLockReadGuard<'_, Acl> {
        self.acl.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the grants in force (after `hbase:acl` changed).
    pub fn update(&self, change: impl FnOnce(&mut Acl)) {
        change(&mut self.acl.write().unwrap_or_else(PoisonError::into_inner));
    }

    pub fn set_grants(&self, grants: Vec<Permission>) {
        self.update(|acl| acl.set_grants(grants));
    }

    /// `Ok` if `user` (none: a call from inside the process) may do `action` on `scope`.
    pub fn check(&self, user: Option<&User>, action: Action, scope: &Scope) -> Result<()> {
        self.check_any(user, &[action], scope)
    }

    /// `Ok` if `user` may do any of `actions` on `scope` (HBase's "ADMIN or CREATE" checks);
    /// the error names the first.
    pub fn check_any(&self, user: Option<&User>, actions: &[Action], scope: &Scope) -> Result<()> {
        match user {
            Some(user) if self.enabled => {
                let acl = self.acl();
                if actions.iter().any(|a| acl.allows(user, *a, scope)) {
                    Ok(())
                } else {
                    Err(denied(user, actions[0], scope))
                }
            }
            _ => Ok(()),
        }
    }

    /// For a read of `families` of `table` (empty: all of `all_families`): `None` if the user
    /// may read them all, otherwise the ones they may read (a read sees only those, as HBase's
    /// AccessController filters cells). AccessDenied if they may read none.
    pub fn readable(
        &self,
        user: Option<&User>,
        table: &TableName,
        families: &[Bytes],
        all_families: &[Bytes],
    ) -> Result<Option<Vec<Bytes>>> {
        let Some(user) = user.filter(|_| self.enabled) else {
            return Ok(None);
        };
        // Every client reads hbase:meta to find regions, as in HBase.
        if table.is_meta() {
            return Ok(None);
        }
        let acl = self.acl();
        if acl.allows(user, Action::Read, &Scope::table(table)) {
            return Ok(None);
        }
        let wanted = if families.is_empty() {
            all_families
        } else {
            families
        };
        let allowed: Vec<Bytes> = wanted
            .iter()
            .filter(|f| acl.allows(user, Action::Read, &Scope::family(table, f)))
            .cloned()
            .collect();
        if allowed.is_empty() {
            return Err(denied(user, Action::Read, &Scope::table(table)));
        }
        Ok(Some(allowed))
    }

    /// `Ok` if `user` may write every one of `families` of `table` (or the whole table).
    pub fn check_write<'a>(
        &self,
        user: Option<&User>,
        table: &TableName,
        families: impl IntoIterator<Item = &'a [u8]>,
    ) -> Result<()> {
        let Some(user) = user.filter(|_| self.enabled) else {
            return Ok(());
        };
        let acl = self.acl();
        if acl.allows(user, Action::Write, &Scope::table(table)) {
            return Ok(());
        }
        let mut any = false;
        for f in families {
            any = true;
            acl.check(user, Action::Write, &Scope::family(table, f))?;
        }
        if any {
            Ok(())
        } else {
            Err(denied(user, Action::Write, &Scope::table(table)))
        }
    }

    /// Cuts a read's families to what `user` may read ([`AccessControl::readable`]): all of
    /// them, the ones asked for that are allowed, or (none asked) every allowed family.
    pub fn restrict_read(
        &self,
        user: Option<&User>,
        table: &TableName,
        families: &mut FamilyMap,
        all_families: &[Bytes],
    ) -> Result<()> {
        let asked: Vec<Bytes> = families.keys().cloned().collect();
        match self.readable(user, table, &asked, all_families)? {
            None => {}
            Some(allowed) if families.is_empty() => {
                for f in allowed {
                    families.insert(f, None);
                }
            }
            Some(allowed) => families.retain(|f, _| allowed.contains(f)),
        }
        Ok(())
    }

    /// `Ok` if `user` may apply `action` to a row of `table`: WRITE on every family it
    /// touches.
    pub fn check_mutation(
        &self,
        user: Option<&User>,
        table: &TableName,
        action: &CheckAction,
        all_families: &[Bytes],
    ) -> Result<()> {
        if user.is_none() || !self.enabled {
            return Ok(());
        }
        let families = written_families(action, all_families);
        self.check_write(user, table, families.iter().map(|f| &f[..]))
    }
}

/// The families a mutation writes (a whole-row delete writes them all).
pub fn written_families(action: &CheckAction, all_families: &[Bytes]) -> Vec<Bytes> {
    let mut out: Vec<Bytes> = Vec::new();
    let mut add = |f: &Bytes| {
        if !out.contains(f) {
            out.push(f.clone());
        }
    };
    let mut op = |o: RowOpRef<'_>| match o {
        RowOpRef::Put(p) => p.cells.iter().for_each(|c| add(&c.family)),
        RowOpRef::Delete(d) if d.entries.is_empty() => all_families.iter().for_each(&mut add),
        RowOpRef::Delete(d) => d.entries.iter().for_each(|e| add(&e.family)),
        RowOpRef::Columns(cols) => cols.iter().for_each(&mut add),
    };
    match action {
        CheckAction::Put(p) => op(RowOpRef::Put(p)),
        CheckAction::Delete(d) => op(RowOpRef::Delete(d)),
        CheckAction::Increment(i) => op(RowOpRef::Columns(
            i.columns.iter().map(|c| c.0.clone()).collect(),
        )),
        CheckAction::Append(a) => op(RowOpRef::Columns(
            a.columns.iter().map(|c| c.0.clone()).collect(),
        )),
        CheckAction::RowMutations(m) => {
            for o in &m.mutations {
                match o {
                    RowOp::Put(p) => op(RowOpRef::Put(p)),
                    RowOp::Delete(d) => op(RowOpRef::Delete(d)),
                    RowOp::Increment(i) => op(RowOpRef::Columns(
                        i.columns.iter().map(|c| c.0.clone()).collect(),
                    )),
                    RowOp::Append(a) => op(RowOpRef::Columns(
                        a.columns.iter().map(|c| c.0.clone()).collect(),
                    )),
                }
            }
        }
    }
    out
}

/// One mutation's parts, borrowed.
enum RowOpRef<'a> {
    Put(&'a crate::Put),
    Delete(&'a crate::Delete),
    Columns(Vec<Bytes>),
}
