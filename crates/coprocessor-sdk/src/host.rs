//! What a module may ask of the server that runs it: its region's rows, writes to the
//! tables its attachment grants (`write=t1;t2`), counters shared by every instance of the
//! module on the region, and the server's log. Outside a region server (a test on the build
//! machine) each says so.

use crate::wire::{Get, Message, Mutation, Row, TableWrite};

#[cfg(target_family = "wasm")]
#[allow(unsafe_code, reason = "the server's functions, imported by the module")]
mod imports {
    #[link(wasm_import_module = "basalt")]
    unsafe extern "C" {
        pub fn log(ptr: u32, len: u32);
        pub fn region_get(ptr: u32, len: u32) -> i64;
        pub fn table_write(ptr: u32, len: u32) -> i64;
        pub fn counter_add(ptr: u32, len: u32, delta: i64) -> i64;
    }

    /// The address and length of `bytes`, as the server reads them.
    pub fn at(bytes: &[u8]) -> (u32, u32) {
        (bytes.as_ptr() as usize as u32, bytes.len() as u32)
    }
}

/// Writes `message` to the server's log, naming the module.
pub fn log(message: &str) {
    #[cfg(target_family = "wasm")]
    {
        let (ptr, len) = imports::at(message.as_bytes());
        // SAFETY: the server reads `len` bytes at `ptr`, which `message` holds.
        #[allow(unsafe_code, reason = "an imported function")]
        unsafe {
            imports::log(ptr, len)
        }
    }
    #[cfg(not(target_family = "wasm"))]
    eprintln!("{message}");
}

/// A server function's answer: the bytes after an ANSWER tag, or the server's message.
#[cfg(target_family = "wasm")]
fn answer(packed: i64) -> Result<Vec<u8>, String> {
    let bytes = crate::guest::take(packed);
    match crate::wire::split_reply(&bytes) {
        Ok((crate::wire::reply::ANSWER, body)) => Ok(body.to_vec()),
        Ok((_, message)) => Err(String::from_utf8_lossy(message).into_owned()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(not(target_family = "wasm"))]
fn outside() -> String {
    "only a module running in a region server can call the server".to_owned()
}

/// Reads a row of the region the module runs on (its hooks are not called for this read).
pub fn get(get: &Get) -> Result<Row, String> {
    let bytes = get.to_bytes();
    #[cfg(target_family = "wasm")]
    {
        let (ptr, len) = imports::at(&bytes);
        // SAFETY: the server reads the message at `ptr` and answers in a buffer it asks
        // this module to allocate.
        #[allow(unsafe_code, reason = "an imported function")]
        let packed = unsafe { imports::region_get(ptr, len) };
        let body = answer(packed)?;
        Row::from_bytes(&body).map_err(|e| e.to_string())
    }
    #[cfg(not(target_family = "wasm"))]
    {
        drop(bytes);
        Err(outside())
    }
}

/// Applies `mutation` to `table` (one the attachment's `write=` grants), through the
/// server's connection to the cluster, retried as a client retries.
pub fn write(table: &str, mutation: Mutation) -> Result<(), String> {
    let bytes = TableWrite {
        table: table.to_owned(),
        mutation,
    }
    .to_bytes();
    #[cfg(target_family = "wasm")]
    {
        let (ptr, len) = imports::at(&bytes);
        // SAFETY: as for `get`.
        #[allow(unsafe_code, reason = "an imported function")]
        let packed = unsafe { imports::table_write(ptr, len) };
        answer(packed).map(drop)
    }
    #[cfg(not(target_family = "wasm"))]
    {
        drop(bytes);
        Err(outside())
    }
}

/// Adds `delta` to the counter `key`, which every instance of this module on this region
/// shares (it starts at 0 when the region opens), and returns its new value.
pub fn counter_add(key: &str, delta: i64) -> i64 {
    #[cfg(target_family = "wasm")]
    {
        let (ptr, len) = imports::at(key.as_bytes());
        // SAFETY: the server reads `len` bytes at `ptr`.
        #[allow(unsafe_code, reason = "an imported function")]
        unsafe {
            imports::counter_add(ptr, len, delta)
        }
    }
    #[cfg(not(target_family = "wasm"))]
    {
        let _ = key;
        delta
    }
}
