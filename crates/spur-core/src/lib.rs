//! Spur's model of a Slurm cluster and Slurm's grammars (times, sizes,
//! hostlists, slurm.conf). No network, no async: only reading files.
pub mod errors;
pub mod launch;
pub mod legacy_v0;
pub mod records;
pub mod model;
pub mod request;
pub mod hostlist;
pub mod time;
pub mod config;
pub mod gres;
pub mod size;
pub mod compat;
