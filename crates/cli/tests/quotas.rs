//! RPC throttles (issue 48) on a standalone server: a user throttled to 100 requests a second
//! gets 100 a second, within 10%, while another user on the same server keeps its own rate;
//! lifting the quota restores full speed within seconds.
#![expect(clippy::unwrap_used, reason = "tests fail loudly on unexpected errors")]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use basalt_embedded::remote::{RemoteConfig, RemoteConnection};
use basalt_embedded::{Client, Get, TableName};
use support::{Server, basalt_with_input};

fn shell(server: &Server, input: &str) -> String {
    let (ok, out, err) = basalt_with_input(&["shell", "--connect", &server.rpc, "-n"], input);
    assert!(ok, "{out}{err}");
    out
}

fn connect(server: &Server, user: &str) -> Arc<RemoteConnection> {
    let config = RemoteConfig {
        user: user.into(),
        ..RemoteConfig::default()
    };
    Arc::new(RemoteConnection::connect(server.rpc.parse().unwrap(), config).unwrap())
}

/// Gets a row flat out for `run`; how many answered.
fn gets(conn: &RemoteConnection, run: Duration) -> u64 {
    let t = TableName::parse("t").unwrap();
    let started = Instant::now();
    let mut done = 0;
    while started.elapsed() < run {
        conn.get(&t, &Get::new("r")).unwrap();
        done += 1;
    }
    done
}

#[test]
fn a_throttled_user_gets_its_rate_and_the_others_keep_theirs() {
    let server = Server::start();
    shell(
        &server,
        "create 't', 'f'\nput 't', 'r', 'f:q', 'v'\n\
         set_quota TYPE => THROTTLE, USER => 'slow', LIMIT => '100req/sec'\n",
    );
    // The server reads the quotas every second.
    std::thread::sleep(Duration::from_millis(2500));
    let (slow, fast) = (connect(&server, "slow"), connect(&server, "fast"));
    // A bucket fills up to one time unit's worth while its user is idle (as HBase's
    // limiters do): spent first, so the rate measured is the steady one.
    gets(&slow, Duration::from_millis(1500));
    let run = Duration::from_secs(10);
    let fast_thread = {
        let fast = Arc::clone(&fast);
        std::thread::spawn(move || gets(&fast, run))
    };
    let slow_done = gets(&slow, run);
    let fast_done = fast_thread.join().unwrap();
    let slow_rate = slow_done as f64 / run.as_secs_f64();
    let fast_rate = fast_done as f64 / run.as_secs_f64();
    eprintln!("throttled user: {slow_rate:.1}/s, the other: {fast_rate:.1}/s");
    assert!(
        (90.0..=110.0).contains(&slow_rate),
        "the throttled user got {slow_rate:.1}/s, not 100 +/- 10%"
    );
    assert!(
        fast_rate > 3.0 * slow_rate,
        "the other user was held back: {fast_rate:.1}/s"
    );

    // Lifted: full speed again within seconds.
    shell(
        &server,
        "set_quota TYPE => THROTTLE, USER => 'slow', LIMIT => NONE\n",
    );
    std::thread::sleep(Duration::from_millis(2500));
    let freed = gets(&slow, Duration::from_secs(1));
    assert!(
        freed > 300,
        "still throttled after the quota went: {freed}/s"
    );
}
