//! PodTopologySpread: `DoNotSchedule` constraints filter, `ScheduleAnyway` constraints score.
//!
//! Mirrors `pkg/scheduler/framework/plugins/podtopologyspread/{common.go,filtering.go,scoring.go}`
//! as of 1.35/1.36: counts are kept per constraint (two constraints on the same topology key
//! do not share counts), `minDomains`, `nodeAffinityPolicy`, `nodeTaintsPolicy` and
//! `matchLabelKeys` are honoured, and only pods in the incoming pod's namespace are counted.
//!
//! A pod without constraints of its own is scored by the default profile's system default
//! constraints (`defaultingType: System`: hostname `maxSkew: 3`, zone `maxSkew: 5`, both
//! `ScheduleAnyway`), counting the pods that [`default_selector`] selects: the selectors of the
//! Services that select the pod and of its controlling ReplicaSet, StatefulSet or
//! ReplicationController, from the [`Listers`] the simulation fills. Being `ScheduleAnyway`,
//! they never filter.
//!
//! Feature gates follow their default for the configured release: `matchLabelKeys` from 1.27,
//! node inclusion policies from 1.26 (before, only nodes matching the pod's node affinity and
//! nodeSelector count, and taints are ignored), `minDomains` from 1.27.

use std::collections::BTreeMap;

use serde::Serialize;

use super::inter_pod_affinity::describe_selector;
use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{LabelLookup, Operator, Requirement, Selector};
use crate::model::node_selector::RequiredNodeAffinity;
use crate::model::taints::{find_untolerated_taint, is_do_not_schedule};
use crate::model::{Labels, Pod};
use crate::scheduler::framework::{Code, NodeInfo, PlacedPod, SchedulerConfig, Status};

pub const NAME: &str = "PodTopologySpread";

/// `ErrReasonConstraintsNotMatch`.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str = "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

pub use crate::model::LABEL_HOSTNAME;

pub const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
pub const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";
const HONOR: &str = "Honor";

mod common;
mod filtering;
mod scoring;

use common::*;
pub use common::{
    default_selector, ControllerKey, ControllerSelector, Listers, LABEL_TOPOLOGY_ZONE, SYSTEM_DEFAULT_CONSTRAINTS,
};
pub use filtering::{filter, pre_filter, PreFilterState};
pub use scoring::{normalize_score, raw_scores, score, NodeFacts, ScoreCache};

#[cfg(test)]
mod tests;
