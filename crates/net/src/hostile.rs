//! Hostile input for the servers' socket tests: a seeded random source, and a valid message
//! changed the ways a broken or malicious client changes one. Not for use outside tests.

/// splitmix64: the same seed gives the same run.
#[derive(Debug)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    fn byte(&mut self) -> u8 {
        self.next_u64().to_le_bytes()[0]
    }
}

/// `valid` with bits flipped, cut short, bytes inserted, a 4-byte window set to an extreme
/// length, a slice repeated, replaced by garbage, or (one time in seven) unchanged.
pub fn mutate(rng: &mut Rng, valid: &[u8]) -> Vec<u8> {
    let mut m = valid.to_vec();
    match rng.below(7) {
        0 if !m.is_empty() => {
            for _ in 0..=rng.below(4) {
                let at = rng.below(m.len());
                m[at] ^= 1 << rng.below(8);
            }
        }
        1 => m.truncate(rng.below(m.len())),
        2 => {
            let at = rng.below(m.len() + 1);
            let junk: Vec<u8> = (0..=rng.below(16)).map(|_| rng.byte()).collect();
            m.splice(at..at, junk);
        }
        3 if m.len() >= 4 => {
            let at = rng.below(m.len() - 3);
            let extreme = [0u32, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x8000_0000, 0x0001_0000];
            m[at..at + 4].copy_from_slice(&extreme[rng.below(extreme.len())].to_be_bytes());
        }
        4 => {
            let from = rng.below(m.len());
            let to = from + rng.below(m.len() - from + 1);
            let copy = m[from..to].to_vec();
            m.extend_from_slice(&copy);
        }
        5 => m = (0..rng.below(300)).map(|_| rng.byte()).collect(),
        _ => {}
    }
    m
}

/// Connects to `addr` again and again, each time sending one to three of `valid` messages
/// (chosen and changed by [`mutate`]) and reading whatever comes back until the server closes
/// or goes quiet, for at most `max_messages` messages and `time`. Returns how many were sent.
pub fn send_mutated(
    addr: std::net::SocketAddr,
    valid: &[Vec<u8>],
    rng: &mut Rng,
    max_messages: usize,
    time: std::time::Duration,
) -> usize {
    use std::io::{Read, Write};
    let started = std::time::Instant::now();
    let mut sent = 0;
    while sent < max_messages && started.elapsed() < time {
        let Ok(mut s) = std::net::TcpStream::connect(addr) else {
            continue;
        };
        if s.set_read_timeout(Some(std::time::Duration::from_millis(50)))
            .is_err()
        {
            continue;
        }
        for _ in 0..=rng.below(3) {
            let message = &valid[rng.below(valid.len())];
            let _ = s.write_all(&mutate(rng, message));
            sent += 1;
        }
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut sink = [0u8; 4096];
        while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
    }
    sent
}

/// Counts the panics of every thread from now on (the previous hook still prints them).
pub fn count_panics() -> std::sync::Arc<std::sync::atomic::AtomicUsize> {
    let panics = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = std::sync::Arc::clone(&panics);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        seen.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        previous(info);
    }));
    panics
}

/// [`send_mutated`] with up to 4,000 messages in `time`, then panics (failing the test) unless
/// at least 100 went and no thread panicked meanwhile.
pub fn hammer(
    addr: std::net::SocketAddr,
    valid: &[Vec<u8>],
    seed: u64,
    time: std::time::Duration,
    panics: &std::sync::atomic::AtomicUsize,
) {
    let before = panics.load(std::sync::atomic::Ordering::Acquire);
    let sent = send_mutated(addr, valid, &mut Rng(seed), 4_000, time);
    assert!(sent >= 100, "only {sent} messages in the time allowed");
    assert_eq!(
        panics.load(std::sync::atomic::Ordering::Acquire),
        before,
        "a connection thread panicked"
    );
}
