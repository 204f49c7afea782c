//! The master's record of its procedures (`list_procedures`, `list_locks`): each catalog
//! change (creating, altering, enabling, disabling, dropping a table; namespaces; splits,
//! merges, moves, assigns; recoveries) is a procedure with an id, HBase's class name, its
//! owner, the resource it locks and its state. Basalt's master runs one such change at a time
//! (its DDL lock, [`ProcedureLog::ddl`]): a procedure waiting for it is WAITING on the lock
//! of the one running. The running ones and the last [`KEPT`] finished are listed.
//!
//! [`ProcedureLog::bypass`] is HBCK2's `bypass`: a waiting procedure gives up without doing
//! anything (its call fails, naming the bypass); a running one is recorded as finished and
//! lets go of the DDL lock, so the procedures behind it run while it goes on alone (as in
//! HBase, only for a procedure stuck for good: nothing stops it).

use std::cell::Cell;
use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};

/// Finished procedures kept.
pub const KEPT: usize = 100;

pub use basalt_common::procedure::{Lock, Procedure, Resource, State};

#[derive(Debug, Default)]
struct Lists {
    running: Vec<Procedure>,
    finished: VecDeque<Procedure>,
    /// Procedures bypassed while they ran or waited.
    bypassed: BTreeSet<u64>,
}

/// Who holds the DDL lock: a token per acquisition, and the procedure (if any) it runs for.
#[derive(Debug, Default)]
struct Holder {
    token: Option<u64>,
    procedure: Option<u64>,
}

/// The record, and the DDL lock it watches.
#[derive(Debug, Default)]
pub struct ProcedureLog {
    next: AtomicU64,
    lists: Mutex<Lists>,
    holder: Mutex<Holder>,
    released: Condvar,
    tokens: AtomicU64,
}

/// Unwinds a procedure bypassed while it waited, out of its body and into [`ProcedureLog::track`].
struct Bypassed;

/// The DDL lock while held; released when dropped (unless a bypass released it already).
#[derive(Debug)]
pub struct DdlGuard<'a> {
    log: &'a ProcedureLog,
    token: u64,
}

impl Drop for DdlGuard<'_> {
    fn drop(&mut self) {
        let mut holder = self
            .log
            .holder
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if holder.token == Some(self.token) {
            *holder = Holder::default();
            self.log.released.notify_all();
        }
    }
}

thread_local! {
    /// The procedure this thread runs, for the DDL lock to mark it waiting and running.
    static CURRENT: Cell<Option<u64>> = const { Cell::new(None) };
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl ProcedureLog {
    fn lists(&self) -> std::sync::MutexGuard<'_, Lists> {
        self.lists.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `body` as a procedure named `class` (the part after HBase's package) on
    /// `resource`, recording it from submission to its outcome. A procedure run inside
    /// another (a merge's move) is recorded as part of the outer one.
    pub fn track<T>(
        &self,
        class: &str,
        resource: Resource,
        parameters: Vec<(String, String)>,
        body: impl FnOnce() -> basalt_common::Result<T>,
    ) -> basalt_common::Result<T> {
        if CURRENT.with(Cell::get).is_some() {
            return body();
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let now = now_ms();
        self.lists().running.push(Procedure {
            id,
            class_name: format!("org.apache.hadoop.hbase.master.procedure.{class}"),
            owner: "basalt".into(),
            state: State::Runnable,
            submitted_ms: now,
            last_update_ms: now,
            parameters,
            resource,
            error: None,
        });
        CURRENT.with(|c| c.set(Some(id)));
        let out = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
            Ok(out) => out,
            Err(payload) if payload.is::<Bypassed>() => Err(basalt_common::Error::Refused(
                format!("procedure {id} was bypassed (hbck) before it ran: nothing was done"),
            )),
            Err(payload) => {
                CURRENT.with(|c| c.set(None));
                std::panic::resume_unwind(payload)
            }
        };
        CURRENT.with(|c| c.set(None));
        let mut lists = self.lists();
        lists.bypassed.remove(&id);
        if let Some(at) = lists.running.iter().position(|p| p.id == id) {
            let mut p = lists.running.remove(at);
            p.last_update_ms = now_ms();
            match &out {
                Ok(_) => p.state = State::Success,
                Err(e) => {
                    p.state = State::Failed;
                    p.error = Some(e.to_string());
                }
            }
            if lists.finished.len() == KEPT {
                lists.finished.pop_front();
            }
            lists.finished.push_back(p);
        }
        out
    }

    /// Takes the DDL lock: one catalog change at a time. The procedure this thread runs is
    /// WAITING meanwhile, and if it is bypassed while it waits, it unwinds out of its body
    /// (into [`ProcedureLog::track`], which fails it) instead of running.
    pub fn ddl(&self) -> DdlGuard<'_> {
        let current = CURRENT.with(Cell::get);
        let mut holder = self.holder.lock().unwrap_or_else(PoisonError::into_inner);
        if holder.token.is_some() {
            self.waiting(true);
            while holder.token.is_some() {
                if current.is_some_and(|id| self.lists().bypassed.contains(&id)) {
                    drop(holder);
                    std::panic::resume_unwind(Box::new(Bypassed));
                }
                holder = self
                    .released
                    .wait(holder)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            self.waiting(false);
        }
        let token = self.tokens.fetch_add(1, Ordering::Relaxed) + 1;
        *holder = Holder {
            token: Some(token),
            procedure: current,
        };
        DdlGuard { log: self, token }
    }

    /// HBCK2's `bypass`: a procedure waiting for the DDL lock gives up without running; one
    /// holding it is recorded as finished (SUCCESS, bypassed) and lets go of the lock. False
    /// for a procedure that is not running.
    pub fn bypass(&self, id: u64) -> bool {
        let mut lists = self.lists();
        let Some(at) = lists.running.iter().position(|p| p.id == id) else {
            return false;
        };
        lists.bypassed.insert(id);
        if lists.running[at].state == State::Runnable {
            let mut p = lists.running.remove(at);
            p.state = State::Success;
            p.last_update_ms = now_ms();
            p.error = Some("bypassed (hbck): it may still be running".into());
            if lists.finished.len() == KEPT {
                lists.finished.pop_front();
            }
            lists.finished.push_back(p);
            drop(lists);
            let mut holder = self.holder.lock().unwrap_or_else(PoisonError::into_inner);
            if holder.procedure == Some(id) {
                *holder = Holder::default();
            }
        } else {
            drop(lists);
        }
        // Waiters look again: one of them was bypassed, or the lock is free.
        self.released.notify_all();
        true
    }

    /// The current thread's procedure waits for the DDL lock (`true`) or holds it.
    pub fn waiting(&self, waiting: bool) {
        let Some(id) = CURRENT.with(Cell::get) else {
            return;
        };
        let mut lists = self.lists();
        if let Some(p) = lists.running.iter_mut().find(|p| p.id == id) {
            p.state = if waiting {
                State::Waiting
            } else {
                State::Runnable
            };
            p.last_update_ms = now_ms();
        }
    }

    /// The running procedures, then the finished ones, by id.
    pub fn procedures(&self) -> Vec<Procedure> {
        let lists = self.lists();
        let mut all: Vec<Procedure> = lists
            .running
            .iter()
            .chain(lists.finished.iter())
            .cloned()
            .collect();
        all.sort_by_key(|p| p.id);
        all
    }

    /// The locks held now: each running procedure's resource, with the procedures waiting for
    /// the DDL lock it holds.
    pub fn locks(&self) -> Vec<Lock> {
        let lists = self.lists();
        let waiting: Vec<Procedure> = lists
            .running
            .iter()
            .filter(|p| p.state == State::Waiting)
            .cloned()
            .collect();
        lists
            .running
            .iter()
            .filter(|p| p.state == State::Runnable)
            .map(|p| Lock {
                resource: p.resource.clone(),
                owner: p.clone(),
                waiting: waiting.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn procedures_are_recorded_with_their_outcome_and_locks() {
        let log = ProcedureLog::default();
        let t = || Resource::Table("t".into());
        log.track("CreateTableProcedure", t(), vec![], || Ok(()))
            .unwrap();
        let failed: basalt_common::Result<()> =
            log.track("DeleteTableProcedure", t(), vec![], || {
                assert_eq!(log.locks().len(), 1, "the running one holds its lock");
                // A procedure inside another is part of it.
                log.track(
                    "TransitRegionStateProcedure",
                    Resource::Region("r".into()),
                    vec![],
                    || Ok(()),
                )?;
                Err(basalt_common::Error::TableNotDisabled("t".parse().unwrap()))
            });
        assert!(failed.is_err());
        let all = log.procedures();
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0].state, State::Success);
        assert_eq!(all[1].state, State::Failed);
        assert!(all[1].error.as_deref().unwrap_or("").contains('t'));
        assert!(log.locks().is_empty());
        for i in 0..KEPT + 5 {
            log.track("CreateTableProcedure", t(), vec![], || Ok(i))
                .unwrap();
        }
        assert_eq!(log.procedures().len(), KEPT);
    }
}
