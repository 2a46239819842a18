//! What the controller sends an agent to start a batch job, and what the
//! step supervisor reads from its spool directory.

use crate::model::Job;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// The job record as committed when it started (allocs filled in).
    pub job: Job,
    /// The node this launch is for (the batch host).
    pub node_name: String,
    pub cluster_name: String,
    /// Controller host names, for SLURM_WORKING_CLUSTER etc.
    pub ctld_host: String,
    pub ctld_port: u16,
    /// Cluster-wide KillWait (seconds) for time-limit and cancel kills.
    pub kill_wait: u32,
    /// Supplementary groups of the owner, resolved on the controller side
    /// when the job was submitted are not trusted: the agent resolves them.
    pub submit_host: String,
    /// `SLURM_WORKING_CLUSTER` as Slurm 22.05's sbatch sets it
    /// (`cluster:address:port:protocol:select plugin id`); empty unless the
    /// controller imitates 22.05 (spur_core::compat).
    #[serde(default)]
    pub working_cluster: String,
}
