//! Control: `scontrol` (show, update, hold/release/requeue/suspend/resume/
//! top, hostlists, `write batch_script`, `ping`, reservations) and
//! `scancel`.
//!
//! API: [`scontrol::run`] and [`scancel::run`] are the commands as
//! processes (what `spur` calls). Below them, pure parts: [`scontrol::parse`]
//! reads scontrol's words into a [`scontrol::ScontrolCmd`], whose
//! `key=value` updates are already spur-core's typed requests;
//! [`scontrol::run_local`] answers what needs no controller;
//! [`scontrol::render_show`] prints records; [`scontrol::execute`] runs a
//! command through spur-client. [`scancel::parse`], [`scancel::verify_ids`]
//! and [`scancel::report`] are scancel's.
//!
//! **Architecture invariant**: depends on spur-cli-base and on no other
//! command family; Slurm's `key=value` grammar for updates and reservations
//! is read here and nowhere else (the controller validates typed values),
//! and the controller is reached only through spur-client.

mod listpids;
mod ping;
mod resv;
pub mod scancel;
pub mod scontrol;
mod steps;
