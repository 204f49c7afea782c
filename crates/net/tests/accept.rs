//! The accept loop: connections are served as they come, and a stop ends the loop promptly
//! although the accept blocks.
#![expect(clippy::unwrap_used, reason = "test setup fails loudly")]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use basalt_net::serve_connections;

/// Serves an echo of one byte per connection; returns a receiver that hears when the accept
/// loop returns, and the address.
fn echo_server(stop: &Arc<AtomicBool>) -> (mpsc::Receiver<()>, std::net::SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::clone(stop);
    let serve: Arc<dyn Fn(TcpStream) -> Result<(), std::io::Error> + Send + Sync> =
        Arc::new(|mut stream: TcpStream| {
            let mut byte = [0u8; 1];
            stream.read_exact(&mut byte)?;
            stream.write_all(&byte)
        });
    let (returned, ended) = mpsc::channel();
    std::thread::spawn(move || {
        serve_connections(&listener, &stop, 8, "echo", serve);
        let _ = returned.send(());
    });
    (ended, addr)
}

fn echo(addr: std::net::SocketAddr, byte: u8) -> u8 {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s.write_all(&[byte]).unwrap();
    let mut back = [0u8; 1];
    s.read_exact(&mut back).unwrap();
    back[0]
}

#[test]
fn connections_are_served_and_a_stop_ends_the_loop() {
    let stop = Arc::new(AtomicBool::new(false));
    let (ended, addr) = echo_server(&stop);
    for b in 1..=20u8 {
        assert_eq!(echo(addr, b), b);
    }
    stop.store(true, Ordering::Release);
    ended
        .recv_timeout(Duration::from_secs(2))
        .expect("the accept loop did not return within 2 s of the stop");
}

#[test]
fn a_stop_before_any_connection_ends_the_loop() {
    let stop = Arc::new(AtomicBool::new(false));
    let (ended, _addr) = echo_server(&stop);
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, Ordering::Release);
    ended
        .recv_timeout(Duration::from_secs(2))
        .expect("the accept loop did not return within 2 s of the stop");
}
