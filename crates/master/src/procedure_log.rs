//! The master's record of its procedures (`list_procedures`, `list_locks`): each catalog
//! change (creating, altering, enabling, disabling, dropping a table; namespaces; splits,
//! merges, moves, assigns; recoveries) is a procedure with an id, HBase's class name, its
//! owner, the resource it locks and its state. Basalt's master runs one such change at a time
//! (its DDL lock): a procedure waiting for it is WAITING on the lock of the one running. The
//! running ones and the last [`KEPT`] finished are listed.

use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

/// Finished procedures kept.
pub const KEPT: usize = 100;

pub use basalt_common::procedure::{Lock, Procedure, Resource, State};

#[derive(Debug, Default)]
struct Lists {
    running: Vec<Procedure>,
    finished: VecDeque<Procedure>,
}

/// The record.
#[derive(Debug, Default)]
pub struct ProcedureLog {
    next: AtomicU64,
    lists: Mutex<Lists>,
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
        let out = body();
        CURRENT.with(|c| c.set(None));
        let mut lists = self.lists();
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
