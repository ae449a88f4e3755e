//! The pruning rules of [`Prune::UnreadFields`](super::Prune::UnreadFields): where a node
//! sits in an object, and which keys of which objects are skipped. Each list of fields kept
//! is a struct's fields in [`crate::model`]; a test checks that they are the same.

/// Where a node sits, for pruning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    Plain,
    /// The top of an object; `root` for the document's own top node.
    Object {
        root: bool,
        kind: Kind,
        /// Whether a `spec` came already: with `kind` after the first one, the object's key
        /// order (which is the first occurrence's) does not say it is a Node's.
        spec: bool,
    },
    Items,
    Metadata,
    Status,
    /// A Node's `spec` (known to be a Node's when `kind` came first, as kubectl prints it).
    NodeSpec,
    /// A Pod's `spec`, likewise.
    PodSpec,
    /// A Pod spec's `containers` or `initContainers`, and one of them.
    Containers,
    Container,
    /// A Pod spec's `volumes`, and one of them.
    Volumes,
    Volume,
    /// `status.conditions`, and one of them.
    Conditions,
    Condition,
    /// A Node's `status.nodeInfo`.
    NodeInfo,
    Skip,
}

/// The `kind` read so far at the top of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Unread,
    Node,
    Pod,
    Other,
}

impl Kind {
    pub(super) fn of(kind: Option<&str>) -> Kind {
        match kind {
            Some("Node") => Kind::Node,
            Some("Pod") => Kind::Pod,
            _ => Kind::Other,
        }
    }
}

const OBJECT: Ctx = Ctx::Object { root: false, kind: Kind::Unread, spec: false };

/// The fields of `crate::model::ObjectMeta`.
pub(super) const META_FIELDS: [&str; 9] = [
    "name",
    "generateName",
    "namespace",
    "labels",
    "annotations",
    "ownerReferences",
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
];

/// The status fields read: a Node's resources, conditions and kubelet version, a Pod's
/// phase and conditions (`crate::model::NodeStatus`, `crate::model::PodStatus`).
pub(super) const STATUS_FIELDS: [&str; 7] =
    ["allocatable", "capacity", "phase", "conditions", "startTime", "nodeInfo", "declaredFeatures"];

/// The fields of `crate::model::NodeSystemInfo`: the kubelet's version, not the machine's
/// IDs, kernel and runtime.
pub(super) const NODE_INFO_FIELDS: [&str; 1] = ["kubeletVersion"];

/// The fields of `crate::model::NodeSpec`.
pub(super) const NODE_SPEC_FIELDS: [&str; 2] = ["taints", "unschedulable"];

/// The fields of `crate::model::PodSpec`: a Pod's `env`, probes, `securityContext`,
/// `dnsPolicy` and the like are skipped.
pub(super) const POD_SPEC_FIELDS: [&str; 19] = [
    "nodeName",
    "priority",
    "preemptionPolicy",
    "nodeSelector",
    "affinity",
    "tolerations",
    "initContainers",
    "containers",
    "overhead",
    "resources",
    "hostNetwork",
    "hostUsers",
    "schedulingGroup",
    "workloadRef",
    "topologySpreadConstraints",
    "schedulerName",
    "schedulingGates",
    "priorityClassName",
    "volumes",
];

/// The fields of `crate::model::Container`: `env`, `volumeMounts`, probes, `command` are not.
pub(super) const CONTAINER_FIELDS: [&str; 6] =
    ["name", "image", "resources", "ports", "restartPolicy", "restartPolicyRules"];

/// The fields of `crate::model::Volume`: its source is read when it is an `emptyDir`, a
/// claim (`persistentVolumeClaim`, `ephemeral`) or an in-tree disk VolumeRestrictions checks;
/// `configMap`, `secret`, `projected` and the like are skipped.
pub(super) const VOLUME_FIELDS: [&str; 8] = [
    "name",
    "emptyDir",
    "persistentVolumeClaim",
    "ephemeral",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "iscsi",
    "rbd",
];

/// The fields of `crate::model::Condition`: not its timestamps (`lastProbeTime: null` in
/// every Pod condition kubectl prints would otherwise make every document go through the
/// removal of null members).
pub(super) const CONDITION_FIELDS: [&str; 4] = ["type", "status", "reason", "message"];

pub(super) fn child_ctx(parent: Ctx, key: &str) -> Ctx {
    let keep = |fields: &[&str]| if fields.contains(&key) { Ctx::Plain } else { Ctx::Skip };
    match parent {
        Ctx::Object { root, kind, spec } => match key {
            "metadata" => Ctx::Metadata,
            "status" => Ctx::Status,
            "spec" if kind == Kind::Node && !spec => Ctx::NodeSpec,
            "spec" if kind == Kind::Pod && !spec => Ctx::PodSpec,
            "items" if root => Ctx::Items,
            _ => Ctx::Plain,
        },
        Ctx::Metadata => keep(&META_FIELDS),
        Ctx::Status if key == "conditions" => Ctx::Conditions,
        Ctx::Status if key == "nodeInfo" => Ctx::NodeInfo,
        Ctx::Status => keep(&STATUS_FIELDS),
        Ctx::NodeInfo => keep(&NODE_INFO_FIELDS),
        Ctx::NodeSpec => keep(&NODE_SPEC_FIELDS),
        Ctx::PodSpec => match key {
            "containers" | "initContainers" => Ctx::Containers,
            "volumes" => Ctx::Volumes,
            _ => keep(&POD_SPEC_FIELDS),
        },
        Ctx::Container => keep(&CONTAINER_FIELDS),
        Ctx::Volume => keep(&VOLUME_FIELDS),
        Ctx::Condition => keep(&CONDITION_FIELDS),
        _ => Ctx::Plain,
    }
}

/// Whether a sequence's items are the objects a streaming caller wants one at a time: those
/// of the top-level `items` sequence or of a top-level sequence.
pub(super) fn streams(ctx: Ctx) -> bool {
    matches!(ctx, Ctx::Items | Ctx::Object { root: true, .. })
}

pub(super) fn item_ctx(parent: Ctx) -> Ctx {
    match parent {
        Ctx::Items | Ctx::Object { root: true, .. } => OBJECT,
        Ctx::Containers => Ctx::Container,
        Ctx::Volumes => Ctx::Volume,
        Ctx::Conditions => Ctx::Condition,
        _ => Ctx::Plain,
    }
}

/// What [`Prune::UnreadFields`](super::Prune::UnreadFields) leaves of whole documents as
/// serde_yaml reads them: the rules above applied to finished Values, the reference the
/// differential tests and the `block_yaml` fuzz target compare the reader with. The reader
/// skips block mapping entries only, so this also runs on its output, to the same effect.
pub fn remove_unread_fields(docs: &mut [serde_json::Value]) {
    use serde_json::Value;
    fn retain(v: Option<&mut Value>, fields: &[&str]) {
        if let Some(Value::Object(map)) = v {
            map.retain(|k, _| fields.contains(&k.as_str()));
        }
    }
    fn each(v: Option<&mut Value>, fields: &[&str]) {
        if let Some(Value::Array(items)) = v {
            items.iter_mut().for_each(|item| retain(Some(item), fields));
        }
    }
    fn object(object: &mut Value) {
        let Value::Object(map) = object else { return };
        // The reader knows a Node's or a Pod's spec only when `kind` came first.
        let position = |key: &str| map.keys().position(|k| k == key);
        let kind_first = position("kind") < position("spec");
        let kind = Kind::of(map.get("kind").and_then(Value::as_str));
        retain(map.get_mut("metadata"), &META_FIELDS);
        if let Some(status) = map.get_mut("status") {
            retain(Some(status), &STATUS_FIELDS);
            each(status.get_mut("conditions"), &CONDITION_FIELDS);
            retain(status.get_mut("nodeInfo"), &NODE_INFO_FIELDS);
        }
        let Some(spec) = map.get_mut("spec").filter(|_| kind_first) else { return };
        match kind {
            Kind::Node => retain(Some(spec), &NODE_SPEC_FIELDS),
            Kind::Pod => {
                retain(Some(spec), &POD_SPEC_FIELDS);
                each(spec.get_mut("containers"), &CONTAINER_FIELDS);
                each(spec.get_mut("initContainers"), &CONTAINER_FIELDS);
                each(spec.get_mut("volumes"), &VOLUME_FIELDS);
            }
            _ => {}
        }
    }
    for doc in docs {
        match doc {
            Value::Array(items) => items.iter_mut().for_each(object),
            Value::Object(map) => {
                if let Some(Value::Array(items)) = map.get_mut("items") {
                    items.iter_mut().for_each(object);
                }
                object(doc);
            }
            _ => {}
        }
    }
}
