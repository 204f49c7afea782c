//! Basalt under faults, as Jepsen tests databases (issue 45): a linearizability checker
//! validated against Jepsen's own histories and the models Basalt's workloads are checked
//! against; hosts of their own on one machine (network namespaces on a bridge); a cluster of
//! real `basalt` processes on them; faults (partitions, pauses, kills, slow links, clock skew,
//! disks that stall or fail); the workload (registers, lists, counters, rows) through Basalt's
//! client and hbase-driver; and a campaign that runs them together and reports.

pub mod campaign;
pub mod cluster;
pub mod cpu;
pub mod driver;
pub mod hosts;
pub mod jepsen;
pub mod linearizability;
pub mod models;
pub mod report;
pub mod scale;
pub mod workload;
