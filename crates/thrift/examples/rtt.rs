//! The loopback round-trip limit: one TCP connection bouncing a small message between two
//! threads, as many times as it can, the way a synchronous client waits for each reply. Its
//! rate (1 / RTT) is the most a single-connection benchmark could reach.
//!
//! `cargo run --release -p basalt-thrift --example rtt [round trips]` measures it between two
//! threads of one process; `rtt echo PORT` in one process and `rtt client 127.0.0.1:PORT [round
//! trips]` in another measure it between two processes, as a client and a server are.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

fn echo(listener: &TcpListener) -> std::io::Result<()> {
    let (mut s, _) = listener.accept()?;
    s.set_nodelay(true)?;
    let mut buf = [0u8; 64];
    loop {
        let got = s.read(&mut buf)?;
        if got == 0 {
            return Ok(());
        }
        s.write_all(&buf[..got])?;
    }
}

fn client(addr: std::net::SocketAddr, n: u32) -> std::io::Result<f64> {
    let mut c = TcpStream::connect(addr)?;
    c.set_nodelay(true)?;
    let msg = [7u8; 32];
    let mut back = [0u8; 32];
    let start = Instant::now();
    for _ in 0..n {
        c.write_all(&msg)?;
        c.read_exact(&mut back)?;
    }
    Ok(start.elapsed().as_secs_f64())
}

fn report(what: &str, secs: f64, n: u32) {
    println!(
        "loopback round trip ({what}): {:.1} us ({:.0} round trips/s over {n})",
        secs * 1e6 / f64::from(n),
        f64::from(n) / secs
    );
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = |i: usize| {
        args.get(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(200_000u32)
    };
    match args.first().map(String::as_str) {
        Some("echo") => {
            let port = args.get(1).map_or("0", String::as_str);
            let listener = TcpListener::bind(format!("127.0.0.1:{port}"))?;
            println!("echo on {}", listener.local_addr()?);
            return echo(&listener);
        }
        Some("client") => {
            let addr = args
                .get(1)
                .and_then(|a| a.parse().ok())
                .ok_or_else(|| std::io::Error::other("client needs HOST:PORT"))?;
            let n = count(2);
            report("two processes", client(addr, n)?, n);
            return Ok(());
        }
        _ => {}
    }
    let n = count(0);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let server = std::thread::spawn(move || echo(&listener));
    let secs = client(addr, n)?;
    server
        .join()
        .map_err(|_| std::io::Error::other("echo thread panicked"))??;
    report("two threads", secs, n);
    Ok(())
}
