//! `basalt shell`: HBase's shell on a running server (native RPC, by address or through
//! ZooKeeper) or directly on a data directory.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use basalt_client::remote::RemoteConnection;
use basalt_client::{Client, Connection};
use basalt_shell::{Failure, Options, Shell};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Open this data directory directly (embedded mode) instead of connecting to a server.
    /// Fails if a server holds it.
    #[arg(long, conflicts_with_all = ["connect", "zookeeper"])]
    data: Option<PathBuf>,
    /// The server's RPC address, `HOST:PORT` (default 127.0.0.1:16020).
    #[arg(long, conflicts_with = "zookeeper")]
    connect: Option<String>,
    /// Find the server through ZooKeeper, `HOST:PORT` of the quorum.
    #[arg(long)]
    zookeeper: Option<String>,
    /// The user to connect as (HBase's SIMPLE authentication; a client certificate, when the
    /// server asks for one, names the user instead) [default: basalt]
    #[arg(long, conflicts_with = "data")]
    user: Option<String>,
    /// TLS to the server with --tls-ca, showing --tls-cert if given
    #[command(flatten)]
    tls: crate::tls::TlsArgs,
    /// Authenticate with Kerberos to the server whose principal this is (`hbase/host@REALM`),
    /// with the ticket kinit left in the credential cache (KRB5CCNAME)
    #[arg(long, conflicts_with = "data")]
    kerberos_principal: Option<String>,
    /// Read commands from standard input without prompting; exit non-zero at the first error.
    #[arg(short = 'n', long = "non-interactive")]
    non_interactive: bool,
    /// Print timestamps as milliseconds since the epoch (HBase's
    /// `hbase.shell.timestamp.format.epoch`) rather than as UTC date-times.
    #[arg(long)]
    epoch_timestamps: bool,
    /// A file of shell commands to run; the shell exits after it, non-zero at the first error.
    file: Option<PathBuf>,
}

/// The embedded connection, kept to close it (flushing) at the end.
enum Session {
    Embedded(Arc<Connection>),
    Remote(Arc<RemoteConnection>),
}

impl Session {
    fn client(&self) -> Arc<dyn Client> {
        match self {
            Session::Embedded(c) => Arc::clone(c) as Arc<dyn Client>,
            Session::Remote(c) => Arc::clone(c) as Arc<dyn Client>,
        }
    }
}

fn open(args: &Args) -> Result<(Session, String)> {
    if let Some(dir) = &args.data {
        let conn = Connection::open(dir)
            .with_context(|| format!("opening data directory {}", dir.display()))?;
        return Ok((
            Session::Embedded(Arc::new(conn)),
            format!("data directory {}", dir.display()),
        ));
    }
    let (conn, place) = crate::connect::remote_with(
        args.connect.as_deref(),
        args.zookeeper.as_deref(),
        args.user.as_deref(),
        &args.tls,
        args.kerberos_principal.as_deref(),
    )
    .map_err(|e| {
        if args.connect.is_none() && args.zookeeper.is_none() {
            e.context("no server (or use --data DIR)")
        } else {
            e
        }
    })?;
    Ok((Session::Remote(Arc::new(conn)), place))
}

pub fn run(args: &Args) -> Result<()> {
    let (session, place) = open(args)?;
    let scripted = args.non_interactive || args.file.is_some();
    let terminal = io::stdin().is_terminal() && !scripted;
    let width = if terminal && io::stdout().is_terminal() {
        std::env::var("COLUMNS")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0)
    } else {
        0
    };
    let options = Options {
        width,
        interactive: !scripted,
        epoch_timestamps: args.epoch_timestamps,
        identity: identity(args, &session),
    };
    let mut shell = Shell::new(session.client(), options);
    let outcome = if terminal {
        let banner = format!(
            "Basalt {} shell (HBase 2.6 commands) on {place}\n\
             Use \"help\" to get the list of supported commands.\n\
             Use \"exit\" to quit this interactive shell.",
            env!("CARGO_PKG_VERSION")
        );
        basalt_shell::run_interactive(&mut shell, &banner).map_err(anyhow::Error::from)
    } else {
        let mut input: Box<dyn BufRead> = match &args.file {
            Some(f) => Box::new(io::BufReader::new(
                std::fs::File::open(f).with_context(|| format!("opening {}", f.display()))?,
            )),
            None => Box::new(io::stdin().lock()),
        };
        let stdout = io::stdout();
        let mut out = stdout.lock();
        let r = shell.run_script(&mut input, &mut out);
        out.flush()?;
        match r {
            Ok(()) => Ok(()),
            // Interactive (piped without -n): errors were printed as they came.
            Err(Failure::Command { .. } | Failure::Syntax(_)) if !scripted => Ok(()),
            Err(Failure::Command { command, message }) => {
                Err(anyhow::anyhow!("{message} (in '{command}')"))
            }
            Err(e) => Err(anyhow::anyhow!("{e}")),
        }
    };
    if let Session::Embedded(conn) = &session {
        conn.close().context("closing the data directory")?;
    }
    outcome
}

/// Who a remote session is, as `whoami` says: by Kerberos ticket, client certificate (its
/// CN, before the server's principal rules), or the name `--user` gives.
fn identity(args: &Args, session: &Session) -> Option<(String, String)> {
    if matches!(session, Session::Embedded(_)) {
        return None;
    }
    if args.kerberos_principal.is_some() {
        return Some(("the ticket's principal".into(), "KERBEROS".into()));
    }
    let cn = args
        .tls
        .tls_ca
        .as_ref()
        .and(args.tls.tls_cert.as_deref())
        .and_then(crate::tls::certificate_name);
    Some(match cn {
        Some(cn) => (cn, "CERTIFICATE".into()),
        None => (
            args.user
                .clone()
                .unwrap_or_else(|| basalt_client::remote::RemoteConfig::default().user),
            "SIMPLE".into(),
        ),
    })
}
