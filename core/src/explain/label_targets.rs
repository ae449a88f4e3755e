//! Which nodes a DaemonSet held off by its nodeSelector or required node affinity was meant
//! for. Labelling every pool the selector misses is no advice on a cluster of many pools: the
//! labels are offered once, for the pools ranked by what they show of being the target. A
//! pool is a plausible target when its nodes already have a key the selector asks for (with
//! another value), have the extended resource the workload requests, or have the hardware a
//! Node Feature Discovery PCI label names (`feature.node.kubernetes.io/pci-10de.present` is
//! an NVIDIA device, and such nodes have `nvidia.com/*` resources or labels); then by how
//! many requirements its nodes meet already.

use serde::Serialize;

use crate::cluster::pools::POOL_LABELS;
use crate::model::resources::is_extended_resource;
use crate::model::{Node, PodSpec};

/// At most this many pools are named as candidates for one label fix.
pub const MAX_TARGETS: usize = 3;

/// PCI vendor IDs of accelerators whose device plugins name their resources and labels under a
/// domain of the vendor's: (vendor ID, vendor, domain).
const PCI_VENDORS: [(&str, &str, &str); 4] = [
    ("10de", "NVIDIA", "nvidia.com"),
    ("1002", "AMD", "amd.com"),
    ("8086", "Intel", "intel.com"),
    ("1d0f", "Amazon (Neuron)", "aws.amazon.com"),
];

/// Node Feature Discovery's prefix for PCI device labels: `pci-<vendor>.present`, or
/// `pci-<class>_<vendor>.present` with its default label fields.
const NFD_PCI_PREFIX: &str = "feature.node.kubernetes.io/pci-";

/// One group of nodes (a pool, or the nodes without a pool label) the selector misses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelTarget {
    /// The pool; `None` for the nodes without a pool label.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    pub nodes: Vec<String>,
    /// What the nodes show of being the target, strongest first; empty when nothing does.
    pub reasons: Vec<String>,
    /// The label changes after which these nodes match (`None`: remove the label).
    #[serde(skip)]
    pub labels: Vec<(String, Option<String>)>,
    /// The nodes as `kubectl label nodes` takes them: `-l <pool label>=<pool>`, or their names.
    #[serde(skip)]
    pub kubectl_target: String,
    #[serde(skip)]
    score: u32,
}

/// A group to rank: its pool (or `None`), its nodes, and the label changes its first node needs.
pub struct Group<'n> {
    pub pool: Option<String>,
    pub nodes: Vec<&'n Node>,
    pub labels: Vec<(String, Option<String>)>,
}

/// The groups, most plausible target first. `requirements` is how many requirements the
/// selector has (nodeSelector entries and the first required term's expressions).
pub fn rank(template: &PodSpec, requirements: usize, groups: Vec<Group<'_>>) -> Vec<LabelTarget> {
    // Extended resources are often given as limits alone (the API server copies them to
    // requests), and the template here is as written.
    let mut requested: Vec<String> = Vec::new();
    for c in template.containers.iter().chain(&template.init_containers) {
        for (name, q) in c.resources.requests.iter().chain(&c.resources.limits) {
            if is_extended_resource(name) && !q.is_zero() && !requested.contains(name) {
                requested.push(name.clone());
            }
        }
    }
    let mut ranked: Vec<LabelTarget> = groups.into_iter().map(|g| judge(g, &requested, requirements)).collect();
    ranked.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then(a.labels.len().cmp(&b.labels.len()))
            .then(b.nodes.len().cmp(&a.nodes.len()))
            // Named pools before the nodes without one, then by name.
            .then(a.pool.is_none().cmp(&b.pool.is_none()))
            .then(a.pool.cmp(&b.pool))
    });
    ranked
}

fn judge(group: Group<'_>, requested: &[String], requirements: usize) -> LabelTarget {
    let mut reasons = Vec::new();
    let mut score = 0;
    // A key it asks for, with another value: the pool is labelled for this, differently.
    for (key, want) in &group.labels {
        let have = group.nodes.iter().find_map(|n| n.metadata.labels.get(key));
        if let (Some(have), Some(_)) = (have, want) {
            reasons.push(format!("has {key}={have}"));
            score += 4;
        }
    }
    for resource in requested {
        if group.nodes.iter().any(|n| allocatable(n, resource) > 0) {
            reasons.push(format!("has the {resource} it requests"));
            score += 4;
        }
    }
    for (key, _) in &group.labels {
        let Some((id, vendor, domain)) = pci_vendor(key) else { continue };
        if let Some(found) = group.nodes.iter().find_map(|n| vendor_mark(n, domain)) {
            reasons.push(format!("has {found}: PCI vendor {id} is {vendor}"));
            score += 3;
        }
    }
    let met = requirements.saturating_sub(group.labels.len());
    if met > 0 {
        reasons.push(format!("meets {met} of its {requirements} requirements"));
        score += u32::try_from(met).unwrap_or(u32::MAX);
    }
    let pool_key = group.nodes.first().and_then(|n| POOL_LABELS.iter().find(|k| n.metadata.labels.contains_key(**k)));
    let kubectl_target = match (pool_key, &group.pool) {
        (Some(key), Some(pool)) => format!("-l {key}={pool}"),
        _ => group.nodes.iter().map(|n| n.metadata.name.as_str()).collect::<Vec<_>>().join(" "),
    };
    LabelTarget {
        kubectl_target,
        pool: group.pool,
        nodes: group.nodes.iter().map(|n| n.metadata.name.clone()).collect(),
        reasons,
        labels: group.labels,
        score,
    }
}

fn allocatable(node: &Node, resource: &str) -> i64 {
    let list = node.status.allocatable.as_ref().or(node.status.capacity.as_ref());
    list.and_then(|l| l.get(resource)).map_or(0, |q| q.value())
}

/// The vendor an NFD PCI label names: `pci-10de.present` or `pci-0302_10de.present`.
fn pci_vendor(key: &str) -> Option<(&'static str, &'static str, &'static str)> {
    let device = key.strip_prefix(NFD_PCI_PREFIX)?.strip_suffix(".present")?;
    let id = device.rsplit('_').next()?;
    PCI_VENDORS.iter().find(|(v, _, _)| v.eq_ignore_ascii_case(id)).copied()
}

/// A resource (`nvidia.com/gpu`) or label (`nvidia.com/gpu.present`) of the vendor's domain
/// on the node: its device plugin or operator runs there.
fn vendor_mark(node: &Node, domain: &str) -> Option<String> {
    let of_vendor =
        |name: &str| name.split_once('/').is_some_and(|(d, _)| d == domain || d.ends_with(&format!(".{domain}")));
    let resources = node.status.allocatable.iter().chain(node.status.capacity.iter()).flat_map(|l| l.iter());
    for (name, q) in resources {
        if of_vendor(name) && !q.is_zero() {
            return Some(name.clone());
        }
    }
    node.metadata.labels.keys().find(|k| of_vendor(k)).map(|k| format!("label {k}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    fn nodes(yaml: &str) -> Vec<Node> {
        parse_manifests(yaml, "").unwrap().nodes.into_iter().map(|(_, n)| std::sync::Arc::unwrap_or_clone(n)).collect()
    }

    fn node(name: &str, labels: &str, allocatable: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\nstatus:\n  allocatable: {{cpu: '4', memory: 8Gi, pods: '110'{allocatable}}}\n---\n"
        )
    }

    fn spec(yaml: &str) -> PodSpec {
        serde_yaml::from_str(yaml).unwrap()
    }

    const GFD: &str =
        "nodeSelector: {feature.node.kubernetes.io/pci-10de.present: 'true'}\ncontainers: [{name: c, image: i}]\n";
    const ZONE_AND_DISK: &str = "nodeSelector: {disk: ssd, zone: z1}\ncontainers: [{name: c, image: i}]\n";
    const GPU_REQUEST: &str = "nodeSelector: {accelerator: a100}\ncontainers: [{name: c, image: i, resources: {limits: {example.com/fpga: 1}}}]\n";

    /// (name, nodes, template, want: pools in order with their first reason).
    #[test]
    fn pools_ranked_by_what_they_show() {
        /// Each pool wanted, in order, with its first reason.
        type Ranking = Vec<(&'static str, Option<&'static str>)>;
        let cases: Vec<(&str, String, &str, Ranking)> = vec![
            (
                "the pool with the NVIDIA device the PCI label names, before pools without",
                [
                    node("a-1", "pool: a", ""),
                    node("gpu-1", "pool: gpu, nvidia.com/gpu.present: 'true'", ", nvidia.com/gpu: '1'"),
                    node("b-1", "pool: b", ""),
                ]
                .concat(),
                GFD,
                vec![
                    ("gpu", Some("has nvidia.com/gpu: PCI vendor 10de is NVIDIA")),
                    ("a", None),
                    ("b", None),
                ],
            ),
            (
                "a vendor label alone is a sign too, with the class in the NFD label",
                [node("a-1", "pool: a", ""), node("gpu-1", "pool: gpu, nvidia.com/gpu.product: A100", "")].concat(),
                "nodeSelector: {feature.node.kubernetes.io/pci-0302_10de.present: 'true'}\ncontainers: [{name: c, image: i}]\n",
                vec![("gpu", Some("has label nvidia.com/gpu.product: PCI vendor 10de is NVIDIA")), ("a", None)],
            ),
            (
                "the key with another value first, then the pool meeting more requirements",
                [
                    node("a-1", "pool: a", ""),
                    node("b-1", "pool: b, zone: z1", ""),
                    node("c-1", "pool: c, disk: hdd", ""),
                ]
                .concat(),
                ZONE_AND_DISK,
                vec![
                    ("c", Some("has disk=hdd")),
                    ("b", Some("meets 1 of its 2 requirements")),
                    ("a", None),
                ],
            ),
            (
                "the pool with the extended resource it requests",
                [node("a-1", "pool: a", ""), node("fpga-1", "pool: fpga", ", example.com/fpga: '2'")].concat(),
                GPU_REQUEST,
                vec![("fpga", Some("has the example.com/fpga it requests")), ("a", None)],
            ),
            (
                "no sign: bigger pools first, then by name",
                [node("b-1", "pool: b", ""), node("a-1", "pool: a", ""), node("b-2", "pool: b", "")].concat(),
                GFD,
                vec![("b", None), ("a", None)],
            ),
        ];
        for (name, yaml, template, want) in cases {
            let all = nodes(&yaml);
            let template = spec(template);
            let mut groups: Vec<Group<'_>> = Vec::new();
            for n in &all {
                let pool = n.metadata.labels.get("pool").cloned();
                match groups.iter_mut().find(|g| g.pool == pool) {
                    Some(g) => g.nodes.push(n),
                    None => {
                        let labels = crate::explain::fixes::labels_to_match(&template, Some(n)).unwrap();
                        groups.push(Group { pool, nodes: vec![n], labels });
                    }
                }
            }
            let requirements = crate::explain::fixes::selector_requirements(&template);
            let got: Vec<(String, Option<String>)> = rank(&template, requirements, groups)
                .into_iter()
                .map(|t| (t.pool.unwrap_or_default(), t.reasons.first().cloned()))
                .collect();
            let want: Vec<(String, Option<String>)> =
                want.into_iter().map(|(p, r)| (p.to_string(), r.map(str::to_string))).collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn pci_vendor_reads_nfd_labels() {
        for (key, want) in [
            ("feature.node.kubernetes.io/pci-10de.present", Some("NVIDIA")),
            ("feature.node.kubernetes.io/pci-0300_1002.present", Some("AMD")),
            ("feature.node.kubernetes.io/pci-0300_1af4.present", None),
            ("feature.node.kubernetes.io/cpu-cpuid.AVX512F", None),
            ("nvidia.com/gpu.present", None),
        ] {
            assert_eq!(pci_vendor(key).map(|(_, v, _)| v), want, "{key}");
        }
    }
}
