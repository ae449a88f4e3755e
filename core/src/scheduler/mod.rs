//! kube-scheduler's scheduling framework for one pod at a time.
//!
//! - [`profile`]: the default profile as data (Filter order, Score plugins and weights);
//! - [`framework`]: status codes, plugin statuses, `NodeInfo`, the profile's configuration;
//! - [`plugins`]: one module per plugin, upstream's reasons and codes;
//! - the cycle (this module's functions, in `cycle.rs`): PreFilter, Filter, PostFilter's text,
//!   Score, selection;
//! - [`fit_error`]: the `0/N nodes are available: ...` message;
//! - [`hostports`]: host port bookkeeping for NodePorts.

mod cycle;
pub mod fit_error;
pub mod framework;
pub mod hostports;
pub mod node_search;
pub mod plugins;
pub mod pod_index;
pub mod profile;
pub mod storage;

pub use cycle::*;
pub use node_search::NodeSearch;
