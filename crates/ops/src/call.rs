//! A connection's one primitive, and the typed calls' ways of running on it: [`Caller`]
//! (blocking, a trait object: what `basalt_client::Client` is), [`AsyncCaller`] (on a
//! runtime), and [`Now`], which runs the typed calls' one body of async code on a blocking
//! caller.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use basalt_common::{Error, Result, TableName};

use crate::{MasterRequest, MasterResponse, Operation};

/// What an administration call changed, for the caches a connection keeps (region
/// locations, key layouts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed<'a> {
    /// This table's regions or schema.
    Table(&'a TableName),
    /// Where regions are served (a move, an assignment, servers taken out).
    Regions,
}

/// A blocking connection to a master: one MasterService call at a time. Every blocking
/// typed call ([`crate::Admin`]) is built on these two methods.
pub trait Caller: Send + Sync {
    /// Runs `request`; `on` names the table it concerns, for the errors a remote call reads
    /// back (none: the cluster's).
    fn call_master(&self, on: Option<&TableName>, request: MasterRequest)
    -> Result<MasterResponse>;

    /// Told after a call changed `what`; a connection drops what it had cached of it.
    fn changed(&self, what: Changed<'_>) {
        let _ = what;
    }
}

/// [`Caller`] on a runtime: the same calls, awaited.
pub trait AsyncCaller: Sync {
    /// Runs `request` (see [`Caller::call_master`]).
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> impl Future<Output = Result<MasterResponse>> + Send;

    /// Told after a call changed `what` (see [`Caller::changed`]).
    fn changed(&self, what: Changed<'_>) {
        let _ = what;
    }

    /// Operation `O` with `request`: its own response.
    fn call<O: Operation>(
        &self,
        on: Option<&TableName>,
        request: O::Request,
    ) -> impl Future<Output = Result<O::Response>> + Send {
        async move {
            let answer = self.call_master(on, O::request(request)).await?;
            O::response(answer)
                .ok_or_else(|| Error::corrupt(format!("{} answered another call", O::NAME)))
        }
    }
}

/// A blocking caller as an async one whose calls are done when first polled: the typed
/// calls' async bodies run on it through [`ready`].
#[derive(Debug)]
pub struct Now<'a, T: ?Sized>(pub &'a T);

impl<T: Caller + ?Sized> AsyncCaller for Now<'_, T> {
    fn call_master(
        &self,
        on: Option<&TableName>,
        request: MasterRequest,
    ) -> impl Future<Output = Result<MasterResponse>> + Send {
        std::future::ready(self.0.call_master(on, request))
    }

    fn changed(&self, what: Changed<'_>) {
        self.0.changed(what);
    }
}

struct Unpark(std::thread::Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` on this thread to its end. Over [`Now`] it is ready when first polled; were
/// it not, the thread waits for its wake-up.
pub fn ready<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}
