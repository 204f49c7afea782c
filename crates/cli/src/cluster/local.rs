//! `basalt cluster start`: a cluster on this machine, for trying one and for the tests: a
//! private ZooKeeper (Debian's package, installed if missing), masters and region servers as
//! child processes on free ports of 127.0.0.1, sharing one data directory. It prints where
//! each listens (and its process id), passes on what they print, and stops them all on
//! Ctrl-C or SIGTERM: the masters first (so none moves regions meanwhile), then the region
//! servers (each flushes its regions), then ZooKeeper.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use super::{SESSION_TIMEOUT_MS, stop_flag};
use crate::say;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Region servers to start
    #[arg(long, default_value_t = 3)]
    servers: usize,
    /// Masters to start (one active, the others backups)
    #[arg(long, default_value_t = 1)]
    masters: usize,
    /// The shared data directory; ZooKeeper keeps its own files in `<data>/zookeeper`
    #[arg(long, default_value = "./basalt-data")]
    data: PathBuf,
    #[command(flatten)]
    storage: crate::storage::StorageArgs,
    /// Use this ZooKeeper (`HOST:PORT`) instead of starting one
    #[arg(long)]
    zookeeper: Option<String>,
    /// Milliseconds after which a silent server's ZooKeeper session ends
    #[arg(long, default_value_t = SESSION_TIMEOUT_MS)]
    session_timeout_ms: u64,
    /// Access control on every server (grants in hbase:acl, followed by the region servers)
    #[arg(long)]
    authorization: bool,
    /// A superuser, a name or `@group`; repeatable
    #[arg(long = "superuser")]
    superusers: Vec<String>,
    /// TLS for every server of the cluster (each is given these flags)
    #[command(flatten)]
    tls: crate::tls::TlsArgs,
    #[command(flatten)]
    auth: crate::tls::AuthArgs,
    /// HBase's settings file (`hbase-site.xml` format) every server reads at start and again
    /// at `update_config`
    #[arg(long)]
    site: Option<PathBuf>,
}

/// A child process, killed if still running when dropped (the cluster start failed).
struct Proc {
    what: String,
    child: Child,
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Sends SIGTERM to a child and waits for it, at most `within` (then SIGKILL).
fn stop(proc: &mut Proc, within: Duration) {
    if !matches!(proc.child.try_wait(), Ok(None)) {
        return;
    }
    let _ = Command::new("kill")
        .args(["-TERM", &proc.child.id().to_string()])
        .status();
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if !matches!(proc.child.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    say!("{} did not stop in {within:?}: killing it", proc.what);
    let _ = proc.child.kill();
    let _ = proc.child.wait();
}

const ZOOKEEPER_JAR: &str = "/usr/share/java/zookeeper.jar";

/// Starts a private ZooKeeper on a free port of 127.0.0.1 and waits until it answers.
fn start_zookeeper(dir: &Path) -> anyhow::Result<(Proc, String)> {
    if !Path::new(ZOOKEEPER_JAR).exists() {
        say!("installing ZooKeeper (Debian's zookeeper package)");
        let ok = Command::new("sh")
            .args([
                "-c",
                "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper",
            ])
            .status()
            .context("running apt-get")?
            .success();
        if !ok || !Path::new(ZOOKEEPER_JAR).exists() {
            bail!("cannot install ZooKeeper: apt-get install zookeeper failed (run it as root)");
        }
    }
    std::fs::create_dir_all(dir.join("data"))?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let config = dir.join("zoo.cfg");
    std::fs::write(
        &config,
        format!(
            "tickTime=1000\ndataDir={}\nclientPort={port}\nclientPortAddress=127.0.0.1\n\
             maxClientCnxns=0\nadmin.enableServer=false\n4lw.commands.whitelist=ruok,srvr,stat\n\
             forceSync=no\n",
            dir.join("data").display()
        ),
    )?;
    let mut classpath = ZOOKEEPER_JAR.to_owned();
    for jar in [
        "slf4j-api",
        "slf4j-simple",
        "netty-handler",
        "netty-transport",
        "netty-common",
        "netty-buffer",
        "netty-resolver",
        "netty-codec",
        "netty-transport-native-epoll",
        "netty-transport-native-unix-common",
        "jline",
        "audience-annotations",
        "commons-cli",
    ] {
        let path = format!("/usr/share/java/{jar}.jar");
        if Path::new(&path).exists() {
            classpath.push(':');
            classpath.push_str(&path);
        }
    }
    let log = std::fs::File::create(dir.join("zk.log"))?;
    let child = Command::new("java")
        .args(["-Xmx256m", "-cp", &classpath])
        .arg("org.apache.zookeeper.server.quorum.QuorumPeerMain")
        .arg(&config)
        .stdout(log.try_clone()?)
        .stderr(log)
        .spawn()
        .context("starting ZooKeeper (java)")?;
    let proc = Proc {
        what: "zookeeper".into(),
        child,
    };
    let quorum = format!("127.0.0.1:{port}");
    // Bounded: ZooKeeper answers within seconds or not at all.
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if ruok(&quorum) {
            return Ok((proc, quorum));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!(
        "ZooKeeper did not start within 30 s; see {}",
        dir.join("zk.log").display()
    )
}

/// Whether ZooKeeper at `addr` answers `ruok`.
fn ruok(addr: &str) -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = TcpStream::connect(addr) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
    let mut answer = String::new();
    s.write_all(b"ruok").is_ok() && s.read_to_string(&mut answer).is_ok() && answer == "imok"
}

/// Starts `basalt <args>`; its output lines come to `lines` with `what` in front. Returns
/// once it printed a line containing `ready` (its address is the word after "listening on"
/// or the second word of an "active" master line).
fn spawn(
    what: &str,
    args: &[String],
    ready: &str,
    lines: &mpsc::Sender<String>,
) -> anyhow::Result<(Proc, String)> {
    let exe = std::env::current_exe().context("finding the basalt binary")?;
    let mut child = Command::new(exe)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("starting {what}"))?;
    let (first_tx, first_rx) = mpsc::channel::<String>();
    for stream in [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let (lines, first_tx, what, ready) = (
            lines.clone(),
            first_tx.clone(),
            what.to_owned(),
            ready.to_owned(),
        );
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if line.contains(&ready) {
                    let _ = first_tx.send(line.clone());
                }
                let _ = lines.send(format!("[{what}] {line}"));
            }
        });
    }
    let proc = Proc {
        what: what.to_owned(),
        child,
    };
    let line = first_rx
        .recv_timeout(Duration::from_secs(60))
        .map_err(|_| anyhow::anyhow!("{what} did not start within 60 s"))?;
    let addr = line
        .split("listening on ")
        .nth(1)
        .and_then(|rest| rest.split([';', ' ']).next())
        .unwrap_or_default()
        .to_owned();
    Ok((proc, addr))
}

pub fn run(args: &Args) -> anyhow::Result<()> {
    let stop_requested = stop_flag()?;
    if args.servers == 0 || args.masters == 0 {
        bail!("a cluster needs at least one master and one region server");
    }
    std::fs::create_dir_all(&args.data)
        .with_context(|| format!("cannot create {}", args.data.display()))?;
    let data = args.data.canonicalize()?;
    let (mut zookeeper, quorum) = match &args.zookeeper {
        Some(q) => (None, q.clone()),
        None => {
            let (proc, quorum) = start_zookeeper(&data.join("zookeeper"))?;
            (Some(proc), quorum)
        }
    };
    say!(
        "zookeeper {quorum}{}",
        zookeeper
            .as_ref()
            .map(|z| format!(" pid {}", z.child.id()))
            .unwrap_or_default()
    );
    let (lines_tx, lines_rx) = mpsc::channel::<String>();
    let printer = std::thread::spawn(move || {
        for line in lines_rx {
            say!("{line}");
        }
    });
    let common = |role: &str| -> Vec<String> {
        vec![
            role.to_owned(),
            "--data".into(),
            data.display().to_string(),
            "--zookeeper".into(),
            quorum.clone(),
            "--port".into(),
            "0".into(),
            "--session-timeout-ms".into(),
            args.session_timeout_ms.to_string(),
            // Many processes on one machine: each picks a free info port and prints it.
            "--info-port".into(),
            "0".into(),
        ]
        .into_iter()
        .chain(args.storage.flags())
        .chain(args.tls.flags())
        .chain(args.auth.flags())
        .chain(args.authorization.then(|| "--authorization".to_owned()))
        .chain(
            args.site
                .iter()
                .flat_map(|p| ["--site".to_owned(), p.display().to_string()]),
        )
        .chain(
            args.superusers
                .iter()
                .flat_map(|s| ["--superuser".to_owned(), s.clone()]),
        )
        .collect()
    };
    // Every line of the children also comes here while the cluster starts, to see the
    // active master announce itself.
    let (seen_tx, seen_rx) = mpsc::channel::<String>();
    let (lines_tx, forward) = {
        let (tx, rx) = mpsc::channel::<String>();
        let forward = std::thread::spawn(move || {
            for line in rx {
                let _ = seen_tx.send(line.clone());
                let _ = lines_tx.send(line);
            }
        });
        (tx, forward)
    };
    let mut masters = Vec::new();
    for i in 1..=args.masters {
        let what = format!("master{i}");
        let (proc, _) = spawn(&what, &common("master"), "starting", &lines_tx)?;
        say!("{what} pid {}", proc.child.id());
        masters.push(proc);
    }
    let mut servers = Vec::new();
    for i in 1..=args.servers {
        let what = format!("rs{i}");
        let (proc, addr) = spawn(&what, &common("regionserver"), "listening on", &lines_tx)?;
        say!("{what} pid {} listening on {addr}", proc.child.id());
        servers.push(proc);
    }
    // Ready once a master has assigned meta and serves.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match seen_rx.recv_timeout(left) {
            Ok(line) if line.contains("active: MasterService listening") => break,
            Ok(_) => {}
            Err(_) => bail!("no master became active within 120 s"),
        }
    }
    drop(seen_rx);
    // And once every region server has registered.
    let zk =
        basalt_coord::ZkSession::connect(&quorum, Duration::from_secs(10), Duration::from_secs(15))
            .context("connecting to ZooKeeper")?;
    while zk.children(basalt_coord::RS_DIR)?.len() < servers.len() {
        if Instant::now() > deadline {
            bail!("not every region server registered within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    zk.close();
    say!(
        "cluster ready: zookeeper {quorum}, {} master(s), {} region server(s); data in {}; \
         stop with Ctrl-C",
        masters.len(),
        servers.len(),
        data.display()
    );
    say!(
        "try: basalt shell --zookeeper {quorum}{}",
        if args.tls.tls_ca.is_some() {
            " --tls-ca CA.pem --tls-cert YOU.pem --tls-key YOU.key"
        } else {
            ""
        }
    );
    while !stop_requested.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(100));
    }
    say!("stopping the cluster");
    // The masters first, so none moves the regions of the servers stopping after them.
    for m in &mut masters {
        stop(m, Duration::from_secs(30));
    }
    for s in &mut servers {
        stop(s, Duration::from_secs(60));
    }
    if let Some(z) = zookeeper.as_mut() {
        stop(z, Duration::from_secs(10));
    }
    drop(lines_tx);
    drop((servers, masters, zookeeper));
    let _ = forward.join();
    let _ = printer.join();
    say!("stopped");
    Ok(())
}
