//! Characters and lines: the character subset, and the byte scans every line goes through.

/// Whether every character is one libyaml accepts and none is a line break other than
/// `\n` and `\r\n`: libyaml rejects control characters anywhere (comments included), treats
/// NEL, LS and PS as line breaks, and skips a BOM at the start of a line.
pub(super) fn in_character_subset(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    loop {
        // Printable ASCII, tab and line feed are skipped a block at a time, up to the first
        // other byte.
        i = next_where(b, i, |c| !((c.wrapping_sub(0x20) < 0x5f) | (c == b'\n') | (c == b'\t')));
        let Some(&c) = b.get(i) else { return true };
        if c < 0x80 {
            let ok =
                (0x20..0x7f).contains(&c) || c == b'\n' || c == b'\t' || (c == b'\r' && b.get(i + 1) == Some(&b'\n'));
            if !ok {
                return false;
            }
            i += 1;
            continue;
        }
        let Some(ch) = text.get(i..).and_then(|rest| rest.chars().next()) else { return false };
        let cp = ch as u32;
        let ok = match cp {
            0xA0..=0xD7FF => cp != 0x2028 && cp != 0x2029,
            0xE000..=0xFFFD => cp != 0xFEFF,
            0x10000.. => true,
            _ => false,
        };
        if !ok {
            return false;
        }
        i += ch.len_utf8();
    }
}

/// The index of the first `\n`, eight bytes at a time: lines are short, so this beats
/// wider vector scans, whose setup costs more than the line.
pub(crate) fn find_newline(s: &[u8]) -> Option<usize> {
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while let Some(word) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().ok()?) ^ NL;
        // The lowest flagged byte is exactly the first zero byte.
        let zero = w.wrapping_sub(LO) & !w & HI;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s.get(i..)?.iter().position(|&c| c == b'\n').map(|p| i + p)
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The number of leading spaces, eight at a time (indentation is most of a YAML line).
pub(super) fn spaces(s: &str) -> usize {
    const SPACES: u64 = LO * b' ' as u64;
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(word) = b.get(i..i + 8) {
        let other = u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ SPACES;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b.get(i..).unwrap_or_default().iter().take_while(|&&c| c == b' ').count()
}

/// `b` without its leading bytes for which `skip` holds.
#[inline]
pub(super) fn trim_start(mut b: &[u8], skip: impl Fn(u8) -> bool) -> &[u8] {
    while let [c, rest @ ..] = b {
        if !skip(*c) {
            break;
        }
        b = rest;
    }
    b
}

/// The byte before `b[i]`, or `None` at the start.
#[inline]
pub(super) fn byte_before(b: &[u8], i: usize) -> Option<u8> {
    b.get(i.checked_sub(1)?).copied()
}

/// The block [`next_where`] tests at once: 64 bytes natively (16 spent more on the loop than
/// on the bytes); 16 in wasm32, which has no vector compares here, so that each inlined scan
/// stays small in the page's payload.
const SCAN_BLOCK: usize = if cfg!(target_arch = "wasm32") { 16 } else { 64 };

/// The index of the first byte from `from` on for which `wanted` holds, or `s.len()`.
/// Tests [`SCAN_BLOCK`] bytes at a time first, which compilers turn into vector compares:
/// these scans (the nesting check over the whole input, long plain scalars) mostly meet bytes
/// that do not matter.
#[inline(always)]
pub(crate) fn next_where(s: &[u8], mut from: usize, wanted: impl Fn(u8) -> bool) -> usize {
    while let Some(chunk) = s.get(from..from + SCAN_BLOCK) {
        if chunk.iter().fold(false, |any, &c| any | wanted(c)) {
            return from + chunk.iter().position(|&c| wanted(c)).unwrap_or(0);
        }
        from += SCAN_BLOCK;
    }
    s.get(from..).and_then(|rest| rest.iter().position(|&c| wanted(c))).map_or(s.len(), |p| from + p)
}
