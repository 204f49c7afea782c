//! A region's coprocessors as its observer: each hook runs the modules that export it, in
//! priority order, each seeing what the one before changed; the first veto ends it.

use std::sync::PoisonError;
use std::time::{Duration, Instant};

use basalt_common::cell::Cell;
use basalt_common::error::{Error, Result};
use basalt_common::log::{Level, log};
use basalt_common::ops::{
    Append, CheckAndMutate, CheckAndMutateResult, Delete, Get, Increment, Put, RowResult, Scan,
};
use basalt_coprocessor_sdk::wire::{self, Message, reply};
use basalt_region::RegionObserver;

use crate::convert;
use crate::module::{Attached, Hook};

/// How long writes put off during WAL replay are retried once the region opens.
const DEFERRED_DEADLINE: Duration = Duration::from_secs(300);

/// The coprocessors of one region; see the module documentation.
#[derive(Debug)]
pub struct RegionCoprocessors {
    modules: Vec<Attached>,
}

/// A reply's tag and body, or the module's error for a reply it may not give.
fn split<'a>(module: &Attached, hook: Hook, r: &'a [u8], allowed: &[u8]) -> Result<(u8, &'a [u8])> {
    let (tag, body) = wire::split_reply(r).map_err(|e| malformed(module, hook, &e))?;
    if tag == reply::CONTINUE || allowed.contains(&tag) {
        Ok((tag, body))
    } else {
        Err(Error::Coprocessor(format!(
            "coprocessor {} answered {} with reply {tag}, which that hook cannot give",
            module.name(),
            hook.export()
        )))
    }
}

fn malformed(module: &Attached, hook: Hook, e: &dyn std::fmt::Display) -> Error {
    Error::Coprocessor(format!(
        "coprocessor {} answered {} with a malformed reply: {e}",
        module.name(),
        hook.export()
    ))
}

fn decode<M: Message>(module: &Attached, hook: Hook, body: &[u8]) -> Result<M> {
    M::from_bytes(body).map_err(|e| malformed(module, hook, &e))
}

impl RegionCoprocessors {
    /// `modules` in priority order (ties keep the attachments' order).
    pub(crate) fn new(mut modules: Vec<Attached>) -> Self {
        modules.sort_by_key(|m| m.spec.priority);
        RegionCoprocessors { modules }
    }

    fn with(&self, hook: Hook) -> impl Iterator<Item = &Attached> {
        self.modules.iter().filter(move |m| m.has(hook))
    }

    /// A hook that only looks: each module's veto is the operation's error.
    fn notify(&self, hook: Hook, input: impl Fn() -> Vec<u8>, restoring: bool) -> Result<()> {
        for m in self.with(hook) {
            if let Some(r) = m.call(hook, &input(), restoring)? {
                split(m, hook, &r, &[])?;
            }
        }
        Ok(())
    }

    /// A hook that may replace what it is given: each module is handed `value` as the one
    /// before left it (`out` encodes it) and its replacement is applied to it (`apply`).
    fn change<T, M: Message>(
        &self,
        hook: Hook,
        value: &mut T,
        out: impl Fn(&T) -> Vec<u8>,
        apply: impl Fn(&mut T, M) -> Result<()>,
    ) -> Result<()> {
        for m in self.with(hook) {
            if let Some(r) = m.call(hook, &out(value), false)?
                && let (reply::REPLACE, body) = split(m, hook, &r, &[reply::REPLACE])?
            {
                apply(value, decode(m, hook, body)?)?;
            }
        }
        Ok(())
    }

    /// A post hook given an operation and the row it answered, which each module may replace.
    fn answered<M: Message>(&self, hook: Hook, op: &M, result: &mut RowResult) -> Result<()> {
        let partial = result.partial;
        self.change(
            hook,
            result,
            |row| {
                let mut w = wire::Writer::default();
                op.write(&mut w);
                convert::row_out(row).write(&mut w);
                w.0
            },
            |row, changed: wire::Row| {
                *row = convert::row_in(changed, partial)?;
                Ok(())
            },
        )
    }

    /// Makes the writes the modules put off during WAL replay, in order, in the background:
    /// the tables they go to may be opening too.
    fn make_deferred(&self) {
        let mut pending = Vec::new();
        for m in &self.modules {
            let ctx = m.context();
            let writes: Vec<_> =
                std::mem::take(&mut *ctx.deferred.lock().unwrap_or_else(PoisonError::into_inner));
            if !writes.is_empty() {
                pending.push((std::sync::Arc::clone(ctx), writes));
            }
        }
        if pending.is_empty() {
            return;
        }
        std::thread::spawn(move || {
            for (ctx, writes) in pending {
                let started = Instant::now();
                let mut left = writes.into_iter().peekable();
                while let Some((table, write)) = left.peek() {
                    match ctx.write(table, write) {
                        Ok(()) => {
                            left.next();
                        }
                        Err(e) if started.elapsed() < DEFERRED_DEADLINE => {
                            log("coprocessor", Level::Warn, || {
                                format!(
                                    "{}: a write put off by WAL replay failed, retrying: {e}",
                                    ctx.module
                                )
                            });
                            std::thread::sleep(Duration::from_millis(500));
                        }
                        Err(e) => {
                            log("coprocessor", Level::Error, || {
                                format!(
                                    "{} on {}: {} writes put off by WAL replay were dropped: {e}",
                                    ctx.module,
                                    ctx.region_name,
                                    left.len()
                                )
                            });
                            break;
                        }
                    }
                }
            }
        });
    }
}

impl RegionObserver for RegionCoprocessors {
    fn pre_get(&self, get: &Get) -> Result<Option<RowResult>> {
        for m in self.with(Hook::PreGet) {
            let input = convert::get_out(get).to_bytes();
            if let Some(r) = m.call(Hook::PreGet, &input, false)?
                && let (reply::ANSWER, body) = split(m, Hook::PreGet, &r, &[reply::ANSWER])?
            {
                let row = decode::<wire::Row>(m, Hook::PreGet, body)?;
                return convert::row_in(row, false).map(Some);
            }
        }
        Ok(None)
    }

    fn post_get(&self, get: &Get, result: &mut RowResult) -> Result<()> {
        self.answered(Hook::PostGet, &convert::get_out(get), result)
    }

    fn pre_put(&self, put: &mut Put) -> Result<()> {
        self.change(
            Hook::PrePut,
            put,
            |p| convert::put_out(p).to_bytes(),
            |p, changed| {
                convert::put_in(p, changed);
                Ok(())
            },
        )
    }

    fn post_put(&self, put: &Put) -> Result<()> {
        self.notify(Hook::PostPut, || convert::put_out(put).to_bytes(), false)
    }

    fn pre_delete(&self, delete: &mut Delete) -> Result<()> {
        self.change(
            Hook::PreDelete,
            delete,
            |d| convert::delete_out(d).to_bytes(),
            convert::delete_in,
        )
    }

    fn post_delete(&self, delete: &Delete) -> Result<()> {
        self.notify(
            Hook::PostDelete,
            || convert::delete_out(delete).to_bytes(),
            false,
        )
    }

    fn pre_increment(&self, inc: &mut Increment) -> Result<()> {
        self.change(
            Hook::PreIncrement,
            inc,
            |i| convert::increment_out(i).to_bytes(),
            |i, changed| {
                convert::increment_in(i, changed);
                Ok(())
            },
        )
    }

    fn post_increment(&self, inc: &Increment, result: &mut RowResult) -> Result<()> {
        self.answered(Hook::PostIncrement, &convert::increment_out(inc), result)
    }

    fn pre_append(&self, append: &mut Append) -> Result<()> {
        self.change(
            Hook::PreAppend,
            append,
            |a| convert::append_out(a).to_bytes(),
            |a, changed| {
                convert::append_in(a, changed);
                Ok(())
            },
        )
    }

    fn post_append(&self, append: &Append, result: &mut RowResult) -> Result<()> {
        self.answered(Hook::PostAppend, &convert::append_out(append), result)
    }

    fn pre_scan_open(&self, scan: &Scan) -> Result<()> {
        self.notify(
            Hook::PreScanOpen,
            || convert::scan_out(scan).to_bytes(),
            false,
        )
    }

    fn observes_scans(&self) -> bool {
        self.with(Hook::PostScanNext).next().is_some()
    }

    fn post_scan_next(&self, row: RowResult) -> Result<Option<RowResult>> {
        let mut current = row;
        for m in self.with(Hook::PostScanNext) {
            let input = convert::row_out(&current).to_bytes();
            let Some(r) = m.call(Hook::PostScanNext, &input, false)? else {
                continue;
            };
            match split(m, Hook::PostScanNext, &r, &[reply::REPLACE, reply::DROP])? {
                (reply::DROP, _) => return Ok(None),
                (reply::REPLACE, body) => {
                    let partial = current.partial;
                    current = convert::row_in(decode(m, Hook::PostScanNext, body)?, partial)?;
                }
                _ => {}
            }
        }
        Ok(Some(current))
    }

    fn pre_check_and_mutate(&self, cam: &mut CheckAndMutate) -> Result<()> {
        self.change(
            Hook::PreCheckAndMutate,
            cam,
            |c| convert::check_and_mutate_out(c, false).to_bytes(),
            convert::check_and_mutate_in,
        )
    }

    fn post_check_and_mutate(
        &self,
        cam: &CheckAndMutate,
        result: &mut CheckAndMutateResult,
    ) -> Result<()> {
        self.notify(
            Hook::PostCheckAndMutate,
            || convert::check_and_mutate_out(cam, result.success).to_bytes(),
            false,
        )
    }

    fn pre_flush(&self) -> Result<()> {
        self.notify(Hook::PreFlush, Vec::new, false)
    }

    fn post_flush(&self) -> Result<()> {
        self.notify(Hook::PostFlush, Vec::new, false)
    }

    fn pre_compact(&self, major: bool) -> Result<()> {
        self.notify(Hook::PreCompact, || vec![u8::from(major)], false)
    }

    fn post_compact(&self, major: bool) -> Result<()> {
        self.notify(Hook::PostCompact, || vec![u8::from(major)], false)
    }

    fn pre_wal_restore(&self, cells: &[Cell]) -> Result<()> {
        self.notify(
            Hook::PreWalRestore,
            || convert::logged_out(cells).to_bytes(),
            true,
        )
    }

    fn post_wal_restore(&self, cells: &[Cell]) -> Result<()> {
        self.notify(
            Hook::PostWalRestore,
            || convert::logged_out(cells).to_bytes(),
            true,
        )
    }

    fn endpoint(&self, service: &str, method: &str, request: &[u8]) -> Option<Result<Vec<u8>>> {
        let m = self
            .modules
            .iter()
            .find(|m| m.service.as_deref() == Some(service))?;
        if !m.has(Hook::Endpoint) {
            return Some(Err(Error::Coprocessor(format!(
                "coprocessor {} serving {service} was unloaded from this region",
                m.name()
            ))));
        }
        let call = wire::Call {
            method: method.to_owned(),
            request: request.to_vec(),
        };
        Some((|| {
            let Some(r) = m.call(Hook::Endpoint, &call.to_bytes(), false)? else {
                return Ok(Vec::new());
            };
            let (_, body) = split(m, Hook::Endpoint, &r, &[reply::ANSWER])?;
            Ok(body.to_vec())
        })())
    }

    fn modules(&self) -> Vec<(String, bool)> {
        self.modules
            .iter()
            .map(|m| (m.name().to_owned(), m.is_loaded()))
            .collect()
    }

    fn opened(&self) {
        self.make_deferred();
    }
}
