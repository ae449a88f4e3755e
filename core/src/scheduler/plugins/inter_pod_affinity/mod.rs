//! InterPodAffinity: required pod (anti-)affinity filter and preferred pod (anti-)affinity score.
//!
//! Mirrors `pkg/scheduler/framework/plugins/interpodaffinity/{filtering.go,scoring.go}` and the
//! `AffinityTerm` parsing of `pkg/scheduler/framework/types.go` (`NewPodInfo`,
//! `newAffinityTerm`, `AffinityTerm.Matches`), with the default `InterPodAffinityArgs`
//! (`hardPodAffinityWeight: 1`, `ignorePreferredTermsOfExistingPods: false`).
//!
//! Namespaces of a term: the `namespaces` list, plus whatever `namespaceSelector` selects; a
//! term with neither means the namespace of the pod that carries it. Placement has no
//! Namespace objects, so namespace labels are unknown. What it can still decide exactly:
//! - an empty `namespaceSelector: {}` selects every namespace;
//! - a selector that only constrains `kubernetes.io/metadata.name` (the label the API server
//!   puts on every namespace, value = its name) is evaluated against that label;
//! - any other non-empty selector selects no namespace, as if no namespace carried the labels.
//!
//! `matchLabelKeys` / `mismatchLabelKeys` are merged into the term's label selector as the API
//! server does at pod creation (`applyMatchLabelKeysAndMismatchLabelKeys`): `key In (value)` /
//! `key NotIn (value)` with the value from the labels of the pod that carries the term, for
//! keys that pod has, and only when the term has a label selector. A manifest taken from a live
//! cluster already has them merged; merging again adds the same requirement twice, harmlessly.

use std::collections::{BTreeMap, BTreeSet};

use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{Operator, Selector};
use crate::model::{
    LabelSelector, LabelSelectorRequirement, Labels, Pod, PodAffinity, PodAffinityTerm, WeightedPodAffinityTerm,
};
use crate::scheduler::framework::{Code, NodeInfo, PlacedPod, SchedulerConfig, Status};

pub const NAME: &str = "InterPodAffinity";

/// `ErrReasonExistingAntiAffinityRulesNotMatch`.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// `ErrReasonAffinityRulesNotMatch`.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// `ErrReasonAntiAffinityRulesNotMatch`.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod anti-affinity rules";

/// `InterPodAffinityArgs.hardPodAffinityWeight` default: the score weight of an existing pod's
/// *required* affinity term that the incoming pod matches.
pub const HARD_POD_AFFINITY_WEIGHT: i64 = 1;

/// `v1.LabelMetadataName`, set by the API server on every namespace.
pub const LABEL_METADATA_NAME: &str = "kubernetes.io/metadata.name";

mod common;
mod filtering;
mod scoring;

pub(crate) use common::describe_selector;
use common::*;
pub use filtering::{filter, pre_filter, PreFilterState};
pub use scoring::{normalize_score, raw_scores, score};

#[cfg(test)]
mod tests;
