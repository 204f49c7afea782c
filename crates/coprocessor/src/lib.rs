//! Basalt's coprocessor host: the WebAssembly modules a table's `coprocessor$N` attributes
//! attach, run on every region of the table as its observer (`basalt_region::RegionObserver`)
//! and its endpoints, each in a sandbox. A module reaches nothing but the functions the host
//! defines (`module`): its region's rows, writes to the tables its attachment grants, shared
//! counters and the log. Each call has a fuel budget and each instance a memory limit; a
//! module that traps or runs over is unloaded from that region with an error to its caller,
//! and the server goes on. `docs/design/coprocessors.md` is the contract; the SDK a module is
//! written with is `basalt-coprocessor-sdk`.

mod convert;
mod module;
mod observer;
pub mod secondary_index;
#[doc(hidden)]
pub mod testing;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use basalt_client::Client;
use basalt_common::TableName;
use basalt_common::coprocessor::CoprocessorSpec;
use basalt_common::error::{Error, Result};
use basalt_common::log::{Level, log};
use basalt_region::Region;

pub use module::{DEFAULT_FUEL, DEFAULT_MEMORY, Hook};
pub use observer::RegionCoprocessors;

use convert::Write;
use module::{Attached, HostState};

/// A compiled module and the file it was compiled from (its modification time and size).
type Compiled = (SystemTime, u64, wasmi::Module);

/// What a region server's coprocessors share: the interpreter, the server functions, the
/// modules compiled so far, and the connection their writes to other tables go through.
pub struct Env {
    engine: wasmi::Engine,
    linker: wasmi::Linker<HostState>,
    compiled: Mutex<HashMap<PathBuf, Compiled>>,
    connector: OnceLock<Connector>,
}

/// How modules' writes reach the cluster: called for each write (it may connect once and
/// keep the connection, or reach an embedded engine it must not keep alive).
pub type Connector = Box<dyn Fn() -> Result<Arc<dyn Client>> + Send + Sync>;

impl fmt::Debug for Env {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Env")
            .field("compiled", &self.compiled)
            .field("connected", &self.connector.get().is_some())
            .finish_non_exhaustive()
    }
}

impl Env {
    pub fn new() -> Arc<Env> {
        let mut config = wasmi::Config::default();
        config.consume_fuel(true);
        let engine = wasmi::Engine::new(&config);
        let mut linker = wasmi::Linker::new(&engine);
        // Defining four distinct names cannot clash; were it to fail, every module would
        // fail to start, naming the function it missed.
        if let Err(e) = module::define_host_functions(&mut linker) {
            log("coprocessor", Level::Error, || e.to_string());
        }
        Arc::new(Env {
            engine,
            linker,
            compiled: Mutex::default(),
            connector: OnceLock::new(),
        })
    }

    /// How modules' writes to other tables reach the cluster (the server's own connection
    /// to it). Until it is set, such a write fails; it is set once.
    pub fn set_connector(&self, connector: Connector) {
        let _ = self.connector.set(connector);
    }

    pub(crate) fn engine(&self) -> &wasmi::Engine {
        &self.engine
    }

    pub(crate) fn linker(&self) -> &wasmi::Linker<HostState> {
        &self.linker
    }

    /// The module in `path`, compiled (again if the file changed since).
    pub(crate) fn compile(&self, path: &Path) -> Result<wasmi::Module> {
        let unreadable = |e: std::io::Error| {
            Error::Coprocessor(format!(
                "coprocessor module {} cannot be read: {e}",
                path.display()
            ))
        };
        let meta = std::fs::metadata(path).map_err(unreadable)?;
        let stamp = (meta.modified().map_err(unreadable)?, meta.len());
        let mut compiled = self.compiled.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((modified, len, module)) = compiled.get(path)
            && (*modified, *len) == stamp
        {
            return Ok(module.clone());
        }
        let bytes = std::fs::read(path).map_err(unreadable)?;
        let module = wasmi::Module::new(&self.engine, &bytes).map_err(|e| {
            Error::Coprocessor(format!(
                "coprocessor module {} is not a valid WebAssembly module: {e}",
                path.display()
            ))
        })?;
        compiled.insert(path.to_owned(), (stamp.0, stamp.1, module.clone()));
        Ok(module)
    }

    /// Writes a module asked for, through the server's connection.
    pub(crate) fn write(&self, table: &TableName, write: &Write) -> Result<()> {
        let connect = self.connector.get().ok_or_else(|| {
            Error::Coprocessor("this server has no connection for coprocessors' writes".into())
        })?;
        let client = connect()?;
        match write {
            Write::Put(p) => client.put(table, p),
            Write::Delete(d) => client.delete(table, d),
        }
    }

    /// Runs the coprocessors `region`'s table attaches on it from now on (call it as the
    /// region opens, before it replays a WAL). A module that cannot be loaded is logged and
    /// left out, and the region opens without it: the errors of those left out are returned.
    pub fn attach(self: &Arc<Self>, region: &Arc<Region>) -> Result<Vec<Error>> {
        let mut modules = Vec::new();
        let mut left_out = Vec::new();
        for value in &region.descriptor().coprocessors {
            let loaded =
                CoprocessorSpec::parse(value).and_then(|spec| Attached::load(self, spec, region));
            match loaded {
                Ok(m) => modules.push(m),
                Err(e) => {
                    log("coprocessor", Level::Error, || {
                        format!(
                            "region {} opens without coprocessor {value}: {e}",
                            region.encoded_name()
                        )
                    });
                    left_out.push(e);
                }
            }
        }
        if !modules.is_empty() {
            region.set_observer(Arc::new(RegionCoprocessors::new(modules)))?;
        }
        Ok(left_out)
    }
}
