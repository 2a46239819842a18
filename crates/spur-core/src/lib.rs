//! Spur's model of a Slurm cluster, slurm.conf and gres.conf, Slurm's errors
//! and the release Spur imitates. Slurm's grammars (hostlists, times, sizes,
//! GRES, ...) are in `spur_grammar`. No network, no async: only reading files.
pub mod acct;
pub mod assoc;
pub mod assoc_limits;
pub mod compat;
pub mod config;
pub mod errors;
pub mod gres_conf;
pub mod launch;
pub mod legacy_v0;
pub mod model;
pub mod priority;
pub mod qos;
pub mod records;
pub mod request;
pub mod stepio;
pub mod topology;
pub mod usage;
