//! What-if: the commands a user is about to run against a cluster, applied to an offline
//! snapshot of it.
//!
//! `placement simulate -f snapshot.yaml --what-if 'kubectl drain node-1 --ignore-daemonsets'`
//! reads each command ([`command`]), picks and edits the nodes as kubectl and the API server
//! would ([`nodes`]), and tells which pods a drain evicts, skips or refuses ([`drain`]), in
//! kubectl's words. The simulation around them re-schedules what moves.

pub mod command;
pub mod drain;
pub mod nodes;
pub mod run;

pub use command::{DrainOptions, LabelChange, NodeSelection, TaintChange, WhatIf, WhatIfParseError};
pub use drain::{DrainPlan, DrainVerdict};
pub use nodes::{NodeEdit, NodeOperation, WhatIfError};
pub use run::{run_what_if, simulate_what_if, WhatIfFailure, WhatIfRun};
