//! A client's retry of an increment, append or check-and-mutate whose answer was lost (the
//! connection broke after the server applied it) is not applied again: the remote client
//! sends each such operation with a nonce, and the server remembers the nonces it ran.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use basalt_embedded::Connection;
use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{
    Append, BatchOp, BatchOutcome, Bytes, CheckAction, CheckAndMutate, CompareOperator, Condition,
    Get, Increment, Put,
};
use basalt_rpc::RpcServer;
use support::serve;

/// A TCP proxy in front of a server that, once armed, swallows the next answer the server
/// sends and breaks that client connection: the call was applied, its answer never arrives.
struct Proxy {
    addr: SocketAddr,
    armed: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    fn start(server: SocketAddr) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        listener.set_nonblocking(true).unwrap();
        let armed = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let (armed_c, stop_c) = (Arc::clone(&armed), Arc::clone(&stop));
        std::thread::spawn(move || {
            // Bounded: the proxy lives at most as long as the test could.
            let deadline = std::time::Instant::now() + Duration::from_secs(120);
            while !stop_c.load(Ordering::Acquire) && std::time::Instant::now() < deadline {
                match listener.accept() {
                    Ok((client, _)) => {
                        client.set_nonblocking(false).unwrap();
                        let upstream = TcpStream::connect(server).unwrap();
                        Self::pipe(client, upstream, Arc::clone(&armed_c));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Proxy { addr, armed, stop }
    }

    /// Copies bytes both ways; the server's side drops the connection when armed.
    fn pipe(client: TcpStream, upstream: TcpStream, armed: Arc<AtomicBool>) {
        let (mut c_read, mut u_write) =
            (client.try_clone().unwrap(), upstream.try_clone().unwrap());
        std::thread::spawn(move || {
            let mut buf = [0u8; 64 * 1024];
            while let Ok(n) = c_read.read(&mut buf) {
                if n == 0 || u_write.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            let _ = u_write.shutdown(Shutdown::Both);
        });
        let (mut u_read, mut c_write) = (upstream, client);
        std::thread::spawn(move || {
            let mut buf = [0u8; 64 * 1024];
            while let Ok(n) = u_read.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if armed.swap(false, Ordering::AcqRel) {
                    // The answer is lost with the connection.
                    break;
                }
                if c_write.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
            let _ = c_write.shutdown(Shutdown::Both);
            let _ = u_read.shutdown(Shutdown::Both);
        });
    }

    /// The next answer from the server is lost, with its connection.
    fn lose_next_answer(&self) {
        self.armed.store(true, Ordering::Release);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
    }
}

/// An engine with table `t`, served behind a [`Proxy`], and a client through the proxy that
/// has located row `row` already (before answers start going missing).
fn behind_proxy(row: &str) -> (Connection, RpcServer, Proxy, RemoteConnection) {
    let conn = support::engine_with_table_t();
    let server = serve(&conn);
    let proxy = Proxy::start(server.local_addr());
    let config = RemoteConfig {
        pause: Duration::from_millis(20),
        ..RemoteConfig::default()
    };
    let remote = RemoteConnection::connect(proxy.addr, config).unwrap();
    remote
        .table("t")
        .unwrap()
        .put(&Put::new(row.to_owned()).add_column("f", "s", "a"))
        .unwrap();
    (conn, server, proxy, remote)
}

#[test]
fn a_retried_operation_whose_answer_was_lost_is_applied_once() {
    let (conn, server, proxy, remote) = behind_proxy("r");
    let t = remote.table("t").unwrap();

    proxy.lose_next_answer();
    let got = t
        .increment(&Increment::new("r").add_column("f", "n", 5i64))
        .unwrap();
    assert_eq!(
        got.cells[0].value(),
        5i64.to_be_bytes(),
        "the retry's answer"
    );
    proxy.lose_next_answer();
    let got = t
        .increment(&Increment::new("r").add_column("f", "n", 1i64))
        .unwrap();
    assert_eq!(got.cells[0].value(), 6i64.to_be_bytes());

    proxy.lose_next_answer();
    let got = t
        .append(&Append::new("r").add_column("f", "s", Bytes::from_static(b"b")))
        .unwrap();
    assert_eq!(got.cells[0].value(), b"ab");

    // A check-and-put that swaps a value: its retry would find the value swapped and say
    // it failed; the nonce makes it answer what happened.
    proxy.lose_next_answer();
    let swapped = t
        .check_and_mutate(&CheckAndMutate::new(
            "r",
            Condition::matches("f", "s", CompareOperator::Equal, Bytes::from_static(b"ab")),
            CheckAction::Put(Put::new("r").add_column("f", "s", "swapped")),
        ))
        .unwrap();
    assert!(swapped.success);

    // On the server: every operation applied exactly once.
    let row = conn
        .table("t")
        .unwrap()
        .get(&Get::new("r").read_versions(10))
        .unwrap();
    let n: Vec<&[u8]> = row
        .cells
        .iter()
        .filter(|c| c.qualifier() == b"n")
        .map(|c| c.value())
        .collect();
    assert_eq!(n, [&6i64.to_be_bytes()[..], &5i64.to_be_bytes()[..]]);
    let s: Vec<&[u8]> = row
        .cells
        .iter()
        .filter(|c| c.qualifier() == b"s")
        .map(|c| c.value())
        .collect();
    assert_eq!(s, [&b"swapped"[..], b"ab", b"a"]);
    server.shutdown();
}

/// A batch's increment whose Multi call lost its answer (after the server applied it) runs again
/// on its own with the same nonce: applied once, answered with its own value.
#[test]
fn a_batched_increment_whose_multi_lost_its_answer_is_applied_once() {
    let (conn, server, proxy, remote) = behind_proxy("b");
    let t = remote.table("t").unwrap();

    proxy.lose_next_answer();
    let mut outcomes = t.batch(&[BatchOp::Increment(
        Increment::new("b").add_column("f", "n", 5i64),
    )]);
    let Some(Ok(BatchOutcome::Row(got))) = outcomes.pop() else {
        panic!("the batch failed: {outcomes:?}");
    };
    assert_eq!(got.cells[0].value(), 5i64.to_be_bytes());
    let row = conn.table("t").unwrap().get(&Get::new("b")).unwrap();
    assert_eq!(
        row.value(b"f", b"n"),
        Some(&5i64.to_be_bytes()[..]),
        "applied once"
    );
    server.shutdown();
}

/// A put, a batched put and row mutations whose answers were lost are applied once: a second
/// application, stamped later, would land over writes made in between (the fault campaign saw
/// a retried RowMutations bring back an old value over two newer ones).
#[test]
fn puts_and_row_mutations_whose_answers_were_lost_are_applied_once() {
    let (conn, server, proxy, remote) = behind_proxy("p");
    let t = remote.table("t").unwrap();
    proxy.lose_next_answer();
    t.put(&Put::new("p").add_column("f", "a", "1")).unwrap();
    proxy.lose_next_answer();
    let mut outcomes = t.batch(&[BatchOp::Put(Put::new("p").add_column("f", "b", "2"))]);
    assert!(matches!(outcomes.pop(), Some(Ok(BatchOutcome::Done))));
    proxy.lose_next_answer();
    t.mutate_row(
        &basalt_embedded::RowMutations::new("p")
            .add_put(Put::new("p").add_column("f", "c", "3"))
            .add_put(Put::new("p").add_column("f", "d", "4")),
    )
    .unwrap();
    let row = conn
        .table("t")
        .unwrap()
        .get(&Get::new("p").read_versions(10))
        .unwrap();
    for q in [&b"a"[..], b"b", b"c", b"d"] {
        let versions = row.cells.iter().filter(|c| c.qualifier() == q).count();
        assert_eq!(versions, 1, "column {q:?} applied {versions} times");
    }
    server.shutdown();
}
