//! `basalt pe --rpc HOST:PORT`: the same benchmarks over HBase's native RPC, one connection
//! per client thread, rows routed to regions found in `hbase:meta`.

use std::cell::RefCell;
use std::net::SocketAddr;

use anyhow::{Context, Result, bail};
use basalt_rpc::client::{Location, RpcClient, locate, region};
use basalt_rpc::pb::{
    self, BytesBytesPair, ColumnFamilySchema, CreateTableRequest, Get, GetRequest, GetResponse,
    GetTableDescriptorsRequest, GetTableDescriptorsResponse, MutateRequest, MutateResponse,
    MutationProto, ProcedureResponse, Scan, ScanRequest, ScanResponse, TableSchema, mutation_proto,
};

use super::{Args, Backend, RowSpec, table_name};

pub struct Native {
    addr: SocketAddr,
    regions: Vec<Location>,
    durability: mutation_proto::Durability,
}

thread_local! {
    static CLIENT: RefCell<Option<RpcClient>> = const { RefCell::new(None) };
}

impl Native {
    /// Connects, creates the benchmark table over MasterService if missing, reads its regions.
    pub fn open(args: &Args, addr: SocketAddr, families: &[Vec<u8>]) -> Result<Native> {
        if args.presplit > 1 {
            bail!("--presplit needs the embedded engine");
        }
        use mutation_proto::Durability as D;
        let durability = match args.durability.to_ascii_uppercase().as_str() {
            "SKIP_WAL" => D::SkipWal,
            "ASYNC_WAL" => D::AsyncWal,
            "SYNC_WAL" => D::SyncWal,
            "FSYNC_WAL" => D::FsyncWal,
            "USE_DEFAULT" => D::UseDefault,
            other => bail!("--durability {other}"),
        };
        let table = table_name(args);
        let (ns, qualifier) = match table.split_once(':') {
            Some((ns, q)) => (ns.to_owned(), q.to_owned()),
            None => ("default".to_owned(), table.clone()),
        };
        let name = pb::TableName {
            namespace: ns.into_bytes(),
            qualifier: qualifier.into_bytes(),
        };
        let mut master = RpcClient::connect(addr, "MasterService")
            .with_context(|| format!("connecting to {addr}"))?;
        let existing: GetTableDescriptorsResponse = master.call(
            "GetTableDescriptors",
            &GetTableDescriptorsRequest {
                table_names: vec![name.clone()],
                ..GetTableDescriptorsRequest::default()
            },
        )?;
        if existing.table_schema.is_empty() {
            let column_families = families
                .iter()
                .map(|f| ColumnFamilySchema {
                    name: f.clone(),
                    attributes: vec![
                        BytesBytesPair {
                            first: b"VERSIONS".to_vec(),
                            second: b"1".to_vec(),
                        },
                        BytesBytesPair {
                            first: b"COMPRESSION".to_vec(),
                            second: args.compression.clone().into_bytes(),
                        },
                    ],
                    configuration: vec![],
                })
                .collect();
            let _: ProcedureResponse = master
                .call(
                    "CreateTable",
                    &CreateTableRequest {
                        table_schema: TableSchema {
                            table_name: Some(name),
                            column_families,
                            ..TableSchema::default()
                        },
                        ..CreateTableRequest::default()
                    },
                )
                .context("creating the benchmark table over RPC")?;
        }
        let mut client = RpcClient::connect(addr, "ClientService")?;
        let regions = client.regions(&table)?;
        if regions.is_empty() {
            bail!("no regions of {table} in hbase:meta");
        }
        Ok(Native {
            addr,
            regions,
            durability,
        })
    }

    fn with<T>(&self, f: impl FnOnce(&mut RpcClient) -> Result<T>) -> Result<T> {
        CLIENT.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.is_none() {
                *slot = Some(RpcClient::connect(self.addr, "ClientService")?);
            }
            let Some(c) = slot.as_mut() else {
                bail!("no connection");
            };
            let out = f(c);
            if out.is_err() {
                *slot = None;
            }
            out
        })
    }

    fn region_of(&self, row: &[u8]) -> Result<&Location> {
        locate(&self.regions, row).context("no region holds the row")
    }
}

impl Backend for Native {
    fn put(&self, rows: &[RowSpec]) -> Result<()> {
        use mutation_proto::column_value::QualifierValue;
        self.with(|c| {
            for (row, cells) in rows {
                let mut column_value: Vec<mutation_proto::ColumnValue> = Vec::new();
                for (f, q, v) in cells {
                    let qv = QualifierValue {
                        qualifier: Some(q.to_vec()),
                        value: Some(v.to_vec()),
                        ..QualifierValue::default()
                    };
                    match column_value.iter_mut().find(|cv| cv.family[..] == f[..]) {
                        Some(cv) => cv.qualifier_value.push(qv),
                        None => column_value.push(mutation_proto::ColumnValue {
                            family: f.to_vec(),
                            qualifier_value: vec![qv],
                        }),
                    }
                }
                let _: MutateResponse = c.call(
                    "Mutate",
                    &MutateRequest {
                        region: region(&self.region_of(row)?.name),
                        mutation: MutationProto {
                            row: Some(row.to_vec()),
                            mutate_type: Some(mutation_proto::MutationType::Put as i32),
                            column_value,
                            durability: Some(self.durability as i32),
                            ..MutationProto::default()
                        },
                        ..MutateRequest::default()
                    },
                )?;
            }
            Ok(())
        })
    }

    fn get(&self, row: &[u8]) -> Result<usize> {
        self.with(|c| {
            let r: GetResponse = c.call(
                "Get",
                &GetRequest {
                    region: region(&self.region_of(row)?.name),
                    get: Get {
                        row: row.to_vec(),
                        ..Get::default()
                    },
                },
            )?;
            Ok(r.result.map_or(0, |r| r.cell.len()))
        })
    }

    fn scan(&self, start: &[u8], rows: usize) -> Result<usize> {
        self.with(|c| {
            let r: ScanResponse = c.call(
                "Scan",
                &ScanRequest {
                    region: Some(region(&self.region_of(start)?.name)),
                    scan: Some(Scan {
                        start_row: Some(start.to_vec()),
                        caching: Some(u32::try_from(rows).unwrap_or(u32::MAX)),
                        ..Scan::default()
                    }),
                    number_of_rows: Some(u32::try_from(rows).unwrap_or(u32::MAX)),
                    close_scanner: Some(true),
                    ..ScanRequest::default()
                },
            )?;
            Ok(r.results.len())
        })
    }

    fn increment(&self, row: &[u8], family: &[u8], qualifier: &[u8]) -> Result<i64> {
        use mutation_proto::column_value::QualifierValue;
        self.with(|c| {
            let r: MutateResponse = c.call(
                "Mutate",
                &MutateRequest {
                    region: region(&self.region_of(row)?.name),
                    mutation: MutationProto {
                        row: Some(row.to_vec()),
                        mutate_type: Some(mutation_proto::MutationType::Increment as i32),
                        column_value: vec![mutation_proto::ColumnValue {
                            family: family.to_vec(),
                            qualifier_value: vec![QualifierValue {
                                qualifier: Some(qualifier.to_vec()),
                                value: Some(1i64.to_be_bytes().to_vec()),
                                ..QualifierValue::default()
                            }],
                        }],
                        ..MutationProto::default()
                    },
                    ..MutateRequest::default()
                },
            )?;
            let cell = r
                .result
                .and_then(|r| r.cell.into_iter().next())
                .and_then(|c| c.value)
                .unwrap_or_default();
            Ok(i64::from_be_bytes(cell.try_into().unwrap_or([0; 8])))
        })
    }
}
