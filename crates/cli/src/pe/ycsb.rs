//! YCSB's core workloads A-F (`basalt pe ycsb --workload a`), as YCSB's CoreWorkload defines
//! them: record keys `user` + FNV-1a-64 hash of the key number, 10 fields of 100 bytes, the
//! HBase binding's layout (one row per record, family `family`, one column per field),
//! zipfian (0.99, scrambled), latest and uniform request distributions, a load phase then a
//! run phase bounded by an operation count or a time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use basalt_embedded::Bytes;
use hdrhistogram::Histogram;

use super::{Backend, Latency, Rng, RowSpec, micros_since, run_clients};

/// The HBase binding's column family.
pub const FAMILY: &[u8] = b"family";
const FIELDS: usize = 10;
const FIELD_LENGTH: usize = 100;
const MAX_SCAN_LENGTH: u64 = 100;

/// YCSB's `Utils.fnvhash64`: FNV-1a over the 8 bytes of `v`, low byte first, made
/// non-negative as Java's `Math.abs` does.
pub fn fnv_hash64(mut v: u64) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        hash ^= v & 0xff;
        v >>= 8;
        hash = hash.wrapping_mul(1_099_511_628_211);
    }
    (hash as i64).unsigned_abs()
}

/// YCSB's `buildKeyName` with hashed insert order: `user` + the hash in decimal.
pub fn key_name(keynum: u64) -> Bytes {
    Bytes::from(format!("user{}", fnv_hash64(keynum)))
}

/// `sum_{i=1..n} 1 / i^theta`, continued from an earlier sum over `from` items.
fn zeta(from: u64, n: u64, theta: f64, initial: f64) -> f64 {
    (from..n).fold(initial, |sum, i| sum + 1.0 / ((i + 1) as f64).powf(theta))
}

/// YCSB's ZipfianGenerator over `[0, items)` (Gray et al.), whose item count may grow.
#[derive(Debug, Clone)]
pub struct Zipfian {
    items: u64,
    theta: f64,
    alpha: f64,
    zetan: f64,
    zeta2: f64,
    eta: f64,
}

impl Zipfian {
    pub const THETA: f64 = 0.99;

    pub fn new(items: u64) -> Self {
        Zipfian::with_zetan(items, zeta(0, items, Self::THETA, 0.0))
    }

    fn with_zetan(items: u64, zetan: f64) -> Self {
        let theta = Self::THETA;
        let zeta2 = zeta(0, 2, theta, 0.0);
        let mut z = Zipfian {
            items,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            zeta2,
            eta: 0.0,
        };
        z.eta = z.eta_for(items);
        z
    }

    fn eta_for(&self, items: u64) -> f64 {
        (1.0 - (2.0 / items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2 / self.zetan)
    }

    /// A value in `[0, items)`; `items` may have grown since the last call (the sum is
    /// extended, as YCSB does).
    pub fn next(&mut self, rng: &mut Rng, items: u64) -> u64 {
        if items > self.items {
            self.zetan = zeta(self.items, items, self.theta, self.zetan);
            self.items = items;
            self.eta = self.eta_for(items);
        }
        let u = rng.unit();
        let uz = u * self.zetan;
        if uz < 1.0 {
            return 0;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return 1;
        }
        let v = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        v.min(self.items - 1)
    }
}

/// How a workload picks the records it reads and updates.
#[derive(Debug, Clone)]
enum Chooser {
    Uniform,
    /// YCSB's ScrambledZipfianGenerator: zipfian over 10^10 items, hashed onto the records.
    Scrambled(Zipfian),
    /// YCSB's SkewedLatestGenerator: the newest records most often.
    Latest(Zipfian),
}

impl Chooser {
    fn next(&mut self, rng: &mut Rng, records: u64) -> u64 {
        match self {
            Chooser::Uniform => rng.below(records),
            Chooser::Scrambled(z) => fnv_hash64(z.next(rng, 10_000_000_000)) % records,
            Chooser::Latest(z) => records - 1 - z.next(rng, records).min(records - 1),
        }
    }
}

/// A workload's operation mix (proportions sum to 1) and request distribution.
#[derive(Debug, Clone, Copy)]
pub struct Workload {
    pub name: char,
    pub read: f64,
    pub update: f64,
    pub insert: f64,
    pub scan: f64,
    pub read_modify_write: f64,
    distribution: Distribution,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Distribution {
    Zipfian,
    Latest,
    Uniform,
}

impl Workload {
    /// YCSB's workloads/workloada..f.
    pub fn core(name: char) -> Result<Workload> {
        let w = |read, update, insert, scan, rmw, distribution| Workload {
            name,
            read,
            update,
            insert,
            scan,
            read_modify_write: rmw,
            distribution,
        };
        Ok(match name.to_ascii_lowercase() {
            'a' => w(0.5, 0.5, 0.0, 0.0, 0.0, Distribution::Zipfian),
            'b' => w(0.95, 0.05, 0.0, 0.0, 0.0, Distribution::Zipfian),
            'c' => w(1.0, 0.0, 0.0, 0.0, 0.0, Distribution::Zipfian),
            'd' => w(0.95, 0.0, 0.05, 0.0, 0.0, Distribution::Latest),
            'e' => w(0.0, 0.0, 0.05, 0.95, 0.0, Distribution::Zipfian),
            'f' => w(0.5, 0.0, 0.0, 0.0, 0.5, Distribution::Zipfian),
            other => bail!("unknown YCSB workload {other:?}: a, b, c, d, e or f"),
        })
        .inspect(|w| {
            let total = w.read + w.update + w.insert + w.scan + w.read_modify_write;
            debug_assert!(
                (total - 1.0).abs() < 1e-9,
                "workload {name} sums to {total}"
            );
        })
    }

    /// The same mix with a uniform request distribution (YCSB's `requestdistribution=uniform`).
    pub fn uniform(mut self) -> Self {
        self.distribution = Distribution::Uniform;
        self
    }

    fn chooser(&self, records: u64) -> Chooser {
        match self.distribution {
            Distribution::Uniform => Chooser::Uniform,
            // YCSB precomputes zeta(10^10, 0.99) for the scrambled generator.
            Distribution::Zipfian => {
                Chooser::Scrambled(Zipfian::with_zetan(10_000_000_000, 26.469_028_201_783_02))
            }
            Distribution::Latest => Chooser::Latest(Zipfian::new(records.max(2))),
        }
    }
}

/// One operation kind of the run phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Insert,
    Read,
    Update,
    Scan,
    ReadModifyWrite,
}

impl Op {
    pub const ALL: [Op; 5] = [
        Op::Insert,
        Op::Read,
        Op::Update,
        Op::Scan,
        Op::ReadModifyWrite,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Insert => "INSERT",
            Op::Read => "READ",
            Op::Update => "UPDATE",
            Op::Scan => "SCAN",
            Op::ReadModifyWrite => "READ-MODIFY-WRITE",
        }
    }
}

/// Latency histograms per operation kind.
type OpLatencies = Vec<(Op, Histogram<u64>)>;

/// How much a phase does: operations (at most), a time limit, client threads, the seed.
#[derive(Debug, Clone, Copy)]
pub struct Phase {
    pub ops: u64,
    pub limit: Option<Duration>,
    pub threads: u64,
    pub seed: u64,
}

/// Latencies and counts of one phase, per operation kind.
#[derive(Debug)]
pub struct PhaseReport {
    pub phase: &'static str,
    pub ops: u64,
    pub seconds: f64,
    pub per_op: OpLatencies,
}

fn record_value(rng: &mut Rng) -> Bytes {
    (0..FIELD_LENGTH)
        .map(|_| b' ' + (rng.next() % 95) as u8)
        .collect::<Vec<u8>>()
        .into()
}

fn field_name(i: usize) -> Bytes {
    Bytes::from(format!("field{i}"))
}

/// A whole record: every field.
fn record(keynum: u64, rng: &mut Rng) -> RowSpec {
    let cells = (0..FIELDS)
        .map(|i| (Bytes::from_static(FAMILY), field_name(i), record_value(rng)))
        .collect();
    (key_name(keynum), cells)
}

/// One field of a record, as an update writes it (YCSB's `writeallfields=false`).
fn one_field(keynum: u64, rng: &mut Rng) -> RowSpec {
    let field = field_name((rng.next() % FIELDS as u64) as usize);
    let cells = vec![(Bytes::from_static(FAMILY), field, record_value(rng))];
    (key_name(keynum), cells)
}

/// Runs `threads` clients until `ops` operations are done or `limit` has passed, each
/// operation chosen by `step`; returns the phase's report.
fn run_phase(
    name: &'static str,
    phase: Phase,
    progress: &indicatif::ProgressBar,
    step: &(dyn Fn(&mut Rng, u64) -> Result<Op> + Sync),
) -> Result<PhaseReport> {
    let Phase {
        ops,
        limit,
        threads,
        seed,
    } = phase;
    let issued = AtomicU64::new(0);
    let start = Instant::now();
    let results = run_clients(threads, |t| -> Result<OpLatencies> {
        let mut hists = Op::ALL
            .iter()
            .map(|&op| Ok((op, super::latency_histogram()?)))
            .collect::<Result<Vec<_>>>()?;
        let mut rng = Rng::new(seed ^ (t + 1).wrapping_mul(0x51_7CC1_B727_220A));
        loop {
            let n = issued.fetch_add(1, Ordering::Relaxed);
            if n >= ops || limit.is_some_and(|l| start.elapsed() >= l) {
                return Ok(hists);
            }
            let began = Instant::now();
            let op = step(&mut rng, n)?;
            let micros = micros_since(began);
            if let Some((_, h)) = hists.iter_mut().find(|(o, _)| *o == op) {
                h.saturating_record(micros);
            }
            if n.is_multiple_of(1024) {
                progress.set_position(n);
            }
        }
    })?;
    let seconds = start.elapsed().as_secs_f64();
    let mut per_op: OpLatencies = Op::ALL
        .iter()
        .map(|&op| Ok((op, super::latency_histogram()?)))
        .collect::<Result<_>>()?;
    for hists in results {
        for (op, h) in hists {
            if let Some((_, total)) = per_op.iter_mut().find(|(o, _)| *o == op) {
                total.add(&h)?;
            }
        }
    }
    per_op.retain(|(_, h)| !h.is_empty());
    let done: u64 = per_op.iter().map(|(_, h)| h.len()).sum();
    progress.set_position(done);
    Ok(PhaseReport {
        phase: name,
        ops: done,
        seconds,
        per_op,
    })
}

/// The load phase: `phase.ops` inserts, key numbers 0.. in order (hashed into key names).
pub fn load(
    backend: &Arc<dyn Backend>,
    phase: Phase,
    progress: &indicatif::ProgressBar,
) -> Result<PhaseReport> {
    run_phase("load", phase, progress, &|rng, n| {
        backend.put(&[record(n, rng)])?;
        Ok(Op::Insert)
    })
}

/// The run phase of `workload` over `records` loaded records: `phase.ops` operations or
/// until `phase.limit`. Inserts add records after the loaded ones.
pub fn run(
    backend: &Arc<dyn Backend>,
    workload: &Workload,
    records: u64,
    phase: Phase,
    progress: &indicatif::ProgressBar,
) -> Result<PhaseReport> {
    if records == 0 {
        bail!("--records must be at least 1");
    }
    let threads = phase.threads.max(1);
    let inserted = AtomicU64::new(records);
    let choosers: Vec<std::sync::Mutex<Chooser>> = (0..threads)
        .map(|_| std::sync::Mutex::new(workload.chooser(records)))
        .collect();
    let w = *workload;
    run_phase("run", phase, progress, &|rng, n| {
        let known = inserted.load(Ordering::Acquire);
        let mut chooser = choosers[(n % threads) as usize]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let pick = rng.unit();
        let mut choose = |rng: &mut Rng| chooser.next(rng, known);
        if pick < w.read {
            backend.get(&key_name(choose(rng)))?;
            Ok(Op::Read)
        } else if pick < w.read + w.update {
            let k = choose(rng);
            backend.update(&[one_field(k, rng)])?;
            Ok(Op::Update)
        } else if pick < w.read + w.update + w.insert {
            let k = inserted.fetch_add(1, Ordering::AcqRel);
            backend.put(&[record(k, rng)])?;
            Ok(Op::Insert)
        } else if pick < w.read + w.update + w.insert + w.scan {
            let start = key_name(choose(rng));
            let len = 1 + rng.below(MAX_SCAN_LENGTH);
            backend.scan(&start, len as usize)?;
            Ok(Op::Scan)
        } else {
            let k = choose(rng);
            backend.get(&key_name(k))?;
            backend.update(&[one_field(k, rng)])?;
            Ok(Op::ReadModifyWrite)
        }
    })
}

impl PhaseReport {
    pub fn ops_per_second(&self) -> f64 {
        self.ops as f64 / self.seconds.max(f64::MIN_POSITIVE)
    }

    /// YCSB-style text: the overall line, then per operation its count and latencies (us).
    pub fn text(&self, label: &str) -> String {
        let mut out = format!(
            "[{label} {}] {} ops in {:.2} s = {:.0} ops/s",
            self.phase,
            self.ops,
            self.seconds,
            self.ops_per_second()
        );
        for (op, h) in &self.per_op {
            out.push_str(&format!(
                "\n  {:<18} {} ops; {}",
                op.name(),
                h.len(),
                Latency(h).text()
            ));
        }
        out
    }

    pub fn json(&self, label: &str, backend: &str) -> String {
        let ops: Vec<String> = self
            .per_op
            .iter()
            .map(|(op, h)| {
                format!(
                    "{{\"op\":\"{}\",\"count\":{},{}}}",
                    op.name(),
                    h.len(),
                    Latency(h).json()
                )
            })
            .collect();
        format!(
            "{{\"backend\":\"{backend}\",\"workload\":\"{label}\",\"phase\":\"{}\",\"ops\":{},\"seconds\":{:.6},\"ops_per_second\":{:.1},\"operations\":[{}]}}",
            self.phase,
            self.ops,
            self.seconds,
            self.ops_per_second(),
            ops.join(",")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_match_ycsb() {
        // FNV-1a-64 of the 8 little-endian bytes of 0: the offset basis folded with 8 zeros.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for _ in 0..8 {
            h = h.wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(fnv_hash64(0), (h as i64).unsigned_abs());
        assert!(key_name(1).starts_with(b"user"));
        assert_ne!(key_name(1), key_name(2));
    }

    #[test]
    fn zipfian_prefers_small_values() {
        let mut z = Zipfian::new(1000);
        let mut rng = Rng::new(7);
        let mut hits = [0u32; 1000];
        for _ in 0..100_000 {
            hits[z.next(&mut rng, 1000) as usize] += 1;
        }
        assert!(hits[0] > hits[10] && hits[10] > hits[500]);
        // Item 0 takes about 1 / zeta(1000) of the draws (13%).
        assert!((10_000..16_000).contains(&hits[0]), "{}", hits[0]);
        // Growing the item count keeps values in range.
        for _ in 0..1000 {
            assert!(z.next(&mut rng, 2000) < 2000);
        }
    }

    #[test]
    fn workloads_are_ycsbs() {
        let a = Workload::core('a').unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((a.read, a.update), (0.5, 0.5));
        let e = Workload::core('E').unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((e.scan, e.insert), (0.95, 0.05));
        assert!(Workload::core('g').is_err());
    }
}
