//! Submission: `sbatch` (its options, `#SBATCH` lines and `SBATCH_*`
//! variables read into a typed `JobDesc`, the script's checks, the
//! submission through spur-client, `--wait`).
//!
//! API: [`sbatch::run`] is the whole command as a process (what `spur`
//! calls); [`sbatch::parse`]/[`sbatch::parse_at`] are its pure core (the
//! environment, working directory, stdin and file reads passed in), and
//! [`sbatch::format_submit_response`] and [`sbatch::wait_exit_code_all`]
//! what it prints after the answer.
//!
//! Growth: salloc and srun read the same option table as sbatch (Slurm's
//! slurm_opt.c is one table with a column per command); when they come,
//! the job-description options move out of `sbatch.rs` into a module of
//! this crate that the three share, beside `srun.rs` and `salloc.rs`. What
//! a step launch needs below the command line (the allocation, the step,
//! the I/O and signal streams with the step daemons) belongs to
//! spur-client, which the C ABI library's `slurm_step_launch` uses too.
//!
//! **Architecture invariant**: depends on spur-cli-base and on no other
//! command family; talks to the controller only through spur-client.

pub mod alloc;
pub mod salloc;
pub mod sbatch;
pub mod srun;
pub mod wrapper;
