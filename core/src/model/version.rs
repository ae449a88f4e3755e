//! Kubernetes versions and feature gates: which upstream wording and behaviour to reproduce.

use std::fmt;
use std::str::FromStr;

/// A `major.minor` Kubernetes release. The default is the newest release Placement models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct KubeVersion {
    pub major: u32,
    pub minor: u32,
}

impl KubeVersion {
    /// The newest release Placement accepts. Every behaviour docs/fidelity.md lists is the
    /// same in 1.36 as in 1.35 as far as upstream's sources could be read.
    pub const LATEST: KubeVersion = KubeVersion { major: 1, minor: 36 };
    /// The default: the newest release whose behaviour was verified from upstream's sources
    /// for every item of docs/fidelity.md and against a recorded kube-scheduler (1.35.4).
    pub const DEFAULT: KubeVersion = KubeVersion { major: 1, minor: 35 };
    /// The oldest release whose reason strings Placement knows.
    pub const OLDEST: KubeVersion = KubeVersion { major: 1, minor: 16 };

    pub const fn new(major: u32, minor: u32) -> Self {
        Self { major, minor }
    }

    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        *self >= KubeVersion::new(major, minor)
    }

    /// Whether NodeResourcesFit's score (LeastAllocated) counts the incoming pod's pod-level
    /// requests. No modelled release does: `NewFit` builds its `resourceAllocationScorer`
    /// without `enablePodLevelResources`, so `calculatePodResourceRequest` skips them, while
    /// Filter, BalancedAllocation and node accounting read them (docs/fidelity.md, item 5;
    /// the fix, kubernetes#141387, is not in a release).
    pub fn fit_score_reads_pod_level_requests(&self) -> bool {
        false
    }
}

/// A `--kube-version`, `kubeVersion` or feature gate that Placement does not model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error("invalid kube version {given:?}: expected MAJOR.MINOR such as 1.35")]
    Invalid { given: String },
    #[error("kube version {given:?} is older than the oldest modelled release {}", KubeVersion::OLDEST)]
    TooOld { given: String },
    #[error("kube version {given:?} is newer than the newest modelled release {}", KubeVersion::LATEST)]
    TooNew { given: String },
    #[error("unknown feature gate {name:?}")]
    UnknownGate { name: String },
}

/// `major.minor.patch` of a version string (`v1.33.2`, `v1.30.4+k3s1`, `v1.29.8-eks-a737599`,
/// `1.35`), whatever the release; the patch is 0 when absent, and what follows its digits
/// (a distribution's build suffix) is ignored.
fn version_numbers(s: &str) -> Option<(u32, u32, u32)> {
    let mut parts = s.trim().trim_start_matches('v').splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = match parts.next() {
        None => 0,
        Some(rest) => {
            let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            rest[..digits].parse().ok()?
        }
    };
    Some((major, minor, patch))
}

impl FromStr for KubeVersion {
    type Err = VersionError;

    /// Accepts `1.30`, `v1.30` and `1.30.4` (the patch is ignored).
    fn from_str(s: &str) -> Result<Self, VersionError> {
        let trimmed = s.trim().trim_start_matches('v');
        let mut parts = trimmed.split('.');
        let parse = |p: Option<&str>| p.and_then(|x| x.parse::<u32>().ok());
        match (parse(parts.next()), parse(parts.next())) {
            (Some(1), Some(minor)) => {
                let v = KubeVersion::new(1, minor);
                if v < Self::OLDEST {
                    Err(VersionError::TooOld { given: s.to_string() })
                } else if v > Self::LATEST {
                    Err(VersionError::TooNew { given: s.to_string() })
                } else {
                    Ok(v)
                }
            }
            _ => Err(VersionError::Invalid { given: s.to_string() }),
        }
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// The release a simulation models, and where it comes from.
///
/// ```
/// use placement_core::model::version::{KubeVersion, Release, ReleaseSource};
///
/// // No release given: the newest kubelet of the input's Nodes.
/// let r = Release::choose(None, ["v1.33.2", "v1.34.1-eks-1a2b3c", "v1.33.5"]);
/// assert_eq!(r.version, KubeVersion::new(1, 34));
/// assert_eq!(r.source, ReleaseSource::Nodes { kubelet_version: "v1.34.1-eks-1a2b3c".into() });
/// // A given release always wins; without either, the default.
/// assert_eq!(Release::choose(Some(KubeVersion::new(1, 30)), ["v1.34.1"]).version, KubeVersion::new(1, 30));
/// assert_eq!(Release::choose(None, Vec::<&str>::new()), Release::default());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Release {
    pub version: KubeVersion,
    pub source: ReleaseSource,
}

/// Where [`Release::version`] comes from.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "from")]
pub enum ReleaseSource {
    /// Given: `--kube-version`, the playground's release, the policy's `kubeVersion`.
    Given,
    /// Not given: the newest `status.nodeInfo.kubeletVersion` of the input's Nodes (this
    /// one), brought within the modelled releases.
    #[serde(rename_all = "camelCase")]
    Nodes { kubelet_version: String },
    /// Neither given nor shown by the Nodes: [`KubeVersion::DEFAULT`].
    #[default]
    Default,
}

impl Release {
    /// `given` if there is one; else the newest of the Nodes' `kubeletVersion`s (those that
    /// read as versions), or the nearest modelled release when it is outside them; else the
    /// default. The kubelets are the best the input says of the cluster's release: a
    /// kubelet is never newer than its control plane, and at most three minors older
    /// (upstream's version skew policy), so the control plane is at least this release.
    pub fn choose<'a>(given: Option<KubeVersion>, kubelet_versions: impl IntoIterator<Item = &'a str>) -> Release {
        if let Some(version) = given {
            return Release { version, source: ReleaseSource::Given };
        }
        let newest = kubelet_versions
            .into_iter()
            .filter_map(|v| version_numbers(v).filter(|(major, _, _)| *major == 1).map(|n| (n, v)))
            .max_by_key(|(n, _)| *n);
        match newest {
            Some(((major, minor, _), text)) => Release {
                version: KubeVersion::new(major, minor).clamp(KubeVersion::OLDEST, KubeVersion::LATEST),
                source: ReleaseSource::Nodes { kubelet_version: text.trim().to_string() },
            },
            None => Release::default(),
        }
    }

    /// The report's sentence on a release read from the Nodes (none when it was given or
    /// is the default): which kubelet it comes from, and when that one is outside the
    /// modelled releases, that it is.
    pub fn note(&self) -> Option<String> {
        let ReleaseSource::Nodes { kubelet_version } = &self.source else { return None };
        let shown = version_numbers(kubelet_version).map(|(major, minor, _)| KubeVersion::new(major, minor));
        let outside = match shown {
            Some(v) if v > KubeVersion::LATEST => {
                format!(", newer than the newest modelled release {}", KubeVersion::LATEST)
            }
            Some(v) if v < KubeVersion::OLDEST => {
                format!(", older than the oldest modelled release {}", KubeVersion::OLDEST)
            }
            _ => "; the control plane may be up to three minors newer".to_string(),
        };
        Some(format!(
            "Kubernetes {}: the newest kubelet among the input's nodes is {kubelet_version}{outside} \
             (--kube-version sets the release)",
            self.version
        ))
    }
}

/// The feature gates that change placement, at their defaults for a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureGates {
    /// KEP-5471, alpha in 1.35: numeric `Lt`/`Gt` tolerations. Off by default.
    pub taint_toleration_comparison_operators: bool,
    /// KEP-2837: pod-level `spec.resources`; beta (on) from 1.34.
    pub pod_level_resources: bool,
    /// KEP-753: restartable init containers; on from 1.29.
    pub sidecar_containers: bool,
    /// DRA-backed extended resources; alpha, off.
    pub dra_extended_resource: bool,
    /// KEP-4381, GA and on by default from 1.34: the DynamicResources plugin is in the
    /// default profile, just before DefaultPreemption. For a pod without resource claims it
    /// changes only the FailedScheduling message (its PostFilter text).
    pub dynamic_resource_allocation: bool,
    /// KEP-3751, GA and on from 1.34 (beta, off, in 1.31-1.33): VolumeBinding matches a claim
    /// only to PVs of the same `volumeAttributesClassName` (`FindMatchingVolume`'s `vacEnabled`).
    pub volume_attributes_class: bool,
    /// KEP-5328, alpha (off) in 1.35, beta and on from 1.36 (CHANGELOG-1.36, #136042): the
    /// NodeDeclaredFeatures plugin, appended to the default profile, filters out nodes that
    /// do not declare what the pod needs.
    pub node_declared_features: bool,
}

impl FeatureGates {
    pub fn for_version(v: KubeVersion) -> Self {
        Self {
            taint_toleration_comparison_operators: false,
            pod_level_resources: v.at_least(1, 34),
            sidecar_containers: v.at_least(1, 29),
            dra_extended_resource: false,
            dynamic_resource_allocation: v.at_least(1, 34),
            volume_attributes_class: v.at_least(1, 34),
            node_declared_features: v.at_least(1, 36),
        }
    }

    /// Sets a gate by its upstream name; unknown names are an error.
    pub fn set(&mut self, name: &str, value: bool) -> Result<(), VersionError> {
        match name {
            "TaintTolerationComparisonOperators" => self.taint_toleration_comparison_operators = value,
            "PodLevelResources" => self.pod_level_resources = value,
            "SidecarContainers" => self.sidecar_containers = value,
            "DRAExtendedResource" => self.dra_extended_resource = value,
            "DynamicResourceAllocation" => self.dynamic_resource_allocation = value,
            "VolumeAttributesClass" => self.volume_attributes_class = value,
            "NodeDeclaredFeatures" => self.node_declared_features = value,
            other => return Err(VersionError::UnknownGate { name: other.to_string() }),
        }
        Ok(())
    }
}

impl Default for FeatureGates {
    fn default() -> Self {
        Self::for_version(KubeVersion::DEFAULT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_versions() {
        assert_eq!("1.30".parse::<KubeVersion>().unwrap(), KubeVersion::new(1, 30));
        assert_eq!("v1.34.3".parse::<KubeVersion>().unwrap(), KubeVersion::new(1, 34));
        let err = |s: &str| s.parse::<KubeVersion>().unwrap_err();
        assert_eq!(err("2.0").to_string(), "invalid kube version \"2.0\": expected MAJOR.MINOR such as 1.35");
        assert!(matches!(err("1.x"), VersionError::Invalid { .. }));
        assert_eq!(err("1.10").to_string(), "kube version \"1.10\" is older than the oldest modelled release 1.16");
        assert_eq!(err("1.37").to_string(), "kube version \"1.37\" is newer than the newest modelled release 1.36");
        assert_eq!(FeatureGates::default().set("Nope", true).unwrap_err().to_string(), "unknown feature gate \"Nope\"");
        assert_eq!(KubeVersion::default(), KubeVersion::new(1, 35));
    }

    /// (name, given, the Nodes' kubelet versions, want release, want note)
    type ReleaseCase<'a> = (&'a str, Option<KubeVersion>, &'a [&'a str], Release, Option<&'a str>);

    #[test]
    fn the_release_comes_from_the_flag_then_the_nodes_then_the_default() {
        let nodes = |v: &str| ReleaseSource::Nodes { kubelet_version: v.into() };
        let cases: &[ReleaseCase] = &[
            ("nothing given, no kubelets", None, &[], Release::default(), None),
            (
                "the newest minor, then patch, wins",
                None,
                &["v1.33.9", "v1.34.1", "v1.34.10", "v1.34.2"],
                Release { version: KubeVersion::new(1, 34), source: nodes("v1.34.10") },
                Some("Kubernetes 1.34: the newest kubelet among the input's nodes is v1.34.10; the control plane may be up to three minors newer (--kube-version sets the release)"),
            ),
            (
                "distributions' suffixes",
                None,
                &["v1.30.4+k3s1", "v1.29.8-eks-a737599"],
                Release { version: KubeVersion::new(1, 30), source: nodes("v1.30.4+k3s1") },
                Some("Kubernetes 1.30: the newest kubelet among the input's nodes is v1.30.4+k3s1; the control plane may be up to three minors newer (--kube-version sets the release)"),
            ),
            (
                "newer than modelled: the newest modelled release, said",
                None,
                &["v1.35.4", "v1.37.1"],
                Release { version: KubeVersion::LATEST, source: nodes("v1.37.1") },
                Some("Kubernetes 1.36: the newest kubelet among the input's nodes is v1.37.1, newer than the newest modelled release 1.36 (--kube-version sets the release)"),
            ),
            (
                "older than modelled",
                None,
                &["v1.14.3"],
                Release { version: KubeVersion::OLDEST, source: nodes("v1.14.3") },
                Some("Kubernetes 1.16: the newest kubelet among the input's nodes is v1.14.3, older than the oldest modelled release 1.16 (--kube-version sets the release)"),
            ),
            ("what does not read as a version is passed over", None, &["", "banana", "v2.0.0"], Release::default(), None),
            (
                "given wins",
                Some(KubeVersion::new(1, 31)),
                &["v1.35.0"],
                Release { version: KubeVersion::new(1, 31), source: ReleaseSource::Given },
                None,
            ),
        ];
        for (name, given, kubelets, want, note) in cases {
            let got = Release::choose(*given, kubelets.iter().copied());
            assert_eq!(&got, want, "{name}");
            assert_eq!(got.note().as_deref(), *note, "{name}");
        }
    }
}
