//! An application that only talks to a running Basalt (or HBase) server: it depends on
//! `basalt-client` alone, which holds no engine. It writes one row and reads it back.
//!
//! `cargo run -p basalt-client --example remote_app -- 127.0.0.1:16020 TABLE` (the table must
//! exist with a family `cf`; `basalt standalone --rpc-port 16020` serves one).

use basalt_client::remote::{RemoteConfig, RemoteConnection};
use basalt_client::{Get, Put, Result};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args
        .next()
        .unwrap_or_else(|| "127.0.0.1:16020".into())
        .parse()
        .map_err(|e| basalt_client::Error::InvalidArgument(format!("the server's address: {e}")))?;
    let table = args.next().unwrap_or_else(|| "t".into());
    let conn = RemoteConnection::connect(addr, RemoteConfig::default())?;
    let t = conn.table(&table)?;
    t.put(&Put::new("hello").add_column("cf", "q", "world"))?;
    let row = t.get(&Get::new("hello"))?;
    let value = row
        .value(b"cf", b"q")
        .map(|v| String::from_utf8_lossy(v).into_owned());
    println!("hello => {}", value.unwrap_or_default());
    Ok(())
}
