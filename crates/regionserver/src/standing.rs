//! A region server's standing with ZooKeeper, as a lease (issue 45): in a cluster the server
//! serves only while it has heard from ZooKeeper recently enough that its session cannot have
//! expired, so it stops serving before the master may take it for dead and hand its regions
//! to another server. HBase has no such lease, and a region server cut off from ZooKeeper but
//! not from its clients serves stale reads until it notices.
//!
//! The cluster role renews the lease with a round trip to ZooKeeper every few hundred
//! milliseconds: a round trip sent at `s` that succeeds proves ZooKeeper heard from the
//! session at or after `s`, so it cannot expire the session before `s + session timeout`, and
//! the master cannot see this server gone before then. The lease runs to `s + 2/3 of the
//! session timeout`, leaving a third for the master's own delays to be positive and for clocks
//! to run at slightly different rates. ClientService checks it before each call and again
//! after it, and answers NotServingRegionException when it has lapsed (the client looks the
//! region up again and retries). A server outside a cluster (standalone, embedded) holds no
//! lease: it always serves.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The lease; see the module documentation.
#[derive(Debug)]
pub struct Standing {
    epoch: Instant,
    /// Whether the server serves under a lease at all.
    leased: AtomicBool,
    /// Until when (nanoseconds after `epoch`) it may serve.
    until: AtomicU64,
}

impl Default for Standing {
    fn default() -> Self {
        Standing {
            epoch: Instant::now(),
            leased: AtomicBool::new(false),
            until: AtomicU64::new(0),
        }
    }
}

/// The share of the session timeout a lease lasts.
pub fn lease_for(session_timeout: Duration) -> Duration {
    session_timeout * 2 / 3
}

impl Standing {
    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }

    /// From now on the server serves only under the lease, renewed by [`Standing::renew`];
    /// the first lease runs from `since` (when the session was made).
    pub fn start(&self, since: Instant, lease: Duration) {
        self.until
            .store(self.nanos(since + lease), Ordering::Release);
        self.leased.store(true, Ordering::Release);
    }

    /// ZooKeeper answered a round trip sent at `sent`: the lease runs to `sent + lease`
    /// (never shortened).
    pub fn renew(&self, sent: Instant, lease: Duration) {
        self.until
            .fetch_max(self.nanos(sent + lease), Ordering::AcqRel);
    }

    /// Whether the server may serve now.
    pub fn holds(&self) -> bool {
        !self.leased.load(Ordering::Acquire)
            || self.nanos(Instant::now()) < self.until.load(Ordering::Acquire)
    }

    /// How long ago the lease lapsed (None while it holds).
    pub fn lapsed_for(&self) -> Option<Duration> {
        if self.holds() {
            return None;
        }
        let now = self.nanos(Instant::now());
        Some(Duration::from_nanos(
            now.saturating_sub(self.until.load(Ordering::Acquire)),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_holds_until_it_runs_out_and_renewals_extend_it() {
        let s = Standing::default();
        assert!(s.holds(), "outside a cluster a server always serves");
        s.start(Instant::now(), Duration::from_millis(80));
        assert!(s.holds());
        std::thread::sleep(Duration::from_millis(120));
        assert!(!s.holds(), "the lease ran out");
        assert!(s.lapsed_for().is_some());
        // An answer to a round trip sent long ago does not bring it back.
        s.renew(
            Instant::now() - Duration::from_millis(200),
            Duration::from_millis(80),
        );
        assert!(!s.holds());
        s.renew(Instant::now(), Duration::from_millis(200));
        assert!(s.holds());
        // A late answer to an older round trip never shortens it.
        s.renew(
            Instant::now() - Duration::from_millis(150),
            Duration::from_millis(80),
        );
        assert!(s.holds());
        assert_eq!(lease_for(Duration::from_secs(3)), Duration::from_secs(2));
    }
}
