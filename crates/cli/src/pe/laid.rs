//! `basalt pe --key-layout TEXT`: the benchmarks through `LayoutClient` (issue 34), on a table
//! created with that key layout (`SALT BUCKETS=16`, ...) or, with `NONE`, a plain one, so a
//! layout and no layout are measured through the same client path. Embedded, or with `--rpc`
//! or `--zookeeper` against a server or cluster.

use basalt_embedded::prelude::*;
use std::sync::Arc;

use anyhow::{Context, Result};
use basalt_embedded::{
    BatchOp, Bytes, Client, DataClient, Durability, Get, LayoutClient, TableDescriptor, TableName,
};

use super::{Args, Backend, RowSpec, put_of};

pub struct Laid {
    client: Arc<LayoutClient>,
    table: TableName,
    durability: Durability,
}

impl Laid {
    /// Creates the table (with the layout, which pre-splits it; or plain, pre-split as
    /// `--presplit` asks) if it is missing.
    pub fn open(
        args: &Args,
        inner: Arc<dyn Client>,
        layout: &str,
        mut descriptor: TableDescriptor,
        splits: &[Bytes],
    ) -> Result<Laid> {
        let durability = args.durability()?;
        let client = Arc::new(LayoutClient::new(inner));
        let table = descriptor.name.clone();
        if !client.table_exists(&table)? {
            let splits = if layout.eq_ignore_ascii_case("NONE") {
                splits.to_vec()
            } else {
                let parsed = basalt_common::key_layout::KeyLayout::parse(layout)
                    .with_context(|| format!("--key-layout {layout}"))?;
                descriptor.metadata.insert(
                    basalt_common::key_layout::METADATA_KEY.into(),
                    parsed.text(),
                );
                Vec::new()
            };
            client
                .create_table(descriptor, &splits)
                .context("creating the benchmark table")?;
        }
        Ok(Laid {
            client,
            table,
            durability,
        })
    }
}

impl Backend for Laid {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        if let [one] = rows {
            return Ok(self
                .client
                .put(&self.table, &put_of(one, self.durability))?);
        }
        let ops: Vec<BatchOp> = rows
            .iter()
            .map(|r| BatchOp::Put(put_of(r, self.durability)))
            .collect();
        for r in self.client.batch(&self.table, &ops) {
            r?;
        }
        Ok(())
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        Ok(self
            .client
            .get(&self.table, &Get::new(Bytes::copy_from_slice(row)))?
            .len())
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        let scan = super::range_scan(start, rows);
        let mut n = 0;
        for r in Arc::clone(&self.client).scan(&self.table, &scan)? {
            r?;
            n += 1;
        }
        Ok(n)
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<i64> {
        Ok(self
            .client
            .increment_column_value(&self.table, row, family, qualifier, 1)?)
    }
}
