//! `spur`: one multi-call binary. Called as `sbatch`, `squeue`, `sinfo`,
//! `scancel` or `scontrol` (links to it), it is that Slurm command; called as
//! `spur CMD ...` it is the same, plus Spur's own verbs (`spur cluster ...`).
//!
//! **Architecture invariant**: only this crate knows Slurm's option grammar
//! and output layout. Each command is a parse step and a render step that are
//! pure functions (`Output` values), with the controller call in between.

mod cluster;
mod common;
mod controllers;
mod data;
#[cfg(test)]
mod fixtures;
mod format;
mod json;
mod opts;
mod ping;
mod process;
mod records;
mod resv;
mod sbatch;
mod scancel;
mod scontrol;
mod sinfo;
mod squeue;
mod version;

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    let prog = argv
        .first()
        .map(|a| a.rsplit('/').next().unwrap_or(a).to_string())
        .unwrap_or_else(|| "spur".into());
    let (cmd, args): (String, Vec<String>) = if prog == "spur" {
        match argv.get(1) {
            Some(c) => (c.clone(), argv[2..].to_vec()),
            None => {
                eprintln!("Usage: spur {{sbatch|squeue|sinfo|scancel|scontrol|cluster}} ...");
                std::process::exit(1);
            }
        }
    } else {
        (prog.clone(), argv[1..].to_vec())
    };
    let code = match cmd.as_str() {
        "sbatch" => sbatch::run(&args, &process::env_map()),
        "squeue" => squeue::run(&args, &process::env_map()),
        "sinfo" => sinfo::run(&args, &process::env_map()),
        "scancel" => scancel::run(&args, &process::env_map()),
        "scontrol" => scontrol::run(&args, &process::env_map()),
        "cluster" => cluster::main(&args),
        "controller" => controllers::main(&args),
        "--version" | "-V" | "version" => {
            println!("spur {}", env!("CARGO_PKG_VERSION"));
            0
        }
        other => {
            eprintln!("spur: unknown command '{}'", other);
            1
        }
    };
    std::process::exit(code);
}
