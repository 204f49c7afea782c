//! A service of HBase's native RPC, as the transport (`basalt-rpc`) sees it: a name that a
//! connection's header asks for, and methods that take a call's parameter (and cell block)
//! and answer with a response message or an exception. The region server's ClientService and
//! AdminService and the master's MasterService implement it; the server routes each
//! connection to the service its header names and knows none of them otherwise.

use basalt_common::acl::User;
use bytes::Bytes;

use crate::pb::ExceptionResponse;

/// A call's answer: the encoded response message, or an exception.
pub type Outcome = Result<Vec<u8>, ExceptionResponse>;

/// One service an RPC port serves.
pub trait Service: Send + Sync + std::fmt::Debug {
    /// The name connection headers ask for (`ClientService`).
    fn name(&self) -> &'static str;

    /// Answers `method` with `param` and the call's `cell_block`, for `caller` (None where
    /// nobody is authenticated); None if the service has no such method.
    fn call(
        &self,
        method: &str,
        param: Option<&[u8]>,
        cell_block: &Bytes,
        caller: Option<&User>,
    ) -> Option<Outcome>;

    /// Whether `method` may wait long (for the log, or a row lock), so that the calls queued
    /// behind it on its connection should not wait for it.
    fn may_wait(&self, _method: &str) -> bool {
        false
    }

    /// Whether only the cluster's own servers and superusers may call it (AdminService).
    fn servers_only(&self) -> bool {
        false
    }

    /// Leases the service holds open for its callers (a ClientService's scanners).
    fn leases(&self) -> usize {
        0
    }

    /// Drops leases whose callers went quiet; called about every second.
    fn expire(&self) {}
}
