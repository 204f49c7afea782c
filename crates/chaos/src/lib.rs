//! Basalt under faults, as Jepsen tests databases (issue 45): a linearizability checker
//! validated against Jepsen's own histories, the models Basalt's workloads are checked
//! against, and readers of Jepsen's history formats.

pub mod jepsen;
pub mod linearizability;
pub mod models;
