//! `spur`: one multi-call binary. Called as `sbatch`, `squeue`, `sinfo`, `sprio`, `sacctmgr`,
//! `scancel` or `scontrol` (links to it), it is that Slurm command; called as
//! `spur CMD ...` it is the same, plus Spur's own verbs (`spur cluster ...`,
//! `spur controller ...`).
//!
//! The Slurm commands live in their families' crates (spur-cli-submit,
//! spur-cli-query, spur-cli-control, on spur-cli-base): this crate only
//! picks one by its name and calls its `run`. Each command is a parse step
//! and a render step that are pure functions (`Output` values), with the
//! controller call in between.
//!
//! **Architecture invariant**: no Slurm command's options or output here;
//! only the dispatch and Spur's own verbs.

mod cluster;
mod controllers;
mod docs;

use spur_cli_base::process;
use spur_cli_control::{scancel, scontrol};
use spur_cli_query::{sacct, sacctmgr, sinfo, sprio, squeue, sshare, sstat};
use spur_cli_submit::{salloc, sbatch, srun};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let prog = argv.first().map(|a| a.rsplit('/').next().unwrap_or(a).to_string()).unwrap_or_else(|| "spur".into());
    let (cmd, args): (String, Vec<String>) = if prog == "spur" {
        match argv.get(1) {
            Some(c) => (c.clone(), argv[2..].to_vec()),
            None => {
                eprintln!(
                    "Usage: spur {{sbatch|srun|salloc|squeue|sinfo|sacct|sacctmgr|sstat|sprio|sshare|scancel|scontrol|cluster}} ..."
                );
                std::process::exit(1);
            }
        }
    } else {
        (prog.clone(), argv[1..].to_vec())
    };
    let code = match cmd.as_str() {
        "sbatch" => sbatch::run(&args, &process::env_map()),
        "srun" => srun::run(&args, &process::env_map()),
        "salloc" => salloc::run(&args, &process::env_map()),
        "squeue" => squeue::run(&args, &process::env_map()),
        "sinfo" => sinfo::run(&args, &process::env_map()),
        "sacct" => sacct::run(&args, &process::env_map()),
        "sacctmgr" => sacctmgr::run(&args, &process::env_map()),
        "sstat" => sstat::run(&args, &process::env_map()),
        "sprio" => sprio::run(&args, &process::env_map()),
        "sshare" => sshare::run(&args, &process::env_map()),
        "scancel" => scancel::run(&args, &process::env_map()),
        "scontrol" => scontrol::run(&args, &process::env_map()),
        "cluster" => {
            // `spur cluster status | head -1`: end quietly on a closed pipe,
            // as a C program does, rather than panic in println!
            // SAFETY: restoring the default action of a signal before any
            // thread starts
            let _ = unsafe {
                nix::sys::signal::signal(nix::sys::signal::Signal::SIGPIPE, nix::sys::signal::SigHandler::SigDfl)
            };
            cluster::main(&args)
        }
        "controller" => {
            // SAFETY: as for `cluster`
            let _ = unsafe {
                nix::sys::signal::signal(nix::sys::signal::Signal::SIGPIPE, nix::sys::signal::SigHandler::SigDfl)
            };
            controllers::main(&args)
        }
        // CMD(1) and the bash completion, from the option tables (`make package`)
        "man" | "completion" => docs::main(&cmd, &args),
        "--version" | "-V" | "version" => {
            print!("{}", spur_core::compat::spur_version_line());
            0
        }
        other => {
            eprintln!("spur: unknown command '{}'", other);
            1
        }
    };
    std::process::exit(code);
}
