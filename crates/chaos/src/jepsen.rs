//! Reading Jepsen's histories: etcd's logs (`INFO  jepsen.util - 3 :ok :read nil`) and the
//! key-value histories of EDN maps (`{:process 0, :type :ok, :f :get, :key "5", :value ""}`),
//! as the validation data (`tests/linearizability/`) holds them.

use crate::linearizability::Operation;
use crate::models::{KvOp, KvOperation, RegisterOp, RegisterOperation, RegisterOut};

/// A line that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line: usize,
    pub why: String,
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.why)
    }
}

impl std::error::Error for BadLine {}

/// Pairs each process's invocation with its completion, in the order of the lines: the
/// line number is the time. A completion `:info` (or none at all) is an unknown outcome.
struct Pairing<I, O> {
    open: std::collections::HashMap<u64, (I, u64)>,
    done: Vec<Operation<I, O>>,
}

impl<I, O> Pairing<I, O> {
    fn new() -> Self {
        Pairing {
            open: std::collections::HashMap::new(),
            done: Vec::new(),
        }
    }

    fn invoke(&mut self, process: u64, input: I, at: u64) {
        self.open.insert(process, (input, at));
    }

    fn complete(
        &mut self,
        process: u64,
        output: O,
        at: u64,
        known: bool,
        line: usize,
    ) -> Result<(), BadLine> {
        let (input, call) = self.open.remove(&process).ok_or_else(|| BadLine {
            line,
            why: format!("process {process} completes an operation it never invoked"),
        })?;
        self.done.push(if known {
            Operation {
                client: process,
                input,
                call,
                ret: at,
                output,
            }
        } else {
            Operation::unknown(process, input, call, output)
        });
        Ok(())
    }

    /// Forgets the process's open invocation (an operation known to have had no effect).
    fn drop_open(&mut self, process: u64) {
        self.open.remove(&process);
    }

    fn finish(mut self, unknown: impl Fn() -> O) -> Vec<Operation<I, O>> {
        let mut open: Vec<_> = self.open.into_iter().collect();
        open.sort_by_key(|(p, _)| *p);
        for (process, (input, call)) in open {
            self.done
                .push(Operation::unknown(process, input, call, unknown()));
        }
        self.done
    }
}

/// One register's history from a Jepsen etcd log. `:fail` of a cas is a cas that did not
/// apply; `:info` is an unknown outcome.
pub fn etcd(log: &str) -> Result<Vec<RegisterOperation>, BadLine> {
    let mut pairing = Pairing::new();
    for (n, line) in log.lines().enumerate() {
        let Some(rest) = line.split(" - ").nth(1) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let bad = |why: &str| BadLine {
            line: n + 1,
            why: format!("{why}: {line:?}"),
        };
        let [process, kind, f, value @ ..] = fields.as_slice() else {
            return Err(bad("fewer than three fields"));
        };
        let process: u64 = process.parse().map_err(|_| bad("no process number"))?;
        let value = value.join(" ");
        let number = |s: &str| s.trim().parse::<i64>().map_err(|_| bad("not a number"));
        let pair = || -> Result<(i64, i64), BadLine> {
            let inner = value.trim_start_matches('[').trim_end_matches(']');
            let mut it = inner.split_whitespace();
            match (it.next(), it.next()) {
                (Some(a), Some(b)) => Ok((number(a)?, number(b)?)),
                _ => Err(bad("a cas needs [from to]")),
            }
        };
        let at = n as u64;
        match (*kind, *f) {
            (":invoke", ":read") => pairing.invoke(process, (String::new(), RegisterOp::Read), at),
            (":invoke", ":write") => {
                pairing.invoke(
                    process,
                    (String::new(), RegisterOp::Write(number(&value)?)),
                    at,
                );
            }
            (":invoke", ":cas") => {
                let (from, to) = pair()?;
                pairing.invoke(process, (String::new(), RegisterOp::Cas { from, to }), at);
            }
            (":ok", ":read") => {
                let read = if value == "nil" {
                    None
                } else {
                    Some(number(&value)?)
                };
                pairing.complete(process, RegisterOut::Read(read), at, true, n + 1)?;
            }
            (":ok", ":write") => {
                pairing.complete(process, RegisterOut::Written, at, true, n + 1)?
            }
            (":ok", ":cas") => {
                pairing.complete(process, RegisterOut::Cas(true), at, true, n + 1)?
            }
            (":fail", ":cas") => {
                pairing.complete(process, RegisterOut::Cas(false), at, true, n + 1)?
            }
            (":info", _) => pairing.complete(process, RegisterOut::Unknown, at, false, n + 1)?,
            // A read that failed (timed out) changed nothing and saw nothing: it is dropped.
            (":fail", ":read") => pairing.drop_open(process),
            _ => return Err(bad("an event this reader does not know")),
        }
    }
    Ok(pairing.finish(|| RegisterOut::Unknown))
}

/// The value of `:name` in an EDN map line (a keyword, number, nil or string).
fn edn_field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let at = line.find(&format!(":{name} "))? + name.len() + 2;
    let rest = &line[at..];
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.find('"').map(|end| &quoted[..end]);
    }
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

/// A key-value history of EDN maps (`:f` get, put or append on `:key`).
pub fn kv(text: &str) -> Result<Vec<KvOperation>, BadLine> {
    let mut pairing = Pairing::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| BadLine {
            line: n + 1,
            why: format!("{why}: {line:?}"),
        };
        let field = |name| edn_field(line, name).ok_or_else(|| bad(&format!("no :{name}")));
        let process: u64 = field("process")?
            .parse()
            .map_err(|_| bad("no process number"))?;
        let value = field("value")?;
        let value = if value == "nil" { "" } else { value };
        let at = n as u64;
        match field("type")? {
            ":invoke" => {
                let op = match field("f")? {
                    ":get" => KvOp::Get,
                    ":put" => KvOp::Put(value.to_owned()),
                    ":append" => KvOp::Append(value.to_owned()),
                    other => return Err(bad(&format!("unknown :f {other}"))),
                };
                pairing.invoke(process, (field("key")?.to_owned(), op), at);
            }
            ":ok" => pairing.complete(process, value.to_owned(), at, true, n + 1)?,
            ":info" => pairing.complete(process, String::new(), at, false, n + 1)?,
            other => return Err(bad(&format!("unknown :type {other}"))),
        }
    }
    Ok(pairing.finish(String::new))
}
