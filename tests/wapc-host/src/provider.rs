//! A waPC engine provider over wasmtime, for `wapc::WapcHost`: the part of
//! `wasmtime-provider` 2.19 (the provider Kubewarden's policy-server uses) that a
//! `wasm32-unknown-unknown` waPC guest reaches, built against wasmtime with only the `runtime`,
//! `cranelift`, `std` and `parallel-compilation` features.
//!
//! Why not `wasmtime-provider` itself: it fixes wasmtime's features (component model, GC,
//! the compilation cache with zstd, `wat`, coredumps, threads, profiling, ...), which the
//! policy never uses and which took most of this crate's cold build. What policy-server does
//! with a module is kept as it is:
//!
//! - one [`Engine`] and [`Module`] compiled once, and an [`InstancePre`] with the nine waPC
//!   host functions linked ([`EngineProviderPre::new`], policy-server's `build_pre`);
//! - for each request a new [`Store`] and instance ([`EngineProviderPre::rehydrate`]), then
//!   `_start` and `wapc_init` called when exported, in that order (`wapc::wapc_functions::REQUIRED_STARTS`);
//! - a trap in `__guest_call` is the call's guest error, as `wasmtime-provider` reports it
//!   (the host sees `Ok(0)` and `WapcHost::call` answers `Err(GuestCallFailure)`).
//!
//! One difference, on purpose: a guest pointer outside its memory is a trap here, where
//! `wasmtime-provider` indexes the memory and panics in the host. The policy never passes one
//! (the garbage tests would trap either way).

use std::error::Error;
use std::sync::{Arc, Mutex, OnceLock};

use wapc::{wapc_functions, ModuleState, WebAssemblyEngineProvider, HOST_NAMESPACE};
use wasmtime::{AsContextMut, Caller, Engine, InstancePre, Linker, Memory, Module, Store, TypedFunc};

type BoxError = Box<dyn Error + Send + Sync>;

/// What a store holds: the waPC conversation state `WapcHost` shares with the provider (set
/// by `init`, when the host hands it over).
#[derive(Default)]
pub struct WapcStore {
    host: Option<Arc<ModuleState>>,
}

/// The compiled module with its host functions linked, from which each request's instance is
/// made ([`EngineProviderPre::rehydrate`]).
#[derive(Clone)]
pub struct EngineProviderPre {
    engine: Engine,
    module: Module,
    instance_pre: InstancePre<WapcStore>,
}

/// The process's engine: policy-server, too, compiles every policy with one engine.
fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(Engine::default)
}

impl EngineProviderPre {
    /// Compiles `bytes` with Cranelift (the cold start: what the benchmark times) and links
    /// the waPC host functions.
    pub fn new(bytes: &[u8]) -> wasmtime::Result<Self> {
        let module = Module::new(engine(), bytes)?;
        Self::from_module(engine().clone(), module)
    }

    /// [`EngineProviderPre::new`], compiled once per process for the same bytes: the tests
    /// make dozens of hosts of the same two modules, and a Cranelift compile of the full
    /// module takes seconds (the host's `wapc-test` profile, opt-level 1).
    pub fn cached(bytes: &[u8]) -> wasmtime::Result<Self> {
        static COMPILED: Mutex<Vec<(Vec<u8>, EngineProviderPre)>> = Mutex::new(Vec::new());
        let mut compiled = COMPILED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((_, pre)) = compiled.iter().find(|(b, _)| b.as_slice() == bytes) {
            return Ok(pre.clone());
        }
        let pre = Self::new(bytes)?;
        compiled.push((bytes.to_vec(), pre.clone()));
        Ok(pre)
    }

    /// A module compiled already (for example deserialized from a precompiled artifact).
    pub fn from_module(engine: Engine, module: Module) -> wasmtime::Result<Self> {
        let mut linker = Linker::new(&engine);
        add_to_linker(&mut linker)?;
        let instance_pre = linker.instantiate_pre(&module)?;
        Ok(Self { engine, module, instance_pre })
    }

    /// The engine and the compiled module (for a host of another kind over the same code).
    pub fn compiled(&self) -> (&Engine, &Module) {
        (&self.engine, &self.module)
    }

    /// A provider for one new instance (instantiated when `WapcHost::new` calls `init`).
    pub fn rehydrate(&self) -> EngineProvider {
        EngineProvider {
            store: Store::new(&self.engine, WapcStore::default()),
            instance_pre: self.instance_pre.clone(),
            engine: self.engine.clone(),
            guest: None,
        }
    }
}

/// One instance of the module, driven by `WapcHost`.
pub struct EngineProvider {
    engine: Engine,
    instance_pre: InstancePre<WapcStore>,
    store: Store<WapcStore>,
    guest: Option<Guest>,
}

struct Guest {
    guest_call: TypedFunc<(i32, i32), i32>,
    host: Arc<ModuleState>,
}

impl EngineProvider {
    /// One instance of `bytes`, compiled once per process: `EngineProviderPre::cached(bytes)?.rehydrate()`.
    pub fn new(bytes: &[u8]) -> wasmtime::Result<Self> {
        Ok(EngineProviderPre::cached(bytes)?.rehydrate())
    }
}

impl WebAssemblyEngineProvider for EngineProvider {
    fn init(&mut self, host: Arc<ModuleState>) -> Result<(), BoxError> {
        self.store = Store::new(&self.engine, WapcStore { host: Some(host.clone()) });
        let instance = self.instance_pre.instantiate(&mut self.store)?;
        let guest_call = instance
            .get_typed_func::<(i32, i32), i32>(&mut self.store, wapc_functions::GUEST_CALL)
            .map_err(|_| format!("the module exports no {}(i32, i32) -> i32", wapc_functions::GUEST_CALL))?;
        for start in wapc_functions::REQUIRED_STARTS {
            if instance.get_export(&mut self.store, start).is_some() {
                let f: TypedFunc<(), ()> = instance.get_typed_func(&mut self.store, start)?;
                f.call(&mut self.store, ()).map_err(|e| format!("initialization failed: {start}: {e}"))?;
            }
        }
        self.guest = Some(Guest { guest_call, host });
        Ok(())
    }

    fn call(&mut self, op_length: i32, msg_length: i32) -> Result<i32, BoxError> {
        let guest = self.guest.as_ref().ok_or("call before init")?;
        match guest.guest_call.call(&mut self.store, (op_length, msg_length)) {
            Ok(result) => Ok(result),
            Err(trap) => {
                guest.host.set_guest_error(trap.to_string());
                Ok(0)
            }
        }
    }

    fn replace(&mut self, _bytes: &[u8]) -> Result<(), BoxError> {
        // policy-server never hot-swaps a module; a new module is a new `EngineProviderPre`.
        Err("this provider does not replace modules".into())
    }
}

fn host(caller: &Caller<'_, WapcStore>) -> wasmtime::Result<Arc<ModuleState>> {
    caller.data().host.clone().ok_or_else(|| wasmtime::format_err!("a host function called before init"))
}

fn memory(caller: &mut Caller<'_, WapcStore>) -> wasmtime::Result<Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::format_err!("the module exports no memory"))
}

/// The guest's bytes at `ptr..ptr + len`, or a trap when that is outside its memory.
fn read(caller: &mut Caller<'_, WapcStore>, ptr: i32, len: i32) -> wasmtime::Result<Vec<u8>> {
    let mem = memory(caller)?;
    let data = mem.data(&caller);
    let start = usize::try_from(ptr).map_err(|_| wasmtime::format_err!("negative pointer {ptr}"))?;
    let len = usize::try_from(len).map_err(|_| wasmtime::format_err!("negative length {len}"))?;
    start
        .checked_add(len)
        .and_then(|end| data.get(start..end))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| wasmtime::format_err!("{len} bytes at {start} are outside the guest's memory"))
}

fn write(caller: &mut Caller<'_, WapcStore>, ptr: i32, bytes: &[u8]) -> wasmtime::Result<()> {
    let mem = memory(caller)?;
    let start = usize::try_from(ptr).map_err(|_| wasmtime::format_err!("negative pointer {ptr}"))?;
    mem.write(caller.as_context_mut(), start, bytes).map_err(|e| wasmtime::format_err!("{e}"))
}

fn utf8(bytes: Vec<u8>, what: &str) -> wasmtime::Result<String> {
    String::from_utf8(bytes).map_err(|e| wasmtime::format_err!("{what}: not UTF-8: {e}"))
}

/// The nine functions of the `wapc` namespace a guest may import.
fn add_to_linker(linker: &mut Linker<WapcStore>) -> wasmtime::Result<()> {
    linker.func_wrap(
        HOST_NAMESPACE,
        wapc_functions::GUEST_REQUEST_FN,
        |mut c: Caller<'_, WapcStore>, op_ptr: i32, ptr: i32| {
            if let Some(invocation) = host(&c)?.get_guest_request() {
                write(&mut c, ptr, &invocation.msg)?;
                write(&mut c, op_ptr, invocation.operation.as_bytes())?;
            }
            Ok(())
        },
    )?;
    linker.func_wrap(
        HOST_NAMESPACE,
        wapc_functions::GUEST_RESPONSE_FN,
        |mut c: Caller<'_, WapcStore>, ptr: i32, len: i32| {
            let bytes = read(&mut c, ptr, len)?;
            host(&c)?.set_guest_response(bytes);
            Ok(())
        },
    )?;
    linker.func_wrap(
        HOST_NAMESPACE,
        wapc_functions::GUEST_ERROR_FN,
        |mut c: Caller<'_, WapcStore>, ptr: i32, len: i32| {
            let message = utf8(read(&mut c, ptr, len)?, "guest error")?;
            host(&c)?.set_guest_error(message);
            Ok(())
        },
    )?;
    linker.func_wrap(
        HOST_NAMESPACE,
        wapc_functions::HOST_CALL,
        |mut c: Caller<'_, WapcStore>,
         binding_ptr: i32,
         binding_len: i32,
         namespace_ptr: i32,
         namespace_len: i32,
         operation_ptr: i32,
         operation_len: i32,
         ptr: i32,
         len: i32|
         -> wasmtime::Result<i32> {
            let payload = read(&mut c, ptr, len)?;
            let binding = utf8(read(&mut c, binding_ptr, binding_len)?, "host call binding")?;
            let namespace = utf8(read(&mut c, namespace_ptr, namespace_len)?, "host call namespace")?;
            let operation = utf8(read(&mut c, operation_ptr, operation_len)?, "host call operation")?;
            Ok(host(&c)?.do_host_call(&binding, &namespace, &operation, &payload).unwrap_or(0))
        },
    )?;
    linker.func_wrap(HOST_NAMESPACE, wapc_functions::HOST_RESPONSE_FN, |mut c: Caller<'_, WapcStore>, ptr: i32| {
        let host = host(&c)?;
        host.with_host_response(|response| write(&mut c, ptr, response)).transpose()?;
        Ok(())
    })?;
    linker.func_wrap(HOST_NAMESPACE, wapc_functions::HOST_RESPONSE_LEN_FN, |c: Caller<'_, WapcStore>| {
        Ok(host(&c)?.host_response_len() as i32)
    })?;
    linker.func_wrap(HOST_NAMESPACE, wapc_functions::HOST_ERROR_FN, |mut c: Caller<'_, WapcStore>, ptr: i32| {
        if let Some(error) = host(&c)?.get_host_error() {
            write(&mut c, ptr, error.as_bytes())?;
        }
        Ok(())
    })?;
    linker.func_wrap(HOST_NAMESPACE, wapc_functions::HOST_ERROR_LEN_FN, |c: Caller<'_, WapcStore>| {
        Ok(host(&c)?.get_host_error().map_or(0, |e| e.len()) as i32)
    })?;
    linker.func_wrap(
        HOST_NAMESPACE,
        wapc_functions::HOST_CONSOLE_LOG,
        |mut c: Caller<'_, WapcStore>, ptr: i32, len: i32| {
            let message = utf8(read(&mut c, ptr, len)?, "console log")?;
            host(&c)?.do_console_log(&message);
            Ok(())
        },
    )?;
    Ok(())
}
