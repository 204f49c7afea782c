//! The server's operations as the module interface carries them (`basalt_coprocessor_sdk::
//! wire`), and back. What a module hands back is checked as a client's request would be: a
//! cell the format cannot hold, or a type that is not a cell type, is the module's error.

use basalt_common::cell::{Cell, CellType};
use basalt_common::error::{Error, Result};
use basalt_common::ops::{
    Append, CheckAction, CheckAndMutate, Delete, DeleteEntry, Get, Increment, Put, PutCell,
    RowResult, Scan, TimeRange,
};
use basalt_coprocessor_sdk::wire;
use bytes::Bytes;

fn bytes(v: Vec<u8>) -> Bytes {
    Bytes::from(v)
}

fn stamp(ts: Option<i64>) -> i64 {
    ts.unwrap_or(wire::UNSET)
}

fn unstamp(ts: i64) -> Option<i64> {
    (ts != wire::UNSET).then_some(ts)
}

pub fn put_out(put: &Put) -> wire::Put {
    wire::Put {
        row: put.row.to_vec(),
        timestamp: put.timestamp,
        cells: put
            .cells
            .iter()
            .map(|c| wire::PutCell {
                family: c.family.to_vec(),
                qualifier: c.qualifier.to_vec(),
                timestamp: stamp(c.timestamp),
                value: c.value.to_vec(),
            })
            .collect(),
    }
}

/// `put` with what a module's changed Put says (its durability, TTL and origins kept).
pub fn put_in(put: &mut Put, changed: wire::Put) {
    put.row = bytes(changed.row);
    put.timestamp = changed.timestamp;
    put.cells = changed
        .cells
        .into_iter()
        .map(|c| PutCell {
            family: bytes(c.family),
            qualifier: bytes(c.qualifier),
            timestamp: unstamp(c.timestamp),
            value: bytes(c.value),
        })
        .collect();
}

pub fn delete_out(delete: &Delete) -> wire::Delete {
    wire::Delete {
        row: delete.row.to_vec(),
        timestamp: delete.timestamp,
        entries: delete
            .entries
            .iter()
            .map(|e| wire::DeleteEntry {
                family: e.family.to_vec(),
                qualifier: e.qualifier.to_vec(),
                timestamp: stamp(e.timestamp),
                kind: e.kind.code(),
            })
            .collect(),
    }
}

fn delete_kind(code: u8) -> Result<CellType> {
    match CellType::from_code(code) {
        Some(
            kind @ (CellType::Delete
            | CellType::DeleteColumn
            | CellType::DeleteFamily
            | CellType::DeleteFamilyVersion),
        ) => Ok(kind),
        _ => Err(Error::Coprocessor(format!(
            "a coprocessor's delete has marker type {code}, not a delete type (8, 10, 12, 14)"
        ))),
    }
}

pub fn delete_in(delete: &mut Delete, changed: wire::Delete) -> Result<()> {
    let entries = changed
        .entries
        .into_iter()
        .map(|e| {
            Ok(DeleteEntry {
                family: bytes(e.family),
                qualifier: bytes(e.qualifier),
                timestamp: unstamp(e.timestamp),
                kind: delete_kind(e.kind)?,
            })
        })
        .collect::<Result<_>>()?;
    delete.row = bytes(changed.row);
    delete.timestamp = changed.timestamp;
    delete.entries = entries;
    Ok(())
}

/// A write a module asks the server to make to another table.
#[derive(Debug, Clone)]
pub enum Write {
    Put(Put),
    Delete(Delete),
}

/// A Put or Delete a module asks the server to write to another table.
pub fn mutation_in(m: wire::Mutation) -> Result<Option<Write>> {
    Ok(match m {
        wire::Mutation::Put(p) => {
            let mut put = Put::new(Bytes::new());
            put_in(&mut put, p);
            Some(Write::Put(put))
        }
        wire::Mutation::Delete(d) => {
            let mut delete = Delete::new(Bytes::new());
            delete_in(&mut delete, d)?;
            Some(Write::Delete(delete))
        }
        wire::Mutation::Other => None,
    })
}

pub fn get_out(get: &Get) -> wire::Get {
    let mut columns = Vec::new();
    for (family, qualifiers) in &get.families {
        match qualifiers {
            None => columns.push(wire::Column {
                family: family.to_vec(),
                qualifier: None,
            }),
            Some(qs) => columns.extend(qs.iter().map(|q| wire::Column {
                family: family.to_vec(),
                qualifier: Some(q.to_vec()),
            })),
        }
    }
    wire::Get {
        row: get.row.to_vec(),
        columns,
        max_versions: get.max_versions,
        min_timestamp: get.time_range.min,
        max_timestamp: get.time_range.max,
        raw: false,
    }
}

/// A module's read of its own region, and whether it is raw.
pub fn get_in(g: wire::Get) -> Result<(Get, bool)> {
    let raw = g.raw;
    let mut get = Get::new(bytes(g.row));
    for c in g.columns {
        get = match c.qualifier {
            None => get.add_family(bytes(c.family)),
            Some(q) => get.add_column(bytes(c.family), bytes(q)),
        };
    }
    let range = TimeRange::new(g.min_timestamp, g.max_timestamp);
    range.validate()?;
    get.time_range = range;
    get.max_versions = g.max_versions.max(1);
    Ok((get, raw))
}

fn cell_out(c: &Cell) -> wire::Cell {
    wire::Cell {
        family: c.family().to_vec(),
        qualifier: c.qualifier().to_vec(),
        timestamp: c.timestamp,
        cell_type: c.cell_type.code(),
        value: c.value().to_vec(),
    }
}

pub fn row_out(row: &RowResult) -> wire::Row {
    wire::Row {
        row: row.row.to_vec(),
        cells: row.cells.iter().map(cell_out).collect(),
    }
}

fn cell_in(row: &[u8], c: wire::Cell) -> Result<Cell> {
    let kind = CellType::from_code(c.cell_type)
        .filter(|t| !matches!(t, CellType::Minimum | CellType::Maximum))
        .ok_or_else(|| {
            Error::Coprocessor(format!(
                "a coprocessor's cell has type {}, not a cell type",
                c.cell_type
            ))
        })?;
    let (family_len, qualifier_len) = (c.family.len(), c.qualifier.len());
    let mut buf = Vec::with_capacity(row.len() + family_len + qualifier_len + c.value.len());
    buf.extend_from_slice(row);
    buf.extend_from_slice(&c.family);
    buf.extend_from_slice(&c.qualifier);
    buf.extend_from_slice(&c.value);
    Cell::from_buffer(
        Bytes::from(buf),
        row.len(),
        family_len,
        qualifier_len,
        c.timestamp,
        kind,
    )
    .ok_or_else(|| {
        Error::Coprocessor(format!(
            "a coprocessor's cell is too large for the format (row {} bytes, family {family_len})",
            row.len()
        ))
    })
}

/// A row a module answered with (or changed), its `partial` flag given by the caller.
pub fn row_in(r: wire::Row, partial: bool) -> Result<RowResult> {
    let cells = r
        .cells
        .into_iter()
        .map(|c| cell_in(&r.row, c))
        .collect::<Result<_>>()?;
    Ok(RowResult {
        row: bytes(r.row),
        cells,
        partial,
    })
}

pub fn increment_out(inc: &Increment) -> wire::Increment {
    wire::Increment {
        row: inc.row.to_vec(),
        columns: inc
            .columns
            .iter()
            .map(|(f, q, n)| (f.to_vec(), q.to_vec(), *n))
            .collect(),
    }
}

/// `inc` with a module's changed columns (its time range, durability and TTL kept).
pub fn increment_in(inc: &mut Increment, changed: wire::Increment) {
    inc.row = bytes(changed.row);
    inc.columns = changed
        .columns
        .into_iter()
        .map(|(f, q, n)| (bytes(f), bytes(q), n))
        .collect();
}

pub fn append_out(append: &Append) -> wire::Append {
    wire::Append {
        row: append.row.to_vec(),
        columns: append
            .columns
            .iter()
            .map(|(f, q, v)| (f.to_vec(), q.to_vec(), v.to_vec()))
            .collect(),
    }
}

/// `append` with a module's changed columns (its time range, durability and TTL kept).
pub fn append_in(append: &mut Append, changed: wire::Append) {
    append.row = bytes(changed.row);
    append.columns = changed
        .columns
        .into_iter()
        .map(|(f, q, v)| (bytes(f), bytes(q), bytes(v)))
        .collect();
}

pub fn scan_out(scan: &Scan) -> wire::Scan {
    wire::Scan {
        start_row: scan.start_row.to_vec(),
        stop_row: scan.stop_row.to_vec(),
        reversed: scan.reversed,
    }
}

fn action_out(action: &CheckAction) -> wire::Mutation {
    match action {
        CheckAction::Put(p) => wire::Mutation::Put(put_out(p)),
        CheckAction::Delete(d) => wire::Mutation::Delete(delete_out(d)),
        _ => wire::Mutation::Other,
    }
}

pub fn check_and_mutate_out(cam: &CheckAndMutate, success: bool) -> wire::CheckAndMutate {
    wire::CheckAndMutate {
        row: cam.row.to_vec(),
        action: action_out(&cam.action),
        success,
    }
}

/// `cam` with a module's changed action (a Put or Delete it changed; an action it cannot see
/// stays as it was).
pub fn check_and_mutate_in(cam: &mut CheckAndMutate, changed: wire::CheckAndMutate) -> Result<()> {
    cam.row = bytes(changed.row);
    match (&mut cam.action, changed.action) {
        (CheckAction::Put(p), wire::Mutation::Put(w)) => put_in(p, w),
        (CheckAction::Delete(d), wire::Mutation::Delete(w)) => delete_in(d, w)?,
        (_, wire::Mutation::Other) => {}
        _ => {
            return Err(Error::Coprocessor(
                "a coprocessor changed a check-and-mutate's action into another kind".into(),
            ));
        }
    }
    Ok(())
}

pub fn logged_out(cells: &[Cell]) -> Vec<wire::LoggedCell> {
    cells
        .iter()
        .map(|c| wire::LoggedCell {
            row: c.row().to_vec(),
            cell: cell_out(c),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(family: Vec<u8>, cell_type: u8) -> wire::Cell {
        wire::Cell {
            family,
            qualifier: b"q".to_vec(),
            timestamp: 1,
            cell_type,
            value: b"v".to_vec(),
        }
    }

    /// What a module hands back is checked as a request would be: a clear error, never a
    /// panic or a cell the format cannot hold.
    #[test]
    fn what_a_module_hands_back_is_checked() {
        let row = |c| wire::Row {
            row: b"r".to_vec(),
            cells: vec![c],
        };
        assert!(row_in(row(cell(b"f".to_vec(), 4)), false).is_ok());
        let long = row_in(row(cell(vec![b'f'; 300], 4)), false).unwrap_err();
        assert!(long.to_string().contains("too large"), "{long}");
        let sentinel = row_in(row(cell(b"f".to_vec(), 255)), false).unwrap_err();
        assert!(
            sentinel.to_string().contains("not a cell type"),
            "{sentinel}"
        );
        let mut delete = Delete::new(Bytes::from_static(b"r"));
        let not_a_delete = wire::Delete {
            row: b"r".to_vec(),
            timestamp: wire::LATEST,
            entries: vec![wire::DeleteEntry {
                family: b"f".to_vec(),
                qualifier: b"q".to_vec(),
                timestamp: wire::UNSET,
                kind: 4,
            }],
        };
        let err = delete_in(&mut delete, not_a_delete).unwrap_err();
        assert!(err.to_string().contains("not a delete type"), "{err}");
        assert!(
            delete.entries.is_empty(),
            "a refused change leaves the delete as it was"
        );
        let bad_range = wire::Get {
            min_timestamp: 10,
            max_timestamp: 5,
            ..wire::Get::new(b"r".to_vec())
        };
        assert!(get_in(bad_range).is_err());
        let (_, raw) = get_in(wire::Get {
            raw: true,
            ..wire::Get::new(b"r".to_vec())
        })
        .unwrap();
        assert!(raw);
    }
}
