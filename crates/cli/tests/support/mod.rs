//! Running the `basalt` binary from tests.
#![allow(dead_code, reason = "each test binary uses some of these")]
#![allow(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::process::Command;

pub mod cluster;

use std::io::{Read as _, Write as _};

/// Runs `basalt` with `args`: whether it succeeded, its stdout and its stderr.
pub fn basalt(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .output()
        .expect("run basalt");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `basalt` with `args` and `stdin` as its standard input: whether it succeeded, its
/// stdout and its stderr.
pub fn basalt_with_input(args: &[&str], stdin: &str) -> (bool, String, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_basalt"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run basalt");
    let mut input = child.stdin.take().expect("stdin");
    // A run that fails at start (a refused directory) may exit before reading its input.
    if let Err(e) = input.write_all(stdin.as_bytes()) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    drop(input);
    let out = child.wait_with_output().expect("wait for basalt");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A private ZooKeeper (`tests/zookeeper/start.sh`) on 127.0.0.1 and a free port, killed
/// when dropped.
pub struct ZooKeeper {
    pub quorum: String,
    pid: u32,
    _dir: tempfile::TempDir,
}

impl ZooKeeper {
    pub fn start() -> ZooKeeper {
        let dir = tempfile::tempdir().unwrap();
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/zookeeper/start.sh");
        let out = Command::new("bash")
            .arg(script)
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "ZooKeeper did not start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let mut words = text.split_whitespace();
        let port: u16 = words.next().unwrap().parse().unwrap();
        let pid = words.next().unwrap().parse().unwrap();
        ZooKeeper {
            quorum: format!("127.0.0.1:{port}"),
            pid,
            _dir: dir,
        }
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        let _ = Command::new("kill").arg(self.pid.to_string()).status();
    }
}

/// A `basalt standalone` on free ports, killed when dropped.
pub struct Server {
    child: std::process::Child,
    pub thrift: String,
    pub rpc: String,
    /// The info server's address (pages, /metrics, /jmx).
    pub info: String,
    _dir: Option<tempfile::TempDir>,
}

impl Server {
    pub fn start() -> Server {
        Server::start_with(&[])
    }

    /// A server with more flags.
    pub fn start_with(flags: &[&str]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let mut server = Server::start_in(&dir.path().join("data"), flags);
        server._dir = Some(dir);
        server
    }

    /// A server on the data directory `data`, which outlives it (to start another on it).
    pub fn start_in(data: &std::path::Path, flags: &[&str]) -> Server {
        Server::start_in_env(data, flags, &[])
    }

    /// As [`Server::start_in`], with these environment variables.
    pub fn start_in_env(data: &std::path::Path, flags: &[&str], env: &[(&str, &str)]) -> Server {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_basalt"))
            .args(["standalone", "--data"])
            .arg(data)
            .args(["--thrift-port", "0", "--rpc-port", "0", "--info-port", "0"])
            .args(flags)
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let (mut thrift, mut rpc, mut info) = (None, None, None);
        let address = |line: &str| {
            let at = line.find("listening on ").unwrap() + "listening on ".len();
            line[at..].split_whitespace().next().unwrap().to_owned()
        };
        // Bounded: the server prints a handful of lines before it serves.
        for _ in 0..20 {
            let Some(Ok(line)) = lines.next() else { break };
            if line.starts_with("thrift listening on") {
                thrift = Some(address(&line));
            } else if line.starts_with("rpc (") {
                rpc = Some(address(&line));
            } else if line.starts_with("info listening on") {
                info = Some(address(&line));
            }
            if thrift.is_some() && rpc.is_some() && info.is_some() {
                break;
            }
        }
        // Stop reading: the server's stdout is closed under it, which must not stop it (it
        // did once: a println! on a broken pipe panics).
        drop(lines);
        Server {
            child,
            thrift: thrift.expect("the server names its Thrift address"),
            rpc: rpc.expect("the server names its RPC address"),
            info: info.expect("the server names its info address"),
            _dir: None,
        }
    }
}

impl Server {
    /// The server's process id (for /proc).
    #[allow(dead_code, reason = "not every test looks at the process")]
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GETs `path` from `addr`: status and body.
/// Writes an hbase-site.xml at `path` holding `settings`.
pub fn write_site(path: &std::path::Path, settings: &[(&str, &str)]) {
    let mut text = String::from("<?xml version=\"1.0\"?>\n<configuration>\n");
    for (k, v) in settings {
        text.push_str(&format!(
            "  <property><name>{k}</name><value>{v}</value></property>\n"
        ));
    }
    text.push_str("</configuration>\n");
    std::fs::write(path, text).unwrap();
}

pub fn http_get(addr: &str, path: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    loop {
        let (size, rest) = body.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        out.push_str(&rest[..size]);
        body = &rest[size + 2..];
    }
}
