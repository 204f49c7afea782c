//! HBase's NEW_VERSION_BEHAVIOR (a family attribute): deletes and versions decided by the
//! order writes happened in, not by timestamps alone, so results never change when flushes
//! and compactions rewrite files (docs/design/data-model.md, "NEW_VERSION_BEHAVIOR").
//!
//! - A delete marker masks only cells written before it (a lower sequence id): a Put written
//!   after a Delete is seen even with an older timestamp.
//! - A version that has fallen out of the family's VERSIONS stays out: deleting newer
//!   versions later does not bring it back.
//!
//! [`NvbTracker`] follows one row of one store in store order (timestamps descending), as
//! HBase's `NewVersionBehaviorTracker` does. Each DeleteColumn or DeleteFamily marker starts a
//! node; within a node, each single-version marker (Delete, DeleteFamilyVersion) splits the
//! history into segments, and a segment counts the puts visible in it. A put is hidden when it
//! is deleted, when it repeats the timestamp of the put before it, or when a segment it would
//! join already holds VERSIONS puts.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use basalt_common::CellType;

/// The versions written between two column-wide deletes.
#[derive(Debug, Clone)]
struct Node {
    /// The column-wide marker's timestamp (`i64::MIN` for the node after every marker).
    ts: i64,
    /// Single-version markers: timestamp -> their sequence ids.
    deletes: HashMap<i64, BTreeSet<u64>>,
    /// Segments, keyed by the sequence id of the single-version marker that ends them
    /// (`u64::MAX` for the last): the sequence ids of the puts counted in each.
    counting: BTreeMap<u64, BTreeSet<u64>>,
}

impl Node {
    fn new(ts: i64) -> Node {
        Node {
            ts,
            deletes: HashMap::new(),
            counting: BTreeMap::from([(u64::MAX, BTreeSet::new())]),
        }
    }

    /// A single-version marker: a new segment, holding the puts counted after it that were
    /// written before it.
    fn add_version_delete(&mut self, ts: i64, seq: u64) {
        self.deletes.entry(ts).or_default().insert(seq);
        let before: BTreeSet<u64> = self
            .counting
            .range(seq..)
            .next()
            .map(|(_, later)| later.range(..seq).copied().collect())
            .unwrap_or_default();
        self.counting.insert(seq, before);
    }
}

/// The nodes of one scope (the family, or the current column), by the sequence id of the
/// marker that ends them (`u64::MAX` for the last).
type Nodes = BTreeMap<u64, Node>;

fn fresh() -> Nodes {
    BTreeMap::from([(u64::MAX, Node::new(i64::MIN))])
}

/// The node a marker written at `seq` belongs to: the first that ends at or after it.
fn node_at(nodes: &mut Nodes, seq: u64) -> &mut Node {
    let key = nodes.range(seq..).next().map_or(u64::MAX, |(k, _)| *k);
    nodes.entry(key).or_insert_with(|| Node::new(i64::MIN))
}

/// Decides, cell after cell of one row of one store, which puts NEW_VERSION_BEHAVIOR hides.
#[derive(Debug)]
pub struct NvbTracker {
    /// The family's VERSIONS.
    max_versions: usize,
    family: Nodes,
    column: Nodes,
    /// Whether the current column is the empty qualifier, where the family's markers are.
    empty_qualifier: bool,
    /// The timestamp and sequence id of the column's last put, for duplicates.
    last_put: Option<(i64, u64)>,
}

impl NvbTracker {
    pub fn new(max_versions: u32) -> NvbTracker {
        NvbTracker {
            max_versions: max_versions.max(1) as usize,
            family: fresh(),
            column: fresh(),
            empty_qualifier: true,
            last_put: None,
        }
    }

    /// A new row: no marker seen yet.
    pub fn start_row(&mut self) {
        self.family = fresh();
        self.column = fresh();
        self.empty_qualifier = true;
        self.last_put = None;
    }

    /// A new column of the row: it starts with the family's markers.
    pub fn start_column(&mut self, empty_qualifier: bool) {
        self.column = self.family.clone();
        self.empty_qualifier = empty_qualifier;
        self.last_put = None;
    }

    /// A delete marker of the current column (family markers are in the empty qualifier).
    pub fn add_marker(&mut self, kind: CellType, ts: i64, seq: u64) {
        self.last_put = None;
        match kind {
            CellType::DeleteFamily => {
                self.family.insert(seq, Node::new(ts));
                // The empty qualifier's own puts are under the family's markers too.
                if self.empty_qualifier {
                    self.column.insert(seq, Node::new(ts));
                }
            }
            CellType::DeleteFamilyVersion => {
                node_at(&mut self.family, seq).add_version_delete(ts, seq);
                if self.empty_qualifier {
                    node_at(&mut self.column, seq).add_version_delete(ts, seq);
                }
            }
            CellType::DeleteColumn => {
                self.column.insert(seq, Node::new(ts));
            }
            CellType::Delete => node_at(&mut self.column, seq).add_version_delete(ts, seq),
            _ => {}
        }
    }

    /// Whether the put at `ts`, written at `seq`, is hidden: deleted, a repeat of the last
    /// put's timestamp, or beyond VERSIONS. Every put of the column must be shown, in store
    /// order, for the counts to hold.
    pub fn hides_put(&mut self, ts: i64, seq: u64) -> bool {
        let duplicate = match self.last_put {
            Some((last_ts, last_seq)) if last_ts == ts => last_seq,
            _ => {
                self.last_put = Some((ts, seq));
                u64::MAX
            }
        };
        let max_versions = self.max_versions;
        for node in self.column.range_mut(seq..).map(|(_, n)| n) {
            let deleted_at = node
                .deletes
                .get(&ts)
                .and_then(|seqs| seqs.range(seq..).next().copied())
                .unwrap_or(u64::MAX);
            let until = duplicate.min(deleted_at);
            if seq <= until {
                for counted in node.counting.range_mut(seq..=until).map(|(_, c)| c) {
                    if counted.len() >= max_versions {
                        return true;
                    }
                    counted.insert(seq);
                }
            }
            if deleted_at < u64::MAX || ts <= node.ts {
                return true;
            }
        }
        duplicate < u64::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells of one column as (kind, timestamp, sequence id), to be fed in store order.
    fn visible(max_versions: u32, mut cells: Vec<(CellType, i64, u64)>) -> Vec<i64> {
        // Store order: timestamp descending, type code descending, sequence id descending.
        cells.sort_by(|a, b| {
            b.1.cmp(&a.1)
                .then(b.0.code().cmp(&a.0.code()))
                .then(b.2.cmp(&a.2))
        });
        let mut t = NvbTracker::new(max_versions);
        t.start_row();
        t.start_column(false);
        let mut out = Vec::new();
        for (kind, ts, seq) in cells {
            if kind.is_delete() {
                t.add_marker(kind, ts, seq);
            } else if !t.hides_put(ts, seq) {
                out.push(ts);
            }
        }
        out
    }

    use CellType::{Delete, DeleteColumn, Put};

    #[test]
    fn a_put_written_after_a_delete_is_seen() {
        let cells = vec![
            (Put, 1, 1),
            (Put, 2, 2),
            (Put, 3, 3),
            (Put, 4, 4),
            (DeleteColumn, 2_000, 5),
            (Put, 0, 6),
        ];
        assert_eq!(visible(3, cells), [0]);
    }

    #[test]
    fn versions_out_of_versions_stay_out() {
        let puts = || vec![(Put, 1, 1), (Put, 2, 2), (Put, 3, 3), (Put, 4, 4)];
        let mut cells = puts();
        cells.push((Delete, 3, 5));
        assert_eq!(visible(3, cells), [4, 2], "1 was the fourth version");
        // Deleted before the newer versions came: then 1 counts among three.
        let cells = vec![
            (Put, 1, 1),
            (Put, 2, 2),
            (Delete, 3, 3),
            (Put, 3, 4),
            (Put, 4, 5),
        ];
        assert_eq!(visible(3, cells), [4, 3, 2]);
    }

    #[test]
    fn a_repeated_timestamp_is_one_version() {
        let cells = vec![
            (Put, 1, 1),
            (Put, 2, 2),
            (Put, 3, 3),
            (Put, 3, 4),
            (Put, 3, 5),
            (Put, 3, 6),
            (Delete, 3, 7),
            (Put, 4, 8),
        ];
        assert_eq!(visible(3, cells), [4, 2, 1]);
    }
}
