//! `basalt pe-plot IN.jsonl OUT.svg`: bar charts of what `basalt pe --json` printed, Basalt
//! beside RocksDB when both ran: throughput per command or YCSB phase, and p99 latency.
//! Plain SVG written by hand: no plotting dependency for two bar charts.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};

/// One measured bar: what ran, on which backend, how fast, its p99 latency (us).
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub label: String,
    pub backend: String,
    pub ops_per_second: f64,
    pub p99_us: f64,
}

/// A line's p99 latency: the run's own (`basalt pe`), or for a YCSB phase, which reports one
/// per operation, its slowest operation's.
fn p99(line: &serde_json::Value) -> Option<f64> {
    if let Some(p) = line["latency_us"]["p99"].as_f64() {
        return Some(p);
    }
    line["operations"]
        .as_array()?
        .iter()
        .filter_map(|op| op["latency_us"]["p99"].as_f64())
        .reduce(f64::max)
}

/// One measurement of a `basalt pe --json` line; None for any other line (a comparison, or
/// text that is not JSON).
fn point(line: &str) -> Option<Point> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let text = |key: &str| v[key].as_str();
    let label = match (text("command"), text("workload"), text("phase")) {
        (Some(c), _, _) => c.to_owned(),
        (None, Some(w), Some(p)) => format!("{w} {p}"),
        _ => return None,
    };
    Some(Point {
        label,
        backend: text("backend")?.to_owned(),
        ops_per_second: v["ops_per_second"].as_f64()?,
        p99_us: p99(&v)?,
    })
}

/// The measurements of `basalt pe --json` lines (comparison lines are skipped).
pub fn parse(text: &str) -> Vec<Point> {
    text.lines().filter_map(point).collect()
}

const WIDTH: f64 = 900.0;
const CHART_HEIGHT: f64 = 260.0;
const LEFT: f64 = 80.0;
const COLORS: [&str; 2] = ["#3b6ea5", "#d98c2b"];

/// One bar chart of `value` per label, a bar per backend.
fn chart(
    svg: &mut String,
    top: f64,
    title: &str,
    unit: &str,
    points: &[Point],
    value: fn(&Point) -> f64,
) {
    let mut labels: Vec<&str> = Vec::new();
    let mut backends: Vec<&str> = Vec::new();
    for p in points {
        if !labels.contains(&p.label.as_str()) {
            labels.push(&p.label);
        }
        if !backends.contains(&p.backend.as_str()) {
            backends.push(&p.backend);
        }
    }
    let max = points.iter().map(value).fold(0.0, f64::max).max(1.0);
    let plot_h = CHART_HEIGHT - 70.0;
    let base = top + 30.0 + plot_h;
    let group_w = (WIDTH - LEFT - 20.0) / labels.len().max(1) as f64;
    let bar_w = (group_w * 0.8) / backends.len().max(1) as f64;
    let _ = writeln!(
        svg,
        r#"<text x="{LEFT}" y="{}" font-size="15" font-weight="bold">{title}</text>"#,
        top + 18.0
    );
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{base}" x2="{}" y2="{base}" stroke="#333"/>"##,
        WIDTH - 20.0
    );
    for tick in 0..=4 {
        let v = max * f64::from(tick) / 4.0;
        let y = base - plot_h * f64::from(tick) / 4.0;
        let _ = writeln!(
            svg,
            r##"<text x="{}" y="{y}" font-size="10" text-anchor="end">{v:.0}</text><line x1="{LEFT}" y1="{y}" x2="{}" y2="{y}" stroke="#ddd"/>"##,
            LEFT - 6.0,
            WIDTH - 20.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="12" y="{}" font-size="11" transform="rotate(-90 12 {})">{unit}</text>"#,
        base - plot_h / 2.0,
        base - plot_h / 2.0
    );
    for (i, label) in labels.iter().enumerate() {
        let x0 = LEFT + group_w * i as f64 + group_w * 0.1;
        for (j, backend) in backends.iter().enumerate() {
            let Some(p) = points
                .iter()
                .find(|p| p.label == *label && p.backend == *backend)
            else {
                continue;
            };
            let h = plot_h * value(p) / max;
            let x = x0 + bar_w * j as f64;
            let _ = writeln!(
                svg,
                r#"<rect x="{x:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{}"><title>{backend} {label}: {:.0}</title></rect>"#,
                base - h,
                bar_w - 2.0,
                COLORS[j % COLORS.len()],
                value(p)
            );
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" font-size="10" text-anchor="middle">{label}</text>"#,
            x0 + group_w * 0.4,
            base + 14.0
        );
    }
    for (j, backend) in backends.iter().enumerate() {
        let x = WIDTH - 160.0 + 80.0 * j as f64;
        let _ = writeln!(
            svg,
            r#"<rect x="{x}" y="{}" width="12" height="12" fill="{}"/><text x="{}" y="{}" font-size="11">{backend}</text>"#,
            top + 8.0,
            COLORS[j % COLORS.len()],
            x + 16.0,
            top + 18.0
        );
    }
}

/// The whole picture: throughput, then p99 latency.
pub fn svg(points: &[Point]) -> String {
    let height = 2.0 * CHART_HEIGHT + 20.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif">"#
    );
    s.push('\n');
    s.push_str(r#"<rect width="100%" height="100%" fill="white"/>"#);
    s.push('\n');
    chart(&mut s, 0.0, "Throughput", "ops/s", points, |p| {
        p.ops_per_second
    });
    chart(&mut s, CHART_HEIGHT, "Latency p99", "us", points, |p| {
        p.p99_us
    });
    s.push_str("</svg>\n");
    s
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Lines printed by `basalt pe --json` (with or without `--compare-rocksdb`).
    pub input: std::path::PathBuf,
    /// The SVG file to write.
    pub output: std::path::PathBuf,
}

pub fn run(args: &Args) -> Result<()> {
    let text = std::fs::read_to_string(&args.input)
        .with_context(|| format!("reading {}", args.input.display()))?;
    let points = parse(&text);
    if points.is_empty() {
        bail!(
            "{}: no measurements (expected the lines `basalt pe --json` prints)",
            args.input.display()
        );
    }
    std::fs::write(&args.output, svg(&points))
        .with_context(|| format!("writing {}", args.output.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pe_and_ycsb_lines() {
        let text = concat!(
            r#"{"backend":"basalt","command":"randomRead","ops":10,"seconds":1.0,"ops_per_second":10.0,"latency_us":{"p50":1,"p95":2,"p99":3,"p99_9":4,"max":5},"found":10}"#,
            "\n",
            r#"{"compare":"randomRead","basalt_ops_per_second":10.0,"rocksdb_ops_per_second":5.0,"ratio":2.000}"#,
            "\n",
            r#"{"backend":"rocksdb","workload":"workloada","phase":"run","ops":4,"seconds":1.0,"ops_per_second":4.0,"operations":[{"op":"READ","count":4,"latency_us":{"p50":1,"p95":2,"p99":7,"p99_9":8,"max":9}}]}"#,
        );
        let points = parse(text);
        assert_eq!(points.len(), 2);
        assert_eq!(points[0].label, "randomRead");
        assert_eq!((points[0].ops_per_second, points[0].p99_us), (10.0, 3.0));
        assert_eq!(points[1].label, "workloada run");
        assert_eq!(points[1].backend, "rocksdb");
        assert_eq!(points[1].p99_us, 7.0);
        // A phase of several operations: its slowest operation's p99, not the first one's.
        let two = r#"{"backend":"basalt","workload":"workloadb","phase":"run","ops":4,"seconds":1.0,"ops_per_second":4.0,"operations":[{"op":"READ","count":3,"latency_us":{"p50":1,"p95":2,"p99":5,"p99_9":8,"max":9}},{"op":"UPDATE","count":1,"latency_us":{"p50":1,"p95":2,"p99":40,"p99_9":50,"max":60}}]}"#;
        assert_eq!(parse(two)[0].p99_us, 40.0);
        let svg = svg(&points);
        assert!(
            svg.starts_with("<svg") && svg.contains("workloada run") && svg.ends_with("</svg>\n")
        );
    }
}
