//! `placement-policy`: the Kubewarden admission policy, as a waPC guest module.
//!
//! This crate is a thin adapter. All policy logic lives in
//! [`placement_core::admission`] (no IO, tested natively); here are only:
//!
//! - the waPC guest ABI for `wasm32` (`__guest_call` exported; `__guest_request`,
//!   `__guest_response` and `__guest_error` imported from module `wapc`), hand-written
//!   rather than taken from `kubewarden-policy-sdk` (docs/kubewarden.md says
//!   why);
//! - [`dispatch`], which maps the three operations Kubewarden calls (`validate`,
//!   `validate_settings`, `protocol_version`) onto the core;
//! - [`wasm`], a small reader/writer of wasm sections for the annotate tool and the tests
//!   (custom sections, the import list).
//!
//! The module never traps on input: every operation returns a response or a waPC error, and
//! the guest call checks lengths and allocation failures before touching memory.

#[cfg(feature = "annotate")]
pub mod metadata;
pub mod wasm;

use std::borrow::Cow;
use std::cell::RefCell;

pub use placement_core::admission;

/// The operations the module answers.
pub const OPERATIONS: [&str; 3] = ["validate", "validate_settings", "protocol_version"];

/// The build-time operation behind pre-initialized modules (`make policy SETTINGS=...`): the
/// payload is the settings' JSON text as requests will carry it; the instance reads and
/// compiles it into its validator's cache, and the tool that called it snapshots the
/// instance's memory into a new module. Kubewarden never calls it; a host that does only
/// fills that instance's cache, which requests use only when their settings are those bytes.
pub const PREINITIALIZE: &str = "placement_preinitialize";

/// The last build-time call before the snapshot of a pre-initialized module: from then on,
/// small allocations come from memory grown after the snapshot, not from the free blocks
/// pre-initialization left scattered through the heap (`heap` says why). Kubewarden never
/// calls it; in any other instance it changes where blocks come from, not what it answers.
pub const SEAL: &str = "placement_seal";

thread_local! {
    /// The instance's validator: it keeps the compiled settings (and node inventory) between
    /// calls, as Kubewarden sends the same settings with every request.
    static VALIDATOR: RefCell<admission::Validator> = RefCell::new(admission::Validator::new());
}

/// Runs one waPC operation: `Ok` is the response payload, `Err` the error message the guest
/// reports with `__guest_error`.
pub fn dispatch(operation: &[u8], payload: &[u8]) -> Result<Vec<u8>, Vec<u8>> {
    dispatch_payload(operation, Cow::Borrowed(payload))
}

/// [`dispatch`] of a payload the caller may hand over: the guest call's own buffer, which
/// `validate` then keeps as its settings cache instead of copying the settings out of it.
pub fn dispatch_payload(operation: &[u8], payload: Cow<'_, [u8]>) -> Result<Vec<u8>, Vec<u8>> {
    match operation {
        b"validate" => Ok(VALIDATOR
            .with(|v| match v.try_borrow_mut() {
                Ok(mut v) => v.validate_payload_with(payload, &HOST),
                Err(_) => admission::validate_with(&payload, &HOST),
            })
            .to_json()),
        b"validate_settings" => Ok(admission::validate_settings(&payload).to_json()),
        b"protocol_version" => Ok(admission::protocol_version()),
        op if op == PREINITIALIZE.as_bytes() => {
            // Freed blocks are zeroed while the settings are read, so that the snapshot's
            // data holds the live state and not the garbage of reading it.
            #[cfg(target_arch = "wasm32")]
            heap::zero_freed(true);
            let done = VALIDATOR.with(|v| {
                v.try_borrow_mut().map_err(|_| "placement-policy: validator busy".to_string())?.preinitialize(&payload)
            });
            #[cfg(target_arch = "wasm32")]
            heap::zero_freed(false);
            done.map(|()| b"{\"preinitialized\":true}".to_vec()).map_err(String::into_bytes)
        }
        op if op == SEAL.as_bytes() => {
            #[cfg(target_arch = "wasm32")]
            heap::seal();
            Ok(b"{\"sealed\":true}".to_vec())
        }
        other => Err(format!(
            "placement-policy: unknown operation {:?}: this module answers {}",
            String::from_utf8_lossy(other),
            OPERATIONS.join(", ")
        )
        .into_bytes()),
    }
}

/// The host's capabilities: waPC host calls in wasm32, none natively.
#[cfg(target_arch = "wasm32")]
const HOST: guest::WapcHostCalls = guest::WapcHostCalls;
#[cfg(not(target_arch = "wasm32"))]
const HOST: admission::host::NoHostCapabilities = admission::host::NoHostCapabilities;

/// The waPC guest side of the protocol (wasm32 only).
#[cfg(target_arch = "wasm32")]
mod guest {
    use placement_core::admission::host::{
        HostCapabilities, BINDING, KUBERNETES, LIST_RESOURCES_ALL, LIST_RESOURCES_BY_NAMESPACE,
    };

    #[link(wasm_import_module = "wapc")]
    extern "C" {
        /// The host writes the operation name at `op_ptr` and the payload at `ptr`.
        fn __guest_request(op_ptr: *mut u8, ptr: *mut u8);
        /// The host copies the response out of guest memory during the call.
        fn __guest_response(ptr: *const u8, len: usize);
        fn __guest_error(ptr: *const u8, len: usize);
        /// A call to the host (Kubewarden's host capabilities); 1 when it answered, and then
        /// `__host_response_len`/`__host_response` give the answer, else the error.
        #[allow(clippy::too_many_arguments)]
        fn __host_call(
            bd_ptr: *const u8,
            bd_len: usize,
            ns_ptr: *const u8,
            ns_len: usize,
            op_ptr: *const u8,
            op_len: usize,
            ptr: *const u8,
            len: usize,
        ) -> usize;
        fn __host_response_len() -> usize;
        fn __host_response(ptr: *mut u8);
        fn __host_error_len() -> usize;
        fn __host_error(ptr: *mut u8);
    }

    /// Kubewarden's host capabilities through waPC's `__host_call`.
    #[derive(Debug, Clone, Copy)]
    pub struct WapcHostCalls;

    impl HostCapabilities for WapcHostCalls {
        fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            host_call(BINDING, KUBERNETES, LIST_RESOURCES_ALL, payload)
        }

        fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            host_call(BINDING, KUBERNETES, LIST_RESOURCES_BY_NAMESPACE, payload)
        }
    }

    fn host_call(binding: &str, namespace: &str, operation: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        // SAFETY: valid slices of guest memory; the host reads them during the call.
        let ok = unsafe {
            __host_call(
                binding.as_ptr(),
                binding.len(),
                namespace.as_ptr(),
                namespace.len(),
                operation.as_ptr(),
                operation.len(),
                payload.as_ptr(),
                payload.len(),
            )
        };
        // SAFETY: the lengths come from the host, and the buffers are that long.
        if ok == 1 {
            let len = unsafe { __host_response_len() };
            let mut out = zeroed(len).ok_or("the host's answer does not fit in the module's memory")?;
            unsafe { __host_response(out.as_mut_ptr()) };
            Ok(out)
        } else {
            let len = unsafe { __host_error_len() };
            let mut out = zeroed(len).ok_or("the host's error does not fit in the module's memory")?;
            unsafe { __host_error(out.as_mut_ptr()) };
            Err(String::from_utf8_lossy(&out).into_owned())
        }
    }

    /// waPC's entry point: returns 1 after `__guest_response`, 0 after `__guest_error`.
    #[no_mangle]
    pub extern "C" fn __guest_call(op_len: i32, req_len: i32) -> i32 {
        #[cfg(feature = "gatekeeper")]
        placement_core::gatekeeper::set_heap_gauge(crate::heap::live_bytes);
        let (Ok(op_len), Ok(req_len)) = (usize::try_from(op_len), usize::try_from(req_len)) else {
            return fail(b"placement-policy: negative operation or payload length");
        };
        let (Some(mut op), Some(mut req)) = (zeroed(op_len), zeroed(req_len)) else {
            return fail(b"placement-policy: the payload does not fit in the module's memory");
        };
        // SAFETY: per the waPC protocol the host writes exactly `op_len` and `req_len` bytes
        // at these addresses, and the buffers are that long.
        unsafe { __guest_request(op.as_mut_ptr(), req.as_mut_ptr()) };
        match crate::dispatch_payload(&op, std::borrow::Cow::Owned(req)) {
            Ok(out) => {
                // SAFETY: a valid slice of guest memory; the host copies it before returning.
                unsafe { __guest_response(out.as_ptr(), out.len()) };
                1
            }
            Err(msg) => fail(&msg),
        }
    }

    /// A zero-filled buffer, or `None` instead of the allocator's abort (a trap).
    fn zeroed(len: usize) -> Option<Vec<u8>> {
        let mut v = Vec::new();
        v.try_reserve_exact(len).ok()?;
        v.resize(len, 0);
        Some(v)
    }

    fn fail(msg: &[u8]) -> i32 {
        // SAFETY: a valid slice of guest memory; the host copies it before returning.
        unsafe { __guest_error(msg.as_ptr(), msg.len()) };
        0
    }
}

#[cfg(target_arch = "wasm32")]
mod heap;
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod size_classes;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations() {
        assert_eq!(dispatch(b"protocol_version", b"").unwrap(), b"\"v1\"");
        // `{}`, as `kwctl scaffold manifest` writes it, is valid: the safe default.
        assert_eq!(dispatch(b"validate_settings", b"{}").unwrap(), br#"{"valid":true}"#);
        let settings = dispatch(b"validate_settings", b"[]").unwrap();
        let v: serde_json::Value = serde_json::from_slice(&settings).unwrap();
        assert_eq!(v["valid"], false);
        let resp = dispatch(b"validate", b"garbage").unwrap();
        let v: serde_json::Value = serde_json::from_slice(&resp).unwrap();
        assert_eq!(v["accepted"], false);
        assert_eq!(v["code"], 400);
        let err = dispatch(b"mutate", b"").unwrap_err();
        assert_eq!(
            String::from_utf8(err).unwrap(),
            "placement-policy: unknown operation \"mutate\": this module answers validate, validate_settings, protocol_version"
        );
    }

    /// The build-time operation fills the validator's cache with the settings, or reports
    /// their error; it is not one of Kubewarden's operations.
    #[test]
    fn preinitialize_operation() {
        assert_eq!(dispatch(PREINITIALIZE.as_bytes(), b"{}").unwrap(), br#"{"preinitialized":true}"#);
        let err = String::from_utf8(dispatch(PREINITIALIZE.as_bytes(), b"[]").unwrap_err()).unwrap();
        assert!(err.starts_with("invalid settings: "), "{err}");
        assert!(!OPERATIONS.contains(&PREINITIALIZE));
    }

    /// The `kwctl run` example of docs/kubewarden.md: its settings validate, and the privileged Pod is
    /// rejected with Gatekeeper's message.
    #[cfg(feature = "gatekeeper")]
    #[test]
    fn readme_example() {
        let yaml = include_str!("../examples/settings.yaml");
        let settings: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
        let s = serde_json::to_vec(&settings).unwrap();
        assert_eq!(dispatch(b"validate_settings", &s).unwrap(), br#"{"valid":true}"#);
        let review: serde_json::Value =
            serde_json::from_str(include_str!("../examples/pod-privileged-review.json")).unwrap();
        let payload =
            serde_json::to_vec(&serde_json::json!({"request": review["request"], "settings": settings})).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&dispatch(b"validate", &payload).unwrap()).unwrap();
        assert_eq!(v["accepted"], false);
        assert_eq!(
            v["message"],
            "[psp-privileged-container] Privileged container is not allowed: shell, securityContext: {\"privileged\": true}"
        );
    }

    /// The lean build (`--no-default-features`) answers the example settings of docs/kubewarden.md, which
    /// have a `gatekeeper` key, with a settings error naming the setting and the full module.
    #[cfg(not(feature = "gatekeeper"))]
    #[test]
    fn lean_build_refuses_the_gatekeeper_setting() {
        let yaml = include_str!("../examples/settings.yaml");
        let settings: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
        let v: serde_json::Value =
            serde_json::from_slice(&dispatch(b"validate_settings", &serde_json::to_vec(&settings).unwrap()).unwrap())
                .unwrap();
        assert_eq!(v["valid"], false);
        let m = v["message"].as_str().unwrap();
        assert!(m.starts_with("settings.gatekeeper: this module is built without Gatekeeper support"), "{m}");
        assert!(m.contains("placement-policy.wasm"), "{m}");
    }
}
