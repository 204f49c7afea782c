//! The RPC frame decoders on random and mutated input, as the `rpc_frame` fuzz target feeds
//! them: an error or a value, never a panic (bounded: a fixed number of seeded inputs).

use basalt_rpc::frame::{
    encode_call, encode_connection_start, read_call, read_connection_header, read_preamble,
};
use basalt_rpc::pb::{ConnectionHeader, Get, GetRequest};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Feeds `check` 20,000 copies of `valid` with one to four bytes changed, each whole and
/// cut at a random length.
fn mutate(valid: &[u8], rng: &mut Rng, mut check: impl FnMut(&[u8])) {
    for _ in 0..20_000 {
        let mut m = valid.to_vec();
        for _ in 0..1 + rng.next() % 4 {
            let i = (rng.next() as usize) % m.len();
            m[i] = rng.next() as u8;
        }
        let cut = (rng.next() as usize) % (m.len() + 1);
        check(&m[..cut]);
        check(&m);
    }
}

fn decode(bytes: &[u8]) {
    let mut input = bytes;
    let _ = read_preamble(&mut input);
    let _ = read_connection_header(&mut input, 1 << 16);
    for _ in 0..4 {
        if read_call(&mut input, 1 << 16).is_err() {
            break;
        }
    }
}

#[test]
fn random_and_mutated_frames_never_panic() {
    let mut rng = Rng(0xfeed);
    let mut valid = encode_connection_start(&ConnectionHeader {
        service_name: Some("ClientService".into()),
        ..ConnectionHeader::default()
    });
    valid.extend(encode_call(
        1,
        "Get",
        &GetRequest {
            get: Get {
                row: b"row".to_vec(),
                ..Get::default()
            },
            ..GetRequest::default()
        },
    ));
    mutate(&valid, &mut rng, decode);
    for _ in 0..20_000 {
        let len = (rng.next() % 64) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        decode(&bytes);
    }
}

#[test]
fn random_and_mutated_cell_blocks_never_panic() {
    use basalt_embedded::Bytes;
    use basalt_rpc::cellblock::{KeyValue, decode, encode};
    let cell = |row: &'static [u8], value: &'static [u8]| KeyValue {
        row: Bytes::from_static(row),
        family: Bytes::from_static(b"f"),
        qualifier: Bytes::from_static(b"q"),
        timestamp: 7,
        kind: 4,
        value: Bytes::from_static(value),
    };
    let cells = vec![cell(b"a", b"1"), cell(b"bb", b""), cell(b"", b"value")];
    let valid = encode(&cells);
    assert_eq!(
        decode(&Bytes::from(valid.clone())).unwrap_or_default(),
        cells
    );
    mutate(&valid, &mut Rng(0xce11), |m| {
        let _ = decode(&Bytes::copy_from_slice(m));
    });
}
