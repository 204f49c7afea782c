//! The Thrift decoders on random and mutated input, as the `thrift_message` fuzz target feeds
//! them: an error or a message, never a panic (bounded: a fixed number of seeded inputs).

use basalt_thrift::protocol::{CALL, Protocol, Reader, TType, Writer};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn decode(bytes: &[u8]) {
    for protocol in [Protocol::Binary, Protocol::Compact] {
        let mut r = Reader::new(bytes, protocol, 1 << 16);
        if r.message_begin().is_ok() {
            let _ = r.read_struct();
        }
        // The skipping reader (what the benchmark client reads replies with).
        let mut r = Reader::new(bytes, protocol, 1 << 16);
        if r.message_begin().is_ok() {
            let _ = r.skip(TType::Struct);
        }
    }
}

#[test]
fn random_and_mutated_messages_never_panic() {
    let mut rng = Rng(0x5eed);
    for protocol in [Protocol::Binary, Protocol::Compact] {
        let mut w = Writer::new(protocol);
        w.message_begin("getRowWithColumns", CALL, 3);
        w.struct_begin();
        w.field(1, TType::String);
        w.binary(b"table");
        w.field(3, TType::List);
        w.list_begin(TType::String, 2);
        w.binary(b"cf:a");
        w.binary(b"cf");
        w.field(4, TType::Map);
        w.map_begin(TType::String, TType::String, 1);
        w.binary(b"k");
        w.binary(b"v");
        w.struct_end();
        let valid = w.buf;
        for _ in 0..20_000 {
            let mut m = valid.clone();
            for _ in 0..1 + rng.next() % 4 {
                let i = (rng.next() as usize) % m.len();
                m[i] = rng.next() as u8;
            }
            let cut = (rng.next() as usize) % (m.len() + 1);
            decode(&m[..cut]);
            decode(&m);
        }
    }
    for _ in 0..20_000 {
        let len = (rng.next() % 64) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        decode(&bytes);
    }
}
