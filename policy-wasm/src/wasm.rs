//! Just enough of the wasm binary format for the annotate and pre-initialize tools and the
//! tests: walking the sections, reading the import list and custom sections, appending a
//! custom section, dropping custom sections, and replacing the initial memory with a
//! snapshot ([`with_memory_image`]).
//!
//! A module is the 8-byte preamble (`\0asm`, version 1) and a sequence of sections: one id
//! byte, the payload size as unsigned LEB128, the payload. A custom section (id 0) starts its
//! payload with its name (LEB128 length + UTF-8 bytes); engines ignore custom sections they do
//! not know, so appending one never changes what the module does.

use std::fmt;

pub const PREAMBLE: [u8; 8] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
pub const CUSTOM: u8 = 0;
pub const IMPORT: u8 = 2;

/// Where Kubewarden looks for a policy's metadata.
pub const KUBEWARDEN_METADATA: &str = "io.kubewarden.metadata";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn err<T>(msg: impl Into<String>) -> Result<T, Error> {
    Err(Error(msg.into()))
}

/// One section: its id, and the byte ranges of the whole section and of its payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub id: u8,
    pub start: usize,
    pub payload_start: usize,
    pub end: usize,
    /// Custom sections only.
    pub name: Option<String>,
}

/// Unsigned LEB128.
pub fn write_leb128(mut n: u64, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Reads an unsigned LEB128 (at most 32 bits, as wasm's sizes) at `*pos`, advancing it.
pub fn read_leb128(bytes: &[u8], pos: &mut usize) -> Result<u32, Error> {
    let mut result: u64 = 0;
    for shift in (0..35).step_by(7) {
        let Some(&b) = bytes.get(*pos) else { return err("truncated LEB128") };
        *pos += 1;
        result |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return u32::try_from(result).or_else(|_| err("LEB128 value over 32 bits"));
        }
    }
    err("LEB128 longer than 5 bytes")
}

fn read_name(bytes: &[u8], pos: &mut usize, end: usize) -> Result<String, Error> {
    let len = read_leb128(bytes, pos)? as usize;
    let stop = pos.checked_add(len).filter(|s| *s <= end).ok_or_else(|| Error("name past its section".into()))?;
    let name = std::str::from_utf8(&bytes[*pos..stop]).map_err(|_| Error("name is not UTF-8".into()))?;
    *pos = stop;
    Ok(name.to_string())
}

/// The module's sections, in order.
pub fn sections(bytes: &[u8]) -> Result<Vec<Section>, Error> {
    if bytes.get(..8) != Some(&PREAMBLE[..]) {
        return err("not a wasm module (bad magic number or version)");
    }
    let mut out = Vec::new();
    let mut pos = 8;
    while pos < bytes.len() {
        let start = pos;
        let id = bytes[pos];
        pos += 1;
        let size = read_leb128(bytes, &mut pos)? as usize;
        let payload_start = pos;
        let end = pos
            .checked_add(size)
            .filter(|e| *e <= bytes.len())
            .ok_or_else(|| Error(format!("section {id} at byte {start} runs past the end of the module")))?;
        let name = if id == CUSTOM { Some(read_name(bytes, &mut pos, end)?) } else { None };
        out.push(Section { id, start, payload_start, end, name });
        pos = end;
    }
    Ok(out)
}

/// The payloads (after the name) of the custom sections called `name`.
pub fn custom_sections<'a>(bytes: &'a [u8], name: &str) -> Result<Vec<&'a [u8]>, Error> {
    let mut out = Vec::new();
    for s in sections(bytes)? {
        if s.name.as_deref() == Some(name) {
            let mut pos = s.payload_start;
            read_name(bytes, &mut pos, s.end)?;
            out.push(&bytes[pos..s.end]);
        }
    }
    Ok(out)
}

/// The names of all custom sections, in order.
pub fn custom_section_names(bytes: &[u8]) -> Result<Vec<String>, Error> {
    Ok(sections(bytes)?.into_iter().filter_map(|s| s.name).collect())
}

/// `bytes` with a custom section `name` holding `payload` appended.
pub fn append_custom_section(bytes: &[u8], name: &str, payload: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(name.len() + payload.len() + 5);
    write_leb128(name.len() as u64, &mut body);
    body.extend_from_slice(name.as_bytes());
    body.extend_from_slice(payload);
    let mut out = Vec::with_capacity(bytes.len() + body.len() + 6);
    out.extend_from_slice(bytes);
    out.push(CUSTOM);
    write_leb128(body.len() as u64, &mut out);
    out.extend_from_slice(&body);
    out
}

/// `bytes` without the custom sections for which `drop` is true.
pub fn remove_custom_sections(bytes: &[u8], drop: impl Fn(&str) -> bool) -> Result<Vec<u8>, Error> {
    let mut out = PREAMBLE.to_vec();
    for s in sections(bytes)? {
        if s.name.as_deref().is_some_and(&drop) {
            continue;
        }
        out.extend_from_slice(&bytes[s.start..s.end]);
    }
    Ok(out)
}

/// One import: module, field and kind (`func`, `table`, `memory`, `global`, `tag`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Import {
    pub module: String,
    pub name: String,
    pub kind: &'static str,
}

impl fmt::Display for Import {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{} ({})", self.module, self.name, self.kind)
    }
}

/// The module's import list.
pub fn imports(bytes: &[u8]) -> Result<Vec<Import>, Error> {
    let mut out = Vec::new();
    for s in sections(bytes)?.into_iter().filter(|s| s.id == IMPORT) {
        let mut pos = s.payload_start;
        let count = read_leb128(bytes, &mut pos)?;
        for _ in 0..count {
            let module = read_name(bytes, &mut pos, s.end)?;
            let name = read_name(bytes, &mut pos, s.end)?;
            let Some(&kind) = bytes.get(pos) else { return err("truncated import") };
            pos += 1;
            let kind = match kind {
                0x00 => {
                    read_leb128(bytes, &mut pos)?; // type index
                    "func"
                }
                0x01 => {
                    pos += 1; // element type
                    skip_limits(bytes, &mut pos)?;
                    "table"
                }
                0x02 => {
                    skip_limits(bytes, &mut pos)?;
                    "memory"
                }
                0x03 => {
                    pos += 2; // value type, mutability
                    "global"
                }
                0x04 => {
                    pos += 1; // attribute
                    read_leb128(bytes, &mut pos)?;
                    "tag"
                }
                other => return err(format!("unknown import kind {other:#x}")),
            };
            out.push(Import { module, name, kind });
        }
    }
    Ok(out)
}

fn skip_limits(bytes: &[u8], pos: &mut usize) -> Result<(), Error> {
    let Some(&flags) = bytes.get(*pos) else { return err("truncated limits") };
    *pos += 1;
    read_leb128(bytes, pos)?;
    if flags & 0x01 != 0 {
        read_leb128(bytes, pos)?;
    }
    Ok(())
}

/// The waPC imports the policy may have: the three guest functions, and the host call with
/// its answer and error readers (Kubewarden's host capabilities, for `inventory: cluster`).
pub const ALLOWED_IMPORTS: [&str; 8] = [
    "__guest_request",
    "__guest_response",
    "__guest_error",
    "__host_call",
    "__host_response_len",
    "__host_response",
    "__host_error_len",
    "__host_error",
];

/// Imports other than the waPC functions of [`ALLOWED_IMPORTS`]: a wasm-bindgen shim or a
/// WASI call would show up here.
pub fn unexpected_imports(bytes: &[u8]) -> Result<Vec<Import>, Error> {
    Ok(imports(bytes)?
        .into_iter()
        .filter(|i| !(i.module == "wapc" && i.kind == "func" && ALLOWED_IMPORTS.contains(&i.name.as_str())))
        .collect())
}

pub const MEMORY: u8 = 5;
pub const START: u8 = 8;
pub const DATA: u8 = 11;
pub const DATA_COUNT: u8 = 12;
const PAGE: usize = 65_536;
/// Zero runs shorter than this stay inside a data segment: a segment costs about 8 bytes of
/// header, and fewer segments instantiate faster.
const SEGMENT_GAP: usize = 32;

/// `module` with its linear memory's initial contents replaced by `image` (a snapshot of an
/// instance's memory): the memory's initial size becomes the image's pages, and the data
/// section holds the image's non-zero bytes, so an instance starts where the snapshot was.
/// This is what Wizer does for a module without mutable globals other than the stack
/// pointer (back at its initial value between calls, as in a Rust `wasm32-unknown-unknown`
/// module), one memory and active data segments only; anything else is an error, since the
/// snapshot would then not be the whole state.
pub fn with_memory_image(module: &[u8], image: &[u8]) -> Result<Vec<u8>, Error> {
    if !image.len().is_multiple_of(PAGE) {
        return err(format!("a memory image is whole 64 KiB pages, not {} bytes", image.len()));
    }
    let pages = image.len() / PAGE;
    let sections = sections(module)?;
    if sections.iter().any(|s| s.id == START) {
        return err("the module has a start function: it would run again over the snapshot");
    }
    if imports(module)?.iter().any(|i| i.kind == "memory") {
        return err("the module imports its memory: the snapshot cannot be its initial contents");
    }
    let mut out = PREAMBLE.to_vec();
    let mut wrote_data = false;
    let segments = segments(image);
    for s in &sections {
        match s.id {
            MEMORY => {
                let mut pos = s.payload_start;
                if read_leb128(module, &mut pos)? != 1 {
                    return err("the module has more than one memory");
                }
                let Some(&flags) = module.get(pos) else { return err("truncated memory section") };
                pos += 1;
                let min = read_leb128(module, &mut pos)? as usize;
                if flags & !0x01 != 0 {
                    return err(format!("memory limits flags {flags:#x} (shared or 64-bit memory) are not supported"));
                }
                let max = if flags & 0x01 != 0 { Some(read_leb128(module, &mut pos)? as usize) } else { None };
                if pages < min || max.is_some_and(|m| pages > m) {
                    return err(format!("the image's {pages} pages are outside the memory's limits"));
                }
                let mut body = vec![0x01, flags];
                write_leb128(pages as u64, &mut body);
                if let Some(m) = max {
                    write_leb128(m as u64, &mut body);
                }
                push_section(&mut out, MEMORY, &body);
            }
            DATA_COUNT => {
                let mut body = Vec::new();
                write_leb128(segments.len() as u64, &mut body);
                push_section(&mut out, DATA_COUNT, &body);
            }
            DATA => {
                check_active_segments(module, s)?;
                push_section(&mut out, DATA, &data_section(image, &segments));
                wrote_data = true;
            }
            // A module without data gets its section where the format places it: after the
            // code section (10), before any later custom section.
            id => {
                if !wrote_data && id == CUSTOM && out_has_code(&out)? {
                    push_section(&mut out, DATA, &data_section(image, &segments));
                    wrote_data = true;
                }
                out.extend_from_slice(&module[s.start..s.end]);
            }
        }
    }
    if !wrote_data {
        push_section(&mut out, DATA, &data_section(image, &segments));
    }
    Ok(out)
}

fn out_has_code(out: &[u8]) -> Result<bool, Error> {
    Ok(sections(out)?.iter().any(|s| s.id == 10))
}

fn push_section(out: &mut Vec<u8>, id: u8, body: &[u8]) {
    out.push(id);
    write_leb128(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// Every segment of the data section is active on memory 0 with a constant offset: a passive
/// segment (`memory.init`) would be lost with the section.
fn check_active_segments(module: &[u8], s: &Section) -> Result<(), Error> {
    let mut pos = s.payload_start;
    let count = read_leb128(module, &mut pos)?;
    for i in 0..count {
        let Some(&kind) = module.get(pos) else { return err("truncated data section") };
        pos += 1;
        if kind != 0 {
            return err(format!("data segment {i} is passive or names a memory (kind {kind})"));
        }
        // i32.const offset, end
        if module.get(pos) != Some(&0x41) {
            return err(format!("data segment {i}'s offset is not an i32.const"));
        }
        pos += 1;
        read_sleb128(module, &mut pos)?;
        if module.get(pos) != Some(&0x0b) {
            return err(format!("data segment {i}'s offset is not a constant expression"));
        }
        pos += 1;
        let len = read_leb128(module, &mut pos)? as usize;
        pos = pos
            .checked_add(len)
            .filter(|p| *p <= s.end)
            .ok_or_else(|| Error("data segment past its section".into()))?;
    }
    Ok(())
}

fn read_sleb128(bytes: &[u8], pos: &mut usize) -> Result<i64, Error> {
    let (mut result, mut shift) = (0i64, 0);
    loop {
        let Some(&b) = bytes.get(*pos) else { return err("truncated LEB128") };
        *pos += 1;
        if shift >= 64 {
            return err("signed LEB128 longer than 64 bits");
        }
        result |= i64::from(b & 0x7f) << shift;
        shift += 7;
        if b & 0x80 == 0 {
            if shift < 64 && b & 0x40 != 0 {
                result |= -1 << shift;
            }
            return Ok(result);
        }
    }
}

fn write_sleb128(mut n: i64, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        let done = (n == 0 && byte & 0x40 == 0) || (n == -1 && byte & 0x40 != 0);
        out.push(if done { byte } else { byte | 0x80 });
        if done {
            return;
        }
    }
}

/// The image's non-zero byte ranges, zero runs shorter than [`SEGMENT_GAP`] kept inside.
fn segments(image: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out: Vec<std::ops::Range<usize>> = Vec::new();
    let mut i = 0;
    while i < image.len() {
        if image[i] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        while i < image.len() {
            if image[i] != 0 {
                end = i + 1;
            } else if i - end >= SEGMENT_GAP {
                break;
            }
            i += 1;
        }
        out.push(start..end);
    }
    out
}

fn data_section(image: &[u8], segments: &[std::ops::Range<usize>]) -> Vec<u8> {
    let mut body = Vec::new();
    write_leb128(segments.len() as u64, &mut body);
    for r in segments {
        body.extend_from_slice(&[0x00, 0x41]);
        // Offsets are below 4 GiB: an i32.const holds them as the signed number they read as.
        write_sleb128(i64::from(r.start as u32 as i32), &mut body);
        body.push(0x0b);
        write_leb128(r.len() as u64, &mut body);
        body.extend_from_slice(&image[r.clone()]);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-assembled module: type section, one import `wapc.__guest_error`, one from `env`.
    fn tiny_module() -> Vec<u8> {
        let mut m = PREAMBLE.to_vec();
        // type section: 1 type, func (i32, i32) -> ()
        m.extend_from_slice(&[0x01, 0x06, 0x01, 0x60, 0x02, 0x7f, 0x7f, 0x00]);
        let mut imports = vec![0x02];
        for (module, name) in [("wapc", "__guest_error"), ("env", "memory")] {
            imports.push(module.len() as u8);
            imports.extend_from_slice(module.as_bytes());
            imports.push(name.len() as u8);
            imports.extend_from_slice(name.as_bytes());
            if name == "memory" {
                imports.extend_from_slice(&[0x02, 0x00, 0x01]);
            } else {
                imports.extend_from_slice(&[0x00, 0x00]);
            }
        }
        m.push(IMPORT);
        write_leb128(imports.len() as u64, &mut m);
        m.extend_from_slice(&imports);
        m
    }

    #[test]
    fn leb128_round_trips() {
        for n in [0u64, 1, 127, 128, 300, 16_383, 16_384, 1 << 20, u32::MAX as u64] {
            let mut buf = Vec::new();
            write_leb128(n, &mut buf);
            let mut pos = 0;
            assert_eq!(read_leb128(&buf, &mut pos).unwrap() as u64, n);
            assert_eq!(pos, buf.len());
        }
        assert_eq!(read_leb128(&[0x80], &mut 0), err("truncated LEB128"));
    }

    #[test]
    fn custom_section_round_trips() {
        let m = tiny_module();
        // Big enough that the size needs a multi-byte LEB128.
        let payload = vec![b'x'; 300];
        let annotated = append_custom_section(&m, KUBEWARDEN_METADATA, &payload);
        assert_eq!(&annotated[..m.len()], &m[..], "the module itself is unchanged");
        assert_eq!(custom_sections(&annotated, KUBEWARDEN_METADATA).unwrap(), vec![&payload[..]]);
        assert_eq!(custom_section_names(&annotated).unwrap(), vec![KUBEWARDEN_METADATA.to_string()]);
        let stripped = remove_custom_sections(&annotated, |n| n == KUBEWARDEN_METADATA).unwrap();
        assert_eq!(stripped, m);
        // Other sections survive stripping.
        assert_eq!(imports(&stripped).unwrap(), imports(&m).unwrap());
    }

    #[test]
    fn import_list() {
        let m = tiny_module();
        let list: Vec<String> = imports(&m).unwrap().iter().map(ToString::to_string).collect();
        assert_eq!(list, vec!["wapc.__guest_error (func)", "env.memory (memory)"]);
        let unexpected: Vec<String> = unexpected_imports(&m).unwrap().iter().map(ToString::to_string).collect();
        assert_eq!(unexpected, vec!["env.memory (memory)"]);
    }

    /// A module with one memory (1 page, max 4), a data segment and a custom section after it.
    fn memory_module() -> Vec<u8> {
        let mut m = PREAMBLE.to_vec();
        push_section(&mut m, MEMORY, &[0x01, 0x01, 0x01, 0x04]);
        push_section(&mut m, DATA_COUNT, &[0x01]);
        push_section(&mut m, 10, &[0x00]);
        push_section(&mut m, DATA, &[0x01, 0x00, 0x41, 0x10, 0x0b, 0x02, 0xaa, 0xbb]);
        append_custom_section(&m, KUBEWARDEN_METADATA, b"meta")
    }

    fn data_of(m: &[u8]) -> Vec<(i64, Vec<u8>)> {
        let s = sections(m).unwrap().into_iter().find(|s| s.id == DATA).unwrap();
        let mut pos = s.payload_start;
        let count = read_leb128(m, &mut pos).unwrap();
        (0..count)
            .map(|_| {
                pos += 2;
                let offset = read_sleb128(m, &mut pos).unwrap();
                pos += 1;
                let len = read_leb128(m, &mut pos).unwrap() as usize;
                pos += len;
                (offset, m[pos - len..pos].to_vec())
            })
            .collect()
    }

    #[test]
    fn a_memory_image_becomes_the_initial_memory() {
        let m = memory_module();
        let mut image = vec![0u8; 2 * PAGE];
        image[0x10] = 0xaa;
        image[0x11] = 0xbb;
        image[0x20] = 7; // within SEGMENT_GAP of 0x11: same segment
        image[PAGE + 5] = 9; // far: its own segment, above 2^16
        let baked = with_memory_image(&m, &image).unwrap();
        let memory = sections(&baked).unwrap().into_iter().find(|s| s.id == MEMORY).unwrap();
        assert_eq!(&baked[memory.payload_start..memory.end], &[0x01, 0x01, 0x02, 0x04], "2 pages, max kept");
        let mut want_first = vec![0u8; 0x11];
        want_first[0] = 0xaa;
        want_first[1] = 0xbb;
        want_first[0x10] = 7;
        assert_eq!(data_of(&baked), vec![(0x10, want_first), (PAGE as i64 + 5, vec![9])]);
        let count = sections(&baked).unwrap().into_iter().find(|s| s.id == DATA_COUNT).unwrap();
        assert_eq!(&baked[count.payload_start..count.end], &[0x02]);
        assert_eq!(custom_sections(&baked, KUBEWARDEN_METADATA).unwrap(), vec![&b"meta"[..]], "metadata kept");
        // Section order is the format's: memory, data count, code, data, custom.
        let ids: Vec<u8> = sections(&baked).unwrap().iter().map(|s| s.id).collect();
        assert_eq!(ids, vec![MEMORY, DATA_COUNT, 10, DATA, CUSTOM]);
        // Errors, not a wrong module.
        assert!(with_memory_image(&m, &[0; 5]).unwrap_err().0.contains("whole 64 KiB pages"));
        assert!(with_memory_image(&m, &vec![0; 5 * PAGE]).unwrap_err().0.contains("outside the memory's limits"));
        let mut passive = PREAMBLE.to_vec();
        push_section(&mut passive, MEMORY, &[0x01, 0x00, 0x01]);
        push_section(&mut passive, DATA, &[0x01, 0x01, 0x01, 0xcc]);
        assert!(with_memory_image(&passive, &vec![0; PAGE]).unwrap_err().0.contains("passive"));
    }

    #[test]
    fn signed_leb128_round_trips() {
        for n in [0i64, 1, -1, 63, 64, -64, -65, 65_536, i64::from(i32::MAX), i64::from(i32::MIN)] {
            let mut buf = Vec::new();
            write_sleb128(n, &mut buf);
            let mut pos = 0;
            assert_eq!(read_sleb128(&buf, &mut pos).unwrap(), n);
            assert_eq!(pos, buf.len());
        }
    }

    #[test]
    fn malformed_modules_are_errors() {
        assert!(sections(b"\0asm\x02\0\0\0").is_err());
        let mut m = tiny_module();
        m.truncate(m.len() - 3);
        assert!(sections(&m).unwrap_err().0.contains("runs past the end"));
    }
}
