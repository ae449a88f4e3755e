//! Reading the input as a cluster snapshot: which objects are the same object given twice,
//! which pods belong to which controller, and which pods already exist.
//!
//! `kubectl get all -A -o yaml` lists a Deployment, its ReplicaSets and their Pods side by
//! side. Simulated each on its own, they would be counted two or three times. Here every pod
//! is followed up its `ownerReferences` (the one with `controller: true`, matched by
//! `metadata.uid` where both sides carry one, else by kind, namespace and name): a Pod of a
//! ReplicaSet of a Deployment belongs to the Deployment, a Pod of a Job of a CronJob to the
//! CronJob. A controller's existing pods are the cluster as it is; the simulation creates only
//! what is missing.
//!
//! A pod whose controller is not in the input (`kubectl get nodes,pods -A -o yaml`) still
//! belongs with the other pods of that controller: they are reported together under it.
//! A Deployment's pods are found even without their ReplicaSet, by the ReplicaSet's name,
//! `<deployment>-<pod-template-hash>`.

use std::sync::Arc;

use crate::cluster::controllers::POD_TEMPLATE_HASH_LABEL;
use crate::input::documents::{Manifests, Workload, WorkloadKind};
use crate::model::OwnerReference;

/// What each workload of the input is in the snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Reported on its own: a controller with its existing pods, or a Pod of no controller.
    Own,
    /// A ReplicaSet of a Deployment, or a Job of a CronJob, in the input: reported under the
    /// workload `of`, and creates its missing pods for it.
    Revision { of: usize },
    /// A Pod whose controller is the workload `owner` (itself a [`Role::Own`] or a
    /// [`Role::Revision`]), reported under `of`.
    Member { of: usize, owner: usize },
    /// A Pod of the Deployment `of` whose ReplicaSet (`replica_set`) is not in the input.
    DeploymentPod { of: usize, replica_set: String },
    /// A Pod whose controller is not in the input: reported with the other pods of the
    /// [`OrphanGroup`] of that index.
    Orphan { group: usize },
    /// The same kind, namespace and name as the earlier workload `first`: not simulated.
    Duplicate { first: usize },
}

/// The pods of one controller that is not in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrphanGroup {
    pub kind: WorkloadKind,
    pub namespace: String,
    pub name: String,
    /// Workload indices of its pods, in input order.
    pub pods: Vec<usize>,
}

/// The snapshot's structure: a role per workload (input order), the orphan groups, and the
/// warnings about what was set aside.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ownership {
    pub roles: Vec<Role>,
    pub groups: Vec<OrphanGroup>,
    pub warnings: Vec<String>,
    /// Each group's index by its first pod's workload index, where its report goes.
    group_by_first_pod: HashMap<usize, usize>,
}

impl Ownership {
    pub fn role(&self, i: usize) -> &Role {
        self.roles.get(i).unwrap_or(&Role::Own)
    }

    /// The orphan group whose report is at workload index `slot` (its first pod's).
    pub fn group_at(&self, slot: usize) -> Option<&OrphanGroup> {
        self.group_by_first_pod.get(&slot).and_then(|&g| self.groups.get(g))
    }

    /// The workloads whose pods count for `of` (its revisions), in input order.
    pub fn revisions(&self, of: usize) -> impl Iterator<Item = usize> + '_ {
        self.roles
            .iter()
            .enumerate()
            .filter_map(move |(i, r)| matches!(r, Role::Revision { of: o } if *o == of).then_some(i))
    }

    /// The ownership of the same input without the pods at `removed` (sorted, distinct): what
    /// [`resolve`] gives for it, without hashing every object again (a drain's what-if removes
    /// 1,680 of 100,000 pods, then simulates the rest). `None` where removing them changes
    /// more than indices (a removed pod is another object's first copy, or an orphan group's
    /// pods are all gone): resolve it again then.
    pub fn without(&self, removed: &[usize]) -> Option<Ownership> {
        let gone = |i: usize| removed.binary_search(&i).is_ok();
        let shift = |i: usize| (!gone(i)).then(|| i - removed.partition_point(|&r| r < i));
        let mut roles = Vec::with_capacity(self.roles.len().saturating_sub(removed.len()));
        let mut groups: Vec<OrphanGroup> = Vec::new();
        let mut renumbered: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
        for (i, role) in self.roles.iter().enumerate() {
            if gone(i) {
                continue;
            }
            let role = match role {
                Role::Own => Role::Own,
                Role::Revision { of } => Role::Revision { of: shift(*of)? },
                Role::Member { of, owner } => Role::Member { of: shift(*of)?, owner: shift(*owner)? },
                Role::DeploymentPod { of, replica_set } => {
                    Role::DeploymentPod { of: shift(*of)?, replica_set: replica_set.clone() }
                }
                Role::Duplicate { first } => Role::Duplicate { first: shift(*first)? },
                Role::Orphan { group } => {
                    // Groups are numbered by their first pod, as `resolve` numbers them.
                    let old = self.groups.get(*group)?;
                    let new = *renumbered.entry(*group).or_insert_with(|| {
                        groups.push(OrphanGroup { pods: Vec::new(), ..old.clone() });
                        groups.len() - 1
                    });
                    groups.get_mut(new)?.pods.push(roles.len());
                    Role::Orphan { group: new }
                }
            };
            roles.push(role);
        }
        if groups.len() != self.groups.len() {
            return None;
        }
        let group_by_first_pod =
            groups.iter().enumerate().filter_map(|(g, group)| Some((*group.pods.first()?, g))).collect();
        Some(Ownership { roles, groups, warnings: self.warnings.clone(), group_by_first_pod })
    }

    /// The pods reported under `of`, in input order.
    pub fn members(&self, of: usize) -> impl Iterator<Item = usize> + '_ {
        self.roles.iter().enumerate().filter_map(move |(i, r)| match r {
            Role::Member { of: o, .. } | Role::DeploymentPod { of: o, .. } if *o == of => Some(i),
            _ => None,
        })
    }
}

type Key<'a> = (&'a str, &'a str, &'a str);

/// The maps built over every object of a snapshot (100,000 pods and more): hashed with
/// foldhash rather than SipHash, which was a third of resolving them. Nothing here is
/// exposed to hash flooding: the input is the user's own, and a map lives for one call.
/// The page keeps SipHash, whose maps it has anyway: its inputs are far smaller, and its
/// payload has no room for a second set of map code.
#[cfg(not(target_arch = "wasm32"))]
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
#[cfg(target_arch = "wasm32")]
type HashMap<K, V> = std::collections::HashMap<K, V>;

/// Resolves the ownership of every workload of `manifests`.
pub fn resolve(manifests: &Manifests) -> Ownership {
    let workloads = &manifests.workloads;
    let mut roles = vec![Role::Own; workloads.len()];
    let mut warnings = Vec::new();
    let mut by_key: HashMap<Key, usize> = HashMap::with_capacity_and_hasher(workloads.len(), Default::default());
    let mut by_uid: HashMap<&str, usize> = HashMap::with_capacity_and_hasher(workloads.len(), Default::default());
    for (i, w) in workloads.iter().enumerate() {
        let key = (w.kind.as_str(), w.namespace.as_str(), w.name.as_str());
        if let Some(&first) = by_key.get(&key) {
            let first_doc = workloads.get(first).map(|f| f.doc.to_string()).unwrap_or_default();
            warnings.push(format!("{}: the same object as {first_doc}; given twice, simulated once", w.doc));
            if let Some(r) = roles.get_mut(i) {
                *r = Role::Duplicate { first };
            }
            continue;
        }
        by_key.insert(key, i);
        if !w.metadata.uid.is_empty() {
            by_uid.insert(&w.metadata.uid, i);
        }
    }
    let owner_of = |w: &Workload| -> Option<usize> {
        let r = w.metadata.controller()?;
        find_owner(r, &w.namespace, &by_key, &by_uid, workloads)
    };
    // Controllers first: which ReplicaSets and Jobs are another workload's revisions.
    for (i, w) in workloads.iter().enumerate() {
        if !matches!(roles.get(i), Some(Role::Own)) {
            continue;
        }
        let parent = match w.kind {
            WorkloadKind::ReplicaSet | WorkloadKind::Job => owner_of(w),
            _ => None,
        };
        let Some(parent) = parent else { continue };
        let fits = matches!(
            (w.kind, workloads.get(parent).map(|p| p.kind)),
            (WorkloadKind::ReplicaSet, Some(WorkloadKind::Deployment))
                | (WorkloadKind::Job, Some(WorkloadKind::CronJob))
        );
        if fits {
            if let Some(r) = roles.get_mut(i) {
                *r = Role::Revision { of: parent };
            }
        }
    }
    // Then pods.
    let mut groups: Vec<OrphanGroup> = Vec::new();
    let mut group_index: HashMap<(&str, &'static str, &str), usize> = HashMap::default();
    let deployments: HashMap<(&str, &str), usize> = workloads
        .iter()
        .enumerate()
        .filter(|(i, w)| w.kind == WorkloadKind::Deployment && matches!(roles.get(*i), Some(Role::Own)))
        .map(|(i, w)| ((w.namespace.as_str(), w.name.as_str()), i))
        .collect();
    for (i, w) in workloads.iter().enumerate() {
        if w.kind != WorkloadKind::Pod || !matches!(roles.get(i), Some(Role::Own)) {
            continue;
        }
        let Some(reference) = w.metadata.controller() else { continue };
        let role = match find_owner(reference, &w.namespace, &by_key, &by_uid, workloads) {
            Some(owner) => {
                let of = match roles.get(owner) {
                    Some(Role::Revision { of }) => *of,
                    _ => owner,
                };
                Role::Member { of, owner }
            }
            None => match deployment_of(reference, w, &deployments) {
                Some(of) => Role::DeploymentPod { of, replica_set: reference.name.clone() },
                None => {
                    let Some(kind) = WorkloadKind::parse(&reference.kind).filter(|k| *k != WorkloadKind::Pod) else {
                        // Static pods (owned by their Node) and pods of custom controllers
                        // stand alone.
                        continue;
                    };
                    let key = (w.namespace.as_str(), kind.as_str(), reference.name.as_str());
                    let group = *group_index.entry(key).or_insert_with(|| {
                        groups.push(OrphanGroup {
                            kind,
                            namespace: w.namespace.clone(),
                            name: reference.name.clone(),
                            pods: Vec::new(),
                        });
                        groups.len() - 1
                    });
                    if let Some(g) = groups.get_mut(group) {
                        g.pods.push(i);
                    }
                    Role::Orphan { group }
                }
            },
        };
        if let Some(r) = roles.get_mut(i) {
            *r = role;
        }
    }
    let group_by_first_pod =
        groups.iter().enumerate().filter_map(|(g, group)| Some((*group.pods.first()?, g))).collect();
    Ownership { roles, groups, warnings, group_by_first_pod }
}

/// The workload `reference` names: by uid when both sides carry one, else by kind, namespace
/// and name. A uid that names another object (a controller deleted and re-created under the
/// same name) does not match.
fn find_owner(
    reference: &OwnerReference,
    namespace: &str,
    by_key: &HashMap<Key, usize>,
    by_uid: &HashMap<&str, usize>,
    workloads: &[Arc<Workload>],
) -> Option<usize> {
    if !reference.uid.is_empty() {
        if let Some(&i) = by_uid.get(reference.uid.as_str()) {
            return workloads.get(i).is_some_and(|w| w.kind.as_str() == reference.kind).then_some(i);
        }
    }
    let &i = by_key.get(&(reference.kind.as_str(), namespace, reference.name.as_str()))?;
    let w = workloads.get(i)?;
    (reference.uid.is_empty() || w.metadata.uid.is_empty()).then_some(i)
}

/// The Deployment of a pod whose ReplicaSet is not in the input: the ReplicaSet is named
/// `<deployment>-<pod-template-hash>` and the pod carries that hash as a label.
fn deployment_of(
    reference: &OwnerReference,
    pod: &Workload,
    deployments: &HashMap<(&str, &str), usize>,
) -> Option<usize> {
    if reference.kind != "ReplicaSet" {
        return None;
    }
    let hash = pod.template.metadata.labels.get(POD_TEMPLATE_HASH_LABEL)?;
    let deployment = reference.name.strip_suffix(hash.as_str())?.strip_suffix('-')?;
    deployments.get(&(pod.namespace.as_str(), deployment)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    const SNAPSHOT: &str = "
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: d-1}
spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: web-7c9f8d6b5, namespace: shop, uid: rs-1, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1, controller: true}]}
spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-7c9f8d6b5-abcde, namespace: shop, labels: {app: web, pod-template-hash: 7c9f8d6b5}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7c9f8d6b5, uid: rs-1, controller: true}]}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: api-5b6c7d8f9-xyz12, namespace: shop, labels: {app: api, pod-template-hash: 5b6c7d8f9}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api-5b6c7d8f9, uid: rs-2, controller: true}]}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec: {replicas: 1, selector: {matchLabels: {app: api}}, template: {metadata: {labels: {app: api}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-x1, namespace: kube-system, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-9, controller: true}]}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-x2, namespace: kube-system, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-9, controller: true}]}
spec: {nodeName: n2, containers: [{name: c, image: i}]}
---
apiVersion: v1
kind: Pod
metadata: {name: kube-apiserver-n1, namespace: kube-system, ownerReferences: [{apiVersion: v1, kind: Node, name: n1, controller: true}]}
spec: {nodeName: n1, containers: [{name: c, image: i}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, uid: d-1}
spec: {replicas: 3, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i}]}}}
";

    #[test]
    fn pods_follow_their_controllers_up() {
        let m = parse_manifests(SNAPSHOT, "").unwrap();
        let o = resolve(&m);
        // (name, workload index, want)
        let rows = [
            ("the Deployment", 0, Role::Own),
            ("its ReplicaSet, by uid", 1, Role::Revision { of: 0 }),
            ("its pod, through the ReplicaSet", 2, Role::Member { of: 0, owner: 1 }),
            (
                "a pod whose ReplicaSet is missing, by the ReplicaSet's name",
                3,
                Role::DeploymentPod { of: 4, replica_set: "api-5b6c7d8f9".into() },
            ),
            ("the second Deployment", 4, Role::Own),
            ("a DaemonSet's pod without the DaemonSet", 5, Role::Orphan { group: 0 }),
            ("another pod of it, same group", 6, Role::Orphan { group: 0 }),
            ("a static pod, owned by its Node", 7, Role::Own),
            ("the Deployment given again", 8, Role::Duplicate { first: 0 }),
        ];
        for (name, i, want) in rows {
            assert_eq!(o.role(i), &want, "{name}");
        }
        assert_eq!(o.groups.len(), 1);
        assert_eq!(
            (o.groups[0].kind, o.groups[0].name.as_str(), o.groups[0].pods.len()),
            (WorkloadKind::DaemonSet, "agent", 2)
        );
        assert_eq!(o.warnings.len(), 1, "{:?}", o.warnings);
        assert!(o.warnings[0].contains("given twice"), "{}", o.warnings[0]);
        assert_eq!(o.members(0).collect::<Vec<_>>(), vec![2]);
        assert_eq!(o.revisions(0).collect::<Vec<_>>(), vec![1]);
    }

    /// Removing pods keeps every other role, renumbered as `resolve` numbers the input
    /// without them; where more than indices would change, it says so.
    #[test]
    fn ownership_without_some_pods_is_the_ownership_of_the_rest() {
        let m = parse_manifests(SNAPSHOT, "").unwrap();
        let o = resolve(&m);
        // (name, pods removed, whether the remapped ownership can stand for a new resolve)
        let rows: [(&str, &[usize], bool); 5] = [
            ("nothing", &[], true),
            ("a Deployment's pod", &[2], true),
            ("a pod whose ReplicaSet is missing", &[3], true),
            ("one of an orphan group's two pods", &[5], true),
            ("every pod of an orphan group", &[5, 6], false),
        ];
        for (name, removed, stands) in rows {
            let got = o.without(removed);
            assert_eq!(got.is_some(), stands, "{name}");
            let mut rest = m.clone();
            let mut k = 0;
            rest.workloads.retain(|_| {
                k += 1;
                !removed.contains(&(k - 1))
            });
            if let Some(got) = got {
                assert_eq!(got, resolve(&rest), "{name}");
            }
        }
    }

    /// A uid that names another object wins over a matching name: the pod's ReplicaSet was
    /// deleted and a new one of the same name created.
    #[test]
    fn a_stale_uid_does_not_match_a_new_object_of_the_same_name() {
        let yaml = "
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs, uid: new}
spec: {replicas: 1, selector: {matchLabels: {app: rs}}, template: {metadata: {labels: {app: rs}}, spec: {containers: [{name: c, image: i}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: old, controller: true}]}
spec: {nodeName: n, containers: [{name: c, image: i}]}
";
        let o = resolve(&parse_manifests(yaml, "").unwrap());
        assert_eq!(o.role(1), &Role::Orphan { group: 0 });
    }
}
