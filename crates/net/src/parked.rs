//! Connections that hold a thread only while they have work: HBase's clients keep a
//! connection open to every server they have talked to, so a region server may hold
//! thousands that send nothing for minutes.
//!
//! One thread, `{name}-accept`, waits on the listener and on every quiet ("parked")
//! connection at once (epoll, through mio). A parked connection whose socket has bytes goes
//! to a worker thread, `{name}-conn`, which serves its calls with blocking reads, exactly as a
//! thread per connection would, until the connection has been quiet for one read timeout; it
//! then parks it again and takes the next. Workers are started when every one is busy, up to
//! a limit ([`MAX_WORKERS`] for the RPC server), and end after [`WORKER_IDLE`] without work: the threads follow the
//! connections that are talking, not the ones that are open. Beyond the limit, busy
//! connections take turns: one served for a [`SLICE`] while others wait yields between two
//! calls. `docs/design/rpc.md` has the picture.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mio::unix::SourceFd;
use mio::{Events, Interest, Poll, Registry, Token};

use crate::{POLL, Slot};

/// A connection served in turns (see the module's text).
pub trait Connection: Send + Sized + 'static {
    /// The socket whose bytes wake the connection.
    fn socket(&self) -> &TcpStream;

    /// Serves what the client sends: Some once the connection has been quiet a while, or
    /// `turn` says to yield (it is parked until bytes come, with nothing read and not yet
    /// served), None once it has ended. Called on a worker thread; blocking is expected.
    fn serve(self, turn: &Turn<'_>) -> Option<Self>;
}

/// A connection's turn on a worker.
#[derive(Debug)]
pub struct Turn<'a> {
    /// Woken connections waiting for a worker.
    waiting: &'a AtomicUsize,
    started: Instant,
}

impl Turn<'_> {
    /// Whether the connection should give its worker up at its next pause between calls:
    /// others wait for one, and it has had a [`SLICE`].
    pub fn should_yield(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) > 0 && self.started.elapsed() >= SLICE
    }
}

/// The listener's token; connections' are their keys, counted up from 0.
const LISTENER: Token = Token(usize::MAX);

/// Worker threads at most, as servers give [`spawn_parked_acceptor`]: enough for every call blocked on a disk or a row lock at once
/// that a server of a few cores can use; a burst of new connections (each served until it
/// is quiet) does not become a crowd of threads.
pub const MAX_WORKERS: usize = 128;

/// How long a connection is served while others wait for a worker, before it yields.
const SLICE: Duration = Duration::from_millis(10);

/// Connections the kernel queues before they are accepted.
const BACKLOG: i32 = 4096;

/// How long a worker without a connection to serve waits for one before it ends: a burst
/// of new connections (each is served until it has been quiet for a read timeout) leaves no
/// crowd of threads behind it for long.
const WORKER_IDLE: Duration = Duration::from_secs(1);

/// A connection with its place among the listener's `max`.
struct Held<C> {
    conn: C,
    peer: SocketAddr,
    _slot: Slot,
}

/// The parked connections and the workers, shared by the accept thread and the workers.
struct Parking<C> {
    name: String,
    registry: Registry,
    parked: Mutex<HashMap<usize, Held<C>>>,
    max_workers: usize,
    next_key: AtomicUsize,
    work: Mutex<Work<C>>,
    /// `work.queue`'s length, read without the lock.
    waiting: AtomicUsize,
    ready: Condvar,
}

/// Connections woken and not yet taken by a worker, and the workers.
struct Work<C> {
    queue: VecDeque<Held<C>>,
    /// Workers waiting for a connection.
    idle: usize,
    threads: Vec<JoinHandle<()>>,
    stopped: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Accepts connections on `listener` and serves them in turns (see the module's text) until
/// `stop`, at most `max` at once (more are closed at accept), on at most `workers` threads;
/// `open` makes each accepted socket a [`Connection`], parked until its first bytes. The thread returns once stopped,
/// every worker has finished its connection, and the parked ones are closed.
pub fn spawn_parked_acceptor<C: Connection>(
    listener: TcpListener,
    stop: Arc<AtomicBool>,
    max: usize,
    workers: usize,
    name: &'static str,
    open: impl Fn(TcpStream) -> C + Send + 'static,
) -> io::Result<JoinHandle<()>> {
    listener.set_nonblocking(true)?;
    // A longer queue of connections not yet accepted than the 128 a listener is given: a
    // burst of clients connecting at once (a job's tasks starting) is not dropped, to retry
    // a second later. The kernel caps it at net.core.somaxconn.
    socket2::SockRef::from(&listener).listen(BACKLOG)?;
    let poll = Poll::new()?;
    let fd = listener.as_raw_fd();
    poll.registry()
        .register(&mut SourceFd(&fd), LISTENER, Interest::READABLE)?;
    let parking = Arc::new(Parking {
        name: name.to_owned(),
        registry: poll.registry().try_clone()?,
        parked: Mutex::new(HashMap::new()),
        max_workers: workers.max(1),
        next_key: AtomicUsize::new(0),
        waiting: AtomicUsize::new(0),
        work: Mutex::new(Work {
            queue: VecDeque::new(),
            idle: 0,
            threads: Vec::new(),
            stopped: false,
        }),
        ready: Condvar::new(),
    });
    std::thread::Builder::new()
        .name(format!("{name}-accept"))
        .spawn(move || {
            run(poll, &listener, &stop, max, &parking, &open);
            parking.finish();
        })
}

/// The accept thread: accepts, and hands woken connections to workers, until `stop`.
fn run<C: Connection>(
    mut poll: Poll,
    listener: &TcpListener,
    stop: &AtomicBool,
    max: usize,
    parking: &Arc<Parking<C>>,
    open: &impl Fn(TcpStream) -> C,
) {
    let live = Arc::new(AtomicUsize::new(0));
    let mut events = Events::with_capacity(1024);
    while !stop.load(Ordering::Acquire) {
        if let Err(e) = poll.poll(&mut events, Some(POLL)) {
            if e.kind() != io::ErrorKind::Interrupted {
                warn!("{}: waiting for connections failed: {e}", parking.name);
                std::thread::sleep(POLL);
            }
            continue;
        }
        for event in &events {
            if event.token() == LISTENER {
                accept(listener, max, &live, parking, open);
            } else {
                parking.wake(event.token().0);
            }
        }
    }
}

/// Accepts every connection waiting (the listener's readiness is edge-triggered).
fn accept<C: Connection>(
    listener: &TcpListener,
    max: usize,
    live: &Arc<AtomicUsize>,
    parking: &Arc<Parking<C>>,
    open: &impl Fn(TcpStream) -> C,
) {
    let name = &parking.name;
    loop {
        match listener.accept() {
            Ok((stream, peer)) => {
                if live.load(Ordering::Acquire) >= max {
                    warn!("{name}: refusing a connection from {peer}: {max} are open");
                    continue;
                }
                // Accepted sockets do not inherit the listener's O_NONBLOCK (Linux).
                let held = Held {
                    _slot: Slot::take(live),
                    conn: open(stream),
                    peer,
                };
                parking.park(held);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                // Out of descriptors, say: the waiting connection stays queued, and asking
                // again arms the listener's readiness once more.
                warn!("{name}: accept failed: {e}");
                std::thread::sleep(POLL);
                let fd = listener.as_raw_fd();
                let _ =
                    parking
                        .registry
                        .reregister(&mut SourceFd(&fd), LISTENER, Interest::READABLE);
                return;
            }
        }
    }
}

impl<C: Connection> Parking<C> {
    /// Waits for `held`'s socket to have bytes (or to end).
    fn park(&self, held: Held<C>) {
        let key = self.next_key.fetch_add(1, Ordering::Relaxed);
        let fd = held.conn.socket().as_raw_fd();
        // In the map before the socket is watched: its bytes may already be here.
        lock(&self.parked).insert(key, held);
        if let Err(e) = self
            .registry
            .register(&mut SourceFd(&fd), Token(key), Interest::READABLE)
            && let Some(held) = lock(&self.parked).remove(&key)
        {
            warn!(
                "{}: connection from {} dropped: cannot watch it: {e}",
                self.name, held.peer
            );
        }
    }

    /// The parked connection `key` has bytes: a worker serves it.
    fn wake(self: &Arc<Self>, key: usize) {
        let Some(held) = lock(&self.parked).remove(&key) else {
            return;
        };
        let fd = held.conn.socket().as_raw_fd();
        let _ = self.registry.deregister(&mut SourceFd(&fd));
        let mut work = lock(&self.work);
        work.queue.push_back(held);
        self.waiting.store(work.queue.len(), Ordering::Relaxed);
        if work.queue.len() > work.idle {
            work.threads.retain(|t| !t.is_finished());
            if work.threads.len() < self.max_workers {
                let parking = Arc::clone(self);
                match std::thread::Builder::new()
                    .name(format!("{}-conn", self.name))
                    .spawn(move || parking.work())
                {
                    Ok(thread) => work.threads.push(thread),
                    // The connection waits for a worker that is running already.
                    Err(e) => warn!("{}: cannot start a connection thread: {e}", self.name),
                }
            }
        }
        drop(work);
        self.ready.notify_one();
    }

    /// A worker: serves woken connections until stopped, or idle for [`WORKER_IDLE`].
    fn work(&self) {
        let mut work = lock(&self.work);
        loop {
            if let Some(held) = work.queue.pop_front() {
                self.waiting.store(work.queue.len(), Ordering::Relaxed);
                drop(work);
                self.serve(held);
                work = lock(&self.work);
            } else if work.stopped {
                return;
            } else {
                work.idle += 1;
                let (guard, waited) = self
                    .ready
                    .wait_timeout(work, WORKER_IDLE)
                    .unwrap_or_else(PoisonError::into_inner);
                work = guard;
                work.idle -= 1;
                if waited.timed_out() && work.queue.is_empty() {
                    return;
                }
            }
        }
    }

    /// Serves one turn of `held`, and parks it again if it is still open. A panic ends this
    /// connection alone, with a line naming the peer.
    fn serve(&self, held: Held<C>) {
        let Held { conn, peer, _slot } = held;
        let turn = Turn {
            waiting: &self.waiting,
            started: Instant::now(),
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| conn.serve(&turn))) {
            Ok(Some(conn)) => self.park(Held { conn, peer, _slot }),
            Ok(None) => {}
            Err(panic) => {
                let what = crate::panic_message(&*panic);
                warn!(
                    "{}: connection from {peer} ended by a bug: {what}",
                    self.name
                );
            }
        }
    }

    /// After the stop: the workers finish their connections, then the parked ones close.
    fn finish(&self) {
        let threads = {
            let mut work = lock(&self.work);
            work.stopped = true;
            std::mem::take(&mut work.threads)
        };
        self.ready.notify_all();
        for t in threads {
            let _ = t.join();
        }
        for (_, held) in lock(&self.parked).drain() {
            let fd = held.conn.socket().as_raw_fd();
            let _ = self.registry.deregister(&mut SourceFd(&fd));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead as _, BufReader, Write as _};

    use super::*;

    /// Echoes lines; a line `panic` panics. Each turn serves what is buffered and parks as
    /// soon as nothing more has come within a short wait.
    struct Echo(BufReader<TcpStream>);

    impl Connection for Echo {
        fn socket(&self) -> &TcpStream {
            self.0.get_ref()
        }

        fn serve(mut self, turn: &Turn<'_>) -> Option<Self> {
            let socket = self.0.get_ref().try_clone().ok()?;
            socket
                .set_read_timeout(Some(Duration::from_millis(20)))
                .ok()?;
            loop {
                let mut line = String::new();
                match self.0.read_line(&mut line) {
                    Ok(0) => return None,
                    Ok(_) => {
                        assert!(line.trim() != "panic", "asked to panic");
                        (&socket).write_all(line.as_bytes()).ok()?;
                        if turn.should_yield() && self.0.buffer().is_empty() {
                            return Some(self);
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock && line.is_empty() => {
                        return Some(self);
                    }
                    Err(_) => return None,
                }
            }
        }
    }

    fn threads_named(suffix: &str) -> usize {
        let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
            return 0;
        };
        tasks
            .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
            .filter(|comm| comm.trim_end().ends_with(suffix))
            .count()
    }

    /// An echo server on a free port, with `max` connections on `workers` threads; its
    /// address, its stop flag and its accept thread.
    fn echo_server(
        max: usize,
        workers: usize,
        name: &'static str,
    ) -> (SocketAddr, Arc<AtomicBool>, JoinHandle<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let addr = listener.local_addr().expect("addr");
        let stop = Arc::new(AtomicBool::new(false));
        let acceptor =
            spawn_parked_acceptor(listener, Arc::clone(&stop), max, workers, name, |s| {
                Echo(BufReader::new(s))
            })
            .expect("acceptor");
        (addr, stop, acceptor)
    }

    /// A client of `addr` whose reads give up after 10 s.
    fn connect(addr: SocketAddr) -> BufReader<TcpStream> {
        let s = TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        BufReader::new(s)
    }

    /// Two hundred connections, each answered once and then quiet: they are all still
    /// answered afterwards, while far fewer worker threads than connections exist; a panic
    /// ends one connection alone; a stop ends the acceptor promptly.
    #[test]
    fn quiet_connections_hold_no_thread_and_still_answer() {
        let (addr, stop, acceptor) = echo_server(1000, 1000, "ptest");
        let ask = |s: &mut BufReader<TcpStream>, what: &str| -> String {
            s.get_mut()
                .write_all(format!("{what}\n").as_bytes())
                .expect("write");
            let mut back = String::new();
            s.read_line(&mut back).expect("read");
            back
        };
        let mut clients: Vec<BufReader<TcpStream>> = (0..200).map(|_| connect(addr)).collect();
        for (i, c) in clients.iter_mut().enumerate() {
            assert_eq!(ask(c, &format!("hello {i}")), format!("hello {i}\n"));
        }
        // Quiet now: the workers park them all and, idle, end (a bounded wait).
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while threads_named("ptest-conn") > 2 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(
            threads_named("ptest-conn") <= 2,
            "{} worker threads for 200 quiet connections",
            threads_named("ptest-conn")
        );
        for (i, c) in clients.iter_mut().enumerate().rev() {
            assert_eq!(ask(c, &format!("again {i}")), format!("again {i}\n"));
        }
        // A panic closes that connection; the others go on.
        let mut doomed = clients.pop().expect("a client");
        doomed.get_mut().write_all(b"panic\n").expect("write");
        let mut rest = String::new();
        assert_eq!(doomed.read_line(&mut rest).expect("read"), 0);
        assert_eq!(ask(&mut clients[0], "still"), "still\n");
        stop.store(true, Ordering::Release);
        let started = std::time::Instant::now();
        acceptor.join().expect("acceptor");
        assert!(started.elapsed() < Duration::from_secs(5));
        // The parked connections were closed.
        let mut end = String::new();
        assert_eq!(clients[1].read_line(&mut end).expect("read"), 0);
    }

    /// More connections than `max` are closed at accept; a closed one gives its place back.
    #[test]
    fn connections_beyond_max_are_closed() {
        let (addr, stop, acceptor) = echo_server(2, 8, "pmax");
        let answered = |c: &mut BufReader<TcpStream>| {
            let _ = c.get_mut().write_all(b"x\n");
            let mut back = String::new();
            matches!(c.read_line(&mut back), Ok(n) if n > 0)
        };
        let (mut a, mut b) = (connect(addr), connect(addr));
        assert!(answered(&mut a) && answered(&mut b));
        assert!(
            !answered(&mut connect(addr)),
            "a third connection was served"
        );
        drop(a);
        // Bounded: the place comes back once the server has seen the close.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut served = false;
        while !served && std::time::Instant::now() < deadline {
            served = answered(&mut connect(addr));
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(served, "a closed connection kept its place");
        assert!(answered(&mut b));
        stop.store(true, Ordering::Release);
        acceptor.join().expect("acceptor");
    }

    /// With two workers, six clients that never pause all make progress: a connection that
    /// has had its slice while others wait yields between two calls.
    #[test]
    fn busy_connections_beyond_the_workers_take_turns() {
        let (addr, stop, acceptor) = echo_server(100, 2, "pturn");
        let clients: Vec<_> = (0..6)
            .map(|_| {
                std::thread::spawn(move || {
                    let mut s = connect(addr);
                    // Bounded: a fixed count of calls, each answered or failing the test.
                    for i in 0..300 {
                        s.get_mut()
                            .write_all(format!("{i}\n").as_bytes())
                            .expect("write");
                        let mut back = String::new();
                        s.read_line(&mut back).expect("an answer within 10 s");
                        assert_eq!(back, format!("{i}\n"));
                    }
                })
            })
            .collect();
        for c in clients {
            c.join().expect("every client was served");
        }
        assert!(threads_named("pturn-conn") <= 2);
        stop.store(true, Ordering::Release);
        acceptor.join().expect("acceptor");
    }
}
