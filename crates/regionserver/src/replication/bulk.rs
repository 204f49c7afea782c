//! Bulk loads for replication (HBase's `hbase.replication.bulkload.enabled`): a region of a
//! replicated table that adopts store files logs a marker edit, one cell of family
//! `METAFAMILY`, qualifier `HBASE::BULK_LOAD`, whose value is HBase's `BulkLoadDescriptor`
//! naming the files; the files themselves are kept (hard-linked, or copied) under
//! `<root>/replication/hfile-refs/<server>/<id>/` until no queue needs the marker. A source ships
//! the marker to peers whose CONFIG says `hbase.replication.bulkload.enabled => 'true'`; their
//! sink reads the files by path and applies their cells. Region replay skips the marker (no
//! family has its name).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use basalt_common::{Bytes, Cell, CellType, Error, Result};
use basalt_fs::FileSystem;
use basalt_proto::pb;
use prost::Message;

use crate::layout::storage;

/// The family and qualifier of a marker's cell (HBase's `WALEdit.METAFAMILY` and
/// `BULK_LOAD`).
pub const METAFAMILY: &[u8] = b"METAFAMILY";
pub const BULK_LOAD: &[u8] = b"HBASE::BULK_LOAD";

/// The peer CONFIG key that asks for bulk-loaded files.
pub const ENABLED_KEY: &str = "hbase.replication.bulkload.enabled";

const REFS_DIR: &str = "replication/hfile-refs";
/// In a kept load's directory: the WAL segment the marker is in or before.
const THROUGH: &str = ".through";

/// Whether a cell is a bulk-load marker.
pub fn is_marker(cell: &Cell) -> bool {
    cell.family() == METAFAMILY && cell.qualifier() == BULK_LOAD
}

/// Keeps `files` (`(family, path)`) of a load into region `region` of `table` under a new
/// directory, and returns the marker cell naming them.
pub fn keep(
    fs: &dyn FileSystem,
    root: &Path,
    server: &str,
    table: &basalt_common::TableName,
    region: &str,
    seq: u64,
    files: &[(Bytes, PathBuf)],
) -> Result<(PathBuf, Cell)> {
    let id = format!("{region}-{seq}-{}", now_ms());
    let rel = Path::new(REFS_DIR).join(server).join(&id);
    let dir = root.join(&rel);
    fs.create_dir_all(&dir).map_err(storage)?;
    let mut stores: Vec<pb::StoreDescriptor> = Vec::new();
    for (i, (family, path)) in files.iter().enumerate() {
        let name = format!("{i:04}");
        let to = dir.join(&name);
        if fs.link(path, &to).is_err() {
            let source = fs.open(path).map_err(storage)?;
            basalt_fs::copy_file(fs, source.as_ref(), &to, &mut |_| {}).map_err(storage)?;
        }
        let size = fs.open(&to).map(|f| f.len()).unwrap_or(0);
        match stores.iter_mut().find(|s| s.family_name == family[..]) {
            Some(s) => {
                s.store_file.push(name);
                s.store_file_size_bytes = Some(s.store_file_size_bytes.unwrap_or(0) + size);
            }
            None => stores.push(pb::StoreDescriptor {
                family_name: family.to_vec(),
                store_home_dir: rel.to_string_lossy().into_owned(),
                store_file: vec![name],
                store_file_size_bytes: Some(size),
            }),
        }
    }
    fs.sync_dir(&dir).map_err(storage)?;
    let descriptor = pb::BulkLoadDescriptor {
        table_name: basalt_proto::schema::pb_table_name(table),
        encoded_region_name: region.as_bytes().to_vec(),
        stores,
        bulkload_seq_num: i64::try_from(seq).unwrap_or(i64::MAX),
        cluster_ids: Vec::new(),
        replicate: Some(true),
    };
    let cell = Cell::new(
        b"",
        METAFAMILY,
        BULK_LOAD,
        now_ms(),
        CellType::Put,
        &descriptor.encode_to_vec(),
    );
    Ok((dir, cell))
}

/// Notes that the marker of the load kept in `dir` is in segment `segment` or before it.
pub fn mark_through(fs: &dyn FileSystem, dir: &Path, segment: &str) -> Result<()> {
    basalt_fs::write_atomically(fs, &dir.join(THROUGH), segment.as_bytes()).map_err(storage)
}

/// Deletes kept loads no queue needs: those whose marker lies in a segment before the oldest
/// any queue of their server still reads (`needed`: by server, the oldest segment needed).
pub fn clean(fs: &dyn FileSystem, root: &Path, needed: &HashMap<String, String>) -> Result<()> {
    let refs = root.join(REFS_DIR);
    if !fs.exists(&refs).map_err(storage)? {
        return Ok(());
    }
    for server in fs.list(&refs).map_err(storage)? {
        let server_dir = refs.join(&server);
        for load in fs.list(&server_dir).unwrap_or_default() {
            let dir = server_dir.join(&load);
            let Ok(through) = basalt_fs::read_all(fs, &dir.join(THROUGH)) else {
                // Not marked yet (the load is being logged), or a crash between: kept.
                continue;
            };
            let through = String::from_utf8_lossy(&through).into_owned();
            let still = needed
                .get(&server)
                .is_some_and(|from| from.as_str() <= through.as_str());
            if !still {
                fs.delete_dir_all(&dir).map_err(storage)?;
            }
        }
    }
    Ok(())
}

/// The cells of the files a marker names, read from the source's root `base` (a path this
/// server can read: the clusters share a file system, as HBase's sink reads the source's
/// HDFS).
pub fn marked_cells(marker: &[u8], base: &Path) -> Result<(basalt_common::TableName, Vec<Cell>)> {
    let d = pb::BulkLoadDescriptor::decode(marker)
        .map_err(|e| Error::InvalidArgument(format!("a bulk load marker: {e}")))?;
    let table = basalt_common::TableName::new(
        &String::from_utf8_lossy(&d.table_name.namespace),
        &String::from_utf8_lossy(&d.table_name.qualifier),
    )?;
    let fs = basalt_fs::LocalFs;
    let mut cells = Vec::new();
    for store in &d.stores {
        for file in &store.store_file {
            let path = base.join(&store.store_home_dir).join(file);
            let reader = basalt_storefile::StoreFileReader::open(&fs, &path).map_err(|e| {
                Error::storage(format!("reading bulk-loaded file {}: {e}", path.display()))
            })?;
            let failed = |e: basalt_storefile::StoreFileError| {
                Error::storage(format!("reading bulk-loaded file {}: {e}", path.display()))
            };
            let mut scanner = reader.scanner();
            scanner.seek(&Cell::first_on_row(b"")).map_err(failed)?;
            while let Some(cell) = scanner.current() {
                cells.push(cell.clone());
                scanner.advance().map_err(failed)?;
            }
        }
    }
    Ok((table, cells))
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}
