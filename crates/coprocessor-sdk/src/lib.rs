//! Write Basalt coprocessors in Rust: region observers (hooks around a region's gets, puts,
//! deletes, scanned rows, check-and-mutates, flushes, compactions and WAL replay) and
//! endpoints (a named service a client calls on each region), compiled to WebAssembly and
//! attached to a table:
//!
//! ```text
//! alter 't', METHOD => 'table_att', 'coprocessor' => 'file:///path/mod.wasm|1001|k=v'
//! ```
//!
//! A module implements [`Coprocessor`] (every hook has a default that lets the operation
//! through) and names the hooks it wants with [`export!`]; the server calls only those.
//!
//! ```ignore
//! use basalt_coprocessor_sdk::{Args, Coprocessor, Put, export};
//!
//! struct NoBadValues;
//!
//! impl Coprocessor for NoBadValues {
//!     fn init(_args: &Args) -> Result<Self, String> {
//!         Ok(NoBadValues)
//!     }
//!
//!     fn pre_put(&self, put: &mut Put) -> Result<(), String> {
//!         if put.cells.iter().any(|c| c.value == b"bad") {
//!             return Err("bad values are refused".into());
//!         }
//!         Ok(())
//!     }
//! }
//!
//! export!(NoBadValues, [pre_put]);
//! ```
//!
//! Build with `cargo build --release --target wasm32-unknown-unknown` (crate type `cdylib`).
//! A module runs in a sandbox: it can reach only the functions in [`host`] (its own region's
//! rows, writes to the tables the attachment grants, shared counters, the server's log), and
//! each call has a fuel and memory budget; one that traps or runs over is unloaded from the
//! region and its caller gets the error. `docs/design/coprocessors.md` has the whole contract.

pub mod wire;

pub mod index;

#[doc(hidden)]
pub mod guest;
pub mod host;

pub use wire::{
    Append, Call, Cell, CheckAndMutate, Column, Delete, DeleteEntry, Get, Increment, LATEST,
    LoggedCell, Mutation, Put, PutCell, Row, Scan, UNSET, cell_type,
};

/// The version of the module interface this SDK speaks (a module exports it as
/// `basalt_abi_version`; the server refuses others).
pub const ABI_VERSION: i32 = 1;

/// The arguments of a module's attachment (`k=v,k2=v2` after the priority), in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args(pub Vec<(String, String)>);

impl Args {
    /// Parses `k=v,k2=v2` (a pair without `=` has an empty value).
    pub fn parse(text: &str) -> Args {
        Args(
            text.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| match p.split_once('=') {
                    Some((k, v)) => (k.trim().to_owned(), v.trim().to_owned()),
                    None => (p.to_owned(), String::new()),
                })
                .collect(),
        )
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The value of `key`, or an error naming it.
    pub fn require(&self, key: &str) -> Result<&str, String> {
        self.get(key)
            .ok_or_else(|| format!("the coprocessor needs the argument {key}=..."))
    }
}

/// A coprocessor: built once per instance from its attachment's arguments, then called for
/// the hooks [`export!`] names. An `Err` from a `pre_` hook vetoes the operation (its caller
/// gets the message); from a `post_` hook it is the operation's error (the write stands).
#[allow(unused_variables, reason = "the defaults ignore what they are given")]
pub trait Coprocessor: Sized + 'static {
    fn init(args: &Args) -> Result<Self, String>;

    /// `Ok(Some(row))` answers the Get without reading.
    fn pre_get(&self, get: &Get) -> Result<Option<Row>, String> {
        Ok(None)
    }

    fn post_get(&self, get: &Get, row: &mut Row) -> Result<(), String> {
        Ok(())
    }

    fn pre_put(&self, put: &mut Put) -> Result<(), String> {
        Ok(())
    }

    fn post_put(&self, put: &Put) -> Result<(), String> {
        Ok(())
    }

    fn pre_delete(&self, delete: &mut Delete) -> Result<(), String> {
        Ok(())
    }

    fn post_delete(&self, delete: &Delete) -> Result<(), String> {
        Ok(())
    }

    fn pre_increment(&self, inc: &mut Increment) -> Result<(), String> {
        Ok(())
    }

    /// `row` is the counters' new cells, as the Increment returns them.
    fn post_increment(&self, inc: &Increment, row: &mut Row) -> Result<(), String> {
        Ok(())
    }

    fn pre_append(&self, append: &mut Append) -> Result<(), String> {
        Ok(())
    }

    fn post_append(&self, append: &Append, row: &mut Row) -> Result<(), String> {
        Ok(())
    }

    fn pre_scan_open(&self, scan: &Scan) -> Result<(), String> {
        Ok(())
    }

    /// Each row a scanner returns: `Ok(false)` leaves it out.
    fn post_scan_next(&self, row: &mut Row) -> Result<bool, String> {
        Ok(true)
    }

    fn pre_check_and_mutate(&self, cam: &mut CheckAndMutate) -> Result<(), String> {
        Ok(())
    }

    fn post_check_and_mutate(&self, cam: &CheckAndMutate) -> Result<(), String> {
        Ok(())
    }

    fn pre_flush(&self) -> Result<(), String> {
        Ok(())
    }

    fn post_flush(&self) -> Result<(), String> {
        Ok(())
    }

    /// An `Err` skips the compaction.
    fn pre_compact(&self, major: bool) -> Result<(), String> {
        Ok(())
    }

    fn post_compact(&self, major: bool) -> Result<(), String> {
        Ok(())
    }

    /// One WAL edit about to be replayed as the region recovers, and after.
    fn pre_wal_restore(&self, cells: &[LoggedCell]) -> Result<(), String> {
        Ok(())
    }

    fn post_wal_restore(&self, cells: &[LoggedCell]) -> Result<(), String> {
        Ok(())
    }

    /// An endpoint call on this region (its service is the one [`export!`] names).
    fn endpoint(&self, method: &str, request: &[u8]) -> Result<Vec<u8>, String> {
        Err(format!("no endpoint method {method}"))
    }
}

/// Exports a [`Coprocessor`] and the hooks the server should call:
/// `export!(Type, [pre_put, post_scan_next])`, and for an endpoint
/// `export!(Type, [endpoint], service = "RowCounter")`.
#[macro_export]
macro_rules! export {
    ($ty:ty, [$($hook:ident),* $(,)?] $(, service = $service:literal)?) => {
        #[unsafe(no_mangle)]
        pub extern "C" fn basalt_abi_version() -> i32 {
            $crate::ABI_VERSION
        }

        #[unsafe(no_mangle)]
        pub extern "C" fn basalt_alloc(len: u32) -> u32 {
            $crate::guest::alloc(len)
        }

        #[unsafe(no_mangle)]
        pub extern "C" fn basalt_free(ptr: u32, len: u32) {
            $crate::guest::free(ptr, len)
        }

        #[unsafe(no_mangle)]
        pub extern "C" fn basalt_init(ptr: u32, len: u32) -> i64 {
            $crate::guest::init::<$ty>(ptr, len)
        }

        $(
            #[unsafe(no_mangle)]
            pub extern "C" fn basalt_service() -> i64 {
                $crate::guest::leak($service.as_bytes().to_vec())
            }
        )?

        $(
            #[unsafe(no_mangle)]
            pub extern "C" fn $hook(ptr: u32, len: u32) -> i64 {
                $crate::guest::$hook::<$ty>(ptr, len)
            }
        )*
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_parse() {
        let args = Args::parse("column=f:q, index=t_idx,flag");
        assert_eq!(args.get("column"), Some("f:q"));
        assert_eq!(args.get("index"), Some("t_idx"));
        assert_eq!(args.get("flag"), Some(""));
        assert!(args.require("missing").unwrap_err().contains("missing"));
        assert!(Args::parse("").0.is_empty());
    }
}
