//! The commands: what each takes, what it prints (as HBase 2.x's shell does), and its help.

use basalt_client::prelude::*;
use std::io::{self, Write};

use basalt_client::{
    Append, Bytes, ColumnFamilyDescriptor, Delete, Error, Get, Increment, NamespaceDescriptor, Put,
    RowResult, Scan, SplitAlgorithm, TableDescriptor, TableName, parse_filter,
};

use basalt_common::chore::Chore;
use basalt_common::quota::QuotaSwitch;

use crate::args::{Args, R, bool_at, bytes_of, key_is, list, text};
use crate::format::{Formatter, binary, cell_text, from_binary};
use crate::syntax::Value;
use crate::{CommandResult, Returned, Shell};

type Run = fn(&mut Shell, &[Value], &mut dyn Write) -> CommandResult;

/// A shell command: its name, group, help text and implementation.
#[derive(Debug)]
pub struct CommandInfo {
    pub name: &'static str,
    pub group: &'static str,
    pub help: &'static str,
    /// Whether `Took N seconds` follows it (not for `help`).
    pub timed: bool,
    pub(crate) run: Run,
}

macro_rules! commands {
    ($( $name:literal, $group:literal, $run:expr, $timed:literal, $help:literal; )*) => {
        /// Every command, in help order.
        pub static COMMANDS: &[CommandInfo] = &[
            $( CommandInfo { name: $name, group: $group, help: $help, timed: $timed, run: $run }, )*
        ];
    };
}

commands! {
    "status", "general", general::status, true,
"Show cluster status: 'summary' (the default) or 'simple'.
  hbase> status
  hbase> status 'simple'";
    "version", "general", general::version, true, "Output the HBase version this server speaks, and Basalt's.";
    "whoami", "general", general::whoami, true, "Show the current user and groups.";
    "p", "general", general::p, false,
"Show a value (Ruby's p), such as what a key function makes. The key functions, usable
wherever a value goes:
  key_long(n)  key_int(n)  key_reverse_ts(ms)  key_md5('part')  key_fixed('part', width)
  key_concat(a, b, ...)  key_split(key, [w1, w2, 0])  key_to_long(bytes)
  key_from_reverse_ts(bytes)
  hbase> p key_concat(key_md5('alice'), key_reverse_ts(1700000000000))
  hbase> put 'events', key_concat(key_fixed('host1', 8), key_reverse_ts(1700000000000)), 'f:q', 'v'
  hbase> p key_split(key_long(7), [4, 0])";
    "help", "general", general::help, false,
"Show the command groups, a group's commands, or one command's help.
  hbase> help
  hbase> help 'dml'
  hbase> help 'scan'";
    "table_help", "general", general::table_help, false, "Help on table handles: t = get_table 't'; t.put ...; t.scan.";
    "create", "ddl", ddl::create, true,
"Create a table: a name, then families as names or hashes of attributes, then table options.
  hbase> create 't1', 'f1', 'f2', 'f3'
  hbase> create 't1', {NAME => 'f1', VERSIONS => 5, TTL => 2592000, BLOCKCACHE => true}
  hbase> create 'ns1:t1', 'f1', SPLITS => ['10', '20', '30']
  hbase> create 't1', 'f1', SPLITS_FILE => 'splits.txt'
  hbase> create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}
  hbase> create 't1', 'f1', MAX_FILESIZE => '134217728', DURABILITY => 'ASYNC_WAL'";
    "enable_all", "ddl", ddl::enable_all, true, "Enable every table matching a regular expression, after listing them and asking.\n  hbase> enable_all 't.*'";
    "disable_all", "ddl", ddl::disable_all, true, "Disable every table matching a regular expression, after listing them and asking.\n  hbase> disable_all 't.*'";
    "drop_all", "ddl", ddl::drop_all, true, "Drop every (disabled) table matching a regular expression, after listing them and asking.\n  hbase> drop_all 't.*'";
    "alter_async", "ddl", ddl::alter_async, true, "As alter, without printing the regions' progress (alter_status shows it).\n  hbase> alter_async 't1', NAME => 'f1', VERSIONS => 5";
    "alter_status", "ddl", ddl::alter_status, true, "How many of a table's regions have its new schema.\n  hbase> alter_status 't1'";
    "alter", "ddl", ddl::alter, true,
"Add, modify or delete families, or change table attributes, online.
  hbase> alter 't1', NAME => 'f1', VERSIONS => 5
  hbase> alter 't1', 'f2'
  hbase> alter 't1', NAME => 'f1', METHOD => 'delete'
  hbase> alter 't1', 'delete' => 'f1'
  hbase> alter 't1', MAX_FILESIZE => '134217728'
  hbase> alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'";
    "describe", "ddl", ddl::describe, true, "Describe the named table.\n  hbase> describe 't1'";
    "desc", "ddl", ddl::describe, true, "Describe the named table (alias of describe).\n  hbase> desc 't1'";
    "disable", "ddl", ddl::disable, true, "Disable the named table.\n  hbase> disable 't1'";
    "enable", "ddl", ddl::enable, true, "Enable the named table.\n  hbase> enable 't1'";
    "drop", "ddl", ddl::drop, true, "Drop the named table; it must be disabled first.\n  hbase> drop 't1'";
    "exists", "ddl", ddl::exists, true, "Does the named table exist?\n  hbase> exists 't1'";
    "is_enabled", "ddl", ddl::is_enabled, true, "Is the named table enabled?\n  hbase> is_enabled 't1'";
    "is_disabled", "ddl", ddl::is_disabled, true, "Is the named table disabled?\n  hbase> is_disabled 't1'";
    "list", "ddl", ddl::list_tables, true,
"List the user tables, optionally those matching a regular expression.
  hbase> list
  hbase> list 'abc.*'
  hbase> list 'ns:.*'";
    "list_regions", "ddl", ddl::list_regions, true, "List the regions of a table.\n  hbase> list_regions 't1'";
    "get_table", "ddl", ddl::get_table, true,
"Get a handle on a table, to call commands on it.
  hbase> t1 = get_table 't1'
  hbase> t1.scan";
    "clone_table_schema", "ddl", ddl::clone_table_schema, true,
"Create an empty table with another table's schema and, unless false is given, its split keys.
  hbase> clone_table_schema 't1', 't2'
  hbase> clone_table_schema 'ns:t1', 'ns:t2', false";
    "locate_region", "ddl", ddl::locate_region, true, "The server and region holding a row.\n  hbase> locate_region 't1', 'row1'";
    "show_filters", "ddl", ddl::show_filters, true, "Show the filters the FILTER strings can use.";
    "create_namespace", "namespace", namespace::create_namespace, true,
"Create a namespace, with optional properties.
  hbase> create_namespace 'ns1'
  hbase> create_namespace 'ns1', {'PROPERTY_NAME' => 'PROPERTY_VALUE'}";
    "drop_namespace", "namespace", namespace::drop_namespace, true, "Drop an empty namespace.\n  hbase> drop_namespace 'ns1'";
    "alter_namespace", "namespace", namespace::alter_namespace, true,
"Set or unset a namespace property.
  hbase> alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}
  hbase> alter_namespace 'ns1', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}";
    "describe_namespace", "namespace", namespace::describe_namespace, true, "Describe a namespace.\n  hbase> describe_namespace 'ns1'";
    "list_namespace", "namespace", namespace::list_namespace, true, "List the namespaces, optionally matching a regular expression.\n  hbase> list_namespace\n  hbase> list_namespace 'abc.*'";
    "list_namespace_tables", "namespace", namespace::list_namespace_tables, true, "List the tables of a namespace.\n  hbase> list_namespace_tables 'ns1'";
    "put", "dml", dml::put, true,
"Put a cell value at a row and column, optionally at a timestamp.
  hbase> put 't1', 'r1', 'c1', 'value'
  hbase> put 't1', 'r1', 'c1', 'value', ts1
  hbase> put 't1', 'r1', 'c1', 'value', {TTL => 100000}
  hbase> put 't1', \"r\\x00\", 'c1', \"\\x01\\x02\"";
    "get", "dml", dml::get, true,
"Get a row, or some of its columns, versions or times.
  hbase> get 't1', 'r1'
  hbase> get 't1', 'r1', {TIMERANGE => [ts1, ts2]}
  hbase> get 't1', 'r1', {COLUMN => 'c1'}
  hbase> get 't1', 'r1', {COLUMN => ['c1', 'c2', 'c3']}
  hbase> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1, VERSIONS => 4}
  hbase> get 't1', 'r1', {FILTER => \"ValueFilter(=, 'binary:abc')\"}
  hbase> get 't1', 'r1', 'c1', 'c2'
  hbase> get 't1', 'r1', ['c1', 'c2']
  hbase> get 't1', 'r1', {COLUMN => 'cf:qualifier:toLong'}";
    "scan", "dml", dml::scan, true,
"Scan a table. Options: COLUMNS, STARTROW, STOPROW, ROWPREFIXFILTER, LIMIT, TIMESTAMP,
TIMERANGE, VERSIONS, RAW, REVERSED, FILTER, CACHE, CACHE_BLOCKS, BATCH, MAX_RESULT_SIZE,
ALLOW_PARTIAL_RESULTS, MAXLENGTH.
  hbase> scan 'hbase:meta'
  hbase> scan 't1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}
  hbase> scan 't1', {REVERSED => true}
  hbase> scan 't1', {ROWPREFIXFILTER => 'row2', FILTER => \"(QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter (123, 456))\"}
  hbase> scan 't1', {RAW => true, VERSIONS => 10}";
    "delete", "dml", dml::delete, true,
"Delete one version of a cell: the newest, or the one at a timestamp.
  hbase> delete 't1', 'r1', 'c1'
  hbase> delete 't1', 'r1', 'c1', ts1";
    "deleteall", "dml", dml::deleteall, true,
"Delete a row, a family or column of it (every version, up to a timestamp), or every row
with a prefix.
  hbase> deleteall 't1', 'r1'
  hbase> deleteall 't1', 'r1', 'c1'
  hbase> deleteall 't1', 'r1', 'c1', ts1
  hbase> deleteall 't1', {ROWPREFIXFILTER => 'prefix'}";
    "incr", "dml", dml::incr, true,
"Increment a counter cell (8-byte big-endian) by 1 or a given amount.
  hbase> incr 't1', 'r1', 'c1'
  hbase> incr 't1', 'r1', 'c1', 10";
    "get_counter", "dml", dml::get_counter, true, "Read a counter cell.\n  hbase> get_counter 't1', 'r1', 'c1'";
    "append", "dml", dml::append, true, "Append a value to a cell.\n  hbase> append 't1', 'r1', 'c1', 'value'";
    "count", "dml", dml::count, true,
"Count the rows of a table, reporting every INTERVAL rows (1000 by default).
  hbase> count 't1'
  hbase> count 't1', INTERVAL => 100000
  hbase> count 't1', {FILTER => \"PrefixFilter('r')\"}";
    "aggregate", "dml", dml::aggregate, true,
"HBase's aggregation endpoint over a column (or a family): MAX, MIN, SUM, ROWNUM, AVG, STD or
MEDIAN of its 8-byte values, each region computing its part where it is served.
  hbase> aggregate 't1', 'f:q', 'SUM'
  hbase> aggregate 't1', 'f:q', 'AVG', {STARTROW => 'a', STOPROW => 'm'}
  hbase> aggregate 't1', 'f:price', 'MEDIAN', {WEIGHT => 'f:qty'}
  hbase> aggregate 't1', 'f:ratio', 'MAX', {INTERPRETER => 'DOUBLE', FILTER => \"PrefixFilter('r')\"}";
    "get_splits", "dml", dml::get_splits, true, "The split points of a table.\n  hbase> get_splits 't1'";
    "truncate", "dml", dml::truncate, true, "Disable, drop and recreate a table, empty.\n  hbase> truncate 't1'";
    "truncate_preserve", "dml", dml::truncate_preserve, true, "Empty a table and keep its region boundaries.\n  hbase> truncate_preserve 't1'";
    "flush", "tools", tools::flush, true, "Flush a table's memstores (or a region's, by name).\n  hbase> flush 't1'";
    "compact", "tools", tools::compact, true, "Compact a table (or a region, by name): a minor compaction.\n  hbase> compact 't1'";
    "major_compact", "tools", tools::major_compact, true, "Major-compact a table (or a region, by name).\n  hbase> major_compact 't1'";
    "split", "tools", tools::split, true,
"Split a table's regions at their midpoints, or the region holding a row there.
  hbase> split 't1'
  hbase> split 't1', 'splitKey'";
    "merge_region", "tools", tools::merge_region, true,
"Merge two adjacent regions, named by encoded or full names.
  hbase> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'";
    "truncate_region", "tools", tools::truncate_region, true,
"Empty one region, named by its encoded or full name: a fresh region over the same rows takes its
place.
  hbase> truncate_region 'ENCODED_REGIONNAME'
  hbase> truncate_region 'REGIONNAME'";
    "decommission_regionservers", "tools", tools::decommission_regionservers, true,
"Take region servers out of service: no new region goes to them, and their regions move to the
others (unless false is given as the second argument). Servers as host,port,startcode or
host:port.
  hbase> decommission_regionservers 'host1,16020,1700000000000'
  hbase> decommission_regionservers ['host1:16020', 'host2:16020'], false";
    "recommission_regionserver", "tools", tools::recommission_regionserver, true,
"Put a decommissioned server back in service, optionally moving regions (encoded names) onto it.
  hbase> recommission_regionserver 'host1,16020,1700000000000'
  hbase> recommission_regionserver 'host1:16020', ['1588230740b7e3c0f8d1a2e3f4a5b6c7']";
    "list_decommissioned_regionservers", "tools", tools::list_decommissioned_regionservers, true, "List the region servers out of service.\n  hbase> list_decommissioned_regionservers";
    "splitormerge_switch", "tools", tools::splitormerge_switch, true,
"Switch splits or merges on or off; prints the previous state. Off, a split or merge is refused
and none starts by itself.
  hbase> splitormerge_switch 'SPLIT', false
  hbase> splitormerge_switch 'MERGE', true";
    "splitormerge_enabled", "tools", tools::splitormerge_enabled, true, "Whether splits (or merges) are on.\n  hbase> splitormerge_enabled 'SPLIT'";
    "compaction_switch", "tools", tools::compaction_switch, true,
"Switch compactions on or off on every live region server, or those named; prints each one's
previous state. Off, no compaction starts by itself and one asked for is refused.
  hbase> compaction_switch false
  hbase> compaction_switch true, ['host1:16020']";
    "compact_rs", "tools", tools::compact_rs, true,
"Compact every region of a region server (true: major compactions).
  hbase> compact_rs 'host1:16020'
  hbase> compact_rs 'host1,16020,1700000000000', true";
    "clear_block_cache", "tools", tools::clear_block_cache, true, "Drop a table's blocks from its region servers' block caches.\n  hbase> clear_block_cache 't1'";
    "list_security_capabilities", "security", tools::list_security_capabilities, true, "List the cluster's security capabilities (authentication, and AUTHORIZATION with access control on).\n  hbase> list_security_capabilities";
    "is_in_maintenance_mode", "tools", tools::is_in_maintenance_mode, true, "Whether the master is in maintenance mode (Basalt has none: false).\n  hbase> is_in_maintenance_mode";
    "regioninfo", "tools", tools::regioninfo, true, "Describe a region, by its full or encoded name.\n  hbase> regioninfo 't1,,1700000000000.0123456789abcdef0123456789abcdef.'\n  hbase> regioninfo '0123456789abcdef0123456789abcdef'";
    "rit", "tools", tools::rit, true, "List the regions in transition: placed on a server that is not live, waiting to open again.\n  hbase> rit";
    "list_unknownservers", "tools", tools::list_unknownservers, true, "List the servers meta places regions on that are neither live nor known dead.\n  hbase> list_unknownservers";
    "processlist", "tools", tools::processlist, true, "List the tasks the live servers run now: flushes, compactions, splits, merges.\n  hbase> processlist";
    "wal_roll", "tools", tools::wal_roll, true,
"Roll a region server's WAL: what it logged so far stays in the segment it was in, later edits
go to a new one (which the log cleaner can then archive once flushed).
  hbase> wal_roll 'host1,16020,1700000000000'";
    "update_config", "tools", tools::update_config, true,
"Have a server read its settings file (--site, hbase-site.xml) again; the settings that change
live take effect (docs/design/operations.md lists them), the others at restart.
  hbase> update_config 'host1,16020,1700000000000'
  hbase> update_config 'host1:16020'";
    "update_all_config", "tools", |s, a, _| no_args(s, a, "update_all_config", |c| c.update_all_config()), true, "update_config on every live region server and on the masters.\n  hbase> update_all_config";
    "catalogjanitor_run", "tools", |s, a, _| no_args(s, a, "catalogjanitor_run", |c| c.run_catalog_janitor().map(drop)), true, "Run the catalog janitor now: split and merge parents nothing reads any more are deleted.\n  hbase> catalogjanitor_run";
    "catalogjanitor_switch", "tools", |s, a, o| tools::chore_switch(s, a, o, Chore::CatalogJanitor), true, "Switch the catalog janitor on or off; prints its previous state.\n  hbase> catalogjanitor_switch false";
    "catalogjanitor_enabled", "tools", |s, a, o| tools::chore_enabled(s, a, o, Chore::CatalogJanitor), true, "Whether the catalog janitor runs by itself.\n  hbase> catalogjanitor_enabled";
    "cleaner_chore_run", "tools", |s, a, o| answers_bool(s, a, o, "cleaner_chore_run", |c| c.run_cleaner_chore()), true, "Have every live region server delete its archived WAL segments past their time to live\n(hbase.master.logcleaner.ttl, 10 minutes) that no replication queue needs, now.\n  hbase> cleaner_chore_run";
    "cleaner_chore_switch", "tools", |s, a, o| tools::chore_switch(s, a, o, Chore::Cleaner), true, "Switch the cleaner chore on or off; prints its previous state. Off, archived WAL segments stay.\n  hbase> cleaner_chore_switch false";
    "cleaner_chore_enabled", "tools", |s, a, o| tools::chore_enabled(s, a, o, Chore::Cleaner), true, "Whether the cleaner chore runs by itself.\n  hbase> cleaner_chore_enabled";
    "snapshot_cleanup_switch", "tools", tools::snapshot_cleanup_switch, true, "Switch the deletion of snapshots past their TTL on or off; prints its previous state.\n  hbase> snapshot_cleanup_switch false";
    "snapshot_cleanup_enabled", "tools", tools::snapshot_cleanup_enabled, true, "Whether snapshots past their TTL are deleted by themselves.\n  hbase> snapshot_cleanup_enabled";
    "normalize", "tools", tools::normalize, true,
"Run the region normalizer now over the tables with NORMALIZATION_ENABLED (or those named):
regions larger than twice the table's average split, runs of small neighbours merge. Prints
whether it ran (false when switched off).
  hbase> normalize
  hbase> normalize {TABLE_NAME => 't1'}
  hbase> normalize {TABLE_NAMES => ['t1', 't2']}
  hbase> normalize {REGEX => 't.*'}
  hbase> normalize {NAMESPACE => 'ns1'}";
    "compaction_state", "tools", tools::compaction_state, true, "The compactions running in a table's regions now: NONE, MINOR, MAJOR or MAJOR_AND_MINOR.\n  hbase> compaction_state 't1'";
    "flush_master_store", "tools", |s, a, _| no_args(s, a, "flush_master_store", |c| c.flush_master_store()), true, "Flush the master's store (hbase:meta, where Basalt's master keeps its state).\n  hbase> flush_master_store";
    "clear_compaction_queues", "tools", tools::clear_compaction_queues, true,
"Clear a region server's compaction queues, long and short or the one named. Basalt queues no
compactions (a requested one runs when asked, background ones start when chosen), so there is
nothing to drop; the names are checked.
  hbase> clear_compaction_queues 'host1:16020'
  hbase> clear_compaction_queues 'host1:16020', 'long'
  hbase> clear_compaction_queues 'host1:16020', ['long', 'short']";
    "get_slowlog_responses", "tools", tools::get_slowlog_responses, true,
"The calls slower than hbase.ipc.warn.response.time (10 s) the region servers keep (the last
256 each), newest first: of every live server ('*'), or those named; filtered by REGION_NAME,
TABLE_NAME, CLIENT_IP, USER (any of them, or all with FILTER_BY_OP => 'AND'), at most LIMIT (10).
  hbase> get_slowlog_responses '*'
  hbase> get_slowlog_responses ['host1:16020'], {TABLE_NAME => 't1', LIMIT => 50}
  hbase> get_slowlog_responses '*', {USER => 'alice', TABLE_NAME => 't1', FILTER_BY_OP => 'AND'}";
    "get_largelog_responses", "tools", tools::get_largelog_responses, true,
"The calls whose answers were larger than hbase.ipc.warn.response.size (100 MiB), as
get_slowlog_responses.
  hbase> get_largelog_responses '*', {LIMIT => 20}";
    "clear_slowlog_responses", "tools", tools::clear_slowlog_responses, true,
"Empty the slow and large logs of every live server, or of those named.
  hbase> clear_slowlog_responses
  hbase> clear_slowlog_responses ['host1:16020']";
    "get_balancer_decisions", "tools", tools::get_balancer_decisions, true, "The balancer's recent runs that moved regions (the last 250), newest first: costs before\nand after, and each move.\n  hbase> get_balancer_decisions\n  hbase> get_balancer_decisions {LIMIT => 10}";
    "get_balancer_rejections", "tools", tools::get_balancer_rejections, true, "The balancer's recent runs that moved nothing, and why (the last 250), newest first.\n  hbase> get_balancer_rejections\n  hbase> get_balancer_rejections {LIMIT => 10}";
    "set_quota", "quotas", quotas::set_quota, true,
"Set, change or remove a quota (kept in hbase:quota; every server enforces a change within
about a second).
TYPE => THROTTLE: for a USER (optionally within a TABLE or NAMESPACE), a TABLE, a NAMESPACE or
the REGIONSERVERs ('all'); LIMIT in requests ('req'), bytes (B, K, M, G, T, P) or capacity
units ('CU') per sec, min, hour or day; THROTTLE_TYPE READ or WRITE (default: both).
TYPE => SPACE: for a TABLE or a NAMESPACE; LIMIT in bytes (B, K, M, G, T, P) of store files,
and the POLICY past it: NO_INSERTS (deletes only), NO_WRITES, NO_WRITES_COMPACTIONS or
DISABLE (the table is disabled until it is back under).
LIMIT => NONE removes; GLOBAL_BYPASS => true lets a USER past table, namespace and region
server throttles.
  hbase> set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => '10req/sec'
  hbase> set_quota TYPE => THROTTLE, THROTTLE_TYPE => WRITE, USER => 'u1', LIMIT => '10M/sec'
  hbase> set_quota TYPE => THROTTLE, USER => 'u1', TABLE => 't2', LIMIT => '5K/min'
  hbase> set_quota TYPE => THROTTLE, NAMESPACE => 'ns1', LIMIT => '10req/sec'
  hbase> set_quota TYPE => THROTTLE, USER => 'u1', LIMIT => NONE
  hbase> set_quota TYPE => SPACE, TABLE => 't1', LIMIT => '1G', POLICY => NO_INSERTS
  hbase> set_quota TYPE => SPACE, NAMESPACE => 'ns1', LIMIT => '50G', POLICY => NO_WRITES
  hbase> set_quota TYPE => SPACE, TABLE => 't1', LIMIT => NONE
  hbase> set_quota USER => 'u1', GLOBAL_BYPASS => true";
    "list_quotas", "quotas", quotas::list_quotas, true, "List the quotas hbase:quota keeps.\n  hbase> list_quotas";
    "enable_rpc_throttle", "quotas", |s, a, o| quotas::switch(s, a, o, QuotaSwitch::RpcThrottle, true), true, "Enforce RPC throttles again; prints the previous state.\n  hbase> enable_rpc_throttle";
    "disable_rpc_throttle", "quotas", |s, a, o| quotas::switch(s, a, o, QuotaSwitch::RpcThrottle, false), true, "Stop enforcing RPC throttles (they stay set); prints the previous state.\n  hbase> disable_rpc_throttle";
    "rpc_throttle_enabled", "quotas", |s, a, o| answers_bool(s, a, o, "rpc_throttle_enabled", |c| c.rpc_throttle_enabled()), true, "Whether RPC throttles are enforced.\n  hbase> rpc_throttle_enabled";
    "enable_exceed_throttle_quota", "quotas", |s, a, o| quotas::switch(s, a, o, QuotaSwitch::ExceedThrottle, true), true,
"Let calls past a user's, table's or namespace's throttle through while the region servers'
throttle (REGIONSERVER => 'all', which must be set) has room; prints the previous state.
  hbase> enable_exceed_throttle_quota";
    "disable_exceed_throttle_quota", "quotas", |s, a, o| quotas::switch(s, a, o, QuotaSwitch::ExceedThrottle, false), true, "Hold every call to every throttle again; prints the previous state.\n  hbase> disable_exceed_throttle_quota";
    "list_quota_table_sizes", "quotas", quotas::list_quota_table_sizes, true, "Every user table's store file bytes, as the region servers report them.\n  hbase> list_quota_table_sizes";
    "list_quota_snapshots", "quotas", quotas::list_quota_snapshots, true,
"Each table's space use against its space quota (its own, or its namespace's), as the master
last worked it out (every hbase.master.quotas.observer.chore.period, 1 minute by default).
  hbase> list_quota_snapshots
  hbase> list_quota_snapshots({TABLE => 't1'})
  hbase> list_quota_snapshots({NAMESPACE => 'ns1'})";
    "list_quota_violations", "quotas", quotas::list_quota_violations, true, "The tables over their space quota, whose policy is in force.\n  hbase> list_quota_violations";
    "list_rsgroups", "rsgroup", rsgroup::list_rsgroups, true, "List the region server groups with their servers and tables (optionally those whose name\nmatches a regular expression).\n  hbase> list_rsgroups\n  hbase> list_rsgroups 'abc.*'";
    "get_rsgroup", "rsgroup", rsgroup::get_rsgroup, true, "Show a region server group's servers and tables.\n  hbase> get_rsgroup 'default'";
    "add_rsgroup", "rsgroup", rsgroup::add_rsgroup, true, "Create a region server group (letters, digits and _).\n  hbase> add_rsgroup 'my_group'";
    "remove_rsgroup", "rsgroup", rsgroup::remove_rsgroup, true, "Remove a region server group; it must hold no servers, tables or namespaces.\n  hbase> remove_rsgroup 'my_group'";
    "rename_rsgroup", "rsgroup", rsgroup::rename_rsgroup, true, "Rename a region server group; its tables and namespaces follow.\n  hbase> rename_rsgroup 'old_name', 'new_name'";
    "get_server_rsgroup", "rsgroup", rsgroup::get_server_rsgroup, true, "The group a region server is in.\n  hbase> get_server_rsgroup 'server1:16020'";
    "get_table_rsgroup", "rsgroup", rsgroup::get_table_rsgroup, true, "The group a table is in (its own, its namespace's, or default).\n  hbase> get_table_rsgroup 'myTable'";
    "get_namespace_rsgroup", "rsgroup", rsgroup::get_namespace_rsgroup, true, "The group a namespace names.\n  hbase> get_namespace_rsgroup 'ns1'";
    "move_servers_rsgroup", "rsgroup", rsgroup::move_servers_rsgroup, true,
"Move region servers into a group; their regions of other groups' tables move off first.
  hbase> move_servers_rsgroup 'dest', ['server1:16020', 'server2:16020']";
    "move_tables_rsgroup", "rsgroup", rsgroup::move_tables_rsgroup, true,
"Move tables into a group; their regions move onto its servers.
  hbase> move_tables_rsgroup 'dest', ['table1', 'ns1:table2']";
    "move_namespaces_rsgroup", "rsgroup", rsgroup::move_namespaces_rsgroup, true,
"Move namespaces into a group: their tables (without a group of their own) follow.
  hbase> move_namespaces_rsgroup 'dest', ['ns1', 'ns2']";
    "move_servers_tables_rsgroup", "rsgroup", rsgroup::move_servers_tables_rsgroup, true,
"Move servers and tables into a group.
  hbase> move_servers_tables_rsgroup 'dest', ['server1:16020'], ['table1']";
    "move_servers_namespaces_rsgroup", "rsgroup", rsgroup::move_servers_namespaces_rsgroup, true,
"Move servers and namespaces into a group.
  hbase> move_servers_namespaces_rsgroup 'dest', ['server1:16020'], ['ns1']";
    "remove_servers_rsgroup", "rsgroup", rsgroup::remove_servers_rsgroup, true,
"Remove region servers that are gone (not running) from their group.
  hbase> remove_servers_rsgroup ['server1:16020']";
    "balance_rsgroup", "rsgroup", rsgroup::balance_rsgroup, true, "Balance a region server group's regions over its own servers.\n  hbase> balance_rsgroup 'my_group'";
    "alter_rsgroup_config", "rsgroup", rsgroup::alter_rsgroup_config, true,
"Set or unset a region server group's configuration.
  hbase> alter_rsgroup_config 'grp1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}
  hbase> alter_rsgroup_config 'grp1', {METHOD => 'unset', NAME => 'PROPERTY_NAME'}";
    "show_rsgroup_config", "rsgroup", rsgroup::show_rsgroup_config, true, "Show a region server group's configuration.\n  hbase> show_rsgroup_config 'grp1'";
    "update_rsgroup_config", "configuration", rsgroup::update_rsgroup_config, true, "Have every server of a region server group read its settings file again.\n  hbase> update_rsgroup_config 'grp1'";
    "list_procedures", "procedures", tools::list_procedures, true, "List the master's running and recent (the last 100) procedures: catalog changes, splits,\nmerges, moves, recoveries.\n  hbase> list_procedures";
    "list_locks", "procedures", tools::list_locks, true, "List the locks the master's running procedures hold, and the procedures waiting for them.\n  hbase> list_locks";
    "zk_dump", "tools", tools::zk_dump, true, "Print what the cluster keeps in ZooKeeper: the masters, meta's server, the region servers,\nthe servers out of service, the switches and the quorum's statistics (a shell started with\n--zookeeper).\n  hbase> zk_dump";
    "hbck_chore_run", "tools", tools::hbck_chore_run, true, "Have the master check hbase:meta, the region directories, the servers and the WAL\ndirectories for inconsistencies now (basalt hbck prints what it finds and repairs it).\n  hbase> hbck_chore_run";
    "normalizer_switch", "tools", |s, a, o| tools::chore_switch(s, a, o, Chore::Normalizer), true, "Switch the region normalizer on or off; prints its previous state.\n  hbase> normalizer_switch false";
    "normalizer_enabled", "tools", |s, a, o| tools::chore_enabled(s, a, o, Chore::Normalizer), true, "Whether the region normalizer runs by itself.\n  hbase> normalizer_enabled";
    "list_deadservers", "tools", tools::list_deadservers, true, "List the dead region servers the master knows of.\n  hbase> list_deadservers";
    "list_liveservers", "tools", tools::list_liveservers, true, "List the live region servers.\n  hbase> list_liveservers";
    "clear_deadservers", "tools", tools::clear_deadservers, true,
"Forget dead region servers: all of them, or those named (host,port,startcode).
  hbase> clear_deadservers
  hbase> clear_deadservers 'host1,16020,1700000000000', 'host2,16020,1700000000000'";
    "stop_regionserver", "tools", tools::stop_regionserver, true,
"Stop a region server cleanly: its regions are flushed and reassigned elsewhere.
  hbase> stop_regionserver 'host1:16020'";
    "stop_master", "tools", tools::stop_master, true, "Stop the active master; a backup master takes over.\n  hbase> stop_master";
    "balance_switch", "tools", tools::balance_switch, true,
"Switch the balancer on or off; prints its previous state.
  hbase> balance_switch true
  hbase> balance_switch false";
    "balancer", "tools", tools::balancer, true,
"Run the balancer once: true if it ran (false when it is switched off).
  hbase> balancer";
    "balancer_enabled", "tools", tools::balancer_enabled, true, "Whether the balancer is on.\n  hbase> balancer_enabled";
    "move", "tools", tools::move_region, true,
"Move a region (encoded name) to a server (host,port,startcode), or to any other.
  hbase> move 'ENCODED_REGIONNAME'
  hbase> move 'ENCODED_REGIONNAME', 'SERVER_NAME'";
    "assign", "tools", tools::assign, true, "Open a closed region.\n  hbase> assign 'REGIONNAME'";
    "unassign", "tools", tools::unassign, true, "Close a region and leave it closed.\n  hbase> unassign 'REGIONNAME'";
    "grant", "security", security::grant, true,
"Grant a user (or @group) permissions: R(ead), W(rite), X (exec), C(reate), A(dmin),
globally, on a namespace, a table, a family or a qualifier (needs --authorization).
  hbase> grant 'bobsmith', 'RWXCA'
  hbase> grant '@admins', 'RWXCA', '@ns1'
  hbase> grant 'bobsmith', 'RW', 't1', 'f1', 'col1'";
    "revoke", "security", security::revoke, true,
"Take away what a user (or @group) was granted at a scope.
  hbase> revoke 'bobsmith'
  hbase> revoke 'bobsmith', '@ns1'
  hbase> revoke 'bobsmith', 't1', 'f1'";
    "hotspots", "tools", tools::hotspots, true,
"Show each region's share of a table's reads and writes in key order, the skew, and what a
hot spot says about the row keys (and which key layouts would spread it). Counts since each
region opened, or over the given number of seconds.
  hbase> hotspots 't1'
  hbase> hotspots 't1', 5";
    "snapshot", "snapshots", snapshot::snapshot, true,
"Take a snapshot of a table: each region flushed, its files kept (no copies). With TTL (seconds)
it is deleted once that long has passed (while snapshot_cleanup_enabled), and cannot be cloned
or restored after.
  hbase> snapshot 'sourceTable', 'snapshotName'
  hbase> snapshot 'sourceTable', 'snapshotName', {TTL => 86400}";
    "list_snapshots", "snapshots", snapshot::list_snapshots, true,
"List the snapshots, or those whose name matches a regular expression.
  hbase> list_snapshots
  hbase> list_snapshots 'abc.*'";
    "list_table_snapshots", "snapshots", snapshot::list_table_snapshots, true,
"List the snapshots of the tables a regular expression matches (and of those, the ones whose
name matches a second one).
  hbase> list_table_snapshots 'tableName'
  hbase> list_table_snapshots 'tableName.*', 'snapshotName.*'";
    "clone_snapshot", "snapshots", snapshot::clone_snapshot, true,
"Make a new table from a snapshot: its schema and regions, its files shared (no copies).
  hbase> clone_snapshot 'snapshotName', 'tableName'
  hbase> clone_snapshot 'snapshotName', 'namespace:tableName'";
    "restore_snapshot", "snapshots", snapshot::restore_snapshot, true,
"Put a table back as it was when the snapshot was taken: its schema, regions and data. The
table must be disabled first (it stays disabled); a dropped table is cloned back.
  hbase> restore_snapshot 'snapshotName'";
    "delete_all_snapshot", "snapshots", snapshot::delete_all_snapshot, true, "Delete every snapshot whose name matches a regular expression, after listing them and asking.\n  hbase> delete_all_snapshot 's.*'";
    "delete_table_snapshots", "snapshots", snapshot::delete_table_snapshots, true, "Delete the snapshots of the tables a regular expression matches (and of those, the ones\nwhose name matches a second one), after listing them and asking.\n  hbase> delete_table_snapshots 'tableName'\n  hbase> delete_table_snapshots 'tableName.*', 'snapshotName.*'";
    "delete_snapshot", "snapshots", snapshot::delete_snapshot, true,
"Delete a snapshot (the files it kept go with the last name they have).
  hbase> delete_snapshot 'snapshotName'";
    "user_permission", "security", security::user_permission, true,
"The grants at a scope and inside it (all of them without arguments).
  hbase> user_permission
  hbase> user_permission '@ns1'
  hbase> user_permission 't1'";
    "add_peer", "replication", replication::add_peer, true,
"Add a peer cluster to replicate to: CLUSTER_KEY is its ZooKeeper, zk_host[,zk_host]:port:/hbase
(or hbase+zk://host:port/hbase, or hbase+rpc://host:port for a server without ZooKeeper).
STATE => 'DISABLED' adds it stopped. Naming TABLE_CFS or NAMESPACES replicates only those;
otherwise every table whose families have REPLICATION_SCOPE 1, less EXCLUDE_TABLE_CFS and
EXCLUDE_NAMESPACES. SERIAL => true keeps each region's edits in order; BANDWIDTH is bytes
per second per source server.
  hbase> add_peer '1', CLUSTER_KEY => 'server1.cie.com:2181:/hbase'
  hbase> add_peer '2', CLUSTER_KEY => 'zk1,zk2,zk3:2181:/hbase', STATE => 'DISABLED'
  hbase> add_peer '3', CLUSTER_KEY => 'zk:2181:/hbase', TABLE_CFS => {'t1' => [], 'ns:t2' => ['cf1']}
  hbase> add_peer '4', CLUSTER_KEY => 'zk:2181:/hbase', NAMESPACES => ['ns1'], SERIAL => true
  hbase> add_peer '5', CLUSTER_KEY => 'hbase+rpc://127.0.0.1:16020', EXCLUDE_NAMESPACES => ['tmp']";
    "remove_peer", "replication", replication::remove_peer, true, "Stop replicating to a peer and forget it.\n  hbase> remove_peer '1'";
    "enable_peer", "replication", replication::enable_peer, true, "Restart shipping to a peer; what was written meanwhile ships.\n  hbase> enable_peer '1'";
    "disable_peer", "replication", replication::disable_peer, true, "Stop shipping to a peer; edits wait in the WAL until enable_peer.\n  hbase> disable_peer '1'";
    "list_peers", "replication", replication::list_peers, true, "List the replication peers.\n  hbase> list_peers";
    "get_peer_config", "replication", replication::get_peer_config, true, "Show a peer's cluster key, endpoint and CONFIG.\n  hbase> get_peer_config '1'";
    "list_peer_configs", "replication", replication::list_peer_configs, true, "Show every peer's config.\n  hbase> list_peer_configs";
    "update_peer_config", "replication", replication::update_peer_config, true,
"Add to (or change) a peer's CONFIG and DATA.
  hbase> update_peer_config '1', CONFIG => {'k' => 'v'}, DATA => {'d' => 'x'}";
    "show_peer_tableCFs", "replication", replication::show_peer_table_cfs, true, "Show the tables and families a peer takes.\n  hbase> show_peer_tableCFs '1'";
    "set_peer_tableCFs", "replication", replication::set_peer_table_cfs, true,
"Set the tables and families a peer takes (the peer must not replicate all tables).
  hbase> set_peer_tableCFs '1', {'t1' => [], 'ns:t2' => ['cf1', 'cf2']}";
    "append_peer_tableCFs", "replication", replication::append_peer_table_cfs, true, "Add tables or families to a peer.\n  hbase> append_peer_tableCFs '1', {'t3' => ['cf1']}";
    "remove_peer_tableCFs", "replication", replication::remove_peer_table_cfs, true, "Take tables or families off a peer.\n  hbase> remove_peer_tableCFs '1', {'t3' => ['cf1']}";
    "set_peer_exclude_tableCFs", "replication", replication::set_peer_exclude_table_cfs, true, "Set the tables and families a replicate-all peer leaves out.\n  hbase> set_peer_exclude_tableCFs '1', {'t1' => []}";
    "append_peer_exclude_tableCFs", "replication", replication::append_peer_exclude_table_cfs, true, "Leave more tables or families out of a replicate-all peer.\n  hbase> append_peer_exclude_tableCFs '1', {'t2' => ['cf1']}";
    "remove_peer_exclude_tableCFs", "replication", replication::remove_peer_exclude_table_cfs, true, "Take tables or families off a peer's exclusions.\n  hbase> remove_peer_exclude_tableCFs '1', {'t2' => ['cf1']}";
    "set_peer_namespaces", "replication", replication::set_peer_namespaces, true, "Set the namespaces a peer takes whole.\n  hbase> set_peer_namespaces '1', ['ns1', 'ns2']";
    "append_peer_namespaces", "replication", replication::append_peer_namespaces, true, "Add namespaces to a peer.\n  hbase> append_peer_namespaces '1', ['ns3']";
    "remove_peer_namespaces", "replication", replication::remove_peer_namespaces, true, "Take namespaces off a peer.\n  hbase> remove_peer_namespaces '1', ['ns1']";
    "set_peer_exclude_namespaces", "replication", replication::set_peer_exclude_namespaces, true, "Set the namespaces a replicate-all peer leaves out.\n  hbase> set_peer_exclude_namespaces '1', ['tmp']";
    "append_peer_exclude_namespaces", "replication", replication::append_peer_exclude_namespaces, true, "Leave more namespaces out of a replicate-all peer.\n  hbase> append_peer_exclude_namespaces '1', ['scratch']";
    "remove_peer_exclude_namespaces", "replication", replication::remove_peer_exclude_namespaces, true, "Take namespaces off a peer's exclusions.\n  hbase> remove_peer_exclude_namespaces '1', ['tmp']";
    "set_peer_replicate_all", "replication", replication::set_peer_replicate_all, true,
"Whether a peer takes every table (less its exclusions) or only those it names; its lists
of the other kind must be emptied first.
  hbase> set_peer_replicate_all '1', false";
    "set_peer_serial", "replication", replication::set_peer_serial, true, "Whether a peer gets each region's edits in order.\n  hbase> set_peer_serial '1', true";
    "set_peer_bandwidth", "replication", replication::set_peer_bandwidth, true,
"Limit what each source server ships to a peer, in bytes per second (none or 0: no limit).
  hbase> set_peer_bandwidth '1', 1048576
  hbase> set_peer_bandwidth '1'";
    "list_replicated_tables", "replication", replication::list_replicated_tables, true, "List the families with REPLICATION_SCOPE 1, optionally of tables matching a regex.\n  hbase> list_replicated_tables\n  hbase> list_replicated_tables 'abc.*'";
    "enable_table_replication", "replication", replication::enable_table_replication, true,
"Make every family of a table replicate (REPLICATION_SCOPE 1), creating the table on each peer
that takes it and lacks it.
  hbase> enable_table_replication 't1'";
    "peer_modification_switch", "replication", replication::peer_modification_switch, true,
"Switch adding, changing and removing peers on or off; prints the previous state.
  hbase> peer_modification_switch false";
    "peer_modification_enabled", "replication", replication::peer_modification_enabled, true, "Whether peers may be added, changed and removed.\n  hbase> peer_modification_enabled";
    "disable_table_replication", "replication", replication::disable_table_replication, true, "Stop replicating a table (REPLICATION_SCOPE 0 on every family).\n  hbase> disable_table_replication 't1'";
}

/// What a command returns to ask a question it printed: the shell reads the answer and runs
/// the command again (`Shell::answer`).
pub(crate) const ASKED: &str = "\u{0}asked";

/// The answer to a yes-or-no question a command asks (HBase's `gets`, `y` and anything
/// starting with it: yes): `Ok(Some(answer))` once given, `Err(ASKED)` after printing the
/// question the first time.
pub(crate) fn confirm(shell: &mut Shell, out: &mut dyn Write, question: &str) -> R<bool> {
    if let Some(answer) = shell.answer.take() {
        return Ok(answer.to_ascii_lowercase().starts_with('y'));
    }
    writeln!(out, "{question}").map_err(io)?;
    Err(ASKED.to_owned())
}

/// The command named `name`.
pub(crate) fn find(name: &str) -> Option<&'static CommandInfo> {
    COMMANDS.iter().find(|c| c.name == name)
}

const GROUPS: &[(&str, &str)] = &[
    ("general", "general"),
    ("ddl", "ddl"),
    ("namespace", "namespace"),
    ("dml", "dml"),
    ("tools", "tools"),
    ("snapshots", "snapshots"),
    ("security", "security"),
    ("replication", "replication"),
    ("procedures", "procedures"),
    ("quotas", "quotas"),
    ("rsgroup", "rsgroup"),
    ("configuration", "configuration"),
];

/// Applies `{METHOD => 'set', 'KEY' => 'VALUE', ...}` or `{METHOD => 'unset', NAME => 'KEY'}`
/// to `properties` (alter_namespace's and alter_rsgroup_config's hash); `what` names them in
/// errors.
fn alter_properties(
    a: &Args<'_>,
    properties: &mut std::collections::BTreeMap<String, String>,
    what: &str,
) -> R<()> {
    let method = a
        .opt_text("METHOD")?
        .ok_or("METHOD must be 'set' or 'unset'")?;
    match method.as_str() {
        "set" => {
            for (k, v) in a.opts.unwrap_or_default() {
                if key_is(k, "METHOD") {
                    continue;
                }
                let (Some(k), Some(v)) = (text(k), text(v)) else {
                    return Err(format!("{what} must be strings"));
                };
                properties.insert(k, v);
            }
        }
        "unset" => {
            let key = a.opt_text("NAME")?.ok_or("unset needs NAME => property")?;
            properties.remove(&key);
        }
        other => return Err(format!("Unknown method: {other}")),
    }
    Ok(())
}

fn io(e: io::Error) -> String {
    format!("writing output: {e}")
}

macro_rules! w {
    ($out:expr) => {
        writeln!($out).map_err(io)?
    };
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(io)?
    };
}

/// HBase's shell wording of an error about `first` (the command's first argument).
fn hbase_error(shell: &Shell, e: Error, first: &str) -> String {
    match e {
        Error::TableNotFound(_) => format!("Unknown table {first}!"),
        Error::TableExists(_) => format!("Table already exists: {first}!"),
        Error::NamespaceNotFound(ns) => format!("Unknown namespace {ns}!"),
        Error::TableNotEnabled(t) => format!("Table {t} is disabled!"),
        // The same words whether the engine or a server refused it.
        Error::InvalidArgument(m) => m,
        // HBase's shell shows access control's refusals with their class.
        e @ Error::AccessDenied(_) => format!("{}: {e}", e.java_class()),
        Error::NoSuchColumnFamily { table, .. } => {
            let valid = shell
                .client
                .describe_table(&table)
                .map(|d| {
                    d.families()
                        .iter()
                        .map(|f| format!("{}:*", f.name_str()))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            format!("Unknown column family! Valid column names: {valid}")
        }
        other => other.to_string(),
    }
}

/// The first argument as text, for error messages.
fn first_text(args: &[Value]) -> String {
    args.first().and_then(text).unwrap_or_default()
}

/// Runs `f`, wording a Basalt error as the shell does.
fn client<T>(shell: &Shell, args: &[Value], r: basalt_client::Result<T>) -> R<T> {
    r.map_err(|e| hbase_error(shell, e, &first_text(args)))
}

/// A command whose one argument names what `call` acts on (`drop_namespace 'ns'`,
/// `delete_snapshot 's'`, `assign 'region'`): `what` names the argument when it is missing.
fn on_named(
    shell: &Shell,
    args: &[Value],
    what: &str,
    call: impl FnOnce(&dyn Client, &str) -> basalt_client::Result<()>,
) -> CommandResult {
    let name = Args::new(args).string(0, what)?;
    client(shell, args, call(shell.client.as_ref(), &name))?;
    Ok(None)
}

/// A command of no arguments that runs `call` and prints nothing (`update_all_config`,
/// `flush_master_store`, `catalogjanitor_run`).
fn no_args(
    shell: &Shell,
    args: &[Value],
    name: &str,
    call: impl FnOnce(&dyn Client) -> basalt_client::Result<()>,
) -> CommandResult {
    Args::all(args).at_most(0, name)?;
    client(shell, args, call(shell.client.as_ref()))?;
    Ok(None)
}

/// A command of no arguments that prints the yes or no `call` answers, and returns it
/// (`rpc_throttle_enabled`, `cleaner_chore_run`).
fn answers_bool(
    shell: &Shell,
    args: &[Value],
    out: &mut dyn Write,
    name: &str,
    call: impl FnOnce(&dyn Client) -> basalt_client::Result<bool>,
) -> CommandResult {
    Args::all(args).at_most(0, name)?;
    let answer = client(shell, args, call(shell.client.as_ref()))?;
    w!(out, "{answer}");
    Ok(Some(Returned::Value(Value::Bool(answer))))
}

/// `cf:q` -> (cf, Some(q)); `cf` -> (cf, None); `cf:` -> (cf, Some("")). A third part
/// (`cf:q:toLong`) is a converter.
fn parse_column(spec: &[u8]) -> (Bytes, Option<Bytes>, Option<String>) {
    match spec.iter().position(|&c| c == b':') {
        None => (Bytes::copy_from_slice(spec), None, None),
        Some(i) => {
            let family = Bytes::copy_from_slice(&spec[..i]);
            let rest = &spec[i + 1..];
            match rest.iter().position(|&c| c == b':') {
                Some(j) => (
                    family,
                    Some(Bytes::copy_from_slice(&rest[..j])),
                    Some(String::from_utf8_lossy(&rest[j + 1..]).into_owned()),
                ),
                None => (family, Some(Bytes::copy_from_slice(rest)), None),
            }
        }
    }
}

/// Names matching a whole-string regular expression (Java's `Pattern.matches`).
fn matcher(pattern: Option<String>) -> R<Option<regex::Regex>> {
    pattern
        .map(|p| {
            regex::Regex::new(&format!("^(?:{p})$"))
                .map_err(|e| format!("bad regular expression {p:?}: {e}"))
        })
        .transpose()
}

fn names_list(names: &[String]) -> Returned {
    Returned::Value(Value::Array(
        names
            .iter()
            .map(|n| Value::Str(n.clone().into_bytes()))
            .collect(),
    ))
}

/// `list`-style output: the header, one name a row, `N row(s)`; the names are returned.
fn print_names(
    shell: &Shell,
    out: &mut dyn Write,
    header: &str,
    names: &[String],
) -> CommandResult {
    let mut f = Formatter::new(shell.options.width);
    f.header(out, &[header]).map_err(io)?;
    for n in names {
        f.row1(out, n).map_err(io)?;
    }
    f.footer(out, None).map_err(io)?;
    Ok(Some(names_list(names)))
}

mod ddl;
mod dml;
mod general;
mod namespace;
mod quotas;
mod replication;
mod rsgroup;
mod security;
mod snapshot;
mod tools;
