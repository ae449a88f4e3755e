//! Just enough of the wasm binary format for the annotate tool and the tests: walking the
//! sections, reading the import list and custom sections, appending a custom section and
//! dropping custom sections.
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

    #[test]
    fn malformed_modules_are_errors() {
        assert!(sections(b"\0asm\x02\0\0\0").is_err());
        let mut m = tiny_module();
        m.truncate(m.len() - 3);
        assert!(sections(&m).unwrap_err().0.contains("runs past the end"));
    }
}
