//! What Spur's Slurm commands share, so that each of Slurm's conventions is
//! written once: the command families (`spur-cli-submit`, `spur-cli-query`,
//! `spur-cli-control`, and later `spur-cli-acct` for sacct and sstat) are
//! built on it, and the `spur` binary (`spur-cli`) dispatches to them.
//!
//! - [`opts`]: glibc's `getopt_long`, table-driven, with glibc's messages:
//!   every Slurm command reads its options with it.
//! - [`format`](mod@format): the one format engine (`-o` `%` fields, `-O` named fields,
//!   widths, justification, truncation) of squeue and sinfo (and sacct).
//! - [`data`]: the `--json`/`--yaml` documents' value tree, their
//!   serializers and the data_parser's common parts.
//! - [`show`]: `scontrol show`'s records from the values of Slurm's own
//!   (libslurm's `job_info_t`), for scontrol and libslurm's sprint functions.
//! - [`records`]: a job's and a reservation's fields as the commands print
//!   them (reason, node list, run time, dependency, TRES, exit code, output
//!   file names).
//! - [`Output`]: what a command prints and its exit status, the value every
//!   `parse` and `render` returns, so that tests see what a user sees.
//! - [`clusters`]: `-M/--clusters` without an accounting database.
//! - [`version`]: the version line.
//! - [`process`]: what a command does as a process around its pure parts
//!   (the environment, connecting through spur-client, writing the output).
//! - `fixtures` (feature `fixtures`, for the families' tests): the records
//!   of the recorded basic scenario.
//!
//! **Architecture invariant**: the CLI crates (this one, the families and
//! `spur-cli`) are the only code that knows Slurm's option grammar and
//! output layout; the controller receives typed values (spur-core's
//! requests). They reach the controller only through spur-client's API: no
//! CLI crate depends on tonic or spur-proto. Everything here but `process`
//! is pure: text and records in, text and typed values out.
//!
//! **Architecture invariant**: a family depends on this crate and never on
//! another family; what two families need moves here. This crate depends on
//! no family and on nothing of Spur but spur-core, spur-grammar and
//! spur-client (the C ABI library, `libspur_compat`, depends on none of
//! the CLI crates).

pub mod clusters;
pub mod data;
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod format;
pub mod opts;
pub mod output;
pub mod process;
pub mod records;
pub mod show;
pub mod version;

pub use output::Output;
