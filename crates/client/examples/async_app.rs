//! An async application on tokio that only talks to a running Basalt (or HBase) server, with
//! `basalt-client` alone: 100 tasks write a row each over one shared connection (their
//! requests in flight together), then a scan streams the rows back.
//!
//! `cargo run -p basalt-client --example async_app -- 127.0.0.1:16020 TABLE` (the table must
//! exist with a family `cf`; `basalt standalone --rpc-port 16020` serves one).

use basalt_client::remote::{AsyncConnection, RemoteConfig};
use basalt_client::{Bytes, Error, Put, Result, Scan};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args
        .next()
        .unwrap_or_else(|| "127.0.0.1:16020".into())
        .parse()
        .map_err(|e| Error::InvalidArgument(format!("the server's address: {e}")))?;
    let table = args.next().unwrap_or_else(|| "t".into());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::storage(format!("starting tokio: {e}")))?;
    runtime.block_on(async {
        let conn = AsyncConnection::connect(addr, RemoteConfig::default()).await?;
        let t = conn.table(&table)?;
        let mut writers = tokio::task::JoinSet::new();
        for i in 0..100 {
            let t = t.clone();
            writers.spawn(async move {
                let put = Put::new(format!("async-{i:03}")).add_column("cf", "q", i.to_string());
                t.put(&put).await
            });
        }
        while let Some(done) = writers.join_next().await {
            done.map_err(|e| Error::storage(format!("a task failed: {e}")))??;
        }
        let scan = Scan::new()
            .with_start_row(Bytes::from_static(b"async-"))
            .with_stop_row(Bytes::from_static(b"async."));
        let mut rows = t.scanner(&scan).await?;
        let mut n = 0;
        while let Some(row) = rows.next_row().await {
            row?;
            n += 1;
        }
        println!("wrote 100 rows from 100 tasks, scanned back {n}");
        Ok(())
    })
}
