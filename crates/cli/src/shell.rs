//! `basalt shell`: HBase's shell on a running server (native RPC, by address or through
//! ZooKeeper) or directly on a data directory.

use std::io::{self, BufRead, IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{Context, Result};
use basalt_shell::{Failure, Options, Shell};

use crate::connect::{ClientArgs, Session};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    client: ClientArgs,
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

pub fn run(args: &Args) -> Result<()> {
    let (session, place) = args.client.open()?;
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
    // Tables with a key layout are read and written by their logical keys (issue 34).
    let client = std::sync::Arc::new(basalt_embedded::LayoutClient::new(session.client()));
    let mut shell = Shell::new(client, options);
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
    session.close()?;
    outcome
}

/// Who a remote session is, as `whoami` says: by Kerberos ticket, client certificate (its
/// CN, before the server's principal rules), or the name `--user` gives.
fn identity(args: &Args, session: &Session) -> Option<(String, String)> {
    if matches!(session, Session::Embedded(_)) {
        return None;
    }
    let args = &args.client;
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
                .unwrap_or_else(|| basalt_embedded::remote::RemoteConfig::default().user),
            "SIMPLE".into(),
        ),
    })
}
