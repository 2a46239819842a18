//! Make one of the calls only Spur's daemons may make, with the credential
//! of whoever runs this program: the end-to-end tests (tests/authz.rs) run
//! it as the unprivileged test user, whose credential comes from the
//! cluster's signing service as any command's does. `SLURM_CONF` names the
//! cluster.
//!
//! ```text
//! spur-daemon-rpc register NODE OS         the controller: an agent's registration
//! spur-daemon-rpc complete JOBID NODE      the controller: an agent's report that a job ended
//! spur-daemon-rpc signal NODE JOBID SIG    the node's agent: signal a job's processes
//! spur-daemon-rpc launch NODE              the node's agent: start a (here empty) batch job
//! spur-daemon-rpc vote                     the controller's Raft service: ask for a vote
//! ```
//!
//! Prints `ok`, `status CODE: TEXT` (an answer refusing in-band) or
//! `refused CODE: MESSAGE` (a gRPC error), and exits 0, 2 or 1.

use spur_core::request::{JobCompletion, NodeRegistration};
use std::process::ExitCode;

fn usage() -> ExitCode {
    eprintln!(
        "usage: spur-daemon-rpc register NODE OS | complete JOBID NODE | signal NODE JOBID SIG | launch NODE | vote"
    );
    ExitCode::from(64)
}

/// A channel to `addr` (`host:port`) signing every call with this process's
/// credential, as spur-client's do (the key if it can read it, else the
/// signing service: a user credential).
async fn channel(
    conf: &spur_core::config::SlurmConf,
    path: &std::path::Path,
    addr: &str,
) -> spur_auth::grpc::Signed<tonic::transport::Channel> {
    let signer = spur_auth::grpc::Signer::Process {
        key_file: spur_auth::key_path(path),
        socket: spur_auth::socket_path(conf.get("AuthType"), conf.auth_info.as_deref()),
        munge: spur_auth::munge_socket(conf.get("AuthType"), conf.auth_info.as_deref()),
    };
    let ch = tonic::transport::Channel::from_shared(format!("http://{}", addr))
        .expect("an address")
        .connect()
        .await
        .expect("the daemon");
    spur_auth::grpc::Signed::new(ch, signer, addr, false)
}

fn report<T>(
    res: Result<tonic::Response<T>, tonic::Status>,
    status: impl Fn(&T) -> Option<spur_proto::Status>,
) -> ExitCode {
    match res {
        Ok(r) => match status(r.get_ref()).filter(|s| s.code != 0) {
            None => {
                println!("ok");
                ExitCode::SUCCESS
            }
            Some(s) => {
                println!("status {}: {}", s.code, s.message);
                ExitCode::from(2)
            }
        },
        Err(st) => {
            println!("refused {:?}: {}", st.code(), st.message());
            ExitCode::from(1)
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = spur_client::conf_path();
    let client = match spur_client::Client::from_conf_path(&path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("spur-daemon-rpc: {}", e);
            return ExitCode::from(70);
        }
    };
    let conf = client.conf().clone();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let num = |i: usize| arg(i).parse::<u32>().unwrap_or(0);
    let agent = |node: &str| {
        let n = conf.node(node).unwrap_or_else(|| panic!("no node {}", node));
        format!("{}:{}", n.addr, n.port.unwrap_or(conf.slurmd_port))
    };
    match args.first().map(|s| s.as_str()) {
        Some("register") => {
            let reg = NodeRegistration { node: arg(1), os: arg(2), cpus: 1, heartbeat: false, ..Default::default() };
            match client.register(&reg).await {
                Ok(_) => {
                    println!("ok");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    println!("refused {}: {}", e.code(), e);
                    ExitCode::from(1)
                }
            }
        }
        Some("complete") => {
            let done = JobCompletion { job_id: num(1), node: arg(2), exit_status: 0, ..Default::default() };
            match client.job_complete(&done).await {
                Ok(()) => {
                    println!("ok");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    println!("refused {}: {}", e.code(), e);
                    ExitCode::from(1)
                }
            }
        }
        Some("signal") => {
            let mut c = spur_proto::agent_client::AgentClient::new(channel(&conf, &path, &agent(&arg(1))).await);
            let sig = spur_proto::SignalRequest { job_id: num(2), signal: num(3) as i32, ..Default::default() };
            report(c.signal(sig).await, |r| r.status.clone())
        }
        Some("launch") => {
            let mut c = spur_proto::agent_client::AgentClient::new(channel(&conf, &path, &agent(&arg(1))).await);
            let launch = spur_proto::LaunchRequest { spec: vec![] };
            report(c.launch(launch).await, |r| r.status.clone())
        }
        Some("vote") => {
            let ctld = conf.controllers.first().expect("a controller");
            let addr = format!("{}:{}", ctld.addr, conf.slurmctld_port);
            let mut c = spur_proto::consensus_client::ConsensusClient::new(channel(&conf, &path, &addr).await);
            let vote = spur_proto::RaftMessage { data: vec![] };
            report(c.vote(vote).await, |_| None)
        }
        _ => usage(),
    }
}
