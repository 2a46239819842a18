//! Queries: `squeue` and `sinfo` (their options, filters, sorting, the
//! tables through spur-cli-base's format engine) and their `--json`/`--yaml`
//! documents (`json.rs`, printed by spur-cli-base's serializers); `sacct`
//! and `sstat`, the accounting records and the use of running steps, on
//! Slurm's `print_fields` engine (`acctprint.rs`, which the two share).
//!
//! API: [`squeue::run`] and [`sinfo::run`] are the commands as processes
//! (what `spur` calls); `parse` (options and environment into
//! [`squeue::SqueueOpts`]/[`sinfo::SinfoOpts`]) and `render` (a
//! `ClusterView` into the `Output`) are pure, as are [`json::squeue`] and
//! [`json::sinfo`].
//!
//! [`sacct::run`] and [`sstat::run`] likewise; `sacct::parse` (options,
//! environment, the caller's uid and the time into an `AcctQuery` and the
//! layout) and `sacct::render` (the records into the `Output`),
//! `sstat::parse` and `sstat::render` are pure.
//!
//! **Architecture invariant**: depends on spur-cli-base and on no other
//! command family; reads the cluster only through spur-client's `query`,
//! `accounting` and `step_stat`, and never changes it.

pub mod acctprint;
pub mod json;
pub mod sacct;
pub mod sacctmgr;
pub mod sacctmgr_assoc;
pub mod sinfo;
pub mod sprio;
pub mod squeue;
pub mod sshare;
pub mod sstat;
