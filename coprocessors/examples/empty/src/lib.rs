//! Every hook of a get and a put, each doing nothing: what attaching an observer costs.

use basalt_coprocessor_sdk::{Args, Coprocessor, export};

struct Empty;

impl Coprocessor for Empty {
    fn init(_args: &Args) -> Result<Self, String> {
        Ok(Empty)
    }
}

export!(Empty, [pre_get, post_get, pre_put, post_put]);
