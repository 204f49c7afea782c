//! A CPU quota of one process (a host's share of the machine), and what it used: a cgroup,
//! v2 (`cpu.max`, `cpu.stat`'s `usage_usec`) where the machine has the unified hierarchy with
//! the cpu controller, else v1 (`cpu.cfs_quota_us` in the cpu hierarchy, `cpuacct.usage` in
//! cpuacct's). Removed when dropped; its processes must be gone by then.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

const ROOT: &str = "/sys/fs/cgroup";
/// The quota's period (CFS's default).
const PERIOD_US: u64 = 100_000;

/// One cgroup; see the module documentation.
#[derive(Debug)]
pub struct CpuGroup {
    /// Where the quota is set (v1: the cpu hierarchy; v2: the one group).
    quota: PathBuf,
    /// Where the usage is read (v1: the cpuacct hierarchy; v2: the same group).
    usage: PathBuf,
    v2: bool,
}

fn write(path: &Path, text: &str) -> io::Result<()> {
    std::fs::write(path, text)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))
}

fn make(dir: &Path) -> io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(io::Error::new(
            e.kind(),
            format!("making the cgroup {}: {e}", dir.display()),
        )),
        _ => Ok(()),
    }
}

impl CpuGroup {
    /// A group `name` whose processes together get at most `cpus` CPUs.
    pub fn create(name: &str, cpus: f64) -> io::Result<CpuGroup> {
        let quota_us = ((cpus * PERIOD_US as f64) as u64).max(1000);
        let unified = Path::new(ROOT).join("cgroup.controllers");
        let v2 = std::fs::read_to_string(&unified)
            .is_ok_and(|c| c.split_whitespace().any(|w| w == "cpu"));
        let group = if v2 {
            let dir = Path::new(ROOT).join(name);
            // The root must hand the cpu controller down.
            let _ = write(&Path::new(ROOT).join("cgroup.subtree_control"), "+cpu");
            make(&dir)?;
            CpuGroup {
                quota: dir.clone(),
                usage: dir,
                v2,
            }
        } else {
            let quota = Path::new(ROOT).join("cpu").join(name);
            let usage = Path::new(ROOT).join("cpuacct").join(name);
            make(&quota)?;
            make(&usage)?;
            CpuGroup { quota, usage, v2 }
        };
        if group.v2 {
            write(
                &group.quota.join("cpu.max"),
                &format!("{quota_us} {PERIOD_US}"),
            )?;
        } else {
            write(
                &group.quota.join("cpu.cfs_period_us"),
                &PERIOD_US.to_string(),
            )?;
            write(&group.quota.join("cpu.cfs_quota_us"), &quota_us.to_string())?;
        }
        Ok(group)
    }

    /// Moves process `pid` (all its threads) into the group.
    pub fn add(&self, pid: u32) -> io::Result<()> {
        write(&self.quota.join("cgroup.procs"), &pid.to_string())?;
        if self.usage != self.quota {
            write(&self.usage.join("cgroup.procs"), &pid.to_string())?;
        }
        Ok(())
    }

    /// The CPU time the group's processes used so far.
    pub fn used(&self) -> io::Result<Duration> {
        if self.v2 {
            let stat = std::fs::read_to_string(self.usage.join("cpu.stat"))?;
            let usec = stat
                .lines()
                .find_map(|l| l.strip_prefix("usage_usec "))
                .and_then(|n| n.trim().parse().ok())
                .ok_or_else(|| io::Error::other("cpu.stat has no usage_usec"))?;
            Ok(Duration::from_micros(usec))
        } else {
            let ns = std::fs::read_to_string(self.usage.join("cpuacct.usage"))?;
            let ns = ns
                .trim()
                .parse()
                .map_err(|_| io::Error::other(format!("cpuacct.usage: {ns:?}")))?;
            Ok(Duration::from_nanos(ns))
        }
    }
}

impl Drop for CpuGroup {
    fn drop(&mut self) {
        // A group empties a moment after its last process dies.
        for _ in 0..50 {
            let gone = [&self.quota, &self.usage]
                .iter()
                .all(|d| !d.exists() || std::fs::remove_dir(d).is_ok());
            if gone {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
