//! Node pools: the groups of alike nodes a cluster is run as (an AKS agent pool, an EKS node
//! group, a GKE node pool, a Karpenter NodePool). Kubernetes has no pool object; each cloud
//! puts a label on its nodes, and people cordon, drain, taint and scale pools, not nodes.
//!
//! ```
//! use placement_core::cluster::pools::PoolLabel;
//! use placement_core::model::Node;
//! let mut node = Node::default();
//! node.metadata.labels.insert("kubernetes.azure.com/agentpool".into(), "user".into());
//! assert_eq!(PoolLabel::Detect.pool_of(&node), Some("user"));
//! assert_eq!(PoolLabel::Key("tier".into()).pool_of(&node), None);
//! ```

use crate::model::Node;

/// The labels the managed offerings and common provisioners put on a node, most specific first.
pub const POOL_LABELS: [&str; 10] = [
    "kubernetes.azure.com/agentpool",
    "agentpool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "cloud.google.com/gke-nodepool",
    "karpenter.sh/nodepool",
    "karpenter.sh/provisioner-name",
    "kops.k8s.io/instancegroup",
    "doks.digitalocean.com/node-pool",
    "node.kubernetes.io/pool",
];

/// Nodes with none of the pool labels but a control-plane role form this pool.
pub const CONTROL_PLANE: &str = "control-plane";

/// Which label names a node's pool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PoolLabel {
    /// The first of [`POOL_LABELS`] the node carries, else `control-plane` for a node with
    /// the control-plane role.
    #[default]
    Detect,
    /// This label, as the user chose it.
    Key(String),
}

impl PoolLabel {
    /// `--pool-label KEY`; empty means [`PoolLabel::Detect`].
    pub fn from_option(key: Option<&str>) -> Self {
        match key.map(str::trim) {
            None | Some("") => Self::Detect,
            Some(k) => Self::Key(k.to_string()),
        }
    }

    /// The node's pool; `None` when it has none.
    pub fn pool_of<'n>(&self, node: &'n Node) -> Option<&'n str> {
        let labels = &node.metadata.labels;
        match self {
            Self::Key(key) => labels.get(key).map(String::as_str),
            Self::Detect => POOL_LABELS.iter().find_map(|k| labels.get(*k)).map(String::as_str).or_else(|| {
                labels
                    .keys()
                    .any(|k| k == "node-role.kubernetes.io/control-plane" || k == "node-role.kubernetes.io/master")
                    .then_some(CONTROL_PLANE)
            }),
        }
    }

    /// The node's pool, or `(no pool)`: for grouping.
    pub fn pool_name(&self, node: &Node) -> String {
        self.pool_of(node).map_or_else(|| NO_POOL.to_string(), str::to_string)
    }
}

/// What nodes without a pool are grouped as.
pub const NO_POOL: &str = "(no pool)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_from_cloud_labels() {
        let node = |labels: &[(&str, &str)]| {
            let mut n = Node::default();
            for (k, v) in labels {
                n.metadata.labels.insert((*k).into(), (*v).into());
            }
            n
        };
        // (name, labels, pool label, want)
        let rows = [
            (
                "AKS",
                vec![("kubernetes.azure.com/agentpool", "user"), ("agentpool", "user")],
                PoolLabel::Detect,
                Some("user"),
            ),
            ("EKS", vec![("eks.amazonaws.com/nodegroup", "ng-1")], PoolLabel::Detect, Some("ng-1")),
            ("GKE", vec![("cloud.google.com/gke-nodepool", "default-pool")], PoolLabel::Detect, Some("default-pool")),
            ("Karpenter", vec![("karpenter.sh/nodepool", "spot")], PoolLabel::Detect, Some("spot")),
            (
                "kind control plane",
                vec![("node-role.kubernetes.io/control-plane", "")],
                PoolLabel::Detect,
                Some(CONTROL_PLANE),
            ),
            ("none", vec![("kubernetes.io/hostname", "n1")], PoolLabel::Detect, None),
            ("chosen label", vec![("tier", "web"), ("agentpool", "user")], PoolLabel::Key("tier".into()), Some("web")),
            ("chosen label missing", vec![("agentpool", "user")], PoolLabel::Key("tier".into()), None),
        ];
        for (name, labels, key, want) in rows {
            assert_eq!(key.pool_of(&node(&labels)), want, "{name}");
        }
        assert_eq!(PoolLabel::from_option(Some(" ")), PoolLabel::Detect);
        assert_eq!(PoolLabel::Detect.pool_name(&node(&[])), NO_POOL);
    }
}
