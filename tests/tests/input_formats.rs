//! Inputs as people save them, through placement-core's public API as the CLI uses it
//! (`text::decode_text`, then `documents::parse_manifests`): the fixtures of
//! `tests/fixtures/input-formats/` (the binary's own tests, `-f DIR` and `-R` included, are in
//! `cli/tests/input_formats.rs`).

use std::path::{Path, PathBuf};

use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_core::input::documents::{parse_manifests, InputError, Manifests};
use placement_core::input::text::{decode_text, KubectlOutput};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn bytes(path: &str) -> Vec<u8> {
    std::fs::read(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A file read as the CLI reads it.
fn read(path: &str) -> Result<Manifests, Box<InputError>> {
    let text = decode_text(&bytes(path), path)?;
    Ok(parse_manifests(&text, path)?)
}

/// Everything read from a file, with `source` as its name in the documents' references.
fn summary(path: &str, source: &str) -> String {
    let m = parse_manifests(&decode_text(&bytes(path), source).unwrap(), source).unwrap();
    format!("{:?}", (&m.nodes, &m.workloads, &m.services, &m.ignored))
}

/// The fixtures are the bytes Windows tools write, of texts the other tests read as UTF-8.
#[test]
fn fixtures_are_what_windows_tools_write() {
    let example = std::fs::read_to_string(root().join("examples/kubectl-get-nodes.yaml")).unwrap();
    let powershell = bytes("tests/fixtures/input-formats/nodes-powershell.yaml");
    assert_eq!(powershell.get(..2), Some(&[0xFF, 0xFE][..]), "UTF-16 LE with a byte-order mark");
    let decoded = decode_text(&powershell, "").unwrap();
    assert!(decoded.contains("\r\n"));
    assert_eq!(decoded.replace("\r\n", "\n"), example);

    let crlf = bytes("tests/fixtures/input-formats/workloads-crlf.yaml");
    let lf = bytes("tests/fixtures/input-formats/workloads-lf.yaml");
    assert_eq!(String::from_utf8(crlf).unwrap(), String::from_utf8(lf).unwrap().replace('\n', "\r\n"));

    let notepad = bytes("tests/fixtures/input-formats/dir/2-web.yml");
    assert_eq!(notepad.get(..3), Some(&[0xEF, 0xBB, 0xBF][..]), "UTF-8 with a byte-order mark");
}

#[test]
fn utf16_and_crlf_read_as_utf8_and_lf() {
    let powershell = read("tests/fixtures/input-formats/nodes-powershell.yaml").unwrap();
    assert_eq!(powershell.nodes.len(), 3);
    assert_eq!(
        summary("tests/fixtures/input-formats/nodes-powershell.yaml", "nodes.yaml"),
        summary("examples/kubectl-get-nodes.yaml", "nodes.yaml")
    );

    let crlf = read("tests/fixtures/input-formats/workloads-crlf.yaml").unwrap();
    assert_eq!(
        summary("tests/fixtures/input-formats/workloads-crlf.yaml", "w.yaml"),
        summary("tests/fixtures/input-formats/workloads-lf.yaml", "w.yaml")
    );
    let names: Vec<&str> = crlf.workloads.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["api", "node-exporter"]);

    let notepad = read("tests/fixtures/input-formats/dir/2-web.yml").unwrap();
    assert_eq!(notepad.workloads[0].name, "web");
}

/// `kubectl get nodes,pods -A -o json` and `kubectl get pod NAME -o json`.
#[test]
fn kubectl_json_reads() {
    let m = read("tests/fixtures/input-formats/kubectl-get-nodes-pods.json").unwrap();
    let nodes: Vec<(&str, usize, bool)> = m
        .nodes
        .iter()
        .map(|(_, n)| (n.metadata.name.as_str(), n.spec.taints.len(), n.status.allocatable.is_some()))
        .collect();
    assert_eq!(nodes, [("kind-control-plane", 1, true), ("kind-worker", 0, true)]);
    let pods: Vec<(String, &str, usize)> = m
        .workloads
        .iter()
        .map(|w| {
            (format!("{} {}/{}", w.kind.as_str(), w.namespace, w.name), w.template.spec.node_name.as_str(), w.doc.index)
        })
        .collect();
    assert_eq!(
        pods,
        [
            ("Pod kube-system/coredns-7db6d8ff4d-5xkzq".to_string(), "kind-control-plane", 3),
            ("Pod shop/web-7d9c6b5f48-hx2lq".to_string(), "kind-worker", 4),
            ("Pod shop/web-7d9c6b5f48-q8w4n".to_string(), "", 5),
        ]
    );
    let report = simulate(&m, &SimulateOptions::default()).unwrap();
    // The web pods are grouped under their ReplicaSet: the running one, then the pending one,
    // which finds 1500m of kind-worker's 2 CPUs taken.
    let web = report.workloads.iter().find(|w| w.name == "web-7d9c6b5f48").unwrap();
    assert!(web.not_in_input);
    assert_eq!(web.pods.iter().map(|p| p.node.as_deref()).collect::<Vec<_>>(), [Some("kind-worker"), None]);

    let one = read("tests/fixtures/input-formats/kubectl-get-pod.json").unwrap();
    assert_eq!((one.nodes.len(), one.workloads.len()), (0, 1));
    assert_eq!(one.workloads[0].name, "web-7d9c6b5f48-hx2lq");
}

#[test]
fn kubectl_output_for_people_says_so() {
    for (file, output) in
        [("kubectl-get-nodes-wide.txt", KubectlOutput::Table), ("kubectl-describe-node.txt", KubectlOutput::Describe)]
    {
        let path = format!("tests/fixtures/input-formats/{file}");
        match read(&path).map_err(|e| *e) {
            Err(InputError::KubectlOutput { source_name, output: got, command }) => {
                assert_eq!(source_name, format!("{path}: "));
                assert_eq!(got, output, "{file}");
                assert_eq!(command, "kubectl get nodes -o yaml > nodes.yaml", "{file}");
            }
            other => panic!("{file}: {other:?}"),
        }
    }
}
