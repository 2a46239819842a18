//! Queries: `squeue` and `sinfo` (their options, filters, sorting, the
//! tables through spur-cli-base's format engine) and their `--json`/`--yaml`
//! documents (`json.rs`, printed by spur-cli-base's serializers).
//!
//! API: [`squeue::run`] and [`sinfo::run`] are the commands as processes
//! (what `spur` calls); `parse` (options and environment into
//! [`squeue::SqueueOpts`]/[`sinfo::SinfoOpts`]) and `render` (a
//! `ClusterView` into the `Output`) are pure, as are [`json::squeue`] and
//! [`json::sinfo`].
//!
//! **Architecture invariant**: depends on spur-cli-base and on no other
//! command family; reads the cluster only through spur-client's `query`
//! and never changes it.

pub mod json;
pub mod sinfo;
pub mod squeue;
