//! Writing a store file: cells in store order in, a finished, renamed, synced file out.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use basalt_common::{BloomType, Bytes, Cell, ColumnFamilyDescriptor, Compression};
use basalt_fs::{FileSystem, WritableFile};

use crate::block::{self, BlockKind, Codec};
use crate::bloom::{BloomBuilder, BloomIndex, MAX_BLOOM_CHUNK};
use crate::data_block::DataBlockBuilder;
use crate::error::{Result, StoreFileError};
use crate::index::{self, IndexEntry, MAX_INDEX_BLOCK};
use crate::info::FileInfo;
use crate::key::{Step, encode_index_key, row_index_key};
use crate::trailer::{MAJOR_VERSION, MINOR_VERSION, Trailer};

/// How to write a store file; usually [`WriterOptions::for_family`].
#[derive(Debug, Clone)]
pub struct WriterOptions {
    pub family: Bytes,
    /// A data block is closed once its cells reach this many bytes.
    pub block_size: usize,
    pub compression: Compression,
    pub bloom: BloomType,
    /// The prefix length of a ROWPREFIX_FIXED_LENGTH bloom (from the family's CONFIGURATION).
    pub bloom_prefix_len: usize,
    /// Largest index block before the index gains a level.
    pub max_index_block: usize,
    /// Largest bloom chunk, in bytes of bits, before the filter is cut into chunks.
    pub max_bloom_chunk: usize,
    /// For a compaction's output: the names of the files it replaces.
    pub compacted_from: Vec<String>,
}

impl WriterOptions {
    /// The family's BLOCKSIZE, COMPRESSION and BLOOMFILTER.
    pub fn for_family(family: &ColumnFamilyDescriptor) -> Self {
        WriterOptions {
            family: family.name.clone(),
            block_size: family.block_size as usize,
            compression: family.compression,
            bloom: family.bloom_filter,
            bloom_prefix_len: family
                .configuration
                .get(basalt_common::family_descriptor::ROW_PREFIX_BLOOM_LENGTH_KEY)
                .and_then(|l| l.parse().ok())
                .unwrap_or(0),
            max_index_block: MAX_INDEX_BLOCK,
            max_bloom_chunk: MAX_BLOOM_CHUNK,
            compacted_from: Vec::new(),
        }
    }
}

/// The temporary name a store file is written under before it is renamed into place.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".tmp");
    path.with_file_name(name)
}

/// The cell-by-cell half of writing a store file: data blocks and their index entries, bloom
/// keys and the file's statistics. Blocks go to the caller's sink; offsets count from the
/// encoder's first block.
struct DataEncoder {
    path: PathBuf,
    opts: WriterOptions,
    codec: Codec,
    block: DataBlockBuilder,
    block_first_key: Vec<u8>,
    /// Bytes of framed blocks handed to the sink so far.
    written: u64,
    index: Vec<IndexEntry>,
    bloom: Option<BloomBuilder>,
    first: Option<Cell>,
    min_timestamp: i64,
    max_timestamp: i64,
    max_seq_id: u64,
    cell_count: u64,
    delete_count: u64,
    delete_family_count: u64,
}

impl DataEncoder {
    fn new(path: &Path, opts: &WriterOptions, codec: Codec) -> Self {
        DataEncoder {
            path: path.to_owned(),
            opts: opts.clone(),
            codec,
            block: DataBlockBuilder::default(),
            block_first_key: Vec::new(),
            written: 0,
            index: Vec::new(),
            bloom: BloomBuilder::new(opts.bloom, opts.bloom_prefix_len, opts.max_bloom_chunk),
            first: None,
            min_timestamp: i64::MAX,
            max_timestamp: i64::MIN,
            max_seq_id: 0,
            cell_count: 0,
            delete_count: 0,
            delete_family_count: 0,
        }
    }

    fn invalid(&self, reason: String) -> StoreFileError {
        StoreFileError::InvalidWrite {
            path: self.path.clone(),
            reason,
        }
    }

    /// An empty encoder with the same options.
    fn fresh(&self) -> DataEncoder {
        DataEncoder::new(&self.path, &self.opts, self.codec)
    }

    /// Adds the next cell; a block that reaches the block size goes to `sink`.
    fn append(&mut self, cell: &Cell, sink: &mut impl FnMut(Vec<u8>) -> Result<()>) -> Result<()> {
        if cell.family() != &self.opts.family[..] {
            return Err(self.invalid(format!(
                "cell {cell} is not of family {:?}",
                String::from_utf8_lossy(&self.opts.family)
            )));
        }
        if cell.is_last_on_row()
            || !(cell.cell_type == basalt_common::CellType::Put || cell.cell_type.is_delete())
        {
            return Err(self.invalid(format!("cell {cell} is a seek key, not a stored cell")));
        }
        // A full block closes where the next row starts, or mid-row at twice the block size:
        // a row smaller than a block is read from one block.
        let (size, block_size) = (self.block.size(), self.opts.block_size);
        if size >= block_size
            && (size >= 2 * block_size || self.block.step_after(cell) == Step::NewRow)
        {
            self.flush_block(sink)?;
        }
        let starts_block = self.block.is_empty();
        let step = self.block.add(cell);
        if step == Step::NotAfter {
            return Err(self.out_of_order(cell));
        }
        if starts_block {
            self.block_first_key = if step == Step::NewRow {
                row_index_key(cell)
            } else {
                encode_index_key(cell)
            };
        }
        if let Some(bloom) = &mut self.bloom {
            bloom.add(cell, step);
        }
        self.min_timestamp = self.min_timestamp.min(cell.timestamp);
        self.max_timestamp = self.max_timestamp.max(cell.timestamp);
        self.max_seq_id = self.max_seq_id.max(cell.seq_id);
        self.cell_count += 1;
        if cell.cell_type.is_delete() {
            self.delete_count += 1;
        }
        if cell.cell_type.is_family_delete() {
            self.delete_family_count += 1;
        }
        if self.first.is_none() {
            self.first = Some(cell.clone());
        }
        Ok(())
    }

    fn out_of_order(&self, cell: &Cell) -> StoreFileError {
        match self.block.last_cell() {
            Some(last) => self.invalid(format!("cells out of order: {cell} after {last}")),
            None => self.invalid(format!("cell {cell} does not follow the cells before it")),
        }
    }

    /// Fails unless `next` (if any), the first cell of a part, starts a row after every cell
    /// added so far: a part's first record is marked as its row's first.
    fn check_starts_row(&self, next: Option<&Cell>) -> Result<()> {
        match next.map(|c| (c, self.block.step_after(c))) {
            Some((next, Step::NotAfter)) => Err(self.out_of_order(next)),
            Some((next, Step::NewColumn | Step::SameColumn)) => Err(self.invalid(format!(
                "a part starts with {next}, inside the row of the cells before it"
            ))),
            _ => Ok(()),
        }
    }

    /// Hands a framed block to `sink`; returns its offset and size.
    fn emit(
        &mut self,
        framed: std::io::Result<Vec<u8>>,
        sink: &mut impl FnMut(Vec<u8>) -> Result<()>,
    ) -> Result<(u64, u64)> {
        let framed = framed.map_err(|e| self.invalid(format!("encoding a block: {e}")))?;
        let size = framed.len() as u64;
        sink(framed)?;
        let at = self.written;
        self.written += size;
        Ok((at, size))
    }

    /// Closes the open data block, if it holds any cell.
    fn flush_block(&mut self, sink: &mut impl FnMut(Vec<u8>) -> Result<()>) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let framed = self.block.finish(self.codec);
        let (offset, size) = self.emit(framed, sink)?;
        let key = std::mem::take(&mut self.block_first_key);
        self.index.push(IndexEntry { key, offset, size });
        Ok(())
    }

    /// Takes in `later`, whose blocks were just handed to the sink after this encoder's (the
    /// caller checked with [`DataEncoder::check_follows`] that its cells follow): its index
    /// entries move by this encoder's length, and its statistics join these. Both have
    /// closed their open blocks.
    fn absorb(&mut self, mut later: DataEncoder) {
        self.block.continue_after(&mut later.block);
        let base = self.written;
        self.index
            .extend(later.index.into_iter().map(|e| IndexEntry {
                offset: e.offset + base,
                ..e
            }));
        self.written += later.written;
        if let (Some(bloom), Some(more)) = (&mut self.bloom, later.bloom) {
            bloom.append(more);
        }
        if self.first.is_none() {
            self.first = later.first;
        }
        self.min_timestamp = self.min_timestamp.min(later.min_timestamp);
        self.max_timestamp = self.max_timestamp.max(later.max_timestamp);
        self.max_seq_id = self.max_seq_id.max(later.max_seq_id);
        self.cell_count += later.cell_count;
        self.delete_count += later.delete_count;
        self.delete_family_count += later.delete_family_count;
    }
}

/// A sink that keeps blocks in memory, each in the buffer it was framed in.
fn into_memory(blocks: &mut Vec<Vec<u8>>) -> impl FnMut(Vec<u8>) -> Result<()> + '_ {
    |framed: Vec<u8>| {
        blocks.push(framed);
        Ok(())
    }
}

/// A sink that appends blocks to the file.
fn into_file(out: &mut Box<dyn WritableFile>) -> impl FnMut(Vec<u8>) -> Result<()> + '_ {
    |framed: Vec<u8>| Ok(out.append(&framed)?)
}

/// A stretch of a store file's cells encoded apart from the file, on another thread: its
/// data blocks are kept in memory until [`StoreFileWriter::append_part`] writes them after
/// the writer's own. A flush encodes consecutive key ranges of a large memstore this way on
/// several cores at once.
pub struct StoreFilePart {
    encoder: DataEncoder,
    /// Framed data blocks, in order.
    blocks: Vec<Vec<u8>>,
}

impl std::fmt::Debug for StoreFilePart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreFilePart")
            .field("cells", &self.encoder.cell_count)
            .field("bytes", &self.encoder.written)
            .finish()
    }
}

impl StoreFilePart {
    fn empty(encoder: DataEncoder) -> StoreFilePart {
        StoreFilePart {
            encoder,
            blocks: Vec::new(),
        }
    }

    /// Adds the part's next cell: the same checks as [`StoreFileWriter::append`].
    pub fn append(&mut self, cell: &Cell) -> Result<()> {
        self.encoder
            .append(cell, &mut into_memory(&mut self.blocks))
    }

    /// An empty part for cells of the same file: the same options as this one.
    pub fn sibling(&self) -> StoreFilePart {
        StoreFilePart::empty(self.encoder.fresh())
    }
}

/// Writes one store file. Cells must come in strictly increasing store order, all of the
/// options' family. Nothing is visible under the final path until [`StoreFileWriter::finish`].
pub struct StoreFileWriter {
    fs: Arc<dyn FileSystem>,
    path: PathBuf,
    tmp_path: PathBuf,
    out: Box<dyn WritableFile>,
    /// Holds the writer's options, which also go into the file's index and info.
    encoder: DataEncoder,
}

impl std::fmt::Debug for StoreFileWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreFileWriter")
            .field("path", &self.path)
            .field("cells", &self.encoder.cell_count)
            .finish()
    }
}

impl StoreFileWriter {
    /// Starts `path`, writing under its temporary name.
    pub fn create(fs: Arc<dyn FileSystem>, path: &Path, opts: WriterOptions) -> Result<Self> {
        let invalid = |reason: String| StoreFileError::InvalidWrite {
            path: path.to_owned(),
            reason,
        };
        let codec = Codec::for_compression(opts.compression).ok_or_else(|| {
            invalid(format!(
                "compression {} is not supported; use NONE, GZ, SNAPPY, LZ4 or ZSTD",
                opts.compression
            ))
        })?;
        if opts.block_size == 0 {
            return Err(invalid("block size must be positive".into()));
        }
        let tmp_path = temporary_path(path);
        let out = fs.create_bulk(&tmp_path)?;
        Ok(StoreFileWriter {
            fs,
            path: path.to_owned(),
            tmp_path,
            out,
            encoder: DataEncoder::new(path, &opts, codec),
        })
    }

    fn invalid(&self, reason: String) -> StoreFileError {
        self.encoder.invalid(reason)
    }

    /// Adds the next cell.
    pub fn append(&mut self, cell: &Cell) -> Result<()> {
        self.encoder.append(cell, &mut into_file(&mut self.out))
    }

    /// An empty part for cells that will follow every cell appended here (see
    /// [`StoreFilePart`]).
    pub fn part(&self) -> StoreFilePart {
        StoreFilePart::empty(self.encoder.fresh())
    }

    /// Writes `part`'s blocks after this file's. Its cells must all follow the cells
    /// appended so far, from a new row on; the open data block is closed first (a part starts
    /// a block).
    pub fn append_part(&mut self, mut part: StoreFilePart) -> Result<()> {
        if part.encoder.cell_count == 0 {
            return Ok(());
        }
        part.encoder
            .flush_block(&mut into_memory(&mut part.blocks))?;
        self.encoder.flush_block(&mut into_file(&mut self.out))?;
        // Checked before a byte of the part is written.
        self.encoder.check_starts_row(part.encoder.first.as_ref())?;
        for block in &part.blocks {
            self.out.append(block)?;
        }
        self.encoder.absorb(part.encoder);
        Ok(())
    }

    fn write_block(&mut self, kind: BlockKind, codec: Codec, payload: &[u8]) -> Result<(u64, u64)> {
        self.encoder.emit(
            block::encode(kind, codec, payload),
            &mut into_file(&mut self.out),
        )
    }

    /// Writes the index, bloom, file info and trailer, syncs, renames the file into place and
    /// syncs its directory. Returns what the file says about itself.
    pub fn finish(mut self) -> Result<FileInfo> {
        self.encoder.flush_block(&mut into_file(&mut self.out))?;
        let e = &self.encoder;
        let (Some(first), Some(last)) = (e.first.clone(), e.block.last_cell()) else {
            return Err(self.invalid("a store file needs at least one cell".into()));
        };
        let (bloom_offset, bloom_size) = match e.bloom.as_ref().map(BloomBuilder::finish) {
            Some(chunks) if chunks.len() == 1 => {
                self.write_block(BlockKind::Bloom, Codec::None, &chunks[0].payload)?
            }
            // A chunked filter: its chunks, then the index over them that the trailer names.
            Some(chunks) => {
                let mut entries = Vec::with_capacity(chunks.len());
                for chunk in chunks {
                    let (offset, size) =
                        self.write_block(BlockKind::Bloom, Codec::None, &chunk.payload)?;
                    entries.push(IndexEntry {
                        key: chunk.first_key,
                        offset,
                        size,
                    });
                }
                let opts = &self.encoder.opts;
                let payload = BloomIndex::encode(opts.bloom, opts.bloom_prefix_len, &entries);
                self.write_block(BlockKind::BloomIndex, Codec::None, &payload)?
            }
            None => (0, 0),
        };
        let mut level = std::mem::take(&mut self.encoder.index);
        let data_block_count = level.len() as u64;
        let mut levels: u8 = 1;
        while !index::fits(&level, self.encoder.opts.max_index_block) {
            let mut upper = Vec::new();
            for run in index::split_level(&level, self.encoder.opts.max_index_block) {
                let (offset, size) =
                    self.write_block(BlockKind::LeafIndex, Codec::None, &index::encode(run))?;
                upper.push(IndexEntry {
                    key: run[0].key.clone(),
                    offset,
                    size,
                });
            }
            level = upper;
            levels = levels
                .checked_add(1)
                .ok_or_else(|| self.invalid("index too deep".into()))?;
        }
        let (root_offset, root_size) =
            self.write_block(BlockKind::RootIndex, Codec::None, &index::encode(&level))?;
        let e = &self.encoder;
        let info = FileInfo {
            first_key: first,
            last_key: last,
            min_timestamp: e.min_timestamp,
            max_timestamp: e.max_timestamp,
            max_seq_id: e.max_seq_id,
            cell_count: e.cell_count,
            delete_count: e.delete_count,
            delete_family_count: e.delete_family_count,
            family: e.opts.family.to_vec(),
            bloom_type: if e.bloom.is_some() {
                e.opts.bloom
            } else {
                BloomType::None
            },
            compression: e.codec.name().to_owned(),
            data_block_count,
            compacted_from: e.opts.compacted_from.clone(),
        };
        let (info_offset, info_size) =
            self.write_block(BlockKind::Info, Codec::None, &info.encode())?;
        let size32 = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        let trailer = Trailer {
            major_version: MAJOR_VERSION,
            minor_version: MINOR_VERSION,
            root_index_offset: root_offset,
            root_index_size: size32(root_size),
            index_levels: levels,
            bloom_offset,
            bloom_size: size32(bloom_size),
            file_info_offset: info_offset,
            file_info_size: size32(info_size),
            cell_count: self.encoder.cell_count,
        };
        self.out.append(&trailer.encode())?;
        self.out.sync()?;
        self.fs.rename(&self.tmp_path, &self.path)?;
        if let Some(dir) = self.path.parent() {
            self.fs.sync_dir(dir)?;
        }
        Ok(info)
    }

    /// Gives up: deletes the temporary file.
    pub fn abort(self) -> Result<()> {
        let StoreFileWriter {
            fs, tmp_path, out, ..
        } = self;
        drop(out);
        Ok(fs.delete(&tmp_path)?)
    }
}
