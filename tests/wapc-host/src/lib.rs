//! Test harness for the built policy modules, `dist/policy/placement-policy.wasm` (full, with
//! Gatekeeper) and `dist/policy/placement-policy-lean.wasm` (placement policies only):
//!
//! - [`wapc_host`]: the module in a real waPC host, `wapc::WapcHost` (the host Kubewarden's
//!   policy-server uses) over [`provider`], the part of `wasmtime-provider` the module reaches,
//!   as policy-server loads it;
//! - [`RawHost`]: the same module in a minimal waPC host written against wasmtime directly,
//!   used only where the test must read the instance's exported `memory` (WapcHost keeps the
//!   wasmtime store private);
//! - the shared fixtures (`core/src/admission/testdata`) and inventories for the benchmark.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use wapc::WapcHost;
use wasmtime::{Caller, Instance, Linker, Memory, Store, TypedFunc};

pub mod provider;
use provider::{EngineProvider, EngineProviderPre};

/// The repository root (this crate is `tests/wapc-host`).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The full module (placement policies and Gatekeeper): `$PLACEMENT_POLICY_WASM`, else
/// `dist/policy/placement-policy.wasm`.
pub fn module_path() -> PathBuf {
    std::env::var_os("PLACEMENT_POLICY_WASM")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("dist/policy/placement-policy.wasm"))
}

/// The lean module (placement policies only, no Rego interpreter): `$PLACEMENT_POLICY_LEAN_WASM`,
/// else `dist/policy/placement-policy-lean.wasm`.
pub fn lean_module_path() -> PathBuf {
    std::env::var_os("PLACEMENT_POLICY_LEAN_WASM")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("dist/policy/placement-policy-lean.wasm"))
}

fn read_module(path: &std::path::Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}: build it first with `make policy`", path.display()))
}

/// The full module's bytes.
pub fn module_bytes() -> Vec<u8> {
    read_module(&module_path())
}

/// The lean module's bytes.
pub fn lean_module_bytes() -> Vec<u8> {
    read_module(&lean_module_path())
}

/// One of the two artifacts `make policy` writes.
pub struct Artifact {
    pub name: &'static str,
    pub bytes: Vec<u8>,
    /// The metadata file it is annotated with (under `policy-wasm/`).
    pub metadata: &'static str,
    /// Whether it evaluates the `gatekeeper` setting.
    pub gatekeeper: bool,
}

/// Both artifacts: the full module, then the lean one.
pub fn artifacts() -> [Artifact; 2] {
    [
        Artifact { name: "placement-policy.wasm", bytes: module_bytes(), metadata: "metadata.yml", gatekeeper: true },
        Artifact {
            name: "placement-policy-lean.wasm",
            bytes: lean_module_bytes(),
            metadata: "metadata-lean.yml",
            gatekeeper: false,
        },
    ]
}

/// A fixture from `core/src/admission/testdata`.
pub fn fixture(name: &str) -> Value {
    json_file(&repo_root().join("core/src/admission/testdata").join(name))
}

/// A JSON file of this repository, read (a missing or invalid file is the test's panic).
fn json_file(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Kubewarden's `validate` payload.
pub fn payload(request: &Value, settings: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"request": request, "settings": settings})).expect("serializable")
}

/// The module in a waPC host as policy-server builds it (wasmtime provider; no cluster: every
/// host call fails).
pub fn wapc_host(bytes: &[u8]) -> WapcHost {
    let engine = EngineProvider::new(bytes).expect("wasmtime engine");
    WapcHost::new(Box::new(engine), Some(callback(None))).expect("waPC host")
}

/// A fixture cluster: a kwctl host-capabilities session file (the format
/// `kwctl run --record-host-capabilities-interactions` writes and
/// `--replay-host-capabilities-interactions` reads), read by the core's [`Replay`], which
/// answers a `kubewarden`/`kubernetes` host call with the exchange whose request is that call
/// and records the order of the calls (kwctl replays a run's calls in file order).
pub use placement_core::admission::host::Replay;

/// A session file, as a host for the tests (shared, so that a test reads the calls made).
pub fn load_session(path: &std::path::Path) -> Arc<Replay> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Arc::new(Replay::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// The kwctl session of `policy-wasm/examples/cluster/` for `inventory: cluster` (the 7 nodes
/// of the test settings).
pub fn example_cluster() -> Arc<Replay> {
    load_session(&repo_root().join("policy-wasm/examples/cluster/nodes-replay.yml"))
}

/// The kwctl session of `policy-wasm/examples/cluster/` for `gatekeeper.inventory` (the
/// cluster's Ingresses and Namespaces).
pub fn ingress_cluster() -> Arc<Replay> {
    load_session(&repo_root().join("policy-wasm/examples/cluster/ingress-replay.yml"))
}

fn callback(cluster: Option<Arc<Replay>>) -> Box<wapc::HostCallback> {
    Box::new(move |_, binding, namespace, operation, payload| match (&cluster, binding, namespace) {
        (Some(c), "kubewarden", "kubernetes") => c.answer(operation, payload).map_err(Into::into),
        (Some(_), ..) => Err(format!("unknown host call {binding}/{namespace}/{operation}").into()),
        (None, ..) => Err(format!("this host has no cluster: {binding}/{namespace}/{operation}").into()),
    })
}

/// The module as policy-server runs it in production: compiled once ([`EngineProviderPre`]),
/// then a **fresh instance for every call** (`rehydrate` + `WapcHost::new`), so nothing the
/// module keeps between calls (a settings cache) survives from one request to the next.
pub struct FreshHost {
    pre: EngineProviderPre,
    cluster: Option<Arc<Replay>>,
}

impl FreshHost {
    /// Compiles the module (the cold start).
    pub fn new(bytes: &[u8]) -> Self {
        Self::with_cluster(bytes, None)
    }

    /// Host calls answered from `cluster`.
    pub fn with_cluster(bytes: &[u8], cluster: Option<Arc<Replay>>) -> Self {
        Self { pre: EngineProviderPre::cached(bytes).expect("compile"), cluster }
    }

    /// One call in a new instance, as policy-server evaluates each request.
    pub fn call(&self, op: &str, payload: &[u8]) -> Result<Vec<u8>, wapc::errors::Error> {
        let engine = self.pre.rehydrate();
        let host = WapcHost::new(Box::new(engine), Some(callback(self.cluster.clone())))?;
        host.call(op, payload)
    }
}

/// How a test runs the module: one instance for every call, or a fresh one per call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Instances {
    Reused,
    Fresh,
}

impl Instances {
    pub const BOTH: [Instances; 2] = [Instances::Fresh, Instances::Reused];
}

/// A host that calls the module in [`Instances`] mode.
pub enum Host {
    Reused(WapcHost),
    Fresh(FreshHost),
}

impl Host {
    pub fn new(bytes: &[u8], instances: Instances) -> Self {
        Self::with_cluster(bytes, instances, None)
    }

    /// Host calls answered from `cluster` (none: every host call fails).
    pub fn with_cluster(bytes: &[u8], instances: Instances, cluster: Option<Arc<Replay>>) -> Self {
        match instances {
            Instances::Reused => {
                let engine = EngineProvider::new(bytes).expect("wasmtime engine");
                let cb = callback(cluster);
                Host::Reused(WapcHost::new(Box::new(engine), Some(cb)).expect("waPC host"))
            }
            Instances::Fresh => Host::Fresh(FreshHost::with_cluster(bytes, cluster)),
        }
    }

    pub fn call(&self, op: &str, payload: &[u8]) -> Result<Vec<u8>, wapc::errors::Error> {
        match self {
            Host::Reused(h) => h.call(op, payload),
            Host::Fresh(h) => h.call(op, payload),
        }
    }
}

/// Guest-call state of [`RawHost`].
#[derive(Default)]
pub struct State {
    op: Vec<u8>,
    msg: Vec<u8>,
    response: Vec<u8>,
    error: Vec<u8>,
    host_error: Vec<u8>,
}

/// A minimal waPC host: the three guest functions the module imports, and nothing else, so
/// instantiation also proves the import list.
pub struct RawHost {
    store: Store<State>,
    guest_call: TypedFunc<(i32, i32), i32>,
    memory: Memory,
}

fn guest_memory(caller: &mut Caller<'_, State>) -> wasmtime::Result<Memory> {
    caller
        .get_export("memory")
        .and_then(|e| e.into_memory())
        .ok_or_else(|| wasmtime::format_err!("the module exports no memory"))
}

fn range(ptr: i32, len: usize, size: usize) -> wasmtime::Result<std::ops::Range<usize>> {
    let start = usize::try_from(ptr).map_err(|_| wasmtime::format_err!("negative pointer"))?;
    let end = start.checked_add(len).filter(|e| *e <= size).ok_or_else(|| wasmtime::format_err!("out of bounds"))?;
    Ok(start..end)
}

impl RawHost {
    pub fn new(bytes: &[u8]) -> wasmtime::Result<Self> {
        let pre = EngineProviderPre::cached(bytes)?;
        let (engine, module) = pre.compiled();
        let mut linker: Linker<State> = Linker::new(engine);
        linker.func_wrap("wapc", "__guest_request", |mut c: Caller<'_, State>, op_ptr: i32, ptr: i32| {
            let mem = guest_memory(&mut c)?;
            let (data, state) = mem.data_and_store_mut(&mut c);
            let size = data.len();
            let r = range(op_ptr, state.op.len(), size)?;
            data[r].copy_from_slice(&state.op);
            let r = range(ptr, state.msg.len(), size)?;
            data[r].copy_from_slice(&state.msg);
            Ok(())
        })?;
        linker.func_wrap("wapc", "__guest_response", |mut c: Caller<'_, State>, ptr: i32, len: i32| {
            let mem = guest_memory(&mut c)?;
            let (data, state) = mem.data_and_store_mut(&mut c);
            let r = range(ptr, usize::try_from(len)?, data.len())?;
            state.response = data[r].to_vec();
            Ok(())
        })?;
        linker.func_wrap("wapc", "__guest_error", |mut c: Caller<'_, State>, ptr: i32, len: i32| {
            let mem = guest_memory(&mut c)?;
            let (data, state) = mem.data_and_store_mut(&mut c);
            let r = range(ptr, usize::try_from(len)?, data.len())?;
            state.error = data[r].to_vec();
            Ok(())
        })?;
        // Host calls: this host has no cluster, so every call fails (as a host would whose
        // policy is not allowed the resource); `error` is the answer's text.
        linker.func_wrap(
            "wapc",
            "__host_call",
            |mut c: Caller<'_, State>, _: i32, _: i32, _: i32, _: i32, _: i32, _: i32, _: i32, _: i32| -> i32 {
                c.data_mut().host_error = b"RawHost: no host capabilities".to_vec();
                0
            },
        )?;
        linker.func_wrap("wapc", "__host_response_len", |_: Caller<'_, State>| -> i32 { 0 })?;
        linker.func_wrap("wapc", "__host_response", |_: Caller<'_, State>, _: i32| {})?;
        linker.func_wrap("wapc", "__host_error_len", |c: Caller<'_, State>| -> i32 {
            c.data().host_error.len() as i32
        })?;
        linker.func_wrap("wapc", "__host_error", |mut c: Caller<'_, State>, ptr: i32| {
            let mem = guest_memory(&mut c)?;
            let (data, state) = mem.data_and_store_mut(&mut c);
            let r = range(ptr, state.host_error.len(), data.len())?;
            data[r].copy_from_slice(&state.host_error);
            Ok(())
        })?;
        let mut store = Store::new(engine, State::default());
        let instance: Instance = linker.instantiate(&mut store, module)?;
        let guest_call = instance.get_typed_func::<(i32, i32), i32>(&mut store, "__guest_call")?;
        let memory =
            instance.get_memory(&mut store, "memory").ok_or_else(|| wasmtime::format_err!("no exported memory"))?;
        Ok(Self { store, guest_call, memory })
    }

    /// One waPC call: `Ok(response)` or `Err(guest error)`; a trap is an `Err` too.
    pub fn call(&mut self, op: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        let state = self.store.data_mut();
        state.op = op.as_bytes().to_vec();
        state.msg = payload.to_vec();
        state.response.clear();
        state.error.clear();
        let (op_len, len) = (op.len() as i32, payload.len() as i32);
        match self.guest_call.call(&mut self.store, (op_len, len)) {
            Ok(1) => Ok(std::mem::take(&mut self.store.data_mut().response)),
            Ok(_) => Err(String::from_utf8_lossy(&self.store.data().error).into_owned()),
            Err(trap) => Err(format!("trap: {trap}")),
        }
    }

    /// The exported memory's current size in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.memory.data_size(&self.store)
    }

    /// The exported memory's contents: between calls, the instance's whole state.
    pub fn memory_image(&self) -> Vec<u8> {
        self.memory.data(&self.store).to_vec()
    }

    /// The pages of the exported memory that are mapped in this process now, from the
    /// kernel's `/proc/self/pagemap` (`None` where it cannot be read): those still mapped
    /// from the module's image (read, or mapped around a read by the kernel's fault-around),
    /// and those the instance owns (written: copied from the image, or zero pages beyond it).
    /// In a fresh instance, each was a page fault.
    pub fn resident_pages(&self) -> Option<ResidentPages> {
        use std::io::{Read, Seek, SeekFrom};
        const PAGE: usize = 4096;
        let start = self.memory.data_ptr(&self.store) as usize / PAGE;
        let pages = self.memory.data_size(&self.store).div_ceil(PAGE);
        let mut file = std::fs::File::open("/proc/self/pagemap").ok()?;
        file.seek(SeekFrom::Start((start * 8) as u64)).ok()?;
        let mut entries = vec![0u8; pages * 8];
        file.read_exact(&mut entries).ok()?;
        let mut out = ResidentPages::default();
        for (i, e) in entries.chunks_exact(8).enumerate() {
            let e = u64::from_le_bytes(e.try_into().ok()?);
            // Bit 63: present; bit 61: a file page (the image's memfd) or shared.
            match (e >> 63 & 1, e >> 61 & 1) {
                (1, 1) => out.image += 1,
                (1, _) => out.owned.push(i),
                _ => {}
            }
        }
        Some(out)
    }
}

/// [`RawHost::resident_pages`]: 4 KiB pages of an instance's memory mapped in the process.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ResidentPages {
    /// How many are mapped read-only from the module's image.
    pub image: usize,
    /// The instance's own (written), by index in the memory.
    pub owned: Vec<usize>,
}

// ---------------------------------------------------------------------------------------------
// Pre-initialized modules

/// Settings as requests carry them: compact JSON, every mapping's keys sorted. That is the
/// text policy-server sends (it reads the settings from the policies file the Kubewarden
/// controller writes from the policy's `spec.settings`, a Go map marshalled with its keys
/// sorted, and serializes them with serde_json); a module is pre-initialized for that text.
pub fn canonical_settings(settings: &Value) -> Vec<u8> {
    fn sorted(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&m[k]))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    serde_json::to_vec(&sorted(settings)).unwrap_or_default()
}

/// Kubewarden's `validate` payload with the settings as policy-server sends them
/// ([`canonical_settings`]): the text a pre-initialized module compares with its own.
pub fn canonical_payload(request: &Value, settings: &Value) -> Vec<u8> {
    let mut out = br#"{"request":"#.to_vec();
    out.extend(serde_json::to_vec(request).unwrap_or_default());
    out.extend_from_slice(br#","settings":"#);
    out.extend(canonical_settings(settings));
    out.push(b'}');
    out
}

/// A pre-initialized module: the module's memory after it read and compiled `settings`
/// (`placement_preinitialize`), as its initial memory. Its answers to requests with exactly
/// these settings skip reading them; any other settings are read as by the module itself.
#[derive(Debug)]
pub struct Preinitialized {
    pub bytes: Vec<u8>,
    /// The instance's memory when it was snapshotted, in bytes.
    pub memory: usize,
}

/// The requests a pre-initialized module answers once before its snapshot: a Deployment, a
/// DaemonSet and a Pod, the kinds whose first request builds the most.
const WARM_UP_REQUESTS: [&str; 3] = [
    include_str!("../../../core/src/admission/testdata/deployment-web.json"),
    include_str!("../../../core/src/admission/testdata/daemonset-defender.json"),
    include_str!("../../../core/src/admission/testdata/pod-privileged.json"),
];

/// Pre-initializes `module` (annotated: its custom sections are kept) for `settings` (the
/// exact text of [`canonical_settings`]). An invalid setting is the module's own error.
pub fn preinitialize(module: &[u8], settings: &[u8]) -> Result<Preinitialized, String> {
    let mut host = RawHost::new(module).map_err(|e| format!("cannot instantiate the module: {e}"))?;
    host.call(placement_policy::PREINITIALIZE, settings)?;
    // Warm-up requests with these settings: what the settings build lazily on a first request
    // (the views every request of a kind reads) is then in the snapshot too, as it is in an
    // instance policy-server would reuse. Their answers are not kept.
    for request in WARM_UP_REQUESTS {
        let payload = format!("{{\"request\":{request},\"settings\":{}}}", String::from_utf8_lossy(settings));
        host.call("validate", payload.as_bytes())?;
    }
    // Requests then allocate from memory grown after the snapshot (`placement_seal`).
    host.call(placement_policy::SEAL, b"")?;
    let image = host.memory_image();
    let bytes = placement_policy::wasm::with_memory_image(module, &image).map_err(|e| e.to_string())?;
    Ok(Preinitialized { bytes, memory: image.len() })
}

// ---------------------------------------------------------------------------------------------
// Benchmark inputs

/// Latency percentiles of a sample, in microseconds.
pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)].as_secs_f64() * 1e6
}

/// Times `f` `n` times after `warmup` calls: (sorted latencies, total wall time).
pub fn time_calls(warmup: usize, n: usize, mut f: impl FnMut()) -> (Vec<Duration>, Duration) {
    for _ in 0..warmup {
        f();
    }
    let mut out = Vec::with_capacity(n);
    let all = Instant::now();
    for _ in 0..n {
        let t = Instant::now();
        f();
        out.push(t.elapsed());
    }
    let total = all.elapsed();
    out.sort();
    (out, total)
}

// ---------------------------------------------------------------------------------------------
// Benchmark inputs, shared with `core/examples/admission_fresh.rs` (the same inputs natively)

#[path = "bench_inputs.rs"]
mod bench_inputs;
pub use bench_inputs::{bench_settings, cluster_nodes, inventory, POD_SECURITY};

/// [`bench_inputs::pod_security_settings`] from this repository.
pub fn pod_security_settings() -> Value {
    bench_inputs::pod_security_settings(&repo_root())
}

/// [`bench_inputs::pod_security_request`] from this repository.
pub fn pod_security_request() -> Value {
    bench_inputs::pod_security_request(&repo_root())
}

// ---------------------------------------------------------------------------------------------
// `inventory: cluster` inputs

/// A kwctl session that answers `inventory: cluster`'s one host call with `nodes`.
pub fn cluster_session(nodes: Vec<Value>) -> Arc<Replay> {
    let list = json!({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": nodes});
    let session = json!([{
        "type": "Exchange",
        "request": "!KubernetesListResourceAll\napi_version: v1\nkind: Node\nlabel_selector: null\nfield_selector: null\n",
        "response": {"type": "Success", "payload": list.to_string()},
    }]);
    let text = serde_yaml::to_string(&session).expect("YAML");
    Arc::new(Replay::parse(&text).expect("a kwctl session"))
}

/// The settings of `policy-wasm/examples/cluster/` (`inventory: cluster`, all four policies).
pub fn cluster_settings() -> Value {
    json_file(&repo_root().join("policy-wasm/examples/cluster/settings.json"))
}
