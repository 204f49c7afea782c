//! The connection plumbing Basalt's gateways (Thrift, native RPC) share.
//!
//! Every engine call blocks (a WAL write, a store file read), so a connection is served on a
//! thread with blocking reads: one of its own for as long as it is open ([`serve_connections`],
//! the Thrift gateway), or one only while it talks, quiet connections waiting on a single
//! poller ([`spawn_parked_acceptor`], the native RPC). Sockets read with a short timeout so a
//! stopping server notices idle connections ([`Patient`]); a message whose bytes stop arriving
//! drops its connection.

#[doc(hidden)]
pub mod hostile;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "kerberos")]
pub mod kerberos;
mod leases;
pub mod tls;

pub use leases::{Leased, Leases, lock as lock_leased};
pub use parked::{Connection, MAX_WORKERS, Turn, spawn_parked_acceptor};

use std::io::{self, BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A line for the operator on stderr; a closed stderr must not take a connection or the
/// accept loop down with it, so write errors are ignored.
macro_rules! warn {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

// After `warn!`, which it uses.
mod parked;

/// How often blocked reads and the accept loop look at the stop flag.
pub const POLL: Duration = Duration::from_millis(100);

/// Whether a read ended without bytes only because its timeout passed, or a signal (a
/// debugger or tracer attaching) interrupted it: no error, the connection goes on.
pub fn waited_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
    )
}

/// A socket reader that waits out read timeouts: between messages it gives up (reads end)
/// when `stop` is set; within a message, when bytes stop arriving for `stall`.
#[derive(Debug)]
pub struct Patient<'a, S: Read = TcpStream> {
    inner: BufReader<S>,
    stop: &'a AtomicBool,
    stall: Duration,
    /// Whether a message is being read (then a stop does not interrupt it).
    in_message: bool,
}

impl<'a> Patient<'a> {
    /// Reads `stream` (given the [`POLL`] read timeout here) until `stop`.
    pub fn new(stream: TcpStream, stop: &'a AtomicBool, stall: Duration) -> io::Result<Self> {
        stream.set_read_timeout(Some(POLL))?;
        Ok(Patient::over(stream, stop, stall))
    }
}

impl<'a, S: Read> Patient<'a, S> {
    /// Reads `stream`, a layer over a socket that already has the [`POLL`] read timeout (a TLS
    /// session, say), until `stop`.
    pub fn over(stream: S, stop: &'a AtomicBool, stall: Duration) -> Self {
        Patient {
            inner: BufReader::with_capacity(64 * 1024, stream),
            stop,
            stall,
            in_message: false,
        }
    }

    /// The stream read from, to write replies to (what is buffered stays buffered).
    pub fn get_mut(&mut self) -> &mut S {
        self.inner.get_mut()
    }

    /// The bytes already read from the socket and not yet consumed (no system call).
    pub fn buffered(&self) -> &[u8] {
        self.inner.buffer()
    }

    /// Waits one read timeout (the socket's) for the next message to begin; true if none did (the
    /// connection is quiet, and nothing is buffered: [`Patient::into_inner`] loses nothing).
    /// False once bytes are here, or the stream ended (the next read sees the end).
    pub fn quiet(&mut self) -> io::Result<bool> {
        if !self.inner.buffer().is_empty() {
            return Ok(false);
        }
        match self.inner.fill_buf() {
            Ok(_) => Ok(false),
            Err(e) if waited_out(&e) => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// The stream, without the buffer: what was buffered and not consumed is lost, so this
    /// is for a connection [`Patient::quiet`] found quiet.
    pub fn into_inner(self) -> S {
        self.inner.into_inner()
    }

    /// The next bytes start a new message.
    pub fn next_message(&mut self) {
        self.in_message = false;
    }

    /// Waits for the buffer to hold a byte; false if the stream ended or the server stops
    /// between messages.
    fn wait(&mut self) -> io::Result<()> {
        let mut started: Option<Instant> = None;
        loop {
            match self.inner.fill_buf() {
                Ok(_) => return Ok(()),
                Err(e) if waited_out(&e) => {
                    if !self.in_message && self.stop.load(Ordering::Acquire) {
                        return Ok(());
                    }
                    // Only a read that times out looks at the clock.
                    if self.in_message
                        && started.get_or_insert_with(Instant::now).elapsed() > self.stall
                    {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "the message's bytes stopped arriving",
                        ));
                    }
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl<S: Read> Read for Patient<'_, S> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<S: Read> BufRead for Patient<'_, S> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.inner.buffer().is_empty() {
            self.wait()?;
        }
        let buf = self.inner.buffer();
        // The first byte of a message starts it.
        self.in_message |= !buf.is_empty();
        Ok(buf)
    }

    fn consume(&mut self, n: usize) {
        self.inner.consume(n);
    }
}

/// [`serve_connections`] on a thread of its own, `{name}-accept`, which owns the listener.
pub fn spawn_acceptor<E: std::fmt::Display + 'static>(
    listener: TcpListener,
    stop: Arc<AtomicBool>,
    max: usize,
    name: &'static str,
    serve: Arc<dyn Fn(TcpStream) -> Result<(), E> + Send + Sync>,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("{name}-accept"))
        .spawn(move || serve_connections(&listener, &stop, max, name, serve))
}

/// A thread, `{name}-leases`, running `expire` every [`POLL`] until `stop` (a server's
/// scanner and lease reaper).
pub fn spawn_reaper(
    name: &str,
    stop: Arc<AtomicBool>,
    expire: impl Fn() + Send + 'static,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("{name}-leases"))
        .spawn(move || {
            while !stop.load(Ordering::Acquire) {
                std::thread::sleep(POLL);
                expire();
            }
        })
}

/// Accepts connections on `listener` until `stop`, serving each on a thread named `name`
/// with `serve`; at most `max` at once (more are closed at accept). Returns once stopped and
/// every connection thread has finished.
///
/// The accept blocks (a non-blocking accept that finds nothing still costs the kernel a
/// socket allocated and freed, on every poll). A watcher thread looks at `stop` every
/// [`POLL`] / 2 and, once it is set, connects to the listener to wake the accept.
pub fn serve_connections<E: std::fmt::Display + 'static>(
    listener: &TcpListener,
    stop: &AtomicBool,
    max: usize,
    name: &str,
    serve: Arc<dyn Fn(TcpStream) -> Result<(), E> + Send + Sync>,
) {
    let blocking = listener.set_nonblocking(false).is_ok();
    let wake_at = listener.local_addr().ok().map(|mut addr| {
        if addr.ip().is_unspecified() {
            addr.set_ip(match addr {
                std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
        }
        addr
    });
    let accepting = AtomicBool::new(true);
    std::thread::scope(|scope| {
        if blocking && let Some(addr) = wake_at {
            let accepting = &accepting;
            let watcher = std::thread::Builder::new()
                .name(format!("{name}-stop"))
                .spawn_scoped(scope, move || {
                    while accepting.load(Ordering::Acquire) {
                        if stop.load(Ordering::Acquire) {
                            // The accept loop sees `stop` once this connection wakes it.
                            let _ = TcpStream::connect_timeout(&addr, POLL);
                        }
                        std::thread::sleep(POLL / 2);
                    }
                });
            if watcher.is_err() {
                // Without a watcher nothing would wake a blocked accept: poll instead.
                let _ = listener.set_nonblocking(true);
            }
        } else {
            let _ = listener.set_nonblocking(true);
        }
        accept_until_stopped(listener, stop, max, name, serve);
        accepting.store(false, Ordering::Release);
    });
}

fn accept_until_stopped<E: std::fmt::Display + 'static>(
    listener: &TcpListener,
    stop: &AtomicBool,
    max: usize,
    name: &str,
    serve: Arc<dyn Fn(TcpStream) -> Result<(), E> + Send + Sync>,
) {
    let live = Arc::new(AtomicUsize::new(0));
    let mut threads: Vec<JoinHandle<()>> = Vec::new();
    while !stop.load(Ordering::Acquire) {
        match listener.accept() {
            Ok((stream, peer)) => {
                if stop.load(Ordering::Acquire) {
                    break;
                }
                if live.load(Ordering::Acquire) >= max {
                    warn!("{name}: refusing a connection from {peer}: {max} are open");
                    continue;
                }
                let slot = Slot::take(&live);
                let serve = Arc::clone(&serve);
                let thread_name = name.to_owned();
                let spawned = std::thread::Builder::new()
                    .name(format!("{name}-conn"))
                    .spawn(move || {
                        // The slot is given back however the thread ends, a panic included.
                        let _slot = slot;
                        serve_one(&thread_name, peer, stream, &*serve);
                    });
                match spawned {
                    Ok(handle) => {
                        threads.retain(|t| !t.is_finished());
                        threads.push(handle);
                    }
                    Err(e) => warn!("{name}: cannot start a connection thread: {e}"),
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => std::thread::sleep(POLL / 10),
            Err(e) => {
                warn!("{name}: accept failed: {e}");
                std::thread::sleep(POLL);
            }
        }
    }
    for t in threads {
        let _ = t.join();
    }
}

/// One of a listener's `max` connection places, given back when dropped.
pub(crate) struct Slot(Arc<AtomicUsize>);

impl Slot {
    pub(crate) fn take(live: &Arc<AtomicUsize>) -> Slot {
        live.fetch_add(1, Ordering::AcqRel);
        Slot(Arc::clone(live))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves one connection; an error or a panic ends this connection alone, with a line naming
/// the peer.
fn serve_one<E: std::fmt::Display>(
    name: &str,
    peer: std::net::SocketAddr,
    stream: TcpStream,
    serve: &(dyn Fn(TcpStream) -> Result<(), E> + Send + Sync),
) {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| serve(stream))) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => warn!("{name}: connection from {peer} dropped: {e}"),
        Err(panic) => {
            let what = panic_message(&*panic);
            warn!("{name}: connection from {peer} ended by a bug: {what}");
        }
    }
}

/// What a caught panic said.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_owned())
}

#[cfg(test)]
mod tests {
    use std::io::{Read as _, Write as _};

    use super::*;

    /// A read interrupted by a signal (strace or a debugger attaching to the server) is tried
    /// again, not taken for a broken connection.
    #[test]
    fn an_interrupted_read_is_tried_again() {
        struct Flaky(Vec<io::Result<u8>>);
        impl Read for Flaky {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                match self.0.pop() {
                    None => Ok(0),
                    Some(Ok(b)) => {
                        buf[0] = b;
                        Ok(1)
                    }
                    Some(Err(e)) => Err(e),
                }
            }
        }
        let interrupted = || Err(io::Error::from(io::ErrorKind::Interrupted));
        let stop = AtomicBool::new(false);
        let source = Flaky(vec![Ok(b'b'), interrupted(), Ok(b'a'), interrupted()]);
        let mut patient = Patient::over(source, &stop, Duration::from_secs(1));
        // One read each, as the frame reader makes them (read_to_end would retry by itself).
        let mut byte = [0u8; 1];
        for want in [b'a', b'b'] {
            let n = patient
                .read(&mut byte)
                .expect("read through the interruption");
            assert_eq!((n, byte[0]), (1, want));
        }
    }

    /// A connection thread that panics gives its place back: with room for one connection,
    /// ten panicking ones in a row still leave the listener serving.
    #[test]
    fn a_panicking_connection_frees_its_place() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let serve: Arc<dyn Fn(TcpStream) -> Result<(), io::Error> + Send + Sync> =
            Arc::new(|mut s: TcpStream| {
                let mut b = [0u8; 1];
                s.read_exact(&mut b)?;
                assert!(b[0] != b'p', "asked to panic");
                s.write_all(b"ok")
            });
        let server = {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || serve_connections(&listener, &stop, 1, "test", serve))
        };
        let call = |byte: u8| -> Vec<u8> {
            let mut s = TcpStream::connect(addr).expect("connect");
            s.set_read_timeout(Some(Duration::from_secs(10)))
                .expect("timeout");
            s.write_all(&[byte]).expect("write");
            let mut got = Vec::new();
            let _ = s.read_to_end(&mut got);
            got
        };
        // A place is given back just after the client sees its connection end, so each call
        // waits (a bounded time) for the one before it to have freed its place.
        let served = |byte: u8, want: &[u8]| {
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if call(byte) == want {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            false
        };
        for _ in 0..10 {
            assert!(served(b'x', b"ok"), "the listener stopped serving");
            assert_eq!(call(b'p'), b"");
        }
        assert!(served(b'x', b"ok"), "the panics kept their places");
        stop.store(true, Ordering::Release);
        server.join().expect("server thread");
    }
}
