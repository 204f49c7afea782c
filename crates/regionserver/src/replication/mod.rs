//! Replication to peer clusters (HBase's `ReplicationSourceManager` and `ReplicationSink`):
//! where peers are kept (`peers`). See `docs/design/replication.md`.

pub mod peers;
