//! Vetoes every put that writes the refused value (`refuse=...`, "bad" unless given).

use basalt_coprocessor_sdk::{Args, Coprocessor, Put, export};

struct NoBadValues {
    refused: Vec<u8>,
}

impl Coprocessor for NoBadValues {
    fn init(args: &Args) -> Result<Self, String> {
        Ok(NoBadValues {
            refused: args.get("refuse").unwrap_or("bad").as_bytes().to_vec(),
        })
    }

    fn pre_put(&self, put: &mut Put) -> Result<(), String> {
        if put.cells.iter().any(|c| c.value == self.refused) {
            return Err(format!(
                "value {} is refused by no-bad-values",
                String::from_utf8_lossy(&self.refused)
            ));
        }
        Ok(())
    }
}

export!(NoBadValues, [pre_put]);
