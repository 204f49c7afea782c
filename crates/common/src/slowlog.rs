//! A server's slow and large call log (HBase's slow log ring buffer, `get_slowlog_responses`):
//! the last calls that took longer than `hbase.ipc.warn.response.time` or answered more bytes
//! than `hbase.ipc.warn.response.size`, at most [`CAPACITY`] of them, the oldest dropped first.
//! The RPC server records them; AdminService GetLogEntries reads them.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use crate::site::LiveSettings;

/// Calls kept (HBase's `hbase.regionserver.slowlog.ringbuffer.size`, 256).
pub const CAPACITY: usize = 256;

/// One call the log keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlowCall {
    /// When it started, in milliseconds since the epoch.
    pub start_time_ms: i64,
    pub processing_ms: u32,
    /// How long it waited for a handler before it ran.
    pub queue_ms: u32,
    pub response_size: u64,
    pub client_address: String,
    /// `ClientService`, `AdminService`, ...
    pub service: String,
    pub method: String,
    pub user: String,
    /// The region the call named, if it named one.
    pub region: Option<String>,
    /// Slower than the slow threshold; larger than the large threshold (or both).
    pub slow: bool,
    pub large: bool,
}

impl SlowCall {
    /// HBase's `call_details`: the method and its request's class.
    pub fn call_details(&self) -> String {
        let outer = match self.service.as_str() {
            "ClientService" => "ClientProtos",
            "AdminService" => "AdminProtos",
            "MasterService" => "MasterProtos",
            other => other,
        };
        format!(
            "{}(org.apache.hadoop.hbase.shaded.protobuf.generated.{outer}${}Request)",
            self.method, self.method
        )
    }

    /// The table of its region (`ns:table` or `table`), from the region's name.
    pub fn table(&self) -> Option<&str> {
        self.region.as_deref().and_then(|r| r.split(',').next())
    }
}

/// Which calls a reader wants (HBase's SlowLogResponseRequest): each given field must match,
/// all of them (`and`) or any (HBase's default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    pub region: Option<String>,
    pub table: Option<String>,
    pub client_address: Option<String>,
    pub user: Option<String>,
    pub and: bool,
    /// The large log instead of the slow one.
    pub large: bool,
    /// At most this many, the newest first (HBase's default 10).
    pub limit: usize,
}

impl Filter {
    fn accepts(&self, c: &SlowCall) -> bool {
        if (self.large && !c.large) || (!self.large && !c.slow) {
            return false;
        }
        let tests = [
            self.region.as_ref().map(|r| c.region.as_deref() == Some(r)),
            self.table.as_ref().map(|t| c.table() == Some(t)),
            self.client_address
                .as_ref()
                .map(|a| c.client_address.split(':').next() == a.split(':').next()),
            self.user.as_ref().map(|u| c.user == *u),
        ];
        let given: Vec<bool> = tests.into_iter().flatten().collect();
        if given.is_empty() {
            return true;
        }
        if self.and {
            given.iter().all(|t| *t)
        } else {
            given.iter().any(|t| *t)
        }
    }
}

/// The ring buffer, with the thresholds it records by.
#[derive(Debug, Default)]
pub struct SlowLog {
    settings: Arc<LiveSettings>,
    calls: Mutex<VecDeque<SlowCall>>,
}

impl SlowLog {
    pub fn new(settings: Arc<LiveSettings>) -> Self {
        SlowLog {
            settings,
            calls: Mutex::default(),
        }
    }

    /// Whether a call of this length and size goes in, as (slow, large).
    pub fn judge(&self, processing_ms: u64, response_size: u64) -> (bool, bool) {
        (
            processing_ms >= self.settings.slow_response_ms(),
            response_size >= self.settings.large_response_bytes(),
        )
    }

    /// Keeps a call (the caller judged it slow or large).
    pub fn record(&self, call: SlowCall) {
        let mut calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        if calls.len() == CAPACITY {
            calls.pop_front();
        }
        calls.push_back(call);
    }

    /// The calls `filter` wants, the newest first.
    pub fn read(&self, filter: &Filter) -> Vec<SlowCall> {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        calls
            .iter()
            .rev()
            .filter(|c| filter.accepts(c))
            .take(filter.limit)
            .cloned()
            .collect()
    }

    /// Forgets every call.
    pub fn clear(&self) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(method: &str, ms: u32, size: u64, region: Option<&str>) -> SlowCall {
        SlowCall {
            start_time_ms: 1,
            processing_ms: ms,
            queue_ms: 0,
            response_size: size,
            client_address: "127.0.0.1:5000".into(),
            service: "ClientService".into(),
            method: method.into(),
            user: "alice".into(),
            region: region.map(str::to_owned),
            slow: ms >= 100,
            large: size >= 1000,
        }
    }

    #[test]
    fn keeps_the_newest_and_filters_them() {
        let log = SlowLog::default();
        for i in 0..CAPACITY + 5 {
            log.record(call("Get", 100 + i as u32, 10, Some("t,,1.abc.")));
        }
        log.record(call("Scan", 5, 5000, Some("u,,1.def.")));
        let all = Filter {
            limit: usize::MAX,
            ..Filter::default()
        };
        let slow = log.read(&all);
        assert_eq!(
            slow.len(),
            CAPACITY - 1,
            "the ring holds {CAPACITY}, one is large only"
        );
        assert_eq!(slow[0].processing_ms, 100 + CAPACITY as u32 + 4);
        let large = log.read(&Filter {
            large: true,
            ..all.clone()
        });
        assert_eq!(large.len(), 1);
        assert_eq!(
            large[0].call_details(),
            "Scan(org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos$ScanRequest)"
        );
        let by_table = Filter {
            table: Some("u".into()),
            large: true,
            ..all.clone()
        };
        assert_eq!(log.read(&by_table).len(), 1);
        let both = Filter {
            table: Some("t".into()),
            user: Some("bob".into()),
            and: true,
            limit: 10,
            ..Filter::default()
        };
        assert!(log.read(&both).is_empty());
        let either = Filter { and: false, ..both };
        assert_eq!(log.read(&either).len(), 10);
        log.clear();
        assert!(log.read(&all).is_empty());
    }
}
