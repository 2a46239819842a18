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
mod format;
mod json;
mod opts;
mod resv;
mod sbatch;
mod scancel;
mod scontrol;
mod sinfo;
mod squeue;

use common::Output;

/// What every command prints for `-V`/`--version` (and `scontrol version`):
/// Debian's build of Slurm 24.11.5 names its package `slurm-wlm`.
pub const SLURM_VERSION_LINE: &str = "slurm-wlm 24.11.5\n";

/// The version line of the release Spur imitates (spur_core::compat).
pub fn version_line() -> String {
    match spur_core::compat::release() {
        spur_core::compat::Release::V24_11 => SLURM_VERSION_LINE.to_string(),
        r => format!("slurm-wlm {}\n", r.version()),
    }
}
use spur_client::{Client, ClientError};
use spur_core::request::{CancelRequest, JobResult, Query as QueryRequest};
use std::collections::HashMap;
use std::io::{Read, Write};

fn emit(o: &Output) -> i32 {
    let _ = std::io::stdout().write_all(o.stdout.as_bytes());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().write_all(o.stderr.as_bytes());
    o.code
}

fn env_map() -> HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime")
}

fn caller() -> (u32, String) {
    let uid = nix::unistd::getuid().as_raw();
    (uid, spur_client::users::user_name(uid).unwrap_or_else(|| uid.to_string()))
}

/// Connect, or print Slurm's message for a missing/broken slurm.conf.
fn client(prog: &str) -> Result<Client, Output> {
    Client::from_env().map_err(|e| match e {
        ClientError::Config(e) => Output::err(e.report(prog), 1),
        other => Output::err(format!("{}: error: {}\n", prog, other), 1),
    })
}

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
        "sbatch" => run_sbatch(&args),
        "squeue" => run_squeue(&args),
        "sinfo" => run_sinfo(&args),
        "scancel" => run_scancel(&args),
        "scontrol" => run_scontrol(&args),
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

fn run_sbatch(args: &[String]) -> i32 {
    let env = env_map();
    let cwd = std::env::current_dir().map(|p| p.to_string_lossy().to_string()).unwrap_or_else(|_| "/".into());
    // stdin is read only when no script file is named (sbatch reads it then).
    let stdin_reader = || {
        let mut s = String::new();
        if !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            let _ = std::io::stdin().read_to_string(&mut s);
        }
        s
    };
    let read_file = |p: &str| std::fs::read_to_string(p);
    let needs_stdin = sbatch_needs_stdin(args);
    let stdin_script = if needs_stdin { Some(stdin_reader()) } else { None };
    let mut req = match sbatch::parse(args, &env, &cwd, stdin_script, &read_file) {
        Ok(r) => r,
        Err(o) => return emit(&o),
    };
    if !req.stderr.is_empty() {
        eprint!("{}", req.stderr);
    }
    // a retried submission carries the same id, so it is queued once
    req.desc.request_id = match spur_auth::random_hex(12) {
        Ok(id) => Some(id),
        Err(e) => {
            eprintln!("sbatch: error: {}", e);
            return 1;
        }
    };
    let c = match client("sbatch") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    // like sbatch (slurm_opt.c), check the GRES names against this slurm.conf's
    // GresTypes unless --clusters sends the job elsewhere: no job id is used
    // (recorded/24.11/job_ids/22)
    if req.clusters.is_none() {
        if let Err(e) = sbatch::check_gres(&req.desc, &c.conf().gres_types) {
            eprintln!("sbatch: error: {}", e);
            return 1;
        }
    }
    let rt = runtime();
    let res = rt.block_on(c.submit(&req.desc, req.test_only));
    if let Err(ClientError::Rejected { user_msg, .. }) = &res {
        for line in user_msg.lines().filter(|l| !l.is_empty()) {
            eprintln!("sbatch: error: {}", line);
        }
    }
    match res {
        Ok(r) => {
            if req.test_only {
                let when = spur_grammar::time::fmt_timestamp(r.start_time);
                eprintln!(
                    "sbatch: Job {} to start at {} using {} processors on nodes {} in partition {}",
                    r.job_id,
                    when,
                    if r.cpus > 0 { r.cpus } else { req.desc.num_tasks.unwrap_or(1) },
                    r.nodes,
                    r.partition
                );
                return 0;
            }
            print!("{}", sbatch::format_submit_response(&req, r.job_id, &c.conf().cluster_name));
            let _ = std::io::stdout().flush();
            if req.wait {
                return rt.block_on(wait_for_job(&c, r.job_id));
            }
            0
        }
        // sbatch's will-run test reports a refusal with perror's layout
        // (recorded/24.11/sbatch_options/141)
        Err(e) if req.test_only => {
            eprintln!("allocation failure: {}", e);
            1
        }
        Err(e) => {
            eprintln!("sbatch: error: Batch job submission failed: {}", e);
            1
        }
    }
}

/// Whether sbatch will read its script from stdin: no script operand, no
/// `--wrap`, and nothing (help, version, a bad option) that ends sbatch
/// first. Uses sbatch's own option table, so it agrees with `sbatch::parse`.
fn sbatch_needs_stdin(args: &[String]) -> bool {
    let local: Vec<String> = args.iter().filter(|a| *a != ":").cloned().collect();
    let p = opts::parse("sbatch", sbatch::SPECS, &local, opts::Mode::StopAtFirstOperand);
    if p.error.is_some() {
        return false;
    }
    if p.opts.iter().any(|(id, _)| matches!(*id, "wrap" | "help" | "usage" | "version")) {
        return false;
    }
    p.operands.is_empty()
}

async fn wait_for_job(c: &Client, id: u32) -> i32 {
    let mut delay = 2u64;
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(delay.min(10)).min(std::time::Duration::from_millis(500 * delay))).await;
        delay = (delay + 1).min(10);
        let q = QueryRequest { jobs: true, job_ids: vec![id.to_string()], ..Default::default() };
        match c.query(&q).await {
            Ok(v) => {
                let recs: Vec<(spur_core::model::JobState, i32)> = v
                    .jobs
                    .iter()
                    .filter(|j| j.job_id == id || j.array.as_ref().map(|a| a.array_job_id == id).unwrap_or(false))
                    .map(|j| (j.state, j.exit_status))
                    .collect();
                if recs.is_empty() {
                    return 0;
                }
                if let Some(code) = sbatch::wait_exit_code_all(&recs) {
                    return code;
                }
            }
            Err(_) => continue,
        }
    }
}

fn load_error(prog_prefix: &str, e: &ClientError) -> Output {
    Output::err(format!("{}: {}\n", prog_prefix, e), 1)
}

fn run_squeue(args: &[String]) -> i32 {
    let env = env_map();
    let opts = match squeue::parse(args, &env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("squeue") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    let finished = opts.all_states || opts.states.as_ref().map(|v| v.iter().any(|s| s.is_finished())).unwrap_or(false);
    // -w needs the node table to map names (squeue loads it too)
    // squeue loads whole jobs (`123` for `123_7`) and picks the tasks itself
    let job_ids: Vec<String> = opts.job_list.iter().map(|(id, _)| id.to_string()).collect();
    let mime = json::mime(args);
    if let Some(m) = &mime {
        if let Err(o) = json::check_version("squeue", m) {
            return emit(&o);
        }
    }
    // 22.05 loads every job for --json/--yaml (it applies no filter)
    let dump_all = mime.is_some() && spur_core::compat::profile().json_v0_0_38;
    let job_ids = if dump_all { Vec::new() } else { job_ids };
    let finished = finished || dump_all;
    let q = QueryRequest { jobs: true, partitions: true, nodes: opts.nodes.is_some() || mime.is_some(), job_ids, all_finished: finished, ..Default::default() };
    match rt.block_on(c.query(&q)) {
        Ok(view) => {
            let (uid, name) = caller();
            if let Some(m) = &mime {
                return emit(&json::squeue(&opts, m, args, &view, uid));
            }
            emit(&squeue::render(&opts, &view, uid, &name))
        }
        Err(e) => emit(&load_error("slurm_load_jobs error", &e)),
    }
}

fn run_sinfo(args: &[String]) -> i32 {
    let env = env_map();
    let opts = match sinfo::parse(args, &env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("sinfo") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    let mime = json::mime(args);
    if let Some(m) = &mime {
        if let Err(o) = json::check_version("sinfo", m) {
            return emit(&o);
        }
    }
    let q = QueryRequest { jobs: false, partitions: true, nodes: true, ..Default::default() };
    match rt.block_on(c.query(&q)) {
        Ok(view) if mime.is_some() => emit(&json::sinfo(mime.as_ref().unwrap(), args, &view)),
        Ok(view) => emit(&sinfo::render(&opts, &view)),
        Err(e) => emit(&load_error("slurm_load_partitions", &e)),
    }
}

fn run_scancel(args: &[String]) -> i32 {
    let env = env_map();
    let opts = match scancel::parse(args, &env) {
        Ok(o) => o,
        Err(o) => return emit(&o),
    };
    let c = match client("scancel") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    // Every path but the by-id one loads the jobs first and names the
    // requested ids that are not (or no longer) in the queue.
    let mut invalid = Vec::new();
    if !opts.by_id_only() && !opts.ids.is_empty() {
        let q = QueryRequest { jobs: true, job_ids: opts.ids_text.clone(), ..Default::default() };
        match rt.block_on(c.query(&q)) {
            Ok(view) => invalid = scancel::verify_ids(&opts, &view.jobs),
            Err(e) => return emit(&Output::err(format!("scancel: error: {}\n", e), 1)),
        }
        if invalid.len() == opts.ids.len() {
            // nothing left to signal (and no id must not mean "all jobs")
            return emit(&scancel::report(&opts, &invalid));
        }
    }
    let req = cancel_request(&opts);
    match rt.block_on(c.cancel(&req)) {
        Ok(r) => {
            let mut results = invalid.clone();
            results.extend(
                scancel::KillResults::job_results(&CancelResults(r))
                    .into_iter()
                    .filter(|k| !invalid.iter().any(|v| v.id == k.id)),
            );
            emit(&scancel::report(&opts, &results))
        }
        Err(e) => emit(&Output::err(format!("scancel: error: {}\n", e), 1)),
    }
}

/// The controller request for scancel's options.
fn cancel_request(o: &scancel::ScancelOpts) -> CancelRequest {
    let given = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
    CancelRequest {
        job_ids: o.ids_text.clone(),
        signal: o.signal.unwrap_or(0),
        batch: o.batch,
        full: o.full,
        user: given(&o.user),
        name: given(&o.name),
        partition: given(&o.partition),
        states: o.state.into_iter().collect(),
        nodelist: given(&o.nodelist),
        account: given(&o.account),
        interactive: o.interactive,
    }
}

struct CancelResults(Vec<JobResult>);

impl scancel::KillResults for CancelResults {
    fn job_results(&self) -> Vec<scancel::JobResult> {
        self.0
            .iter()
            .map(|r| scancel::JobResult { id: r.job_id.clone(), step: None, phase: scancel::Phase::Kill, code: r.code })
            .collect()
    }
}

fn run_scontrol(args: &[String]) -> i32 {
    let env = env_map();
    let cmd = match scontrol::parse(args, &env) {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    // Commands that need no controller.
    if let Some(o) = scontrol::run_local(&cmd) {
        return emit(&o);
    }
    let c = match client("scontrol") {
        Ok(c) => c,
        Err(o) => return emit(&o),
    };
    let rt = runtime();
    emit(&rt.block_on(scontrol::execute(&cmd, &c)))
}
