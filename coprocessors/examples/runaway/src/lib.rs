//! Misbehaves on every Get and Put, as `mode=` says: `loop` runs forever, `alloc` allocates
//! without bound, `trap` hits an unreachable instruction. What the server's limits are for.

use basalt_coprocessor_sdk::{Args, Coprocessor, Get, Put, Row, export};

enum Mode {
    Loop,
    Alloc,
    Trap,
}

struct Runaway {
    mode: Mode,
}

impl Runaway {
    fn misbehave(&self) -> Result<(), String> {
        match self.mode {
            Mode::Loop => {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }
            Mode::Alloc => {
                let mut hoard: Vec<Vec<u8>> = Vec::new();
                loop {
                    hoard.push(std::hint::black_box(vec![1u8; 1 << 20]));
                }
            }
            Mode::Trap => std::process::abort(),
        }
    }
}

impl Coprocessor for Runaway {
    fn init(args: &Args) -> Result<Self, String> {
        let mode = match args.require("mode")? {
            "loop" => Mode::Loop,
            "alloc" => Mode::Alloc,
            "trap" => Mode::Trap,
            other => return Err(format!("mode={other}: loop, alloc or trap")),
        };
        Ok(Runaway { mode })
    }

    fn pre_get(&self, _get: &Get) -> Result<Option<Row>, String> {
        self.misbehave().map(|()| None)
    }

    fn pre_put(&self, _put: &mut Put) -> Result<(), String> {
        self.misbehave()
    }
}

export!(Runaway, [pre_get, pre_put]);
