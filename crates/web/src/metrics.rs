//! `/metrics` (Prometheus's text format, version 0.0.4) and `/jmx` (HBase's JSON beans) from a
//! server's figures.

use std::fmt::Write as _;

use basalt_client::metrics::{
    BUCKETS_MICROS, HistogramSnapshot, MasterMetrics, MasterStatus, Op, ReplicationSourceStatus,
    ServerMetrics, ServerStatus,
};
use serde_json::{Map, Value, json};

/// A per-region family: name, type, help, and how to read its value from a region.
type RegionFamily = (
    &'static str,
    &'static str,
    &'static str,
    fn(&basalt_client::metrics::RegionStatus) -> u64,
);

/// A per-table space quota family, as [`RegionFamily`] without a type.
type SpaceFamily = (
    &'static str,
    &'static str,
    fn(&basalt_client::quota::SpaceSnapshot) -> u64,
);

/// A per-replication-queue family, as [`RegionFamily`].
type SourceFamily = (
    &'static str,
    &'static str,
    &'static str,
    fn(&ReplicationSourceStatus) -> u64,
);

/// Prometheus text being built.
#[derive(Debug, Default)]
pub struct Prometheus {
    out: String,
}

/// Escapes a label value.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Prometheus {
    fn help(&mut self, name: &str, kind: &str, help: &str) {
        let _ = writeln!(self.out, "# HELP {name} {help}");
        let _ = writeln!(self.out, "# TYPE {name} {kind}");
    }

    /// One sample; `labels` is `k="v",...` already escaped, or empty.
    fn sample(&mut self, name: &str, labels: &str, value: impl std::fmt::Display) {
        if labels.is_empty() {
            let _ = writeln!(self.out, "{name} {value}");
        } else {
            let _ = writeln!(self.out, "{name}{{{labels}}} {value}");
        }
    }

    fn one(&mut self, name: &str, kind: &str, help: &str, value: impl std::fmt::Display) {
        self.help(name, kind, help);
        self.sample(name, "", value);
    }

    fn histogram_samples(&mut self, name: &str, labels: &str, h: &HistogramSnapshot) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut cumulative = 0;
        for (i, bound) in BUCKETS_MICROS.iter().enumerate() {
            cumulative += h.buckets.get(i).copied().unwrap_or(0);
            let le = *bound as f64 / 1e6;
            self.sample(
                &format!("{name}_bucket"),
                &format!("{labels}{sep}le=\"{le}\""),
                cumulative,
            );
        }
        self.sample(
            &format!("{name}_bucket"),
            &format!("{labels}{sep}le=\"+Inf\""),
            h.count,
        );
        self.sample(&format!("{name}_sum"), labels, h.sum_micros as f64 / 1e6);
        self.sample(&format!("{name}_count"), labels, h.count);
    }

    fn histogram(&mut self, name: &str, help: &str, h: &HistogramSnapshot) {
        self.help(name, "histogram", help);
        self.histogram_samples(name, "", h);
    }

    pub fn finish(self) -> String {
        self.out
    }

    /// A region server's families.
    pub fn region_server(&mut self, s: &ServerStatus, m: &ServerMetrics) {
        let name = "basalt_regionserver_requests_total";
        self.help(name, "counter", "Client operations served, by operation.");
        for op in Op::ALL {
            self.sample(name, &format!("op=\"{}\"", op.label()), m.op(op).count());
        }
        let name = "basalt_regionserver_op_latency_seconds";
        self.help(name, "histogram", "Client operation latency, by operation.");
        for op in Op::ALL {
            self.histogram_samples(
                name,
                &format!("op=\"{}\"", op.label()),
                &m.op(op).snapshot(),
            );
        }
        let per_region: [RegionFamily; 5] = [
            (
                "basalt_region_read_requests_total",
                "counter",
                "Gets and scanned rows served by the region since it opened.",
                |r| r.read_requests,
            ),
            (
                "basalt_region_write_requests_total",
                "counter",
                "Row mutations applied to the region since it opened.",
                |r| r.write_requests,
            ),
            (
                "basalt_region_memstore_bytes",
                "gauge",
                "Bytes in the region's memstores.",
                |r| r.memstore_bytes,
            ),
            (
                "basalt_region_store_files",
                "gauge",
                "Store files of the region.",
                |r| r.store_files as u64,
            ),
            (
                "basalt_region_store_file_bytes",
                "gauge",
                "Bytes of the region's store files.",
                |r| r.store_file_bytes,
            ),
        ];
        for (name, kind, help, value) in per_region {
            self.help(name, kind, help);
            for r in &s.regions {
                self.sample(
                    name,
                    &format!(
                        "table=\"{}\",region=\"{}\"",
                        label(&r.table),
                        label(&r.encoded_name)
                    ),
                    value(r),
                );
            }
        }
        self.server_gauges(s, m);
    }

    /// A region server's own gauges and counters (then its flushes, compactions and the rest).
    fn server_gauges(&mut self, s: &ServerStatus, m: &ServerMetrics) {
        self.per_table(s);
        self.per_user(s);
        self.one(
            "basalt_regionserver_regions",
            "gauge",
            "Regions online.",
            s.regions.len(),
        );
        self.one(
            "basalt_regionserver_memstore_bytes",
            "gauge",
            "Bytes in all memstores.",
            s.regions.iter().map(|r| r.memstore_bytes).sum::<u64>(),
        );
        self.one(
            "basalt_regionserver_store_files",
            "gauge",
            "Store files of all regions.",
            s.regions.iter().map(|r| r.store_files).sum::<usize>(),
        );
        self.one(
            "basalt_regionserver_store_file_bytes",
            "gauge",
            "Bytes of all store files.",
            s.regions.iter().map(|r| r.store_file_bytes).sum::<u64>(),
        );
        self.one(
            "basalt_block_cache_hits_total",
            "counter",
            "Block cache hits.",
            s.block_cache_hits,
        );
        self.one(
            "basalt_block_cache_misses_total",
            "counter",
            "Block cache misses.",
            s.block_cache_misses,
        );
        self.one(
            "basalt_block_cache_evictions_total",
            "counter",
            "Blocks evicted from the cache.",
            s.block_cache_evictions,
        );
        self.one(
            "basalt_block_cache_bytes",
            "gauge",
            "Bytes of blocks in the cache.",
            s.block_cache_bytes,
        );
        self.one(
            "basalt_block_cache_capacity_bytes",
            "gauge",
            "The block cache's capacity.",
            s.block_cache_capacity,
        );
        self.one(
            "basalt_block_cache_blocks",
            "gauge",
            "Blocks in the cache.",
            s.block_cache_blocks,
        );
        self.server_work(s, m);
    }

    /// A region server's background work: flushes, compactions, WAL, coprocessors, replication.
    fn server_work(&mut self, s: &ServerStatus, m: &ServerMetrics) {
        self.histogram(
            "basalt_flush_duration_seconds",
            "Memstore flushes and their duration.",
            &m.flushes.snapshot(),
        );
        self.one(
            "basalt_flushed_bytes_total",
            "counter",
            "Memstore bytes flushed.",
            m.flushed_bytes.get(),
        );
        self.one(
            "basalt_flush_queue_length",
            "gauge",
            "Regions whose memstore waits for a flush.",
            s.flush_queue,
        );
        self.histogram(
            "basalt_compaction_duration_seconds",
            "Store compactions and their duration.",
            &m.compactions.snapshot(),
        );
        self.one(
            "basalt_compacted_bytes_total",
            "counter",
            "Store file bytes compacted.",
            m.compacted_bytes.get(),
        );
        self.one(
            "basalt_compaction_queue_length",
            "gauge",
            "Regions waiting for a compaction.",
            s.compaction_queue,
        );
        self.one(
            "basalt_wal_appends_total",
            "counter",
            "Edits appended to the WAL.",
            m.wal_appends.get(),
        );
        self.one(
            "basalt_wal_append_bytes_total",
            "counter",
            "Bytes appended to the WAL.",
            m.wal_append_bytes.get(),
        );
        self.histogram(
            "basalt_wal_sync_duration_seconds",
            "WAL group writes (to the OS, or fsynced) and their duration.",
            &m.wal_syncs.snapshot(),
        );
        self.one(
            "basalt_wal_files",
            "gauge",
            "Segments in the server's WAL directory.",
            s.wal_files,
        );
        self.one(
            "basalt_splits_total",
            "counter",
            "Region splits this server ran.",
            m.splits.get(),
        );
        self.one(
            "basalt_merges_total",
            "counter",
            "Region merges this server ran.",
            m.merges.get(),
        );
        self.one(
            "basalt_open_scanners",
            "gauge",
            "Scanners open on the server's native RPC.",
            s.open_scanners,
        );
        let modules = s.regions.iter().flat_map(|r| &r.coprocessors);
        let (running, unloaded) = modules.fold((0, 0), |(on, off), c| {
            if c.loaded {
                (on + 1, off)
            } else {
                (on, off + 1)
            }
        });
        self.help(
            "basalt_coprocessors",
            "gauge",
            "Coprocessor modules on this server's regions, by state.",
        );
        self.sample("basalt_coprocessors", "state=\"running\"", running);
        self.sample("basalt_coprocessors", "state=\"unloaded\"", unloaded);
        self.one(
            "basalt_background_tasks",
            "gauge",
            "Flushes, compactions, splits and merges running.",
            s.tasks.len(),
        );
        self.one(
            "basalt_regionserver_uptime_seconds",
            "gauge",
            "Seconds since the server started.",
            m.uptime().as_secs(),
        );
        self.replication(s);
    }

    /// Each table's requests on this server (its regions' summed).
    fn per_table(&mut self, s: &ServerStatus) {
        let mut tables: std::collections::BTreeMap<&str, (u64, u64)> = Default::default();
        for r in &s.regions {
            let t = tables.entry(r.table.as_str()).or_default();
            t.0 += r.read_requests;
            t.1 += r.write_requests;
        }
        for (name, help, pick) in [
            (
                "basalt_table_read_requests_total",
                "Gets and scanned rows served by the table's regions on this server since they \
                 opened.",
                (|c: &(u64, u64)| c.0) as fn(&(u64, u64)) -> u64,
            ),
            (
                "basalt_table_write_requests_total",
                "Row mutations applied to the table's regions on this server since they opened.",
                |c: &(u64, u64)| c.1,
            ),
        ] {
            self.help(name, "counter", help);
            for (table, counts) in &tables {
                self.sample(name, &format!("table=\"{}\"", label(table)), pick(counts));
            }
        }
    }

    /// Each user's client calls on this server, and those a throttle refused (issue 48).
    fn per_user(&mut self, s: &ServerStatus) {
        let name = "basalt_user_requests_total";
        self.help(
            name,
            "counter",
            "Client calls (Get, Mutate, Scan, Multi) by user, throttled ones included.",
        );
        for u in &s.users {
            self.sample(name, &format!("user=\"{}\"", label(&u.user)), u.requests);
        }
        let name = "basalt_user_throttled_requests_total";
        self.help(
            name,
            "counter",
            "Client calls refused by an RPC throttle (RpcThrottlingException), by user.",
        );
        for u in &s.users {
            self.sample(name, &format!("user=\"{}\"", label(&u.user)), u.throttled);
        }
    }

    /// Each table's space use against its space quota.
    fn space(&mut self, s: &MasterStatus) {
        let families: [SpaceFamily; 3] = [
            (
                "basalt_quota_space_usage_bytes",
                "Store file bytes of the table, as the space quota observer last counted them.",
                |q| q.usage,
            ),
            (
                "basalt_quota_space_limit_bytes",
                "The table's space quota (its own or its namespace's).",
                |q| q.limit,
            ),
            (
                "basalt_quota_space_in_violation",
                "Whether the table is over its space quota and its policy in force (1) or not (0).",
                |q| u64::from(q.in_violation),
            ),
        ];
        for (name, help, value) in families {
            self.help(name, "gauge", help);
            for (table, q) in &s.space {
                self.sample(
                    name,
                    &format!("table=\"{}\",policy=\"{}\"", label(table), q.policy.name()),
                    value(q),
                );
            }
        }
    }

    /// Each replication queue's figures, labelled by peer and queue, and the sink's.
    fn replication(&mut self, s: &ServerStatus) {
        let per_source: [SourceFamily; 7] = [
            (
                "basalt_replication_source_age_of_last_shipped_op_ms",
                "gauge",
                "Milliseconds from an edit's write to its shipping, as of the last batch (0: caught up; growing while the peer does not take them).",
                |r| r.age_of_last_shipped_op_ms.max(0) as u64,
            ),
            (
                "basalt_replication_source_size_of_log_queue",
                "gauge",
                "WAL segments of the queue not yet shipped to the end.",
                |r| r.size_of_log_queue,
            ),
            (
                "basalt_replication_source_shipped_ops_total",
                "counter",
                "Edits shipped to the peer.",
                |r| r.shipped_ops,
            ),
            (
                "basalt_replication_source_shipped_batches_total",
                "counter",
                "ReplicateWALEntry batches the peer took.",
                |r| r.shipped_batches,
            ),
            (
                "basalt_replication_source_shipped_bytes_total",
                "counter",
                "Cell bytes shipped to the peer.",
                |r| r.shipped_bytes,
            ),
            (
                "basalt_replication_source_failed_batches_total",
                "counter",
                "Batches the peer did not take (each is sent again).",
                |r| r.failed_batches,
            ),
            (
                "basalt_replication_source_edits_read_total",
                "counter",
                "WAL edits read, shipped or filtered out.",
                |r| r.edits_read,
            ),
        ];
        for (name, kind, help, value) in per_source {
            self.help(name, kind, help);
            for r in &s.replication_sources {
                self.sample(
                    name,
                    &format!("peer=\"{}\",queue=\"{}\"", label(&r.peer), label(&r.queue)),
                    value(r),
                );
            }
        }
        let sink = &s.replication_sink;
        self.one(
            "basalt_replication_sink_applied_ops_total",
            "counter",
            "Edits peers replicated here, applied.",
            sink.applied_ops,
        );
        self.one(
            "basalt_replication_sink_applied_batches_total",
            "counter",
            "Batches peers replicated here, applied.",
            sink.applied_batches,
        );
        self.one(
            "basalt_replication_sink_failed_batches_total",
            "counter",
            "Batches peers sent here that could not be applied.",
            sink.failed_batches,
        );
        self.one(
            "basalt_replication_sink_age_of_last_applied_op_ms",
            "gauge",
            "Milliseconds from the newest applied edit's write at its source to its applying here.",
            sink.age_of_last_applied_op_ms.max(0),
        );
    }

    /// A master's families.
    pub fn master(&mut self, s: &MasterStatus, m: &MasterMetrics) {
        self.space(s);
        self.one(
            "basalt_master_region_servers",
            "gauge",
            "Live region servers.",
            s.live_servers,
        );
        self.one(
            "basalt_master_dead_region_servers",
            "gauge",
            "Region servers found dead.",
            s.dead_servers,
        );
        self.one(
            "basalt_master_regions",
            "gauge",
            "Regions of enabled tables.",
            s.regions,
        );
        self.one(
            "basalt_master_regions_in_transition",
            "gauge",
            "Regions waiting for a server.",
            s.regions_in_transition,
        );
        self.one(
            "basalt_master_balancer_on",
            "gauge",
            "Whether the balancer runs (1) or not (0).",
            u8::from(s.balancer_on),
        );
        self.one(
            "basalt_master_balancer_runs_total",
            "counter",
            "Balancer runs.",
            m.balancer_runs.get(),
        );
        self.one(
            "basalt_master_regions_moved_total",
            "counter",
            "Regions the balancer moved.",
            m.regions_moved.get(),
        );
        self.one(
            "basalt_master_uptime_seconds",
            "gauge",
            "Seconds since the master started.",
            m.uptime().as_secs(),
        );
    }
}

/// HBase's `Hadoop:service=HBase,name=RegionServer,sub=Server` bean. Latencies in
/// milliseconds, as HBase's are.
pub fn region_server_bean(s: &ServerStatus, m: &ServerMetrics) -> Value {
    let reads: u64 = s.regions.iter().map(|r| r.read_requests).sum();
    let writes: u64 = s.regions.iter().map(|r| r.write_requests).sum();
    let lookups = s.block_cache_hits + s.block_cache_misses;
    let mut bean = Map::new();
    let mut put = |k: &str, v: Value| {
        bean.insert(k.to_owned(), v);
    };
    put(
        "name",
        json!("Hadoop:service=HBase,name=RegionServer,sub=Server"),
    );
    put("modelerType", json!("RegionServer,sub=Server"));
    put(
        "tag.Hostname",
        json!(s.name.split(',').next().unwrap_or("")),
    );
    put("serverName", json!(s.name));
    put("regionCount", json!(s.regions.len()));
    put(
        "storeCount",
        json!(s.regions.iter().map(|r| r.stores).sum::<usize>()),
    );
    put(
        "storeFileCount",
        json!(s.regions.iter().map(|r| r.store_files).sum::<usize>()),
    );
    put(
        "storeFileSize",
        json!(s.regions.iter().map(|r| r.store_file_bytes).sum::<u64>()),
    );
    put(
        "memStoreSize",
        json!(s.regions.iter().map(|r| r.memstore_bytes).sum::<u64>()),
    );
    put("hlogFileCount", json!(s.wal_files));
    put("totalRequestCount", json!(reads + writes));
    put("readRequestCount", json!(reads));
    put("writeRequestCount", json!(writes));
    put("blockCacheSize", json!(s.block_cache_bytes));
    put(
        "blockCacheFreeSize",
        json!(s.block_cache_capacity.saturating_sub(s.block_cache_bytes)),
    );
    put("blockCacheCount", json!(s.block_cache_blocks));
    put("blockCacheHitCount", json!(s.block_cache_hits));
    put("blockCacheMissCount", json!(s.block_cache_misses));
    put("blockCacheEvictionCount", json!(s.block_cache_evictions));
    put(
        "blockCacheCountHitPercent",
        json!(if lookups == 0 {
            0.0
        } else {
            100.0 * s.block_cache_hits as f64 / lookups as f64
        }),
    );
    put("compactionQueueLength", json!(s.compaction_queue));
    put("flushQueueLength", json!(s.flush_queue));
    put("splitQueueLength", json!(0));
    put("flushedMemstoreBytes", json!(m.flushed_bytes.get()));
    put("splitRequestCount", json!(m.splits.get()));
    put("mergeRequestCount", json!(m.merges.get()));
    for op in Op::ALL {
        let h = m.op(op).snapshot();
        put(&format!("{}_num_ops", op.jmx()), json!(h.count));
        put(
            &format!("{}_mean", op.jmx()),
            json!(h.mean_micros() / 1000.0),
        );
        put(
            &format!("{}_99th_percentile", op.jmx()),
            json!(h.quantile_micros(0.99) as f64 / 1000.0),
        );
    }
    Value::Object(bean)
}

/// HBase's `Hadoop:service=HBase,name=RegionServer,sub=Replication` bean: per queue
/// `source.<queue>.<figure>` (HBase's names; `failedBatches` is Basalt's), the same summed (the
/// age the greatest) as `source.<figure>`, and the sink's `sink.<figure>`.
pub fn replication_bean(s: &ServerStatus) -> Value {
    let mut bean = Map::new();
    let mut put = |k: String, v: Value| {
        bean.insert(k, v);
    };
    put(
        "name".into(),
        json!("Hadoop:service=HBase,name=RegionServer,sub=Replication"),
    );
    put("modelerType".into(), json!("RegionServer,sub=Replication"));
    let figures = |r: &ReplicationSourceStatus| {
        [
            (
                "ageOfLastShippedOp",
                r.age_of_last_shipped_op_ms.max(0) as u64,
            ),
            ("sizeOfLogQueue", r.size_of_log_queue),
            ("shippedOps", r.shipped_ops),
            ("shippedBatches", r.shipped_batches),
            ("shippedBytes", r.shipped_bytes),
            ("failedBatches", r.failed_batches),
            ("logEditsRead", r.edits_read),
        ]
    };
    let mut totals: Vec<(&str, u64)> = Vec::new();
    for r in &s.replication_sources {
        for (i, (figure, value)) in figures(r).into_iter().enumerate() {
            put(format!("source.{}.{figure}", r.queue), json!(value));
            match totals.get_mut(i) {
                Some((_, t)) if figure == "ageOfLastShippedOp" => *t = (*t).max(value),
                Some((_, t)) => *t += value,
                None => totals.push((figure, value)),
            }
        }
    }
    if totals.is_empty() {
        totals = figures(&ReplicationSourceStatus::default()).to_vec();
    }
    for (figure, value) in totals {
        put(format!("source.{figure}"), json!(value));
    }
    let sink = &s.replication_sink;
    put(
        "sink.ageOfLastAppliedOp".into(),
        json!(sink.age_of_last_applied_op_ms.max(0)),
    );
    put("sink.appliedOps".into(), json!(sink.applied_ops));
    put("sink.appliedBatches".into(), json!(sink.applied_batches));
    put("sink.failedBatches".into(), json!(sink.failed_batches));
    put(
        "sink.timeStampsOfLastAppliedOp".into(),
        json!(sink.last_applied_at),
    );
    Value::Object(bean)
}

/// HBase's master beans (`sub=Server`, `sub=AssignmentManager`, `sub=Balancer`).
pub fn master_beans(s: &MasterStatus, m: &MasterMetrics) -> Vec<Value> {
    let average = if s.live_servers == 0 {
        0.0
    } else {
        s.regions as f64 / s.live_servers as f64
    };
    vec![
        json!({
            "name": "Hadoop:service=HBase,name=Master,sub=Server",
            "modelerType": "Master,sub=Server",
            "serverName": s.name,
            "numRegionServers": s.live_servers,
            "numDeadRegionServers": s.dead_servers,
            "averageLoad": average,
            "isActiveMaster": s.is_active,
            "masterActiveTime": m.uptime().as_millis() as u64,
        }),
        json!({
            "name": "Hadoop:service=HBase,name=Master,sub=AssignmentManager",
            "modelerType": "Master,sub=AssignmentManager",
            "ritCount": s.regions_in_transition,
        }),
        json!({
            "name": "Hadoop:service=HBase,name=Master,sub=Balancer",
            "modelerType": "Master,sub=Balancer",
            "BalancerCluster_num_ops": m.balancer_runs.get(),
            "miscInvocationCount": m.regions_moved.get(),
        }),
    ]
}

/// Whether bean `name` answers query `qry` (HBase's: an exact name, or `*` as a wildcard).
pub fn matches_query(name: &str, qry: &str) -> bool {
    let parts: Vec<&str> = qry.split('*').collect();
    if parts.len() == 1 {
        return name == qry;
    }
    let mut rest = name;
    for (i, part) in parts.iter().enumerate() {
        if i == 0 {
            let Some(r) = rest.strip_prefix(part) else {
                return false;
            };
            rest = r;
        } else if i == parts.len() - 1 {
            return rest.ends_with(part);
        } else {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_match_like_hbase_s() {
        let n = "Hadoop:service=HBase,name=RegionServer,sub=Server";
        assert!(matches_query(n, n));
        assert!(matches_query(n, "Hadoop:service=HBase,name=RegionServer,*"));
        assert!(matches_query(n, "*sub=Server"));
        assert!(!matches_query(n, "Hadoop:service=HBase,name=Master,*"));
    }

    #[test]
    fn histograms_render_cumulative_buckets() {
        let m = ServerMetrics::default();
        m.op(Op::Get).record(std::time::Duration::from_micros(75));
        m.op(Op::Get).record(std::time::Duration::from_secs(60));
        let mut p = Prometheus::default();
        p.region_server(&ServerStatus::default(), &m);
        let text = p.finish();
        assert!(
            text.contains("basalt_regionserver_requests_total{op=\"get\"} 2"),
            "{text}"
        );
        assert!(
            text.contains(
                "basalt_regionserver_op_latency_seconds_bucket{op=\"get\",le=\"0.00005\"} 0"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "basalt_regionserver_op_latency_seconds_bucket{op=\"get\",le=\"0.0001\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "basalt_regionserver_op_latency_seconds_bucket{op=\"get\",le=\"+Inf\"} 2"
            ),
            "{text}"
        );
        assert!(
            text.contains("basalt_regionserver_op_latency_seconds_count{op=\"get\"} 2"),
            "{text}"
        );
    }
}
