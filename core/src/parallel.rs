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
/// As much stack as a main thread has: the simulation and the decoding recurse over the input.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) const STACK: usize = 8 << 20;

/// `f` over each item, one thread per item, the results in the items' order; an item no
/// thread could be started for runs on this one. A thread's panic is resumed here, as in
/// [`join`].
///
/// ```
/// assert_eq!(placement_core::parallel::map(&[1, 2, 3], |x| x * 2), [2, 4, 6]);
/// ```
#[cfg(not(target_arch = "wasm32"))]
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let f = &f;
    std::thread::scope(|s| {
        let started: Vec<Result<std::thread::ScopedJoinHandle<'_, R>, &T>> = items
            .iter()
            .map(|item| {
                std::thread::Builder::new().stack_size(STACK).spawn_scoped(s, move || f(item)).map_err(|_| item)
            })
            .collect();
        started
            .into_iter()
            .map(|h| match h {
                Ok(handle) => handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(item) => f(item),
            })
            .collect()
    })
}

/// `f` over each item in turn (no threads in wasm32).
#[cfg(target_arch = "wasm32")]
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    items.iter().map(f).collect()
}

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
        let handle = std::thread::Builder::new().stack_size(STACK).spawn_scoped(s, || take().map(|b| b())).ok();
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
