//! A campaign client on hbase-driver, a Python native-RPC client (`tests/chaos/driver_client.py`):
//! a share of the operations goes through a client Basalt did not write. The Python process
//! takes one operation per line and answers each; it has no timeouts of its own, so an answer
//! that does not come within the campaign's operation timeout ends the process (the operation's
//! outcome unknown) and the next operation starts another.

use std::io::{self, BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use crate::models::{CellOp, CellOut};

/// Where the Python client is and how it is run.
#[derive(Debug, Clone)]
pub struct DriverSettings {
    /// The virtualenv's `python` with hbase-driver installed (`tests/python/venv.sh`).
    pub python: PathBuf,
    /// `tests/chaos/driver_client.py`.
    pub script: PathBuf,
    /// Its error output goes here.
    pub log: PathBuf,
}

#[derive(Debug)]
struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

/// One hbase-driver client; see the module documentation.
#[derive(Debug)]
pub struct DriverClient {
    settings: DriverSettings,
    quorum: String,
    table: String,
    timeout: Duration,
    running: Option<Running>,
}

/// How long the Python client may take to start (imports, ZooKeeper, hbase:meta).
const START: Duration = Duration::from_secs(30);

impl DriverClient {
    pub fn new(settings: DriverSettings, quorum: &str, table: &str, timeout: Duration) -> Self {
        DriverClient {
            settings,
            quorum: quorum.to_owned(),
            table: table.to_owned(),
            timeout,
            running: None,
        }
    }

    fn start(&mut self) -> Result<&mut Running, String> {
        if self.running.is_none() {
            let log = std::fs::File::options()
                .create(true)
                .append(true)
                .open(&self.settings.log)
                .map_err(|e| format!("{}: {e}", self.settings.log.display()))?;
            let mut child = Command::new(&self.settings.python)
                .arg("-u")
                .arg(&self.settings.script)
                .args([&self.quorum, &self.table])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(log)
                .spawn()
                .map_err(|e| format!("starting {}: {e}", self.settings.python.display()))?;
            let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
                (Some(i), Some(o)) => (i, o),
                _ => return Err("the driver client has no pipes".to_owned()),
            };
            let (tx, lines) = mpsc::channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        return;
                    }
                }
            });
            let mut running = Running {
                child,
                stdin,
                lines,
            };
            match running.lines.recv_timeout(START) {
                Ok(line) if line.contains("ready") => {}
                other => {
                    stop(&mut running);
                    return Err(format!("the driver client did not start: {other:?}"));
                }
            }
            self.running = Some(running);
        }
        self.running
            .as_mut()
            .ok_or_else(|| "the driver client is not running".to_owned())
    }

    /// Sends `op` on `row`: what it returned.
    pub fn send(&mut self, row: &str, op: &CellOp) -> Result<CellOut, String> {
        let request = match op {
            CellOp::Read => serde_json::json!({"op": "read", "row": row}),
            CellOp::ReadList => serde_json::json!({"op": "read-list", "row": row}),
            CellOp::ReadCounter => serde_json::json!({"op": "read-counter", "row": row}),
            CellOp::ReadRow => serde_json::json!({"op": "read-row", "row": row}),
            CellOp::Write(v) => serde_json::json!({"op": "write", "row": row, "value": v}),
            CellOp::Cas { from, to } => {
                serde_json::json!({"op": "cas", "row": row, "from": from, "to": to})
            }
            CellOp::Append(v) => serde_json::json!({"op": "append", "row": row, "value": v}),
            CellOp::Increment(by) => serde_json::json!({"op": "increment", "row": row, "by": by}),
            CellOp::MutateRow(_) => return Err("the driver client makes no RowMutations".into()),
        };
        let timeout = self.timeout;
        let running = self.start()?;
        let answer = writeln!(running.stdin, "{request}")
            .and_then(|()| running.stdin.flush())
            .map_err(|e| e.to_string())
            .and_then(|()| {
                running
                    .lines
                    .recv_timeout(timeout)
                    .map_err(|_| format!("no answer within {timeout:?}"))
            });
        let line = match answer {
            Ok(line) => line,
            Err(e) => {
                if let Some(mut running) = self.running.take() {
                    stop(&mut running);
                }
                return Err(e);
            }
        };
        let answer: serde_json::Value =
            serde_json::from_str(&line).map_err(|e| format!("{e}: {line}"))?;
        if let Some(error) = answer.get("error") {
            return Err(error.to_string());
        }
        let ok = answer
            .get("ok")
            .ok_or_else(|| format!("an answer without ok: {line}"))?;
        let list = |v: &serde_json::Value| -> Vec<i64> {
            v.as_array()
                .map(|a| a.iter().map(|x| x.as_i64().unwrap_or(i64::MIN)).collect())
                .unwrap_or_default()
        };
        Ok(match op {
            CellOp::Read => CellOut::Read(ok.as_i64()),
            CellOp::ReadList | CellOp::Append(_) => CellOut::List(list(ok)),
            CellOp::ReadCounter | CellOp::Increment(_) => {
                CellOut::Counter(ok.as_i64().unwrap_or(i64::MIN))
            }
            CellOp::ReadRow => CellOut::Row(ok.get(0).and_then(serde_json::Value::as_i64), {
                ok.get(1).and_then(serde_json::Value::as_i64)
            }),
            CellOp::Write(_) | CellOp::MutateRow(_) => CellOut::Written,
            CellOp::Cas { .. } => CellOut::Cas(ok.as_bool().unwrap_or(false)),
        })
    }
}

fn stop(running: &mut Running) {
    let _ = running.child.kill();
    let _ = running.child.wait();
}

impl Drop for DriverClient {
    fn drop(&mut self) {
        if let Some(mut running) = self.running.take() {
            stop(&mut running);
        }
    }
}

/// Whether `python` can run the driver client (hbase-driver importable).
pub fn available(python: &std::path::Path) -> io::Result<bool> {
    Ok(Command::new(python)
        .args(["-c", "import hbasedriver"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?
        .success())
}
