//! Consistency checks and repairs of the catalog and the data directory, after HBase's HBCK2
//! and the master's HbckChore: [`check`] compares `hbase:meta`, the region directories, the
//! live servers and the WAL directories, and the repairs fix what it finds (`operations.md`,
//! "hbck").

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use basalt_common::{Bytes, Error, RegionInfo, Result, ServerName, TableName};
use basalt_fs::FsError;
use basalt_layout::{self as layout, storage};

use crate::master::{HostedTable, Master};
use crate::meta::{self, RegionRow, TableState};
use crate::procedures;

/// The suffix of a WAL directory whose split started.
const SPLITTING: &str = "-splitting";

/// What kind of inconsistency a finding is, and the repair that fixes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Rows no region covers, between two regions of a table (`fixMeta`).
    Hole,
    /// Two regions of a table holding some of the same rows (`fixMeta`).
    Overlap,
    /// A region directory with no row in `hbase:meta` (`addFsRegionsMissingInMeta`, or
    /// `archiveOrphans` for leftovers).
    OrphanDir,
    /// A region in `hbase:meta` with no directory (`fixMeta` drops the row; a hole remains
    /// until it fills it).
    MissingDir,
    /// A region `hbase:meta` places on a server that is not live, so nobody serves it
    /// (`assigns`).
    InTransition,
    /// A region of an enabled table left closed (`assigns`).
    Unassigned,
    /// A split parent no daughter reads any more, still in `hbase:meta` (`catalogjanitor_run`).
    LingeringParent,
    /// A reference file whose parent region's directory is gone: its rows are lost.
    BrokenReference,
    /// The WAL directory of a server that is not live and was never split: its unflushed
    /// edits are not in any region (`scheduleRecoveries`).
    UnsplitWal,
}

impl Kind {
    pub const ALL: [Kind; 9] = [
        Kind::Hole,
        Kind::Overlap,
        Kind::OrphanDir,
        Kind::MissingDir,
        Kind::InTransition,
        Kind::Unassigned,
        Kind::LingeringParent,
        Kind::BrokenReference,
        Kind::UnsplitWal,
    ];

    /// Its name in reports and on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Hole => "hole",
            Kind::Overlap => "overlap",
            Kind::OrphanDir => "orphan_dir",
            Kind::MissingDir => "missing_dir",
            Kind::InTransition => "in_transition",
            Kind::Unassigned => "unassigned",
            Kind::LingeringParent => "lingering_parent",
            Kind::BrokenReference => "broken_reference",
            Kind::UnsplitWal => "unsplit_wal",
        }
    }

    pub fn parse(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The repair, as `basalt hbck` spells it.
    pub fn fix(self) -> &'static str {
        match self {
            Kind::Hole | Kind::Overlap | Kind::MissingDir => "basalt hbck fixMeta",
            Kind::OrphanDir => {
                "basalt hbck addFsRegionsMissingInMeta TABLE (or archiveOrphans for leftovers)"
            }
            Kind::InTransition | Kind::Unassigned => "basalt hbck assigns ENCODED_NAME",
            Kind::LingeringParent => "catalogjanitor_run (shell)",
            Kind::BrokenReference => {
                "restore the parent's directory from a snapshot or backup; the rows it held \
                 are lost otherwise"
            }
            Kind::UnsplitWal => "basalt hbck scheduleRecoveries SERVER_NAME",
        }
    }
}

/// One inconsistency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: Kind,
    /// The table (empty for a WAL directory).
    pub table: String,
    /// What it is about: a region's name, a range, a server's name, a path.
    pub subject: String,
    /// What is wrong, in words.
    pub detail: String,
}

/// What one check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Report {
    /// When it ran, in milliseconds since the epoch.
    pub checked_at_ms: i64,
    pub findings: Vec<Finding>,
}

fn key(b: &[u8]) -> String {
    basalt_common::bytes_display::BinaryDisplay::new(b).to_string()
}

fn region_text(info: &RegionInfo) -> String {
    String::from_utf8_lossy(&info.region_name()).into_owned()
}

/// Whether `name` is a region directory's (a 32-digit hexadecimal encoded name).
fn is_region_dir(name: &str) -> bool {
    name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The `.regioninfo` of a region directory, if it has a readable one.
fn dir_region_info(master: &Master, dir: &std::path::Path) -> Option<RegionInfo> {
    let bytes = basalt_fs::read_all(master.fs.as_ref(), &dir.join(".regioninfo")).ok()?;
    RegionInfo::from_pb(&bytes).ok()
}

/// The holes and overlaps among a table's serving regions, sorted by start key.
fn chain(table: &str, regions: &[&RegionInfo], out: &mut Vec<Finding>) {
    // How far the regions so far reach (None: to the end of the table), and which reaches
    // furthest.
    let mut reach: Option<Bytes> = Some(Bytes::new());
    let mut furthest: Option<&RegionInfo> = None;
    for r in regions {
        match &reach {
            None => out.push(overlap(table, furthest, r)),
            Some(k) if r.start_key > *k => out.push(Finding {
                kind: Kind::Hole,
                table: table.to_owned(),
                subject: format!("[{}, {})", key(k), key(&r.start_key)),
                detail: format!(
                    "no region holds the rows from {} up to {}, where {} starts",
                    key(k),
                    key(&r.start_key),
                    region_text(r)
                ),
            }),
            Some(k) if r.start_key < *k => out.push(overlap(table, furthest, r)),
            Some(_) => {}
        }
        let further = match (&reach, r.end_key.is_empty()) {
            (None, _) => false,
            (Some(_), true) => true,
            (Some(k), false) => r.end_key > *k || r.start_key > *k,
        };
        if further {
            reach = (!r.end_key.is_empty()).then(|| r.end_key.clone());
            furthest = Some(r);
        }
    }
    if let Some(k) = reach
        && !regions.is_empty()
    {
        out.push(Finding {
            kind: Kind::Hole,
            table: table.to_owned(),
            subject: format!("[{}, end)", key(&k)),
            detail: format!("no region holds the rows from {} to the end", key(&k)),
        });
    }
    if regions.is_empty() {
        out.push(Finding {
            kind: Kind::Hole,
            table: table.to_owned(),
            subject: "[start, end)".into(),
            detail: "the table has no serving region at all".into(),
        });
    }
}

fn overlap(table: &str, a: Option<&RegionInfo>, b: &RegionInfo) -> Finding {
    let a = a.map(region_text).unwrap_or_default();
    Finding {
        kind: Kind::Overlap,
        table: table.to_owned(),
        subject: format!("{a} / {}", region_text(b)),
        detail: format!("{a} and {} hold some of the same rows", region_text(b)),
    }
}

/// Compares `hbase:meta`, the region directories, the live servers and the WAL directories.
pub fn check(master: &Master) -> Result<Report> {
    master.check_open()?;
    let catalog = master.catalog();
    let states = meta::read_table_states(catalog.as_ref())?;
    let rows = meta::read_regions(catalog.as_ref())?;
    let mut out = Vec::new();
    for (table, state) in &states {
        if table.is_meta() {
            continue;
        }
        let t = table.to_string();
        let mine: Vec<&RegionRow> = rows.iter().filter(|r| &r.info.table == table).collect();
        let mut serving: Vec<&RegionInfo> = mine
            .iter()
            .filter(|r| r.is_serving())
            .map(|r| &r.info)
            .collect();
        serving.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        chain(&t, &serving, &mut out);

        check_files(master, table, &t, &mine, &mut out)?;
        if *state == TableState::Enabled {
            check_placement(master, &t, &mine, &mut out);
        }
    }
    for (server, segments) in unsplit_wal_dirs(master)? {
        out.push(Finding {
            kind: Kind::UnsplitWal,
            table: String::new(),
            subject: server.clone(),
            detail: format!(
                "WALs/{server} belongs to a server that is not live and holds {segments} \
                 log segment(s) never split into its regions"
            ),
        });
    }
    out.sort_by(|a, b| (a.kind, &a.table, &a.subject).cmp(&(b.kind, &b.table, &b.subject)));
    basalt_common::log::log("hbck", basalt_common::log::Level::Debug, || {
        format!("check found {} inconsistencies", out.len())
    });
    Ok(Report {
        checked_at_ms: master.clock.now_millis(),
        findings: out,
    })
}

/// A table's region directories against its rows: orphan and missing directories, broken
/// references, split parents no daughter reads.
fn check_files(
    master: &Master,
    table: &TableName,
    t: &str,
    mine: &[&RegionRow],
    out: &mut Vec<Finding>,
) -> Result<()> {
    let fs = master.fs.as_ref();
    // Directories against rows.
    let in_meta: BTreeSet<String> = mine.iter().map(|r| r.info.encoded_name()).collect();
    let table_dir = master.table_dir(table);
    let dirs: BTreeSet<String> = layout::list(fs, &table_dir)?
        .into_iter()
        .filter(|n| is_region_dir(n))
        .collect();
    // Merge parents live on in their child's row until the janitor cleans them.
    let merge_parents: BTreeSet<String> = mine
        .iter()
        .flat_map(|r| r.merge_parents.iter().map(RegionInfo::encoded_name))
        .collect();
    for dir in dirs.difference(&in_meta) {
        if merge_parents.contains(dir) {
            continue;
        }
        let path = table_dir.join(dir);
        let detail = match dir_region_info(master, &path) {
            Some(info) if fs.exists(&path.join(layout::DISPOSABLE)).unwrap_or(false) => {
                format!(
                    "{} ({}) was dropped (its rows live elsewhere) but its directory is \
                     still there",
                    region_text(&info),
                    path.display()
                )
            }
            Some(info) => format!(
                "{} has a directory ({}) but no row in hbase:meta",
                region_text(&info),
                path.display()
            ),
            None => format!(
                "{} has no row in hbase:meta and no readable .regioninfo",
                path.display()
            ),
        };
        out.push(Finding {
            kind: Kind::OrphanDir,
            table: t.to_owned(),
            subject: dir.clone(),
            detail,
        });
    }
    for row in mine {
        let encoded = row.info.encoded_name();
        if !dirs.contains(&encoded) {
            out.push(Finding {
                kind: Kind::MissingDir,
                table: t.to_owned(),
                subject: region_text(&row.info),
                detail: format!(
                    "{} is in hbase:meta but has no directory",
                    region_text(&row.info)
                ),
            });
            continue;
        }
        // References whose parent's directory is gone.
        let parents = basalt_region::parents_on_disk(fs, &table_dir.join(&encoded))?;
        for parent in parents.iter().filter(|p| !dirs.contains(*p)) {
            out.push(Finding {
                kind: Kind::BrokenReference,
                table: t.to_owned(),
                subject: region_text(&row.info),
                detail: format!(
                    "{} reads files of region {parent} through references, and that \
                     region's directory is gone",
                    region_text(&row.info)
                ),
            });
        }
    }
    // Split parents no daughter reads any more.
    for row in mine.iter().filter(|r| r.info.split) {
        let encoded = row.info.encoded_name();
        let read = row.daughters.iter().any(|d| {
            basalt_region::parents_on_disk(fs, &table_dir.join(d.encoded_name()))
                .is_ok_and(|p| p.contains(&encoded))
        });
        if !read {
            out.push(Finding {
                kind: Kind::LingeringParent,
                table: t.to_owned(),
                subject: region_text(&row.info),
                detail: format!(
                    "split parent {} is still in hbase:meta though its daughters read \
                     nothing of it",
                    region_text(&row.info)
                ),
            });
        }
    }
    Ok(())
}

/// An enabled table's serving regions that nobody serves.
fn check_placement(master: &Master, t: &str, mine: &[&RegionRow], out: &mut Vec<Finding>) {
    for row in mine.iter().filter(|r| r.is_serving()) {
        let open = row.state.as_deref() == Some("OPEN");
        match &row.server {
            Some(server) if open && master.servers.get(&server.to_string()).is_none() => {
                out.push(Finding {
                    kind: Kind::InTransition,
                    table: t.to_owned(),
                    subject: region_text(&row.info),
                    detail: format!(
                        "{} is placed on {server}, which is not live: nobody serves it",
                        region_text(&row.info)
                    ),
                });
            }
            _ if !open => out.push(Finding {
                kind: Kind::Unassigned,
                table: t.to_owned(),
                subject: region_text(&row.info),
                detail: format!(
                    "{} of enabled table {t} is {}: nobody serves it",
                    region_text(&row.info),
                    row.state.as_deref().unwrap_or("without a state")
                ),
            }),
            _ => {}
        }
    }
}

/// The WAL directories of servers that are not live (and, where the storage can tell, not
/// locked by a running process), with how many segments each holds.
fn unsplit_wal_dirs(master: &Master) -> Result<Vec<(String, usize)>> {
    let fs = master.fs.as_ref();
    let wal_root = master.root.join(layout::WAL_DIR);
    let mut out = Vec::new();
    for entry in layout::list(fs, &wal_root)? {
        let name = entry.strip_suffix(SPLITTING).unwrap_or(&entry);
        if ServerName::parse(name).is_none() || master.servers.get(name).is_some() {
            continue;
        }
        let dir = wal_root.join(&entry);
        if !entry.ends_with(SPLITTING)
            && let Err(FsError::Locked(_)) = fs.lock(&dir.join(layout::LOCK_FILE))
        {
            // A server starting up, not registered yet.
            continue;
        }
        let segments = basalt_wal::segments_in(fs, &dir)?.len();
        out.push((name.to_owned(), segments));
    }
    Ok(out)
}

/// The table's serving region with this encoded name.
fn find_region(master: &Master, encoded: &str) -> Result<(Arc<HostedTable>, RegionInfo)> {
    for table in master.tables().values() {
        if let Some(p) = table
            .placed()
            .into_iter()
            .find(|p| p.info.encoded_name() == encoded)
        {
            return Ok((Arc::clone(table), p.info));
        }
    }
    Err(Error::UnknownRegion(encoded.to_owned()))
}

/// Fills the holes among a table's serving regions with new empty regions, merges
/// overlapping regions, and drops the rows of regions whose directory is gone (HBCK2's
/// `fixMeta`). Returns what it did, in words.
pub fn fix_meta(master: &Master) -> Result<Vec<String>> {
    let report = check(master)?;
    let mut done = Vec::new();
    let rows = meta::read_regions(master.catalog().as_ref())?;
    // Rows without directories first: the holes they leave are filled below.
    for f in report
        .findings
        .iter()
        .filter(|f| f.kind == Kind::MissingDir)
    {
        let Some(row) = rows.iter().find(|r| region_text(&r.info) == f.subject) else {
            continue;
        };
        let _ddl = master.ddl();
        master
            .meta_batch()
            .delete_row(row.info.region_name())
            .commit(master.catalog().as_ref())?;
        if let Ok(table) = master.table(&row.info.table) {
            table.replace_regions(std::slice::from_ref(&row.info), Vec::new());
        }
        done.push(format!("dropped the row of {} (no directory)", f.subject));
    }
    let tables: Vec<Arc<HostedTable>> = master
        .tables()
        .values()
        .filter(|t| !t.name.is_system())
        .cloned()
        .collect();
    for table in tables {
        let rows = meta::read_regions(master.catalog().as_ref())?;
        let mut serving: Vec<RegionInfo> = rows
            .into_iter()
            .filter(|r| r.info.table == table.name && r.is_serving())
            .map(|r| r.info)
            .collect();
        serving.sort_by(|a, b| a.start_key.cmp(&b.start_key));
        // Overlaps: each overlapping pair merged into one region over both ranges.
        let mut i = 0;
        while i + 1 < serving.len() {
            let (a, b) = (&serving[i], &serving[i + 1]);
            let overlapping = a.end_key.is_empty() || b.start_key < a.end_key;
            if overlapping {
                let merged = procedures::merge_overlapping(master, &table, a, b)?;
                done.push(format!(
                    "merged overlapping {} and {} into {}",
                    region_text(a),
                    region_text(b),
                    region_text(&merged)
                ));
                serving.splice(i..i + 2, [merged]);
            } else {
                i += 1;
            }
        }
        // Holes: a new empty region for each.
        let mut starts: Vec<(Bytes, Bytes)> = Vec::new();
        let mut reach = Bytes::new();
        for r in &serving {
            if r.start_key > reach {
                starts.push((reach.clone(), r.start_key.clone()));
            }
            reach = r.end_key.clone();
        }
        if serving.is_empty() || !reach.is_empty() {
            starts.push((reach, Bytes::new()));
        }
        for (start, end) in starts {
            let info = fill_hole(master, &table, start, end)?;
            done.push(format!(
                "filled a hole with the new region {}",
                region_text(&info)
            ));
        }
    }
    Ok(done)
}

/// A new empty region over `[start, end)` of `table`, opened.
fn fill_hole(
    master: &Master,
    table: &Arc<HostedTable>,
    start: Bytes,
    end: Bytes,
) -> Result<RegionInfo> {
    let _ddl = master.ddl();
    let id = procedures::next_region_id(master, &[]);
    let info = RegionInfo::new(table.name.clone(), start, end, id);
    layout::write_region_info(master.fs.as_ref(), &master.region_dir(&info), &info)?;
    open_new(master, table, &info)?;
    Ok(info)
}

/// Opens a region that has a directory but is not in the table's map, and records it.
fn open_new(master: &Master, table: &Arc<HostedTable>, info: &RegionInfo) -> Result<()> {
    let server = crate::rsgroup::pick(master, &table.name)?;
    let mut batch = master.meta_batch();
    if table.is_enabled() {
        let seq_id = server.open_region(info)?;
        batch
            .region(info, "OPEN", server.name())
            .opened(info, seq_id);
    } else {
        batch.region(info, "CLOSED", server.name());
    }
    batch.commit(master.catalog().as_ref())?;
    table.replace_regions(&[], vec![master.placed(info, &server)]);
    Ok(())
}

/// Puts the region directories of `tables` (all if none) that have no row in `hbase:meta`
/// back in it, from their `.regioninfo`, and opens them (HBCK2's
/// `addFsRegionsMissingInMeta`). Returns the regions added.
pub fn add_fs_regions_missing_in_meta(
    master: &Master,
    tables: &[TableName],
) -> Result<Vec<String>> {
    let report = check(master)?;
    let mut added = Vec::new();
    for f in report.findings.iter().filter(|f| f.kind == Kind::OrphanDir) {
        let Ok(name) = TableName::parse(&f.table) else {
            continue;
        };
        if !tables.is_empty() && !tables.contains(&name) {
            continue;
        }
        let table = master.table(&name)?;
        let dir = master.table_dir(&name).join(&f.subject);
        if master
            .fs
            .exists(&dir.join(layout::DISPOSABLE))
            .map_err(storage)?
        {
            // A parent the janitor dropped, or a restore's old region: its rows live on
            // elsewhere, and putting it back would bring old rows back.
            added.push(format!(
                "nothing for {}: it is marked disposable (its rows live elsewhere); \
                 archiveOrphans moves it away",
                dir.display()
            ));
            continue;
        }
        let info = dir_region_info(master, &dir).ok_or_else(|| {
            Error::corrupt(format!(
                "{}: no readable .regioninfo, so it cannot go back in hbase:meta \
                 (archiveOrphans moves it away)",
                dir.display()
            ))
        })?;
        if info.encoded_name() != f.subject {
            return Err(Error::corrupt(format!(
                "{}: its .regioninfo names region {}, not {}",
                dir.display(),
                info.encoded_name(),
                f.subject
            )));
        }
        let _ddl = master.ddl();
        open_new(master, &table, &info)?;
        added.push(format!("added {}", region_text(&info)));
    }
    Ok(added)
}

/// Moves the region directories with no row in `hbase:meta` of `tables` (all if none) to
/// `<root>/archive/hbck/<table>/<encoded>`: leftovers out of the way, nothing deleted.
pub fn archive_orphans(master: &Master, tables: &[TableName]) -> Result<Vec<String>> {
    let report = check(master)?;
    let fs = master.fs.as_ref();
    let mut moved = Vec::new();
    for f in report.findings.iter().filter(|f| f.kind == Kind::OrphanDir) {
        let Ok(name) = TableName::parse(&f.table) else {
            continue;
        };
        if !tables.is_empty() && !tables.contains(&name) {
            continue;
        }
        let from = master.table_dir(&name).join(&f.subject);
        let to_dir = master
            .root
            .join("archive")
            .join("hbck")
            .join(name.to_string().replace(':', "_"));
        fs.create_dir_all(&to_dir).map_err(storage)?;
        let to = to_dir.join(&f.subject);
        fs.rename(&from, &to).map_err(storage)?;
        moved.push(format!("{} -> {}", from.display(), to.display()));
    }
    Ok(moved)
}

/// Opens regions by encoded name (HBCK2's `assigns`): each one's outcome.
pub fn assigns(master: &Master, encoded: &[String]) -> Vec<Result<()>> {
    encoded
        .iter()
        .map(|e| {
            let rows = meta::read_regions(master.catalog().as_ref())?;
            let row = rows
                .iter()
                .find(|r| r.info.encoded_name() == *e && r.is_serving())
                .ok_or_else(|| Error::UnknownRegion(e.clone()))?;
            let table = master.table(&row.info.table)?;
            if !table.is_enabled() {
                return Err(Error::TableNotEnabled(table.name.clone()));
            }
            match find_region(master, e) {
                Ok(_) => crate::balancer::assign(master, e.as_bytes()),
                // In meta but not in the master's map (added behind its back): opened anew.
                Err(_) => {
                    let _ddl = master.ddl();
                    open_new(master, &table, &row.info)
                }
            }
        })
        .collect()
}

/// Closes regions by encoded name and leaves them closed (HBCK2's `unassigns`).
pub fn unassigns(master: &Master, encoded: &[String]) -> Vec<Result<()>> {
    encoded
        .iter()
        .map(|e| crate::balancer::unassign(master, e.as_bytes()))
        .collect()
}

/// Splits the WAL directories of servers that are not live into their regions' recovered
/// edits, then reopens those regions so they replay them (HBCK2's `scheduleRecoveries`, a
/// ServerCrashProcedure for each). Returns the regions reopened per server.
pub fn schedule_recoveries(master: &Master, servers: &[String]) -> Result<Vec<(String, usize)>> {
    let dead: BTreeMap<String, usize> = unsplit_wal_dirs(master)?.into_iter().collect();
    let mut out = Vec::new();
    for server in servers {
        if master.servers.get(server).is_some() {
            return Err(Error::Refused(format!(
                "{server} is live: only a server that is gone can be recovered"
            )));
        }
        if !dead.contains_key(server) {
            return Err(Error::InvalidArgument(format!(
                "{server} has no WAL directory to split (names are host,port,startcode)"
            )));
        }
        let _ddl = master.ddl();
        let regions = split_dead_wal(master, server, true)?;
        let mut reopened = 0;
        for table in master.tables().values() {
            for p in table.placed() {
                if regions.contains(&p.info.encoded_name()) && table.is_enabled() {
                    p.server.reopen_region(&p.info)?;
                    reopened += 1;
                }
            }
        }
        out.push((server.clone(), reopened));
    }
    Ok(out)
}

/// Fences a gone server (its WAL directory renamed `-splitting`, so it cannot roll into it
/// again), splits its log into its regions' recovered edits, keeps the segments replication
/// queues still need, and removes the directory. With `regions`, returns the regions that had
/// edits (one more read of the segments; a recovery that reopens every region of the server
/// needs none). The caller holds the DDL lock.
pub fn split_dead_wal(master: &Master, server: &str, regions: bool) -> Result<BTreeSet<String>> {
    let fs = master.fs.as_ref();
    let wal_root = master.root.join(layout::WAL_DIR);
    let dir = wal_root.join(server);
    let splitting = wal_root.join(format!("{server}{SPLITTING}"));
    if fs.exists(&dir).map_err(storage)? {
        fs.rename(&dir, &splitting).map_err(storage)?;
    }
    if !fs.exists(&splitting).map_err(storage)? {
        return Ok(BTreeSet::new());
    }
    let regions = if regions {
        recovered_regions(fs, &splitting)?
    } else {
        BTreeSet::new()
    };
    basalt_regionserver::split_log(fs, &master.root, &splitting, false)?;
    basalt_regionserver::replication::queues::keep_split_segments(
        fs,
        &master.root,
        server,
        &splitting,
    )?;
    layout::delete_dir(fs, &splitting)?;
    Ok(regions)
}

/// The encoded names of the regions a WAL directory holds edits of.
fn recovered_regions(
    fs: &dyn basalt_fs::FileSystem,
    dir: &std::path::Path,
) -> Result<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for segment in basalt_wal::segments_in(fs, dir)? {
        let contents = basalt_wal::read_segment_file(fs, &segment)?;
        out.extend(contents.edits.into_iter().map(|(_, e)| e.region));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn region(start: &str, end: &str, id: i64) -> RegionInfo {
        RegionInfo::new(
            TableName::parse("t").unwrap(),
            Bytes::from(start.to_owned()),
            Bytes::from(end.to_owned()),
            id,
        )
    }

    fn kinds(regions: &[RegionInfo]) -> Vec<(Kind, String)> {
        let refs: Vec<&RegionInfo> = regions.iter().collect();
        let mut out = Vec::new();
        chain("t", &refs, &mut out);
        out.into_iter()
            .map(|f| {
                let what = if f.kind == Kind::Hole {
                    f.subject
                } else {
                    String::new()
                };
                (f.kind, what)
            })
            .collect()
    }

    #[test]
    fn a_whole_chain_is_consistent() {
        assert!(kinds(&[region("", "b", 1), region("b", "c", 1), region("c", "", 1)]).is_empty());
        assert!(kinds(&[region("", "", 1)]).is_empty());
    }

    #[test]
    fn holes_and_overlaps_are_found() {
        assert_eq!(
            kinds(&[region("", "b", 1), region("c", "", 1)]),
            [(Kind::Hole, "[b, c)".to_owned())]
        );
        assert_eq!(
            kinds(&[region("b", "", 1)]),
            [(Kind::Hole, "[, b)".to_owned())]
        );
        assert_eq!(
            kinds(&[region("", "b", 1)]),
            [(Kind::Hole, "[b, end)".to_owned())]
        );
        assert_eq!(
            kinds(&[region("", "c", 1), region("b", "d", 1), region("d", "", 1)]),
            [(Kind::Overlap, String::new())]
        );
        // A region inside another, and one after the end of the table.
        assert_eq!(
            kinds(&[region("", "", 1), region("m", "n", 1)]),
            [(Kind::Overlap, String::new())]
        );
    }
}
