//! Hosts of their own on one machine: each a network namespace with its own address on a
//! bridge the test makes, so one host can be cut off from another (iptables inside its
//! namespace), its link slowed and made lossy (tc and iptables), while the others go on. Everything made here is
//! torn down when the [`Network`] is dropped, also when a test fails. Needs root, `ip`,
//! `iptables` and `tc` (`tests/chaos/install.sh` installs them).

use std::io;
use std::net::Ipv4Addr;
use std::process::{Command, Stdio};

/// One host: its namespace and address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Host {
    /// What the test calls it (`zk`, `m1`, `r2`).
    pub role: String,
    /// Its namespace's name.
    pub netns: String,
    pub ip: Ipv4Addr,
    /// The root side of its veth pair.
    veth: String,
}

/// A bridge and the hosts on it; see the module documentation.
#[derive(Debug)]
pub struct Network {
    bridge: String,
    gateway: Ipv4Addr,
    hosts: Vec<Host>,
}

/// Runs `ip`/`iptables`/`tc` with `args`, failing with its error output.
fn run(program: &str, args: &[&str]) -> io::Result<()> {
    let out = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .output()?;
    if out.status.success() {
        return Ok(());
    }
    Err(io::Error::other(format!(
        "{program} {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr).trim()
    )))
}

impl Network {
    /// A bridge `10.231.<subnet>.1/24` and one host per role, `10.231.<subnet>.<11+i>`.
    /// Names carry `tag` (at most 6 characters), so runs side by side do not collide.
    pub fn create(tag: &str, subnet: u8, roles: &[&str]) -> io::Result<Network> {
        let tag: String = tag
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(6)
            .collect();
        let gateway = Ipv4Addr::new(10, 231, subnet, 1);
        let mut network = Network {
            bridge: format!("cb{tag}"),
            gateway,
            hosts: Vec::new(),
        };
        // Leftovers of an earlier run with the same tag go first.
        network.sweep(roles.len());
        run("ip", &["link", "add", &network.bridge, "type", "bridge"])?;
        run(
            "ip",
            &[
                "addr",
                "add",
                &format!("{gateway}/24"),
                "dev",
                &network.bridge,
            ],
        )?;
        run("ip", &["link", "set", &network.bridge, "up"])?;
        for (i, role) in roles.iter().enumerate() {
            let netns = format!("c{tag}{i}");
            let veth = format!("v{tag}{i}");
            let peer = format!("p{tag}{i}");
            let ip = Ipv4Addr::new(10, 231, subnet, 11 + u8::try_from(i).unwrap_or(200));
            // Pushed first, so a failure part-way is torn down too.
            network.hosts.push(Host {
                role: (*role).to_owned(),
                netns: netns.clone(),
                ip,
                veth: veth.clone(),
            });
            run("ip", &["netns", "add", &netns])?;
            run(
                "ip",
                &["link", "add", &veth, "type", "veth", "peer", "name", &peer],
            )?;
            run("ip", &["link", "set", &peer, "netns", &netns])?;
            let inside = |args: &[&str]| -> io::Result<()> {
                let mut all = vec!["netns", "exec", &netns];
                all.extend_from_slice(args);
                run("ip", &all)
            };
            inside(&["ip", "link", "set", &peer, "name", "e0"])?;
            run(
                "ip",
                &["link", "set", &veth, "master", &network.bridge, "up"],
            )?;
            inside(&["ip", "addr", "add", &format!("{ip}/24"), "dev", "e0"])?;
            inside(&["ip", "link", "set", "e0", "up"])?;
            inside(&["ip", "link", "set", "lo", "up"])?;
        }
        Ok(network)
    }

    /// The bridge's own address: the root namespace (the test process, its clients) on it.
    pub fn gateway(&self) -> Ipv4Addr {
        self.gateway
    }

    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// The host of `role`.
    pub fn host(&self, role: &str) -> Option<&Host> {
        self.hosts.iter().find(|h| h.role == role)
    }

    /// Moves the calling thread onto `host` (into its network namespace): the sockets it opens
    /// from now on, and those of the threads it starts, are the host's.
    pub fn enter(&self, host: &Host) -> io::Result<()> {
        let ns = std::fs::File::open(format!("/var/run/netns/{}", host.netns))?;
        nix::sched::setns(&ns, nix::sched::CloneFlags::CLONE_NEWNET).map_err(io::Error::from)
    }

    /// A command that runs `program` on `host` (in its namespace).
    pub fn command(&self, host: &Host, program: &str) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &host.netns, program]);
        c
    }

    fn inside(&self, host: &Host, args: &[&str]) -> io::Result<()> {
        let mut all = vec!["netns", "exec", host.netns.as_str()];
        all.extend_from_slice(args);
        run("ip", &all)
    }

    /// Drops everything between `host` and the addresses `from`, both ways.
    pub fn cut(&self, host: &Host, from: &[Ipv4Addr]) -> io::Result<()> {
        for ip in from {
            let ip = ip.to_string();
            self.inside(host, &["iptables", "-A", "INPUT", "-s", &ip, "-j", "DROP"])?;
            self.inside(host, &["iptables", "-A", "OUTPUT", "-d", &ip, "-j", "DROP"])?;
        }
        Ok(())
    }

    /// Slows and thins `host`'s link: at most `rate` (tc's units, `2mbit`) out of it, queued
    /// beyond that (an htb class), and each packet in or out dropped with probability `loss`
    /// (iptables' statistic match). tc's netem, which would add delay too, is not in every
    /// kernel (not in this machine's): these two are.
    pub fn slow(&self, host: &Host, rate: &str, loss: f64) -> io::Result<()> {
        self.inside(
            host,
            &[
                "tc", "qdisc", "add", "dev", "e0", "root", "handle", "1:", "htb", "default", "10",
            ],
        )?;
        self.inside(
            host,
            &[
                "tc", "class", "add", "dev", "e0", "parent", "1:", "classid", "1:10", "htb",
                "rate", rate,
            ],
        )?;
        let p = format!("{loss:.4}");
        for chain in ["INPUT", "OUTPUT"] {
            self.inside(
                host,
                &[
                    "iptables",
                    "-A",
                    chain,
                    "-m",
                    "statistic",
                    "--mode",
                    "random",
                    "--probability",
                    &p,
                    "-j",
                    "DROP",
                ],
            )?;
        }
        Ok(())
    }

    /// Undoes every cut and slowing of `host`.
    pub fn heal(&self, host: &Host) -> io::Result<()> {
        self.inside(host, &["iptables", "-F"])?;
        // No shaping on it is fine.
        let _ = self.inside(host, &["tc", "qdisc", "del", "dev", "e0", "root"]);
        Ok(())
    }

    /// Heals every host.
    pub fn heal_all(&self) -> io::Result<()> {
        for h in &self.hosts {
            self.heal(h)?;
        }
        Ok(())
    }

    /// Deletes this network's namespaces, links and bridge, whatever is left of them.
    fn sweep(&self, hosts: usize) {
        let tag = &self.bridge[2..];
        for i in 0..hosts.max(self.hosts.len()) {
            let _ = run("ip", &["netns", "del", &format!("c{tag}{i}")]);
            let _ = run("ip", &["link", "del", &format!("v{tag}{i}")]);
        }
        let _ = run("ip", &["link", "del", &self.bridge]);
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        // The processes in the namespaces are the test's to stop; what is left goes with them.
        for h in &self.hosts {
            let _ = run("ip", &["netns", "del", &h.netns]);
            let _ = run("ip", &["link", "del", &h.veth]);
        }
        let _ = run("ip", &["link", "del", &self.bridge]);
    }
}
