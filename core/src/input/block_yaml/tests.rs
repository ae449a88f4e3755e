use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::prune::META_FIELDS;
use super::*;

/// serde_yaml's documents, the reference, or its error message.
fn reference(text: &str) -> Result<Vec<Value>, String> {
    let mut out = Vec::new();
    for de in serde_yaml::Deserializer::from_str(text) {
        out.push(Value::deserialize(de).map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// Serialized, so that key order and the sign of zero count.
fn json(values: &[Value]) -> String {
    serde_json::to_string(values).expect("Values serialize")
}

/// Reads `text` both ways; when the fast reader answers, its answer must be serde_yaml's,
/// and its pruned answer serde_yaml's with the same fields removed. Returns whether it
/// answered (unpruned).
fn agrees(text: &str, what: &str) -> bool {
    let slow = reference(text);
    if let (Some(mut pruned), Ok(mut slow)) = (read_stream(text, Prune::UnreadFields), slow.clone()) {
        pruned.iter_mut().for_each(prune_top);
        slow.iter_mut().for_each(prune_top);
        assert_eq!(json(&pruned), json(&slow), "{what}: pruned differs from serde_yaml's on {text:?}");
    }
    let Some(Documents { values: fast, nulls }) = read_documents(text, Prune::Nothing, usize::MAX) else {
        return false;
    };
    if !nulls {
        let mut stripped = fast.clone();
        stripped.iter_mut().for_each(crate::input::documents::strip_nulls);
        assert_eq!(json(&stripped), json(&fast), "{what}: null members but no `nulls` in {text:?}");
    }
    match slow {
        Ok(slow) => assert_eq!(json(&fast), json(&slow), "{what}: differs from serde_yaml on {text:?}"),
        Err(e) => panic!("{what}: read {text:?} as {} but serde_yaml fails: {e}", json(&fast)),
    }
    true
}

/// What [`Prune::UnreadFields`] removes, removed from a whole document (the reader
/// removes only block entries, so this also runs on its output).
fn prune_top(doc: &mut Value) {
    remove_unread_fields(std::slice::from_mut(doc));
}

/// (input, the documents as JSON or None for "left to serde_yaml", why)
const ROWS: &[(&str, Option<&str>, &str)] = &[
    // Block structure
    ("a: 1\nb: x\n", Some(r#"[{"a":1,"b":"x"}]"#), "a block mapping"),
    ("a:\n  b:\n    c: d\n  e: f\ng: h\n", Some(r#"[{"a":{"b":{"c":"d"},"e":"f"},"g":"h"}]"#), "nested mappings"),
    ("- a\n- b\n", Some(r#"[["a","b"]]"#), "a block sequence"),
    ("a:\n- 1\n- 2\nb: x\n", Some(r#"[{"a":[1,2],"b":"x"}]"#), "a sequence at its key's column"),
    ("a:\n  - 1\n  -\n  - 3\n", Some(r#"[{"a":[1,null,3]}]"#), "an empty entry"),
    ("- a: 1\n  b: 2\n-   c: 3\n    d: 4\n", Some(r#"[[{"a":1,"b":2},{"c":3,"d":4}]]"#), "compact mappings in entries"),
    ("-\n  a: 1\n", Some(r#"[[{"a":1}]]"#), "`-` alone, the item below"),
    ("- - x\n  - y\n- z\n", Some(r#"[[["x","y"],"z"]]"#), "a sequence in a sequence"),
    ("a:\n  b\n", Some(r#"[{"a":"b"}]"#), "a scalar value on the next line"),
    ("a:\nb:\n", Some(r#"[{"a":null,"b":null}]"#), "keys without values"),
    ("a: 1\nb: 2\na: 3\n", Some(r#"[{"a":3,"b":2}]"#), "a duplicate key: the last value, the first place"),
    ("a : 1\n", Some(r#"[{"a":1}]"#), "a space before the colon"),
    ("\"a b\": 1\n'c''d': 2\n\"\": 3\n", Some(r#"[{"a b":1,"c'd":2,"":3}]"#), "quoted keys"),
    ("1: a\ntrue: b\nnull: c\n~: d\n", Some(r#"[{"1":"a","true":"b","null":"c","~":"d"}]"#), "keys stay text"),
    ("a: b:c\nd: http://x/y\n", Some(r#"[{"a":"b:c","d":"http://x/y"}]"#), "colons inside plain scalars"),
    ("a: b#c\nd: e # f\n", Some(r#"[{"a":"b#c","d":"e"}]"#), "`#` starts a comment only after a space"),
    (
        "a: x]\nb: y}\nc: z, w\n",
        Some(r#"[{"a":"x]","b":"y}","c":"z, w"}]"#),
        "flow indicators inside block plain scalars",
    ),
    ("a: 1\r\nb: |\r\n  x\r\n", Some(r#"[{"a":1,"b":"x\n"}]"#), "CRLF line breaks"),
    ("just a string\n", Some(r#"["just a string"]"#), "a scalar document"),
    ("a: 1   \n", Some(r#"[{"a":1}]"#), "trailing spaces"),
    // Quoted scalars
    ("a: 'it''s'\nb: ''\n", Some(r#"[{"a":"it's","b":""}]"#), "single quotes"),
    (
        r#"a: "q\"b\\s\/n\nt\tr\r0\0x\x41u\u00e9U\U0001F600""#,
        Some(r#"[{"a":"q\"b\\s/n\nt\tr\r0\u0000xAuéU😀"}]"#),
        "double-quote escapes",
    ),
    ("a: \"tab\there\"\n", Some(r#"[{"a":"tab\there"}]"#), "a raw tab inside quotes"),
    ("a: '# not a comment'\n", Some(r##"[{"a":"# not a comment"}]"##), "`#` inside quotes"),
    ("a: 'x\n  y'\nb: 1\n", Some(r#"[{"a":"x y","b":1}]"#), "a folded single-quoted scalar"),
    ("a: 'x   \n \t  y  '\n", Some(r#"[{"a":"x y  "}]"#), "blanks around a fold go, the last line's stay"),
    ("a: \"x\n\n  \n  y\"\n", Some(r#"[{"a":"x\n\ny"}]"#), "empty lines in a quoted scalar"),
    ("a: \"x \\\n  y\\t\n z\"\n", Some(r#"[{"a":"x y\t z"}]"#), "an escaped line break; an escaped tab before a fold"),
    ("- 'x\ny'\n- z\n", Some(r#"[["x y","z"]]"#), "continuation lines at any indentation"),
    ("a: 'x\n  y' # c\n", Some(r#"[{"a":"x y"}]"#), "a comment after a folded scalar"),
    // Flow collections
    (
        "a: {b: c, d: 'e', f: [1, \"g\", {}], h: []}\n",
        Some(r#"[{"a":{"b":"c","d":"e","f":[1,"g",{}],"h":[]}}]"#),
        "flow collections",
    ),
    ("a: [nginx:1.27, x]\n", Some(r#"[{"a":["nginx:1.27","x"]}]"#), "a colon inside a flow plain scalar"),
    ("a: {\"b\":1, 'c' : 2}\n", Some(r#"[{"a":{"b":1,"c":2}}]"#), "JSON-like keys"),
    ("- [a b, c]  # comment\n", Some(r#"[[["a b","c"]]]"#), "spaces inside flow plain scalars"),
    ("{a: 1}\n", Some(r#"[{"a":1}]"#), "a flow document"),
    // Literal blocks
    ("a: |\n  x\n  y\nb: 1\n", Some(r#"[{"a":"x\ny\n","b":1}]"#), "literal, clipped"),
    ("a: |-\n  x\n\n  y\n\nb: 1\n", Some(r#"[{"a":"x\n\ny","b":1}]"#), "literal, stripped"),
    ("a: |+\n  x\n\n\nb: 1\n", Some(r#"[{"a":"x\n\n\n","b":1}]"#), "literal, kept"),
    ("a: |\nb: 1\n", Some(r#"[{"a":"","b":1}]"#), "an empty literal"),
    // Plain scalars over several lines
    ("a: b\n  c\n", Some(r#"[{"a":"b c"}]"#), "a plain scalar over two lines"),
    ("a: b  \n c  \n   d\ne: 1\n", Some(r#"[{"a":"b c d","e":1}]"#), "continuations at any deeper indentation"),
    ("a: b\n\n  c\n\n\n  d\n\ne: 1\n", Some(r#"[{"a":"b\nc\n\nd","e":1}]"#), "empty lines in a plain scalar"),
    (
        "k:\n  a: 1\n   2\n  b: x:y\n    http://z\n",
        Some(r#"[{"k":{"a":"1 2","b":"x:y http://z"}}]"#),
        "numbers and colons over several lines",
    ),
    ("a: b\n  c\n# comment\nd: 1\n", Some(r#"[{"a":"b c","d":1}]"#), "a comment line after a continuation"),
    // Folded blocks
    ("a: >\n  x\n  y\nb: 1\n", Some(r#"[{"a":"x y\n","b":1}]"#), "folded, clipped"),
    (
        "a: >-\n  x\n\n  y\n\n\n  z\nb: 1\n",
        Some(r#"[{"a":"x\ny\n\nz","b":1}]"#),
        "folded: empty lines stay, the fold goes",
    ),
    ("a: >+\n  x\n  y\n\n", Some(r#"[{"a":"x y\n\n"}]"#), "folded, kept"),
    (
        "a: >\n  x\n    more\n  y\n  z\n\n    more\n",
        Some(r#"[{"a":"x\n  more\ny z\n\n  more\n"}]"#),
        "folded: breaks around more indented lines stay",
    ),
    (
        "a: >\n  x\n  \ty\n  z\n",
        Some(r#"[{"a":"x\n\ty\nz\n"}]"#),
        "folded: a line starting with a tab is more indented",
    ),
    ("- >-\n  long\n  text\n- y\n", Some(r#"[["long text","y"]]"#), "a folded sequence entry"),
    ("a: > # c\n  x\n", Some(r#"[{"a":"x\n"}]"#), "a comment after the folded header"),
    ("a: >2\n   x\n", None, "an indentation indicator"),
    (
        "a: |\n\n  x\n    y\n  # z\n",
        Some(r##"[{"a":"\nx\n  y\n# z\n"}]"##),
        "leading blank line, deeper line, `#` line",
    ),
    ("- |\n  x\n- y\n", Some(r#"[["x\n","y"]]"#), "a literal sequence entry"),
    ("- k: |\n    x\n  l: 2\n", Some(r#"[[{"k":"x\n","l":2}]]"#), "a literal in a compact mapping"),
    ("a: |  # comment\n  x\n", Some(r#"[{"a":"x\n"}]"#), "a comment after the header"),
    ("a: |\n  x\n  \ty\n", Some(r#"[{"a":"x\n\ty\n"}]"#), "a tab inside literal content"),
    ("a: |\n  \tx\n", None, "a tab where libyaml detects the literal's indentation"),
    ("a: |\n  x", Some(r#"[{"a":"x"}]"#), "literal ending without a line break"),
    ("a: |\n  x\n ", Some(r#"[{"a":"x\n"}]"#), "literal ending with a blank line without a line break"),
    ("a: |+\n  x\n\n ", Some(r#"[{"a":"x\n\n"}]"#), "kept: only empty lines with a line break count"),
    // Documents
    ("", Some("[null]"), "an empty stream is one empty document"),
    ("# only a comment\n", Some("[null]"), "comments only"),
    ("---\n", Some("[null]"), "one marker"),
    ("---\n---\n", Some("[null,null]"), "two markers"),
    ("a: 1\n---\n", Some(r#"[{"a":1},null]"#), "a marker at the end opens an empty document"),
    ("a: 1\n...\n", Some(r#"[{"a":1}]"#), "an end marker"),
    ("a: 1\n...\n---\nb: 2\n", Some(r#"[{"a":1},{"b":2}]"#), "end marker, then a document"),
    ("--- # c\na: 1\n--- \nb: 2\n", Some(r#"[{"a":1},{"b":2}]"#), "markers with comments and spaces"),
    ("---a: 1\n", Some(r#"[{"---a":1}]"#), "not a marker"),
    // Outside the subset: left to serde_yaml
    ("a:\n\tb: 1\n", None, "a tab as indentation"),
    ("a:\n  b: x\n  \tc: 1\n", None, "a tab after the indentation"),
    ("a:\t1\n", None, "a tab as separation"),
    ("a: &x 1\nb: *x\n", None, "anchor and alias"),
    ("a: !!str 1\n", None, "a tag"),
    ("? a\n: b\n", None, "a complex key"),
    ("%YAML 1.2\n---\na: 1\n", None, "a directive"),
    ("a: b\n  c #x\n", None, "a comment after a plain scalar's continuation"),
    ("a: b # x\n  c\n", None, "a plain scalar's continuation after a comment"),
    ("a: b\n  - c\n", None, "an indicator starting a plain scalar's continuation"),
    ("a: b\n  c: d\n", None, "a key in a plain scalar's continuation"),
    ("a: b\n  \tc\n", None, "a tab in a plain scalar's continuation"),
    ("a: [b,\n  c]\n", None, "a multi-line flow collection"),
    ("a: 'x\n---\n'\n", None, "a document marker inside a quoted scalar"),
    ("'a\n  b': c\n", None, "a multi-line key"),
    ("a: 'x\n  y' z\n", None, "text after a folded scalar"),
    ("a: 'x\n", None, "an unclosed quote"),
    ("a: |2\n   b\n", None, "an indentation indicator"),
    ("a: \"\\a\"\n", None, "an unusual escape"),
    ("a: \"\\ud800\"\n", None, "an escaped surrogate"),
    ("a: 18446744073709551616\n", None, "beyond u64: serde_json refuses it"),
    ("a: -9223372036854775809\n", None, "below i64: serde_json refuses it"),
    ("...\n", None, "an end marker with no document"),
    ("a: 1\n...\nb: 2\n", None, "content after an end marker"),
    ("--- a\n", None, "content after a start marker"),
    ("a: \u{1}\n", None, "a control character"),
    ("# \u{7f}\n", None, "DEL, even in a comment"),
    ("a: x\u{85}y\n", None, "NEL, a line break to libyaml"),
    ("a: x\u{2028}y\n", None, "LS, a line break to libyaml"),
    ("\u{feff}a: 1\n", None, "a byte order mark"),
    ("a: 1\rb: 2\n", None, "a lone CR"),
    ("a: b: c\n", None, "a mapping value in a value"),
    ("a: - b\n", None, "a sequence entry in a value"),
    ("a: 1\n- b\n", None, "an entry among keys"),
    ("- a\nb: 1\n", None, "a key after a root sequence"),
    ("a: [b: c]\n", None, "a one-pair mapping in a flow sequence"),
    ("a: [b, ]\n", None, "a trailing comma"),
    ("a: {b}\n", None, "a flow key without a value"),
    ("a: {b: }\n", None, "a flow entry without a value"),
    ("a: [b #c]\n", None, "a comment inside a flow collection"),
    ("a: [b:]\n", None, "libyaml's unexpected ':'"),
    ("[a]: b\n", None, "a flow key"),
    ("a: 'b' c\n", None, "text after a quoted scalar"),
    ("a: \"b\"#c\n", None, "a comment without a space"),
    ("a: @b\n", None, "a reserved indicator"),
    ("a: |\n    x\n  y\n", None, "a line between the literal and its key"),
    ("a: |\n\n    \n  x\n", None, "a leading blank line wider than the content"),
    ("a: 1\n  b: 2\n", None, "a deeper line after a value"),
    ("  a: 1\nb: 2\n", None, "a document less indented than its top"),
];

#[test]
fn rows() {
    for (input, expected, why) in ROWS {
        let got = read_stream(input, Prune::Nothing).map(|v| json(&v));
        assert_eq!(got.as_deref(), *expected, "{why}: {input:?}");
        if expected.is_some() {
            assert!(agrees(input, why));
        }
    }
}

#[test]
fn plain_scalars_resolve_as_serde_yaml() {
    let scalars = [
        "0",
        "1",
        "-1",
        "+1",
        "-0",
        "+0",
        "00",
        "007",
        "-007",
        "0x1F",
        "0x1f",
        "-0x1F",
        "+0x1F",
        "0x",
        "0x_1",
        "0x+1",
        "0o17",
        "-0o17",
        "0o8",
        "0b101",
        "-0b101",
        "0b2",
        "1_000",
        "1.5",
        "-1.5",
        "+1.5",
        ".5",
        "-.5",
        "+.5",
        "1.",
        "01.5",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "-1e3",
        "1e400",
        "-1e400",
        "1.0e-400",
        "0e0",
        "-0.0",
        "0.0",
        ".inf",
        ".Inf",
        ".INF",
        "-.inf",
        "+.inf",
        ".nan",
        ".NaN",
        ".NAN",
        "-.nan",
        "inf",
        "nan",
        "NaN",
        "Infinity",
        "infinity",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "False",
        "FALSE",
        "yes",
        "no",
        "on",
        "off",
        "y",
        "n",
        "null",
        "Null",
        "NULL",
        "nULL",
        "~",
        "~~",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775808",
        "-9223372036854775809",
        "340282366920938463463374607431768211456",
        "99999999999999999999999999999999999999999999",
        "0xFFFFFFFFFFFFFFFF",
        "0x10000000000000000",
        "1:2",
        "1-2",
        "2024-05-02T11:07:44Z",
        "2024-05-02",
        "12:30",
        "1.2.3",
        "v1",
        "- 1",
        "+-1",
        "-+1",
        "++1",
        "--1",
        "0.5.",
        "1__0",
        "١٢",
        "512Mi",
        "100m",
        "1Gi",
        "10.0.0.1",
        "10.0.0.1:80",
        "1234567890123456789",
        "9999999999999999999",
        "12345678901234567890",
        "0xDEADbeef",
        "1e5x",
        "7d",
        "3f",
        "node-1",
        "nodes",
        "truE",
        "Falsey",
        "nan1",
        "infinityx",
        "N",
        "T",
    ];
    let mut fast = 0;
    for s in scalars {
        let text = format!("a: {s}\n");
        if agrees(&text, "plain scalar") {
            fast += 1;
        }
        agrees(&format!("a: [{s}]\n"), "plain scalar in a flow sequence");
    }
    assert!(fast >= scalars.len() - 8, "only {fast} of {} scalars on the fast path", scalars.len());
}

#[test]
fn nesting_is_bounded_like_serde_yaml() {
    let block = |depth: usize| -> String {
        let mut s: String = (0..depth - 1).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        s.push_str(&format!("{}k: v\n", " ".repeat(depth - 1)));
        s
    };
    assert!(agrees(&block(128), "128 block levels"));
    assert!(reference(&block(129)).is_err());
    assert!(read_stream(&block(129), Prune::Nothing).is_none());
    let flow = |depth: usize| format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth));
    assert!(agrees(&flow(127), "root mapping and 127 flow levels"));
    assert!(reference(&flow(128)).is_err());
    assert!(read_stream(&flow(128), Prune::Nothing).is_none());
    // Hostile depth neither recurses nor takes long.
    let deep: String = (0..50_000).map(|i| format!("{}- \n", " ".repeat(i % 200))).collect();
    assert!(read_stream(&deep, Prune::Nothing).is_none());
    let mut deep = String::new();
    for _ in 0..100_000 {
        deep.push_str("- ");
    }
    deep.push_str("x\n");
    assert!(read_stream(&deep, Prune::Nothing).is_none());
}

#[test]
fn simple_keys_are_bounded_like_libyaml() {
    let long = "k".repeat(1100);
    assert!(read_stream(&format!("{long}: 1\n"), Prune::Nothing).is_none());
    assert!(read_stream(&format!("a: {{{long}: 1}}\n"), Prune::Nothing).is_none());
    assert!(agrees(&format!("{}: 1\n", "k".repeat(900)), "a 900-byte key"));
    assert!(agrees(&format!("a: {}\n", "v".repeat(5000)), "a long value"));
}

#[test]
fn document_limit_stops_early() {
    let text = "---\na: 1\n".repeat(10);
    assert_eq!(read_documents(&text, Prune::Nothing, 3).unwrap().values.len(), 4);
    assert_eq!(read_documents(&text, Prune::Nothing, 100).unwrap().values.len(), 10);
}

// -----------------------------------------------------------------------------------------
// Pruning

const NODE: &str = "apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {a: b}
  managedFields:
  - manager: kubelet
    fieldsV1:
      f:status:
        k:{\"type\":\"Ready\"}:
          .: {}
        v:\"10.0.0.0/24\": {}
  resourceVersion: '1'
spec:
  taints:
  - {key: k, effect: NoSchedule}
status:
  addresses:
  - address: 10.0.0.1
    type: InternalIP
  allocatable:
    cpu: '4'
  capacity: {cpu: '4'}
  conditions:
  - type: Ready
    message: |
      kubelet is
       ready: \"yes
  images: []
  nodeInfo:
    bootID: x
    kubeletVersion: v1.33.2
    osImage: Ubuntu 22.04.4 LTS
";

/// A Pod as `kubectl get pods -o yaml` prints it (shortened), and what is read of it.
const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: \"2024-05-06T16:29:26Z\"
  labels:
    app: web
  name: web-7c9f8d6b5-abcde
  namespace: shop
  resourceVersion: \"183057622\"
spec:
  containers:
  - env:
    - name: PORT
      value: \"8080\"
    image: registry.example.com/web:1.2
    livenessProbe:
      httpGet:
        path: /healthz
        port: http
    name: web
    ports:
    - containerPort: 8080
      name: http
      protocol: TCP
    resources:
      requests:
        cpu: 250m
    volumeMounts:
    - mountPath: /tmp
      name: scratch
  dnsPolicy: ClusterFirst
  initContainers:
  - args: [\"--wait\"]
    image: busybox
    name: init
  nodeName: n1
  securityContext: {}
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
    operator: Exists
    tolerationSeconds: 300
  volumes:
  - emptyDir: {}
    name: scratch
  - name: kube-api-access-x1
    projected:
      sources:
      - serviceAccountToken:
          path: token
status:
  conditions:
  - lastProbeTime: null
    lastTransitionTime: \"2024-05-06T16:29:30Z\"
    status: \"True\"
    type: Ready
  containerStatuses:
  - name: web
    ready: true
  phase: Running
  podIP: 10.244.0.10
";

const POD_PRUNED: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"creationTimestamp":"2024-05-06T16:29:26Z","labels":{"app":"web"},"name":"web-7c9f8d6b5-abcde","namespace":"shop"},"spec":{"containers":[{"image":"registry.example.com/web:1.2","name":"web","ports":[{"containerPort":8080,"name":"http","protocol":"TCP"}],"resources":{"requests":{"cpu":"250m"}}}],"initContainers":[{"image":"busybox","name":"init"}],"nodeName":"n1","tolerations":[{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists","tolerationSeconds":300}],"volumes":[{"emptyDir":{},"name":"scratch"},{"name":"kube-api-access-x1"}]},"status":{"conditions":[{"status":"True","type":"Ready"}],"phase":"Running"}}"#;

#[test]
fn pruning_skips_unread_fields_only() {
    let full = read_stream(NODE, Prune::Nothing).unwrap();
    assert_eq!(json(&full), json(&reference(NODE).unwrap()));
    let pruned = read_stream(NODE, Prune::UnreadFields).unwrap();
    let expected = r#"[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"a":"b"}},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},"status":{"allocatable":{"cpu":"4"},"capacity":{"cpu":"4"},"conditions":[{"type":"Ready","message":"kubelet is\n ready: \"yes\n"}],"nodeInfo":{"kubeletVersion":"v1.33.2"}}}]"#;
    assert_eq!(json(&pruned), expected);

    // The same object as an item of a List, and of a top-level sequence, is pruned too;
    // deeper objects are not.
    let indented: String = NODE.lines().map(|l| format!("  {l}\n")).collect();
    let list = format!("kind: List\nitems:\n-{}\n", &indented[1..]);
    let pruned = read_stream(&list, Prune::UnreadFields).unwrap();
    assert_eq!(json(&[pruned[0]["items"][0].clone()]), expected);
    assert_eq!(read_stream(&list, Prune::Nothing).unwrap(), reference(&list).unwrap());
    let seq = format!("-{}", &indented[1..]);
    assert_eq!(json(&[read_stream(&seq, Prune::UnreadFields).unwrap()[0][0].clone()]), expected);
    let nested = format!("spec:\n  template:\n{}", NODE.lines().map(|l| format!("    {l}\n")).collect::<String>());
    assert_eq!(read_stream(&nested, Prune::UnreadFields), read_stream(&nested, Prune::Nothing));

    // A Node's or a Pod's spec once `kind` says so; a workload's spec never.
    let spec = "spec:\n  podCIDR: 10.0.0.0/24\n  taints: []\n  unschedulable: true\n  providerID: x\n";
    for (text, expected, why) in [
        (format!("kind: Node\n{spec}"), r#"{"kind":"Node","spec":{"taints":[],"unschedulable":true}}"#, "kind first"),
        (
            format!("{spec}kind: Node\n"),
            r#"{"spec":{"podCIDR":"10.0.0.0/24","taints":[],"unschedulable":true,"providerID":"x"},"kind":"Node"}"#,
            "kind last",
        ),
        (format!("kind: Pod\n{spec}"), r#"{"kind":"Pod","spec":{}}"#, "a Pod"),
        (
            format!("kind: Deployment\n{spec}"),
            r#"{"kind":"Deployment","spec":{"podCIDR":"10.0.0.0/24","taints":[],"unschedulable":true,"providerID":"x"}}"#,
            "a Deployment",
        ),
        (POD.to_string(), POD_PRUNED, "a Pod as kubectl prints it"),
        (
            "spec:\n  dnsPolicy: ClusterFirst\nkind: Pod\nspec:\n  dnsPolicy: Default\n".to_string(),
            r#"{"spec":{"dnsPolicy":"Default"},"kind":"Pod"}"#,
            "a Pod's spec before its kind, given twice",
        ),
    ] {
        let pruned = read_stream(&text, Prune::UnreadFields).unwrap();
        assert_eq!(serde_json::to_string(&pruned[0]).unwrap(), expected, "{why}");
        assert!(agrees(&text, why));
    }
    for text in ["kind: Node\nspec: {}\nkind: Pod\n", "kind: Node\nkind:\n", "kind:\nkind: Node\n"] {
        assert!(read_stream(text, Prune::UnreadFields).is_none(), "a second kind: {text:?}");
        assert!(agrees(text, "a second kind"));
    }
}

#[test]
fn skipping_follows_quotes_and_flow_collections_across_lines() {
    // serde_yaml reads `kind: Node"` as the end of the quoted message, not as a key:
    // skipping by indentation alone would get that wrong.
    for text in [
        "status:\n  message: \"foo\nkind: Node\"\n",
        "status:\n  addresses:\n  - message: 'foo\nkind: Node'\n",
        "status:\n  x:\n  - [a,\nkind: Node]\n",
        "metadata:\n  managedFields:\n  - {a: [\nkind: Node]}\n",
        "status:\n  x:\n    y: \"a \\\nkind: Node\"\n",
    ] {
        let pruned = read_stream(text, Prune::UnreadFields).unwrap_or_else(|| panic!("{text:?}"));
        let full = reference(text).unwrap();
        assert!(full[0].get("kind").is_none(), "{text:?}");
        let top = if text.starts_with("status") { "status" } else { "metadata" };
        assert_eq!(json(&pruned), format!(r#"[{{"{top}":{{}}}}]"#), "{text:?}");
    }
    // Quotes inside plain scalars, and on the lines that continue them, are text.
    for text in [
            "status:\n  addresses:\n  - message: waiting for\n      \"a long\n      time\" and 'more\n    type: Ready\n  allocatable: {cpu: '1'}\nkind: Node\n",
            "status:\n  message: plain\n   'open [\n\n   {\n  allocatable: {cpu: '1'}\nkind: Node\n",
            "status:\n  x:\n    k:{\"type:x}: it's \"quoted\n  allocatable: {cpu: '1'}\nkind: Node\n",
        ] {
            let pruned = read_stream(text, Prune::UnreadFields).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(json(&pruned), r#"[{"status":{"allocatable":{"cpu":"1"}},"kind":"Node"}]"#, "{text:?}");
            let full = reference(text).unwrap();
            assert_eq!(full[0]["kind"], "Node", "{text:?}");
        }
    // Block scalars are skipped by indentation; quotes and brackets in them do not count.
    for text in [
            "status:\n  addresses:\n  - message: \"a 'b' [c\"\n    x: {d: 'e'}\n  m: |\n    \"unclosed [\n   # x\nkind: Node\n",
            "status:\n  m:\n  - k: |-\n      {\n  - |\n    [\nkind: Node\n",
        ] {
            let v = read_stream(text, Prune::UnreadFields).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(json(&v), r#"[{"status":{},"kind":"Node"}]"#, "{text:?}");
        }
    // What still makes it give up.
    for text in
        ["status:\n  x:\n    y: 'open\n", "status:\n  x:\n  - [a,\n---\n]\n", "status:\n  x:\n    a: 1\n\tb: 2\n"]
    {
        assert!(read_stream(text, Prune::UnreadFields).is_none(), "{text:?}");
    }
}

// -----------------------------------------------------------------------------------------
// Differential tests

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "target" && n != "node_modules") {
                yaml_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

#[test]
fn corpus_agrees_with_serde_yaml() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("core/ has a parent").to_path_buf();
    let shared = std::env::var("SHARED").map(PathBuf::from).unwrap_or_else(|_| repo.join("../shared"));
    assert!(shared.join("conformance").is_dir(), "{} not found: set SHARED=...", shared.display());
    let mut files = Vec::new();
    for dir in [repo.join("examples"), repo.join("core"), repo.join("fuzz/seeds"), shared.join("conformance")] {
        yaml_files(&dir, &mut files);
    }
    let (mut fast, mut total) = (0, 0);
    let mut slow = Vec::new();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        total += 1;
        if agrees(&text, &path.display().to_string()) {
            fast += 1;
        } else {
            slow.push(path.display().to_string());
        }
    }
    println!("fast path for {fast} of {total} YAML files; serde_yaml for: {slow:#?}");
    assert!(total == 0 || fast * 10 >= total * 8, "fast path for only {fast} of {total} files");

    // What the fast path is for: kubectl output, the playground, the gallery.
    let kubectl = crate::testing::bench_common::kubectl_get_nodes_yaml(7);
    assert!(agrees(&kubectl, "kubectl get nodes -o yaml"));
    let snapshot = crate::testing::bench_common::kubectl_get_nodes_and_pods_yaml(3, 20);
    assert!(agrees(&snapshot, "kubectl get nodes,pods -A -o yaml"));
    // (placement-playground checks its synthetic cluster and the editors' halves of each
    // example the same way, through the public readers.)
    for (id, text) in crate::testing::example_manifests() {
        assert!(agrees(&text, &id), "gallery example {id} leaves the fast path");
    }
}

use crate::testing::Rng;

const KEYS: &[&str] = &[
    "a",
    "b",
    "status",
    "metadata",
    "managedFields",
    "items",
    "kind",
    "spec",
    "taints",
    "name",
    "'q k'",
    "\"d\\tk\"",
    "1",
    "x y",
];
const SCALARS: &[&str] = &[
    "x",
    "Node",
    "Node",
    "0x1F",
    "1e3",
    ".5",
    "-0",
    "+1",
    "0o7",
    "~",
    "True",
    "null",
    "007",
    "'it''s'",
    "\"e\\u00e9\"",
    "\"a\\\"b\"",
    "{a: 1, b: [2, c]}",
    "[]",
    "{}",
    "[x, 'y', \"z\"]",
    "a b",
    "http://x",
    "-x",
    ".inf",
    "''",
    "\"\"",
    "b#c",
    "c ]",
];
const FRAGMENTS: &[&str] = &[
    " ", "  ", "- ", ":", ": ", "'", "\"", "#", " #", "{", "}", "[", "]", ",", "|", "|-", "|+", ">", "&a ", "*a",
    "!t ", "? ", "\t", "---", "...", "\\", "0x1F", "1e3", ".5", "-0", "+1", "0o7", "~", "True", "\r",
];

/// A few documents written in random styles (valid YAML but for some of the plain scalars
/// over several lines), then, one time in three, a few fragments dropped in anywhere.
fn random_text(rng: &mut Rng) -> String {
    let mut text = String::new();
    for d in 0..1 + rng.below(3) {
        if d > 0 {
            text.push_str(rng.pick::<&str>(&["---\n", "--- # c\n", "...\n---\n"]));
        } else if rng.below(4) == 0 {
            text.push_str(rng.pick::<&str>(&["---\n", "--- # c\n", "# c\n"]));
        }
        if rng.below(6) == 0 {
            random_seq(rng, 0, 0, &mut text);
        } else {
            random_map(rng, 0, 0, &mut text);
        }
    }
    if rng.below(3) == 0 {
        for _ in 0..1 + rng.below(3) {
            let mut at = rng.below(text.len() + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            text.insert_str(at, rng.pick::<&str>(FRAGMENTS));
        }
    }
    if rng.below(5) == 0 {
        text.pop();
    }
    text
}

fn random_map(rng: &mut Rng, indent: usize, depth: usize, out: &mut String) {
    for i in 0..1 + rng.below(4) {
        if i > 0 {
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(rng.pick::<&str>(KEYS));
        out.push(':');
        random_value(rng, indent, depth, true, out);
        if rng.below(12) == 0 {
            out.push_str(rng.pick::<&str>(&["\n", "# comment\n", "   # indented comment\n"]));
        }
    }
}

fn random_seq(rng: &mut Rng, indent: usize, depth: usize, out: &mut String) {
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            out.push_str(&" ".repeat(indent));
        }
        out.push('-');
        match rng.below(4) {
            // A compact mapping in the entry.
            0 if depth < 4 => {
                out.push(' ');
                random_map(rng, indent + 2, depth + 1, out);
            }
            _ => random_value(rng, indent, depth, false, out),
        }
    }
}

/// A value after `key:` or `-` (the cursor is right after it), for a collection at `indent`.
fn random_value(rng: &mut Rng, indent: usize, depth: usize, in_map: bool, out: &mut String) {
    let inner = indent + [2, 2, 2, 1, 4][rng.below(5)];
    match rng.below(9) {
        0 => out.push('\n'),
        1 => {
            out.push_str(
                rng.pick::<&str>(&[" |\n", " |-\n", " |+\n", " | # c\n", " >\n", " >-\n", " >+\n", " > # c\n"]),
            );
            for i in 0..1 + rng.below(3) {
                let line = if i == 0 {
                    rng.pick::<&str>(&["text", "# not a comment", "\"open ["])
                } else {
                    rng.pick::<&str>(&["text", "  deeper", "", "", "# not a comment", "\"open [", "\ttab", "more text"])
                };
                if !line.is_empty() {
                    out.push_str(&" ".repeat(inner));
                }
                out.push_str(line);
                out.push('\n');
            }
        }
        2 => {
            let quote = *rng.pick::<&str>(&["'", "\""]);
            out.push(' ');
            out.push_str(quote);
            out.push_str(rng.pick::<&str>(&["folded", "folded  ", "", "it''s", "x\\t"]));
            if quote == "\"" && rng.below(3) == 0 {
                out.push('\\');
            }
            for _ in 0..1 + rng.below(2) {
                out.push('\n');
                out.push_str(&" ".repeat(rng.below(inner + 2)));
                out.push_str(rng.pick::<&str>(&["line", "", "more  ", "\tx"]));
            }
            out.push_str(quote);
            out.push('\n');
        }
        3 | 4 if depth < 4 => {
            out.push('\n');
            out.push_str(&" ".repeat(inner));
            random_map(rng, inner, depth + 1, out);
        }
        5 if depth < 4 => {
            out.push('\n');
            // `key:` then `- item` at the key's column, or indented.
            let at = if in_map && rng.below(2) == 0 { indent } else { inner };
            out.push_str(&" ".repeat(at));
            random_seq(rng, at, depth + 1, out);
        }
        6 if rng.below(3) == 0 => {
            // A plain scalar over several lines (read when its continuations are in the
            // subset, else skipped when pruned).
            out.push_str(rng.pick::<&str>(&[" plain", " plain # c", " 12", " true"]));
            for _ in 0..1 + rng.below(3) {
                out.push('\n');
                if rng.below(4) == 0 {
                    out.push_str(rng.pick::<&str>(&["\n", "  \n", "\n\n"]));
                }
                out.push_str(&" ".repeat(indent + 1 + rng.below(3)));
                out.push_str(rng.pick::<&str>(&[
                    "more",
                    "more text",
                    "x:y",
                    "7",
                    "\"q",
                    "'it",
                    "[x",
                    "{",
                    "#x",
                    "a: b",
                    "- x",
                    "m #c",
                ]));
            }
            out.push('\n');
        }
        _ => {
            out.push(' ');
            out.push_str(rng.pick::<&str>(SCALARS));
            if rng.below(8) == 0 {
                out.push_str(" # comment");
            }
            out.push('\n');
        }
    }
}

#[test]
fn random_texts_agree_with_serde_yaml() {
    // BLOCK_YAML_RUNS=1000000 (and BLOCK_YAML_SEED) for a longer search.
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    let runs = env("BLOCK_YAML_RUNS").unwrap_or(20_000);
    let mut rng = Rng(env("BLOCK_YAML_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15));
    let (mut fast, mut valid) = (0, 0);
    for _ in 0..runs {
        let text = random_text(&mut rng);
        if agrees(&text, "random") {
            fast += 1;
        }
        valid += usize::from(reference(&text).is_ok());
    }
    println!("random texts: {valid} of {runs} valid YAML, {fast} on the fast path");
    // Enough of them stay in the subset for the comparison to mean something.
    assert!(fast * 4 >= runs, "fast path for only {fast} of {runs}");
}

/// The fields `T`'s derived `Deserialize` reads, sorted: what it asks a deserializer for.
fn fields_of<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    struct FieldsOf<'a>(&'a mut &'static [&'static str]);
    impl<'de> serde::Deserializer<'de> for FieldsOf<'_> {
        type Error = serde::de::value::Error;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(serde::de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(serde::de::Error::custom("fields read"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
            unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields: &'static [&'static str] = &[];
    assert!(T::deserialize(FieldsOf(&mut fields)).is_err());
    let mut fields = fields.to_vec();
    fields.sort_unstable();
    fields
}

fn sorted(fields: &[&'static str]) -> Vec<&'static str> {
    let mut fields = fields.to_vec();
    fields.sort_unstable();
    fields
}

/// Each list of fields the reader keeps is exactly what the typed model reads, so a field
/// added to the model is not silently skipped.
#[test]
fn kept_fields_are_the_models() {
    use super::prune::{
        CONDITION_FIELDS, CONTAINER_FIELDS, NODE_INFO_FIELDS, NODE_SPEC_FIELDS, POD_SPEC_FIELDS, STATUS_FIELDS,
        VOLUME_FIELDS,
    };
    use crate::model::{
        Condition, Container, NodeSpec, NodeStatus, NodeSystemInfo, ObjectMeta, PodSpec, PodStatus, Volume,
    };
    assert_eq!(sorted(&META_FIELDS), fields_of::<ObjectMeta>());
    assert_eq!(sorted(&NODE_SPEC_FIELDS), fields_of::<NodeSpec>());
    assert_eq!(sorted(&POD_SPEC_FIELDS), fields_of::<PodSpec>());
    assert_eq!(sorted(&CONTAINER_FIELDS), fields_of::<Container>());
    assert_eq!(sorted(&VOLUME_FIELDS), fields_of::<Volume>());
    assert_eq!(sorted(&CONDITION_FIELDS), fields_of::<Condition>());
    assert_eq!(sorted(&NODE_INFO_FIELDS), fields_of::<NodeSystemInfo>());
    let mut status = [fields_of::<NodeStatus>(), fields_of::<PodStatus>()].concat();
    status.sort_unstable();
    status.dedup();
    assert_eq!(sorted(&STATUS_FIELDS), status);
}

/// Pruning a snapshot's Pods leaves the typed objects as they were: `parse_manifests` (the
/// fast reader, pruned, List items decoded as they are read) gives what serde_yaml and
/// decoding by reference give.
#[test]
fn a_snapshots_manifests_are_the_references() {
    use crate::input::documents::{parse_manifests, parse_manifests_reference};
    let snapshot = crate::testing::bench_common::kubectl_get_nodes_and_pods_yaml(3, 20);
    let fast = parse_manifests(&snapshot, "snapshot.yaml").unwrap();
    assert_eq!((fast.nodes.len(), fast.workloads.len()), (3, 60));
    assert!(fast.workloads.iter().all(|w| !w.template.spec.node_name.is_empty() && !w.pod_status.phase.is_empty()));
    let reference = parse_manifests_reference(&snapshot, "snapshot.yaml").unwrap();
    assert_eq!(format!("{fast:?}"), format!("{reference:?}"));
}
