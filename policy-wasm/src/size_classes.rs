//! The size classes of the pre-initialized module's request heap (`heap`, wasm32 only): 16 B
//! to 256 B by 16, then four per power of two to 64 KiB, so that less than 16 bytes of a block
//! are unused up to 256 B, and at most a fifth above. Every class size is a multiple of 16, so every block carved one after the other is
//! 16-byte aligned; a layout that needs more, or more than 64 KiB, has no class.

use std::alloc::Layout;

const ALIGN: usize = 16;
/// Classes by 16 bytes up to this size.
const SMALL: usize = 256;
const LARGEST: usize = 64 * 1024;
/// 16 classes by 16 bytes, then 4 for each power of two from 2^8 to 2^15.
pub const CLASSES: usize = SMALL / ALIGN + 8 * 4;

/// The class of `layout`: `None` above 64 KiB or 16-byte alignment.
pub fn class(layout: Layout) -> Option<usize> {
    let size = layout.size().max(1);
    if layout.align() > ALIGN || size > LARGEST {
        return None;
    }
    if size <= SMALL {
        return Some((size - 1) / ALIGN);
    }
    // 2^p < size <= 2^(p+1), p in 8..=15; four classes of 2^(p-2) bytes each above 2^p.
    let p = (usize::BITS - 1 - (size - 1).leading_zeros()) as usize;
    let quarter = (size - 1 - (1 << p)) >> (p - 2);
    Some(SMALL / ALIGN + (p - 8) * 4 + quarter)
}

/// The bytes of a block of `class`.
pub fn class_size(class: usize) -> usize {
    match class.checked_sub(SMALL / ALIGN) {
        None => (class + 1) * ALIGN,
        Some(large) => {
            let p = 8 + large / 4;
            (1 << p) + (large % 4 + 1) * (1 << (p - 2))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size up to 64 KiB has the smallest class that holds it, 16-byte aligned, with
    /// less than 16 bytes unused up to 256 B and at most a fifth above.
    #[test]
    fn every_size_has_the_smallest_class_that_holds_it() {
        let mut last = 0;
        for size in 1..=LARGEST {
            let c = class(Layout::from_size_align(size, 1).unwrap()).unwrap();
            assert!(c < CLASSES, "{size}");
            let bytes = class_size(c);
            assert!(bytes >= size && bytes.is_multiple_of(ALIGN), "{size}: {bytes}");
            assert!(c == 0 || class_size(c - 1) < size, "{size}: class {c} is not the smallest");
            assert!(if size <= SMALL { bytes - size < ALIGN } else { (bytes - size) * 5 <= bytes }, "{size}: {bytes}");
            assert!(c >= last);
            last = c;
        }
        assert_eq!(last, CLASSES - 1);
        let rows = [
            ("over 64 KiB", Layout::from_size_align(LARGEST + 1, 8).unwrap(), None),
            ("32-byte aligned", Layout::from_size_align(64, 32).unwrap(), None),
            ("16-byte aligned", Layout::from_size_align(40, 16).unwrap(), Some(2)),
            ("a byte", Layout::from_size_align(1, 1).unwrap(), Some(0)),
        ];
        for (name, layout, want) in rows {
            assert_eq!(class(layout), want, "{name}");
        }
    }
}
