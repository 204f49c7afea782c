//! `basalt hfile`: HBase's `hbase hfile` for Basalt store files.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use basalt_common::Cell;
use basalt_common::bytes_display::to_string_binary;
use basalt_storefile::{FileBloom, StoreFileReader};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print the trailer and the file info (HBase: -m).
    #[arg(short = 'm', long = "printmeta")]
    pub meta: bool,
    /// Print statistics: cells, rows, sizes (HBase: -s).
    #[arg(short = 's', long = "stats")]
    pub stats: bool,
    /// Print the block index (HBase: -b).
    #[arg(short = 'b', long = "printblocks")]
    pub blocks: bool,
    /// Print every cell (HBase: -p).
    #[arg(short = 'p', long = "printkv")]
    pub cells: bool,
    /// The store file.
    pub path: PathBuf,
    /// The file is a pointer into this object store (`--object-store` of the server)
    #[command(flatten)]
    pub storage: crate::storage::StorageArgs,
}

/// A row as it is: `hbase:meta`'s store files hold their rows under meta's stored keys
/// (docs/design/catalog.md), which are decoded to be shown.
fn shown_row(row: &[u8], meta: bool) -> String {
    match meta.then(|| basalt_common::meta_key::decode(row)) {
        Some(Ok(decoded)) => to_string_binary(&decoded),
        _ => to_string_binary(row),
    }
}

/// Whether `path` is a store file of `hbase:meta` (`.../data/hbase/meta/...`).
fn is_meta_file(path: &std::path::Path) -> bool {
    let parts: Vec<_> = path.components().map(|c| c.as_os_str()).collect();
    parts
        .windows(3)
        .any(|w| w[0] == "data" && w[1] == "hbase" && w[2] == "meta")
}

fn key(cell: &Cell, meta: bool) -> String {
    format!(
        "{}/{}:{}/{}/{}/seqid={}",
        shown_row(cell.row(), meta),
        to_string_binary(cell.family()),
        to_string_binary(cell.qualifier()),
        cell.timestamp,
        cell.cell_type,
        cell.seq_id
    )
}

/// Prints what `args` asks for about one store file. With no option it prints the summary
/// (`-m`), as a bare `hbase hfile FILE` prints at least that much.
pub fn run(args: &Args, out: &mut impl Write) -> Result<()> {
    let catalog = is_meta_file(&args.path);
    let fs = args.storage.file_system()?;
    let reader = StoreFileReader::open(fs.as_ref(), &args.path)
        .with_context(|| format!("cannot read store file {}", args.path.display()))?;
    let meta = args.meta || !(args.stats || args.blocks || args.cells);
    if meta {
        let t = reader.trailer();
        let info = reader.info();
        writeln!(out, "Trailer:")?;
        writeln!(out, "    version={}.{}", t.major_version, t.minor_version)?;
        writeln!(
            out,
            "    rootIndexOffset={}, rootIndexSize={}, indexLevels={}",
            t.root_index_offset, t.root_index_size, t.index_levels
        )?;
        writeln!(
            out,
            "    bloomOffset={}, bloomSize={}",
            t.bloom_offset, t.bloom_size
        )?;
        writeln!(
            out,
            "    fileInfoOffset={}, fileInfoSize={}",
            t.file_info_offset, t.file_info_size
        )?;
        writeln!(out, "    entryCount={}", t.cell_count)?;
        writeln!(out, "Fileinfo:")?;
        writeln!(out, "    FAMILY = {}", to_string_binary(&info.family))?;
        writeln!(out, "    FIRST_KEY = {}", key(&info.first_key, catalog))?;
        writeln!(out, "    LAST_KEY = {}", key(&info.last_key, catalog))?;
        writeln!(out, "    MIN_TIMESTAMP = {}", info.min_timestamp)?;
        writeln!(out, "    MAX_TIMESTAMP = {}", info.max_timestamp)?;
        writeln!(out, "    MAX_SEQ_ID = {}", info.max_seq_id)?;
        writeln!(out, "    CELL_COUNT = {}", info.cell_count)?;
        writeln!(out, "    DELETE_COUNT = {}", info.delete_count)?;
        writeln!(
            out,
            "    DELETE_FAMILY_COUNT = {}",
            info.delete_family_count
        )?;
        writeln!(out, "    COMPRESSION = {}", info.compression)?;
        writeln!(out, "    BLOOM_TYPE = {}", info.bloom_type)?;
        writeln!(out, "    DATA_BLOCK_COUNT = {}", info.data_block_count)?;
        match reader.bloom() {
            Some(FileBloom::Whole(b)) => writeln!(
                out,
                "Bloom filter:\n    type={}, bits={}, hashes={}",
                b.kind(),
                b.bit_count(),
                b.hash_count()
            )?,
            Some(FileBloom::Chunked(index)) => writeln!(
                out,
                "Bloom filter:\n    type={}, chunks={}",
                index.kind(),
                index.chunk_count()
            )?,
            None => writeln!(out, "Bloom filter:\n    none")?,
        }
        let (index, bloom) = (reader.index_bytes(), reader.bloom_bytes());
        writeln!(
            out,
            "Resident while open:\n    index={index} bytes{}, bloom={bloom} bytes ({:.1} MiB per GB of file)",
            if reader.partitioned() {
                " (the top level: leaf blocks come through the block cache)"
            } else {
                ""
            },
            (index + bloom) as f64 / (1u64 << 20) as f64 * 1e9 / reader.file_size().max(1) as f64
        )?;
        let (index, bloom) = reader.meta_bytes_on_disk()?;
        writeln!(
            out,
            "On disk:\n    index={index} bytes, bloom={bloom} bytes, file={} bytes",
            reader.file_size()
        )?;
    }
    if args.blocks {
        let blocks = reader.block_refs()?;
        writeln!(out, "Block index ({} data blocks):", blocks.len())?;
        for (i, b) in blocks.iter().enumerate() {
            writeln!(
                out,
                "    block {i}: offset={}, size={}, firstKey={}",
                b.offset,
                b.size,
                key(&b.first, catalog)
            )?;
        }
    }
    if args.cells || args.stats {
        let mut scanner = reader.scanner();
        scanner.seek(&Cell::first_on_row(b""))?;
        let (mut cells, mut rows, mut key_bytes, mut value_bytes, mut max_row) =
            (0u64, 0u64, 0u64, 0u64, 0usize);
        let mut last_row: Option<Vec<u8>> = None;
        while let Some(c) = scanner.current() {
            if args.cells {
                writeln!(
                    out,
                    "K: {} V: {}",
                    key(c, catalog),
                    to_string_binary(c.value())
                )?;
            }
            cells += 1;
            key_bytes += (c.row().len() + c.family().len() + c.qualifier().len() + 12) as u64;
            value_bytes += c.value().len() as u64;
            if last_row.as_deref() != Some(c.row()) {
                rows += 1;
                max_row = max_row.max(c.row().len());
                last_row = Some(c.row().to_vec());
            }
            scanner.advance()?;
        }
        if args.stats {
            let file_len = std::fs::metadata(&args.path)?.len();
            writeln!(out, "Stats:")?;
            writeln!(
                out,
                "    cells={cells}, rows={rows}, longest row={max_row} bytes"
            )?;
            writeln!(
                out,
                "    key bytes={key_bytes}, value bytes={value_bytes}, file bytes={file_len}"
            )?;
            if key_bytes + value_bytes > 0 {
                writeln!(
                    out,
                    "    file size / raw key-value bytes = {:.3}",
                    file_len as f64 / (key_bytes + value_bytes) as f64
                )?;
            }
        }
    }
    Ok(())
}
