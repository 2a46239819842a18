//! What every command does as a process around its pure `parse` and
//! `render`: read the environment, connect through spur-client (Slurm's
//! message for a missing or broken slurm.conf), run the call, write the
//! output and return the exit status.

use crate::output::Output;
use spur_client::{Client, ClientError};
use std::collections::HashMap;
use std::io::Write;
/// Write a command's output and return its exit status.
pub fn emit(o: &Output) -> i32 {
    let _ = std::io::stdout().write_all(o.stdout.as_bytes());
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().write_all(o.stderr.as_bytes());
    o.code
}

/// The process environment (variables that are not UTF-8 are left out).
pub fn env_map() -> HashMap<String, String> {
    std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect()
}

/// The runtime a command's calls to the controller run on (one thread).
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio runtime")
}

/// Who runs the command: uid and user name (the uid when it has no name).
pub fn caller() -> (u32, String) {
    let uid = nix::unistd::getuid().as_raw();
    (uid, spur_client::users::user_name(uid).unwrap_or_else(|| uid.to_string()))
}

/// Connect, or print Slurm's message for a missing/broken slurm.conf.
pub fn client(prog: &str) -> Result<Client, Output> {
    Client::from_env().map_err(|e| match e {
        ClientError::Config(e) => Output::err(e.report(prog), 1),
        other => Output::err(format!("{}: error: {}\n", prog, other), 1),
    })
}

/// `PREFIX: error text`, exit 1: how a command reports a failed load.
pub fn load_error(prog_prefix: &str, e: &ClientError) -> Output {
    Output::err(format!("{}: {}\n", prog_prefix, e), 1)
}
