//! One module attached to one region: its compiled code, a pool of instances (each its own
//! memory, under the module's limits), and the server functions its code may call. A call
//! that traps, runs out of fuel or outgrows its memory unloads the module from the region:
//! that call fails with the reason, and later operations run without it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use basalt_common::TableName;
use basalt_common::coprocessor::CoprocessorSpec;
use basalt_common::error::{Error, Result};
use basalt_common::log::{Level, log};
use basalt_coprocessor_sdk::wire::{self, Message, reply};
use basalt_region::Region;
use wasmi::{
    Caller, Extern, Linker, Memory, Store, StoreLimits, StoreLimitsBuilder, TrapCode, TypedFunc,
};

use crate::Env;
use crate::convert::{self, Write};

/// Fuel a call gets unless its attachment says `fuel=` (about one per instruction: a
/// fraction of a second of this interpreter's time).
pub const DEFAULT_FUEL: u64 = 50_000_000;
/// Memory an instance may grow to unless its attachment says `memory=` (bytes).
pub const DEFAULT_MEMORY: usize = 64 << 20;

/// The hooks a module may export, by the names it exports them under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hook {
    PreGet,
    PostGet,
    PrePut,
    PostPut,
    PreDelete,
    PostDelete,
    PreIncrement,
    PostIncrement,
    PreAppend,
    PostAppend,
    PreScanOpen,
    PostScanNext,
    PreCheckAndMutate,
    PostCheckAndMutate,
    PreFlush,
    PostFlush,
    PreCompact,
    PostCompact,
    PreWalRestore,
    PostWalRestore,
    Endpoint,
}

impl Hook {
    pub const ALL: [Hook; 21] = [
        Hook::PreGet,
        Hook::PostGet,
        Hook::PrePut,
        Hook::PostPut,
        Hook::PreDelete,
        Hook::PostDelete,
        Hook::PreIncrement,
        Hook::PostIncrement,
        Hook::PreAppend,
        Hook::PostAppend,
        Hook::PreScanOpen,
        Hook::PostScanNext,
        Hook::PreCheckAndMutate,
        Hook::PostCheckAndMutate,
        Hook::PreFlush,
        Hook::PostFlush,
        Hook::PreCompact,
        Hook::PostCompact,
        Hook::PreWalRestore,
        Hook::PostWalRestore,
        Hook::Endpoint,
    ];

    /// The function a module exports for this hook.
    pub fn export(self) -> &'static str {
        match self {
            Hook::PreGet => "pre_get",
            Hook::PostGet => "post_get",
            Hook::PrePut => "pre_put",
            Hook::PostPut => "post_put",
            Hook::PreDelete => "pre_delete",
            Hook::PostDelete => "post_delete",
            Hook::PreIncrement => "pre_increment",
            Hook::PostIncrement => "post_increment",
            Hook::PreAppend => "pre_append",
            Hook::PostAppend => "post_append",
            Hook::PreScanOpen => "pre_scan_open",
            Hook::PostScanNext => "post_scan_next",
            Hook::PreCheckAndMutate => "pre_check_and_mutate",
            Hook::PostCheckAndMutate => "post_check_and_mutate",
            Hook::PreFlush => "pre_flush",
            Hook::PostFlush => "post_flush",
            Hook::PreCompact => "pre_compact",
            Hook::PostCompact => "post_compact",
            Hook::PreWalRestore => "pre_wal_restore",
            Hook::PostWalRestore => "post_wal_restore",
            Hook::Endpoint => "endpoint",
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// What a module's instances on one region share: who they are, the region, the counters,
/// the tables they may write, and the writes WAL replay put off.
#[derive(Debug)]
pub struct Context {
    /// The module's file name, for messages.
    pub module: String,
    pub region_name: String,
    pub region: Weak<Region>,
    counters: Mutex<HashMap<String, i64>>,
    writable: Vec<TableName>,
    env: Arc<Env>,
    /// Writes asked for while the region replayed its WAL (before it serves): made once it
    /// opens (`crate::RegionCoprocessors::opened`).
    pub deferred: Mutex<Vec<(TableName, Write)>>,
}

impl Context {
    /// Writes `write` to `table` through the server's connection.
    pub fn write(&self, table: &TableName, write: &Write) -> Result<()> {
        self.env.write(table, write)
    }
}

/// An instance's own state: its limits, and what its server functions reach.
#[derive(Debug)]
pub struct HostState {
    limits: StoreLimits,
    ctx: Arc<Context>,
    /// Set while a WAL restore hook runs: writes are put off until the region opens.
    restoring: bool,
}

/// One instance of a module, with the exports every call uses.
#[derive(Debug)]
struct Instance {
    instance: wasmi::Instance,
    store: Store<HostState>,
    memory: Memory,
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    hooks: HashMap<Hook, TypedFunc<(u32, u32), i64>>,
}

/// A module attached to a region; see the module documentation.
#[derive(Debug)]
pub struct Attached {
    pub spec: CoprocessorSpec,
    module: wasmi::Module,
    hooks: u32,
    /// The endpoint service it serves (its `basalt_service` export), if any.
    pub service: Option<String>,
    fuel: u64,
    memory: usize,
    pool: Mutex<Vec<Instance>>,
    unloaded: AtomicBool,
    ctx: Arc<Context>,
}

/// A limit from the attachment's arguments, or its default.
fn limit<T: std::str::FromStr>(spec: &CoprocessorSpec, key: &str, default: T) -> Result<T> {
    match spec.arg(key) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| {
            Error::InvalidArgument(format!(
                "coprocessor {}: {key}={v} is not a number",
                spec.path.display()
            ))
        }),
    }
}

fn describe(e: &wasmi::Error, fuel: u64, memory: usize) -> String {
    match e.as_trap_code() {
        Some(TrapCode::OutOfFuel) => {
            format!("ran out of fuel (it may use {fuel} per call)")
        }
        Some(TrapCode::GrowthOperationLimited) => {
            format!("outgrew its memory (it may use {memory} bytes)")
        }
        Some(code) => format!("trapped: {code}"),
        None => format!("failed: {e}"),
    }
}

impl Attached {
    /// Loads `spec`'s module for `region`: compiled (or found compiled), checked, and one
    /// instance started (its `basalt_init` given the arguments).
    pub fn load(env: &Arc<Env>, spec: CoprocessorSpec, region: &Arc<Region>) -> Result<Attached> {
        let module = env.compile(&spec.path)?;
        let name = spec
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let fail = {
            let name = name.clone();
            move |why: String| Error::Coprocessor(format!("coprocessor {name}: {why}"))
        };
        for required in [
            "memory",
            "basalt_alloc",
            "basalt_free",
            "basalt_init",
            "basalt_abi_version",
        ] {
            if module.get_export(required).is_none() {
                return Err(fail(format!(
                    "the module does not export {required} (was it built with \
                     basalt-coprocessor-sdk's export!?)"
                )));
            }
        }
        let mut hooks = 0;
        for hook in Hook::ALL {
            if module.get_export(hook.export()).is_some() {
                hooks |= hook.bit();
            }
        }
        let writable = match spec.arg("write") {
            None => Vec::new(),
            Some(tables) => tables
                .split(';')
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(TableName::parse)
                .collect::<Result<_>>()?,
        };
        let ctx = Arc::new(Context {
            module: name,
            region_name: region.encoded_name().to_owned(),
            region: Arc::downgrade(region),
            counters: Mutex::default(),
            writable,
            env: Arc::clone(env),
            deferred: Mutex::default(),
        });
        let mut attached = Attached {
            fuel: limit(&spec, "fuel", DEFAULT_FUEL)?,
            memory: limit(&spec, "memory", DEFAULT_MEMORY)?,
            spec,
            module,
            hooks,
            service: None,
            pool: Mutex::default(),
            unloaded: AtomicBool::new(false),
            ctx,
        };
        let mut first = attached.instantiate().map_err(&fail)?;
        attached.service = first.service().map_err(&fail)?;
        attached.give_back(first);
        Ok(attached)
    }

    /// The module's file name.
    pub fn name(&self) -> &str {
        &self.ctx.module
    }

    /// Whether this module (still loaded) exports `hook`.
    pub fn has(&self, hook: Hook) -> bool {
        self.hooks & hook.bit() != 0 && !self.unloaded.load(Ordering::Acquire)
    }

    pub fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Whether the module is still loaded on its region (not unloaded by a fault).
    pub fn is_loaded(&self) -> bool {
        !self.unloaded.load(Ordering::Acquire)
    }

    /// A new instance, started: `Err` says why it could not be.
    fn instantiate(&self) -> std::result::Result<Instance, String> {
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.memory)
            .instances(1)
            .trap_on_grow_failure(true)
            .build();
        let mut store = Store::new(
            self.ctx.env.engine(),
            HostState {
                limits,
                ctx: Arc::clone(&self.ctx),
                restoring: false,
            },
        );
        store.limiter(|state| &mut state.limits);
        let on = |e: wasmi::Error| describe(&e, self.fuel, self.memory);
        store.set_fuel(self.fuel).map_err(|e| e.to_string())?;
        let instance = self
            .ctx
            .env
            .linker()
            .instantiate_and_start(&mut store, &self.module)
            .map_err(on)?;
        let memory = instance
            .get_memory(&store, "memory")
            .ok_or("its memory export is not a memory")?;
        let typed = |e: wasmi::Error| format!("an export has the wrong type: {e}");
        let version = instance
            .get_typed_func::<(), i32>(&store, "basalt_abi_version")
            .map_err(typed)?
            .call(&mut store, ())
            .map_err(on)?;
        if version != basalt_coprocessor_sdk::ABI_VERSION {
            return Err(format!(
                "it speaks module interface {version}; this server speaks {}",
                basalt_coprocessor_sdk::ABI_VERSION
            ));
        }
        let mut hooks = HashMap::new();
        for hook in Hook::ALL {
            if self.hooks & hook.bit() != 0 {
                let f = instance
                    .get_typed_func::<(u32, u32), i64>(&store, hook.export())
                    .map_err(typed)?;
                hooks.insert(hook, f);
            }
        }
        let mut out = Instance {
            alloc: instance
                .get_typed_func(&store, "basalt_alloc")
                .map_err(typed)?,
            free: instance
                .get_typed_func(&store, "basalt_free")
                .map_err(typed)?,
            instance,
            store,
            memory,
            hooks,
        };
        let init = instance
            .get_typed_func::<(u32, u32), i64>(&out.store, "basalt_init")
            .map_err(typed)?;
        let args = self.spec.args.clone();
        match out.invoke(init, args.as_bytes()).map_err(on)? {
            None => Ok(out),
            Some(r) => Err(format!(
                "its init refused the arguments: {}",
                String::from_utf8_lossy(r.get(1..).unwrap_or_default())
            )),
        }
    }

    fn give_back(&self, instance: Instance) {
        self.pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(instance);
    }

    /// Unloads the module from this region for `reason`: the error its caller gets.
    fn unload(&self, reason: &str) -> Error {
        self.unloaded.store(true, Ordering::Release);
        self.pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        let message = format!(
            "coprocessor {} {reason}; it was unloaded from region {}",
            self.ctx.module, self.ctx.region_name
        );
        log("coprocessor", Level::Error, || message.clone());
        Error::Coprocessor(message)
    }

    /// Calls `hook` with `input`: the module's reply (its tag first), or `None` to go on
    /// unchanged. A module unloaded meanwhile answers `None`.
    pub fn call(&self, hook: Hook, input: &[u8], restoring: bool) -> Result<Option<Vec<u8>>> {
        if !self.has(hook) {
            return Ok(None);
        }
        let pooled = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut instance = match pooled {
            Some(i) => i,
            None => self
                .instantiate()
                .map_err(|e| self.unload(&format!("could not start: {e}")))?,
        };
        instance.store.data_mut().restoring = restoring;
        if let Err(e) = instance.store.set_fuel(self.fuel) {
            return Err(self.unload(&e.to_string()));
        }
        let Some(&f) = instance.hooks.get(&hook) else {
            self.give_back(instance);
            return Ok(None);
        };
        match instance.invoke(f, input) {
            Ok(reply) => {
                self.give_back(instance);
                if let Some(r) = &reply
                    && r.first() == Some(&reply::VETO)
                {
                    return Err(Error::Coprocessor(format!(
                        "{} (coprocessor {})",
                        String::from_utf8_lossy(&r[1..]),
                        self.ctx.module
                    )));
                }
                Ok(reply)
            }
            Err(e) => Err(self.unload(&describe(&e, self.fuel, self.memory))),
        }
    }
}

impl Instance {
    /// Hands `input` to `f` in the instance's memory and reads back its reply.
    fn invoke(
        &mut self,
        f: TypedFunc<(u32, u32), i64>,
        input: &[u8],
    ) -> std::result::Result<Option<Vec<u8>>, wasmi::Error> {
        let len = u32::try_from(input.len())
            .map_err(|_| wasmi::Error::new("an input larger than 4 GiB"))?;
        let ptr = self.alloc.call(&mut self.store, len)?;
        self.memory
            .write(&mut self.store, ptr as usize, input)
            .map_err(|_| wasmi::Error::new("basalt_alloc answered a buffer outside its memory"))?;
        let packed = f.call(&mut self.store, (ptr, len))?;
        if packed == 0 {
            return Ok(None);
        }
        let (at, len) = wire::unpack(packed);
        let out = read(&self.memory, &self.store, at, len)?;
        self.free.call(&mut self.store, (at, len))?;
        if out.is_empty() {
            return Err(wasmi::Error::new("it answered an empty reply"));
        }
        Ok(Some(out))
    }

    /// The endpoint service the module names, if it exports `basalt_service`.
    fn service(&mut self) -> std::result::Result<Option<String>, String> {
        let Ok(f) = self
            .instance
            .get_typed_func::<(), i64>(&self.store, "basalt_service")
        else {
            return Ok(None);
        };
        let packed = f.call(&mut self.store, ()).map_err(|e| e.to_string())?;
        let (at, len) = wire::unpack(packed);
        let name = read(&self.memory, &self.store, at, len).map_err(|e| e.to_string())?;
        String::from_utf8(name)
            .map(Some)
            .map_err(|_| "its service name is not UTF-8".to_owned())
    }
}

/// `len` bytes at `at` in `memory`, or an error if they are not all inside it.
fn read(
    memory: &Memory,
    store: impl wasmi::AsContext,
    at: u32,
    len: u32,
) -> std::result::Result<Vec<u8>, wasmi::Error> {
    let size = memory.data_size(&store);
    if (at as usize).saturating_add(len as usize) > size {
        return Err(wasmi::Error::new(
            "it answered with a buffer outside its memory",
        ));
    }
    let mut out = vec![0; len as usize];
    memory
        .read(&store, at as usize, &mut out)
        .map_err(|_| wasmi::Error::new("it answered with a buffer outside its memory"))?;
    Ok(out)
}

/// The server functions a module imports (module `basalt`), for `linker`.
pub fn define_host_functions(linker: &mut Linker<HostState>) -> Result<()> {
    let defined = (|| -> std::result::Result<(), wasmi::errors::LinkerError> {
        linker.func_wrap("basalt", "log", host_log)?;
        linker.func_wrap("basalt", "region_get", host_region_get)?;
        linker.func_wrap("basalt", "table_write", host_table_write)?;
        linker.func_wrap("basalt", "counter_add", host_counter_add)?;
        Ok(())
    })();
    defined.map_err(|e| Error::storage(format!("defining the coprocessor functions: {e}")))
}

fn caller_memory(caller: &Caller<'_, HostState>) -> std::result::Result<Memory, wasmi::Error> {
    caller
        .get_export("memory")
        .and_then(Extern::into_memory)
        .ok_or_else(|| wasmi::Error::new("the module has no memory"))
}

/// What the module handed a server function at `ptr`, `len`.
fn argument(
    caller: &Caller<'_, HostState>,
    ptr: u32,
    len: u32,
) -> std::result::Result<Vec<u8>, wasmi::Error> {
    let memory = caller_memory(caller)?;
    read(&memory, caller, ptr, len)
}

/// Hands `bytes` to the module: a buffer it allocates, packed.
fn hand_over(
    caller: &mut Caller<'_, HostState>,
    bytes: &[u8],
) -> std::result::Result<i64, wasmi::Error> {
    let alloc = caller
        .get_export("basalt_alloc")
        .and_then(Extern::into_func)
        .ok_or_else(|| wasmi::Error::new("the module has no basalt_alloc"))?
        .typed::<u32, u32>(&*caller)?;
    let len = u32::try_from(bytes.len()).map_err(|_| wasmi::Error::new("an answer over 4 GiB"))?;
    let ptr = alloc.call(&mut *caller, len)?;
    let memory = caller_memory(caller)?;
    memory
        .write(&mut *caller, ptr as usize, bytes)
        .map_err(|_| wasmi::Error::new("basalt_alloc answered a buffer outside its memory"))?;
    Ok(wire::pack(ptr, len))
}

/// An answer, or a failure's message, as a server function replies.
fn answer(outcome: Result<Vec<u8>>) -> Vec<u8> {
    match outcome {
        Ok(body) => wire::reply_with(reply::ANSWER, &body),
        Err(e) => wire::reply_with(reply::VETO, e.to_string().as_bytes()),
    }
}

fn host_log(
    caller: Caller<'_, HostState>,
    ptr: u32,
    len: u32,
) -> std::result::Result<(), wasmi::Error> {
    let message = argument(&caller, ptr, len)?;
    let ctx = &caller.data().ctx;
    log("coprocessor", Level::Info, || {
        format!(
            "{} on {}: {}",
            ctx.module,
            ctx.region_name,
            String::from_utf8_lossy(&message)
        )
    });
    Ok(())
}

fn host_region_get(
    mut caller: Caller<'_, HostState>,
    ptr: u32,
    len: u32,
) -> std::result::Result<i64, wasmi::Error> {
    let input = argument(&caller, ptr, len)?;
    let ctx = Arc::clone(&caller.data().ctx);
    let outcome = (|| {
        let get = wire::Get::from_bytes(&input)
            .map_err(|e| Error::Coprocessor(e.to_string()))
            .and_then(convert::get_in)?;
        let region = ctx
            .region
            .upgrade()
            .ok_or_else(|| Error::NotServingRegion(ctx.region_name.clone()))?;
        let (get, raw) = get;
        let row = if raw {
            region.get_raw_unobserved(&get)?
        } else {
            region.get_unobserved(&get)?
        };
        Ok(convert::row_out(&row).to_bytes())
    })();
    hand_over(&mut caller, &answer(outcome))
}

fn host_table_write(
    mut caller: Caller<'_, HostState>,
    ptr: u32,
    len: u32,
) -> std::result::Result<i64, wasmi::Error> {
    let input = argument(&caller, ptr, len)?;
    let (ctx, restoring) = (Arc::clone(&caller.data().ctx), caller.data().restoring);
    let outcome = (|| {
        let w =
            wire::TableWrite::from_bytes(&input).map_err(|e| Error::Coprocessor(e.to_string()))?;
        let table = TableName::parse(&w.table)?;
        if !ctx.writable.contains(&table) {
            return Err(Error::AccessDenied(format!(
                "coprocessor {} may not write to table {table}: its attachment grants \
                 write={}",
                ctx.module,
                ctx.writable
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(";")
            )));
        }
        let Some(write) = convert::mutation_in(w.mutation)? else {
            return Err(Error::Coprocessor(
                "a coprocessor may write only Puts and Deletes to a table".into(),
            ));
        };
        if restoring {
            ctx.deferred
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push((table, write));
            return Ok(Vec::new());
        }
        ctx.env.write(&table, &write)?;
        Ok(Vec::new())
    })();
    hand_over(&mut caller, &answer(outcome))
}

fn host_counter_add(
    caller: Caller<'_, HostState>,
    ptr: u32,
    len: u32,
    delta: i64,
) -> std::result::Result<i64, wasmi::Error> {
    let key = String::from_utf8_lossy(&argument(&caller, ptr, len)?).into_owned();
    let mut counters = caller
        .data()
        .ctx
        .counters
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let value = counters.entry(key).or_insert(0);
    *value = value.wrapping_add(delta);
    Ok(*value)
}
