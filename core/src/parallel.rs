//! Two independent computations at once where the target has threads (the CLI, natively), one
//! after the other where it has none (the policy module and the playground, in wasm32).
//!
//! The results are the same either way: the closures share nothing mutable.

/// Runs `a` and `b`, on two threads when it can, and returns both results.
///
/// ```
/// let (a, b) = placement_core::parallel::join(|| 1 + 1, || "two".len());
/// assert_eq!((a, b), (2, 3));
/// ```
#[cfg(target_arch = "wasm32")]
pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    (a(), b())
}

/// Runs `a` and `b`, on two threads when it can, and returns both results.
///
/// ```
/// let (a, b) = placement_core::parallel::join(|| 1 + 1, || "two".len());
/// assert_eq!((a, b), (2, 3));
/// ```
#[cfg(not(target_arch = "wasm32"))]
// The one `unreachable!` below is an arm the cell's protocol rules out; this code is not in
// the wasm builds, where a panic would trap.
#[allow(clippy::unreachable)]
pub fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    use std::sync::Mutex;
    // `b` waits in a cell the new thread takes it from, so that if no thread can be started
    // (the system's limit), this thread still has it to run.
    let cell = Mutex::new(Some(b));
    let take = || cell.lock().ok().and_then(|mut b| b.take());
    let (a, from_thread) = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            // As much stack as a main thread has: the simulation recurses over the input.
            .stack_size(8 << 20)
            .spawn_scoped(s, || take().map(|b| b()))
            .ok();
        (a(), handle.map(|h| h.join()))
    });
    match from_thread {
        Some(Ok(Some(b))) => (a, b),
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        Some(Ok(None)) | None => match take() {
            Some(b) => (a, b()),
            None => unreachable!("the closure is taken once, by the thread that runs it"),
        },
    }
}
