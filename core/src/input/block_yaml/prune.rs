//! The pruning rules of [`Prune::UnreadFields`](super::Prune::UnreadFields): where a node
//! sits in an object, and which keys of which objects are skipped.

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
    Skip,
}

/// The `kind` read so far at the top of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Unread,
    Node,
    Other,
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

/// The status fields read: a Node's resources and conditions, a Pod's phase and conditions.
const STATUS_FIELDS: [&str; 4] = ["allocatable", "capacity", "phase", "conditions"];

pub(super) fn child_ctx(parent: Ctx, key: &str) -> Ctx {
    match parent {
        Ctx::Object { root, kind, spec } => match key {
            "metadata" => Ctx::Metadata,
            "status" => Ctx::Status,
            "spec" if kind == Kind::Node && !spec => Ctx::NodeSpec,
            "items" if root => Ctx::Items,
            _ => Ctx::Plain,
        },
        Ctx::Metadata if !META_FIELDS.contains(&key) => Ctx::Skip,
        Ctx::Status if !STATUS_FIELDS.contains(&key) => Ctx::Skip,
        Ctx::NodeSpec if key != "taints" && key != "unschedulable" => Ctx::Skip,
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
        _ => Ctx::Plain,
    }
}
