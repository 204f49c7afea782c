//! `zk_dump`: what a cluster keeps in ZooKeeper, as HBase's ZKDump prints it: the active and
//! backup masters, meta's server, the region servers, the servers out of service, the
//! switches, and each quorum server's `srvr` statistics.

use std::fmt::Write as _;
use std::io::{self, Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::{
    BACKUP_MASTERS_DIR, BALANCER_NODE, DRAINING_DIR, MASTER_NODE, META_NODE, RS_DIR, SWITCH_DIR,
    ZkSession, read_balancer, read_server,
};

fn server(data: Option<Vec<u8>>, meta: bool) -> String {
    data.as_deref()
        .and_then(|d| read_server(d, meta))
        .map_or_else(
            || "(none)".to_owned(),
            |(host, port, code)| format!("{host},{port},{code}"),
        )
}

/// The dump of the ZooKeeper at `quorum` (`host:port[,host:port...]`).
pub fn dump(quorum: &str, timeout: Duration) -> io::Result<String> {
    let session = ZkSession::connect(quorum, Duration::from_secs(10), timeout)?;
    let mut out = String::new();
    let list = |session: &ZkSession, dir: &str| -> io::Result<Vec<String>> {
        let mut names = session.children(dir).unwrap_or_default();
        names.sort();
        Ok(names)
    };
    let _ = writeln!(out, "HBase is rooted at /hbase");
    let _ = writeln!(
        out,
        "Active master address: {}",
        server(session.get(MASTER_NODE)?, false)
    );
    let _ = writeln!(out, "Backup master addresses:");
    for b in list(&session, BACKUP_MASTERS_DIR)? {
        let _ = writeln!(out, " {b}");
    }
    let _ = writeln!(
        out,
        "Region server holding hbase:meta: {}",
        server(session.get(META_NODE)?, true)
    );
    let _ = writeln!(out, "Region servers:");
    for rs in list(&session, RS_DIR)? {
        let _ = writeln!(out, " {rs}");
    }
    let _ = writeln!(out, "Draining region servers:");
    for d in list(&session, DRAINING_DIR)? {
        let _ = writeln!(out, " {d}");
    }
    let balancer = session
        .get(BALANCER_NODE)?
        .and_then(|d| read_balancer(&d))
        .unwrap_or(true);
    let _ = writeln!(out, "Balancer on: {balancer}");
    let off = list(&session, SWITCH_DIR)?;
    let _ = writeln!(
        out,
        "Switches off: {}",
        if off.is_empty() {
            "(none)".to_owned()
        } else {
            off.join(", ")
        }
    );
    session.close();
    let _ = writeln!(out, "Quorum Server Statistics:");
    for host in quorum.split(',').filter(|h| !h.is_empty()) {
        let _ = writeln!(out, " {host}");
        match srvr(host, timeout) {
            Ok(text) => {
                for line in text.lines().filter(|l| !l.trim().is_empty()) {
                    let _ = writeln!(out, "  {line}");
                }
            }
            Err(e) => {
                let _ = writeln!(out, "  failed to get statistics: {e}");
            }
        }
    }
    Ok(out)
}

/// A ZooKeeper server's answer to the `srvr` four-letter command.
fn srvr(host: &str, timeout: Duration) -> io::Result<String> {
    let addr = host
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| io::Error::other(format!("{host} resolves to no address")))?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.write_all(b"srvr")?;
    let mut text = String::new();
    stream.read_to_string(&mut text)?;
    Ok(text)
}
