//! Every Slurm grammar once: hostlists, times, sizes, GRES, C numbers, job
//! array specifications, signals, dependencies, job references.
//!
//! This is the lowest crate of Spur: it depends on nothing of Spur, does no
//! I/O (the one exception: `time` asks the C library for the local time
//! zone), starts no process and has no async. Each parser returns a typed
//! value or a typed error and never panics, whatever its input; each has a
//! table of accepted and refused inputs taken from real Slurm under
//! `tests/data/` and a garbage-input test.
pub mod array;
pub mod dependency;
pub mod gres;
pub mod hostlist;
pub mod jobref;
pub mod num;
pub mod signal;
pub mod size;
pub mod time;
