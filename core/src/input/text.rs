//! Text as people save it: the bytes of a file in the encodings Windows and Unix tools write,
//! and what `kubectl` prints for people rather than for programs.
//!
//! - [`decode_text`]: UTF-8 with or without a byte-order mark, UTF-16 (PowerShell's
//!   `kubectl get nodes -o yaml > nodes.yaml` writes UTF-16 LE with a byte-order mark);
//! - [`kubectl_output`]: recognizes `kubectl get` table output and `kubectl describe` output,
//!   so that reading one as manifests fails saying so, and with the command that saves the
//!   same objects as YAML.
//!
//! Line breaks need nothing here: both YAML readers read CRLF as LF.

use std::fmt;

use crate::input::documents::{InputError, MAX_INPUT_BYTES};

/// The byte-order mark, as a character.
pub const BOM: char = '\u{feff}';

/// How the bytes of a text are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16 { big_endian: bool },
    Utf32,
}

/// The encoding of `bytes` and the length of its byte-order mark.
///
/// With a byte-order mark the mark says. Without one, the rule of the YAML 1.2 spec (5.2,
/// Character Encodings), which JSON's RFC 4627 also had: a text starts with an ASCII
/// character, so `x 00` starts UTF-16 LE and `00 x` UTF-16 BE (and `x 00 00 00` and
/// `00 00 00 x` UTF-32). Such a text is decoded rather than refused: in UTF-8 the second byte
/// would be a NUL, which neither YAML nor JSON allows in a text, so no valid UTF-8 input is
/// read differently, and UTF-16 without a mark is what .NET's `Encoding.Unicode.GetBytes` and
/// some editors' "UTF-16 LE" write.
fn detect(bytes: &[u8]) -> (Encoding, usize) {
    match bytes {
        [0, 0, 0xFE, 0xFF, ..] | [0xFF, 0xFE, 0, 0, ..] => (Encoding::Utf32, 4),
        [0xEF, 0xBB, 0xBF, ..] => (Encoding::Utf8, 3),
        [0xFE, 0xFF, ..] => (Encoding::Utf16 { big_endian: true }, 2),
        [0xFF, 0xFE, ..] => (Encoding::Utf16 { big_endian: false }, 2),
        [0, 0, 0, x, ..] | [x, 0, 0, 0, ..] if *x != 0 => (Encoding::Utf32, 0),
        [0, x, ..] if *x != 0 => (Encoding::Utf16 { big_endian: true }, 0),
        [x, 0, ..] if *x != 0 => (Encoding::Utf16 { big_endian: false }, 0),
        _ => (Encoding::Utf8, 0),
    }
}

/// `source: `, or nothing for an unnamed source, as [`InputError`]'s messages start.
fn source_name(source: &str) -> String {
    if source.is_empty() {
        String::new()
    } else {
        format!("{source}: ")
    }
}

/// The text of a file's bytes: UTF-8 (a byte-order mark is dropped) or UTF-16 LE or BE, with
/// or without a byte-order mark (see `detect` for how one without is recognized).
///
/// Errors name `source` and the byte offset in `bytes` of the first invalid sequence: any
/// other encoding (Latin-1, UTF-32) is refused rather than guessed. The decoded text may
/// be at most [`MAX_INPUT_BYTES`] long, as [`crate::input::documents::parse_manifests`]
/// would require; a UTF-16 input too long for that fails before it is decoded.
pub fn decode_text(bytes: &[u8], source: &str) -> Result<String, InputError> {
    let (encoding, start) = detect(bytes);
    let body = bytes.get(start..).unwrap_or_default();
    let too_large = |size| InputError::TooLarge { source_name: source_name(source), size, limit: MAX_INPUT_BYTES };
    let bad = |problem, offset| InputError::Encoding { source_name: source_name(source), problem, offset };
    match encoding {
        Encoding::Utf32 if start > 0 => Err(bad("a UTF-32 byte-order mark", 0)),
        Encoding::Utf32 => Err(bad("UTF-32 text", 0)),
        Encoding::Utf8 => {
            if body.len() > MAX_INPUT_BYTES {
                return Err(too_large(body.len()));
            }
            match std::str::from_utf8(body) {
                Ok(text) => Ok(text.to_string()),
                Err(e) => Err(bad("invalid UTF-8", start + e.valid_up_to())),
            }
        }
        Encoding::Utf16 { big_endian } => {
            // Each unit is at least one byte of UTF-8.
            if body.len() / 2 > MAX_INPUT_BYTES {
                return Err(too_large(bytes.len()));
            }
            let pairs = body.chunks_exact(2);
            if !pairs.remainder().is_empty() {
                return Err(bad("an incomplete UTF-16 character", bytes.len() - 1));
            }
            let units = pairs.map(|pair| {
                let pair = [pair.first().copied().unwrap_or(0), pair.get(1).copied().unwrap_or(0)];
                if big_endian {
                    u16::from_be_bytes(pair)
                } else {
                    u16::from_le_bytes(pair)
                }
            });
            let mut text = String::with_capacity(body.len() / 2);
            // Units decoded so far, for the offset of an unpaired surrogate.
            let mut unit = 0;
            for c in char::decode_utf16(units) {
                match c {
                    Ok(c) => {
                        text.push(c);
                        unit += c.len_utf16();
                    }
                    Err(_) => return Err(bad("an unpaired UTF-16 surrogate", start + 2 * unit)),
                }
            }
            if text.len() > MAX_INPUT_BYTES {
                return Err(too_large(text.len()));
            }
            Ok(text)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// kubectl's output for people

/// Which of `kubectl`'s outputs for people a text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KubectlOutput {
    /// `kubectl get` without `-o yaml|json`: a header line (`NAME   STATUS   ROLES ...`),
    /// then a row per object.
    Table,
    /// `kubectl describe`: `Name:  x`, then `Labels:`, `Annotations:`, ...
    Describe,
}

impl fmt::Display for KubectlOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KubectlOutput::Table => "`kubectl get` table",
            KubectlOutput::Describe => "`kubectl describe`",
        })
    }
}

/// Whether `text` is `kubectl get` table output or `kubectl describe` output rather than
/// manifests, and then the command that saves the same objects as YAML, such as `kubectl get
/// nodes -o yaml > nodes.yaml` (`kubectl get <resource> -o yaml > <resource>.yaml` when the
/// text does not say which resource it lists).
///
/// Only the text's first line decides that it is such output (its later lines name the
/// resource), and only where the text cannot be what Placement reads: a table's header is a
/// plain scalar, never an object; describe output has keys no Kubernetes object has at its
/// top and no `kind:` or `apiVersion:` line.
pub fn kubectl_output(text: &str) -> Option<(KubectlOutput, String)> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let first = text.lines().find(|l| !l.trim().is_empty())?;
    if table_header(first).is_some() {
        return Some((KubectlOutput::Table, table_command(text)));
    }
    if is_describe(first, text) {
        return Some((KubectlOutput::Describe, describe_command(text)));
    }
    None
}

/// The columns of a `kubectl get` table's header line: `NAME` or `NAMESPACE` at the start of
/// the line, then more words in capitals (`STATUS`, `UP-TO-DATE`, `PORT(S)`, `CPU(cores)`),
/// no colon.
fn table_header(line: &str) -> Option<Vec<&str>> {
    if !line.starts_with("NAME") || line.contains(':') {
        return None;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let ok = matches!(words.first(), Some(&"NAME" | &"NAMESPACE"))
        && words.len() > 1
        && words.iter().all(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
    ok.then_some(words)
}

/// The resource a table lists, from its columns (the kinds Placement reads, as `kubectl get`
/// prints them).
fn table_resource(columns: &[&str]) -> Option<&'static str> {
    let has = |all: &[&str]| all.iter().all(|c| columns.contains(c));
    Some(if has(&["STATUS", "ROLES", "VERSION"]) {
        "nodes"
    } else if has(&["READY", "STATUS", "RESTARTS"]) {
        "pods"
    } else if has(&["DESIRED", "CURRENT", "SELECTOR"]) {
        // `NODE SELECTOR`: a DaemonSet's columns also have UP-TO-DATE and AVAILABLE.
        "daemonsets"
    } else if has(&["UP-TO-DATE", "AVAILABLE"]) {
        "deployments"
    } else if has(&["SCHEDULE", "SUSPEND"]) {
        "cronjobs"
    } else if has(&["COMPLETIONS", "DURATION"]) {
        "jobs"
    } else if has(&["CLUSTER-IP"]) {
        "services"
    } else {
        return None;
    })
}

/// `kubectl get nodes,pods -A -o yaml > cluster.yaml` for the tables of `text` (`kubectl get
/// nodes,pods` prints one table per resource, a blank line apart).
fn table_command(text: &str) -> String {
    let mut resources: Vec<&str> = Vec::new();
    let mut all_namespaces = false;
    let mut after_blank = true;
    for line in text.lines() {
        if line.trim().is_empty() {
            after_blank = true;
            continue;
        }
        if std::mem::take(&mut after_blank) {
            if let Some(columns) = table_header(line) {
                all_namespaces |= columns.first() == Some(&"NAMESPACE");
                if let Some(resource) = table_resource(&columns) {
                    if !resources.contains(&resource) {
                        resources.push(resource);
                    }
                }
            }
        }
    }
    let flags = if all_namespaces { " -A" } else { "" };
    match resources.as_slice() {
        [] => format!("kubectl get <resource>{flags} -o yaml > <resource>.yaml"),
        [one] => format!("kubectl get {one}{flags} -o yaml > {one}.yaml"),
        many => format!("kubectl get {}{flags} -o yaml > cluster.yaml", many.join(",")),
    }
}

/// The fields at the start of a line of `kubectl describe` output (`Name:`, `Labels:`, ...),
/// with what follows them.
fn describe_field(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.split_once(':')?;
    let ok = key.starts_with(|c: char| c.is_ascii_uppercase())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-');
    ok.then_some((key, value.trim()))
}

/// `Name:  x` first, then some of the fields every object's description has, and none of a
/// manifest's own top-level keys.
fn is_describe(first: &str, text: &str) -> bool {
    if !matches!(describe_field(first), Some(("Name", value)) if !value.is_empty()) {
        return false;
    }
    let mut common = false;
    for line in text.lines() {
        if line.starts_with("kind:") || line.starts_with("apiVersion:") {
            return false;
        }
        common |= matches!(
            describe_field(line),
            Some(("Namespace" | "Labels" | "Annotations" | "CreationTimestamp" | "Roles" | "Taints" | "Selector", _))
        );
    }
    common
}

/// The `kubectl get` command for the objects `text` describes: their resource from fields only
/// its description has, and their namespace.
fn describe_command(text: &str) -> String {
    let fields: Vec<(&str, &str)> = text.lines().filter_map(describe_field).collect();
    let has = |name: &str| fields.iter().any(|(key, _)| *key == name);
    let resource = if has("Roles") || has("Taints") || has("Unschedulable") {
        Some("nodes")
    } else if has("Desired Number of Nodes Scheduled") {
        Some("daemonsets")
    } else if has("StrategyType") || has("RollingUpdateStrategy") {
        Some("deployments")
    } else if has("QoS Class") || has("Start Time") {
        Some("pods")
    } else {
        None
    };
    let mut namespaces = fields.iter().filter(|(key, _)| *key == "Namespace").map(|(_, value)| *value);
    let flags = match namespaces.next() {
        Some(first) if !first.is_empty() && namespaces.all(|ns| ns == first) => format!(" -n {first}"),
        Some(_) => " -A".to_string(),
        None => String::new(),
    };
    let resource = resource.unwrap_or("<resource>");
    format!("kubectl get {resource}{flags} -o yaml > {resource}.yaml")
}

/// `error`, or the [`InputError::KubectlOutput`] that says what `text` really is when it failed
/// to read because it is kubectl's output for people. Errors of size and of encoding stay.
///
/// A syntax error at a tab says so: libyaml calls a tab where indentation is read "a character
/// that cannot start any token", without naming it.
pub(crate) fn explain(error: InputError, text: &str, source: &str) -> InputError {
    if !matches!(error, InputError::Syntax { .. } | InputError::Decode { .. } | InputError::NotSet { .. }) {
        return error;
    }
    match kubectl_output(text) {
        Some((output, command)) => InputError::KubectlOutput { source_name: source_name(source), output, command },
        None => name_a_tab(error, text),
    }
}

const TAB_NOTE: &str = "the character is a tab: YAML indentation must be spaces";

/// Appends what the character at a syntax error's mark is when it is a tab the message does
/// not already name.
fn name_a_tab(error: InputError, text: &str) -> InputError {
    let InputError::Syntax { source_name, index, format, message } = error else { return error };
    let at_tab = crate::input::source_map::line_marks(&message).first().is_some_and(|&(line, column)| {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let found = text.lines().nth(line - 1).and_then(|l| l.chars().nth(column.checked_sub(1)?));
        found == Some('\t')
    });
    // `explain` may see the same error twice (a reading inside a reading).
    let named = message.contains("tab character") || message.contains(TAB_NOTE);
    let message = if at_tab && !named { format!("{message} ({TAB_NOTE})") } else { message };
    InputError::Syntax { source_name, index, format, message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::{parse_manifests, split_documents};
    use crate::input::source_map::error_line;

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut out = Vec::new();
        for unit in (if bom { "\u{feff}" } else { "" }).encode_utf16().chain(text.encode_utf16()) {
            out.extend(if big_endian { unit.to_be_bytes() } else { unit.to_le_bytes() });
        }
        out
    }

    #[test]
    fn decodes_the_encodings_files_are_saved_in() {
        let text = "apiVersion: v1\nkind: Node\r\nmetadata: {name: café-😀}\r\n";
        let with = |prefix: &[u8], rest: &[u8]| [prefix, rest].concat();
        // (name, bytes, the text or the error)
        let rows: Vec<(&str, Vec<u8>, Result<&str, &str>)> = vec![
            ("UTF-8", text.as_bytes().to_vec(), Ok(text)),
            ("UTF-8 with a byte-order mark", with(b"\xEF\xBB\xBF", text.as_bytes()), Ok(text)),
            ("UTF-16 LE with a byte-order mark (PowerShell's `>`)", utf16(text, false, true), Ok(text)),
            ("UTF-16 BE with a byte-order mark", utf16(text, true, true), Ok(text)),
            ("UTF-16 LE without a byte-order mark", utf16(text, false, false), Ok(text)),
            ("UTF-16 BE without a byte-order mark", utf16(text, true, false), Ok(text)),
            ("empty", Vec::new(), Ok("")),
            ("a byte-order mark alone", b"\xEF\xBB\xBF".to_vec(), Ok("")),
            ("UTF-16 byte-order mark alone", b"\xFF\xFE".to_vec(), Ok("")),
            ("one character", b"a".to_vec(), Ok("a")),
            ("Latin-1", b"name: caf\xE9\n".to_vec(), Err("f.yaml: not UTF-8 or UTF-16 text: invalid UTF-8 at byte 9")),
            (
                "Latin-1 after a byte-order mark: the offset counts the mark",
                with(b"\xEF\xBB\xBFa: \xE9", b""),
                Err("f.yaml: not UTF-8 or UTF-16 text: invalid UTF-8 at byte 6"),
            ),
            (
                "UTF-8 cut in a character",
                "a: é".as_bytes().get(..4).unwrap().to_vec(),
                Err("f.yaml: not UTF-8 or UTF-16 text: invalid UTF-8 at byte 3"),
            ),
            (
                "UTF-16 with an odd number of bytes",
                with(&utf16("a: 1", false, true), b"\n"),
                Err("f.yaml: not UTF-8 or UTF-16 text: an incomplete UTF-16 character at byte 10"),
            ),
            (
                "an unpaired surrogate",
                with(&utf16("a: ", false, true), &[0x00, 0xD8, b'x', 0]),
                Err("f.yaml: not UTF-8 or UTF-16 text: an unpaired UTF-16 surrogate at byte 8"),
            ),
            (
                "UTF-32 with a byte-order mark",
                with(b"\xFF\xFE\0\0", b"a\0\0\0"),
                Err("f.yaml: not UTF-8 or UTF-16 text: a UTF-32 byte-order mark at byte 0"),
            ),
            ("UTF-32 without", b"a\0\0\0".to_vec(), Err("f.yaml: not UTF-8 or UTF-16 text: UTF-32 text at byte 0")),
        ];
        for (name, bytes, want) in rows {
            let got = decode_text(&bytes, "f.yaml").map_err(|e| e.to_string());
            assert_eq!(got.as_deref(), want.map_err(str::to_string).as_deref(), "{name}");
        }
        assert_eq!(
            decode_text(b"\xE9", "").unwrap_err().to_string(),
            "not UTF-8 or UTF-16 text: invalid UTF-8 at byte 0"
        );
    }

    #[test]
    fn decoded_text_is_held_to_the_input_limit() {
        let too_long = vec![b'a'; MAX_INPUT_BYTES + 1];
        assert_eq!(
            decode_text(&too_long, "big.yaml"),
            Err(InputError::TooLarge {
                source_name: "big.yaml: ".into(),
                size: MAX_INPUT_BYTES + 1,
                limit: MAX_INPUT_BYTES
            })
        );
        assert!(decode_text(too_long.get(..MAX_INPUT_BYTES).unwrap(), "").is_ok());
        // UTF-16 whose text could not fit is refused before it is decoded.
        let mut wide = vec![0u8; 2 * MAX_INPUT_BYTES + 4];
        wide.splice(..4, [0xFF, 0xFE, b'a', 0]);
        assert!(matches!(decode_text(&wide, ""), Err(InputError::TooLarge { size, .. }) if size == wide.len()));
    }

    #[test]
    fn powershell_output_reads_as_the_utf8_original() {
        let original = crate::testing::bench_common::kubectl_get_nodes_yaml(3);
        let saved = utf16(&original.replace('\n', "\r\n"), false, true);
        let decoded = decode_text(&saved, "nodes.yaml").unwrap();
        assert_eq!(
            format!("{:?}", parse_manifests(&decoded, "nodes.yaml").unwrap()),
            format!("{:?}", parse_manifests(&original, "nodes.yaml").unwrap())
        );
    }

    /// The readers take pasted text with its byte-order mark.
    #[test]
    fn a_leading_byte_order_mark_is_ignored() {
        for text in [
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n",
            "{\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}",
        ] {
            let marked = format!("{BOM}{text}");
            assert_eq!(
                format!("{:?}", parse_manifests(&marked, "s").unwrap()),
                format!("{:?}", parse_manifests(text, "s").unwrap()),
                "{text}"
            );
            assert_eq!(
                format!("{:?}", split_documents(&marked, "s").unwrap()),
                format!("{:?}", split_documents(text, "s").unwrap()),
                "{text}"
            );
        }
    }

    /// What a reading came to, in short: the objects, or the error and the line it points at.
    fn outcome(text: &str, result: Result<crate::input::documents::Manifests, InputError>) -> String {
        let m = match result {
            Ok(m) => m,
            Err(e) => return format!("{e} (line {:?})", error_line(text, &e)),
        };
        let mut out = Vec::new();
        for (_, node) in &m.nodes {
            let annotations = &node.metadata.annotations;
            out.push(match annotations.is_empty() {
                true => format!("Node {}", node.metadata.name),
                false => format!("Node {} {}", node.metadata.name, serde_json::to_string(annotations).unwrap()),
            });
        }
        for w in &m.workloads {
            out.push(format!("{} {}/{} x{}", w.kind.as_str(), w.namespace, w.name, w.replicas));
        }
        out.extend(m.services.iter().map(|(doc, _)| format!("Service {}", doc.name)));
        out.extend(m.ignored.iter().map(|doc| format!("ignored {} {}", doc.kind, doc.name)));
        out.join("; ")
    }

    /// Windows line breaks read as Unix ones, on the fast path and on serde_yaml's, and errors
    /// point at the same lines.
    #[test]
    fn crlf_reads_as_lf() {
        let deep = format!("a: 1\nb: {}\n", "[".repeat(130));
        // (name, the text with LF line breaks, what it reads as)
        let rows: &[(&str, &str, &str)] = &[
            (
                "block scalars, a folded quoted scalar",
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations:\n    clip: |\n      line 1\n\n      line 2\n    strip: |-\n      x\n\n    keep: |+\n      y\n\n\n    folded: \"one\n      two\"\n    last: |\n      z\n",
                r#"Node a {"clip":"line 1\n\nline 2\n","folded":"one two","keep":"y\n\n\n","last":"z\n","strip":"x"}"#,
            ),
            (
                "comments and document markers",
                "# c\n---\napiVersion: v1\nkind: Node # trailing\nmetadata: {name: a}  # c\n...\n---\n# only a comment\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  # c\nspec:\n  containers: []\n---\n",
                "Node a; Pod default/p x1",
            ),
            (
                "kind: List, as kubectl get -o yaml prints it",
                "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n    managedFields:\n    - manager: kubelet\n      fieldsV1:\n        f:metadata: {}\n  status:\n    allocatable: {cpu: \"4\"}\n    conditions:\n    - type: Ready\n      message: |\n        kubelet is\n        ready\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: shop}\n  spec:\n    replicas: 3\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
                "Node a; Deployment shop/web x3",
            ),
            (
                "serde_yaml's part: an anchor, a folded scalar",
                "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n  labels: &s {app: web}\nspec:\n  selector: *s\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  text: >\n    folded\n    lines\n",
                "Service s; ignored ConfigMap c",
            ),
            (
                "JSON",
                "{\n  \"kind\": \"List\",\n  \"items\": [\n    {\"apiVersion\": \"v1\", \"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}\n  ]\n}\n",
                "Node a",
            ),
            (
                "a YAML syntax error",
                "kind: Node\nmetadata:\n  name: a\n  labels: {x: [}\n",
                "s: document 1: invalid YAML: did not find expected node content at line 4 column 16, while parsing a flow node (line Some(4))",
            ),
            (
                "a decode error",
                "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n",
                "Pod p (s document 2): spec.containers[0].resources.requests.cpu: invalid quantity \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (line Some(14))",
            ),
            ("nesting too deep", &deep, "s: document 1: invalid YAML: nesting deeper than 128 levels at line 2 column 132 (line Some(2))"),
        ];
        for (name, lf, want) in rows {
            let crlf = lf.replace('\n', "\r\n");
            assert_eq!(outcome(lf, parse_manifests(lf, "s")), *want, "{name}");
            assert_eq!(outcome(&crlf, parse_manifests(&crlf, "s")), *want, "{name}, CRLF");
            let reference = crate::input::documents::parse_manifests_reference(&crlf, "s");
            assert_eq!(outcome(&crlf, reference), *want, "{name}, CRLF, serde_yaml alone");
        }
    }

    const GET_NODES_WIDE: &str = "\
NAME                 STATUS   ROLES           AGE   VERSION   INTERNAL-IP   EXTERNAL-IP   OS-IMAGE                         KERNEL-VERSION     CONTAINER-RUNTIME
kind-control-plane   Ready    control-plane   12d   v1.31.0   172.18.0.3    <none>        Debian GNU/Linux 12 (bookworm)   6.8.0-45-generic   containerd://1.7.18
kind-worker          Ready    <none>          12d   v1.31.0   172.18.0.2    <none>        Debian GNU/Linux 12 (bookworm)   6.8.0-45-generic   containerd://1.7.18
";

    const DESCRIBE_NODE: &str = "\
Name:               kind-worker
Roles:              <none>
Labels:             beta.kubernetes.io/arch=amd64
                    kubernetes.io/hostname=kind-worker
Annotations:        kubeadm.alpha.kubernetes.io/cri-socket: unix:///run/containerd/containerd.sock
                    node.alpha.kubernetes.io/ttl: 0
CreationTimestamp:  Mon, 06 Jan 2025 10:00:00 +0100
Taints:             <none>
Unschedulable:      false
Conditions:
  Type             Status  LastHeartbeatTime                 Reason                       Message
  ----             ------  -----------------                 ------                       -------
  MemoryPressure   False   Mon, 06 Jan 2025 10:00:00 +0100   KubeletHasSufficientMemory   kubelet has sufficient memory available
Allocatable:
  cpu:                8
  memory:             16Gi
  pods:               110
";

    /// A description that is also a YAML mapping (no `: ` in a value), without `kind`.
    const DESCRIBE_POD: &str = "\
Name:             web-0
Namespace:        shop
Priority:         0
Service Account:  default
Node:             kind-worker/172.18.0.2
Start Time:       Mon, 06 Jan 2025 10:00:00 +0100
Labels:           app=web
Status:           Running
QoS Class:        BestEffort
";

    #[test]
    fn recognizes_kubectl_output_for_people() {
        let table = Some(KubectlOutput::Table);
        let describe = Some(KubectlOutput::Describe);
        // (name, text, what it is, the command that saves it as YAML)
        let rows: &[(&str, &str, Option<KubectlOutput>, &str)] = &[
            ("kubectl get nodes -o wide", GET_NODES_WIDE, table, "kubectl get nodes -o yaml > nodes.yaml"),
            (
                "kubectl get nodes, CRLF, after a blank line",
                "\r\nNAME     STATUS     ROLES    AGE   VERSION\r\nnode-1   NotReady   <none>   2d    v1.30.4\r\n",
                table,
                "kubectl get nodes -o yaml > nodes.yaml",
            ),
            (
                "kubectl get pods -A -o wide",
                "NAMESPACE     NAME                       READY   STATUS    RESTARTS      AGE   IP           NODE          NOMINATED NODE   READINESS GATES\nkube-system   coredns-7db6d8ff4d-5xkzq   1/1     Running   2 (3d ago)    12d   10.244.0.3   kind-worker   <none>           <none>\n",
                table,
                "kubectl get pods -A -o yaml > pods.yaml",
            ),
            (
                "kubectl get deployments",
                "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    3/3     3            3           5d\n",
                table,
                "kubectl get deployments -o yaml > deployments.yaml",
            ),
            (
                "kubectl get daemonsets -A",
                "NAMESPACE     NAME         DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR            AGE\nkube-system   kube-proxy   2         2         2       2            2           kubernetes.io/os=linux   12d\n",
                table,
                "kubectl get daemonsets -A -o yaml > daemonsets.yaml",
            ),
            (
                "kubectl get nodes,pods: a table per resource",
                "NAME                      STATUS   ROLES           AGE   VERSION\nnode/kind-control-plane   Ready    control-plane   12d   v1.31.0\n\nNAME        READY   STATUS    RESTARTS   AGE\npod/web-0   1/1     Running   0          1d\n",
                table,
                "kubectl get nodes,pods -o yaml > cluster.yaml",
            ),
            (
                "kubectl get statefulsets: not a resource the columns tell",
                "NAME   READY   AGE\ndb     3/3     4d\n",
                table,
                "kubectl get <resource> -o yaml > <resource>.yaml",
            ),
            (
                "kubectl top nodes",
                "NAME          CPU(cores)   CPU%   MEMORY(bytes)   MEMORY%\nkind-worker   95m          1%     1003Mi          6%\n",
                table,
                "kubectl get <resource> -o yaml > <resource>.yaml",
            ),
            ("kubectl describe node", DESCRIBE_NODE, describe, "kubectl get nodes -o yaml > nodes.yaml"),
            ("kubectl describe pod", DESCRIBE_POD, describe, "kubectl get pods -n shop -o yaml > pods.yaml"),
            (
                "kubectl describe deployments in two namespaces",
                "Name:                   web\nNamespace:              shop\nStrategyType:           RollingUpdate\n\n\nName:                   api\nNamespace:              default\nStrategyType:           RollingUpdate\n",
                describe,
                "kubectl get deployments -A -o yaml > deployments.yaml",
            ),
            ("a manifest", "apiVersion: v1\nkind: Node\nmetadata: {name: NAME}\n", None, ""),
            ("a scalar", "NAME\n", None, ""),
            ("a scalar in lower case", "name status roles\n", None, ""),
            ("a header after other text", "apiVersion: v1\nkind: Node\nNAME   STATUS   ROLES\n", None, ""),
            ("capitalized keys with kind", "Name: x\nLabels: a=b\napiVersion: v1\nkind: Node\n", None, ""),
            ("Name without the rest of a description", "Name: x\nImage: y\n", None, ""),
            ("empty", "", None, ""),
        ];
        for (name, text, output, command) in rows {
            let got = kubectl_output(text);
            assert_eq!(got.as_ref().map(|g| g.0), *output, "{name}");
            assert_eq!(got.map(|g| g.1).unwrap_or_default(), *command, "{name}");
        }
    }

    /// Reading kubectl's output for people fails saying what it is, whichever error the text
    /// ran into: a scalar document (a table), a YAML syntax error (`: ` in a description's
    /// annotations) or a mapping without `kind` (a description without one).
    #[test]
    fn kubectl_output_is_not_a_manifest() {
        // (name, text, the error)
        let rows = [
            (
                "a table",
                GET_NODES_WIDE,
                "nodes.txt: this is `kubectl get` table output, not YAML or JSON manifests: run `kubectl get nodes -o yaml > nodes.yaml` instead",
            ),
            (
                "a description, a YAML syntax error",
                DESCRIBE_NODE,
                "nodes.txt: this is `kubectl describe` output, not YAML or JSON manifests: run `kubectl get nodes -o yaml > nodes.yaml` instead",
            ),
            (
                "a description, a mapping without kind",
                DESCRIBE_POD,
                "nodes.txt: this is `kubectl describe` output, not YAML or JSON manifests: run `kubectl get pods -n shop -o yaml > pods.yaml` instead",
            ),
        ];
        for (name, text, want) in rows {
            for text in [text.to_string(), format!("{BOM}\n{}", text.replace('\n', "\r\n"))] {
                let error = parse_manifests(&text, "nodes.txt").unwrap_err();
                assert_eq!(error.to_string(), want, "{name}");
                let first = if text.starts_with(BOM) { 2 } else { 1 };
                assert_eq!(error_line(&text, &error), Some(first), "{name}");
                let reference = crate::input::documents::parse_manifests_reference(&text, "nodes.txt");
                assert_eq!(reference.unwrap_err().to_string(), want, "{name}");
            }
        }
        // split_documents reads no kind: a description that is a mapping is a document.
        assert!(split_documents(GET_NODES_WIDE, "")
            .unwrap_err()
            .to_string()
            .starts_with("this is `kubectl get` table"));
        assert!(split_documents(DESCRIBE_NODE, "").unwrap_err().to_string().starts_with("this is `kubectl describe`"));
        assert!(split_documents(DESCRIBE_POD, "").is_ok());

        // Other errors stay.
        for (text, want) in [
            (
                "just a string\n",
                "document 1: invalid manifest: expected a Kubernetes object (a mapping), found a string",
            ),
            (
                "metadata: {name: x}\n",
                "object x (document 1): error validating data: [apiVersion not set, kind not set]",
            ),
            ("apiVersion: v1\nmetadata: {name: x}\n", "object x (document 1): error validating data: kind not set"),
            (
                "Name: x\nLabels: a\napiVersion: v1\nkind: Node\nspec: {taints: 3}\n",
                "Node (unnamed) (document 1): spec.taints: invalid type: integer `3`, expected a sequence",
            ),
        ] {
            assert_eq!(parse_manifests(text, "").unwrap_err().to_string(), want, "{text}");
        }
    }
}
