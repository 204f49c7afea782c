//! One native-RPC connection shared by many threads, as HBase's clients share theirs: every
//! caller gets its own answer, a server answers calls that arrive together, and a connection
//! that breaks or stays silent fails its waiting calls instead of hanging them.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

use std::io::{BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::remote::{RpcClient, RpcError};
use basalt_embedded::{Bytes, ColumnFamilyDescriptor, Connection, Get, Put, TableDescriptor};
use basalt_rpc::RpcServer;
use basalt_rpc::frame::{
    encode_call, encode_connection_start, encode_response, read_call, read_connection_header,
    read_preamble, read_response,
};
use basalt_rpc::pb::{ConnectionHeader, GetRequest, GetResponse};

mod support;

/// A served engine on a file system whose syncs can be slowed, with an FSYNC_WAL table `t`,
/// and a native connection to it.
fn fsync_server() -> (basalt_fs::FaultyFs, Connection, RpcServer, RemoteConnection) {
    let fs = basalt_fs::FaultyFs::new();
    let served = Connection::builder()
        .file_system(std::sync::Arc::new(fs.clone()))
        .root("/data")
        .open()
        .unwrap();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"))
        .with_durability(basalt_embedded::Durability::FsyncWal);
    served.admin().create_table(desc).unwrap();
    let server = support::serve(&served);
    let conn = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    (fs, served, server, conn)
}

/// `threads` threads sharing `conn` each put `puts` rows named `{prefix}{thread}-{i}` to `t`.
fn put_from_threads(conn: &RemoteConnection, threads: u64, puts: u64, prefix: &str) {
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let table = conn.table("t").unwrap();
                for i in 0..puts {
                    let put = Put::new(format!("{prefix}{t}-{i}")).add_column("f", "q", "v");
                    table.put(&put).unwrap();
                }
            });
        }
    });
}

/// Threads sharing one connection put at FSYNC_WAL, on a disk whose every sync takes 5 ms:
/// the server runs the puts waiting behind each other on handler threads, so they share
/// syncs (group commit) instead of each syncing in turn on the connection's thread.
#[test]
fn fsync_puts_sharing_a_connection_share_syncs() {
    let (fs, served, server, conn) = fsync_server();
    fs.set_sync_delay(Duration::from_millis(5));
    let (threads, puts) = (8, 10);
    let before = fs.sync_count();
    put_from_threads(&conn, threads, puts, "row");
    let syncs = fs.sync_count() - before;
    fs.set_sync_delay(Duration::ZERO);
    // One sync per put would be 80; shared, far fewer.
    assert!(
        syncs <= threads * puts / 2,
        "{syncs} syncs for {} FSYNC_WAL puts",
        threads * puts
    );
    let table = served.table("t").unwrap();
    let rows = table.scan(&basalt_embedded::Scan::new()).unwrap().count();
    assert_eq!(rows as u64, threads * puts);
    server.shutdown();
}

/// On a connection that threads share, a get is not held up by another thread's put that
/// waits for a slow sync: the put waits on a handler thread, not on the connection's.
#[test]
fn a_get_overtakes_a_slow_put_on_a_shared_connection() {
    use std::sync::atomic::{AtomicBool, Ordering};
    let (fs, _served, server, conn) = fsync_server();
    // Two threads' puts together: the server sees the connection shared, and its mutations
    // slow.
    fs.set_sync_delay(Duration::from_millis(20));
    put_from_threads(&conn, 2, 5, "warm");
    // Now one put waits seconds for its sync while another thread gets.
    fs.set_sync_delay(Duration::from_secs(3));
    let put_done = AtomicBool::new(false);
    std::thread::scope(|s| {
        let (conn, put_done) = (&conn, &put_done);
        s.spawn(move || {
            let table = conn.table("t").unwrap();
            table
                .put(&Put::new("slow").add_column("f", "q", "v"))
                .unwrap();
            put_done.store(true, Ordering::SeqCst);
        });
        std::thread::sleep(Duration::from_millis(300));
        let got = conn.table("t").unwrap().get(&Get::new("warm0-0")).unwrap();
        assert_eq!(got.value(b"f", b"q"), Some(&b"v"[..]));
        assert!(
            !put_done.load(Ordering::SeqCst),
            "the get waited for the put's sync"
        );
    });
    fs.set_sync_delay(Duration::ZERO);
    server.shutdown();
}

fn engine() -> Connection {
    let conn = Connection::in_memory();
    let desc = TableDescriptor::named("t")
        .unwrap()
        .with_family(ColumnFamilyDescriptor::new("f"));
    conn.admin()
        .create_table_with_splits(desc, &[Bytes::from_static(b"m")])
        .unwrap();
    conn
}

#[test]
fn threads_sharing_a_connection_each_get_their_own_answers() {
    let served = engine();
    let server = support::serve(&served);
    let conn = RemoteConnection::connect(server.local_addr(), RemoteConfig::default()).unwrap();
    std::thread::scope(|s| {
        for t in 0..8 {
            let conn = &conn;
            s.spawn(move || {
                let table = conn.table("t").unwrap();
                for i in 0..150 {
                    // Rows on both sides of the split, so calls go to both regions.
                    let row = format!("{}{t}-{i:03}", if i % 2 == 0 { "a" } else { "x" });
                    let value = format!("value of {row}");
                    table
                        .put(&Put::new(row.clone()).add_column("f", "q", value.clone()))
                        .unwrap();
                    let got = table.get(&Get::new(row.clone())).unwrap();
                    assert_eq!(got.value(b"f", b"q"), Some(value.as_bytes()), "{row}");
                }
            });
        }
    });
    // Everything landed, once.
    let table = served.table("t").unwrap();
    let rows = table.scan(&basalt_embedded::Scan::new()).unwrap().count();
    assert_eq!(rows, 8 * 150);
    server.shutdown();
}

/// With a pool of connections (HBase's `hbase.client.ipc.pool.size`), threads are dealt to
/// them: every connection of the pool carries calls, and each thread still gets its own
/// answers.
#[test]
fn threads_are_dealt_to_the_connections_of_a_pool() {
    let served = engine();
    let server = support::serve(&served);
    let config = RemoteConfig {
        pool_size: 3,
        ..RemoteConfig::default()
    };
    let conn = RemoteConnection::connect(server.local_addr(), config).unwrap();
    assert_eq!(
        conn.open_connections(),
        1,
        "one opens at once, the others on first use"
    );
    // One thread keeps to one connection: at most the one opened at once and its own.
    let remote = conn.table("t").unwrap();
    for i in 0..10 {
        remote.get(&Get::new(format!("a{i}"))).unwrap();
    }
    assert!(conn.open_connections() <= 2, "{}", conn.open_connections());
    // Threads of other tests take numbers too, so rounds of threads go on (a bounded number)
    // until every connection of the pool has had one.
    let mut threads = 0;
    for _ in 0..20 {
        std::thread::scope(|s| {
            for t in threads..threads + 6 {
                let conn = &conn;
                s.spawn(move || {
                    let table = conn.table("t").unwrap();
                    for i in 0..20 {
                        let row = format!("{}{t}-{i:03}", if i % 2 == 0 { "a" } else { "x" });
                        let put = Put::new(row.clone()).add_column("f", "q", row.clone());
                        table.put(&put).unwrap();
                        let got = table.get(&Get::new(row.clone())).unwrap();
                        assert_eq!(got.value(b"f", b"q"), Some(row.as_bytes()), "{row}");
                    }
                });
            }
        });
        threads += 6;
        if conn.open_connections() == 3 {
            break;
        }
    }
    assert_eq!(conn.open_connections(), 3);
    let table = served.table("t").unwrap();
    let rows = table.scan(&basalt_embedded::Scan::new()).unwrap().count();
    assert_eq!(rows, threads * 20);
    server.shutdown();
}

/// A caller alone on a connection reads its own answer; once calls overlap, the connection's
/// reading thread takes over, and every caller still gets its answer.
#[test]
fn the_reading_thread_starts_once_calls_overlap() {
    let served = engine();
    let server = support::serve(&served);
    let client = RpcClient::connect(server.local_addr(), "ClientService").unwrap();
    let region = client.regions("t").unwrap()[0].name.clone();
    let get = |i: usize| GetRequest {
        region: basalt_proto::region(&region),
        get: basalt_rpc::pb::Get {
            row: format!("a{i}").into_bytes(),
            ..basalt_rpc::pb::Get::default()
        },
    };
    for i in 0..20 {
        let _: GetResponse = client.call("Get", &get(i)).unwrap();
    }
    assert!(
        !client.reads_on_a_thread(),
        "one caller at a time reads for itself"
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    while !client.reads_on_a_thread() && Instant::now() < deadline {
        std::thread::scope(|s| {
            for t in 0..4 {
                let (client, get) = (&client, &get);
                s.spawn(move || {
                    for i in 0..50 {
                        let _: GetResponse = client.call("Get", &get(t * 100 + i)).unwrap();
                    }
                });
            }
        });
    }
    assert!(client.reads_on_a_thread());
    let r: GetResponse = client.call("Get", &get(1)).unwrap();
    assert!(r.result.unwrap().cell.is_empty());
    drop(client);
    server.shutdown();
}

/// A peer that accepts one connection, takes its preamble and header, then runs `script` on
/// the socket (to answer on) and its reader (to read calls from).
fn scripted_peer(
    script: impl FnOnce(&TcpStream, &mut BufReader<TcpStream>) + Send + 'static,
) -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let peer = std::thread::spawn(move || {
        let (socket, _) = listener.accept().unwrap();
        socket
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut input = BufReader::new(socket.try_clone().unwrap());
        read_preamble(&mut input).unwrap();
        read_connection_header(&mut input, 1 << 20).unwrap();
        script(&socket, &mut input);
    });
    (addr, peer)
}

/// Calls are in flight together and answered in any order: a peer that reads two calls
/// before it answers either, then answers the second first, echoing each call's row.
#[test]
fn concurrent_calls_get_their_own_answers_in_any_order() {
    let (addr, peer) = scripted_peer(|socket, input| {
        let calls: Vec<_> = (0..2).map(|_| read_call(input, 1 << 20).unwrap()).collect();
        for call in calls.iter().rev() {
            let request: GetRequest =
                prost::Message::decode(call.param.as_deref().unwrap()).unwrap();
            let answer = GetResponse {
                result: Some(basalt_rpc::pb::Result {
                    cell: vec![basalt_rpc::pb::Cell {
                        row: Some(request.get.row),
                        ..basalt_rpc::pb::Cell::default()
                    }],
                    ..basalt_rpc::pb::Result::default()
                }),
            };
            let frame = encode_response(
                call.header.call_id.unwrap(),
                Ok(prost::Message::encode_to_vec(&answer)),
            );
            (&*socket).write_all(&frame).unwrap();
        }
    });
    let client = RpcClient::connect(addr, "ClientService").unwrap();
    // Without multiplexing the second call would never be sent: both would time out.
    client.set_timeout(Some(Duration::from_secs(10))).unwrap();
    two_calls_at_once(&client, |i, r| {
        let row = r.result.unwrap().cell[0].row.clone().unwrap();
        assert_eq!(row, format!("row {i}").into_bytes());
    });
    peer.join().unwrap();
}

/// Gets rows 0 and 1 from two threads at once, and checks each answer with `check`.
fn two_calls_at_once(client: &RpcClient, check: impl Fn(usize, GetResponse) + Sync) {
    std::thread::scope(|s| {
        for i in 0..2 {
            let check = &check;
            s.spawn(move || check(i, client.call("Get", &some_get(i)).unwrap()));
        }
    });
}

/// A Get of row `a` in `region`, as call `id`.
fn get_call(id: u32, region: &[u8]) -> Vec<u8> {
    encode_call(
        id,
        "Get",
        &GetRequest {
            region: basalt_proto::region(region),
            get: basalt_rpc::pb::Get {
                row: b"a".to_vec(),
                ..basalt_rpc::pb::Get::default()
            },
        },
    )
}

#[test]
fn a_server_answers_calls_that_arrive_together_and_never_waits_on_half_a_call() {
    let served = engine();
    let server = support::serve(&served);
    let region = RpcClient::connect(server.local_addr(), "ClientService")
        .unwrap()
        .regions("t")
        .unwrap()[0]
        .name
        .clone();
    let mut socket = TcpStream::connect(server.local_addr()).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut bytes = encode_connection_start(&ConnectionHeader {
        service_name: Some("ClientService".into()),
        ..ConnectionHeader::default()
    });
    for id in 1..=3 {
        bytes.extend(get_call(id, &region));
    }
    // Three whole calls and the first bytes of a fourth, in one write.
    let fourth = get_call(4, &region);
    bytes.extend_from_slice(&fourth[..5]);
    socket.write_all(&bytes).unwrap();
    let mut input = BufReader::new(socket.try_clone().unwrap());
    for id in 1..=3 {
        let (header, message) = read_response(&mut input, 1 << 20).unwrap();
        assert_eq!(header.call_id, Some(id));
        assert!(header.exception.is_none(), "{header:?}");
        let r: GetResponse = prost::Message::decode(message.unwrap().as_slice()).unwrap();
        assert!(r.result.unwrap().cell.is_empty());
    }
    // The fourth call is answered once its last bytes arrive.
    socket.write_all(&fourth[5..]).unwrap();
    let (header, _) = read_response(&mut input, 1 << 20).unwrap();
    assert_eq!(header.call_id, Some(4));
    server.shutdown();
}

/// A peer that takes the connection preamble and calls and answers none; it closes the
/// connection after `close_after` (if given), or when the client does.
fn silent_server(
    close_after: Option<Duration>,
) -> (std::net::SocketAddr, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let handle = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let started = Instant::now();
        socket
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        let mut buf = [0u8; 4096];
        // Bounded: the client closes its side at the latest when the test ends.
        while started.elapsed() < Duration::from_secs(30) {
            if close_after.is_some_and(|d| started.elapsed() >= d) {
                return;
            }
            match socket.read(&mut buf) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => return,
            }
        }
    });
    (addr, handle)
}

fn some_get(i: usize) -> GetRequest {
    GetRequest {
        region: basalt_proto::region(&[b'r'; 64]),
        get: basalt_rpc::pb::Get {
            row: format!("row {i}").into_bytes(),
            ..basalt_rpc::pb::Get::default()
        },
    }
}

/// Makes `n` calls at once from threads of their own; each must fail on the connection.
fn calls_fail(client: &RpcClient, n: usize) {
    std::thread::scope(|s| {
        for i in 0..n {
            s.spawn(move || {
                let r: Result<GetResponse, RpcError> = client.call("Get", &some_get(i));
                assert!(matches!(r, Err(RpcError::Frame(_))), "{r:?}");
            });
        }
    });
}

#[test]
fn a_connection_that_breaks_fails_every_waiting_call() {
    let (addr, peer) = silent_server(Some(Duration::from_millis(300)));
    let client = RpcClient::connect(addr, "ClientService").unwrap();
    let started = Instant::now();
    calls_fail(&client, 4);
    assert!(started.elapsed() < Duration::from_secs(15));
    assert!(client.is_broken());
    // Later calls fail at once.
    let r: Result<GetResponse, RpcError> = client.call("Get", &some_get(9));
    assert!(matches!(r, Err(RpcError::Frame(_))), "{r:?}");
    peer.join().unwrap();
}

/// Once the reading thread runs, a call that times out fails alone: the connection stays
/// open, the late answer is dropped when it comes, and the next call gets its own.
#[test]
fn a_late_answer_is_dropped_and_the_connection_goes_on() {
    let (addr, peer) = scripted_peer(|socket, input| {
        let answer = |id: u32| {
            let frame = encode_response(
                id,
                Ok(prost::Message::encode_to_vec(&GetResponse::default())),
            );
            (&*socket).write_all(&frame).unwrap();
        };
        // Two calls in flight together (which starts the client's reading thread), answered
        // once both are here; then one answered after its caller gave up; then one answered
        // at once.
        let first: Vec<_> = (0..2).map(|_| read_call(input, 1 << 20).unwrap()).collect();
        for call in &first {
            answer(call.header.call_id.unwrap());
        }
        let late = read_call(input, 1 << 20).unwrap();
        std::thread::sleep(Duration::from_millis(600));
        answer(late.header.call_id.unwrap());
        let next = read_call(input, 1 << 20).unwrap();
        answer(next.header.call_id.unwrap());
    });
    let client = RpcClient::connect(addr, "ClientService").unwrap();
    client.set_timeout(Some(Duration::from_secs(10))).unwrap();
    two_calls_at_once(&client, |_, _| {});
    client
        .set_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let late: Result<GetResponse, RpcError> = client.call("Get", &some_get(2));
    assert!(matches!(late, Err(RpcError::Frame(_))), "{late:?}");
    client.set_timeout(Some(Duration::from_secs(10))).unwrap();
    assert!(client.reads_on_a_thread());
    assert!(!client.is_broken());
    let next: Result<GetResponse, RpcError> = client.call("Get", &some_get(3));
    assert!(next.is_ok(), "{next:?}");
    drop(client);
    peer.join().unwrap();
}

#[test]
fn calls_without_an_answer_time_out() {
    let (addr, peer) = silent_server(None);
    let client = RpcClient::connect(addr, "ClientService").unwrap();
    client
        .set_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    let started = Instant::now();
    calls_fail(&client, 3);
    assert!(started.elapsed() < Duration::from_secs(10));
    drop(client);
    peer.join().unwrap();
}
