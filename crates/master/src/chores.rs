//! The master's chores (HBase's `ScheduledChore`s): one list of what runs how often, under
//! which switch, and one runner that both the embedded engine's background thread and the
//! cluster master's loop tick. A chore that fails is logged and tried again at its next
//! period; it never stops the others.

use std::sync::atomic::Ordering;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use basalt_common::Result;
use basalt_common::site::LiveSettings;

use crate::master::Master;

/// One kind of background work.
#[derive(Clone, Copy)]
pub struct Chore {
    /// What the log calls it.
    pub name: &'static str,
    /// The time between runs, read from the live settings on every tick (so `update_config`
    /// changes it).
    pub period: fn(&LiveSettings) -> u64,
    /// Whether it runs when due (its switch; a chore that is off waits for its next period).
    pub on: fn(&Master) -> bool,
    /// Whether its first run is on the first tick rather than one period after the start.
    pub at_start: bool,
    /// The work.
    pub run: fn(&Master) -> Result<()>,
}

impl std::fmt::Debug for Chore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

fn always(_: &Master) -> bool {
    true
}

/// The balancer (its switch is checked inside, where a manual `balance` checks it too).
pub const BALANCER: Chore = Chore {
    name: "balancer",
    period: LiveSettings::balancer_period_ms,
    on: always,
    at_start: false,
    run: |master| crate::balancer::balance(master).map(drop),
};

/// Every master's chores, on a cluster's master and in the embedded engine alike.
pub const CHORES: &[Chore] = &[
    Chore {
        name: "catalog janitor",
        period: LiveSettings::catalog_janitor_interval_ms,
        on: |master| master.catalog_janitor_on.load(Ordering::Acquire),
        at_start: false,
        run: |master| crate::procedures::clean_parents(master).map(drop),
    },
    Chore {
        name: "normalizer",
        period: LiveSettings::normalizer_period_ms,
        on: always,
        at_start: false,
        run: |master| crate::normalizer::normalize(master, &[]).map(drop),
    },
    Chore {
        name: "snapshot cleanup",
        period: LiveSettings::snapshot_cleanup_interval_ms,
        on: |master| master.snapshot_cleanup_on.load(Ordering::Acquire),
        at_start: false,
        run: |master| crate::snapshots::delete_expired(master).map(drop),
    },
    Chore {
        name: "space quota observer",
        period: LiveSettings::quota_observer_period_ms,
        on: always,
        at_start: true,
        run: crate::quota_store::observe_space,
    },
];

/// Runs chores when they are due.
#[derive(Debug)]
pub struct ChoreRunner {
    /// Each chore and when it last came due (None: at the next tick).
    chores: Vec<(Chore, Mutex<Option<Instant>>)>,
}

impl ChoreRunner {
    /// A runner of `chores`, each first due as its `at_start` says.
    pub fn new(chores: impl IntoIterator<Item = Chore>) -> Self {
        let now = Instant::now();
        ChoreRunner {
            chores: chores
                .into_iter()
                .map(|c| {
                    let last = (!c.at_start).then_some(now);
                    (c, Mutex::new(last))
                })
                .collect(),
        }
    }

    /// Makes the chore named `name` due at the next tick (the balancer, when a server came).
    pub fn hurry(&self, name: &str) {
        for (chore, last) in &self.chores {
            if chore.name == name {
                *last.lock().unwrap_or_else(PoisonError::into_inner) = None;
            }
        }
    }

    /// Runs each chore that is due and switched on, in the list's order; a failure is logged
    /// and the rest still run. Returns the names of those that failed.
    pub fn tick(&self, master: &Master) -> Vec<&'static str> {
        let mut failed = Vec::new();
        for (chore, last) in &self.chores {
            let due = {
                let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
                let period = Duration::from_millis((chore.period)(&master.settings));
                let due = last.is_none_or(|t| t.elapsed() >= period);
                if due {
                    *last = Some(Instant::now());
                }
                due
            };
            if due
                && (chore.on)(master)
                && let Err(e) = (chore.run)(master)
            {
                eprintln!("WARNING: the {} failed: {e}", chore.name);
                failed.push(chore.name);
            }
        }
        failed
    }
}
