//! A secondary index of one column (`column=f:q`) in another table (`index=t_idx`, which the
//! attachment must also grant: `write=t_idx`). Each index row is the indexed value and the
//! base row (`basalt_coprocessor_sdk::index::key`), written at the base cell's timestamp, so
//! index writes commute and can be repeated.
//!
//! - After a put, an append or an increment of the column: the row's versions of it are read
//!   back; the newest gets its index row, every older value's index row is deleted up to that
//!   value's timestamp.
//! - After a delete that covers the column (the whole row, the family or the column): the row
//!   is read raw, and the index row of every version a delete marker masks is deleted up to
//!   that version's timestamp. A delete of one version of the column is refused (the version
//!   below it would come back, unindexed).
//! - As a region replays its WAL after a crash: every replayed put of the column is indexed
//!   again, and every replayed delete unindexed again, as after the write (the index writes are
//!   made once the region opens), so a write whose index write the crash cut off is indexed
//!   all the same.
//!
//! Index rows are only ever written after the base write they follow, so the index holds every
//! value the base table holds (once its write is acknowledged, or replayed), and perhaps rows
//! whose base row has since changed, which a reader checks.
//!
//! docs/coprocessors.md says what a reader can rely on.

use basalt_coprocessor_sdk::index::{FAMILY, QUALIFIER, key};
use basalt_coprocessor_sdk::{
    Append, Args, Coprocessor, Delete, Get, Increment, LoggedCell, Mutation, Put, Row, cell_type,
    export, host,
};

struct SecondaryIndex {
    family: Vec<u8>,
    qualifier: Vec<u8>,
    index: String,
}

impl SecondaryIndex {
    /// The row's versions of the indexed column, newest first: (value, timestamp).
    fn versions(&self, row: &[u8]) -> Result<Vec<(Vec<u8>, i64)>, String> {
        let mut get = Get::new(row.to_vec()).column(self.family.clone(), self.qualifier.clone());
        get.max_versions = u32::MAX;
        let found = host::get(&get)?;
        Ok(found
            .cells
            .into_iter()
            .filter(|c| c.cell_type == cell_type::PUT)
            .map(|c| (c.value, c.timestamp))
            .collect())
    }

    /// Indexes the row's newest value and unindexes its older ones.
    fn reindex(&self, row: &[u8]) -> Result<(), String> {
        let versions = self.versions(row)?;
        let Some((newest, at)) = versions.first() else {
            return Ok(());
        };
        let mut put = Put::new(key(newest, row)).add(FAMILY, QUALIFIER, row.to_vec());
        put.timestamp = *at;
        host::write(&self.index, Mutation::Put(put))?;
        for (older, at) in &versions[1..] {
            if older != newest {
                self.unindex(older, row, *at)?;
            }
        }
        Ok(())
    }

    /// Deletes the index row of `value` in `row`, up to `at`.
    fn unindex(&self, value: &[u8], row: &[u8], at: i64) -> Result<(), String> {
        let delete = Delete::new(key(value, row)).column(FAMILY, QUALIFIER, at);
        host::write(&self.index, Mutation::Delete(delete))
    }

    /// Unindexes every version of the column a delete marker masks, read raw (markers and
    /// masked cells alike): what a delete removed, whichever delete it was, as often as asked.
    fn unindex_deleted(&self, row: &[u8]) -> Result<(), String> {
        let mut get = Get::new(row.to_vec()).family(self.family.clone());
        get.max_versions = u32::MAX;
        get.raw = true;
        let found = host::get(&get)?;
        let masked = |at: i64| {
            found.cells.iter().any(|m| match m.cell_type {
                cell_type::DELETE_FAMILY => at <= m.timestamp,
                cell_type::DELETE_FAMILY_VERSION => at == m.timestamp,
                cell_type::DELETE_COLUMN => m.qualifier == self.qualifier && at <= m.timestamp,
                cell_type::DELETE => m.qualifier == self.qualifier && at == m.timestamp,
                _ => false,
            })
        };
        for c in &found.cells {
            if c.cell_type == cell_type::PUT && c.qualifier == self.qualifier && masked(c.timestamp)
            {
                self.unindex(&c.value, row, c.timestamp)?;
            }
        }
        Ok(())
    }

    fn touches(&self, family: &[u8], qualifier: &[u8]) -> bool {
        family == self.family && qualifier == self.qualifier
    }
}

impl Coprocessor for SecondaryIndex {
    fn init(args: &Args) -> Result<Self, String> {
        let column = args.require("column")?;
        let (family, qualifier) = column
            .split_once(':')
            .ok_or_else(|| format!("column={column} is not family:qualifier"))?;
        let index = args.require("index")?.to_owned();
        let granted = args.get("write").unwrap_or("");
        if !granted.split(';').any(|t| t.trim() == index) {
            return Err(format!(
                "the attachment must grant write={index} for the index table"
            ));
        }
        Ok(SecondaryIndex {
            family: family.as_bytes().to_vec(),
            qualifier: qualifier.as_bytes().to_vec(),
            index,
        })
    }

    fn post_put(&self, put: &Put) -> Result<(), String> {
        if put
            .cells
            .iter()
            .any(|c| self.touches(&c.family, &c.qualifier))
        {
            self.reindex(&put.row)?;
        }
        Ok(())
    }

    fn post_append(&self, append: &Append, _row: &mut Row) -> Result<(), String> {
        if append.columns.iter().any(|(f, q, _)| self.touches(f, q)) {
            self.reindex(&append.row)?;
        }
        Ok(())
    }

    fn post_increment(&self, inc: &Increment, _row: &mut Row) -> Result<(), String> {
        if inc.columns.iter().any(|(f, q, _)| self.touches(f, q)) {
            self.reindex(&inc.row)?;
        }
        Ok(())
    }

    fn pre_delete(&self, delete: &mut Delete) -> Result<(), String> {
        let one_version = delete
            .entries
            .iter()
            .any(|e| e.kind == cell_type::DELETE && self.touches(&e.family, &e.qualifier));
        if one_version {
            return Err(format!(
                "the index of {}:{} cannot follow a delete of one version of it (the version \
                 below would come back unindexed): delete the column",
                String::from_utf8_lossy(&self.family),
                String::from_utf8_lossy(&self.qualifier)
            ));
        }
        Ok(())
    }

    fn post_delete(&self, delete: &Delete) -> Result<(), String> {
        let covers = delete.entries.is_empty()
            || delete.entries.iter().any(|e| {
                e.family == self.family
                    && (e.kind != cell_type::DELETE_COLUMN || e.qualifier == self.qualifier)
            });
        if covers {
            self.unindex_deleted(&delete.row)?;
        }
        Ok(())
    }

    fn post_wal_restore(&self, cells: &[LoggedCell]) -> Result<(), String> {
        let mut put: Vec<&[u8]> = Vec::new();
        let mut deleted: Vec<&[u8]> = Vec::new();
        for c in cells {
            let cell = &c.cell;
            if cell.cell_type == cell_type::PUT && self.touches(&cell.family, &cell.qualifier) {
                put.push(&c.row);
            } else if cell.cell_type != cell_type::PUT && cell.family == self.family {
                deleted.push(&c.row);
            }
        }
        put.dedup();
        deleted.dedup();
        for row in deleted {
            self.unindex_deleted(row)?;
        }
        for row in put {
            self.reindex(row)?;
        }
        Ok(())
    }
}

export!(
    SecondaryIndex,
    [
        post_put,
        post_append,
        post_increment,
        pre_delete,
        post_delete,
        post_wal_restore
    ]
);
