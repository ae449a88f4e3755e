//! The module's allocator: the default one (dlmalloc), counting the live heap bytes so that a
//! Rego evaluation can be stopped when it grows the heap by more than
//! `placement_core::gatekeeper::HEAP_LIMIT_PER_EVALUATION` (the evaluation reads the count
//! with its work clock). policy-server's own limits on a wasm instance are not the policy's
//! to set, so the module bounds itself; a limit error is a response, never a trap.
//!
//! In a pre-initialized module ([`seal`]), blocks of up to 64 KiB come from [`requests`]
//! instead: policy-server makes a fresh instance from the module for every request, and each
//! page of its memory the request writes is a page fault (a copy of the snapshot's page, or a
//! zero page beyond it). dlmalloc would hand out the free blocks that reading the settings
//! left all over the snapshot's heap, and unlink them from free lists kept in other free
//! blocks: measured, a request with 10 Gatekeeper constraints wrote 157 pages (54 of them
//! changed) that way.
//! Blocks carved one after the other from memory grown after the snapshot put what the request
//! allocates on as few pages as it needs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static ZERO_FREED: AtomicBool = AtomicBool::new(false);
static SEALED: AtomicBool = AtomicBool::new(false);

/// While on, a freed block is zeroed before it goes back to the allocator (only the
/// pre-initializing call turns it on).
pub fn zero_freed(on: bool) {
    ZERO_FREED.store(on, Ordering::Relaxed);
}

/// The snapshot is taken next: from now on, blocks of up to 64 KiB come from [`requests`],
/// carved from memory grown after the snapshot. (Pre-initialization itself allocating by size
/// class, and the free blocks it left forgotten here, measured worse: 5.8 MB of memory and
/// more pages written per request than dlmalloc's packing of the compiled templates.)
pub fn seal() {
    SEALED.store(true, Ordering::Relaxed);
}

/// The [`requests`] size class of a layout, when the module is sealed.
fn sealed_class(layout: Layout) -> Option<usize> {
    if SEALED.load(Ordering::Relaxed) {
        requests::class(layout)
    } else {
        None
    }
}

// SAFETY: a block comes from `System` or from `requests`, and goes back to the one it came
// from (`requests::owns` tells them apart by address); only the count is added (and a freed
// block zeroed while `ZERO_FREED` is on, before its allocator has it back).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = match sealed_class(layout) {
            Some(class) => requests::alloc(class),
            None => System.alloc(layout),
        };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = match sealed_class(layout) {
            Some(class) => {
                let p = requests::alloc(class);
                if !p.is_null() {
                    // SAFETY: a block of at least `layout.size()` bytes, just allocated.
                    std::ptr::write_bytes(p, 0, layout.size());
                }
                p
            }
            None => System.alloc_zeroed(layout),
        };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ZERO_FREED.load(Ordering::Relaxed) {
            // SAFETY: the block is `layout.size()` bytes the caller owns until this call.
            std::ptr::write_bytes(ptr, 0, layout.size());
        }
        match requests::class(layout).filter(|_| requests::owns(ptr)) {
            Some(class) => requests::dealloc(ptr, class),
            None => System.dealloc(ptr, layout),
        }
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new_layout) = Layout::from_size_align(new_size, layout.align()) else {
            return std::ptr::null_mut();
        };
        let owned = requests::owns(ptr);
        if owned && requests::class(layout) == requests::class(new_layout) {
            // The block has room for the new size already.
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            return ptr;
        }
        // A move between allocators (or while freed blocks are zeroed): through `alloc` and
        // `dealloc`.
        if owned || sealed_class(new_layout).is_some() || ZERO_FREED.load(Ordering::Relaxed) {
            let p = self.alloc(new_layout);
            if !p.is_null() {
                std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            return p;
        }
        let p = System.realloc(ptr, layout, new_size);
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The bytes allocated and not yet freed.
#[cfg_attr(not(feature = "gatekeeper"), allow(dead_code))]
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Size classes (`size_classes`: 16 B to 256 B by 16, then four per power of two to 64 KiB;
/// powers of two alone left a third unused and made a request with a 2 MB host answer fault
/// more pages than dlmalloc) over wasm pages grown for them: a block is
/// carved at the end of the last grown run or taken from its class's free list, and goes back
/// to that list when freed. Every class size is a multiple of 16, so every block is 16-byte
/// aligned; a layout that needs more goes to dlmalloc. No coalescing: an instance's heap grows
/// to the peak of each class and is then reused (the host tests run 100,000 requests in one
/// instance with flat memory). The instance is single-threaded; the atomics are only a safe
/// way to have mutable statics.
mod requests {
    use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};

    pub use crate::size_classes::class;
    use crate::size_classes::{class_size, CLASSES};

    const WASM_PAGE: usize = 64 * 1024;
    /// Pages grown at a time: 1 MiB of address space, touched only as blocks are carved.
    const GROW_PAGES: usize = 16;

    /// The first free block of each class (0: none); a free block's first word is the next.
    static FREE: [AtomicUsize; CLASSES] = [const { AtomicUsize::new(0) }; CLASSES];
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static END: AtomicUsize = AtomicUsize::new(0);
    /// The wasm pages grown here, one bit each (4 GiB of 64 KiB pages).
    static OWNED: [AtomicU32; 65536 / 32] = [const { AtomicU32::new(0) }; 65536 / 32];

    /// Whether `ptr` is in memory grown here.
    pub fn owns(ptr: *mut u8) -> bool {
        let page = ptr as usize / WASM_PAGE;
        OWNED.get(page / 32).is_some_and(|w| w.load(Relaxed) & (1 << (page % 32)) != 0)
    }

    /// A block of `class`, or null when the memory cannot grow.
    pub unsafe fn alloc(class: usize) -> *mut u8 {
        let head = FREE[class].load(Relaxed);
        if head != 0 {
            // SAFETY: a free block of this class, whose first word `dealloc` wrote.
            FREE[class].store(*(head as *const usize), Relaxed);
            return head as *mut u8;
        }
        let size = class_size(class);
        let mut start = NEXT.load(Relaxed);
        if NEXT.load(Relaxed) == 0 || start + size > END.load(Relaxed) {
            let pages = size.div_ceil(WASM_PAGE).max(GROW_PAGES);
            let old = core::arch::wasm32::memory_grow(0, pages);
            if old == usize::MAX {
                return std::ptr::null_mut();
            }
            for page in old..old + pages {
                OWNED[page / 32].fetch_or(1 << (page % 32), Relaxed);
            }
            let base = old * WASM_PAGE;
            if base != END.load(Relaxed) {
                // Another allocator grew the memory since: start a new run.
                NEXT.store(base, Relaxed);
            }
            END.store(base + pages * WASM_PAGE, Relaxed);
            start = NEXT.load(Relaxed);
        }
        NEXT.store(start + size, Relaxed);
        start as *mut u8
    }

    /// Gives a block of `class` back to its free list.
    pub unsafe fn dealloc(ptr: *mut u8, class: usize) {
        // SAFETY: the block is at least 16 bytes, 16-byte aligned, and the caller's.
        *(ptr as *mut usize) = FREE[class].load(Relaxed);
        FREE[class].store(ptr as usize, Relaxed);
    }
}
