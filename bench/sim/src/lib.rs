//! spur-sim: replays a job trace against simulated nodes in virtual time
//! with spur-sched's real scheduling pass (no daemons), and reports how
//! well it scheduled, so that versions, and runs with and without
//! backfill, can be compared. See README.md.

pub mod cli;
pub mod gen;
pub mod report;
pub mod sim;
pub mod swf;
