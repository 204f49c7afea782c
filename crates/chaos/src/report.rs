//! A campaign's report, in its directory: `history.txt` (one line per operation: client, call
//! and return in milliseconds, the operation and what it returned), `verdict.txt` (the
//! checker's verdict, the faults and the unavailability after each), and `timeline.svg`: each
//! operation a bar from its call to its return on its client's lane, green when it succeeded,
//! orange when its outcome is unknown (drawn to the end), with the fault windows shaded and
//! named, as Jepsen draws its timelines.

use std::fmt::Write as _;
use std::io;
use std::path::Path;
use std::time::Duration;

use crate::linearizability::Verdict;
use crate::models::{CellOp, CellOperation, CellOut};

/// One fault: which, on what, from when to when (nanoseconds from the start).
#[derive(Debug, Clone)]
pub struct Window {
    pub fault: String,
    pub target: String,
    pub from: u64,
    pub to: u64,
}

fn ms(nanos: u64) -> f64 {
    nanos as f64 / 1e6
}

/// After each fault is healed, the longest stretch in which no operation that was called
/// returned successfully (the cluster served nothing), up to the next fault.
pub fn unavailability(history: &[CellOperation], windows: &[Window]) -> Vec<(String, Duration)> {
    let mut done: Vec<u64> = history
        .iter()
        .filter(|o| o.ret != u64::MAX)
        .map(|o| o.ret)
        .collect();
    done.sort_unstable();
    windows
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let until = windows.get(i + 1).map_or(u64::MAX, |n| n.from);
            // From the fault's start: the first success after it ends the outage.
            let mut last = w.from;
            let mut longest = 0;
            for &t in done.iter().filter(|&&t| t > w.from && t < until) {
                longest = longest.max(t - last);
                last = t;
            }
            (
                format!("{} on {}", w.fault, w.target),
                Duration::from_nanos(longest),
            )
        })
        .collect()
}

/// The operation in a line; a list shows its last items only, unless `whole`.
fn describe_with(op: &CellOperation, whole: bool) -> String {
    // A list's last few items (its whole is in the history's earlier lines).
    let list = |l: &[i64]| {
        let from = if whole { 0 } else { l.len().saturating_sub(6) };
        let shown: Vec<String> = l[from..].iter().map(i64::to_string).collect();
        let before = if from > 0 {
            format!("({from} more) ")
        } else {
            String::new()
        };
        format!("[{before}{}]", shown.join(" "))
    };
    let what = match &op.input.1 {
        CellOp::Read => "read".to_owned(),
        CellOp::Write(v) => format!("write {v}"),
        CellOp::Cas { from, to } => format!("cas {from} {to}"),
        CellOp::Append(v) => format!("append {v}"),
        CellOp::ReadList => "read-list".to_owned(),
        CellOp::Increment(d) => format!("increment {d}"),
        CellOp::ReadCounter => "read-counter".to_owned(),
        CellOp::MutateRow(v) => format!("mutate-row a={v} b={}", -v),
        CellOp::ReadRow => "read-row".to_owned(),
    };
    let nil = |v: &Option<i64>| v.map_or("nil".to_owned(), |v| v.to_string());
    let out = match &op.output {
        CellOut::Read(v) => format!("ok {}", nil(v)),
        CellOut::Written => "ok".to_owned(),
        CellOut::Cas(applied) => format!("ok {applied}"),
        CellOut::List(l) => format!("ok {}", list(l)),
        CellOut::Counter(n) => format!("ok {n}"),
        CellOut::Row(a, b) => format!("ok a={} b={}", nil(a), nil(b)),
        CellOut::Unknown => "info (unknown)".to_owned(),
    };
    format!("{} {what} -> {out}", op.input.0)
}

fn describe(op: &CellOperation) -> String {
    describe_with(op, false)
}

/// Writes the report into `dir`.
pub fn write(
    dir: &Path,
    history: &[CellOperation],
    verdict: &Verdict,
    windows: &[Window],
    unavailable: &[(String, Duration)],
) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut text = String::new();
    for op in history {
        let ret = if op.ret == u64::MAX {
            "?".to_owned()
        } else {
            format!("{:.3}", ms(op.ret))
        };
        let _ = writeln!(
            text,
            "{}\t{:.3}\t{ret}\t{}",
            op.client,
            ms(op.call),
            describe_with(op, true)
        );
    }
    std::fs::write(dir.join("history.txt"), text)?;
    let mut summary = format!("verdict: {}\n", verdict_text(verdict, history));
    for w in windows {
        let _ = writeln!(
            summary,
            "fault {} on {}: {:.1} s to {:.1} s",
            w.fault,
            w.target,
            ms(w.from) / 1000.0,
            ms(w.to) / 1000.0
        );
    }
    for (what, d) in unavailable {
        let _ = writeln!(
            summary,
            "unavailable at most {:.1} s around {what}",
            d.as_secs_f64()
        );
    }
    std::fs::write(dir.join("verdict.txt"), summary)?;
    std::fs::write(dir.join("timeline.svg"), timeline(history, windows))
}

/// The verdict in words, with the operations a refutation names.
pub fn verdict_text(verdict: &Verdict, history: &[CellOperation]) -> String {
    match verdict {
        Verdict::Linearizable => "linearizable".to_owned(),
        Verdict::Unknown { key } => format!("undecided (the search of {key} ran out of time)"),
        Verdict::Illegal {
            key,
            linearized,
            stuck_at,
        } => {
            let last: Vec<String> = linearized
                .iter()
                .rev()
                .take(5)
                .rev()
                .map(|&i| describe(&history[i]))
                .collect();
            format!(
                "NOT linearizable: key {key}; the longest order found ends with [{}], and cannot place {}",
                last.join("; "),
                stuck_at.map_or("?".to_owned(), |i| format!(
                    "{} (client {}, called at {:.3} ms)",
                    describe(&history[i]),
                    history[i].client,
                    ms(history[i].call)
                ))
            )
        }
    }
}

/// The timeline as SVG.
pub fn timeline(history: &[CellOperation], windows: &[Window]) -> String {
    let end = history
        .iter()
        .map(|o| if o.ret == u64::MAX { o.call } else { o.ret })
        .chain(windows.iter().map(|w| w.to))
        .max()
        .unwrap_or(1)
        .max(1);
    let clients: Vec<u64> = {
        let mut c: Vec<u64> = history.iter().map(|o| o.client).collect();
        c.sort_unstable();
        c.dedup();
        c
    };
    let (width, lane, top) = (1400.0, 22.0, 40.0);
    let height = top + lane * clients.len() as f64 + 40.0;
    let x = |t: u64| 60.0 + (width - 80.0) * (t as f64 / end as f64);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    for w in windows {
        let _ = writeln!(
            svg,
            "<rect x=\"{:.1}\" y=\"20\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#999\" fill-opacity=\"0.25\"/><text x=\"{:.1}\" y=\"15\">{} {}</text>",
            x(w.from),
            (x(w.to) - x(w.from)).max(1.0),
            height - 40.0,
            x(w.from),
            w.fault,
            w.target
        );
    }
    for (lane_at, client) in clients.iter().enumerate() {
        let y = top + lane * lane_at as f64;
        let _ = writeln!(
            svg,
            "<text x=\"4\" y=\"{:.1}\">client {client}</text>",
            y + 12.0
        );
        for op in history.iter().filter(|o| o.client == *client) {
            let (to, colour) = if op.ret == u64::MAX {
                (end, "#f0a030")
            } else {
                (op.ret, "#3a3")
            };
            let _ = writeln!(
                svg,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.2}\" height=\"14\" fill=\"{colour}\" fill-opacity=\"{}\"><title>{}</title></rect>",
                x(op.call),
                y,
                (x(to) - x(op.call)).max(0.6),
                if op.ret == u64::MAX { "0.35" } else { "0.8" },
                describe(op)
            );
        }
    }
    let _ = writeln!(
        svg,
        "<text x=\"60\" y=\"{:.1}\">0 s</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{:.1} s</text>\n</svg>",
        height - 10.0,
        width - 20.0,
        height - 10.0,
        ms(end) / 1000.0
    );
    svg
}

/// Reads a `history.txt` back (to check a run's history again: `basalt-chaos --check DIR`).
pub fn parse_history(text: &str) -> Result<Vec<CellOperation>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, line)| parse_line(line).map_err(|e| format!("line {}: {e}: {line}", n + 1)))
        .collect()
}

fn parse_line(line: &str) -> Result<CellOperation, String> {
    let mut fields = line.splitn(4, '\t');
    let mut field = || fields.next().ok_or("too few fields");
    let client: u64 = field()?.parse().map_err(|_| "a bad client")?;
    let nanos = |ms: &str| -> Result<u64, String> {
        let ms: f64 = ms.parse().map_err(|_| format!("a bad time {ms}"))?;
        Ok((ms * 1e6).round() as u64)
    };
    let call = nanos(field()?)?;
    let ret = match field()? {
        "?" => u64::MAX,
        ms => nanos(ms)?,
    };
    let (what, out) = field()?.split_once(" -> ").ok_or("no ` -> `")?;
    let mut words = what.split(' ');
    let key = words.next().ok_or("no key")?.to_owned();
    let name = words.next().ok_or("no operation")?;
    let mut number = || -> Result<i64, String> {
        let w = words.next().ok_or("a number is missing")?;
        let w = w.rsplit('=').next().unwrap_or(w);
        w.parse().map_err(|_| format!("not a number: {w}"))
    };
    let op = match name {
        "read" => CellOp::Read,
        "write" => CellOp::Write(number()?),
        "cas" => CellOp::Cas {
            from: number()?,
            to: number()?,
        },
        "append" => CellOp::Append(number()?),
        "read-list" => CellOp::ReadList,
        "increment" => CellOp::Increment(number()?),
        "read-counter" => CellOp::ReadCounter,
        "mutate-row" => CellOp::MutateRow(number()?),
        "read-row" => CellOp::ReadRow,
        other => return Err(format!("an unknown operation {other}")),
    };
    let int = |w: &str| -> Result<Option<i64>, String> {
        match w {
            "nil" => Ok(None),
            w => w
                .parse()
                .map(Some)
                .map_err(|_| format!("not a number: {w}")),
        }
    };
    let output = match out.strip_prefix("ok").map(str::trim) {
        None if out.starts_with("info") => CellOut::Unknown,
        None => return Err(format!("an unknown outcome {out}")),
        Some(rest) => match &op {
            CellOp::Read => CellOut::Read(int(rest)?),
            CellOp::Write(_) | CellOp::MutateRow(_) => CellOut::Written,
            CellOp::Cas { .. } => CellOut::Cas(rest == "true"),
            CellOp::Append(_) | CellOp::ReadList => CellOut::List(
                rest.trim_start_matches('[')
                    .trim_end_matches(']')
                    .split_whitespace()
                    .map(|w| int(w).map(Option::unwrap_or_default))
                    .collect::<Result<_, _>>()?,
            ),
            CellOp::Increment(_) | CellOp::ReadCounter => {
                CellOut::Counter(int(rest)?.unwrap_or_default())
            }
            CellOp::ReadRow => {
                let mut parts = rest.split(' ').map(|p| p.rsplit('=').next().unwrap_or(p));
                CellOut::Row(
                    int(parts.next().unwrap_or("nil"))?,
                    int(parts.next().unwrap_or("nil"))?,
                )
            }
        },
    };
    Ok(CellOperation {
        client,
        input: (key, op),
        call,
        ret,
        output,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::linearizability::Operation;

    /// Every kind of operation and outcome survives history.txt and back.
    #[test]
    fn a_history_reads_back_as_written() {
        let ops = [
            (CellOp::Read, CellOut::Read(None)),
            (CellOp::Read, CellOut::Read(Some(-3))),
            (CellOp::Write(7), CellOut::Written),
            (CellOp::Cas { from: 7, to: 8 }, CellOut::Cas(true)),
            (CellOp::Cas { from: 1, to: 2 }, CellOut::Unknown),
            (CellOp::Append(4), CellOut::List((1..=9).collect())),
            (CellOp::ReadList, CellOut::List(Vec::new())),
            (CellOp::Increment(3), CellOut::Counter(12)),
            (CellOp::ReadCounter, CellOut::Counter(0)),
            (CellOp::MutateRow(5), CellOut::Written),
            (CellOp::ReadRow, CellOut::Row(Some(5), Some(-5))),
            (CellOp::ReadRow, CellOut::Row(None, None)),
        ];
        let history: Vec<CellOperation> = ops
            .into_iter()
            .enumerate()
            .map(|(i, (op, out))| {
                let call = i as u64 * 1_000_000 + 7_000;
                let input = (format!("k{i:03}"), op);
                if out == CellOut::Unknown {
                    Operation::unknown(2, input, call, out)
                } else {
                    Operation {
                        client: 1,
                        input,
                        call,
                        ret: call + 250_000,
                        output: out,
                    }
                }
            })
            .collect();
        let dir = std::env::temp_dir().join(format!("chaos-report-{}", std::process::id()));
        write(&dir, &history, &Verdict::Linearizable, &[], &[]).expect("written");
        let text = std::fs::read_to_string(dir.join("history.txt")).expect("read");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(parse_history(&text), Ok(history));
        assert!(parse_history("1\t2\t3\tk1 fly -> ok").is_err());
    }
}
