//! The loopback round-trip limit: one TCP connection bouncing a small message between two
//! threads, as many times as it can, the way a synchronous client waits for each reply. Its
//! rate (1 / RTT) is the most a single-connection benchmark could reach.
//!
//! `cargo run --release -p basalt-thrift --example rtt [round trips]`

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let echo = std::thread::spawn(move || -> std::io::Result<()> {
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
    });
    let mut c = TcpStream::connect(addr)?;
    c.set_nodelay(true)?;
    let msg = [7u8; 32];
    let mut back = [0u8; 32];
    let start = Instant::now();
    for _ in 0..n {
        c.write_all(&msg)?;
        c.read_exact(&mut back)?;
    }
    let secs = start.elapsed().as_secs_f64();
    drop(c);
    echo.join()
        .map_err(|_| std::io::Error::other("echo thread panicked"))??;
    println!(
        "loopback round trip: {:.1} us ({:.0} round trips/s over {n})",
        secs * 1e6 / f64::from(n),
        f64::from(n) / secs
    );
    Ok(())
}
