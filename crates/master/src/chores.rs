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

/// One kind of background work on a `C` (the master).
pub struct Chore<C: ?Sized = Master> {
    /// What the log calls it.
    pub name: &'static str,
    /// The time between runs, read from the live settings on every tick (so `update_config`
    /// changes it).
    pub period: fn(&LiveSettings) -> u64,
    /// Whether it runs when due (its switch; a chore that is off waits for its next period).
    pub on: fn(&C) -> bool,
    /// Whether its first run is on the first tick rather than one period after the start.
    pub at_start: bool,
    /// The work.
    pub run: fn(&C) -> Result<()>,
}

impl<C: ?Sized> Clone for Chore<C> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: ?Sized> Copy for Chore<C> {}

impl<C: ?Sized> std::fmt::Debug for Chore<C> {
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

/// The name of the chore that works out tables' space use against their space quotas.
pub const SPACE_OBSERVER: &str = "space quota observer";

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
        name: SPACE_OBSERVER,
        period: LiveSettings::quota_observer_period_ms,
        on: always,
        at_start: true,
        run: crate::quota_store::observe_space,
    },
];

/// Runs chores when they are due.
#[derive(Debug)]
pub struct ChoreRunner<C: ?Sized = Master> {
    /// Each chore and when it last came due (None: at the next tick).
    chores: Vec<(Chore<C>, Mutex<Option<Instant>>)>,
}

impl<C: ?Sized> ChoreRunner<C> {
    /// A runner of `chores`, each first due as its `at_start` says.
    pub fn new(chores: impl IntoIterator<Item = Chore<C>>) -> Self {
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

    /// Runs each chore that is due and switched on, in the list's order, with the periods
    /// `settings` gives now; a failure is logged and the rest still run. Returns the names of
    /// those that ran (failed or not).
    pub fn tick(&self, on: &C, settings: &LiveSettings) -> Vec<&'static str> {
        let mut ran = Vec::new();
        for (chore, last) in &self.chores {
            let due = {
                let mut last = last.lock().unwrap_or_else(PoisonError::into_inner);
                let period = Duration::from_millis((chore.period)(settings));
                let due = last.is_none_or(|t| t.elapsed() >= period);
                if due {
                    *last = Some(Instant::now());
                }
                due
            };
            if !due || !(chore.on)(on) {
                continue;
            }
            ran.push(chore.name);
            if let Err(e) = (chore.run)(on) {
                eprintln!("WARNING: the {} failed: {e}", chore.name);
            }
        }
        ran
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize};

    /// What the test chores count and switch.
    #[derive(Default)]
    struct Counts {
        quick: AtomicUsize,
        failing: AtomicUsize,
        slow: AtomicUsize,
        off: AtomicUsize,
        switched_on: AtomicBool,
    }

    fn chore(
        name: &'static str,
        period: fn(&LiveSettings) -> u64,
        at_start: bool,
        run: fn(&Counts) -> Result<()>,
    ) -> Chore<Counts> {
        Chore {
            name,
            period,
            on: |_| true,
            at_start,
            run,
        }
    }

    #[test]
    fn due_chores_run_in_order_and_a_failure_stops_none_of_the_others() {
        let runner = ChoreRunner::new([
            chore(
                "failing",
                |_| 0,
                true,
                |c| {
                    c.failing.fetch_add(1, Ordering::Relaxed);
                    Err(basalt_common::Error::storage("broken"))
                },
            ),
            chore(
                "quick",
                |_| 0,
                true,
                |c| {
                    c.quick.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                },
            ),
            // A day between runs, not at the start: not due in this test.
            chore(
                "slow",
                |_| 86_400_000,
                false,
                |c| {
                    c.slow.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                },
            ),
            Chore {
                name: "off",
                period: |_| 0,
                on: |c| c.switched_on.load(Ordering::Relaxed),
                at_start: true,
                run: |c| {
                    c.off.fetch_add(1, Ordering::Relaxed);
                    Ok(())
                },
            },
        ]);
        let counts = Counts::default();
        let settings = LiveSettings::default();
        assert_eq!(runner.tick(&counts, &settings), ["failing", "quick"]);
        assert_eq!(runner.tick(&counts, &settings), ["failing", "quick"]);
        assert_eq!(counts.failing.load(Ordering::Relaxed), 2);
        assert_eq!(counts.quick.load(Ordering::Relaxed), 2);
        assert_eq!(counts.slow.load(Ordering::Relaxed), 0);
        assert_eq!(counts.off.load(Ordering::Relaxed), 0, "its switch is off");
        counts.switched_on.store(true, Ordering::Relaxed);
        runner.hurry("slow");
        assert_eq!(
            runner.tick(&counts, &settings),
            ["failing", "quick", "slow", "off"]
        );
        // Hurried once: the slow one waits its period again.
        assert_eq!(runner.tick(&counts, &settings), ["failing", "quick", "off"]);
    }
}
