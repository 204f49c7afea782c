//! The last hour of each server's request rate and latency, for the charts HBase's pages do
//! not have: the info server samples its figures every [`SAMPLE_EVERY`] (and once when a page
//! is drawn), keeps an hour of samples, and draws each series as an inline SVG line.

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::pages::esc;

/// How often the figures are sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(10);
/// How far back the charts go.
pub const SPAN: Duration = Duration::from_secs(3600);

/// One sample of a server's running totals.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub at: Instant,
    /// Requests served since it started.
    pub requests: u64,
    /// Microseconds those requests took, where known.
    pub micros: Option<f64>,
}

/// Each server's samples, by name.
#[derive(Debug, Default)]
pub struct History {
    servers: Mutex<BTreeMap<String, VecDeque<Sample>>>,
}

/// A series of (seconds before now, value) points.
pub type Series = Vec<(f64, f64)>;

impl History {
    pub fn record(&self, server: &str, sample: Sample) {
        let mut servers = self.servers.lock().unwrap_or_else(PoisonError::into_inner);
        let samples = servers.entry(server.to_owned()).or_default();
        samples.push_back(sample);
        while samples
            .front()
            .is_some_and(|s| sample.at.duration_since(s.at) > SPAN)
        {
            samples.pop_front();
        }
    }

    /// Each server's request rate (per second) and mean latency (milliseconds) between
    /// consecutive samples, with `now` as one more sample of each where given.
    pub fn series(&self, now: &[(String, Sample)]) -> BTreeMap<String, (Series, Series)> {
        let servers = self.servers.lock().unwrap_or_else(PoisonError::into_inner);
        let latest = Instant::now();
        let mut out = BTreeMap::new();
        for (name, kept) in servers.iter() {
            let mut samples: Vec<Sample> = kept.iter().copied().collect();
            if let Some((_, s)) = now.iter().find(|(n, _)| n == name) {
                samples.push(*s);
            }
            let (mut rate, mut latency) = (Vec::new(), Vec::new());
            for pair in samples.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let secs = b.at.duration_since(a.at).as_secs_f64();
                if secs <= 0.0 {
                    continue;
                }
                let ago = latest.duration_since(b.at).as_secs_f64();
                // Counts that went down (a region moved away, a restart) count as none.
                let done = b.requests.saturating_sub(a.requests);
                rate.push((ago, done as f64 / secs));
                if let (Some(x), Some(y)) = (a.micros, b.micros)
                    && done > 0
                {
                    latency.push((ago, (y - x).max(0.0) / done as f64 / 1000.0));
                }
            }
            out.insert(name.clone(), (rate, latency));
        }
        out
    }
}

/// An SVG line chart of `series` over the last hour, its largest value labelled.
pub fn chart(id: &str, title: &str, unit: &str, series: &Series) -> String {
    let (w, h) = (480.0, 120.0);
    let max = series.iter().map(|p| p.1).fold(0.0_f64, f64::max);
    let top = if max > 0.0 { max * 1.1 } else { 1.0 };
    let span = SPAN.as_secs_f64();
    let mut points = String::new();
    for (ago, v) in series.iter().rev() {
        let x = w * (1.0 - (ago / span).min(1.0));
        let y = h - h * (v / top);
        let _ = write!(points, "{x:.1},{y:.1} ");
    }
    let mut svg = format!(
        "<figure class=\"chart\"><figcaption>{} (last hour; most {:.2} {})</figcaption>\
         <svg id=\"{}\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">\
         <rect width=\"{w}\" height=\"{h}\" class=\"frame\"/>",
        esc(title),
        max,
        esc(unit),
        esc(id)
    );
    if series.len() == 1 {
        let (ago, v) = series[0];
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" class=\"line\"/>",
            w * (1.0 - (ago / span).min(1.0)),
            h - h * (v / top)
        );
    }
    let _ = write!(
        svg,
        "<polyline points=\"{}\" class=\"line\" data-points=\"{}\"/></svg></figure>",
        points.trim_end(),
        series.len()
    );
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_latencies_come_from_consecutive_samples() {
        let h = History::default();
        let t0 = Instant::now() - Duration::from_secs(20);
        h.record(
            "s",
            Sample {
                at: t0,
                requests: 100,
                micros: Some(1_000.0),
            },
        );
        h.record(
            "s",
            Sample {
                at: t0 + Duration::from_secs(10),
                requests: 300,
                micros: Some(401_000.0),
            },
        );
        let now = Sample {
            at: t0 + Duration::from_secs(20),
            requests: 250,
            micros: Some(401_000.0),
        };
        let series = h.series(&[("s".into(), now)]);
        let (rate, latency) = &series["s"];
        assert_eq!(rate.len(), 2);
        assert!((rate[0].1 - 20.0).abs() < 1e-9, "{rate:?}");
        assert!(
            rate[1].1.abs() < 1e-9,
            "a count that went down is no requests"
        );
        assert_eq!(latency.len(), 1);
        assert!((latency[0].1 - 2.0).abs() < 1e-9, "{latency:?}");
        let svg = chart("c", "Requests", "per second", rate);
        assert!(svg.contains("data-points=\"2\""), "{svg}");
    }
}
