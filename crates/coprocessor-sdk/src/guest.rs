//! The glue [`crate::export!`] expands to: the module's memory handed to and from the
//! server, the coprocessor's one instance, and each hook's decoding and reply. Only a
//! WebAssembly build has it (addresses are the module's 32-bit ones).
#![cfg(target_family = "wasm")]
#![allow(
    unsafe_code,
    reason = "the module's side of the memory protocol: buffers the server writes into and \
              reads from by address"
)]

use std::any::Any;
use std::cell::RefCell;

use crate::wire::{self, Message, reply};
use crate::{Args, Coprocessor};

thread_local! {
    static INSTANCE: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
}

/// A buffer of `len` bytes the server writes a message into; the hook it is passed to owns it.
pub fn alloc(len: u32) -> u32 {
    let buf = vec![0u8; len as usize].into_boxed_slice();
    Box::into_raw(buf).cast::<u8>() as usize as u32
}

/// Frees a buffer [`alloc`] or [`leak`] made.
pub fn free(ptr: u32, len: u32) {
    // SAFETY: the server frees only buffers this module allocated, with their lengths.
    unsafe {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            ptr as usize as *mut u8,
            len as usize,
        )));
    }
}

/// Takes back the buffer the server wrote a hook's input into.
fn input(ptr: u32, len: u32) -> Box<[u8]> {
    // SAFETY: `ptr` and `len` are a buffer `alloc` made, handed to one hook call.
    unsafe {
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            ptr as usize as *mut u8,
            len as usize,
        ))
    }
}

/// Hands `bytes` to the server (which frees them): their packed address and length.
pub fn leak(bytes: Vec<u8>) -> i64 {
    let len = bytes.len() as u32;
    let ptr = Box::into_raw(bytes.into_boxed_slice()).cast::<u8>() as usize as u32;
    wire::pack(ptr, len)
}

/// Reads back a buffer the server handed this module (a host function's answer).
pub(crate) fn take(packed: i64) -> Vec<u8> {
    let (ptr, len) = wire::unpack(packed);
    input(ptr, len).into_vec()
}

fn veto(message: impl Into<String>) -> i64 {
    leak(wire::reply_with(reply::VETO, message.into().as_bytes()))
}

fn with<T: Coprocessor, R>(f: impl FnOnce(&T) -> R) -> Result<R, String> {
    INSTANCE.with(|cell| {
        let slot = cell.borrow();
        match slot.as_ref().and_then(|b| b.downcast_ref::<T>()) {
            Some(c) => Ok(f(c)),
            None => Err("the coprocessor was not initialized".to_owned()),
        }
    })
}

fn decoded<M: Message>(ptr: u32, len: u32) -> Result<M, String> {
    M::from_bytes(&input(ptr, len)).map_err(|e| e.to_string())
}

/// The reply of a hook that may change what it was given.
fn changed<M: Message + PartialEq>(before: &M, after: M, outcome: Result<(), String>) -> i64 {
    match outcome {
        Err(m) => veto(m),
        Ok(()) if *before == after => 0,
        Ok(()) => leak(wire::reply_with(reply::REPLACE, &after.to_bytes())),
    }
}

fn done(outcome: Result<Result<(), String>, String>) -> i64 {
    match outcome {
        Ok(Ok(())) => 0,
        Ok(Err(m)) | Err(m) => veto(m),
    }
}

pub fn init<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    let args = String::from_utf8_lossy(&input(ptr, len)).into_owned();
    match T::init(&Args::parse(&args)) {
        Ok(c) => {
            INSTANCE.with(|cell| *cell.borrow_mut() = Some(Box::new(c)));
            0
        }
        Err(m) => veto(m),
    }
}

/// A hook that may change its message in place. What it leaves is encoded again and compared
/// with what it was given (cheaper in the interpreter than keeping a copy to compare).
fn mutating<T: Coprocessor, M: Message>(
    ptr: u32,
    len: u32,
    hook: impl FnOnce(&T, &mut M) -> Result<(), String>,
) -> i64 {
    let given = input(ptr, len);
    let mut message = match M::from_bytes(&given) {
        Ok(m) => m,
        Err(e) => return veto(e.to_string()),
    };
    match with::<T, _>(|c| hook(c, &mut message)) {
        Ok(Ok(())) => {
            let mut w = wire::Writer(Vec::with_capacity(given.len() + 1));
            w.u8(reply::REPLACE);
            message.write(&mut w);
            if w.0[1..] == given[..] { 0 } else { leak(w.0) }
        }
        Ok(Err(m)) | Err(m) => veto(m),
    }
}

/// A hook that only looks at its message.
fn looking<T: Coprocessor, M: Message>(
    ptr: u32,
    len: u32,
    hook: impl FnOnce(&T, &M) -> Result<(), String>,
) -> i64 {
    match decoded::<M>(ptr, len) {
        Ok(m) => done(with::<T, _>(|c| hook(c, &m))),
        Err(e) => veto(e),
    }
}

pub fn pre_get<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    let get = match decoded::<wire::Get>(ptr, len) {
        Ok(g) => g,
        Err(e) => return veto(e),
    };
    match with::<T, _>(|c| c.pre_get(&get)) {
        Ok(Ok(None)) => 0,
        Ok(Ok(Some(row))) => leak(wire::reply_with(reply::ANSWER, &row.to_bytes())),
        Ok(Err(m)) | Err(m) => veto(m),
    }
}

/// An operation and the row it answered, one after the other: the hook may change the row.
fn answered<T: Coprocessor, M: Message>(
    ptr: u32,
    len: u32,
    hook: impl FnOnce(&T, &M, &mut wire::Row) -> Result<(), String>,
) -> i64 {
    let bytes = input(ptr, len);
    let mut r = wire::Reader::new(&bytes);
    let (op, row) = match M::read(&mut r).and_then(|op| Ok((op, wire::Row::read(&mut r)?))) {
        Ok(both) => both,
        Err(e) => return veto(e.to_string()),
    };
    let mut changed = row.clone();
    match with::<T, _>(|c| hook(c, &op, &mut changed)) {
        Ok(Ok(())) if changed == row => 0,
        Ok(Ok(())) => leak(wire::reply_with(reply::REPLACE, &changed.to_bytes())),
        Ok(Err(m)) | Err(m) => veto(m),
    }
}

pub fn post_get<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    answered::<T, wire::Get>(ptr, len, |c, g, row| c.post_get(g, row))
}

pub fn pre_increment<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    mutating::<T, wire::Increment>(ptr, len, |c, i| c.pre_increment(i))
}

pub fn post_increment<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    answered::<T, wire::Increment>(ptr, len, |c, i, row| c.post_increment(i, row))
}

pub fn pre_append<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    mutating::<T, wire::Append>(ptr, len, |c, a| c.pre_append(a))
}

pub fn post_append<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    answered::<T, wire::Append>(ptr, len, |c, a, row| c.post_append(a, row))
}

pub fn pre_put<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    mutating::<T, wire::Put>(ptr, len, |c, p| c.pre_put(p))
}

pub fn post_put<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    looking::<T, wire::Put>(ptr, len, |c, p| c.post_put(p))
}

pub fn pre_delete<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    mutating::<T, wire::Delete>(ptr, len, |c, d| c.pre_delete(d))
}

pub fn post_delete<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    looking::<T, wire::Delete>(ptr, len, |c, d| c.post_delete(d))
}

pub fn pre_scan_open<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    looking::<T, wire::Scan>(ptr, len, |c, s| c.pre_scan_open(s))
}

pub fn post_scan_next<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    let before = match decoded::<wire::Row>(ptr, len) {
        Ok(r) => r,
        Err(e) => return veto(e),
    };
    let mut after = before.clone();
    match with::<T, _>(|c| c.post_scan_next(&mut after)) {
        Ok(Ok(false)) => leak(vec![reply::DROP]),
        Ok(outcome) => changed(&before, after, outcome.map(|_| ())),
        Err(m) => veto(m),
    }
}

pub fn pre_check_and_mutate<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    mutating::<T, wire::CheckAndMutate>(ptr, len, |c, m| c.pre_check_and_mutate(m))
}

pub fn post_check_and_mutate<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    looking::<T, wire::CheckAndMutate>(ptr, len, |c, m| c.post_check_and_mutate(m))
}

pub fn pre_flush<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    drop(input(ptr, len));
    done(with::<T, _>(|c| c.pre_flush()))
}

pub fn post_flush<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    drop(input(ptr, len));
    done(with::<T, _>(|c| c.post_flush()))
}

fn major(ptr: u32, len: u32) -> bool {
    input(ptr, len).first().is_some_and(|&b| b != 0)
}

pub fn pre_compact<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    let major = major(ptr, len);
    done(with::<T, _>(|c| c.pre_compact(major)))
}

pub fn post_compact<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    let major = major(ptr, len);
    done(with::<T, _>(|c| c.post_compact(major)))
}

pub fn pre_wal_restore<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    looking::<T, Vec<wire::LoggedCell>>(ptr, len, |c, cells| c.pre_wal_restore(cells))
}

pub fn post_wal_restore<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    looking::<T, Vec<wire::LoggedCell>>(ptr, len, |c, cells| c.post_wal_restore(cells))
}

pub fn endpoint<T: Coprocessor>(ptr: u32, len: u32) -> i64 {
    let call = match decoded::<wire::Call>(ptr, len) {
        Ok(c) => c,
        Err(e) => return veto(e),
    };
    match with::<T, _>(|c| c.endpoint(&call.method, &call.request)) {
        Ok(Ok(response)) => leak(wire::reply_with(reply::ANSWER, &response)),
        Ok(Err(m)) | Err(m) => veto(m),
    }
}
