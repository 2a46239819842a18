//! spurstepd: the step daemon, Spur's slurmstepd. The agent (spurd) starts
//! one per job step on its node, as a process of its own (`spurstepd
//! JOBDIR`), so that the step outlives an agent restart; the job's spool
//! directory (crates/spur-spool) is the whole contract between the two.
//!
//! Today the one step is the batch script (`supervisor.rs`): it runs the
//! script as its owner with Slurm's batch environment (`jobenv.rs`) and
//! output files (`iopattern.rs`), delivers signals to the whole process
//! tree, writes the exit status and tells the agent. An srun step's part on
//! a node is `spurstepd --step STEPDIR NODE` (`step.rs`): its tasks, their
//! I/O and signals over one connection to srun, their exits and usage.

#[cfg(test)]
mod alloc_guard;
mod exec;
mod fence;
mod iopattern;
mod jobenv;
mod pmi;
mod pmix;
mod step;
mod supervisor;
mod taskscript;
mod track;

use std::path::PathBuf;

const USAGE: &str = "Usage: spurstepd JOBDIR\n       spurstepd --step STEPDIR NODE";

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    match argv.get(1).map(|s| s.as_str()) {
        Some("-V") | Some("--version") => print!("{}", spur_core::compat::spur_version_line()),
        Some("--step") if argv.len() == 4 => {
            std::process::exit(step::run(&PathBuf::from(&argv[2]), &argv[3]));
        }
        Some(dir) if argv.len() == 2 && !dir.starts_with('-') => {
            std::process::exit(supervisor::run(&PathBuf::from(dir)));
        }
        _ => {
            eprintln!("{}", USAGE);
            std::process::exit(2);
        }
    }
}
