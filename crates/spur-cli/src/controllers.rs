//! `scontrol ping` and `spur controller list|add|remove`: the controllers and
//! their Raft roles.
//!
//! `scontrol ping` prints Slurm's lines, one per SlurmctldHost in slurm.conf
//! order. Slurm names the roles by position (the first line is the primary);
//! with Raft the role moves, so Spur calls the current leader `primary` and
//! every other member `backup` (`backup1`, `backup2`, ... in slurm.conf order
//! when there are more than two), as Slurm names them when its primary is listed first.

use crate::common::Output;

pub async fn ping(c: &spur_client::Client) -> Output {
    let answers = c.ping_each().await;
    let n = answers.len();
    let mut out = String::new();
    let mut code = 1;
    let mut down = false;
    let mut backups = 0;
    for (name, reply) in answers.iter() {
        let up = reply.is_some();
        if up {
            code = 0;
        } else {
            down = true;
        }
        let leader = reply.as_ref().map(|r| r.role == "leader" || r.role == "primary").unwrap_or(false);
        let mode = if n == 1 || leader {
            "primary".to_string()
        } else if n == 2 {
            "backup".to_string()
        } else {
            backups += 1;
            format!("backup{}", backups)
        };
        out.push_str(&format!("Slurmctld({}) at {} is {}\n", mode, name, if up { "UP" } else { "DOWN" }));
    }
    if down && nix::unistd::getuid().is_root() {
        out.push_str("*****************************************\n");
        out.push_str("** RESTORE SLURMCTLD DAEMON TO SERVICE **\n");
        out.push_str("*****************************************\n");
    }
    Output { stdout: out, stderr: String::new(), code }
}

const USAGE: &str = "Usage: spur controller list\n       spur controller add ID HOST:PORT\n       spur controller remove ID\n";

/// `spur controller ...`: list the Raft members, or change them without downtime.
pub fn main(args: &[String]) -> i32 {
    // (no runtime of its own: the blocking client's)
    let client = match spur_client::blocking::Client::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("spur controller: {}", e);
            return 1;
        }
    };
    use spur_core::request::MembershipChange;
    let change = match args.iter().map(|s| s.as_str()).collect::<Vec<_>>().as_slice() {
        ["list"] | [] => MembershipChange::List,
        ["add", id, addr] => MembershipChange::Add { id: id.parse().unwrap_or(0), addr: addr.to_string() },
        ["remove", id] => MembershipChange::Remove { id: id.parse().unwrap_or(0) },
        _ => {
            eprint!("{}", USAGE);
            return 1;
        }
    };
    if matches!(change, MembershipChange::Add { id: 0, .. } | MembershipChange::Remove { id: 0 }) {
        eprint!("spur controller: ID must be a positive number\n{}", USAGE);
        return 1;
    }
    if let MembershipChange::Add { addr, .. } = &change {
        if addr.is_empty() {
            eprint!("{}", USAGE);
            return 1;
        }
    }
    match client.membership(&change) {
        Ok(r) => {
            println!("{:<4} {:<24} {:<8} ROLE", "ID", "ADDRESS", "VOTER");
            for m in r.members {
                println!(
                    "{:<4} {:<24} {:<8} {}",
                    m.id,
                    m.addr,
                    if m.voter { "yes" } else { "no" },
                    if m.leader { "leader" } else if m.voter { "follower" } else { "learner" }
                );
            }
            0
        }
        Err(e) => {
            eprintln!("spur controller: error: {}", e);
            1
        }
    }
}
